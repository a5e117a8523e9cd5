"""The commands the Markdown tells people to type: every line of a fenced code block in README.md, docs/ and
learning/ that starts with one of the project's tools (kernel-bench, kernel-inspect, kernel-doctor, or their
`python -m` modules, learning.check and learning.explain). Lines continued with a backslash are joined, and a
trailing `# comment` is dropped.

tests/instruments/test_documented_commands.py checks that each one parses; scripts/device-calls runs them on the
H200 (`python -m tests.documented_commands` prints them, one per line, as `python -m` commands).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"kernel-bench": "tilelab.bench", "kernel-inspect": "tilelab.inspect", "kernel-doctor": "tilelab.doctor"}
MODULES = (*TOOLS.values(), "learning.check", "learning.explain")


@dataclass(frozen=True)
class Command:
    file: Path
    line: int
    module: str  # the tool as a module: tilelab.bench, learning.check, ...
    args: tuple[str, ...]  # what follows the tool's name

    def where(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"

    def as_python(self) -> str:
        return shlex.join(["python", "-m", self.module, *self.args])


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "learning").rglob("*.md"))]


def _as_command(file: Path, line: int, text: str) -> Command | None:
    try:
        words = shlex.split(text.strip().removeprefix("$ "), comments=True)
    except ValueError:  # not shell (an unbalanced quote in prose or Python)
        return None
    if words and words[0] in TOOLS:
        return Command(file, line, TOOLS[words[0]], tuple(words[1:]))
    if len(words) > 2 and words[:2] == ["python", "-m"] and words[2] in MODULES:
        return Command(file, line, words[2], tuple(words[3:]))
    return None


def documented_commands() -> list[Command]:
    found = []
    for file in markdown_files():
        lines = file.read_text().splitlines()
        inside, i = False, 0
        while i < len(lines):
            if lines[i].lstrip().startswith("```"):
                inside = not inside
            elif inside:
                start, text = i, lines[i]
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1] + " " + lines[i].strip()
                command = _as_command(file, start + 1, text)
                if command:
                    found.append(command)
            i += 1
    return found


if __name__ == "__main__":
    modules = sys.argv[1:] or MODULES
    for command in documented_commands():
        if command.module in modules:
            print(f"{command.where()}\t{command.as_python()}")
