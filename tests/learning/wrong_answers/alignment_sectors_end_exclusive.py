"""The last sector is found from start + length, one byte past the end."""


def proven_vector_bytes(row_bytes, max_bytes=16):
    width = max_bytes
    while row_bytes % width:
        width //= 2  # 1 divides everything: the loop ends
    return width


def sectors_touched(start, length, sector=32):
    return (start + length) // sector - start // sector + 1


def row_offsets(row_bytes, unit):
    # (r * row_bytes) % unit takes at most `unit` values, and row r + unit starts where row r does.
    return sorted({r * row_bytes % unit for r in range(unit)})


def worst_box_row_sectors(row_bytes, box_bytes=128, sector=32):
    return max(sectors_touched(offset, box_bytes, sector) for offset in row_offsets(row_bytes, sector))


def aligned_row_stride(width, element_size):
    unit = 128 if width * element_size >= 128 else 16  # a line, or TMA's 16 bytes for short rows
    per_unit = unit // element_size  # element sizes are powers of two up to 8: they divide both units
    return -(-width // per_unit) * per_unit


def class_shift(row_bytes, classes, row_class, element_size):
    # Row row_class + j * classes starts j * classes * row_bytes later: a multiple of 16 * classes bytes when
    # row_bytes is a multiple of 16. So the class's first row tells where all of them start.
    return row_class * row_bytes % (16 * classes) // element_size
