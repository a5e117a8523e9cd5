"""kernel-inspect: what did the compiler make of a tilelab kernel? No GPU needed.

- `targets`: sm_80 / sm_90 / native as Triton GPUTargets
- `compile`: compiling the library's real kernel for a target, saving every stage
- `hopper`: the persistent, split-K and fp8 kernels' names and configurations for `compile`
- `tools`: cuobjdump and ptxas (shipped inside Triton's wheel) for SASS, registers and spills
- `census`: counting the instructions that tell the story (pure text functions)
- `cli`: the `kernel-inspect` command
"""
