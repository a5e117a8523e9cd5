"""kernel-bench, kernel-inspect and kernel-doctor on a real GPU: timing modes, calibration, native compile.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src:. python -m pytest tests/gpu/test_bench_gpu.py -q
"""

import json

import pytest

from tests.instruments.helpers import run_tool
from tilelab.bench import schema

pytestmark = pytest.mark.gpu

SMALL = ["--shape", "512", "512", "512", "--shape", "127", "255", "65"]
QUICK = ["--warmup", "2", "--samples", "5", "--no-progress"]


def bench(tmp_path, *args, env=None):
    out = tmp_path / "result.json"
    done = run_tool("tilelab.bench", "--output", str(out), *QUICK, *args, env=env, interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == []
    return document


def variants(document):
    return {(tuple(c["shape"]), v["name"]): v for c in document["cases"] for v in c["variants"]}


@pytest.mark.parametrize("timing", ["events", "graph"])
@pytest.mark.parametrize("cache", ["warm", "cold"])
def test_timing_modes(tmp_path, timing, cache):
    record = ["--torch-kernels"] if (timing, cache) == ("events", "cold") else []
    document = bench(tmp_path, "--op", "matmul", "--dtype", "float16", "--timing", timing, "--cache", cache,
                     "--variants", "tilelab,tilelab-fixed", *SMALL, *record)
    gpu = document["environment"]["gpu"]
    assert gpu["sm_count"] > 0 and gpu["l2_bytes"] > 0 and gpu["capability"]
    found = variants(document)
    for shape in [(512, 512, 512), (127, 255, 65)]:
        for name in ("torch", "tilelab", "tilelab-fixed"):
            v = found[(shape, name)]
            assert v["status"] == "ok", v
            t = v["timing"]
            assert t["mode"] == timing and t["cache"] == cache and len(t["samples_ms"]) == 5
            assert 0 < t["min_ms"] <= t["median_ms"] <= t["max_ms"] < 100
            assert v["tflops"] > 0 and v["speedup_vs_torch"] > 0
        assert found[(shape, "torch")]["speedup_vs_torch"] == pytest.approx(1.0)
        assert found[(shape, "tilelab")]["plan"]["config"] is not None  # the tuned choice is recorded
        if timing == "events" and cache == "cold":  # asked for with --torch-kernels (below)
            kernels = found[(shape, "torch")]["plan"]["kernels"]  # what torch ran, from one profiled call
            assert any(("gemm" in k or "nvjet" in k or "cutlass" in k) for k in kernels), kernels
        else:
            assert "kernels" not in found[(shape, "torch")]["plan"]
    if timing == "graph" and cache == "cold":
        # a 512^3 problem is far smaller than the L2: the graph must rotate through many input sets
        assert found[((512, 512, 512), "torch")]["timing"]["input_sets"] > 2


@pytest.mark.gpu_alone
def test_graph_and_events_agree_on_a_large_kernel(tmp_path):
    shape = ["--shape", "4096", "4096", "4096", "--variants", "tilelab"]
    events = bench(tmp_path / "e", "--timing", "events", "--cache", "warm", *shape)
    graph = bench(tmp_path / "g", "--timing", "graph", "--cache", "warm", *shape)
    for name in ("torch", "tilelab"):
        e = variants(events)[((4096, 4096, 4096), name)]["timing"]["median_ms"]
        g = variants(graph)[((4096, 4096, 4096), name)]["timing"]["median_ms"]
        assert 0.7 < e / g < 1.4, (name, e, g)  # launch overhead is negligible at ~0.2 ms per call


def test_calibrate_then_bench_uses_the_calibration(tmp_path):
    env = {"TILELAB_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "calibration.json"
    done = run_tool("tilelab.bench", "calibrate", "--output", str(out), env=env, interpret=False, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["compute_tflops"]["float16"] > 50 and data["memory_gbps"] > 500
    assert list((tmp_path / "cache").glob("ceilings-*.json"))
    document = bench(tmp_path, "--shape", "1024", "1024", "1024", "--variants", "tilelab", env=env)
    assert document["ceilings"]["source"] == "calibrated"
    assert 0 < variants(document)[((1024, 1024, 1024), "tilelab")]["roofline_fraction"] < 1.5


def test_float32_precisions_and_report(tmp_path):
    paths = []
    for precision in ("tf32", "ieee"):
        document = bench(tmp_path / precision, "--dtype", "float32", "--precision", precision,
                         "--shape", "1024", "1024", "1024", "--variants", "tilelab")
        v = variants(document)[((1024, 1024, 1024), "tilelab")]
        assert v["status"] == "ok" and v["plan"]["input_precision"] == precision
        paths.append(str(tmp_path / precision / "result.json"))
    md, png = tmp_path / "summary.md", tmp_path / "summary.png"
    done = run_tool("tilelab.bench", "report", *paths, "--output", str(md), "--plot", str(png))
    assert done.returncode == 0, done.stderr
    assert "float32" in md.read_text() and png.read_bytes()[:4] == b"\x89PNG"


def test_inspect_native_target(tmp_path):
    done = run_tool("tilelab.inspect", "--target", "native", "--json", "--output", str(tmp_path), interpret=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["census"]["tensor_cores"] and found["census"]["resources"]["registers"] > 0


def test_doctor_sees_the_gpu():
    done = run_tool("tilelab.doctor", "--json", interpret=False)
    report = json.loads(done.stdout)
    assert report["cuda_available"] and report["gpus"] and report["probes"]["gpu"]["ok"], report
    assert done.returncode == 0
