"""conv2d_bn_silu's plan without a GPU: candidates, tuning keys, 64-bit offsets, the path rule for groups, and
its sm_90/sm_80 machine code (the implicit GEMM's and the direct kernel's)."""

import collections
import dataclasses
import json
import random

import pytest
import torch

from tests.helpers import run_without_interpreter
from tilelab import tuning
from tilelab.ops import conv as conv_op


def geometry(batch=32, c_in=64, h=56, w=56, c_out=64, k=3, stride=1):
    return conv_op.ConvGeometry(batch, c_in, h, w, c_out, k, k, (stride, stride), (k // 2, k // 2), (1, 1))


def test_the_implicit_gemm_sizes():
    g = geometry(batch=2, c_in=3, h=9, w=11, c_out=33, k=3, stride=2)
    assert (g.oh, g.ow) == (5, 6)
    assert g.gemm() == (2 * 5 * 6, 33, 9 * 3)


def test_candidates_fit_the_problem():
    # 16 input channels: no K step longer than 16, and every tile at most twice 24 channels wide.
    found = conv_op.candidates(geometry(c_in=16, c_out=24), element_size=2)
    assert found and all(c.block_k == 16 for c in found)
    assert all(c.block_n <= 64 for c in found)
    assert len(set(found)) == len(found)
    # float32 halves the K step (the same bytes per stage).
    wide = conv_op.candidates(geometry(c_in=256, c_out=256), element_size=4)
    assert max(c.block_k for c in wide) == 32


def test_tuning_keys_tell_layouts_filters_and_strides_apart():
    x = torch.empty(8, 64, 28, 28, dtype=torch.float16)
    w = torch.empty(64, 64, 3, 3, dtype=torch.float16)
    g = geometry(batch=8, h=28, w=28)
    key = conv_op.tuning_key(x, w, g, "tf32", True)
    assert "x-nchw" in key and "w-nchw" in key and "|3x3|" in key and "s1x1" in key
    channels_last = conv_op.tuning_key(x.to(memory_format=torch.channels_last), w, g, "tf32", True)
    assert channels_last != key
    assert conv_op.tuning_key(x, w, geometry(batch=8, h=28, w=28, stride=2), "tf32", True) != key
    assert conv_op.tuning_key(x, w, g, "tf32", False).split("|")[1] == "conv2d_bn"


class _Strided:
    """Only a shape and strides, which is all the offset check reads: no 4 GiB tensor needed."""

    def __init__(self, shape, strides):
        self.shape, self._strides = shape, strides

    def stride(self):
        return self._strides


def test_64_bit_offsets_only_past_int32():
    w = _Strided((16, 16, 1, 1), (16, 1, 16, 16))
    huge = _Strided((1, 16, 16384, 8192), (16 * 16384 * 8192, 1, 8192 * 16, 16))  # 2**31 elements, channels-last
    assert conv_op._needs_64bit_offsets(huge, w, huge, conv_op.SEED)
    small = _Strided((1, 16, 1024, 1024), (16 * 1024 * 1024, 1, 1024 * 16, 16))
    assert not conv_op._needs_64bit_offsets(small, w, small, conv_op.SEED)


_WORKER = r"""
import json, re, collections, triton, torch
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.ops.conv import inspection_source

found = {}
for dtype in ("float16", "bfloat16", "float32"):
    for arch in (90, 80):
        kernel, signature, constexprs, attrs, config = inspection_source(getattr(torch, dtype))
        compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", arch, 32),
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        ops = re.findall(r"\b(wgmma\.mma_async|mma\.sync|cp\.async\.cg\.shared\.global|ld\.local|st\.local)\b",
                         compiled.asm["ptx"])
        found[f"{dtype} {arch}"] = {**collections.Counter(ops), "ctaid.y": compiled.asm["ptx"].count("%ctaid.y")}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def instructions() -> dict:
    return {k: collections.Counter(v) for k, v in json.loads(run_without_interpreter(_WORKER)).items()}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_hopper_runs_the_implicit_gemm_on_wgmma_fed_by_async_copies(instructions, dtype):
    found = instructions[f"{dtype} 90"]
    assert found["wgmma.mma_async"] > 0 and found["cp.async.cg.shared.global"] > 0
    assert found["mma.sync"] == 0 and found["ld.local"] == 0 and found["st.local"] == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_ampere_runs_it_on_mma_sync(instructions, dtype):
    found = instructions[f"{dtype} 80"]
    assert found["mma.sync"] > 0 and found["wgmma.mma_async"] == 0


@pytest.mark.parametrize("arch", [90, 80])
def test_an_ungrouped_convolution_compiles_no_group_offsets(instructions, arch):
    """GROUPS = 1 is a constant after Triton's specialization: the group's grid axis is never even read."""
    assert instructions[f"float16 {arch}"]["ctaid.y"] == 0


# -- groups: the path rule, the direct kernel's tiles and keys ----------------------------------------------


def grouped(c_in=64, c_out=64, groups=64, k=3):
    return conv_op.ConvGeometry(32, c_in, 56, 56, c_out, k, k, (1, 1), (k // 2, k // 2), (1, 1), groups)


def test_the_path_rule():
    # Ungrouped always takes the implicit GEMM, however few its input channels (a 3-channel stem).
    assert not conv_op.uses_direct_kernel(grouped(c_in=3, c_out=32, groups=1))
    assert conv_op.uses_direct_kernel(grouped(groups=64))  # depthwise
    assert conv_op.uses_direct_kernel(grouped(c_out=128, groups=64))  # with a channel multiplier
    assert conv_op.uses_direct_kernel(grouped(c_in=45, c_out=45, groups=3))  # 15 per group, an odd count
    assert not conv_op.uses_direct_kernel(grouped(c_in=30, c_out=30, groups=2))  # 15 per group, bundled in 2
    assert not conv_op.uses_direct_kernel(grouped(c_in=32, c_out=32, groups=2))  # 16 per group: tl.dot's K
    assert conv_op.DOT_MIN_K == 16
    assert (conv_op.kernel_path(grouped(groups=64)), conv_op.kernel_path(grouped(groups=1))) == (
        "direct", "implicit_gemm")


def test_small_groups_share_a_tile():
    """Groups of 2 to 15 input channels come in bundles: the largest power of two that divides the groups and
    keeps a bundle's input channels within PACKED_K (32)."""
    bundles = {(c_in, groups): conv_op.groups_per_tile(grouped(c_in=c_in, c_out=c_in, groups=groups))
               for c_in, groups in [(64, 32), (128, 32), (256, 32), (512, 64), (96, 12), (45, 3), (64, 64),
                                    (64, 4), (64, 1)]}
    assert bundles == {(64, 32): 16, (128, 32): 8, (256, 32): 4, (512, 64): 4, (96, 12): 4, (45, 3): 1,
                       (64, 64): 1, (64, 4): 1, (64, 1): 1}
    assert conv_op.PACKED_K == 32
    g = grouped(c_in=128, c_out=256, groups=32)  # 4 in, 8 out per group: 8 groups to a bundle
    assert g.gemm() == (32 * 56 * 56, 8 * 8, 9 * 8 * 4)


def test_one_groups_gemm_sizes():
    g = grouped(c_in=64, c_out=128, groups=2)
    assert (g.c_in_per_group, g.c_out_per_group) == (32, 64)
    assert g.gemm() == (32 * 56 * 56, 64, 9 * 32)


def test_direct_candidates_fit_the_problem():
    # 64 channels: every tile (none is wider than 64 channels).
    found = conv_op.candidates(grouped(), element_size=2)
    assert found == list(conv_op.DIRECT_CANDIDATES) and len(found) == 12
    for c in conv_op.DIRECT_CANDIDATES:  # 16 or 32 float32 sums per thread, no pipelined loop
        assert c.block_m * c.block_n // (32 * c.num_warps) in (16, 32) and c.num_stages == 1
    # Six tiles come capped (ptxas's maxnreg), five of them also uncapped; no two alike.
    capped = [c for c in conv_op.DIRECT_CANDIDATES if c.maxnreg]
    assert len(capped) == 7 and len({c.label() for c in conv_op.DIRECT_CANDIDATES}) == 12
    # 8 channels: no tile wider than 32 channels (twice 8 rounded up to 16, `tuning.padding_limits`).
    narrow = conv_op.candidates(grouped(c_in=8, c_out=8, groups=8), element_size=2)
    assert narrow == [c for c in conv_op.DIRECT_CANDIDATES if c.block_n <= 32] and len(narrow) == 8


def test_a_register_cap_is_a_launch_option_and_part_of_the_label():
    capped = conv_op.direct_tile(256, 16, 4, maxnreg=128)
    assert capped.label() == "256x16x16-g1-w4-s1-r128" and conv_op.register_cap(capped) == {"maxnreg": 128}
    plain = conv_op.direct_tile(256, 16, 4)
    assert plain.label() == "256x16x16-g1-w4-s1" and conv_op.register_cap(plain) == {}
    assert conv_op.register_cap(tuning.Config(64, 64, 32)) == {}  # a plain Config has no cap
    assert conv_op.ConvConfig(64, 128, 64, split_k=2, maxnreg=168).label() == "64x128x64-g8-w4-s3-sk2-r168"
    import tilelab

    assert tilelab.ConvConfig is conv_op.ConvConfig and "ConvConfig" in tilelab.__all__  # public, beside Config
    # The tuning table stores the cap; its entries from before the cap load uncapped.
    assert conv_op.ConvConfig.from_dict(capped.as_dict()) == capped
    older = {k: v for k, v in capped.as_dict().items() if k != "maxnreg"}
    assert conv_op.ConvConfig.from_dict(older) == plain
    # The implicit GEMM's K steps follow one group's channels: 16 per group, K steps of 16.
    per_group = conv_op.candidates(grouped(c_in=32, c_out=32, groups=2), element_size=2)
    assert per_group and all(c.block_k == 16 for c in per_group) and all(c.block_n <= 32 for c in per_group)


def test_tuning_keys_tell_groups_apart():
    x = torch.empty(32, 64, 56, 56, dtype=torch.float16).to(memory_format=torch.channels_last)
    dense_w = torch.empty(64, 64, 3, 3, dtype=torch.float16)
    # The ungrouped key is what it was before groups existed: the shipped winners are keyed so.
    dense = conv_op.tuning_key(x, dense_w, geometry(), "tf32", True)
    assert dense == "cpu|conv2d_bn_silu|float16|tf32|x-nhwc|w-nchw|3x3|s1x1|" + tuning.shape_bucket(
        32 * 56 * 56, 64, 9 * 64, fine=True)
    halves = conv_op.tuning_key(x, torch.empty(64, 32, 3, 3, dtype=torch.float16), grouped(groups=2), "tf32", True)
    assert halves.endswith("|groups2") and halves != dense
    depthwise = conv_op.tuning_key(x, torch.empty(64, 1, 3, 3, dtype=torch.float16), grouped(), "tf32", True)
    assert depthwise.endswith("|direct-1x1") and depthwise not in (dense, halves)
    doubled = conv_op.tuning_key(x, torch.empty(128, 1, 3, 3, dtype=torch.float16), grouped(c_out=128), "tf32", True)
    assert doubled.endswith("|direct-1x2") and doubled != depthwise


def test_64_bit_offsets_for_direct_tiles():
    w = _Strided((16, 1, 3, 3), (9, 1, 3, 1))
    huge = _Strided((1, 16, 16384, 8192), (16 * 16384 * 8192, 1, 8192 * 16, 16))  # 2**31 elements, channels-last
    small = _Strided((1, 16, 512, 512), (16 * 512 * 512, 1, 512 * 16, 16))
    for tile in conv_op.DIRECT_CANDIDATES:
        assert conv_op._needs_64bit_offsets(huge, w, huge, tile)
        assert not conv_op._needs_64bit_offsets(small, w, small, tile)


_DIRECT_WORKER = r"""
import json, re, collections, torch, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.inspect import census, tools
from tilelab.ops.conv import inspection_source, register_cap

found = {}
for dtype in ("float16", "bfloat16", "float32"):
    kernel, signature, constexprs, attrs, config = inspection_source(getattr(torch, dtype), groups=64)
    compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    ptx = compiled.asm["ptx"]
    ops = re.findall(r"\b(wgmma\.mma_async|mma\.sync|ld\.global\.v4\.b32|fma\.rn\.f32|ld\.local|st\.local|"
                     r"div\.s32|div\.u32|rem\.s32|rem\.u32)\b", ptx)
    found[dtype] = {"kernel": kernel.__name__, "config": config.as_dict(), "ops": collections.Counter(ops),
                    "ptxas": census.parse_ptxas_verbose(tools.ptxas_verbose(ptx, "sm_90a") or "")}
for name, channels in [("72", 72), ("72 unhinted", 72)]:  # depthwise, channels a multiple of 8, not of 16
    kernel, signature, constexprs, attrs, config = inspection_source(torch.float16, groups=channels,
                                                                     channels=channels)
    if name.endswith("unhinted"):
        constexprs["CHANNEL_ALIGN"] = 1
    compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    ptx = compiled.asm["ptx"]
    found[name] = {"hint": constexprs["CHANNEL_ALIGN"], "vectors": len(re.findall(r"ld\.global\.v4\.b32", ptx)),
                   "scalar": len(re.findall(r"ld\.global\.b16|st\.global\.b16", ptx)),
                   "ptxas": census.parse_ptxas_verbose(tools.ptxas_verbose(ptx, "sm_90a") or "")}
# depthwise with a channel multiplier of 2 (64 -> 128 channels), and the same compiled as the general code
for name, multiplier in [("multiplier 2", 2), ("multiplier 2 gathered", 1)]:
    kernel, signature, constexprs, attrs, config = inspection_source(torch.float16, groups=64, out_channels=128)
    found[name] = {"multiplier": constexprs["MULTIPLIER"]}
    constexprs["MULTIPLIER"] = multiplier
    compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    ptx = compiled.asm["ptx"]
    found[name].update(vectors=len(re.findall(r"ld\.global\.v4\.b32", ptx)),
                       scalar=len(re.findall(r"ld\.global\.b16", ptx)), config=config.as_dict())
# 5x5 depthwise on 16x64 with 2 warps, capped at 80 registers (110 uncapped): ptxas spills what does not fit
kernel, signature, constexprs, attrs, config = inspection_source(torch.float16, config="16x64x16-g1-w2-s1-r80",
                                                                 kernel_size=5, groups=240, channels=240)
compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": config.num_warps, "num_stages": config.num_stages,
                                   **register_cap(config)})
found["capped"] = {"config": config.label(), "directive": re.findall(r"\.maxnreg \d+", compiled.asm["ptx"]),
                   "ptxas": census.parse_ptxas_verbose(tools.ptxas_verbose(compiled.asm["ptx"], "sm_90a") or "")}
kernel, signature, constexprs, attrs, config = inspection_source(torch.float16, groups=2)
compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": config.num_warps, "num_stages": config.num_stages})
found["two groups"] = {"kernel": kernel.__name__, "ctaid.y": compiled.asm["ptx"].count("%ctaid.y"),
                       "wgmma": compiled.asm["ptx"].count("wgmma.mma_async")}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def grouped_kernels() -> dict:
    return json.loads(run_without_interpreter(_DIRECT_WORKER))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_depthwise_compiles_to_fmas_on_16_byte_loads_without_spills(grouped_kernels, dtype):
    """sm_90, channels-last, 3x3 depthwise on the first candidate tile (16 pixels x 64 channels, 2 warps)."""
    found = grouped_kernels[dtype]
    ops = collections.Counter(found["ops"])
    assert found["kernel"] == "conv2d_bn_silu_direct_kernel"
    assert ops["wgmma.mma_async"] == 0 and ops["mma.sync"] == 0  # no tensor cores
    config = found["config"]
    per_thread = config["block_m"] * config["block_n"] // (32 * config["num_warps"])
    assert ops["fma.rn.f32"] >= per_thread  # the tap loop's multiply-adds, one per element of its tile
    # Each thread's share of a tap's x tile arrives in 16-byte loads (adjacent channels, adjacent addresses), for
    # the three taps of a filter row at once (the row's taps are unrolled): the only vector loads in the kernel
    # (the weight's channels are 9 elements apart, the batch norm's not aligned).
    element_size = 4 if dtype == "float32" else 2
    assert ops["ld.global.v4.b32"] == 3 * per_thread * element_size // 16
    # The pixels' image, row and column come from multiplications by `division_magic`'s numbers, not divisions.
    assert not any(ops[op] for op in ("div.s32", "div.u32", "rem.s32", "rem.u32"))
    assert ops["ld.local"] == 0 and ops["st.local"] == 0
    if found["ptxas"]["spill_stores_bytes"] is not None:  # ptxas ships inside Triton's wheel
        assert found["ptxas"]["spill_stores_bytes"] == 0 and found["ptxas"]["spill_loads_bytes"] == 0


def test_a_register_cap_reaches_ptxas(grouped_kernels):
    """The cap travels in the PTX (`.maxnreg`), and ptxas keeps to it."""
    capped = grouped_kernels["capped"]
    assert capped["config"] == "16x64x16-g1-w2-s1-r80" and capped["directive"] == [".maxnreg 80"]
    if capped["ptxas"]["registers"] is not None:  # ptxas ships inside Triton's wheel
        assert capped["ptxas"]["registers"] <= 80


def test_depthwise_72_channels_load_in_vectors_once_hinted(grouped_kernels):
    """72 channels (MobileNetV3's) are a multiple of 8, not of the 16 Triton's specialization sees: unhinted,
    the direct kernel loads and stores one element at a time; with CHANNEL_ALIGN 8 it compiles as at 64
    channels (16-byte loads), in far fewer registers."""
    hinted, unhinted = grouped_kernels["72"], grouped_kernels["72 unhinted"]
    assert hinted["hint"] == 8 and hinted["vectors"] > 0 and unhinted["vectors"] == 0 and unhinted["scalar"] > 16
    assert hinted["vectors"] == grouped_kernels["float16"]["ops"]["ld.global.v4.b32"]
    if hinted["ptxas"]["registers"] is not None:  # ptxas ships inside Triton's wheel
        assert hinted["ptxas"]["registers"] < 0.5 * unhinted["ptxas"]["registers"]


@pytest.mark.parametrize("c,multiplier,x_channels,expected", [
    (64, 1, 64, 1),  # multiples of 16: Triton knows
    (72, 1, 72, 8), (120, 1, 120, 8), (36, 1, 36, 4), (33, 1, 33, 1),
    (72, 1, 80, 8),  # x a channel slice of 80: strides of 80 and 72 share 8
    (72, 1, 76, 4),
    (72, 2, 72, 8),  # a channel multiplier of 2: the tile's input channels are one run (`direct_multiplier`)
    (72, 3, 72, 1),  # of 3: the general code gathers output channel c's input channel c // 3, no run
])
def test_direct_hint_says_what_every_offset_is_a_multiple_of(c, multiplier, x_channels, expected):
    wide = torch.empty(2, x_channels, 9, 7, device="meta").to(memory_format=torch.channels_last)
    x = wide[:, :c]
    y = torch.empty(2, c * multiplier, 9, 7, device="meta").to(memory_format=torch.channels_last)
    g = conv_op.ConvGeometry(2, c, 9, 7, c * multiplier, 3, 3, (1, 1), (1, 1), (1, 1), c)
    assert conv_op.uses_direct_kernel(g)
    assert conv_op.direct_hint(x, y, g) == expected


def test_a_channel_multiplier_loads_each_input_channel_once_in_vectors(grouped_kernels):
    """64 -> 128 channels: the tile's 32 input channels are one run, 16-byte loads repeated in registers; the
    general code gathers output channel c's input c // 2 element by element."""
    runs, gathered = grouped_kernels["multiplier 2"], grouped_kernels["multiplier 2 gathered"]
    assert runs["multiplier"] == 2 and runs["vectors"] > 0 and gathered["vectors"] == 0
    assert gathered["scalar"] > 4 * runs["scalar"]


@pytest.mark.parametrize("divisor", [1, 2, 3, 7, 28, 56, 112, 1000, 2**16 + 1, 2**30 + 3, 2**31 - 1])
def test_division_magic_divides_every_31_bit_number(divisor):
    magic, shift = conv_op.division_magic(divisor)
    assert 0 < magic < 2**32
    # the quotient's edges (multiples of the divisor and their neighbours) over the whole range, the range's own
    # edges, and random values
    values = [0, 1, divisor - 1, divisor, divisor + 1, 2**31 - 1, 2**31 - divisor]
    step = max(1, 2**31 // divisor // 2000)
    values += [k * divisor + d for k in range(1, 2**31 // divisor + 1, step) for d in (-1, 0, 1)]
    values += random.Random(divisor).sample(range(2**31), 5000)
    assert all((v * magic) >> shift == v // divisor for v in values if 0 <= v < 2**31)


def test_division_magic_refuses_a_divisor_below_one():
    with pytest.raises(ValueError, match="divisor"):
        conv_op.division_magic(0)


def test_two_groups_of_32_channels_are_implicit_gemms_along_the_grids_second_axis(grouped_kernels):
    found = grouped_kernels["two groups"]
    assert found["kernel"] == "conv2d_bn_silu_kernel" and found["wgmma"] > 0 and found["ctaid.y"] > 0


# -- split-K: which problems get it, and what it compiles to -----------------------------------------------


def test_split_k_is_tried_where_few_pixels_meet_a_long_k():
    """7x7 images of 512 channels (1568 pixels, K = 4608): split tiles, each slice 8 K steps or more, the
    programs at most SPLIT_K_MAX_WAVES waves; 56x56 images of 64 channels (100352 pixels, K = 576): none."""
    for element_size in (2, 4):
        g = geometry(batch=32, c_in=512, h=7, w=7, c_out=512)
        m, n, _ = g.gemm()
        split = [c for c in conv_op.candidates(g, element_size, sms=132) if conv_op.split_k_of(c) > 1]
        assert {c.split_k for c in split} == {2, 4}
        for c in split:
            assert c.block_k == 128 // element_size  # the same bytes per K step as the unsplit tiles
            assert 9 * tuning.ceil_div(512, c.block_k) >= c.split_k * conv_op.SPLIT_K_MIN_STEPS
            assert tuning.tile_count(m, n, c) * c.split_k <= conv_op.SPLIT_K_MAX_WAVES * 132
        assert not any(conv_op.split_k_of(c) > 1 for c in conv_op.candidates(geometry(), element_size, sms=132))
    # Fewer SMs, fewer programs allowed: on 16 SMs only the largest tiles split, in 2.
    g = geometry(batch=32, c_in=512, h=7, w=7, c_out=512)
    few_sms = [c for c in conv_op.candidates(g, 2, sms=16) if conv_op.split_k_of(c) > 1]
    assert [(c.block_m, c.block_n, c.split_k, c.windows_by_multiplication) for c in few_sms] == \
        [(128, 256, 2, False), (128, 256, 2, True)]


def test_a_split_config_is_labelled_and_round_trips_through_the_tuning_table():
    config = conv_op.ConvConfig(64, 128, 64, 8, num_warps=4, num_stages=3, split_k=4)
    assert config.label() == "64x128x64-g8-w4-s3-sk4"
    assert conv_op.ConvConfig.from_dict(config.as_dict()) == config
    # A winner tuned before split-K existed reads as one slice.
    assert conv_op.split_k_of(conv_op.ConvConfig.from_dict(conv_op.SEED.as_dict())) == 1
    assert conv_op.split_k_of(conv_op.SEED) == 1


# -- flat K steps -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("c_in,flat", [(3, True), (24, True), (33, True), (40, True), (96, True), (16, False),
                                       (64, False), (128, False), (160, False)])
def test_flat_k_is_timed_where_a_taps_channels_fill_little_of_a_k_step(c_in, flat):
    """3 channels fill 3 of a K step of 16, 33 fill 33 of 64, 96 fill 96 of 128; 160 fill 160 of 192 (83%)."""
    g = geometry(c_in=c_in, c_out=64)
    assert conv_op.flat_k_fits(g) is flat
    for element_size in (2, 4):
        found = conv_op.candidates(g, element_size)
        flats = [c for c in found if conv_op.flat_k_of(c)]
        assert bool(flats) is flat and len(set(found)) == len(found)
        if flat:  # each tap tile's twin, its K steps as long as K allows (9 taps x c_in), not as a tap's channels
            assert len(flats) == len(conv_op._fitted(conv_op.GPU_CANDIDATES, g, element_size))
            longest = min(64 if element_size == 2 else 32, tuning.pow2_at_least(9 * c_in, 16))
            assert max(c.block_k for c in flats) == longest
            assert all(c.label().endswith("-flat") and conv_op.split_k_of(c) == 1 for c in flats)


def test_flat_k_is_not_timed_for_1x1_filters_bundles_the_direct_kernel_or_no_channels():
    assert not conv_op.flat_k_fits(geometry(c_in=33, k=1))
    bundled = grouped(c_in=128, c_out=128, groups=32)  # 4 per group, bundles of 8
    assert bundled.bundle == 8 and not conv_op.flat_k_fits(bundled)
    assert not conv_op.flat_k_fits(grouped(c_in=72, c_out=72, groups=72))  # depthwise
    assert conv_op.flat_k_fits(grouped(c_in=48, c_out=48, groups=2))  # 24 per group, one GEMM each
    # No input channels (an empty convolution; the GPU's tuner asks): nothing to lay out, and no division by 0.
    assert not conv_op.flat_k_fits(geometry(c_in=0)) and conv_op.candidates(geometry(c_in=0), element_size=2)


def test_a_flat_config_is_labelled_and_round_trips_through_the_tuning_table():
    config = conv_op.ConvConfig(128, 32, 64, 8, num_warps=4, num_stages=4, flat_k=True)
    assert config.label() == "128x32x64-g8-w4-s4-flat"
    assert conv_op.ConvConfig.from_dict(config.as_dict()) == config
    # A winner tuned before flat K steps existed reads as one tap per step.
    older = {k: v for k, v in config.as_dict().items() if k != "flat_k"}
    assert not conv_op.flat_k_of(conv_op.ConvConfig.from_dict(older)) and not conv_op.flat_k_of(conv_op.SEED)


# -- pixels divided by multiplication in tap steps -------------------------------------------------------------


@pytest.mark.parametrize("g", [geometry(c_in=64, c_out=64), geometry(c_in=33, c_out=65), geometry(c_in=256, k=1),
                               grouped(c_in=128, c_out=128, groups=32)], ids=["64", "33", "1x1", "bundles"])
def test_every_tap_tile_is_timed_with_its_pixels_divided_by_multiplication_too(g):
    """The implicit GEMM's candidates hold each tap tile twice, once `-mul`, split or not; flat tiles, which
    always multiply, have no such twin."""
    for element_size in (2, 4):
        found = conv_op.candidates(g, element_size)
        taps = [conv_op.ConvConfig(**c.as_dict()) for c in found if not getattr(c, "windows_by_multiplication", False)
                and not conv_op.flat_k_of(c)]
        twins = [c for c in found if getattr(c, "windows_by_multiplication", False)]
        assert taps and [dataclasses.replace(c, windows_by_multiplication=False) for c in twins] == taps
        assert all(c.label().endswith("-mul") and conv_op.windows_by_multiplication_of(c) for c in twins)
        assert len(set(found)) == len(found)


def test_split_tiles_have_multiplying_twins():
    g = geometry(batch=32, c_in=512, h=7, w=7, c_out=512)  # ResNet-50's last 3x3 layer: split-K candidates
    for element_size in (2, 4):
        split = [c for c in conv_op.candidates(g, element_size) if conv_op.split_k_of(c) > 1]
        plain = [c for c in split if not c.windows_by_multiplication]
        assert plain and [c for c in split if c.windows_by_multiplication] == \
            [dataclasses.replace(c, windows_by_multiplication=True) for c in plain]


def test_the_direct_kernel_gets_no_multiplication_twins():
    found = conv_op.candidates(grouped(c_in=72, c_out=72, groups=72), element_size=2)
    assert found and not any(getattr(c, "windows_by_multiplication", False) for c in found)


def test_flat_steps_always_multiply_and_tap_steps_as_configured():
    assert not conv_op.windows_by_multiplication_of(conv_op.SEED)
    assert conv_op.windows_by_multiplication_of(conv_op.ConvConfig(64, 32, 32, flat_k=True))
    assert conv_op.windows_by_multiplication_of(conv_op.ConvConfig(64, 32, 32, windows_by_multiplication=True))
    assert not conv_op.windows_by_multiplication_of(conv_op.ConvConfig(64, 32, 32))


def test_a_multiplying_config_is_labelled_and_round_trips_through_the_tuning_table():
    config = conv_op.ConvConfig(128, 64, 64, 8, num_warps=4, num_stages=4, windows_by_multiplication=True)
    assert config.label() == "128x64x64-g8-w4-s4-mul"
    assert conv_op.ConvConfig.from_dict(config.as_dict()) == config
    # A winner tuned before the field existed divides, as it was timed.
    older = {k: v for k, v in config.as_dict().items() if k != "windows_by_multiplication"}
    assert not conv_op.windows_by_multiplication_of(conv_op.ConvConfig.from_dict(older))


_FLAT_WORKER = r"""
import json, re, collections, torch, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.ops.conv import inspection_source

found = {}
# 33 ragged channels (no vector loads), and RegNetX's 17 groups of 24 (X_ALIGN 8: 16-byte copies).
for name, label, groups, channels, out in (("tap", "64x32x64-g8-w4-s4", 1, 33, 65),
                                           ("tap by multiplication", "64x32x64-g8-w4-s4-mul", 1, 33, 65),
                                           ("flat", "64x32x64-g8-w4-s4-flat", 1, 33, 65),
                                           ("flat 24 per group", "64x32x64-g8-w4-s4-flat", 17, 408, 408)):
    kernel, signature, constexprs, attrs, config = inspection_source(torch.float16, None, label, 3, groups, channels,
                                                                     out)
    compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 64),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    ptx = compiled.asm["ptx"]
    ops = re.findall(r"\b(wgmma\.mma_async|div\.[su]32|rem\.[su]32)\b", ptx)
    found[name] = {**collections.Counter(ops), "flat": constexprs["FLAT_K"], "x_align": constexprs["X_ALIGN"],
                   "by_multiplication": constexprs["WINDOWS_BY_MULTIPLICATION"],
                   "copies_16": len(re.findall(r"cp\.async\.cg\.shared\.global[^;]*, 0x10,", ptx))}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def flat_kernels() -> dict:
    return json.loads(run_without_interpreter(_FLAT_WORKER))


def test_ragged_channels_compile_flat_k_steps_to_wgmma(flat_kernels):
    """33 channels, 3x3, on sm_90: the flat tile compiles to wgmma as the tap tile does, with FLAT_K set."""
    flat, tap = flat_kernels["flat"], flat_kernels["tap"]
    assert flat["flat"] is True and tap["flat"] is False
    assert flat.get("wgmma.mma_async", 0) > 0 and tap.get("wgmma.mma_async", 0) > 0


def test_flat_k_steps_divide_by_multiplication(flat_kernels):
    """In flat K steps C_in, OW and OH are divided by `divide_by_constant`, not per value a thread holds (each such
    division was about twenty sm_90 instructions); what is left is the program's tile order (`grouped_tile`: a few
    divisions of one scalar each). Tap steps keep their divisions unless the config says `-mul`: on the H200
    multiplication lost 10-25% on two layers there with the same tiles (`output_windows`), so the tuner decides.
    A `-mul` tap step keeps only its divisions by C_in per K step (scalars: `tap_blocks`)."""
    divisions = {name: sum(n for op, n in flat_kernels[name].items() if op.startswith(("div.", "rem.")))
                 for name in ("tap", "tap by multiplication", "flat")}
    assert divisions["flat"] <= 4 < divisions["tap"], divisions
    assert divisions["tap by multiplication"] < divisions["tap"], divisions
    assert [flat_kernels[name]["by_multiplication"] for name in ("tap", "tap by multiplication", "flat")] == \
        [False, True, True]


def test_flat_steps_over_hinted_channels_keep_their_16_byte_copies(flat_kernels):
    """24 channels per group (X_ALIGN 8): tap = k // C_IN stays a division, which the compiler sees constant over
    runs of 8 terms, so x loads in 16-byte copies; through the multiplication it loaded them one element at a time
    and the layer ran 2.6x slower on the H200 (28.1 -> 72.4 us, call BBBBBBBBB)."""
    hinted = flat_kernels["flat 24 per group"]
    assert hinted["x_align"] == 8 and hinted["copies_16"] > 0
    assert flat_kernels["flat"]["x_align"] == 1 and flat_kernels["flat"]["copies_16"] == 0


_SPLIT_WORKER = r"""
import json, re, collections, torch, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.inspect import census, tools
from tilelab.ops import conv

found = {}
for dtype, block_k in (("float16", 64), ("float32", 32)):
    for split_k in (1, 4):
        tile = conv.ConvConfig(64, 128, block_k, 8, num_warps=4, num_stages=3, split_k=split_k)
        kernel, signature, constexprs, attrs, config = conv.inspection_source(getattr(torch, dtype), config=tile)
        compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        ptx = compiled.asm["ptx"]
        ops = re.findall(r"\b(wgmma\.mma_async|atom\.global\.gpu\.acq_rel\.add|atom\.global\.gpu\.relaxed\.exch"
                         r"|ld\.global\.cg|ctaid\.z|ld\.local|st\.local)\b", ptx)
        found[f"{dtype} {split_k}"] = {"ops": collections.Counter(ops),
                                       "ptxas": census.parse_ptxas_verbose(tools.ptxas_verbose(ptx, "sm_90a") or "")}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def split_kernels() -> dict:
    return json.loads(run_without_interpreter(_SPLIT_WORKER))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_split_k_compiles_to_one_count_per_slice_and_l2_reads_of_the_partials(split_kernels, dtype):
    """sm_90: split in 4, the tile's counter goes up once (acquire-release, GPU scope) and is reset once, the last
    slice reads the partials from L2 (.cg), and nothing spills; unsplit, none of it is compiled."""
    split = collections.Counter(split_kernels[f"{dtype} 4"]["ops"])
    assert split["wgmma.mma_async"] > 0
    assert split["atom.global.gpu.acq_rel.add"] == 1 and split["atom.global.gpu.relaxed.exch"] == 1
    assert split["ld.global.cg"] > 0 and split["ld.local"] == 0 and split["st.local"] == 0
    whole = collections.Counter(split_kernels[f"{dtype} 1"]["ops"])
    assert whole["ld.global.cg"] == 0
    assert whole["atom.global.gpu.acq_rel.add"] == whole["atom.global.gpu.relaxed.exch"] == 0
    ptxas = split_kernels[f"{dtype} 4"]["ptxas"]
    if ptxas["spill_stores_bytes"] is not None:  # ptxas ships inside Triton's wheel
        assert ptxas["spill_stores_bytes"] == 0 and ptxas["spill_loads_bytes"] == 0


@pytest.mark.parametrize("direct,workspace", [(True, None), (False, None), (False, (1, 6, 2, 8192))],
                         ids=["direct", "gemm", "gemm-split"])
def test_a_replay_passes_y_then_the_split_k_scratch(direct, workspace):
    """What a recorded launch receives, without a GPU: x, w, five per-channel pointers and y; the implicit GEMM
    then a workspace and the tile counters (split: a fresh float32 workspace of the recorded shape; unsplit: y's
    address twice, never read)."""
    received = []
    replay = conv_op._ConvReplay(lambda *pointers: received.append(pointers), True, (2, 24, 5, 7), direct,
                                 workspace)
    x = torch.empty(2, 16, 5, 7)
    stats = (None, torch.zeros(24), torch.ones(24), None, None)
    y = replay(x, torch.empty(24, 16, 3, 3), stats)
    assert tuple(y.shape) == (2, 24, 5, 7) and y.is_contiguous(memory_format=torch.channels_last)
    (pointers,) = received
    assert pointers[7] == y.data_ptr()
    if direct:
        assert len(pointers) == conv_op.DIRECT_POINTERS
    elif workspace is None:
        assert len(pointers) == conv_op.GEMM_POINTERS and pointers[8:] == (y.data_ptr(), y.data_ptr())
    else:
        assert len(pointers) == conv_op.GEMM_POINTERS and y.data_ptr() not in pointers[8:]


# -- vector hints: channel runs that are multiples of 8 but not of 16 -----------------------------------------


def _hints(c_in, c_out, groups=1, k=3, x_layout="channels_last", w_layout="channels_last", x_channels=None):
    """vector_hints for meta tensors of this layer; x_channels > c_in stores x as the first c_in channels of a
    wider channels-last tensor."""
    wide = torch.empty(2, x_channels or c_in, 9, 7, device="meta").to(memory_format=torch.channels_last)
    x = wide[:, :c_in] if x_layout == "channels_last" else torch.empty(2, c_in, 9, 7, device="meta")
    w = torch.empty(c_out, c_in // groups, k, k, device="meta")
    w = w.to(memory_format=torch.channels_last) if w_layout == "channels_last" else w
    g = conv_op.ConvGeometry(2, c_in, 9, 7, c_out, k, k, (1, 1), (k // 2, k // 2), (1, 1), groups)
    return conv_op.vector_hints(x, w, g)


@pytest.mark.parametrize("case,expected", [
    (dict(c_in=64, c_out=64), (1, 1)),  # multiples of 16: Triton's specialization already says so
    (dict(c_in=24, c_out=24), (8, 8)),
    (dict(c_in=40, c_out=8), (8, 8)),
    (dict(c_in=20, c_out=20), (4, 4)),
    (dict(c_in=6, c_out=6), (2, 2)),
    (dict(c_in=33, c_out=33), (1, 1)),  # odd: nothing to tell
    (dict(c_in=48, c_out=48, groups=2), (8, 8)),  # 24 per group, one group per tile
    (dict(c_in=96, c_out=96, groups=32), (8, 1)),  # groups of 3 in bundles of 8: 24 channels; block-diagonal
    (dict(c_in=24, c_out=24, x_channels=40), (8, 8)),  # a channel slice: pixel strides of 40
    (dict(c_in=24, c_out=24, x_channels=36), (4, 8)),  # pixel strides of 36
    (dict(c_in=24, c_out=24, x_channels=33), (1, 8)),
    (dict(c_in=24, c_out=24, x_layout="nchw"), (1, 8)),  # channels H*W apart: no run to load
    (dict(c_in=24, c_out=24, w_layout="nchw"), (8, 1)),  # the weight's channels KH*KW apart
    (dict(c_in=24, c_out=24, k=1, w_layout="nchw"), (8, 1)),  # a 1x1 filter's unit strides tell nothing
], ids=lambda v: "-".join(f"{k}{w}" for k, w in v.items()) if isinstance(v, dict) else str(v))
def test_vector_hints_say_what_every_offset_is_a_multiple_of(case, expected):
    assert _hints(**case) == expected


@pytest.mark.parametrize("c_out,groups,layout,expected", [
    (64, 1, "channels_last", 1),  # multiples of 16: Triton knows
    (24, 1, "channels_last", 8),
    (40, 1, "channels_last", 8),
    (20, 1, "channels_last", 4),
    (65, 1, "channels_last", 1),  # the ragged layer's 65 outputs
    (168, 7, "channels_last", 8),  # RegNetX: 24 outputs per group
    (96, 32, "channels_last", 8),  # groups of 3 in bundles of 8: 24 outputs per bundle
    (24, 1, "nchw", 1),  # channels OH*OW apart
])
def test_output_hint_says_what_every_store_offset_is_a_multiple_of(c_out, groups, layout, expected):
    g = conv_op.ConvGeometry(2, c_out, 9, 7, c_out, 3, 3, (1, 1), (1, 1), (1, 1), groups)
    y = torch.empty(2, c_out, g.oh, g.ow, device="meta")
    y = y.to(memory_format=torch.channels_last) if layout == "channels_last" else y
    assert conv_op.output_hint(y, g) == expected


def test_vector_hints_divide_every_value_they_speak_for():
    """Over many layouts the hint divides the bundle's channels and every pixel stride: rounding them down to its
    multiple in the kernel (`known_multiple`) must never change a value."""
    for c_in in range(1, 70):
        for x_channels in (c_in, c_in + 8, c_in + 12, 2 * c_in + 1):
            for k in (1, 3):
                x_hint, w_hint = _hints(c_in, c_in, k=k, x_channels=x_channels)
                x = torch.empty(2, x_channels, 9, 7, device="meta").to(memory_format=torch.channels_last)
                strides = (*x.stride()[:1], *x.stride()[2:])
                assert all(v % x_hint == 0 for v in (c_in, *strides)) and x_hint in (1, 2, 4, 8)
                assert c_in % w_hint == 0 and (c_in * k * k) % w_hint == 0 and w_hint in (1, 2, 4, 8)


_VECTOR_WORKER = """
import collections, json, re, torch, triton
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
from tilelab.inspect import census, tools
from tilelab.ops import conv as conv_op

found = {}
for name, channels, groups in [("24", 24, 1), ("24 unhinted", 24, 1), ("24 output unhinted", 24, 1), ("20", 20, 1),
                               ("bundles of 24", 96, 32), ("33", 33, 1)]:
    kernel, signature, constexprs, attrs, config = conv_op.inspection_source(torch.float16, groups=groups,
                                                                             channels=channels)
    if name == "24 unhinted":
        constexprs.update(X_ALIGN=1, W_ALIGN=1, Y_ALIGN=1)
    if name == "24 output unhinted":
        constexprs.update(Y_ALIGN=1)
    compiled = triton.compile(ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs),
                              target=GPUTarget("cuda", 90, 64),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    copies = re.findall(r"cp\\.async\\.c[ag]\\.shared\\.global(?:\\.\\w+)* \\[[^\\]]*\\], \\[[^\\]]*\\], (\\w+)",
                        compiled.asm["ptx"])
    found[name] = {"copies": collections.Counter(int(size, 0) for size in copies),
                   "scalar": len(re.findall(r"ld\\.global\\.b16", compiled.asm["ptx"])),
                   "scalar stores": len(re.findall(r"st\\.global\\.b16", compiled.asm["ptx"])),
                   "registers": census.parse_ptxas_verbose(tools.ptxas_verbose(compiled.asm["ptx"], "sm_90a") or "")
                   .get("registers"),
                   "hints": [constexprs["X_ALIGN"], constexprs["W_ALIGN"], constexprs["Y_ALIGN"]]}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def hinted_kernels() -> dict:
    return json.loads(run_without_interpreter(_VECTOR_WORKER))


def test_channel_runs_of_24_load_in_16_byte_copies_once_hinted(hinted_kernels):
    """sm_90, fp16, channels-last: 24 input channels are 48 bytes, a multiple of 16 that Triton's specialization
    (multiples of 16 elements) does not see. Unhinted, x and the weight load one element at a time, outside the
    async-copy pipeline; hinted, both arrive in 16-byte cp.async. 20 channels: 8-byte copies. Groups of 3 in
    bundles of 8 (24 channels): x in 16-byte copies, the block-diagonal weight still element by element. 33
    channels: nothing to tell, nothing copied."""
    assert hinted_kernels["24"]["hints"] == [8, 8, 8]
    assert set(hinted_kernels["24"]["copies"]) == {"16"} and hinted_kernels["24"]["scalar"] == 0
    assert not hinted_kernels["24 unhinted"]["copies"] and hinted_kernels["24 unhinted"]["scalar"] > 0
    assert set(hinted_kernels["20"]["copies"]) == {"8"}
    bundles = hinted_kernels["bundles of 24"]
    assert bundles["hints"] == [8, 1, 8] and set(bundles["copies"]) == {"16"} and bundles["scalar"] > 0
    assert not hinted_kernels["33"]["copies"] and hinted_kernels["33"]["hints"] == [1, 1, 1]


def test_24_output_channels_store_in_vectors_and_keep_registers_once_hinted(hinted_kernels):
    """Y_ALIGN: unhinted, y's 24 channels stored one element at a time, and the compiler gave the whole tile's
    index arithmetic that layout (the first candidate tile, 128x64x32 on 4 warps: 255 registers and spills);
    hinted, no scalar store and far fewer registers."""
    hinted, unhinted = hinted_kernels["24"], hinted_kernels["24 output unhinted"]
    assert hinted["scalar stores"] == 0 and unhinted["scalar stores"] > 0
    if hinted["registers"] is not None:  # ptxas ships inside Triton's wheel
        assert hinted["registers"] < 0.8 * unhinted["registers"], (hinted["registers"], unhinted["registers"])


def test_conv_keeps_the_float32_precision_asked_for():
    """The interpreter's dot ignores input precision, so the tuning key is where a lost precision shows."""
    x32, x16 = torch.zeros(1, 8, 8, 8), torch.zeros(1, 8, 8, 8, dtype=torch.float16)
    assert [conv_op._input_precision(x32, p) for p in ("ieee", "tf32x3", None)] == ["ieee", "tf32x3", "tf32"]
    assert conv_op._input_precision(x16, "ieee") == "tf32"  # 16-bit inputs have one precision
