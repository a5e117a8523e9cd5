"""kernel-bench end to end on this (GPU-less) machine: the no-GPU exit, and --check-only on the interpreter."""

import json

import pytest
import torch

from tests.instruments.helpers import run_tool
from tilelab.bench import schema

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")


def test_timing_without_a_gpu_says_so_and_exits_3(tmp_path):
    out = tmp_path / "my-gemm.json"
    done = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float16", "--output", str(out))
    assert done.returncode == 3
    assert "needs a CUDA GPU" in done.stderr and "--check-only" in done.stderr
    assert not out.exists()
    assert "exit codes" in run_tool("tilelab.bench", "--help").stdout


def test_calibrate_without_a_gpu_exits_3():
    done = run_tool("tilelab.bench", "calibrate")
    assert done.returncode == 3 and "needs a CUDA GPU" in done.stderr


def test_check_only_on_the_interpreter(tmp_path):
    out = tmp_path / "local" / "check.json"
    done = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float16", "--check-only",
                    "--shape", "127", "255", "65", "--shape", "64", "32", "48", "--output", str(out),
                    interpret=False)  # kernel-bench must switch the interpreter on by itself
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == []
    assert document["settings"]["check_only"] and document["environment"]["triton_interpret"]
    assert document["environment"]["gpu"] is None
    assert document["summary"]["aborted"] is None  # the final write replaced the checkpoints
    assert not list(out.parent.glob("*.partial"))
    assert [c["shape"] for c in document["cases"]] == [[127, 255, 65], [64, 32, 48]]
    for case in document["cases"]:
        by_name = {v["name"]: v for v in case["variants"]}
        assert {"torch", "tilelab", "tilelab-fixed", "tilelab-pointer", "tilelab-descriptor",
                "tilelab-persistent"} <= set(by_name)
        for name in ("torch", "tilelab", "tilelab-fixed", "tilelab-pointer"):
            assert by_name[name]["status"] == "ok", by_name[name]
            assert 0 < by_name[name]["error"] <= by_name[name]["tolerance"]
            assert by_name[name]["timing"] is None
        assert by_name["tilelab-fixed"]["plan"]["config"]["block_m"] == 32
    odd = {v["name"]: v for v in document["cases"][0]["variants"]}
    # 65 fp16 elements per row is 130 bytes: TMA cannot describe it, and the library says so
    assert odd["tilelab-descriptor"]["status"] == "unsupported"
    assert "AlignmentError" in odd["tilelab-descriptor"]["message"]
    assert odd["tilelab-persistent"]["status"] == "unsupported"  # the persistent kernel is TMA-only too
    assert "AlignmentError" in odd["tilelab-persistent"]["message"]
    aligned = {v["name"]: v for v in document["cases"][1]["variants"]}
    assert aligned["tilelab-persistent"]["status"] == "ok", aligned["tilelab-persistent"]
    assert aligned["tilelab-persistent"]["plan"]["path"] == "persistent"
    assert "relative error vs float64" in done.stdout


def test_bad_arguments_exit_2(tmp_path):
    assert run_tool("tilelab.bench", "--check-only", "--op", "nonsense").returncode == 2
    assert run_tool("tilelab.bench", "--check-only", "--shape", "1", "2").returncode == 2
    done = run_tool("tilelab.bench", "--check-only", "--variants", "tilelab,bogus",
                    "--output", str(tmp_path / "x.json"))
    assert done.returncode == 2 and "bogus" in done.stderr
    assert run_tool("tilelab.bench", "--check-only", "--precision", "ieee").returncode == 2
    done = run_tool("tilelab.bench", "--check-only", "--samples", "4", "--rounds", "5")
    assert done.returncode == 2 and "--rounds must be between 1 and --samples (4)" in done.stderr
    (tmp_path / "not-a-calibration.json").write_text("{}")
    done = run_tool("tilelab.bench", "--check-only", "--ceilings", str(tmp_path / "not-a-calibration.json"),
                    "--output", str(tmp_path / "y.json"))
    assert done.returncode == 2 and "calibration" in done.stderr


def test_list_names_the_variants():
    done = run_tool("tilelab.bench", "list")
    assert done.returncode == 0, done.stderr
    for name in ("matmul", "tilelab-fixed", "tilelab-descriptor", "torch"):
        assert name in done.stdout


def test_tune_records_what_it_tuned(tmp_path):
    out = tmp_path / "tuned.json"
    done = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float16", "--check-only", "--tune",
                    "--shape", "64", "64", "32", "--variants", "tilelab", "--output", str(out),
                    env={"TILELAB_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == [] and document["settings"]["tune"] is True
    assert {t["path"] for t in document["tuned"]} == {"descriptor", "persistent"}
    assert all(t["shape"] == [64, 64, 32] and t["dtype"] == "float16" for t in document["tuned"])
    # the interpreter times nothing: the records are the untuned defaults, and say so
    assert all(t["measured"] is False for t in document["tuned"])
    assert '--tune measures nothing on Triton\'s interpreter' in done.stderr


def test_registers_variant_and_torch_kernels_off_the_gpu(tmp_path):
    """On the interpreter the registers path is refused with its reason (Gluon does not run there), and
    --torch-kernels is recorded in the settings but profiles nothing without a GPU."""
    out = tmp_path / "fp32.json"
    done = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float32", "--check-only", "--torch-kernels",
                    "--variants", "tilelab,tilelab-registers", "--shape", "64", "32", "48", "--output", str(out),
                    interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == [] and document["settings"]["torch_kernels"] is True
    by_name = {v["name"]: v for v in document["cases"][0]["variants"]}
    assert by_name["tilelab-registers"]["status"] == "unsupported"
    assert "interpreter does not run" in by_name["tilelab-registers"]["message"]
    assert by_name["tilelab"]["status"] == "ok" and "kernels" not in by_name["torch"]["plan"]


def test_pingpong_variant_off_the_gpu(tmp_path):
    """On the interpreter the pingpong path is refused with its reason, like the registers path."""
    out = tmp_path / "fp16.json"
    done = run_tool("tilelab.bench", "--op", "matmul", "--dtype", "float16", "--check-only",
                    "--variants", "tilelab,tilelab-pingpong", "--shape", "64", "32", "48", "--output", str(out),
                    interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    by_name = {v["name"]: v for v in json.loads(out.read_text())["cases"][0]["variants"]}
    assert by_name["tilelab-pingpong"]["status"] == "unsupported"
    assert "interpreter does not run" in by_name["tilelab-pingpong"]["message"]
    assert by_name["tilelab"]["status"] == "ok"
