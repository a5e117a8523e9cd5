"""Shared helpers for the course's own tests: run the checker the way a learner does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
WRONG_ANSWERS = Path(__file__).resolve().parent / "wrong_answers"


def run_module(*args: str, fresh_python: bool = False, env: dict | None = None, timeout: float = 300):
    """Run `python -m ...` from the repository root.

    fresh_python=True adds -S: no site-packages, so only the standard library is importable,
    which is what a fresh machine with nothing but Python looks like.
    """
    command = [sys.executable, *(["-S"] if fresh_python else []), "-m", *args]
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run(command, cwd=REPO_ROOT, env=full_env, capture_output=True, text=True,
                          timeout=timeout)
