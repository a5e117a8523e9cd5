"""Traced walkthroughs you can predict line by line: python -m learning.explain --help

    python -m learning.explain matmul                 the 2x3 @ 3x2 example, BK=2 steps, tile ownership
    python -m learning.explain matmul --quiz          wait for your prediction before each answer
    python -m learning.explain matmul --plot out.png  draw tiles, masked cells and GROUP_M order (matplotlib)

Topics: indexing, strides, reduction, softmax, matmul, grouping, splitk, alignment, descriptors, tuning,
registers, pingpong, conv, epilogue, fp8.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from learning.walkthroughs import TOPICS

PLOT_TOPICS = ("matmul", "grouping")
EXIT_HELP = """\
exit codes:
  0  printed (and drew) the walkthrough
  2  bad command line, or --plot for a topic that has no picture
  5  --plot needs matplotlib, which is not installed (the text walkthrough needs nothing)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m learning.explain",
        description="Print a small traced walkthrough: predict each '?' before you read the answer.",
        epilog=EXIT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("topic", choices=TOPICS, help="what to walk through")
    parser.add_argument("--quiz", action="store_true",
                        help="wait for Enter before each answer (only when reading from a terminal)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also draw the picture into FILE.png (matmul and grouping; needs matplotlib)")
    args = parser.parse_args(argv)

    if args.plot and args.topic not in PLOT_TOPICS:  # before the walkthrough, not after it
        print(f"no picture for {args.topic}; --plot works with: {', '.join(PLOT_TOPICS)}", file=sys.stderr)
        return 2
    script = importlib.import_module(f"learning.walkthroughs.{args.topic}").build()
    try:
        script.render(quiz=args.quiz and sys.stdin.isatty())
    except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C while the quiz waits for Enter
        print("\nquiz stopped")
        return 0
    if not args.plot:
        return 0
    try:
        from learning.walkthroughs import picture
    except ModuleNotFoundError as missing:
        if missing.name and missing.name.split(".")[0] == "matplotlib":
            print("\n--plot needs matplotlib, which is not installed here: pip install matplotlib "
                  "(the text above needs nothing extra)", file=sys.stderr)
            return 5
        raise
    picture.draw(args.plot)
    print(f"\npicture written to {args.plot}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        sys.exit(0)
