"""The Markdown's references hold: every repository path in backticks exists, and every recorded run it names
(`h200-...` files, with or without `results/`) is in results/. A number in the docs is only as good as the file
it cites; a renamed or deleted file should fail here, not in a reader's hands."""

import re

from tests.documented_commands import ROOT, markdown_files

MARKDOWN = [*markdown_files(), ROOT / "results" / "README.md", ROOT / "scripts" / "README.md"]
TOP_DIRS = "src|docs|scripts|results|tests|learning"
PATH_IN_BACKTICKS = re.compile(rf"`((?:{TOP_DIRS})/[^`\s]*)`")
RECORDED_RUN = re.compile(r"(?<![\w/])(h200-[\w.*<>{}\-]+\.(?:json|log|md|png|txt))")
PLACEHOLDER = re.compile(r"<[^>]*>|\{[^}]*\}|NAME|NUMBER")


def _exists(relative: str) -> bool:
    pattern = PLACEHOLDER.sub("*", relative)
    if "*" in pattern or "?" in pattern:
        return any(ROOT.glob(pattern))
    return (ROOT / pattern).exists()


def _references(pattern: re.Pattern, prefix: str = "") -> list[tuple[str, str]]:
    found = []
    for file in MARKDOWN:
        for number, line in enumerate(file.read_text().splitlines(), 1):
            if "(written as" in line:  # a results row naming the file a script wrote before it was renamed
                line = re.sub(r"\(written as [^)]*\)", "", line)
            for match in pattern.finditer(line):
                found.append((f"{file.relative_to(ROOT)}:{number}", prefix + match.group(1)))
    return found


def _path_of(reference: str) -> str:
    reference = reference.rstrip(".,:;)").split("::")[0]  # a pytest node id names its file first
    return re.sub(r":L?\d+(-L?\d+)?$", "", reference)  # a cited line or range


# Files the tools write on a user's machine, ignored by git: a fresh checkout does not have them yet.
WRITTEN_WHEN_USED = {"learning/.progress.json"}
PATHS = [(where, _path_of(ref)) for where, ref in _references(PATH_IN_BACKTICKS)
         if "/local/" not in ref and "$" not in ref and _path_of(ref) not in WRITTEN_WHEN_USED]
RUNS = _references(RECORDED_RUN, prefix="results/")


def test_the_docs_name_many_paths_and_runs():
    assert len(PATHS) > 300 and len(RUNS) > 500


def test_every_path_named_exists():
    missing = [f"{where}: {path}" for where, path in PATHS if not _exists(path)]
    assert not missing, "\n".join(missing)


def test_a_missing_file_is_seen():
    assert _exists("src/tilelab/kernels/matmul.py") and _exists("results/h200-matmul-float16-session<N>.json")
    assert not _exists("results/h200-no-such-run.json") and not _exists("src/tilelab/no_such_module.py")


def test_every_recorded_run_named_exists():
    missing = [f"{where}: {path}" for where, path in RUNS if not _exists(path)]
    assert not missing, "\n".join(missing)
