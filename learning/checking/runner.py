"""Run one exercise's check in a child process with a time limit and collect the result."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import REPO_ROOT, Exercise
from .status import Status


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
    started = time.monotonic()
    if exercise.kind == "triton":
        reason = triton_missing()
        if reason:
            return Result(exercise, Status.UNAVAILABLE, seed, path, reason)
    if not path.exists():
        return Result(exercise, Status.ERROR, seed, path, f"{path} does not exist")

    with tempfile.TemporaryDirectory(prefix="tilelab-check-") as scratch:
        events_file, result_file = Path(scratch) / "events.jsonl", Path(scratch) / "result.json"
        command = [sys.executable, *_interpreter_flags(), "-m", "learning.checking.worker",
                   exercise.name, str(path.resolve()), str(seed), str(events_file), str(result_file)]
        if verbose:
            command.append("--verbose")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        try:
            finished = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True,
                                      timeout=timeout, stdin=subprocess.DEVNULL)
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
                          seconds=time.monotonic() - started)
        output = _text(finished.stdout) + _text(finished.stderr)
        seconds = time.monotonic() - started
        if not result_file.exists():
            message = f"the check process stopped without a result (exit status {finished.returncode})"
            return Result(exercise, Status.ERROR, seed, path, message, output=output, seconds=seconds)
        data = json.loads(result_file.read_text())
    return Result(exercise, Status(data["status"]), seed, path, data.get("message", ""),
                  data.get("parts", []), output, seconds)
