"""Ceilings: datasheet fallback, calibrated cache, and the fraction of the roofline."""

import json

import pytest

from tilelab.bench import roofline


def test_compute_key_by_dtype_and_precision():
    assert roofline.compute_key("float16", None) == "float16"
    assert roofline.compute_key("bfloat16", None) == "bfloat16"
    assert roofline.compute_key("float32", None) == "tf32"  # the library default
    assert roofline.compute_key("float32", "ieee") == "float32"
    assert roofline.compute_key("float32", "tf32x3") == "tf32x3"
    assert roofline.compute_key("float8_e4m3fn", None) == "float8"


def test_datasheets_are_labelled_and_name_matched():
    h200 = roofline.datasheet_for("NVIDIA H200")
    assert h200["source"].startswith("datasheet")
    assert h200["compute_tflops"]["float16"] == 989.5
    assert h200["compute_tflops"]["tf32"] == 494.7
    assert h200["compute_tflops"]["float32"] == 66.9
    assert h200["compute_tflops"]["float8"] == 1979.0
    assert h200["memory_gbps"] == 4800.0
    assert roofline.datasheet_for("NVIDIA H100 80GB HBM3")["memory_gbps"] == 3350.0
    assert roofline.datasheet_for("NVIDIA H100 PCIe") is None  # different clocks and memory
    assert roofline.datasheet_for("NVIDIA A100-SXM4-80GB") is None
    assert roofline.datasheet_for(None) is None


def test_tf32x3_ceiling_is_a_third_of_tf32():
    sheet = roofline.datasheet_for("NVIDIA H200")
    assert roofline.compute_peak(sheet, "tf32x3") == pytest.approx(494.7 / 3)


def test_roofline_bound_and_fraction():
    ceilings = {"compute_tflops": {"float16": 1000.0}, "memory_gbps": 4000.0}
    # 16x16x16 fp16: intensity 8192 FLOP / 1536 B = 5.33 FLOP/B -> memory bound at 21.3 TFLOP/s
    flops, nbytes = 2 * 16**3, 3 * 16 * 16 * 2
    assert roofline.attainable_tflops(ceilings, "float16", flops, nbytes) == pytest.approx(flops / nbytes * 4)
    # 4096^3 is compute bound: 1000 TFLOP/s
    big = 2 * 4096**3, 3 * 4096**2 * 2
    assert roofline.attainable_tflops(ceilings, "float16", *big) == 1000.0
    ms_at_half_peak = big[0] / 500e12 * 1e3
    assert roofline.roofline_fraction(ceilings, "float16", *big, ms_at_half_peak) == pytest.approx(0.5)
    assert roofline.roofline_fraction(None, "float16", *big, 1.0) is None
    assert roofline.roofline_fraction(ceilings, "bfloat16", *big, 1.0) is None  # no ceiling for it
    # a FLOP-free op is measured against bandwidth only
    assert roofline.roofline_fraction(ceilings, "float16", 0, 4e9, 2.0) == pytest.approx(0.5)


def test_calibration_cache_round_trip_and_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(tmp_path))
    name = "NVIDIA H200"
    assert roofline.ceilings_for(name)["source"].startswith("datasheet")  # nothing cached yet
    data = {"schema_version": roofline.CALIBRATION_SCHEMA_VERSION, "gpu_name": name,
            "compute_tflops": {"float16": 760.0}, "memory_gbps": 4100.0, "measured_utc": "x"}
    path = roofline.calibration_path(name)
    assert path.parent == tmp_path and path.name == "ceilings-nvidia-h200.json"
    roofline.save_calibration(data, path)
    found = roofline.ceilings_for(name)
    assert found["source"] == "calibrated"
    assert found["compute_tflops"]["float16"] == 760.0
    assert found["datasheet"]["memory_gbps"] == 4800.0  # kept alongside, for comparison
    # another GPU's file is not used for this one
    assert roofline.ceilings_for("NVIDIA H100 80GB HBM3")["source"].startswith("datasheet")
    # an explicit file wins, and a file of another schema version is ignored
    explicit = tmp_path / "mine.json"
    explicit.write_text(json.dumps({**data, "compute_tflops": {"float16": 1.0}}))
    assert roofline.ceilings_for(name, explicit)["compute_tflops"]["float16"] == 1.0
    path.write_text(json.dumps({**data, "schema_version": 999}))
    assert roofline.ceilings_for(name)["source"].startswith("datasheet")
