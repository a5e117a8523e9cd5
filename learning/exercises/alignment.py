"""Exercise 13 (lesson 9): what a row's start lets loads do.

Row r of a contiguous matrix starts r * row_bytes bytes after row 0 (row_bytes = width * element size).
Two questions decide how fast its rows can be read:

- the compiler's: what is the widest load that is aligned at EVERY row start? (A 16-byte load must start on
  a multiple of 16.) tilelab.ops.matmul_plan.pointer_align answers it for the library's pointer kernels.
- the memory's: memory is read in 32-byte sectors. How many sectors does a 128-byte piece of a row (one
  row of a TMA box) touch? A row that starts mid-sector costs one more. tilelab.ops.matmul_plan.rows_on_sectors
  decides a path with it.

A caller can put rows where they cost nothing: tilelab.empty_aligned allocates rows on 128-byte lines, with
the row stride that aligned_row_stride asks for (tilelab.alignment.output_row_stride). And the kernel can read
A's rows on lines anyway, by giving each program rows that all start alike (class_shift;
tilelab.ops.matmul_plan.row_classes).

Implement the six functions, then run:  python -m learning.check alignment
Standard library only. `python -m learning.explain alignment` shows the measurements behind this.
"""


def proven_vector_bytes(row_bytes, max_bytes=16):
    """The widest load, in bytes, that starts aligned at every row: the largest power of two that divides
    row_bytes, but no more than max_bytes (a power of two). row_bytes >= 1.

    proven_vector_bytes(2000) == 16; proven_vector_bytes(2008) == 8; proven_vector_bytes(510) == 2.
    """
    raise NotImplementedError("proven_vector_bytes: halve max_bytes until it divides row_bytes")


def sectors_touched(start, length, sector=32):
    """How many `sector`-byte units the bytes [start, start + length) touch. length >= 1.

    sectors_touched(0, 128) == 4; sectors_touched(16, 128) == 5; sectors_touched(31, 2) == 2.
    """
    raise NotImplementedError("sectors_touched: the first and the last byte's sectors, and all between")


def row_offsets(row_bytes, unit):
    """Where rows start inside a `unit`-byte block (a line or a sector): the distinct values of
    (r * row_bytes) % unit over all rows r >= 0, sorted.

    row_offsets(2000, 128) == [0, 16, 32, 48, 64, 80, 96, 112]; row_offsets(8000, 128) == [0, 64].
    """
    raise NotImplementedError("row_offsets: the offsets repeat after at most `unit` rows")


def worst_box_row_sectors(row_bytes, box_bytes=128, sector=32):
    """The most sectors that the first `box_bytes` bytes of any row touch.

    worst_box_row_sectors(4000) == 4 (every row starts on a sector); worst_box_row_sectors(6000) == 5.
    """
    raise NotImplementedError("worst_box_row_sectors: sectors_touched at each of the row_offsets")


def aligned_row_stride(width, element_size):
    """The row stride, in elements, that tilelab.empty_aligned gives rows of `width` elements of
    `element_size` bytes: the smallest stride >= width whose rows all start on a 128-byte line, or, for rows
    shorter than a line (width * element_size < 128), on 16 bytes (TMA's rule). width >= 1.

    aligned_row_stride(1000, 2) == 1024; aligned_row_stride(3000, 2) == 3008; aligned_row_stride(36, 2) == 40.
    """
    raise NotImplementedError("aligned_row_stride: round the row's bytes up to a line (or 16 bytes), then divide")


def class_shift(row_bytes, classes, row_class, element_size):
    """Rows row_class, row_class + classes, row_class + 2 * classes, ... form one class. When row_bytes is an
    odd multiple of 16 and classes is 2, 4 or 8, every row of a class starts at the same offset past a
    multiple of 16 * classes bytes. A program that owns the class starts reading K that many bytes early, so
    that its reads begin on the boundary (columns before 0 read as zeros). How many ELEMENTS early?
    0 <= row_class < classes.

    class_shift(2000, 8, 1, 2) == 40 (rows 1, 9, 17, ... start 80 bytes into a line);
    class_shift(2000, 2, 1, 2) == 8 (16 bytes into a sector); class_shift(2000, 8, 0, 2) == 0.
    """
    raise NotImplementedError("class_shift: where the class's first row starts, modulo 16 * classes bytes")
