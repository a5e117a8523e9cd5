"""kernel-inspect --op conv2d_bn_silu: the implicit-GEMM convolution compiled for sm_90 and sm_80, no GPU needed.

The convolution gathers one input pixel per row of A, so its operands reach shared memory through per-thread
async copies (cp.async), not TMA; the tensor cores are Hopper's wgmma on sm_90 and mma.sync on sm_80. With
--groups, a grouped convolution: under 16 input channels per group the direct kernel (float32 FMAs, no tensor
cores), else the implicit GEMM per group. With --channels, images of that many channels instead of 64: 24 (a
multiple of 8, not of 16) shows the kernel's vector hints at work, 33 what is left without them (and its flat K
steps, named by their label). With
--out-channels, that many channels out: depthwise 64 -> 128 is the direct kernel's channel multiplier of 2.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.instruments.helpers import SRC, run_tool
from tilelab.inspect import compile as compiler


def inspect(tmp_path, *args):
    done = run_tool("tilelab.inspect", "--json", "--output", str(tmp_path), "--op", "conv2d_bn_silu", *args,
                    interpret=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_conv_on_sm90_runs_wgmma_fed_by_cp_async(tmp_path):
    found = inspect(tmp_path, "--target", "sm_90")
    assert found["kernel"] == "conv2d_bn_silu_kernel" and found["op"] == "conv2d_bn_silu"
    assert (found["path"], found["dtype"], found["precision"]) == ("implicit-gemm", "float16", "tf32")
    assert found["accumulate"] is None and not found["batched"] and found["row_classes"] == 1
    assert (found["groups"], found["channels"], found["out_channels"]) == (1, 64, 64)
    ptx = found["census"]["ptx"]
    assert ptx["wgmma"] > 0 and ptx["mma.sync"] == 0 and found["census"]["tensor_cores"]
    assert ptx["cp.async"] > 0 and ptx["cp.async.bulk.tensor"] == 0  # gathered rows: no TMA
    assert found["census"]["cp_async_bytes"]  # sizes were counted
    assert found["config"]["block_m"] == 128 and found["config"]["block_n"] == 128  # the first candidate
    assert (tmp_path / "conv2d_bn_silu_kernel.ptx").exists() and (tmp_path / "census.json").exists()
    if "sass" in found["census"]:
        assert found["census"]["sass"]["HGMMA"] > 0


def test_conv_on_sm80_runs_mma_sync(tmp_path):
    found = inspect(tmp_path, "--target", "sm_80")
    ptx = found["census"]["ptx"]
    assert ptx["mma.sync"] > 0 and ptx["wgmma"] == 0
    assert ptx["cp.async"] > 0 and ptx["cp.async.bulk.tensor"] == 0


def test_conv_seed_config_and_float32_ieee(tmp_path):
    seed = inspect(tmp_path / "seed", "--config", "seed", "--dtype", "bfloat16")
    assert seed["dtype"] == "bfloat16"
    cfg = seed["config"]
    assert (cfg["block_m"], cfg["block_n"], cfg["block_k"], cfg["num_warps"], cfg["num_stages"]) == (32, 32, 32, 4, 2)
    assert seed["census"]["tensor_cores"]
    ieee = inspect(tmp_path / "ieee", "--dtype", "float32", "--precision", "ieee", "--config", "seed")
    assert ieee["precision"] == "ieee" and ieee["census"]["tensor_cores"] is False
    assert ieee["census"]["ptx"]["fma.f32"] > 0


def test_conv_split_k_config_by_its_label(tmp_path):
    """The inspected layer is too large to split, but split-K's tiles are named by their labels all the same."""
    found = inspect(tmp_path, "--config", "64x128x64-g8-w4-s3-sk2", "--target", "sm_90")
    assert found["config"]["split_k"] == 2 and found["config"]["block_n"] == 128
    assert found["census"]["ptx"]["wgmma"] > 0
    assert "atom.global.gpu.acq_rel.add" in (tmp_path / "conv2d_bn_silu_kernel.ptx").read_text()


def test_flat_k_steps_by_their_label(tmp_path):
    """33 ragged channels: the tuner's flat twin of a tile (`flat_k_fits`), named by its label, compiles to wgmma
    with its scalar loads (rows of 66 bytes) and no async copies; a layer of 64 channels has no flat candidates."""
    found = inspect(tmp_path / "flat", "--channels", "33", "--out-channels", "65", "--config",
                    "64x64x64-g8-w4-s4-flat", "--target", "sm_90")
    assert found["config"]["flat_k"] is True and found["census"]["ptx"]["wgmma"] > 0
    assert found["census"]["ptx"]["cp.async"] == 0
    done = run_tool("tilelab.inspect", "--json", "--output", str(tmp_path / "none"), "--op", "conv2d_bn_silu",
                    "--config", "64x64x64-g8-w4-s4-flat", "--target", "sm_90", interpret=False)
    assert done.returncode != 0 and "64x64x64-g8-w4-s4-flat" in done.stderr


