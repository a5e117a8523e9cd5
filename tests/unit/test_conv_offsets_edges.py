"""conv2d_bn_silu's 32- or 64-bit offset choice (`_needs_64bit_offsets`) at its exact edges.

The kernels compute element offsets in int32 unless told otherwise, and masked lanes still form their offsets:
a tile's overshoot past the last pixel or channel counts, by the config's longest block side, K's included (the
implicit GEMM's K steps run over input channels). An offset of 2**31 no longer fits int32 (its largest is
2**31 - 1). `test_conv_planning.py` checks tensors far from that edge with blocks of one size; here the offset
reaches exactly 2**31, or is reached only through block_k.
"""

from tilelab import tuning
from tilelab.ops import conv as conv_op


class _Strided:
    """Only a shape and strides, which is all the offset check reads: no 8 GiB tensor needed."""

    def __init__(self, shape, strides):
        self.shape, self._strides = shape, strides

    def stride(self):
        return self._strides


def _row(width):
    """An input [1, 1, 1, width] of unit strides: with a block side b its furthest lane's offset is
    3 * b + (width - 1 + b), the three unit dimensions overshot by b and the width by b past its last element."""
    return _Strided((1, 1, 1, width), (1, 1, 1, 1))


SMALL = _Strided((1, 1, 1, 1), (1, 1, 1, 1))


def test_an_offset_of_exactly_2_31_needs_64_bits():
    config = tuning.Config(32, 32, 32)  # the longest side 32: the furthest offset is width + 127
    assert conv_op._needs_64bit_offsets(_row(2**31 - 127), SMALL, SMALL, config)  # reaches 2**31
    assert not conv_op._needs_64bit_offsets(_row(2**31 - 128), SMALL, SMALL, config)  # 2**31 - 1 still fits


def test_block_k_counts_in_the_overshoot():
    # 16 x 16 tiles with K steps of 64: the overshoot is 64, so the furthest offset is width + 255.
    config = tuning.Config(16, 16, 64)
    assert conv_op._needs_64bit_offsets(_row(2**31 - 255), SMALL, SMALL, config)
    assert not conv_op._needs_64bit_offsets(_row(2**31 - 256), SMALL, SMALL, config)
    # Each operand is checked: the weight or y alone reaching 2**31 is enough.
    assert conv_op._needs_64bit_offsets(SMALL, _row(2**31 - 255), SMALL, config)
    assert conv_op._needs_64bit_offsets(SMALL, SMALL, _row(2**31 - 255), config)
