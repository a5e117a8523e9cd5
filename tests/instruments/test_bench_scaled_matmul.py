"""kernel-bench --op scaled_matmul (fp8) without a GPU: inputs, dtype rules, and --check-only on the interpreter.

Triton's interpreter runs the fp8 kernel (its bf16 output cast truncates where
the GPU rounds to nearest, so its error is about twice torch's: still far
inside the tolerance). Where it cannot run, the variant says `unsupported`.
"""

import json

import pytest
import torch

from tests.instruments.helpers import run_tool
from tilelab.bench import correctness, op_scaled_matmul, registry, schema

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")


def test_inputs_are_fp8_with_k_major_b_and_real_scales():
    generator = torch.Generator().manual_seed(0)
    a, b, scale_a, scale_b = op_scaled_matmul.make_inputs((33, 48, 32), torch.float8_e4m3fn, torch.device("cpu"),
                                                          generator)
    assert a.shape == (33, 32) and b.shape == (32, 48)
    assert a.dtype == b.dtype == torch.float8_e4m3fn
    assert a.stride() == (32, 1) and b.stride() == (1, 32)  # B is [N, K] storage seen as [K, N]: K-major
    assert scale_a.dtype == scale_b.dtype == torch.float32 and scale_a.numel() == scale_b.numel() == 1
    assert float(scale_a) != 1.0 and float(scale_b) != 1.0 and float(scale_a) != float(scale_b)
    ref = op_scaled_matmul.reference(a, b, scale_a, scale_b)
    assert ref.dtype == torch.float64 and ref.shape == (33, 48)
    assert op_scaled_matmul.OP.bytes_moved((33, 48, 32), torch.float8_e4m3fn) == 33 * 32 + 32 * 48 + 2 * 33 * 48
    assert op_scaled_matmul.OP.dtypes == ("float8_e4m3fn",)
    assert (8192, 8192, 8192) in op_scaled_matmul.DEFAULT_SHAPES


def test_variants_and_baseline():
    found = op_scaled_matmul.variants(registry.VariantOptions(dtype=torch.float8_e4m3fn, on_gpu=False))
    default = [v.name for v in found if v.default]
    assert default == ["torch", "tilelab", "tilelab-promoted"]
    assert [v.name for v in found if v.baseline] == ["torch"]


def test_a_variant_that_cannot_run_here_is_unsupported_not_failed(monkeypatch):
    from tilelab.ops import scaled_matmul as op

    def interpreter_gap(*args, **kwargs):
        raise RuntimeError("the interpreter has no fp8 here")

    monkeypatch.setattr(op, "scaled_matmul", interpreter_gap)
    inputs = op_scaled_matmul.make_inputs((16, 16, 16), torch.float8_e4m3fn, torch.device("cpu"),
                                          torch.Generator().manual_seed(1))
    tilelab = next(v for v in op_scaled_matmul.variants(registry.VariantOptions(dtype=torch.float8_e4m3fn))
                   if v.name == "tilelab")
    checked = correctness.check(tilelab.run, inputs, op_scaled_matmul.reference(*inputs), 0.06)
    assert checked.status == correctness.UNSUPPORTED
    assert "interpreter" in checked.message and "no fp8 here" in checked.message


@no_gpu
def test_check_only_on_the_interpreter(tmp_path):
    out = tmp_path / "fp8.json"
    done = run_tool("tilelab.bench", "--op", "scaled_matmul", "--dtype", "float8_e4m3fn", "--check-only",
                    "--shape", "64", "80", "48", "--shape", "33", "48", "65", "--output", str(out), interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == []
    assert document["settings"]["dtypes"] == ["float8_e4m3fn"]
    aligned, odd = ({v["name"]: v for v in case["variants"]} for case in document["cases"])
    for name in ("torch", "tilelab", "tilelab-promoted"):
        assert aligned[name]["status"] == "ok", aligned[name]
        assert 0 < aligned[name]["error"] <= aligned[name]["tolerance"]
    assert aligned["tilelab"]["plan"]["use_fast_accum"] is True
    assert aligned["tilelab-promoted"]["plan"]["use_fast_accum"] is False
    assert aligned["tilelab"]["plan"]["config"]["block_k"] == 32  # the interpreter's small tiles
    # K = 65 fp8 bytes per row: TMA cannot describe it, and the library refuses by contract
    assert odd["tilelab"]["status"] == "unsupported" and "AlignmentError" in odd["tilelab"]["message"]


@no_gpu
def test_dtype_is_implied_and_exclusive(tmp_path):
    out = tmp_path / "implied.json"
    done = run_tool("tilelab.bench", "--op", "scaled_matmul", "--check-only", "--shape", "32", "32", "32",
                    "--output", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(out.read_text())["cases"][0]["dtype"] == "float8_e4m3fn"
    wrong = run_tool("tilelab.bench", "--op", "scaled_matmul", "--dtype", "float16", "--check-only",
                     "--output", str(tmp_path / "no.json"))
    assert wrong.returncode == 2 and "scaled_matmul takes --dtype float8_e4m3fn only" in wrong.stderr
    fp8_matmul = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float8_e4m3fn", "--check-only",
                          "--output", str(tmp_path / "no.json"))
    assert fp8_matmul.returncode == 2 and "--op scaled_matmul" in fp8_matmul.stderr
    assert not (tmp_path / "no.json").exists()
