"""`kernel-bench calibrate`'s command path, with the GPU measurement replaced by fixed numbers."""

import json

import pytest
import torch

from tilelab.bench import calibrate, cli, roofline


@pytest.fixture
def measured_h200(monkeypatch) -> dict:
    """A GPU that calibrate sees, and what it 'measures' there."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: None)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    measured = {
        "schema_version": roofline.CALIBRATION_SCHEMA_VERSION, "tool": "kernel-bench calibrate",
        "gpu_name": "NVIDIA H200", "measured_utc": "2026-01-01T00:00:00+00:00", "command": "x",
        "compute_tflops": {"float16": 760.0, "bfloat16": 750.0, "tf32": 380.0, "float32": 50.0},
        "memory_gbps": 4100.0, "method": {}, "detail": {}, "datasheet": roofline.datasheet_for("NVIDIA H200"),
        "environment": {},
    }
    monkeypatch.setattr(calibrate, "measure", lambda device: measured)
    return measured


def test_calibrate_caches_and_writes(tmp_path, monkeypatch, capsys, measured_h200):
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "results" / "h200-calibration.json"
    assert cli.main(["calibrate", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "77%" in printed  # 760 of 989.5 TFLOP/s
    assert json.loads(out.read_text())["memory_gbps"] == 4100.0
    assert roofline.ceilings_for("NVIDIA H200")["source"] == "calibrated"


def test_an_unwritable_cache_is_a_warning_not_a_traceback(tmp_path, monkeypatch, capsys, measured_h200):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(blocker / "cache"))  # under a file: cannot be created
    out = tmp_path / "h200-calibration.json"
    assert cli.main(["calibrate", "--output", str(out)]) == 0
    assert "warning: could not cache the ceilings" in capsys.readouterr().err
    assert json.loads(out.read_text())["memory_gbps"] == 4100.0
