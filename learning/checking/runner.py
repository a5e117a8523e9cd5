"""Run one exercise's check in a child process with a time limit and collect the result."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from .catalog import REPO_ROOT, Exercise
from .status import Status, most_urgent


@dataclass
class Result:
    exercise: Exercise
    status: Status
    seed: int
    file: Path
    message: str = ""
    parts: list[dict] = field(default_factory=list)
    output: str = ""  # what the learner's code (and --verbose) printed
    seconds: float = 0.0
    launches: list[str] = field(default_factory=list)  # the learner's kernels as launched on the interpreter


def triton_missing() -> str | None:
    """Why Triton exercises cannot run here, found without importing anything heavy."""
    for needed in ("torch", "triton"):
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed (Triton exercises need the project's environment)"
    return None


def _interpreter_flags() -> list[str]:
    """Give the child the same isolation as this process (for example -S, no site-packages)."""
    flags = []
    if sys.flags.no_site:
        flags.append("-S")
    if sys.flags.ignore_environment:
        flags.append("-E")
    if sys.flags.no_user_site:
        flags.append("-s")
    return flags


def _run_child(module: str, arguments: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    """`python -m module arguments` from the repository root, with this interpreter's isolation flags and the
    repository on PYTHONPATH; raises subprocess.TimeoutExpired past `timeout`."""
    env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, *_interpreter_flags(), "-m", module, *arguments], cwd=REPO_ROOT, env=env,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _last_event(events_file: Path) -> dict:
    try:
        lines = events_file.read_text().splitlines()
        return json.loads(lines[-1]) if lines else {}
    except (OSError, ValueError):
        return {}


def _text(data) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def check_file(exercise: Exercise, path: Path, seed: int, timeout: float | None = None,
               verbose: bool = False) -> Result:
    timeout = timeout or exercise.default_timeout
    path = Path(path)
    if exercise.kind == "triton":
        reason = triton_missing()
        if reason:
            return Result(exercise, Status.UNAVAILABLE, seed, path, reason)
    if not path.exists():
        return Result(exercise, Status.ERROR, seed, path, f"{path} does not exist")
    result, ran_on = _run_worker(exercise, path, seed, timeout, verbose)
    if ran_on == "interpreter" and result.launches:
        started = time.monotonic()
        part = compile_for_gpu(path, result.launches, timeout)
        result = with_the_compile(result, part, time.monotonic() - started)
    if exercise.watches_programs and ran_on == "gpu" and result.status in (Status.PASS, Status.FAIL):
        watched, _ = _run_worker(exercise, path, seed, timeout, verbose, {"TRITON_INTERPRET": "1"})
        result = with_the_watch(result, watched)
    return result


WATCHED = "on Triton's interpreter, which runs one program at a time: "
GPU_ONLY = "checked on the GPU only"


def with_the_watch(gpu: Result, watched: Result) -> Result:
    """The GPU's result, with every part that failed when Triton's interpreter watched the programs one at a time
    (`watched`) reported as that failure: a GPU runs the programs together, so a program that writes another's tile,
    or a tile written before its last slice arrived, can come out right there by luck of timing."""
    output = gpu.output + watched.output
    seconds = gpu.seconds + watched.seconds
    if watched.status == Status.PASS:
        return replace(gpu, output=output, seconds=seconds)
    if watched.status != Status.FAIL:  # the interpreter could not run the learner's code here
        problems = [p["message"] for p in watched.parts if p["status"] != Status.PASS.value and p["message"]]
        why = (problems or [watched.message or watched.status.value])[0]
        if "0-dimensional arrays" in why:  # numpy 2.4 and later break Triton 3.6's interpreter
            why += "; Triton's interpreter needs numpy < 2.4"
        note = (f"{GPU_ONLY}: the watch of each program needs Triton's interpreter, which stopped "
                f"with {watched.status.value} ({why})")
        return replace(gpu, message="; ".join(filter(None, [gpu.message, note])), output=output, seconds=seconds)
    failed = {p["name"]: p for p in watched.parts if p["status"] == Status.FAIL.value}
    parts = [dict(failed[p["name"]], message=WATCHED + failed[p["name"]]["message"]) if p["name"] in failed else p
             for p in gpu.parts]
    return replace(gpu, status=most_urgent(Status(p["status"]) for p in parts), parts=parts, output=output,
                   seconds=seconds)


def with_the_compile(result: Result, part: dict, seconds: float = 0.0) -> Result:
    """The interpreter's result with one more part: whether its launches compile for a GPU. Where this machine
    cannot compile at all, the part is shown and the status stays the interpreter's."""
    parts = [*result.parts, part]
    status = result.status
    if part["status"] != Status.UNAVAILABLE.value:
        status = most_urgent(Status(p["status"]) for p in parts)
    return replace(result, parts=parts, status=status, seconds=result.seconds + seconds)


