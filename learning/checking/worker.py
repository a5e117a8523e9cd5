"""Runs one exercise's check in a child process and writes the result as JSON.

The parent (runner.py) starts this with a time limit, so a hanging exercise can be
killed without taking the checker down. Usage (internal):

    python -m learning.checking.worker NAME FILE SEED EVENTS_FILE RESULT_FILE [--verbose]
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path

from . import catalog
from .status import Status, most_urgent
from .trial import CheckFailure, Trial


def _relative(path: str | Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(catalog.REPO_ROOT))
    except ValueError:
        return str(path)


def _where_in_learner_code(error: BaseException, learner_file: Path) -> str:
    """'learning/exercises/matmul.py, line 42: c[i][j] = total' for the deepest learner frame."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if Path(f.filename).resolve() == learner_file.resolve()]
    if not frames:
        return ""
    frame = frames[-1]
    line = f": {frame.line.strip()}" if frame.line else ""
    return f" ({_relative(frame.filename)}, line {frame.lineno}{line})"


def _missing_module(error: BaseException) -> str | None:
    if isinstance(error, ModuleNotFoundError) and error.name:
        top = error.name.split(".")[0]
        if top in ("torch", "triton", "numpy"):
            return top
    return None


def prepare_triton() -> str | None:
    """Choose the GPU or Triton's interpreter. Returns why the check cannot run, or None."""
    for needed in ("torch", "triton"):
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed (Triton exercises need the project's environment)"
    import torch  # importing torch does not import triton, so the variable below still counts

    if os.environ.get("TRITON_INTERPRET") is None and not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"  # no GPU: run kernels on the CPU, in Python
    if os.environ.get("TRITON_INTERPRET") not in ("1", "true", "True") and not torch.cuda.is_available():
        return "no CUDA GPU, and TRITON_INTERPRET is set to something other than 1"
    return None


def _ran_on(exercise: catalog.Exercise) -> str:
    """Where the learner's code ran: plain Python, a GPU, or Triton's interpreter (the CPU)."""
    if exercise.kind != "triton":
        return "python"
    return "interpreter" if os.environ.get("TRITON_INTERPRET") in ("1", "true", "True") else "gpu"


def load_learner_module(exercise: catalog.Exercise, path: Path):
    return load_module(f"learner_{exercise.name}", path)


def load_module(name: str, path: Path):
    """The file at `path` imported as module `name`, registered in sys.modules."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # Triton reads kernel source through the module
    spec.loader.exec_module(module)
    return module


def _crash_message(error: BaseException, learner_file: Path, verbose: bool) -> str:
    """What went wrong and where: the deepest line of the learner's file the traceback passes through, or, for a
    kernel the GPU compiler refused (a CompilationError), the kernel's own line that it refused."""
    if type(error).__module__.startswith("triton.compiler"):
        from .gpu_compile import explain_compilation_error

        if hasattr(error, "error_message"):
            return f"the kernel does not compile for this GPU: {explain_compilation_error(error, learner_file)}"
    where = _where_in_learner_code(error, learner_file)
    if not where:
        where = " (raised outside your file; traceback below)"
        if verbose:
            traceback.print_exc()
    first_line = (str(error).strip().splitlines() or [""])[0][:300]
    return f"{type(error).__name__}: {first_line}{where}"


def run_parts(exercise, module, learner_file: Path, seed: int, verbose: bool, log_event) -> list[dict]:
    checks = importlib.import_module(exercise.check_module)
    results = []
    for index, part in enumerate(checks.PARTS):
        log_event({"part": part.name})
        if verbose:
            print(f"  part {part.name}", flush=True)
        missing = [name for name in part.needs if not hasattr(module, name)]
        if missing:
            results.append({"name": part.name, "status": Status.ERROR.value, "cases": 0,
                            "message": f"{_relative(learner_file)} has no `{missing[0]}` (was it renamed or deleted?)"})
            continue
        trial = Trial(seed + index, verbose, on_case=lambda case, p=part.name: log_event({"part": p, "case": case}))
        try:
            part.check(module, trial)
        except NotImplementedError as todo:
            message = part.todo or str(todo) or "still raises NotImplementedError"
            results.append({"name": part.name, "status": Status.TODO.value, "cases": trial.cases_run,
                            "message": message})
        except CheckFailure as failure:
            results.append({"name": part.name, "status": Status.FAIL.value, "cases": trial.cases_run,
                            "message": str(failure)})
        except Exception as error:  # the learner's code crashed
            case = f"[{trial.current_case}] " if trial.current_case else ""
            results.append({"name": part.name, "status": Status.ERROR.value, "cases": trial.cases_run,
                            "message": case + _crash_message(error, learner_file, verbose),
                            "traceback": traceback.format_exc(limit=-8)})
        else:
            results.append({"name": part.name, "status": Status.PASS.value, "cases": trial.cases_run,
                            "message": ""})
    return results


def main(argv: list[str]) -> int:
    name, file_arg, seed_arg, events_path, result_path = argv[:5]
    verbose = "--verbose" in argv[5:]
    exercise = catalog.BY_NAME[name]
    learner_file = Path(file_arg)
    seed = int(seed_arg)

    def log_event(event: dict) -> None:
        with open(events_path, "a") as events:
            events.write(json.dumps(event) + "\n")

    def finish(status: Status, message: str = "", parts=(), launches=()) -> int:
        Path(result_path).write_text(json.dumps({"status": status.value, "message": message, "parts": list(parts),
                                                 "ran_on": _ran_on(exercise), "launches": list(launches)}))
        return 0

    if exercise.kind == "triton":
        reason = prepare_triton()
        if reason:
            return finish(Status.UNAVAILABLE, reason)
    try:
        module = load_learner_module(exercise, learner_file)
    except NotImplementedError as todo:
        return finish(Status.TODO, str(todo) or "the file raises NotImplementedError when imported")
    except Exception as error:
        missing = _missing_module(error)
        if missing:
            return finish(Status.UNAVAILABLE, f"{missing} is not installed")
        where = _where_in_learner_code(error, learner_file)
        detail = str(error)
        if isinstance(error, SyntaxError):
            where, detail = f" ({_relative(learner_file)}, line {error.lineno})", error.msg
        return finish(Status.ERROR, f"importing {_relative(learner_file)} failed: "
                                    f"{type(error).__name__}: {detail}{where}")
    if _ran_on(exercise) == "interpreter":  # record the launches, for the runner to compile for a real GPU
        from .gpu_compile import recording

        with recording(learner_file) as launches:
            parts = run_parts(exercise, module, learner_file, seed, verbose, log_event)
    else:
        launches = []
        parts = run_parts(exercise, module, learner_file, seed, verbose, log_event)
    return finish(most_urgent(Status(p["status"]) for p in parts), "", parts, launches)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
