"""A walkthrough is narration plus questions: predict each answer before reading it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Line:
    text: str
    answer: str | None = None  # None: narration; otherwise the learner predicts this first


class Script:
    def __init__(self, title: str):
        self.title = title
        self.lines: list[Line] = []

    def say(self, text: str = "") -> None:
        self.lines.append(Line(text))

    def ask(self, question: str, answer) -> None:
        self.lines.append(Line(question, str(answer)))

    def render(self, quiz: bool = False, read=input, write=print) -> None:
        """Print everything; with quiz=True wait for Enter before each answer."""
        write(self.title)
        write("=" * len(self.title))
        write("Predict every '?' before you read the answer after the arrow.\n")
        width = max((len(line.text) for line in self.lines if line.answer is not None), default=0)
        for line in self.lines:
            if line.answer is None:
                write(line.text)
            elif quiz:
                read(f"  {line.text.ljust(width)}  ?  (your prediction, then Enter) ")
                write(f"  {' ' * width}  -> {line.answer}")
            else:
                write(f"  {line.text.ljust(width)}  ?  -> {line.answer}")
