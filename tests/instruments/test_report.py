"""`kernel-bench report`: markdown and PNG from result files."""

import json

import pytest

from tests.instruments.helpers import synthetic_result
from tilelab.bench import cli


@pytest.fixture
def result_files(tmp_path):
    paths = []
    for dtype in ("float16", "bfloat16"):
        path = tmp_path / f"h200-matmul-{dtype}.json"
        path.write_text(json.dumps(synthetic_result(dtype)))
        paths.append(path)
    return paths


def test_markdown_and_png(result_files, tmp_path):
    md, png = tmp_path / "out" / "summary.md", tmp_path / "out" / "summary.png"
    code = cli.main(["report", *map(str, result_files), "--output", str(md), "--plot", str(png)])
    assert code == 0
    text = md.read_text()
    assert text.startswith("# kernel-bench report")
    assert "![" in text and "(summary.png)" in text  # the plot, linked relative to the markdown
    for name in ("h200-matmul-float16.json", "h200-matmul-bfloat16.json"):
        assert f"## {name}" in text
    # rates with speedups, the unsupported and wrong variants named, the chosen config, provenance
    assert "| 4096×4096×4096 | float16 | 700.0 | 650.0 (0.93×) |" in text
    assert "unsupported" in text and "WRONG" in text
    assert "AlignmentError" in text
    assert "128×256×64, GROUP_M 8, 8 warps, 3 stages" in text
    assert "datasheet: NVIDIA H200 SXM" in text
    assert "synthetic test fixture" in text
    assert "geometric mean" in text
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_markdown_to_stdout(result_files, capsys):
    assert cli.main(["report", str(result_files[0])]) == 0
    assert "| shape | dtype | torch |" in capsys.readouterr().out


def test_unreadable_or_foreign_files_exit_2(tmp_path, capsys):
    bad_version = synthetic_result()
    bad_version["schema_version"] = 99
    (tmp_path / "v99.json").write_text(json.dumps(bad_version))
    (tmp_path / "junk.json").write_text("{not json")
    assert cli.main(["report", str(tmp_path / "v99.json")]) == 2
    assert "schema_version 99" in capsys.readouterr().err
    assert cli.main(["report", str(tmp_path / "junk.json")]) == 2
    assert cli.main(["report", str(tmp_path / "missing.json")]) == 2


def test_an_aborted_sweep_is_flagged(tmp_path, capsys):
    document = synthetic_result()
    document["summary"]["aborted"] = "matmul 8192x8192x8192 float16: RuntimeError: CUDA error"
    path = tmp_path / "aborted.json"
    path.write_text(json.dumps(document))
    assert cli.main(["report", str(path)]) == 0
    assert ("**The sweep stopped early**: matmul 8192x8192x8192 float16: RuntimeError: CUDA error. Only the cases "
            "that finished are here.") in capsys.readouterr().out


def test_plot_of_a_check_only_file(tmp_path):
    """No timings at all (a --check-only run): the plot says so instead of failing on log axes."""
    document = synthetic_result("float16")
    for case in document["cases"]:
        for variant in case["variants"]:
            variant.update(timing=None, tflops=None, gbps=None, speedup_vs_torch=None, roofline_fraction=None)
    path = tmp_path / "check.json"
    path.write_text(json.dumps(document))
    png = tmp_path / "check.png"
    assert cli.main(["report", str(path), "--output", str(tmp_path / "check.md"), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "ok, untimed" in (tmp_path / "check.md").read_text()


def test_torch_kernels_from_the_baseline_plan(tmp_path):
    """A GPU run records the kernels torch launched in its plan; the report lists them, shortened."""
    document = synthetic_result()
    torch_variant = next(v for v in document["cases"][0]["variants"] if v["baseline"])
    torch_variant["plan"]["kernels"] = ["Memset (Device)", "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT",
                                        "void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::Params)"]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    md = tmp_path / "run.md"
    assert cli.main(["report", str(path), "--output", str(md)]) == 0
    text = md.read_text()
    assert "### What torch ran (one profiled call)" in text
    assert ("`Memset (Device)` + `nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT` + "
            "`cublasLt::splitKreduce_kernel`") in text


def test_no_torch_kernels_table_without_recorded_kernels(result_files, capsys):
    assert cli.main(["report", str(result_files[0])]) == 0
    assert "What torch ran" not in capsys.readouterr().out


@pytest.mark.parametrize("copies,shown", [(["a", "b"], "descriptor (A and B copied onto lines)"),
                                          (["b"], "descriptor (B copied onto lines)"), ([], "descriptor |")])
def test_the_plans_table_names_operands_copied_onto_lines(tmp_path, copies, shown):
    document = synthetic_result()
    default = next(v for v in document["cases"][0]["variants"] if v["name"] == "tilelab")
    default["plan"] = {"library": "tilelab", "path": "descriptor", "line_copies": copies,
                       "config": {"block_m": 128, "block_n": 128, "block_k": 64, "group_m": 8, "num_warps": 4,
                                  "num_stages": 4}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    md = tmp_path / "run.md"
    assert cli.main(["report", str(path), "--output", str(md)]) == 0
    row = next(line for line in md.read_text().splitlines() if "128×128×64" in line)
    assert shown in row
