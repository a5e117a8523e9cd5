"""kernel-bench: check every variant against float64, then time it against torch, and keep the evidence.

One idea per module:

- `registry`: what an op is to the benchmark (shapes, inputs, variants, reference, FLOP and byte counts)
- `op_matmul`: the matmul entry
- `op_scaled_matmul`: the fp8 scaled_matmul entry (against torch._scaled_mm)
- `op_bmm`: the batched entries, bmm (B [batch, K, N]) and bmm_nt (B stored [batch, N, K], passed transposed)
- `correctness`: a variant's output against the float64 reference
- `timing`: CUDA-event and CUDA-graph timers, the L2 flush
- `stats`: medians, throughputs, speedups (pure functions)
- `environment`: GPU, versions, git state and source hash
- `roofline`: compute and memory ceilings (calibrated or datasheet) and the fraction reached
- `calibrate`: measuring those ceilings on this GPU
- `schema`: the result file's JSON Schema and a validator
- `sweep`: the loop over shapes and variants
- `console`: rich progress and the summary table
- `report`, `plots`: markdown and PNG from result files
- `cli`: the `kernel-bench` command
"""
