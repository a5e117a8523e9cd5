"""kernel-bench --op bmm / bmm_nt without a GPU: inputs, costs, --check-only on the interpreter, list, --tune and
reports of four-number shapes."""

import copy
import inspect
import json

import pytest
import torch

from tests.instruments.helpers import check_only, run_tool, synthetic_result
from tilelab.bench import cli, op_bmm, registry, schema, sweep

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")

# Variants that take any batch and any strides: wherever they run, they must be right.
ALWAYS_OK = ("torch", "tilelab", "tilelab-fixed", "tilelab-pointer", "tilelab-splitk", "tilelab-aligned",
             "torch-aligned")


def test_both_ops_are_registered_with_a_batch_dim():
    ops = registry.all_ops()
    assert {"matmul", "scaled_matmul", "bmm", "bmm_nt"} <= set(ops)
    for name in ("bmm", "bmm_nt"):
        assert ops[name].dims == ("batch", "M", "N", "K")
        assert ops[name].dtypes == ("float16", "bfloat16", "float32")
        assert all(len(shape) == 4 for shape in ops[name].default_shapes + ops[name].check_shapes)
    assert (4, 4096, 4096, 4096) in ops["bmm"].default_shapes
    assert (16, 2048, 2048, 128) in ops["bmm_nt"].default_shapes


def test_inputs_costs_and_the_transposed_b():
    bmm, bmm_nt = op_bmm.OPS
    shape, cpu = (3, 33, 70, 48), torch.device("cpu")
    a, b = bmm.make_inputs(shape, torch.float16, cpu, torch.Generator().manual_seed(0))
    assert a.shape == (3, 33, 48) and b.shape == (3, 48, 70) and a.is_contiguous() and b.is_contiguous()
    a_nt, b_nt = bmm_nt.make_inputs(shape, torch.float16, cpu, torch.Generator().manual_seed(0))
    assert a_nt.shape == (3, 33, 48) and b_nt.shape == (3, 48, 70)
    assert b_nt.stride() == (70 * 48, 1, 48)  # stored [batch, N, K], seen as [batch, K, N]
    assert b_nt.transpose(1, 2).is_contiguous()
    assert torch.equal(a_nt, a)  # the same generator draws: A first, then B
    assert (a != 0).all() and (b_nt != 0).all()
    reference = bmm_nt.reference(a_nt, b_nt)
    assert reference.dtype == torch.float64 and reference.shape == (3, 33, 70)
    assert torch.allclose(reference[1], a_nt[1].double() @ b_nt[1].double())
    for op in (bmm, bmm_nt):
        assert op.flops(shape) == 2 * 3 * 33 * 70 * 48
        assert op.bytes_moved(shape, torch.float16) == 3 * (33 * 48 + 48 * 70 + 33 * 70) * 2
        assert op.bytes_moved(shape, torch.float32) == 3 * (33 * 48 + 48 * 70 + 33 * 70) * 4


@no_gpu
@pytest.mark.parametrize("op", ["bmm", "bmm_nt"])
def test_check_only_on_the_interpreter(op, tmp_path):
    cases = check_only(op, tmp_path, "float16", "float32")["cases"]
    assert [(tuple(c["shape"]), c["dtype"]) for c in cases] == [
        (shape, dtype) for shape in op_bmm.CHECK_SHAPES for dtype in ("float16", "float32")]
    for case in cases:
        assert case["op"] == op and list(case["dims"]) == ["batch", "M", "N", "K"]
        assert list(case["dims"].values()) == case["shape"]
        by_name = {v["name"]: v for v in case["variants"]}
        assert set(ALWAYS_OK) <= set(by_name)
        for v in case["variants"]:
            assert v["status"] in ("ok", "unsupported"), v
        for name in ALWAYS_OK:
            assert by_name[name]["status"] == "ok", by_name[name]
            assert 0 < by_name[name]["error"] <= by_name[name]["tolerance"]
        # B reaches the library in the layout the op is about, the aligned copies included
        for name in ("tilelab", "tilelab-aligned"):
            assert by_name[name]["plan"]["b_row_major"] is (op == "bmm"), by_name[name]["plan"]
    fp16 = next(c for c in cases if c["shape"] == [3, 33, 70, 48] and c["dtype"] == "float16")
    assert fp16["dims"] == {"batch": 3, "M": 33, "N": 70, "K": 48}
    assert fp16["flops"] == 2 * 3 * 33 * 70 * 48 and fp16["bytes"] == 3 * (33 * 48 + 48 * 70 + 33 * 70) * 2


