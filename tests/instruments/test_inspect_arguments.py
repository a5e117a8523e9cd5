"""kernel-inspect's bad arguments: exit 2 with a message naming the argument, before anything compiles.

--output (a file, under a file, or not creatable), --target (only the architectures whose tensor-core instructions
the census counts), fp8 below sm_89, and an unknown --config restated as kernel-inspect's own words.
"""

from pathlib import Path

import pytest

from tests.instruments.helpers import run_tool
from tilelab.inspect import census, targets
from tilelab.inspect import cli as inspect_cli
from tilelab.inspect import compile as compiler


@pytest.fixture
def never_compiles(monkeypatch):
    """main() in this process, where any compile fails the test: what is refused is refused before compiling."""
    import triton

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)

    def compile_called(*args, **kwargs):
        raise AssertionError("kernel-inspect compiled although an argument was bad")

    monkeypatch.setattr(triton, "compile", compile_called)
    monkeypatch.setattr(compiler, "save", compile_called)


def _refused(capsys, *argv) -> str:
    code = inspect_cli.main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("kernel-inspect: ") and "Traceback" not in err, err
    return err


def test_output_that_is_a_file_is_refused_before_compiling(tmp_path, capsys, never_compiles):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    err = _refused(capsys, "--output", str(afile))
    assert f"--output {afile} is a file" in err
    assert afile.read_text() == "not a directory"


def test_output_under_a_file_is_refused_before_compiling(tmp_path, capsys, never_compiles):
    afile = tmp_path / "afile"
    afile.write_text("")
    err = _refused(capsys, "--output", str(afile / "sub" / "deeper"))
    assert "--output" in err and f"lies under the file {afile}" in err


def test_output_that_cannot_be_created_is_refused_before_compiling(capsys, never_compiles):
    err = _refused(capsys, "--output", "/proc/kernel-inspect-test/stages")  # procfs: no directory can be made
    assert "--output /proc/kernel-inspect-test/stages cannot be created" in err


def test_a_bad_argument_leaves_no_output_directory_behind(tmp_path):
    output = tmp_path / "new" / "stages"
    done = run_tool("tilelab.inspect", "--target", "sm_100", "--output", str(output), interpret=False)
    assert done.returncode == 2 and "unknown target 'sm_100'" in done.stderr, done.stderr
    assert not (tmp_path / "new").exists()


def test_prepare_output_creates_and_returns_the_missing_directories(tmp_path):
    output = tmp_path / "a" / "b"
    created = inspect_cli.prepare_output(output)
    assert output.is_dir() and created == [output, tmp_path / "a"]
    assert inspect_cli.prepare_output(output) == []  # already there: nothing created
    inspect_cli.remove_created(created)
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("target", ["sm_9a", "sm_1", "sm_75", "sm_100", "sm_120", "sm_80a", "hopper"])
def test_targets_the_census_does_not_understand_are_refused(tmp_path, capsys, never_compiles, target):
    err = _refused(capsys, "--target", target, "--output", str(tmp_path))
    assert f"unknown target {target!r} (--target)" in err
    assert "sm_80" in err and "sm_90" in err and "native" in err  # what it does take


def test_unknown_target_exits_2_from_the_command_line(tmp_path):
    done = run_tool("tilelab.inspect", "--target", "sm_9a", "--output", str(tmp_path), interpret=False)
    assert done.returncode == 2, done.stderr
    assert "unknown target 'sm_9a' (--target)" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1  # not 11,000 lines of LLVM


@pytest.mark.parametrize("name,arch", [("sm_80", 80), ("sm_86", 86), ("sm_87", 87), ("sm_89", 89), ("sm_90", 90),
                                       ("sm_90a", 90)])
def test_the_mma_sync_and_wgmma_targets_resolve(name, arch):
    assert targets.resolve(name).arch == arch
    assert arch in census.SM_LIMITS  # the census knows how many programs each holds


def test_native_needs_a_gpu_the_census_understands(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="--target native needs a CUDA GPU"):
        targets.resolve("native")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *device: (9, 0))
    assert targets.resolve("native").arch == 90
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *device: (10, 0))  # Blackwell: tcgen05
    with pytest.raises(ValueError, match="--target native: this GPU is sm_100"):
        targets.resolve("native")


@pytest.mark.parametrize("target", ["sm_80", "sm_86", "sm_87"])
def test_fp8_below_sm89_is_refused_before_compiling(monkeypatch, target):
    import triton

    monkeypatch.setattr(triton, "compile", lambda *args, **kwargs: pytest.fail(f"compiled fp8 for {target}"))
    with pytest.raises(ValueError, match=rf"float8_e4m3fn, which needs .*sm_89.*--target sm_90.*not {target}$"):
        compiler.inspect_kernel(op="scaled_matmul", target=target)


def test_fp8_below_sm89_exits_2_from_the_command_line(tmp_path):
    done = run_tool("tilelab.inspect", "--op", "scaled_matmul", "--target", "sm_80", "--output", str(tmp_path),
                    interpret=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("kernel-inspect: --op scaled_matmul is float8_e4m3fn") and "sm_89" in done.stderr
    assert "compiling failed" not in done.stderr


@pytest.mark.parametrize("args,kernel", [
    ((), "descriptor"),
    (("--path", "pointer"), "pointer"),
    (("--op", "conv2d_bn_silu"), "implicit-gemm"),
    (("--op", "conv2d_bn_silu", "--groups", "64"), "direct"),
    (("--path", "registers"), "registers"),
    (("--path", "persistent"), "persistent"),
])
def test_an_unknown_config_names_config(tmp_path, args, kernel):
    done = run_tool("tilelab.inspect", *args, "--config", "nope", "--output", str(tmp_path), interpret=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"kernel-inspect: unknown config 'nope' (--config) for the {kernel} kernel; "
                                  "known: "), done.stderr
    assert "must be one of" not in done.stderr


def test_help_lists_the_targets_and_the_output_check():
    done = run_tool("tilelab.inspect", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "sm_80, sm_86, sm_87, sm_89 (mma.sync), sm_90 (wgmma" in text
    assert "an --output that is not a directory we can write" in text


def test_a_config_gets_its_own_default_directory_apart_from_the_default_tile(monkeypatch, tmp_path):
    """Lesson 9 and workshop I5 compare `--config X` with the default: the second run must not overwrite the
    first's stages."""
    from types import SimpleNamespace

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # nothing compiles: inspect_kernel is replaced
    result = SimpleNamespace(path="persistent", dtype="float16", accumulate=None, b_layout="kn", op="matmul",
                             batched=False, row_classes=1, epilogue=None, channels=compiler.CONV_CHANNELS,
                             out_channels=compiler.CONV_CHANNELS, groups=1, target="sm_90")
    saved = []
    monkeypatch.setattr(compiler, "inspect_kernel", lambda *args, **kwargs: result)
    monkeypatch.setattr(compiler, "save", lambda result, directory: saved.append(directory) or [])
    monkeypatch.setattr(inspect_cli, "print_census", lambda result: None)
    for config in ([], ["--config", "128x256x64-g8-w8-s3"], ["--config", "odd/name"]):
        assert inspect_cli.main(["--path", "persistent", *config]) == 0
    base = Path("results") / "local" / "inspect"
    assert saved == [base / "matmul-persistent-float16-sm_90",
                     base / "matmul-persistent-float16-config-128x256x64-g8-w8-s3-sm_90",
                     base / "matmul-persistent-float16-config-odd_name-sm_90"]