def test_pixels_divided_by_multiplication_by_their_label(tmp_path):
    """A tap tile's `-mul` twin: the pixels' image, row and column found by multiplication, so its PTX holds fewer
    integer divisions than the same tile's."""
    def divisions(name: str) -> int:
        ptx = (tmp_path / name / "conv2d_bn_silu_kernel.ptx").read_text()
        return sum(ptx.count(op) for op in ("div.s32", "div.u32", "rem.s32", "rem.u32"))

    plain = inspect(tmp_path / "plain", "--config", "128x64x64-g8-w4-s4", "--target", "sm_90")
    twin = inspect(tmp_path / "mul", "--config", "128x64x64-g8-w4-s4-mul", "--target", "sm_90")
    assert twin["config"]["windows_by_multiplication"] is True
    assert not plain["config"].get("windows_by_multiplication", False)
    assert twin["census"]["ptx"]["wgmma"] > 0 and divisions("mul") < divisions("plain")


def test_a_register_cap_by_its_label_fits_one_more_program(tmp_path):
    """The depthwise direct kernel on 256x16 tiles of 4 warps: uncapped about 149 registers, 3 programs per SM; its
    candidate capped at 128 (ptxas's maxnreg, in the PTX) spills a little and fits 4."""
    args = ("--groups", "144", "--channels", "144", "--target", "sm_90")
    free = inspect(tmp_path / "free", "--config", "256x16x16-g1-w4-s1", *args)
    capped = inspect(tmp_path / "capped", "--config", "256x16x16-g1-w4-s1-r128", *args)
    assert capped["config"]["maxnreg"] == 128 and free["config"]["maxnreg"] == 0
    assert ".maxnreg 128" in (tmp_path / "capped" / "conv2d_bn_silu_direct_kernel.ptx").read_text()
    if free["census"]["resources"]["registers"] is not None:  # ptxas ships inside Triton's wheel
        assert free["census"]["resources"]["registers"] > 128 >= capped["census"]["resources"]["registers"]
        assert (free["census"]["occupancy"]["programs"], capped["census"]["occupancy"]["programs"]) == (3, 4)
        assert capped["census"]["occupancy"]["limited_by"] == "registers"


def test_conv_table_names_the_implicit_gemm(tmp_path):
    done = run_tool("tilelab.inspect", "--op", "conv2d_bn_silu", "--config", "seed", "--target", "sm_80",
                    "--output", str(tmp_path), interpret=False)
    assert done.returncode == 0, done.stderr
    assert "conv2d_bn_silu_kernel for sm_80" in done.stdout and "implicit GEMM" in done.stdout
    assert "B stored" not in done.stdout


@pytest.fixture(scope="module")
def depthwise(tmp_path_factory) -> dict:
    """--groups 64 on the default 64 channels, compiled once for the tests that read it."""
    return inspect(tmp_path_factory.mktemp("depthwise"), "--groups", "64")


def test_depthwise_is_the_direct_kernel_on_fmas(depthwise):
    found = depthwise
    assert found["kernel"] == "conv2d_bn_silu_direct_kernel"
    assert (found["path"], found["groups"], found["dtype"]) == ("direct", 64, "float16")
    assert (found["channels"], found["out_channels"]) == (64, 64)
    census = found["census"]
    assert not census["tensor_cores"] and census["ptx"]["fma.f32"] > 0 and census["ptx"]["cp.async"] == 0
    assert census["global_load_bits"].get("128", 0) > 0  # x's channels, 8 fp16 to a load
    cfg = found["config"]
    assert (cfg["block_m"], cfg["block_n"], cfg["num_stages"]) == (16, 64, 1)  # the first direct candidate
    if census["resources"]["spill_stores_bytes"] is not None:
        assert census["resources"]["spill_stores_bytes"] == 0


def test_two_groups_of_32_channels_are_implicit_gemms(tmp_path):
    found = inspect(tmp_path, "--groups", "2", "--target", "sm_90")
    assert (found["kernel"], found["path"], found["groups"]) == ("conv2d_bn_silu_kernel", "implicit-gemm", 2)
    assert found["census"]["ptx"]["wgmma"] > 0
    done = run_tool("tilelab.inspect", "--op", "conv2d_bn_silu", "--groups", "64", "--config", "seed",
                    "--output", str(tmp_path / "table"), interpret=False)
    assert done.returncode == 0, done.stderr
    assert "conv2d_bn_silu_direct_kernel for sm_90" in done.stdout and "in 64 groups, direct" in done.stdout


