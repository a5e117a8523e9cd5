"""kernel-bench's refusals and notes: bad arguments exit 2 before any work and name the argument; Ctrl-C keeps
what finished; report never writes over its inputs. In this process, to stay fast: argument errors stop before
anything runs, and the few --check-only runs are a 7x5x3 matmul on the interpreter."""

import json
import warnings
from pathlib import Path

import pytest
import torch

from tests.instruments.helpers import synthetic_result
from tilelab.bench import calibrate, cli, roofline, schema, sweep

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")
TINY = ("--op", "matmul", "--dtype", "float16", "--check-only", "--no-progress", "--shape", "7", "5", "3")


def bench(capsys, *argv: str) -> tuple[int, str]:
    """`kernel-bench ARGV`: its exit code (argparse's included) and what it wrote to stderr."""
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    except KeyboardInterrupt:  # must not escape: it would stop pytest itself
        code = "KeyboardInterrupt escaped"
    return code, capsys.readouterr().err


def _must_not_run(*args, **kwargs):
    raise AssertionError("the sweep ran although the arguments were bad")


@pytest.fixture
def places(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    return tmp_path


@pytest.mark.parametrize("name, message", [
    ("adir", "is a directory"),
    ("afile/b.json", "afile is not a directory"),
    ("/proc/b.json", "cannot be written"),
])
def test_an_output_that_cannot_be_written_exits_2_before_any_work(places, capsys, monkeypatch, name, message):
    if name.startswith("/proc") and not Path("/proc").is_dir():
        pytest.skip("needs Linux's /proc")
    monkeypatch.setattr(sweep, "run", _must_not_run)
    output = places / name
    code, err = bench(capsys, *TINY, "--output", str(output))
    assert code == 2 and f"--output {output} " in err and message in err, err
    assert not list(places.rglob("*.partial"))


def test_a_symbolic_link_or_a_device_is_refused_not_replaced(tmp_path, capsys, monkeypatch):
    """The result replaces --output: a link (or /dev/null) would become a plain file (an instruments review)."""
    monkeypatch.setattr(sweep, "run", _must_not_run)
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, err = bench(capsys, *TINY, "--output", str(link))
    assert code == 2 and f"--output {link} is a symbolic link" in err, err
    assert link.is_symlink() and target.read_text() == "{}"
    if Path("/dev/null").exists():
        code, err = bench(capsys, *TINY, "--output", "/dev/null")
        assert code == 2 and "--output /dev/null is not a regular file" in err, err
        assert Path("/dev/null").is_char_device()


def test_a_directory_that_takes_no_new_file_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    """The write goes through a sibling .partial file: an existing, writable output in a directory that takes no
    new file passed the check, and the sweep ran before the write failed."""
    monkeypatch.setattr(sweep, "run", _must_not_run)
    output = tmp_path / "out.json"
    output.write_text("{}")
    real_touch = Path.touch

    def no_new_files(self, *args, **kwargs):
        if self.name.endswith(".partial"):
            raise PermissionError(13, "Permission denied")
        return real_touch(self, *args, **kwargs)

    monkeypatch.setattr(Path, "touch", no_new_files)
    code, err = bench(capsys, *TINY, "--output", str(output))
    assert code == 2 and f"--output {output} cannot be written (Permission denied)" in err, err


@no_gpu
@pytest.mark.parametrize("argv, message", [
    (("--op", "nope"), "unknown op 'nope'"),
    (("--shape", "0", "4", "4"), "--shape: every number must be >= 1"),
    (("--variants", "bogus"), "unknown variant(s) bogus"),
])
def test_without_a_gpu_a_bad_argument_to_a_timing_run_is_exit_2_not_3(capsys, argv, message):
    code, err = bench(capsys, "--no-progress", *argv)
    assert code == 2 and message in err, err


def test_a_failed_final_write_exits_1_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    def full_disk(self, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", full_disk)
    code, err = bench(capsys, *TINY, "--output", str(tmp_path / "b.json"))
    assert code == 1 and f"could not write --output {tmp_path / 'b.json'}" in err and "No space left" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [
    {"schema_version": 1},
    {"schema_version": 1, "compute_tflops": {"float16": "fast"}, "memory_gbps": 4000.0},
    {"schema_version": 1, "compute_tflops": [700.0], "memory_gbps": 4000.0},
    {"schema_version": 1, "compute_tflops": {"float16": 700.0}, "memory_gbps": None},
    {"schema_version": 1, "compute_tflops": {"float16": 700.0}, "memory_gbps": True},
])
def test_ceilings_without_numeric_ceilings_are_refused(tmp_path, capsys, monkeypatch, content):
    monkeypatch.setenv("TILELAB_CACHE_DIR", str(tmp_path / "cache"))  # no cached calibration either
    path = tmp_path / "wrongshape.json"
    path.write_text(json.dumps(content))
    assert roofline.load_calibration(path) is None
    assert roofline.ceilings_for("NVIDIA H200", path)["source"].startswith("datasheet")  # no KeyError
    monkeypatch.setattr(sweep, "run", _must_not_run)
    code, err = bench(capsys, *TINY, "--ceilings", str(path), "--output", str(tmp_path / "b.json"))
    assert code == 2 and f"--ceilings {path} is not a readable calibration file" in err
    good = {"schema_version": 1, "compute_tflops": {"float16": 700.0, "tf32": 350}, "memory_gbps": 4000.0}
    path.write_text(json.dumps(good))
    assert roofline.load_calibration(path) == good


def test_an_unknown_compile_mode_is_a_usage_error(capsys):
    code, err = bench(capsys, *TINY, "--compile", "--compile-mode", "bogus")
    assert code == 2 and "argument --compile-mode: invalid choice: 'bogus'" in err
    assert cli.run_parser().parse_args(["--compile-mode", "reduce-overhead"]).compile_mode == "reduce-overhead"


def test_a_device_this_machine_lacks_exits_2(tmp_path, capsys, monkeypatch):
    code, err = bench(capsys, *TINY, "--device", "-1")
    assert code == 2 and "argument --device: must be >= 0, got -1" in err
    code, err = bench(capsys, "calibrate", "--device", "-1")
    assert code == 2 and "argument --device: must be >= 0, got -1" in err
    # As on a machine with one GPU: index 3 is refused before torch is asked to use it.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "set_device", _must_not_run)
    monkeypatch.setattr(calibrate, "measure", _must_not_run)
    code, err = bench(capsys, *TINY, "--device", "3")
    assert code == 2 and "--device 3: this machine has 1 CUDA device(s), indices 0 to 0" in err
    code, err = bench(capsys, "calibrate", "--device", "3")
    assert code == 2 and "--device 3: this machine has 1 CUDA device(s)" in err
    (tmp_path / "afile").write_text("")
    code, err = bench(capsys, "calibrate", "--output", str(tmp_path / "afile" / "c.json"))
    assert code == 2 and "--output" in err and "is not a directory" in err


def test_ctrl_c_keeps_the_finished_cases_and_exits_130(tmp_path, capsys, monkeypatch):
    real_run_case = sweep.run_case
    calls = []

    def run_case(*args, **kwargs):  # the second case is where Ctrl-C lands
        calls.append(args[0])
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real_run_case(*args, **kwargs)

    monkeypatch.setattr(sweep, "run_case", run_case)
    out = tmp_path / "b.json"
    code, err = bench(capsys, *TINY, "--shape", "9", "5", "3", "--shape", "7", "6", "3", "--output", str(out))
    assert code == 130, err
    assert f"interrupted; the 1 finished case(s) of 3 are in {out}" in err
    document = json.loads(out.read_text())
    assert schema.validate(document) == []
    assert len(document["cases"]) == 1 and document["summary"]["aborted"] == "interrupted (Ctrl-C) after 1 of 3 cases"
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize("argv, message", [
    (("--op", "matmul", "--shape", "-7", "5", "3"), "--shape: every number must be >= 1; got -7 5 3 (M = -7)"),
    (("--op", "matmul", "--shape", "7", "5", "0"), "--shape: every number must be >= 1; got 7 5 0 (K = 0)"),
    (("--op", "rmsnorm", "--shape", "7", "0"), "got 7 0 (cols = 0)"),
    (("--op", "conv2d_bn_silu", "--shape", "1", "4", "5", "5", "4", "3", "0"), "got 1 4 5 5 4 3 0 (stride = 0)"),
    (("--op", "conv2d_bn_silu", "--shape", "1", "4", "5", "5", "4", "0", "1"), "got 1 4 5 5 4 0 1 (kernel = 0)"),
    (("--op", "conv2d_bn_silu-grouped", "--shape", "1", "6", "5", "5", "6", "3", "1", "0"), "(groups = 0)"),
    (("--op", "conv2d_bn_silu-grouped", "--shape", "1", "6", "5", "5", "6", "3", "1", "4"),
     "--shape 1 6 5 5 6 3 1 4 for conv2d_bn_silu-grouped: groups = 4 must divide C_in = 6 and C_out = 6"),
    (("--op", "matmul", "--shape", "7", "5", "3", "--shape", "-1", "5", "3"), "got -1 5 3"),  # after a good one
    (("--op", "matmul", "--shape", "1", "2"), "matmul takes shapes of 3 numbers (M N K), got 1 2"),
    (("--op", "all", "--shape", "1", "2", "3", "4", "5"),
     "no op takes shapes of 5 numbers (got 1 2 3 4 5); ops take 2 (softmax, rmsnorm), 3 (matmul, "),
])
def test_bad_shapes_exit_2_before_any_work(tmp_path, capsys, monkeypatch, argv, message):
    """Zero is refused as well as negatives: no test or document runs empty shapes through kernel-bench, and an
    empty case would pass every check vacuously ("ok 0.0e+00")."""
    monkeypatch.setattr(sweep, "run", _must_not_run)
    code, err = bench(capsys, *argv, "--check-only", "--no-progress", "--output", str(tmp_path / "b.json"))
    assert code == 2 and message in err, err
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("budget", ["-5", "0", "nan", "inf", "soon"])
def test_the_time_budget_must_be_a_positive_number_of_seconds(tmp_path, capsys, monkeypatch, budget):
    monkeypatch.setattr(sweep, "run", _must_not_run)
    code, err = bench(capsys, *TINY, "--time-budget", budget, "--output", str(tmp_path / "b.json"))
    assert code == 2 and "argument --time-budget:" in err and budget in err
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("argv, message", [
    (("--samples", "0"), "argument --samples: must be >= 1, got 0"),
    (("--samples", "-3"), "argument --samples: must be >= 1, got -3"),
    (("--warmup", "-1"), "argument --warmup: must be >= 0, got -1"),
    (("--graph-calls", "-1"), "argument --graph-calls: must be >= 0, got -1"),
    (("--samples", "many"), "argument --samples: expected an integer, got 'many'"),
])
def test_each_count_has_its_own_message(capsys, argv, message):
    code, err = bench(capsys, *TINY, *argv)
    assert code == 2 and message in err


def test_the_time_budget_abort_reads_as_a_sentence(tmp_path, capsys):
    # The first case starts at once; the interpreter's case takes far longer than a millisecond.
    code, err = bench(capsys, *TINY, "--shape", "9", "5", "3", "--time-budget", "0.001",
                      "--output", str(tmp_path / "b.json"))
    assert code == 1
    assert ("kernel-bench: the sweep stopped early: the time budget of 0.001 s ran out after 1 of 2 cases"
            in err), err


@no_gpu
def test_options_without_effect_get_a_note(tmp_path, capsys):
    code, err = bench(capsys, *TINY, "--timing", "graph", "--samples", "5", "--compile", "--torch-kernels",
                      "--device", "7", "--output", str(tmp_path / "b.json"))
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("kernel-bench: note:")]
    assert len(notes) == 1
    assert "--timing graph, --samples 5 ignored (--check-only times nothing)" in notes[0]
    assert "--compile, --torch-kernels, --device 7 ignored (needs a CUDA GPU)" in notes[0]
    code, err = bench(capsys, *TINY, "--output", str(tmp_path / "b.json"))
    assert code == 0 and "note:" not in err


