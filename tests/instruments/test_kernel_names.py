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