def test_small_groups_share_a_block_diagonal_tile(tmp_path):
    """8 groups of 8 channels: one implicit GEMM tile for all eight (a 64-channel bundle), on the tensor cores."""
    found = inspect(tmp_path, "--groups", "8", "--target", "sm_90")
    assert (found["kernel"], found["path"], found["groups"]) == ("conv2d_bn_silu_kernel", "implicit-gemm", 8)
    assert found["census"]["ptx"]["wgmma"] > 0


def test_24_channels_load_x_in_16_byte_copies(tmp_path):
    """24 fp16 channels are 48 bytes a pixel: `vector_hints` tells the kernel (X_ALIGN = W_ALIGN = 8), so x and the
    weight arrive in 16-byte cp.async, no element loaded alone. Run without --output (in tmp_path) for the
    default directory's label; the table's title names the channels."""
    environment = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    environment.pop("TRITON_INTERPRET", None)  # compiling needs the real JIT functions
    done = subprocess.run([sys.executable, "-m", "tilelab.inspect", "--op", "conv2d_bn_silu", "--channels", "24",
                           "--target", "sm_90"], capture_output=True, text=True, env=environment, cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "a 3x3 filter on 24 channels as an implicit GEMM" in done.stdout
    directory = tmp_path / "results/local/inspect/conv2d_bn_silu-implicit-gemm-float16-channels24-sm_90"
    found = json.loads((directory / "census.json").read_text())
    assert (found["kernel"], found["path"], found["channels"], found["groups"]) == (
        "conv2d_bn_silu_kernel", "implicit-gemm", 24, 1)
    census = found["census"]
    assert census["ptx"]["cp.async"] > 0 and set(census["cp_async_bytes"]) == {"16"}
    assert "16" not in census["global_load_bits"]  # no fp16 loaded one at a time
    assert census["ptx"]["wgmma"] > 0


def test_33_channels_load_x_one_element_at_a_time(tmp_path):
    """33 channels (66 bytes a pixel): nothing to hint, so x and the weight are scalar 16-bit loads, no cp.async."""
    found = inspect(tmp_path, "--channels", "33", "--target", "sm_90")
    assert (found["kernel"], found["path"], found["channels"]) == ("conv2d_bn_silu_kernel", "implicit-gemm", 33)
    census = found["census"]
    assert census["ptx"]["cp.async"] == 0 and census["cp_async_bytes"] == {}
    assert census["global_load_bits"].get("16", 0) > 0


def test_a_channel_multiplier_loads_x_in_16_byte_vectors(tmp_path, depthwise):
    """Depthwise 64 -> 128 channels (MULTIPLIER 2, `tilelab.ops.conv.direct_multiplier`): a tile's 64 output
    channels read 32 input channels as one run, in 16-byte ld.global.v4 loads repeated in registers, where the
    general code would gather each output channel's input element by element (no vector load; 51 16-bit loads at
    the time of writing). So half the 128-bit loads of 64 -> 64 (32 input channels a tile, not 64) and no more
    16-bit ones (the weight's and batch norm's). Run without --output (in tmp_path) for the default directory's
    label; the table's title names both channel counts."""
    environment = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    environment.pop("TRITON_INTERPRET", None)  # compiling needs the real JIT functions
    done = subprocess.run([sys.executable, "-m", "tilelab.inspect", "--op", "conv2d_bn_silu", "--groups", "64",
                           "--channels", "64", "--out-channels", "128", "--target", "sm_90"], capture_output=True,
                          text=True, env=environment, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "a 3x3 filter on 64 channels in, 128 out in 64 groups, direct" in done.stdout
    directory = tmp_path / "results/local/inspect/conv2d_bn_silu-direct-float16-outchannels128-groups64-sm_90"
    found = json.loads((directory / "census.json").read_text())
    assert (found["kernel"], found["path"], found["groups"], found["channels"], found["out_channels"]) == (
        "conv2d_bn_silu_direct_kernel", "direct", 64, 64, 128)
    loads = found["census"]["global_load_bits"]
    ptx = (directory / "conv2d_bn_silu_direct_kernel.ptx").read_text()
    assert loads.get("128", 0) > 0 and "ld.global.v4.b32" in ptx
    plain = depthwise["census"]["global_load_bits"]
    assert loads["128"] == plain["128"] // 2
    assert loads.get("16", 0) <= plain.get("16", 0)  # x is not gathered
    assert not found["census"]["tensor_cores"] and found["census"]["ptx"]["fma.f32"] > 0


@pytest.mark.parametrize("args,says", [
    (("--op", "conv2d_bn_silu", "--channels", "0"), "--channels must be a positive integer"),
    (("--op", "matmul", "--channels", "24"), "--channels applies to --op conv2d_bn_silu only, not --op matmul"),
    (("--op", "conv2d_bn_silu", "--groups", "5", "--channels", "24"),
     "--groups must divide the 24 channels conv2d_bn_silu is inspected with (--channels); got 5"),
    (("--op", "conv2d_bn_silu", "--out-channels", "0"), "--out-channels must be a positive integer"),
    (("--op", "matmul", "--out-channels", "128"),
     "--out-channels applies to --op conv2d_bn_silu only, not --op matmul"),
    (("--op", "conv2d_bn_silu", "--groups", "64", "--out-channels", "96"),
     "--out-channels must be a multiple of the 64 groups (conv2d_bn_silu's channels out, as many per group); got 96"),
])
def test_inspect_refuses_bad_channels(tmp_path, args, says):
    done = run_tool("tilelab.inspect", *args, "--output", str(tmp_path), interpret=False)
    assert done.returncode == 2 and done.stderr.startswith("kernel-inspect:"), done.stderr
    assert says in done.stderr
    assert not (tmp_path / "census.json").exists()  # refused before anything compiled


@pytest.mark.parametrize("args,says", [
    (("--path", "descriptor"), "implicit GEMM"),
    (("--path", "pingpong"), "implicit GEMM"),
    (("--b-layout", "nk"), "--b-layout"),
    (("--b-layout", "kn"), "--b-layout"),
    (("--precision", "tf32"), "float32 only"),  # float16, the default dtype
    (("--dtype", "bfloat16", "--precision", "ieee"), "float32 only"),
    (("--dtype", "float8_e4m3fn"), "--dtype"),
    (("--accumulate", "fast"), "scaled_matmul"),
    (("--batch",), "--batch"),
    (("--row-classes", "8"), "--row-classes"),
    (("--config", "nope"), "config"),
    (("--config", "128x256x64-g8-w4-s3-ws"), "config"),  # a matmul label, not a conv candidate's
])
def test_inspect_conv_rejects_what_it_is_not(tmp_path, args, says):
    done = run_tool("tilelab.inspect", "--op", "conv2d_bn_silu", *args, "--output", str(tmp_path), interpret=False)
    assert done.returncode == 2 and done.stderr.startswith("kernel-inspect:"), done.stderr
    assert says in done.stderr


def test_resolve_defaults_for_conv():
    assert "conv2d_bn_silu" in compiler.OPS
    assert compiler.resolve("conv2d_bn_silu", None, None, None, None) == ("implicit-gemm", "float16", None, "nk")
    assert compiler.resolve("conv2d_bn_silu", "implicit-gemm", "float32", "tf32x3", None)[:2] == (
        "implicit-gemm", "float32")
    with pytest.raises(ValueError, match="implicit GEMM"):
        compiler.resolve("matmul", "implicit-gemm", None, None, None)
    assert "conv2d_bn_silu" in run_tool("tilelab.inspect", "--help").stdout


@pytest.mark.parametrize("kwargs,says", [
    ({"groups": 3}, "--groups must divide the 64 channels"),
    ({"groups": 64, "path": "implicit-gemm"}, "direct kernel: leave --path out"),
    ({"op": "matmul", "groups": 2}, "--groups applies to --op conv2d_bn_silu only"),
    ({"channels": -8}, "--channels must be a positive integer"),
    ({"op": "scaled_matmul", "channels": 24}, "--channels applies to --op conv2d_bn_silu only"),
    ({"groups": 16, "channels": 24}, "--groups must divide the 24 channels"),
    ({"out_channels": -8}, "--out-channels must be a positive integer"),
    ({"op": "scaled_matmul", "out_channels": 128}, "--out-channels applies to --op conv2d_bn_silu only"),
    ({"groups": 8, "out_channels": 100}, "--out-channels must be a multiple of the 8 groups"),
])
def test_groups_refused_before_compiling(kwargs, says):
    """Refused as kernel-inspect's bad arguments (ValueError: exit code 2), before anything compiles."""
    with pytest.raises(ValueError, match=says):
        compiler.inspect_kernel(**{"op": "conv2d_bn_silu", **kwargs})


def test_a_gemm_label_is_no_direct_config():
    # kernel-inspect's own words (exit code 2), not the library's contract error ("config must be one of ...")
    with pytest.raises(ValueError, match=r"unknown config '128x128x64-g8-w8-s3' \(--config\) for the direct kernel"):
        compiler.kernel_source("conv2d_bn_silu", "direct", "float16", None, "128x128x64-g8-w8-s3", groups=64)