@pytest.mark.parametrize("argv, message", [
    (("--plot", "r.xyz"), "argument --plot: expected a .png file name, got 'r.xyz'"),
    (("--plot", "afile/r.png"), "--plot afile/r.png cannot be created:"),
    (("--output", "afile/r.md"), "--output afile/r.md cannot be created:"),
    (("--output", "adir"), "--output adir is a directory"),
    (("--output", "r.json"), "--output r.json is one of the input files; it would be overwritten"),
    (("--output", "./adir/../r.json"), "is one of the input files"),
    (("--plot", "/proc/r.png"), "--plot /proc/r.png cannot be written"),
])
def test_report_outputs_that_cannot_be_written_exit_2(places, capsys, monkeypatch, argv, message):
    if "/proc" in argv[1] and not Path("/proc").is_dir():
        pytest.skip("needs Linux's /proc")
    monkeypatch.chdir(places)
    (places / "r.json").write_text(json.dumps(synthetic_result()))
    before = (places / "r.json").read_text()
    code, err = bench(capsys, "report", "r.json", *argv)
    assert code == 2 and message in err, err
    assert (places / "r.json").read_text() == before


@pytest.mark.parametrize("command, foreign", [
    ("calibrate", ["every variant was correct", "  130 "]),
    ("report", ["every variant was correct", "  1  ", "  3  "]),
])
def test_subcommands_list_their_own_exit_codes(capsys, command, foreign):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = capsys.readouterr().out
    assert "exit codes:" in text and "  0  " in text and "  2  " in text
    assert not [line for line in foreign if line in text]


