"""The checker compiles the learner's kernels for sm_90, as Triton's interpreter launched them (no GPU needed):
the interpreter runs a kernel as Python and accepts code the GPU compiler refuses."""

import ast
import importlib.util
import json
import sys

import pytest
import torch
import triton

from learning.checking import catalog, runner, worker
from learning.checking.gpu_compile import (
    PART_NAME,
    SHARED_MEMORY_PER_PROGRAM,
    SPECIALIZATIONS_PER_KERNEL,
    explain_compilation_error,
    recording,
)
from learning.checking.runner import Result, compile_for_gpu, with_the_compile
from learning.checking.status import Status

needs_the_interpreter = pytest.mark.skipif(torch.cuda.is_available(),
                                           reason="records launches on the interpreter; a GPU compiles them itself")

KERNELS = '''\
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


@triton.jit
def breaking_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    total = 0.0
    start = 0
    while True:
        if start >= n:
            break
        offsets = start + tl.arange(0, BLOCK)
        total += tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0))
        start += BLOCK
    tl.store(y_ptr, total)


@triton.jit
def wide_dot_kernel(a_ptr, c_ptr, K, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
        b = tl.load(a_ptr + ks[:, None] * K + rows[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc)
'''


@pytest.fixture
def kernels(tmp_path):
    """The kernels above as a learner's file, loaded as the worker loads one (under the interpreter here)."""
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("learner_compile_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield path, module
    del sys.modules[spec.name]


def _launches(path, launch) -> list[str]:
    with recording(path) as launches:
        launch()
    return launches


@needs_the_interpreter
def test_recording_keeps_one_launch_per_specialization_and_a_few_per_kernel(kernels, rng):
    path, module = kernels
    x = torch.randn(300, generator=rng)
    y = torch.full_like(x, float("nan"))

    def launch():
        for block in (16, 16, 32, 64, 128):  # 16 twice: the same specialization
            for n in (300, 17):  # divisibility differs, the compile would not
                module.scale_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)

    launches = [json.loads(s) for s in _launches(path, launch)]
    assert len(launches) == SPECIALIZATIONS_PER_KERNEL
    assert [launch["constant_vals"] for launch in launches] == [[16], [32], [64]]
    assert launches[0]["signature"] == {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    torch.testing.assert_close(y, 2 * x)  # the interpreter still ran every launch


@needs_the_interpreter
def test_recording_leaves_out_kernels_from_other_files(kernels, rng):
    path, _ = kernels
    other = catalog.BY_NAME["triton_add"].solution_file
    spec = importlib.util.spec_from_file_location("learner_other_file", other)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.randn(40, generator=rng)
    out = torch.full_like(x, float("nan"))
    launches = _launches(path, lambda: module.launch_add(x, x, out))
    assert launches == []
    torch.testing.assert_close(out, 2 * x)


@needs_the_interpreter
def test_launches_that_compile_make_a_passing_part(kernels, rng):
    path, module = kernels
    x = torch.randn(100, generator=rng)
    launches = _launches(path, lambda: module.scale_kernel[(4,)](x, torch.empty_like(x), 100, BLOCK=32))
    part = compile_for_gpu(path, launches, timeout=120)
    assert part["name"] == PART_NAME and part["status"] == Status.PASS.value, part
    assert part["message"].startswith("1 launch of scale_kernel compiled to Hopper machine code"), part


@needs_the_interpreter
def test_a_break_runs_on_the_interpreter_and_the_compile_names_its_line(kernels, rng):
    path, module = kernels
    x = torch.randn(100, generator=rng)
    y = torch.full((1,), float("nan"))
    launches = _launches(path, lambda: module.breaking_kernel[(1,)](x, y, 100, BLOCK=32))
    torch.testing.assert_close(y[0], x.sum())  # right on the interpreter
    part = compile_for_gpu(path, launches, timeout=120)
    assert part["status"] == Status.ERROR.value
    line = KERNELS.splitlines().index("            break") + 1
    assert part["message"] == ("breaking_kernel does not compile for sm_90: UnsupportedLanguageConstruct: "
                               f"unsupported AST node type: Break ({path}, line {line}: break)")


@needs_the_interpreter
def test_a_kernel_that_needs_more_shared_memory_than_a_program_may_have(kernels, rng):
    path, module = kernels
    a = torch.randn(256, 256, generator=rng).half()
    c = torch.empty(256, 256)
    # 256x256 tiles of A and B, 128 deep, in 4 stages: 512 KiB. The interpreter ignores stages and shared memory.
    launches = _launches(path, lambda: module.wide_dot_kernel[(1,)](a, c, 256, BLOCK=256, BLOCK_K=128,
                                                                    num_stages=4, num_warps=8))
    part = compile_for_gpu(path, launches, timeout=120)
    assert part["status"] == Status.ERROR.value
    assert "it needs 524288 bytes of shared memory (num_warps=8, num_stages=4)" in part["message"]
    assert f"at most {SHARED_MEMORY_PER_PROGRAM}" in part["message"]


@needs_the_interpreter
def test_a_machine_that_cannot_compile_at_all_says_so_and_leaves_the_verdict(kernels, rng, monkeypatch, tmp_path):
    path, module = kernels
    x = torch.randn(100, generator=rng)
    launches = _launches(path, lambda: module.scale_kernel[(4,)](x, torch.empty_like(x), 100, BLOCK=32))
    # A ptxas that gives its version and then refuses everything, the probe's kernel too.
    ptxas = tmp_path / "ptxas"
    ptxas.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "Cuda compilation tools, release 12.8" && exit 0\n'
                     'echo "this ptxas compiles nothing" >&2; exit 1\n')
    ptxas.chmod(0o755)
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(ptxas))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # no cached machine code to fall back on
    part = compile_for_gpu(path, launches, timeout=120)
    assert part["status"] == Status.UNAVAILABLE.value
    assert part["message"].startswith("this machine cannot compile for a GPU (PTXASError")
    passed = Result(catalog.BY_NAME["triton_add"], Status.PASS, 7, path, parts=[
        {"name": "add", "status": Status.PASS.value, "cases": 3, "message": ""}])
    merged = with_the_compile(passed, part)
    assert merged.status == Status.PASS and merged.parts[-1] == part


