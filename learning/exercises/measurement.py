"""Exercise 8 (lesson 7): the arithmetic of measurement.

Every performance claim is one of these small formulas applied to a measured time.
Implement them, then run:  python -m learning.check measurement
Standard library only.
"""


def speedup(baseline_seconds, new_seconds):
    """How many times faster the new code is (above 1 means faster)."""
    raise NotImplementedError("speedup")


def matmul_flops(m, n, k):
    """Floating-point operations in an (M x K) @ (K x N) matmul: a multiply and an add per term."""
    raise NotImplementedError("matmul_flops")


def matmul_bytes(m, n, k, element_bytes):
    """The least memory traffic of that matmul: read A and B once, write C once."""
    raise NotImplementedError("matmul_bytes")


def tflops(flops, seconds):
    """Rate in TFLOP/s (10**12 FLOPs per second)."""
    raise NotImplementedError("tflops")


def gbps(nbytes, seconds):
    """Rate in GB/s (10**9 bytes per second)."""
    raise NotImplementedError("gbps")


def amdahl(fraction, speedup_of_fraction):
    """Whole-program speedup when `fraction` of the time gets `speedup_of_fraction` times faster."""
    raise NotImplementedError("amdahl")


def roofline(intensity, peak_tflops, peak_gbps):
    """Attainable TFLOP/s at `intensity` FLOPs per byte on a card with these two peaks."""
    raise NotImplementedError("roofline")


def tile_intensity(block_m, block_n, block_k, element_bytes):
    """FLOPs per input byte of one K step of a block_m x block_n tile (lesson 6's reuse ratio)."""
    raise NotImplementedError("tile_intensity")


def median(samples):
    """The median of a list of timings, without reordering the caller's list."""
    raise NotImplementedError("median")