def test_a_check_only_plot_has_no_empty_legends(tmp_path, capsys):
    """As from --check-only on the interpreter: nothing timed, and no ceilings (no GPU), so the roofline panel
    has nothing to label."""
    document = synthetic_result()
    document["ceilings"] = None
    for case in document["cases"]:
        for variant in case["variants"]:
            variant.update(timing=None, tflops=None, gbps=None, speedup_vs_torch=None, roofline_fraction=None)
    path = tmp_path / "check.json"
    path.write_text(json.dumps(document))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["report", str(path), "--plot", str(tmp_path / "check.png")]) == 0
    assert not [w for w in caught if "legend" in str(w.message)]



@pytest.mark.parametrize("names", [",", " , ,", ""])
def test_variants_that_name_nothing_exit_2(capsys, monkeypatch, names):
    """`--variants ,` used to mean the defaults, as if the option were absent (an instruments review)."""
    monkeypatch.setattr(sweep, "run", _must_not_run)
    code, err = bench(capsys, *TINY, "--variants", names)
    assert code == 2 and "--variants: no variant named in" in err, err


def test_a_dtype_or_shape_given_twice_runs_once(tmp_path, capsys):
    output = tmp_path / "b.json"
    code, err = bench(capsys, *TINY, "--shape", "7", "5", "3", "--dtype", "float16", "float16",
                      "--output", str(output))
    assert code == 0, err
    document = json.loads(output.read_text())
    assert document["settings"]["dtypes"] == ["float16"]
    assert [(case["shape"], case["dtype"]) for case in document["cases"]] == [([7, 5, 3], "float16")]
