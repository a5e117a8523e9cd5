"""An even count takes the upper of its two middle values instead of their mean."""


def speedup(baseline_seconds, new_seconds):
    return baseline_seconds / new_seconds


def matmul_flops(m, n, k):
    return 2 * m * n * k  # one multiply and one add per (row, col, inner) triple


def matmul_bytes(m, n, k, element_bytes):
    return (m * k + k * n + m * n) * element_bytes  # read A and B once, write C once


def tflops(flops, seconds):
    return flops / seconds / 1e12


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def amdahl(fraction, speedup_of_fraction):
    return 1.0 / ((1.0 - fraction) + fraction / speedup_of_fraction)


def roofline(intensity, peak_tflops, peak_gbps):
    memory_bound_tflops = intensity * peak_gbps / 1000.0  # FLOPs/byte * GB/s = GFLOP/s
    return min(peak_tflops, memory_bound_tflops)


def tile_intensity(block_m, block_n, block_k, element_bytes):
    flops = 2 * block_m * block_n * block_k
    loaded = (block_m * block_k + block_k * block_n) * element_bytes
    return flops / loaded


def median(samples):
    ordered = sorted(samples)
    middle = len(ordered) // 2
    return ordered[middle]
