"""The learner's progress file: the last result of each exercise, kept between runs.

It lives at learning/.progress.json (git ignores it: it belongs to the learner).
TILELAB_PROGRESS_FILE points somewhere else, which the checker's own tests use.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .catalog import LEARNING_DIR


def progress_path() -> Path:
    override = os.environ.get("TILELAB_PROGRESS_FILE")
    return Path(override) if override else LEARNING_DIR / ".progress.json"


def load() -> dict:
    path = progress_path()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(name: str, status: str, seed: int) -> None:
    """Remember the latest status and when the exercise first passed."""
    data = load()
    entry = data.get(name, {})
    now = time.strftime("%Y-%m-%d %H:%M")
    entry.update({"status": status, "last_run": now, "seed": seed})
    entry["attempts"] = int(entry.get("attempts", 0)) + 1
    if status == "PASS" and "first_pass" not in entry:
        entry["first_pass"] = now
    data[name] = entry
    path = progress_path()
    try:
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    except OSError:
        pass  # a read-only checkout still gets its results printed
