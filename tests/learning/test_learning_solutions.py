"""Every reference solution passes its own check, on this machine's Triton setup."""

import pytest
import torch

from learning.checking import catalog
from learning.checking.gpu_compile import PART_NAME
from learning.checking.runner import check_file
from learning.checking.status import Status


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.name)
def test_solution_passes(exercise):
    result = check_file(exercise, exercise.solution_file, seed=20240601)
    details = "\n".join(f"{p['status']} {p['name']}: {p['message']}" for p in result.parts)
    assert result.status == Status.PASS, f"{result.message}\n{details}\n{result.output}"
    assert all(p["cases"] > 0 for p in result.parts), "every part should run at least one case"
    if exercise.kind == "triton" and not torch.cuda.is_available():  # the interpreter ran it: compiled for sm_90 too
        assert result.parts[-1]["name"] == PART_NAME, [p["name"] for p in result.parts]


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.name)
def test_starter_is_todo(exercise):
    result = check_file(exercise, exercise.exercise_file, seed=7)
    assert result.status == Status.TODO, f"{result.message} {result.parts}"
    todo = [p["message"] for p in result.parts if p["status"] == Status.TODO.value]
    assert len(set(todo)) == len(todo), f"two parts print the same TODO text: {todo}"


def test_exercise_and_solution_files_match_the_catalog():
    for exercise in catalog.EXERCISES:
        assert exercise.exercise_file.exists(), exercise.exercise_file
        assert exercise.solution_file.exists(), exercise.solution_file
        starter = exercise.exercise_file.read_text()
        for function in exercise.functions:
            assert f"def {function}(" in starter, (exercise.name, function)
