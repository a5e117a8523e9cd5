"""kernel-inspect --bias / --activation: tilelab.linear's fused epilogue in the matmul kernels, no GPU needed."""

import json

import pytest

from tests.instruments.helpers import run_tool


def inspect(tmp_path, *args):
    done = run_tool("tilelab.inspect", "--json", "--output", str(tmp_path), *args, interpret=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk", "splitk-descriptor", "pingpong"])
def test_the_epilogue_is_compiled_in_and_named(tmp_path, path):
    plain = inspect(tmp_path / "plain", "--path", path)
    fused = inspect(tmp_path / "fused", "--path", path, "--bias", "--activation", "gelu")
    assert plain["epilogue"] is None and fused["epilogue"] == "bias-gelu"
    assert fused["census"]["tensor_cores"] and fused["config"] == plain["config"]
    # The bias is one more global read per thread (the operands come by TMA or cp.async, or by ld.global on the
    # pointer path); erf's polynomial needs registers the plain kernel does not.
    loads = [sum(found["census"]["global_load_bits"].values()) for found in (fused, plain)]
    assert loads[0] > loads[1]
    registers = [found["census"]["resources"]["registers"] for found in (fused, plain)]
    if None not in registers:  # ptxas -v was found
        assert registers[0] >= registers[1]


@pytest.mark.parametrize("args", [["--path", "registers", "--activation", "silu"],
                                  ["--path", "registers", "--bias"],
                                  ["--op", "conv2d_bn_silu", "--activation", "relu"],
                                  ["--op", "scaled_matmul", "--bias"]])
def test_the_epilogue_only_where_a_kernel_has_it(tmp_path, args):
    done = run_tool("tilelab.inspect", "--output", str(tmp_path), *args, interpret=False)
    assert done.returncode == 2 and "fused epilogue" in done.stderr, done.stderr


def test_the_table_says_fused_epilogue(tmp_path):
    done = run_tool("tilelab.inspect", "--path", "descriptor", "--activation", "silu", "--output", str(tmp_path),
                    interpret=False)
    assert done.returncode == 0, done.stderr
    assert "fused epilogue: silu" in done.stdout