def compile_for_gpu(path: Path, launches: list[str], timeout: float) -> dict:
    """Compile the kernels as the interpreter launched them, for sm_90, in a child process started without
    TRITON_INTERPRET (learning/checking/gpu_compile.py); the result is one part of the check."""
    from .gpu_compile import PART_NAME, as_part

    with tempfile.TemporaryDirectory(prefix="tilelab-compile-") as scratch:
        launches_file, result_file = Path(scratch) / "launches.json", Path(scratch) / "compiled.json"
        launches_file.write_text(json.dumps(launches))
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        try:
            finished = _run_child("learning.checking.gpu_compile",
                                  [str(path.resolve()), str(launches_file), str(result_file)], env, timeout)
        except subprocess.TimeoutExpired:
            return {"name": PART_NAME, "status": Status.ERROR.value, "cases": 0,
                    "message": f"compiling the kernels took longer than {timeout:g} s"}
        if not result_file.exists():
            last = (_text(finished.stderr).strip().splitlines() or ["no output"])[-1][:300]
            return {"name": PART_NAME, "status": Status.ERROR.value, "cases": 0,
                    "message": f"the compile process stopped without a result (exit status "
                               f"{finished.returncode}: {last})"}
        answer = json.loads(result_file.read_text())
    if "unavailable" in answer:
        return {"name": PART_NAME, "status": Status.UNAVAILABLE.value, "cases": 0,
                "message": f"this machine cannot compile for a GPU ({answer['unavailable']})"}
    return as_part(answer["compiled"])


def _run_worker(exercise: Exercise, path: Path, seed: int, timeout: float, verbose: bool,
                extra_env: dict | None = None) -> tuple[Result, str]:
    """One run of the check in a child process: its result, and where the learner's code ran ("python", "gpu",
    "interpreter"; "" when the child left no result)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tilelab-check-") as scratch:
        events_file, result_file = Path(scratch) / "events.jsonl", Path(scratch) / "result.json"
        arguments = [exercise.name, str(path.resolve()), str(seed), str(events_file), str(result_file)]
        env = dict(os.environ, PYTHONUNBUFFERED="1", **(extra_env or {}))
        try:
            finished = _run_child("learning.checking.worker", arguments + (["--verbose"] if verbose else []), env,
                                  timeout)
        except subprocess.TimeoutExpired as expired:
            event = _last_event(events_file)
            where = ""
            if event.get("part"):
                where = f" in {event['part']}"
                if event.get("case"):
                    where += f", case '{event['case']}'"
            message = (f"no answer within the {timeout:g} s time limit{where}: "
                       "look for a loop that never ends (a counter that never advances)")
            output = _text(expired.stdout) + _text(expired.stderr)
            return Result(exercise, Status.ERROR, seed, path, message, output=output,
                          seconds=time.monotonic() - started), ""
        output = _text(finished.stdout) + _text(finished.stderr)
        seconds = time.monotonic() - started
        if not result_file.exists():
            message = f"the check process stopped without a result (exit status {finished.returncode})"
            return Result(exercise, Status.ERROR, seed, path, message, output=output, seconds=seconds), ""
        data = json.loads(result_file.read_text())
    result = Result(exercise, Status(data["status"]), seed, path, data.get("message", ""), data.get("parts", []),
                    output, seconds, data.get("launches", []))
    return result, data.get("ran_on", "")