def test_shapes_go_to_the_ops_of_their_length():
    """--op all --shape: three numbers are a matmul's, four a bmm's; a count no op takes is still an error."""
    ops = registry.all_ops()
    chosen = [ops["matmul"], ops["bmm"], ops["bmm_nt"]]
    cases = sweep.plan_cases(chosen, ["float16"], [(64, 64, 64), (2, 64, 64, 64)], seed=0)
    assert sorted((c.op.name, c.shape) for c in cases) == [
        ("bmm", (2, 64, 64, 64)), ("bmm_nt", (2, 64, 64, 64)), ("matmul", (64, 64, 64))]
    with pytest.raises(ValueError, match="4 numbers"):
        sweep.plan_cases([ops["bmm"]], ["float16"], [(64, 64, 64)], seed=0)
    with pytest.raises(ValueError, match="numbers"):
        sweep.plan_cases(chosen, ["float16"], [(64, 64)], seed=0)


def test_list_shows_both_ops(capsys):
    assert cli.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "bmm_nt" in listed and "batch M N K" in listed and "32x1024x1024x128" in listed


def test_tune_asks_pretune_for_batched_shapes_and_b_layout(monkeypatch):
    from tilelab.ops import matmul as matmul_op

    calls = []

    def recording_pretune(shapes, dtypes, **kwargs):
        calls.append((list(shapes), dtypes, kwargs))
        return [{"shape": list(shapes[0])}]

    monkeypatch.setattr(matmul_op, "pretune", recording_pretune)
    ops = registry.all_ops()
    cases = sweep.plan_cases([ops["bmm"], ops["bmm_nt"]], ["bfloat16"], [(2, 64, 64, 32)], seed=0)
    cpu = torch.device("cpu")
    tuned = cli._pretune(sorted(cases, key=lambda c: c.canonical_index), None, cpu)
    assert len(tuned) == 2
    assert calls == [
        ([(2, 64, 64, 32)], (torch.bfloat16,), {"precision": None, "device": cpu}),
        ([(2, 64, 64, 32)], (torch.bfloat16,), {"precision": None, "device": cpu, "b_layout": "nk"}),
    ]


def _pretune_takes_batches() -> bool:
    from tilelab.ops.matmul import pretune

    return "b_layout" in inspect.signature(pretune).parameters


@no_gpu
def test_tune_on_the_interpreter(tmp_path):
    if not _pretune_takes_batches():
        pytest.skip("tilelab.ops.matmul.pretune does not take (batch, M, N, K) shapes and b_layout yet")
    out = tmp_path / "tuned.json"
    done = run_tool("tilelab.bench", "--op", "bmm_nt", "--dtype", "float16", "--check-only", "--tune",
                    "--shape", "2", "64", "64", "32", "--variants", "tilelab", "--no-progress", "--output", str(out),
                    env={"TILELAB_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == [] and document["tuned"]
    for record in document["tuned"]:
        assert record["shape"] == [2, 64, 64, 32] and record["dtype"] == "float16", record
        assert record.get("b_layout") == "nk", record


def _batched_result() -> dict:
    """The synthetic matmul result as one file of bmm and bmm_nt cases: the same shapes with a batch of 8."""
    document = synthetic_result("float16")
    cases = []
    for op in ("bmm", "bmm_nt"):
        for case in copy.deepcopy(document["cases"]):
            shape = [8, *case["shape"]]
            case.update(op=op, shape=shape, dims=dict(zip(("batch", "M", "N", "K"), shape, strict=True)),
                        flops=8 * case["flops"], bytes=8 * case["bytes"], order=len(cases))
            cases.append(case)
    document["cases"] = cases
    document["settings"]["ops"] = ["bmm", "bmm_nt"]
    return document


def test_report_and_plot_of_batched_ops(tmp_path):
    path = tmp_path / "bmm.json"
    path.write_text(json.dumps(_batched_result()))
    md, png = tmp_path / "bmm.md", tmp_path / "bmm.png"
    assert cli.main(["report", str(path), "--output", str(md), "--plot", str(png)]) == 0
    text = md.read_text()
    # bmm and bmm_nt share shapes and dtypes: each row names its op
    assert "| bmm 8×4096×4096×4096 | float16 | 700.0 | 650.0 (0.93×) |" in text
    assert "| bmm_nt 8×4096×4096×4096 | float16 |" in text
    assert "bmm_nt 8×127×255×65 float16 `tilelab-descriptor`: unsupported" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
