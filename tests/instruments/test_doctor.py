"""kernel-doctor: findings, warnings and exit codes."""

import json

import pytest

from tests.instruments.helpers import run_tool
from tilelab import doctor


def test_version_helpers():
    assert doctor.version_tuple("2.4.1+cpu") == (2, 4, 1)
    assert doctor.version_tuple("3.6.0") == (3, 6, 0)
    assert doctor.version_tuple("2.5.0rc1") == (2, 5)
    assert doctor.required_triton(['triton==3.6.0; platform_system == "Linux"', "numpy"]) == "3.6.0"
    assert doctor.required_triton(["pytorch-triton==3.3.0+git96316ce5"]) == "3.3.0+git96316ce5"
    assert doctor.required_triton(["filelock", "sympy>=1.13"]) is None
    assert doctor.required_triton(None) is None


def test_exit_codes():
    clean = {"problems": [], "warnings": []}
    warned = {"problems": [], "warnings": ["numpy 2.4"]}
    broken = {"problems": ["no GPU and the interpreter fails"], "warnings": []}
    assert doctor.exit_code(clean, strict=True) == doctor.EXIT_OK
    assert doctor.exit_code(warned, strict=False) == doctor.EXIT_OK
    assert doctor.exit_code(warned, strict=True) == doctor.EXIT_WARNINGS
    assert doctor.exit_code(broken, strict=False) == doctor.EXIT_BROKEN


def test_warnings_for_numpy_and_a_mismatched_triton(monkeypatch):
    real = doctor._import_version
    fake = {"numpy": "2.4.0", "triton": "3.2.0"}
    monkeypatch.setattr(doctor, "_import_version", lambda m: (fake[m], None) if m in fake else real(m))
    monkeypatch.setattr(doctor.importlib.metadata, "requires", lambda name: ["triton==3.6.0"])
    report = doctor.diagnose(run_probes=False)
    text = "\n".join(report["warnings"])
    assert "numpy 2.4.0" in text and "interpreter" in text
    assert "triton 3.6.0" in text and "3.2.0" in text


def test_a_failing_interpreter_without_gpu_is_a_problem(monkeypatch):
    monkeypatch.setattr(doctor, "run_probe", lambda device, interpret, timeout=300: (False, "AttributeError: x"))
    report = doctor.diagnose(run_probes=True)
    if report["cuda_available"]:
        assert any("GPU" in p for p in report["problems"])
    else:
        assert any("interpreter failed" in p for p in report["problems"])
    assert doctor.exit_code(report, strict=False) == doctor.EXIT_BROKEN


def test_doctor_runs_the_real_probe_here():
    done = run_tool("tilelab.doctor", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == report["exit_code"] == 0, report
    assert report["probes"]["interpreter"]["ok"], report["probes"]
    assert report["probes"]["sm_90 compile"]["ok"], report["probes"]
    assert report["versions"]["torch"] and report["versions"]["triton"]
    if not report["cuda_available"]:
        assert any("CPU-only" in w for w in report["warnings"]) or report["torch_cuda"]


def test_a_machine_that_cannot_compile_for_sm_90_is_warned_about_but_can_run_kernels(monkeypatch):
    def probe(device, interpret, timeout=300):
        return (False, "PTXASError: ptxas not found") if device == "sm_90" else (True, "probe ok")

    monkeypatch.setattr(doctor, "run_probe", probe)
    report = doctor.diagnose(run_probes=True)
    assert report["probes"]["sm_90 compile"] == {"ok": False, "detail": "PTXASError: ptxas not found"}
    assert any("compiling for sm_90" in w and "kernel-inspect" in w and "ptxas not found" in w
               for w in report["warnings"])
    assert doctor.exit_code(report, strict=False) == doctor.EXIT_OK


def test_the_sm_90_probe_compiles_without_a_gpu():
    worked, detail = doctor.run_probe("sm_90", interpret=False)
    assert worked, detail


def test_help_documents_exit_codes():
    done = run_tool("tilelab.doctor", "--help")
    assert done.returncode == 0
    assert "exit codes" in done.stdout and "--strict" in done.stdout
    assert f"  {doctor.EXIT_USAGE}  bad arguments" in done.stdout


def test_bad_arguments_have_their_own_exit_code():
    """Not argparse's 2, which is kernel-doctor's "tilelab cannot run kernels here"."""
    assert doctor.EXIT_USAGE not in (doctor.EXIT_OK, doctor.EXIT_WARNINGS, doctor.EXIT_BROKEN)
    done = run_tool("tilelab.doctor", "--bogus")
    assert done.returncode == doctor.EXIT_USAGE == 3, done.stderr
    assert "kernel-doctor: error: unrecognized arguments: --bogus" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # nothing was checked


def test_bad_arguments_exit_before_diagnosing(monkeypatch, capsys):
    monkeypatch.setattr(doctor, "diagnose", lambda run_probes=True: pytest.fail("diagnosed despite bad arguments"))
    with pytest.raises(SystemExit) as exited:
        doctor.main(["--json=yes"])
    assert exited.value.code == doctor.EXIT_USAGE
    assert "--json" in capsys.readouterr().err


def test_gluon_is_reported_and_its_absence_warned_about_on_hopper(monkeypatch):
    from tilelab import env

    assert doctor.diagnose(run_probes=False)["gluon"] is True  # triton 3.6 ships it
    monkeypatch.setattr(env, "has_gluon", lambda: False)
    report = doctor.diagnose(run_probes=False)
    assert report["gluon"] is False
    hopper = any(gpu["capability"].startswith("9.") for gpu in report["gpus"])
    assert any("Gluon" in w for w in report["warnings"]) == hopper

