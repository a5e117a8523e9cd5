"""Public operations, one module per op: contract check -> plan (path, config) -> launch.

The functions themselves are exported from `tilelab` (e.g. `tilelab.matmul`);
`tilelab.ops.matmul` is the module, with its planning helpers.
"""
