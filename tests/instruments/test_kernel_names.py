"""tilelab.bench.kernels: the names of the kernels a call launches, and their short forms for reports."""

import pytest
import torch

from tilelab.bench.kernels import launched_kernels, short_name


@pytest.mark.parametrize("name,expected", [
    ("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"),
    ("void cutlass::Kernel2<cutlass_75_wmma_tensorop_f16>(cutlass_75_wmma::Params)", "cutlass::Kernel2"),
    ("Memset (Device)", "Memset (Device)"),
    ("kernel_name(int, float)", "kernel_name"),
])
def test_short_name(name, expected):
    assert short_name(name) == expected
    assert len(short_name(name)) <= 80


def test_long_names_are_cut_with_an_ellipsis():
    name = ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_"
            "kernel__5x_cublas")
    assert short_name(name) == name[:79] + "…"
    assert short_name(name, width=200) == name


def test_nothing_to_profile_off_the_gpu():
    calls = []
    assert launched_kernels(lambda a: calls.append(a), torch.ones(2)) == []
    assert calls == []  # a CPU call is not even made


def test_sweep_records_the_baselines_kernels_after_timing(monkeypatch):
    """record_baseline_kernels profiles each case's baseline (only it, only if it ran) on the case's inputs."""
    import tilelab.bench.kernels as kernels
    from tilelab.bench import sweep
    from tilelab.bench.op_matmul import OP

    profiled = []

    def fake(fn, *inputs):
        profiled.append(tuple(inputs[0].shape))
        return ["nvjet_fake_64x64"]

    monkeypatch.setattr(kernels, "launched_kernels", fake)
    cases = sweep.plan_cases([OP], ["float16"], [(64, 48, 32), (8, 8, 8)], seed=0)
    settings = sweep.SweepSettings(dtypes=["float16"])
    results = []
    for shape, status in (((64, 48, 32), "ok"), ((8, 8, 8), "failed")):
        results.append({"op": "matmul", "shape": list(shape), "dtype": "float16", "variants": [
            {"name": "torch", "baseline": True, "status": status, "plan": {"library": "torch"}},
            {"name": "tilelab", "baseline": False, "status": "ok", "plan": {"library": "tilelab"}},
        ]})
    sweep.record_baseline_kernels(results, cases, settings)
    assert profiled == [(64, 32)]  # A of the one case whose baseline ran
    assert results[0]["variants"][0]["plan"]["kernels"] == ["nvjet_fake_64x64"]
    assert "kernels" not in results[0]["variants"][1]["plan"]
    assert "kernels" not in results[1]["variants"][0]["plan"]