def test_a_compile_error_becomes_the_part_s_status():
    passed = Result(catalog.BY_NAME["triton_add"], Status.PASS, 7, catalog.BY_NAME["triton_add"].solution_file,
                    parts=[{"name": "add", "status": Status.PASS.value, "cases": 3, "message": ""}])
    refused = {"name": PART_NAME, "status": Status.ERROR.value, "cases": 1, "message": "no"}
    assert with_the_compile(passed, refused).status == Status.ERROR


def _compilation_error(source: str, node_type, message: str | None):
    from triton.compiler.errors import CompilationError, UnsupportedLanguageConstruct

    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, node_type))
    kind = UnsupportedLanguageConstruct if node_type is ast.Break else CompilationError
    return kind(source, node, message)


def test_explain_compilation_error_counts_lines_from_the_kernel_s_def(tmp_path):
    learner = tmp_path / "learner.py"
    learner.write_text(KERNELS)
    source = KERNELS[KERNELS.index("def breaking_kernel"):KERNELS.index("@triton.jit\ndef wide_dot_kernel")]
    text = explain_compilation_error(_compilation_error(source, ast.Break, "unsupported AST node type: Break"),
                                     learner)
    line = KERNELS.splitlines().index("            break") + 1
    assert text == f"UnsupportedLanguageConstruct: unsupported AST node type: Break ({learner}, line {line}: break)"


def test_explain_compilation_error_unwraps_a_python_error_and_goes_without_a_line_it_cannot_find(tmp_path):
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("x = 1\n")
    error = _compilation_error("def k(x):\n    return y\n", ast.Return, "NameError('y is not defined')")
    assert explain_compilation_error(error, elsewhere) == "NameError: y is not defined"


def test_on_a_gpu_the_worker_reports_a_compile_error_at_the_kernel_s_line(tmp_path):
    learner = tmp_path / "learner.py"
    learner.write_text(KERNELS)
    source = KERNELS[KERNELS.index("def breaking_kernel"):KERNELS.index("@triton.jit\ndef wide_dot_kernel")]
    error = _compilation_error(source, ast.Break, "unsupported AST node type: Break")
    message = worker._crash_message(error, learner, verbose=False)
    line = KERNELS.splitlines().index("            break") + 1
    assert message == ("the kernel does not compile for this GPU: UnsupportedLanguageConstruct: unsupported AST "
                       f"node type: Break ({learner}, line {line}: break)")


def test_check_file_compiles_only_after_an_interpreter_run_with_launches(monkeypatch):
    exercise = catalog.BY_NAME["triton_add"]
    compiled = []
    monkeypatch.setattr(runner, "triton_missing", lambda: None)
    monkeypatch.setattr(runner, "compile_for_gpu", lambda path, launches, timeout: compiled.append(launches) or
                        {"name": PART_NAME, "status": Status.PASS.value, "cases": 1, "message": ""})
    for ran_on, launches, expected in [("interpreter", ["{}"], [["{}"]]), ("interpreter", [], []), ("gpu", ["{}"], [])]:
        compiled.clear()
        first = Result(exercise, Status.PASS, 7, exercise.solution_file, launches=launches)
        monkeypatch.setattr(runner, "_run_worker", lambda *a, _r=(first, ran_on), **k: _r)
        result = runner.check_file(exercise, exercise.solution_file, seed=7)
        assert compiled == expected, ran_on
        assert [p["name"] for p in result.parts] == ([PART_NAME] if expected else [])
