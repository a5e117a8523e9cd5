"""Public operations, one module per op: contract check -> plan (path, config) -> launch.

The functions themselves are exported from `tilelab` (e.g. `tilelab.matmul`);
`tilelab.ops.matmul` is the module; `tilelab.ops.matmul_plan` chooses its path and tile,
`tilelab.ops.descriptors` builds its TMA descriptors, and `tilelab.ops.bound_launch` replays the launches
every op records.
"""
