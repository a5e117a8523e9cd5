"""Checks for exercise 13 (lesson 9): the widest aligned load, sectors touched, where rows start, where to put
them, and where a class of rows starts reading."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.compare import check_value
from learning.checking.trial import Part

ROW_BYTES = [2000, 2008, 510, 4096, 6000, 8000, 10000, 12000, 1, 3, 48, 4000]


def check_proven_vector_bytes(module, trial) -> None:
    cases = [(b, 16) for b in ROW_BYTES] + [(2000, 8), (4096, 4), (6, 16)]
    cases += [(trial.rng.randint(1, 20000), trial.rng.choice([4, 8, 16])) for _ in range(4)]
    for row_bytes, max_bytes in cases:
        with trial.case(f"proven_vector_bytes({row_bytes}, {max_bytes})"):
            want = ref.proven_vector_bytes(row_bytes, max_bytes)
            check_value(module.proven_vector_bytes(row_bytes, max_bytes), want,
                        f"proven_vector_bytes({row_bytes}, max_bytes={max_bytes})", known_mistakes=[
                            (max_bytes, f"{row_bytes} is not a multiple of {max_bytes}: a row would start "
                                        "mid-vector. Halve the width until it divides row_bytes"),
                            (row_bytes & -row_bytes, "the width is capped: no load is wider than max_bytes"),
                        ])


def check_sectors_touched(module, trial) -> None:
    cases = [(0, 128, 32), (16, 128, 32), (32, 128, 32), (31, 2, 32), (0, 1, 32), (112, 128, 32), (5, 64, 16)]
    cases += [(trial.rng.randint(0, 300), trial.rng.randint(1, 300), trial.rng.choice([16, 32, 64]))
              for _ in range(4)]
    for start, length, sector in cases:
        with trial.case(f"sectors_touched({start}, {length}, {sector})"):
            want = ref.sectors_touched(start, length, sector)
            check_value(module.sectors_touched(start, length, sector), want,
                        f"sectors_touched({start}, {length}, sector={sector})", known_mistakes=[
                            (-(-length // sector), "a piece that starts inside a sector can touch one more: "
                                                   "count from start // sector to (start + length - 1) // sector"),
                            ((start + length) // sector - start // sector, "the last byte is start + length - 1"),
                            ((start + length) // sector - start // sector + 1, "the last byte is start + length - 1: "
                                                                                 "(start + length) // sector is one "
                                                                                 "sector too far when the piece ends "
                                                                                 "on a sector's edge"),
                        ])


def check_row_offsets(module, trial) -> None:
    cases = [(b, 128) for b in ROW_BYTES] + [(2000, 32), (6000, 32), (8000, 32)]
    cases += [(trial.rng.randint(1, 20000), trial.rng.choice([32, 128])) for _ in range(3)]
    for row_bytes, unit in cases:
        with trial.case(f"row_offsets({row_bytes}, {unit})"):
            got = module.row_offsets(row_bytes, unit)
            got = sorted(got) if isinstance(got, (list, tuple, set)) else got
            want = ref.row_offsets(row_bytes, unit)
            check_value(got, want, f"row_offsets({row_bytes}, {unit})", known_mistakes=[
                ([0], "row 0 starts at offset 0, but the others move by row_bytes each: take every row"),
                (sorted({r * row_bytes % unit for r in range(8)}), "eight rows are not always enough: "
                                                                    "the offsets repeat after up to `unit` rows"),
            ])


def check_worst_box_row_sectors(module, trial) -> None:
    cases = [(b, 128, 32) for b in ROW_BYTES] + [(2000, 64, 32), (6000, 256, 32)]
    cases += [(trial.rng.randint(1, 20000), 128, 32) for _ in range(3)]
    for row_bytes, box_bytes, sector in cases:
        with trial.case(f"worst_box_row_sectors({row_bytes}, {box_bytes}, {sector})"):
            want = max(ref.sectors_touched(o, box_bytes, sector) for o in ref.row_offsets(row_bytes, sector))
            check_value(module.worst_box_row_sectors(row_bytes, box_bytes, sector), want,
                        f"worst_box_row_sectors({row_bytes}, {box_bytes}, {sector})", known_mistakes=[
                            (ref.sectors_touched(0, box_bytes, sector), "that is row 0's count; other rows start "
                                                             "elsewhere in a sector (row_offsets)"),
                        ])


def check_aligned_row_stride(module, trial) -> None:
    cases = [(1000, 2), (3000, 2), (36, 2), (64, 2), (65, 2), (1, 2), (7, 4), (300, 4), (255, 2), (8, 8),
             (4096, 1), (129, 1)]
    cases += [(trial.rng.randint(1, 5000), trial.rng.choice([1, 2, 4, 8])) for _ in range(4)]
    for width, size in cases:
        with trial.case(f"aligned_row_stride({width}, {size})"):
            want = ref.aligned_row_stride(width, size)  # tilelab.alignment.output_row_stride
            line_always = -(-width * size // 128) * 128 // size
            check_value(module.aligned_row_stride(width, size), want, f"aligned_row_stride({width}, {size})",
                        known_mistakes=[
                            (-(-width // 128) * 128, "128 is a count of bytes, not of elements: a line holds "
                                                     "128 // element_size elements"),
                            (-(-width * size // 16) * 16 // size, "that is TMA's 16-byte rule alone: a row of a "
                                                                  "line or more starts on a line"),
                            (line_always, "a row shorter than a line only needs 16 bytes: padding it to a whole "
                                          "line wastes memory"),
                        ])


def check_class_shift(module, trial) -> None:
    cases = [(2000, 8, r, 2) for r in range(8)] + [(2000, 2, 1, 2), (2000, 4, 3, 2), (6000, 8, 5, 2),
                                                   (10000, 4, 2, 2), (80, 8, 7, 2), (4016, 8, 3, 4)]
    cases += [(16 * (2 * trial.rng.randint(0, 500) + 1), classes, trial.rng.randrange(classes), 2)
              for classes in (2, 4, 8)]
    for row_bytes, classes, row_class, size in cases:
        with trial.case(f"class_shift({row_bytes}, {classes}, {row_class}, {size})"):
            want = ref.class_shift(row_bytes, classes, row_class, size)
            offset = row_class * row_bytes % (16 * classes)
            check_value(module.class_shift(row_bytes, classes, row_class, size), want,
                        f"class_shift({row_bytes}, {classes}, {row_class}, {size})", known_mistakes=[
                            (offset, "that is the shift in bytes: the K coordinate counts elements "
                                     "(divide by element_size)"),
                            (row_class * row_bytes % 128 // size, "the boundary is 16 * classes bytes: 2 classes "
                                                                   "only put rows on 32-byte sectors, not on lines"),
                            ((16 * classes - offset) % (16 * classes) // size,
                             "that reads later, not earlier: the row starts `offset` bytes past the boundary, so "
                             "step back by that much"),
                        ])


PARTS = [
    Part("proven_vector_bytes", check_proven_vector_bytes),
    Part("sectors_touched", check_sectors_touched),
    Part("row_offsets", check_row_offsets),
    Part("worst_box_row_sectors", check_worst_box_row_sectors),
    Part("aligned_row_stride", check_aligned_row_stride),
    Part("class_shift", check_class_shift),
]
