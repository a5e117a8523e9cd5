"""`tilelab.bench.roofline` at its edges: which GPU names get a datasheet (only H100/H200 SXM parts, not the NVL
or Grace Hopper variants with other memory), which calibration files are trusted (the right GPU's, with finite,
non-negative ceilings), where they are kept, and the bounds for a case that moves no bytes or took no time.

A roofline fraction against the wrong ceilings is a wrong headline number; a crash in a ceiling helper loses a
whole report. None of these rules was pinned before (a mutation of each went unnoticed).
"""

import json
import math

import pytest

from tilelab.bench import roofline

CEILINGS = {"compute_tflops": {"float16": 1000.0}, "memory_gbps": 4000.0}


@pytest.mark.parametrize("name", [
    "NVIDIA H100 NVL", "NVIDIA H200 NVL", "NVIDIA GH200 480GB", "NVIDIA GH200 144G HBM3e"])
def test_no_sxm_datasheet_for_nvl_or_grace_hopper_parts(name):
    assert roofline.datasheet_for(name) is None


@pytest.mark.parametrize("name, memory_gbps", [("NVIDIA H200", 4800.0), ("NVIDIA H100 80GB HBM3", 3350.0),
                                               ("NVIDIA H200 141GB HBM3e", 4800.0)])
def test_sxm_names_still_get_their_datasheet(name, memory_gbps):
    assert roofline.datasheet_for(name)["memory_gbps"] == memory_gbps


def test_calibration_file_names_are_slugs_of_the_gpu_name(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(tmp_path))
    assert roofline.calibration_path(" NVIDIA H200 ").name == "ceilings-nvidia-h200.json"
    assert roofline.calibration_path("NVIDIA  H100 (SXM)").name == "ceilings-nvidia-h100-sxm.json"
    assert roofline.calibration_path("???").name == "ceilings-gpu.json"


def test_a_calibration_for_another_gpu_under_the_same_file_name_is_not_used(tmp_path, monkeypatch):
    # "NVIDIA H200" and "NVIDIA-H200" share a file name; the file says which GPU it measured.
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(tmp_path))
    data = {"schema_version": roofline.CALIBRATION_SCHEMA_VERSION, "gpu_name": "NVIDIA H200",
            "compute_tflops": {"float16": 700.0}, "memory_gbps": 4000.0}
    roofline.save_calibration(data, roofline.calibration_path("NVIDIA H200"))
    assert roofline.calibration_path("NVIDIA-H200") == roofline.calibration_path("NVIDIA H200")
    assert roofline.ceilings_for("NVIDIA H200")["source"] == "calibrated"
    assert roofline.ceilings_for("NVIDIA-H200")["source"].startswith("datasheet")


@pytest.mark.parametrize("change", [
    {"memory_gbps": math.inf}, {"memory_gbps": -1.0}, {"compute_tflops": {"float16": -5.0}},
    {"compute_tflops": {"float16": math.inf}},
])
def test_calibrations_with_infinite_or_negative_ceilings_are_refused(tmp_path, change):
    data = {"schema_version": roofline.CALIBRATION_SCHEMA_VERSION, "gpu_name": "NVIDIA H200",
            "compute_tflops": {"float16": 700.0}, "memory_gbps": 4000.0, **change}
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps(data))  # json writes inf as Infinity, which it reads back
    assert roofline.load_calibration(path) is None
    assert roofline.ceilings_for("NVIDIA H200", path)["source"].startswith("datasheet")


def test_no_bound_without_bytes_and_no_fraction_without_time():
    assert roofline.attainable_tflops(CEILINGS, "float16", 1e9, 0) is None
    assert roofline.roofline_fraction(CEILINGS, "float16", 1e9, 1e6, 0.0) is None
    assert roofline.roofline_fraction(CEILINGS, "float16", 0, 1e6, 0.0) is None
    # and with both, the FLOP-free fraction is bandwidth over bandwidth: 4e6 bytes in 1 us is 4000 GB/s
    assert roofline.roofline_fraction(CEILINGS, "float16", 0, 4e6, 1e-3) == pytest.approx(1.0)
