"""Check your exercises: python -m learning.check --help

    python -m learning.check --list              the exercises, in order, with your status
    python -m learning.check matmul              check learning/exercises/matmul.py
    python -m learning.check matmul --hint       hints, gentlest first
    python -m learning.check all                 every exercise
    python -m learning.check all --solution      the reference answers (proves the checker works here)
    python -m learning.check --progress          what you have passed so far

Every run uses fresh random inputs; --verbose prints the seed and --seed repeats a run.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from learning.checking import catalog, progress
from learning.checking.hints import HINTS
from learning.checking.runner import Result, check_file, triton_missing
from learning.checking.status import EXIT_CODE_HELP, USAGE_EXIT_CODE, Status, most_urgent

OUTPUT_LINES_SHOWN = 20


def _color(text: str, status: Status) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    code = {Status.PASS: "32", Status.FAIL: "31", Status.ERROR: "31", Status.TODO: "33"}.get(status, "36")
    return f"\033[{code}m{text}\033[0m"


def _relative(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(catalog.REPO_ROOT))
    except ValueError:
        return str(path)


def _lesson_label(exercise: catalog.Exercise) -> str:
    return f"workshop {exercise.lesson}" if exercise.lesson.startswith("I") else f"lesson {exercise.lesson}"


def print_result(result: Result, verbose: bool, offer_hint: bool = True) -> None:
    exercise = result.exercise
    number = catalog.number_of(exercise)
    heading = f"[{number}] {exercise.name} ({_lesson_label(exercise)})"
    print(f"{heading} {'.' * max(2, 40 - len(heading))} {_color(result.status.value, result.status)}"
          f"   {_relative(result.file)}")
    if result.message:
        print(f"    {result.message}")
    width = max((len(p["name"]) for p in result.parts), default=0)
    for part in result.parts:
        status = Status(part["status"])
        detail = part["message"] or f"{part['cases']} cases"
        print(f"    {_color(status.value.ljust(5), status)} {part['name'].ljust(width)}  {detail}")
        if verbose and part.get("traceback"):
            print("      " + part["traceback"].replace("\n", "\n      "))
    output = result.output.strip("\n")
    if output and (verbose or result.status not in (Status.PASS, Status.UNAVAILABLE)):
        lines = output.splitlines()
        shown = lines if verbose else lines[:OUTPUT_LINES_SHOWN]
        print("    printed while checking:" if verbose else "    your code printed:")
        for line in shown:
            print(f"      | {line}")
        if len(shown) < len(lines):
            print(f"      | ... {len(lines) - len(shown)} more lines (see them all with --verbose)")
    if verbose:
        print(f"    seed {result.seed}, {result.seconds:.1f} s")
    if result.status in (Status.FAIL, Status.ERROR):
        print(f"    repeat this run: python -m learning.check {exercise.name} --seed {result.seed}")
    wants_hint = result.status in (Status.FAIL, Status.ERROR) or (result.status == Status.TODO and offer_hint)
    if wants_hint and offer_hint is not None:
        print(f"    stuck? python -m learning.check {exercise.name} --hint")


NAME_WIDTH = max(16, *(len(exercise.name) for exercise in catalog.EXERCISES))


def print_list() -> None:
    remembered = progress.load()
    missing = triton_missing()
    print(f" #  {'exercise':<{NAME_WIDTH}} where        kind    status       what it practises")
    for number, exercise in enumerate(catalog.EXERCISES, start=1):
        status = remembered.get(exercise.name, {}).get("status", "-")
        if exercise.kind == "triton" and missing:
            status = "UNAVAILABLE"
        where = _lesson_label(exercise)
        print(f"{number:>2}  {exercise.name:<{NAME_WIDTH}} {where:<12} {exercise.kind:<7} {status:<12} "
              f"{exercise.title}")
    print("\nCheck one with: python -m learning.check NAME   (status is your last result; - means not yet run)")
    if missing:
        print(f"Triton exercises are UNAVAILABLE here: {missing}")


def print_progress() -> None:
    remembered = progress.load()
    print(f"progress file: {_relative(progress.progress_path())}\n")
    print(f" #  {'exercise':<{NAME_WIDTH}} status       attempts  first passed      last run")
    passed = 0
    next_up = None
    for number, exercise in enumerate(catalog.EXERCISES, start=1):
        entry = remembered.get(exercise.name, {})
        status = entry.get("status", "-")
        passed += status == "PASS"
        if status != "PASS" and next_up is None:
            next_up = exercise
        print(f"{number:>2}  {exercise.name:<{NAME_WIDTH}} {status:<12} {entry.get('attempts', 0):>8}  "
              f"{entry.get('first_pass', '-'):<16}  {entry.get('last_run', '-')}")
    print(f"\n{passed} of {len(catalog.EXERCISES)} passed.", end=" ")
    if next_up:
        print(f"Next: python -m learning.check {next_up.name}  ({_lesson_label(next_up)})")
    else:
        print("All done — try the workshops.")


def print_hints(exercise: catalog.Exercise) -> None:
    print(f"Hints for {exercise.name} ({_lesson_label(exercise)}), gentlest first. "
          "Read one, then try again:\n")
    for number, hint in enumerate(HINTS.get(exercise.name, []), start=1):
        print(f"  {number}. {hint}")
    print(f"\nStill stuck? Compare with {_relative(exercise.solution_file)} — after trying.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m learning.check",
        description="Check the course exercises in learning/exercises/ (or the reference solutions).",
        epilog=EXIT_CODE_HELP + "\nstatuses: PASS, FAIL (wrong answer), TODO (NotImplementedError), "
               "ERROR (crash, time-out, missing function), UNAVAILABLE (no torch/triton)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="exercise name or number (see --list), or 'all'")
    parser.add_argument("--list", action="store_true", help="the numbered exercises with your status")
    parser.add_argument("--progress", action="store_true", help="a table of what you have passed so far")
    parser.add_argument("--hint", action="store_true", help="print the hints for NAME")
    parser.add_argument("--solution", action="store_true",
                        help="check the reference answers in learning/solutions/ instead of your exercises")
    parser.add_argument("--file", type=Path, help="check this file as exercise NAME (one NAME only)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print the seed, every case, all printed output and tracebacks")
    parser.add_argument("--seed", type=int, help="repeat a run with the seed it printed")
    parser.add_argument("--timeout", type=float,
                        help="seconds allowed per exercise (default 10, Triton exercises 120)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list:
        print_list()
        return 0
    if args.progress and not args.names:
        print_progress()
        return 0
    if not args.names:
        parser.print_help()
        return USAGE_EXIT_CODE

    if args.names == ["all"]:
        exercises = list(catalog.EXERCISES)
    else:
        exercises = []
        for name in args.names:
            exercise = catalog.find(name)
            if exercise is None:
                print(f"no exercise called {name!r}; see python -m learning.check --list", file=sys.stderr)
                return USAGE_EXIT_CODE
            exercises.append(exercise)
    if args.hint:
        for exercise in exercises:
            print_hints(exercise)
        return 0
    if args.file and len(exercises) != 1:
        print("--file needs exactly one exercise NAME", file=sys.stderr)
        return USAGE_EXIT_CODE

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    if args.solution:
        print("Checking the reference solutions in learning/solutions/ (not your exercises).")
    if args.verbose:
        print(f"seed {seed}")
    statuses = []
    for exercise in exercises:
        path = args.file or (exercise.solution_file if args.solution else exercise.exercise_file)
        result = check_file(exercise, path, seed, args.timeout, args.verbose)
        # Hints are for the learner's own code; with `all`, only where something went wrong.
        offer_hint = None if args.solution else len(exercises) == 1
        print_result(result, args.verbose, offer_hint)
        statuses.append(result.status)
        if not args.solution and not args.file:
            progress.record(exercise.name, result.status.value, seed)
    overall = most_urgent(statuses)
    if len(exercises) > 1:
        counts = {status: statuses.count(status) for status in Status if statuses.count(status)}
        summary = ", ".join(f"{count} {status.value}" for status, count in counts.items())
        print(f"\n{len(exercises)} exercises: {summary}")
    if args.progress:
        print()
        print_progress()
    return overall.exit_code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        sys.exit(0)
