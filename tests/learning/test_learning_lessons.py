"""The lessons exist, follow the course's shape, carry lesson 6's facts, and cite real code."""

import re

import pytest

from .helpers import REPO_ROOT

LESSONS = REPO_ROOT / "learning" / "lessons"
EXPECTED = ["00_orientation", "01_offsets_and_masks", "02_strides", "03_reduction", "04_softmax",
            "05_rmsnorm", "06_matmul", "07_measurement", "08_first_triton_kernels", "09_compiler_output"]
COURSE_DOCS = sorted(LESSONS.glob("*.md")) + sorted((REPO_ROOT / "learning" / "workshops").glob("*.md")) + [
    REPO_ROOT / "learning" / "README.md"]
# `path:L12-L20` (or `path:L12`) followed by "starts `text`", "(starts `text`" or "in `name`, starts `text`":
# the first cited line must start with text.
CITATION = re.compile(r"`(src/tilelab/[\w/]+\.py):L(\d+)(?:-L(\d+))?`(?:,?\s+in\s+`[^`]+`)?,?\s+\(?starts\s+`([^`]+)`")


def test_all_ten_lessons_exist():
    assert sorted(p.stem for p in LESSONS.glob("*.md")) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_lesson_asks_for_predictions_and_ends_with_an_exit_check(name):
    text = (LESSONS / f"{name}.md").read_text()
    assert text.startswith(f"# Lesson {int(name[:2])} ")
    assert "Predict" in text or "predict" in text
    assert "## Exit check" in text


def test_lesson_6_carries_every_fact_of_the_seed():
    text = (LESSONS / "06_matmul.md").read_text()
    facts = [
        "A has shape [M, K]", "B has shape [K, N]", "C has shape [M, N]",
        "58", "64", "139", "154",
        "[[0.0] * n for _ in range(m)]", "[[0.0] * n] * m",
        "BM × BN", "BK", "**25**", "**33**", "reset inside the",
        "python -m learning.explain matmul", "python -m learning.check matmul",
        "`tile_ranges(7, 3)` is `[(0, 3), (3, 6), (6, 7)]`", "half-open", "zero padding is neutral",
        "= 3072", "3072 * 2", "6144", "131072", "≈ 21.33 FLOPs per input byte",
        "tile-level reuse model", "not a measured point", "registers and shared memory",
        "One-dimensional grid", "GROUP_M = 1", "(p // tiles_n, p % tiles_n)", "down eight tile rows",
        "Workshop I3", "float32", "masks both output dimensions",
        "kernel-inspect --op matmul --target sm_80", "mma.sync",
        "kernel-bench --op matmul --dtype float16 --output results/local/my-gemm.json",
        "**M N K**", "--shape 127 255 65", "torch.mm",
        "5 × 7", "BM = 2, BN = 3", "K = 5 and BK = 2", "9 programs", "3 K steps",
        "tilelab.matmul(a, b, *, out_dtype=None, precision=None, path=None, config=None)",
        "BLOCK_M = 32, BLOCK_N = 64", "BLOCK_K = 32, GROUP_M = 1", "tilelab.tuning.Config",
        "matmul_pointer_kernel", "matmul_descriptor_kernel", "grouped_tile", "tl.make_tensor_descriptor",
        "if m >= M: return", "2·M·N·K",
    ]
    missing = [fact for fact in facts if fact not in text]
    assert not missing, missing


def test_lessons_7_and_9_use_the_instrument_commands():
    seven = (LESSONS / "07_measurement.md").read_text()
    assert "kernel-bench --op matmul --dtype float16 --shape 127 255 65 --output results/local/my-gemm.json" in seven
    assert "kernel-bench calibrate" in seven
    nine = (LESSONS / "09_compiler_output.md").read_text()
    for command in ["kernel-inspect --op matmul --target sm_80",
                    "kernel-inspect --op matmul --target sm_90 --path descriptor",
                    "--dtype float32 --precision ieee"]:
        assert command in nine
    for word in ["mma.sync", "wgmma", "cp.async.bulk.tensor", "no MMA instruction at all"]:
        assert word in nine


def test_line_citations_point_at_the_quoted_code():
    citations = [(doc, m) for doc in COURSE_DOCS for m in CITATION.finditer(doc.read_text())]
    assert len(citations) >= 8, "lesson 6 should cite the library's kernel by line"
    for doc, match in citations:
        path, first, last, anchor = match.group(1), int(match.group(2)), match.group(3), match.group(4)
        source = (REPO_ROOT / path).read_text().splitlines()
        last = int(last) if last else first
        assert 1 <= first <= last <= len(source), f"{doc.name}: {match.group(0)} is outside {path}"
        assert source[first - 1].strip().startswith(anchor), (
            f"{doc.name}: {path}:L{first} is now {source[first - 1].strip()!r}, not {anchor!r}: update the citation")


def test_links_between_course_documents_resolve():
    for doc in COURSE_DOCS:
        for target in re.findall(r"\]\(([^)#]+\.md)\)", doc.read_text()):
            assert (doc.parent / target).resolve().exists(), f"{doc.name} links to missing {target}"
