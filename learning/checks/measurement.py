"""Checks for exercise 8 (lesson 7): the arithmetic of measuring kernels."""

from __future__ import annotations

from learning.checking.compare import check_value
from learning.checking.trial import CheckFailure, Part

REL = 1e-9


def check_speedup(module, trial) -> None:
    for base, new in [(2.0, 0.5), (1.0, 1.0), (0.003, 0.004), (trial.rng.uniform(1, 9), trial.rng.uniform(1, 9))]:
        with trial.case(f"speedup({base:g}, {new:g})"):
            check_value(module.speedup(base, new), base / new, f"speedup({base:g} s, {new:g} s)", rel=REL,
                        known_mistakes=[(new / base, "upside down: speedup = baseline time / new time "
                                                     "(above 1 means the new code is faster)")])


def check_matmul_flops(module, trial) -> None:
    for m, n, k in [(2, 2, 3), (127, 255, 65), (4096, 4096, 4096), (trial.rng.randint(1, 999), 8, 16)]:
        with trial.case(f"matmul_flops({m}, {n}, {k})"):
            check_value(module.matmul_flops(m, n, k), 2 * m * n * k, f"matmul_flops({m}, {n}, {k})",
                        known_mistakes=[(m * n * k, "each multiply-add counts as 2 FLOPs: 2*M*N*K")])


def check_matmul_bytes(module, trial) -> None:
    for m, n, k, size in [(2, 2, 3, 4), (127, 255, 65, 2), (4096, 4096, 4096, 2), (trial.rng.randint(1, 99), 8, 16, 2)]:
        with trial.case(f"matmul_bytes({m}, {n}, {k}, element_bytes={size})"):
            want = (m * k + k * n + m * n) * size
            check_value(module.matmul_bytes(m, n, k, size), want, f"matmul_bytes({m}, {n}, {k}, {size})",
                        known_mistakes=[((m * k + k * n) * size, "C is written once: count M*N output "
                                                                 "elements as well as A and B"),
                                        (m * k + k * n + m * n, "multiply the element count by element_bytes")])


def check_rates(module, trial) -> None:
    with trial.case("tflops(2e12, 0.5)"):
        check_value(module.tflops(2e12, 0.5), 4.0, "tflops(2e12 FLOPs, 0.5 s)", rel=REL,
                    known_mistakes=[(4000.0, "tera is 1e12; 1e9 would be giga"),
                                    (1e12 / 1e12, "divide by the time, do not multiply")])
    with trial.case("gbps(3e9, 1.5)"):
        check_value(module.gbps(3e9, 1.5), 2.0, "gbps(3e9 bytes, 1.5 s)", rel=REL,
                    known_mistakes=[(3e9 / 1.5 / 2**30, "GB/s here means 1e9 bytes per second, not 2**30 (GiB)")])
    flops, seconds = trial.rng.uniform(1e9, 1e13), trial.rng.uniform(1e-4, 1.0)
    with trial.case(f"tflops({flops:.4g}, {seconds:.4g})"):
        check_value(module.tflops(flops, seconds), flops / seconds / 1e12, "tflops", rel=REL)


def check_amdahl(module, trial) -> None:
    for fraction, factor in [(0.5, 2.0), (0.9, 10.0), (0.9, 1e12), (0.0, 5.0), (1.0, 4.0)]:
        with trial.case(f"amdahl(fraction={fraction:g}, speedup={factor:g})"):
            want = 1.0 / ((1.0 - fraction) + fraction / factor)
            check_value(module.amdahl(fraction, factor), want, f"amdahl({fraction:g}, {factor:g})", rel=1e-6,
                        known_mistakes=[(fraction * factor, "the untouched (1 - fraction) of the time still "
                                                            "runs at the old speed: 1 / ((1 - f) + f / s)")])


def check_roofline(module, trial) -> None:
    # An imaginary card: 100 TFLOP/s of arithmetic, 2000 GB/s of memory bandwidth. Ridge at 50 FLOPs/byte.
    # 0.01 first: far below the ridge, the unit slip and max() give different wrong answers (20 and 100).
    for intensity in [0.01, 1.0, 21.33, 50.0, 200.0, trial.rng.uniform(0.1, 400)]:
        with trial.case(f"roofline({intensity:g} FLOPs/byte, 100 TFLOP/s, 2000 GB/s)"):
            want = min(100.0, intensity * 2000.0 / 1000.0)
            units = "GB/s times FLOPs/byte gives GFLOP/s: divide by 1000 for TFLOP/s"
            check_value(module.roofline(intensity, 100.0, 2000.0), want, f"roofline({intensity:g}, 100, 2000)",
                        rel=REL, known_mistakes=[
                            (min(100.0, intensity * 2000.0), units),
                            (max(100.0, intensity * 2.0), "the roof is the LOWER of the two limits: min(), not max()"),
                            (intensity * 2000.0, units),
                        ])


def check_tile_intensity(module, trial) -> None:
    for bm, bn, bk, size in [(32, 64, 32, 2), (16, 16, 16, 4), (128, 128, 64, 2)]:
        with trial.case(f"tile_intensity({bm}, {bn}, {bk}, {size})"):
            loads = (bm * bk + bk * bn) * size
            want = 2 * bm * bn * bk / loads
            check_value(module.tile_intensity(bm, bn, bk, size), want, f"tile_intensity({bm}, {bn}, {bk}, {size})",
                        rel=1e-6, known_mistakes=[(want / 2, "a multiply-add is 2 FLOPs"),
                                                  (want * size, "divide by bytes, not elements")])


def check_median(module, trial) -> None:
    # Medians unlike the means (3 against 4, 2.5 against 3.75), and middles unlike the unsorted ones.
    for samples in [[3.0, 1.0, 8.0], [1.0, 3.0, 9.0, 2.0], [5.0], trial.floats(9, 0.0, 1.0)]:
        with trial.case(f"median of {len(samples)} samples"):
            ordered = sorted(samples)
            mid = len(ordered) // 2
            want = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
            before = list(samples)
            check_value(module.median(samples), want, "median", rel=REL,
                        known_mistakes=[(sum(samples) / len(samples), "that is the mean; sort and take the middle"),
                                        (samples[len(samples) // 2], "sort the samples first"),
                                        (ordered[mid], "an even count has two middle values: average them")])
            if samples != before:
                raise CheckFailure("median reordered the caller's list: sort a copy (sorted(samples))")


PARTS = [
    Part("speedup", check_speedup),
    Part("matmul_flops", check_matmul_flops),
    Part("matmul_bytes", check_matmul_bytes),
    Part("tflops and gbps", check_rates, needs=("tflops", "gbps")),
    Part("amdahl", check_amdahl),
    Part("roofline", check_roofline),
    Part("tile_intensity", check_tile_intensity),
    Part("median", check_median),
]
