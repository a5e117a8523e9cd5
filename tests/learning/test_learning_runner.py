"""runner.check_file on a GPU: the checks that watch programs one at a time run once more on the interpreter.

No GPU is needed: the child processes are replaced by recorded results, as a GPU and the interpreter would give them.
"""

import pytest

from learning.checking import catalog, runner
from learning.checking.runner import GPU_ONLY, WATCHED, Result, with_the_watch
from learning.checking.status import Status

PERSISTENT = catalog.BY_NAME["triton_persistent"]


def _result(status: Status, parts: list[tuple[str, Status, str]], message: str = "", output: str = "") -> Result:
    return Result(PERSISTENT, status, 7, PERSISTENT.solution_file, message,
                  [{"name": n, "status": s.value, "cases": 3, "message": m} for n, s, m in parts], output, 1.5)


GPU_PASS = _result(Status.PASS, [("tiles_of_program", Status.PASS, ""), ("launch_persistent", Status.PASS, "")],
                   output="gpu printed\n")
WATCH_FAIL = _result(Status.FAIL, [("tiles_of_program", Status.PASS, ""),
                                   ("launch_persistent", Status.FAIL, "program 0 wrote tiles 0, 1, 2")],
                     output="interpreter printed\n")


def test_a_watch_that_fails_turns_a_gpu_pass_into_that_failure():
    merged = with_the_watch(GPU_PASS, WATCH_FAIL)
    assert merged.status == Status.FAIL
    assert [p["status"] for p in merged.parts] == ["PASS", "FAIL"]
    assert merged.parts[1]["message"] == WATCHED + "program 0 wrote tiles 0, 1, 2"
    assert merged.output == "gpu printed\ninterpreter printed\n"
    assert merged.seconds == 3.0


def test_the_watch_s_failure_replaces_the_gpu_s_own_for_the_same_part():
    gpu = _result(Status.FAIL, [("tiles_of_program", Status.PASS, ""), ("launch_persistent", Status.FAIL, "C[0,0]")])
    merged = with_the_watch(gpu, WATCH_FAIL)
    assert merged.parts[1]["message"].startswith(WATCHED)


def test_a_gpu_failure_the_watch_does_not_see_stays():
    gpu = _result(Status.FAIL, [("tiles_of_program", Status.FAIL, "a race"), ("launch_persistent", Status.PASS, "")])
    watched = _result(Status.PASS, [("tiles_of_program", Status.PASS, ""), ("launch_persistent", Status.PASS, "")])
    merged = with_the_watch(gpu, watched)
    assert merged.status == Status.FAIL and merged.parts == gpu.parts


def test_an_interpreter_that_cannot_run_leaves_the_gpu_s_verdict_and_says_so():
    broken = _result(Status.ERROR, [("tiles_of_program", Status.ERROR,
                                     "ValueError: only 0-dimensional arrays can be converted to Python scalars")])
    merged = with_the_watch(GPU_PASS, broken)
    assert merged.status == Status.PASS and merged.parts == GPU_PASS.parts
    assert GPU_ONLY in merged.message and "numpy < 2.4" in merged.message and "0-dimensional" in merged.message


def _fake_workers(monkeypatch, answers):
    calls = []

    def run(exercise, path, seed, timeout, verbose, extra_env=None):
        calls.append(extra_env or {})
        return answers[len(calls) - 1]

    monkeypatch.setattr(runner, "triton_missing", lambda: None)
    monkeypatch.setattr(runner, "_run_worker", run)
    return calls


def test_check_file_on_a_gpu_runs_the_watching_checks_again_on_the_interpreter(monkeypatch):
    calls = _fake_workers(monkeypatch, [(GPU_PASS, "gpu"), (WATCH_FAIL, "interpreter")])
    result = runner.check_file(PERSISTENT, PERSISTENT.solution_file, seed=7)
    assert calls == [{}, {"TRITON_INTERPRET": "1"}]
    assert result.status == Status.FAIL


@pytest.mark.parametrize(("exercise", "ran_on", "status"), [
    ("triton_persistent", "interpreter", Status.PASS),  # already watched
    ("triton_persistent", "gpu", Status.ERROR),  # a crash on the GPU is reported as it is
    ("triton_persistent", "gpu", Status.TODO),
    ("triton_matmul", "gpu", Status.PASS),  # no watch in its check
])
def test_check_file_runs_once_where_a_second_run_adds_nothing(monkeypatch, exercise, ran_on, status):
    first = _result(status, [("launch_persistent", status, "")])
    calls = _fake_workers(monkeypatch, [(first, ran_on)])
    result = runner.check_file(catalog.BY_NAME[exercise], PERSISTENT.solution_file, seed=7)
    assert calls == [{}] and result is first


def test_only_the_checks_that_watch_programs_say_so():
    assert {e.name for e in catalog.EXERCISES if e.watches_programs} == {"triton_split_k", "triton_persistent"}


def test_the_worker_says_where_the_learner_s_code_ran():
    offsets = catalog.BY_NAME["offsets"]
    result, ran_on = runner._run_worker(offsets, offsets.solution_file, 7, 60, False)
    assert (result.status, ran_on) == (Status.PASS, "python")
    add = catalog.BY_NAME["triton_add"]
    result, ran_on = runner._run_worker(add, add.solution_file, 7, 120, False, {"TRITON_INTERPRET": "1"})
    assert ran_on == "interpreter"
