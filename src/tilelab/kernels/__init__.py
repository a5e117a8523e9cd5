"""Only `@triton.jit` code: one file per kernel family."""
