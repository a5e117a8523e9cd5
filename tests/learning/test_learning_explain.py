"""learning.explain prints the lesson's numbers, traced from code, and draws the picture."""

import inspect
import io
import json
import math
import re
import struct

import pytest

from learning.walkthroughs import (
    alignment,
    conv,
    descriptors,
    epilogue,
    fp8,
    grouping,
    matmul,
    pingpong,
    reduction,
    registers,
    splitk,
    tuning,
)
from tests.learning.helpers import REPO_ROOT


def _text(script) -> str:
    out = io.StringIO()
    script.render(write=lambda line="": out.write(line + "\n"))
    return out.getvalue()


def test_matmul_walkthrough_has_the_lesson_numbers():
    text = _text(matmul.build())
    for fact in ["C[0,0] = 1*7 + 2*9 + 3*11", "-> 58", "-> 64", "-> 139", "-> 154",
                 "-> 25", "-> 33", "C[0,0] = 33, not 58",
                 "tile_ranges(7, 3), the column tiles", "[(0, 3), (3, 6), (6, 7)]",
                 "-> 3 x 3 = 9", "K steps per program: cdiv(5, 2)"]:
        assert fact in text, fact
    for dim, verdict in [("M=5", "5 % 2 = 1"), ("N=7", "7 % 3 = 1"), ("K=5", "5 % 2 = 1")]:
        assert f"does {dim} need a mask" in text and verdict in text


def test_ownership_grid_marks_masked_cells():
    grid = matmul.ownership_grid(5, 7, 2, 3)
    assert grid[1].split()[2:] == ["0", "0", "0", "1", "1", "1", "2", ".", "."]
    assert set(grid[-1].split()[2:]) == {"."}  # row 5 is outside C


def test_grouping_counts_panels():
    assert grouping.panels_touched(16, 16, 1, 32) == (2, 16)
    assert grouping.panels_touched(16, 16, 8, 32) == (8, 4)


def test_fp16_accumulator_stalls_at_2048():
    assert reduction.running_sum(4096, "e") == 2048.0
    assert reduction.running_sum(4096, "f") == 4096.0
    assert struct.calcsize("e") == 2


def test_quiz_waits_before_each_answer():
    prompts = []
    script = matmul.build()
    script.render(quiz=True, read=prompts.append, write=lambda line="": None)
    assert len(prompts) == sum(1 for line in script.lines if line.answer is not None)


def test_a_quiz_stopped_with_ctrl_d_or_ctrl_c_ends_quietly(monkeypatch, capsys):
    from learning import explain

    class Terminal(io.StringIO):
        """A terminal whose reader gives up: Ctrl-D (nothing more to read) or Ctrl-C (an interrupt)."""

        interrupt = False

        def isatty(self):
            return True

        def readline(self, *args):
            if self.interrupt:
                raise KeyboardInterrupt
            return ""  # end of input: input() raises EOFError

    for interrupt in (False, True):
        terminal = Terminal()
        terminal.interrupt = interrupt
        monkeypatch.setattr("sys.stdin", terminal)
        assert explain.main(["matmul", "--quiz"]) == 0
        assert capsys.readouterr().out.rstrip().endswith("quiz stopped")


def test_plot_for_a_topic_without_a_picture_is_refused_before_the_walkthrough(capsys):
    from learning import explain

    assert explain.main(["softmax", "--plot", "never.png"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("no picture for softmax; --plot works with: matmul, grouping")


def test_plot_draws_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    from learning.walkthroughs import picture

    target = tmp_path / "tiles.png"
    picture.draw(str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert target.stat().st_size > 20_000


def test_splitk_walkthrough_uses_the_library_slicing():
    text = _text(splitk.build())
    for fact in ["output tiles of 16x64", "-> 64", "-> 64 x 4 = 256",
                 "[(0, 1024), (1024, 2048), (2048, 3072), (3072, 4096)]",
                 "[(0, 256), (256, 512), (512, 768), (768, 1000)]", "the one that sees 3",
                 "-> 4096 x 4096 x 2 = 32 MiB", "-> 8.2 us, plus the launch", "-> 15% (2.2 us)"]:
        assert fact in text, fact


def test_alignment_walkthrough_asks_the_library():
    text = _text(alignment.build())
    for fact in ["-> 2000", "1000 % 16 = 8", "-> 1: Triton already proves 16", "known_multiple"]:
        assert fact in text, fact
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    assert answers["pointer_align for 1000x1000x1000 fp16"] == "8"
    assert answers["pointer_align for 1000x1000x1000 fp32 (4-byte elements)"] == "4"
    assert answers["pointer_align for 1000x1004x1000 fp16 (N = 1004)"].startswith("4: 8-byte loads")
    import torch

    from tilelab.ops.matmul_plan import operand_layout

    b = torch.empty((1, 1000, 1004), dtype=torch.float16, device="meta")  # the claim: TMA cannot read B
    assert not operand_layout(b).tma_ok
    assert answers["byte offset of rows 0..7 within their 128-byte line"] == "0, 80, 32, 112, 64, 16, 96, 48"
    assert answers["rows of those 8 that start on a line"].startswith("1: every 8th row")
    assert answers["a 128-byte piece of row 1 (64 fp16 values): lines touched"] == "2"
    assert answers["... and 32-byte sectors touched (row 0's piece: 4)"] == "5"
    sectors = {width: answers[f"{width} fp16 per row: byte offsets in a line (first 8 rows); sectors of a box row, "
                              "at most"].rsplit("; ", 1)[1] for width in (1000, 2000, 3000, 4000, 5000, 6000)}
    assert sectors == {1000: "5", 2000: "4", 3000: "5", 4000: "4", 5000: "5", 6000: "4"}
    assert answers["rows_on_sectors for a 3000x3000 fp16 B"] == "False"
    assert answers["rows_on_sectors for a 4000x4000 fp16 B"] == "True"
    assert answers["padded_row_stride(1000, 2): the 16-byte rule TMA needs, for a 1000-wide fp16 row"] == "1000"
    assert answers["output_row_stride(1000, 2): what tilelab gives the rows of an output it stores through TMA"] \
        == "1024"
    assert answers["byte offsets in a line of rows 1, 9, 17, 25 (every 8th row from row 1)"] == "80, 80, 80, 80"
    assert answers["class 1: elements to start early so its boxes begin on a line"] == "40 (80 bytes)"
    assert answers["row_classes for 1000x1000 fp16 (tilelab.ops.matmul_plan.row_classes)"] == "8"
    assert answers["... for 1002 rows (2 divides M, 4 does not: classes on 32-byte sectors)"] == "2"
    assert answers["... for rows of 1024 (on lines already)"] == "1"
    assert answers["... for 640 rows (8 classes of 80 rows: 8 tiles of 128 rows where 5 cover M)"] == "1"
    assert answers["... for 1000 rows with B 2000 wide (B's rows on sectors)"] == "1"


def test_lines_and_sectors_counts_partial_units():
    assert alignment.lines_and_sectors(0) == (1, 4)
    assert alignment.lines_and_sectors(32) == (2, 4)
    assert alignment.lines_and_sectors(16) == (2, 5)
    assert alignment.lines_and_sectors(0, 1) == (1, 1) and alignment.lines_and_sectors(127, 2) == (2, 2)


def test_tuning_walkthrough_shows_the_drift_trap_with_the_library_s_own_order():
    from tilelab import tuning as library_tuning

    text = _text(tuning.build())
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    assert answers["shape_bucket(1000, 1000, 1000)"] == "1024x1024x1024"
    assert answers["timed one after the other (A A A A B B B B C C C C): the winner"].startswith("A,")
    order = " ".join(library_tuning.turn_order(["A", "B", "C"]))
    assert answers[f"taking turns, forward then back ({order}): the winner"].startswith("B,")
    assert answers["NVIDIA H200|pointer|float16|float16|tf32|ab|128x256x128"].startswith("16x32x128")
    assert answers["threads it would use on this machine (tilelab.tuning.compile_threads, TILELAB_COMPILE_THREADS)"] \
        == str(library_tuning.compile_threads())
    probe = (REPO_ROOT / "results/h200-compile-ahead-probe.log").read_text()
    row = next(line for line in probe.splitlines() if line.startswith("conv 7x33x31x29x65x3x1 fp32"))
    assert "61.12 s (  0 ahead)" in row and "11.64 s ( 35 ahead)" in row
    assert answers["on the H200, the ragged fp32 convolution's first call (it tunes): one thread, then eight"] == (
        "61.1 s, then 11.6 s (35 kernels compiled ahead; the same winner)")


def test_descriptors_walkthrough_shows_what_the_library_builds():
    text = _text(descriptors.build())
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    assert answers["2048^3 fp16 on the descriptor path, 128x256 tiles: how many programs"] == "128"
    assert answers["A: shape, strides (elements), block"] == "[1000, 1000], [1000, 1], [64, 64]"
    assert answers["B is stored [N, K]: so its descriptor describes"].startswith("[1000, 1000], [1000, 1], [128, 64]")
    assert answers["a batch of 8 GEMMs, one launch: how many A descriptors"] == (
        "one, in 3-D: [8, 1000, 1000], [1000000, 1000, 1], [1, 64, 64]")
    for name in ("host_descriptors", "TensorMapCache", "persistent_host_descriptors", "tensormap.replace"):
        assert name in text, name


def test_registers_walkthrough_computes_from_the_library(monkeypatch):
    from tilelab.ops import matmul_registers

    text = _text(registers.build())
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    assert answers["bytes of one pipeline stage (A's and B's float32 tiles)"] == "49152 (48 KiB)"
    assert answers["4 stages plus C's staging buffer for a quarter tile"].startswith("229376 bytes")
    assert answers["accumulator registers per MMA thread (C^T's tile in float32)"] == "128"
    assert answers["wgmma instructions per warp group per K step"] == "4"
    question = "{}: tiles chosen, their count, and registers by default on 132 SMs"
    assert answers[question.format("4096x4096x4096")] == "256x128, 512, yes"
    assert answers[question.format("512x4096x4096")] == "256x64, 128, yes"
    assert answers[question.format("1000x1000x1000")] == "128x64, 128, yes"
    assert answers[question.format("512x512x512")] == "64x64, 64, yes"
    assert answers[question.format("300x260x1000")].startswith("64x64, 25, no")
    assert answers["programs at 4096^3 (gluon_launch.persistent_programs, 132 SMs)"] == "128"
    assert "C7515" in text and "kernel-inspect --path registers" in text
    # The answers follow the library: another threshold gives another verdict.
    monkeypatch.setattr(matmul_registers, "REGISTERS_MIN_FILL", 0.1)
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip()
               for line in _text(registers.build()).splitlines() if "->" in line}
    assert answers[question.format("300x260x1000")] == "64x64, 25, yes"


def test_pingpong_walkthrough_computes_from_the_library(monkeypatch):
    from tilelab.ops import matmul_pingpong

    def answers() -> dict:
        return {line.split("?")[0].strip(): line.split("->")[1].strip()
                for line in _text(pingpong.build()).splitlines() if "->" in line}

    found = answers()
    assert found["K steps per tile at K=1024 (BLOCK_K=64)"] == "16"
    assert found["... and for one group owning 128x128"] == "128"
    assert found["K=1024: ring position of group 1's first K step"] == "16"
    assert found["its stage and the phase parity it waits for (position % stages, position // stages % 2)"] == (
        "stage 4, parity 0")
    question = "{}: busiest program's share, pingpong against persistent, and the choice"
    assert found[question.format("8192x8192x1024")] == "32 against 32: pingpong"
    assert found[question.format("4096x11008x4096")] == "21 against 22: pingpong"
    assert found[question.format("4096x4096x4096")] == "8 against 8: persistent"
    # The answers follow the library: another threshold gives another verdict.
    monkeypatch.setattr(matmul_pingpong, "PINGPONG_MAX_K", 512)
    assert answers()[question.format("8192x8192x1024")] == "32 against 32: persistent"


def test_conv_walkthrough_computes_from_the_library():
    from learning.walkthroughs import TOPICS
    from tilelab.ops.conv import ConvGeometry

    text = _text(conv.build())
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    tiny = ConvGeometry(1, 2, 4, 4, 3, 3, 3, (1, 1), (1, 1), (1, 1))
    m, n, k = tiny.gemm()
    assert answers["output size OH x OW: (H + 2*pad - dil*(KH - 1) - 1) // stride + 1"] == f"{tiny.oh} x {tiny.ow}"
    assert answers["the GEMM's M: one row per output pixel, batch*OH*OW"] == str(m) == "16"
    assert answers["... N: one column per output channel"] == str(n) == "3"
    assert answers["... K: one term per tap and input channel, KH*KW*C_in"] == str(k) == "18"
    resnet = ConvGeometry(32, 64, 56, 56, 64, 3, 3, (1, 1), (1, 1), (1, 1))
    assert answers["ResNet-50's 32x64x56x56 input, 3x3 to 64 channels, pad 1: M, N, K"] == (
        ", ".join(map(str, resnet.gemm())))
    assert answers["... and of x itself"].endswith("A is 9x larger")
    assert answers["row m = 5: image, oh, ow = m // (OH*OW), m // OW % OH, m % OW"] == "(0, 1, 1)"
    assert answers["column k = 7: r, s, c"] == "(1, 0, 1)"
    assert answers["lanes of each step that hold a channel"].startswith("2 of 16: 14 masked")
    assert answers["A[5, 7] reads x[n, c, ih, iw], ih = oh*stride - pad + r*dil, iw likewise"] == "x[0, 1, 1, 0]"
    assert "in the padding" in answers["A[0, 0]: pixel (0, 0, 0), tap (0, 0), channel 0"]
    assert answers["entries of the 16 x 18 A that fall in the padding"] == "88"
    assert answers["unfold's column for the kernel's k = 7: c*KH*KW + r*KW + s"] == "12"
    assert answers["A gathered through the index arithmetic equals unfold's columns in that order"] == "True"
    checked = next(line for line in text.splitlines() if line.startswith("checked: max |im2col @ W - conv2d|"))
    differences = [float(part.split("=")[1].split()[0]) for part in checked.split(", ")]
    assert len(differences) == 2 and max(differences) < 1e-12, checked
    assert answers["scale = gamma / sqrt(var + eps)"] == f"{2 / (3 + 1e-5) ** 0.5:.6f}"
    assert answers["shift = beta + (bias - mean) * scale"] == f"{0.5 - 0.75 * 2 / (3 + 1e-5) ** 0.5:.6f}"
    for name in ("conv2d_bn_silu_kernel", "tilelab.conv2d_bn_silu", "kernel-bench --op conv2d_bn_silu",
                 "results/h200-conv2d_bn_silu-float16-session25.json", "unfold", "(c, r, s)"):
        assert name in text, name
    assert "conv" in TOPICS


def _bench(path: str) -> dict:
    """A kernel-bench JSON's cases by shape: {variant: (median us, speedup vs torch, config)}."""
    cases = json.loads((REPO_ROOT / path).read_text())["cases"]
    return {tuple(case["shape"]): {v["name"]: (v["timing"]["median_ms"] * 1e3, v["speedup_vs_torch"],
                                               (v.get("plan") or {}).get("config"))
                                   for v in case["variants"]} for case in cases}


def test_conv_walkthrough_h200_summary_comes_from_the_run_of_record():
    """The twenty-ninth session's run: torch ran every layer at its usual speed (under twice the twenty-third
    session's time), so all ten count."""
    text = _text(conv.build())
    run = _bench("results/h200-conv2d_bn_silu-float16-session29-split-mul.json")
    before = _bench("results/h200-conv2d_bn_silu-float16-session23.json")
    assert all(run[shape]["torch"][0] < 2 * before[shape]["torch"][0] for shape in run)
    ratios = [variants["tilelab"][1] for variants in run.values()]
    assert len(ratios) == 10 and "Left out" not in text
    assert f"on 10 CNN layers, geometric mean {math.prod(ratios) ** (1 / len(ratios)):.2f}x." in text
    assert f"{min(ratios):.2f}x (32x512x7x7x512x3x1) to {max(ratios):.2f}x (32x64x56x56x256x1x1)" in text
    assert "1.49x" not in text and "summary.md" not in text  # the numbers before split-K


def test_conv_walkthrough_tap_tiles_by_multiplication_come_from_the_runs():
    text = _text(conv.build())
    before = _bench("results/h200-conv2d_bn_silu-float32-session28.json")
    after = _bench("results/h200-conv2d_bn_silu-float32-session29-final.json")
    for shape in ((32, 64, 56, 56, 256, 1, 1), (8, 128, 80, 80, 256, 3, 2)):
        old, new = before[shape]["tilelab"][0], after[shape]["tilelab"][0]
        assert new < 0.9 * old and after[shape]["tilelab"][2]["windows_by_multiplication"] is True
        label = "x".join(map(str, shape))
        assert f"  {label}: {old:.1f} -> {new:.1f} us, windows_by_multiplication=True" in text


def test_conv_walkthrough_flat_k_steps_come_from_the_library_and_the_runs():
    from tilelab.ops import conv as conv_op

    text = _text(conv.build())
    answers = _answers(text)
    tiny = conv_op.ConvGeometry(1, 2, 4, 4, 3, 3, 3, (1, 1), (1, 1), (1, 1))
    assert conv_op.flat_k_fits(tiny)
    assert answers["flat K steps of 16 for K=18, and lanes masked in all"] == "2, 14"  # against 9 steps, 126 masked
    assert answers["the tuner times flat tiles here (tilelab.ops.conv.flat_k_fits: a tap's channels fill under "
                   "80% of a step)"] == "True"
    runs = [_bench(f"results/h200-conv2d_bn_silu-float16-{run}.json")
            for run in ("session25", "session28", "session28-final")]
    for shape in ((8, 3, 640, 640, 32, 3, 2), (7, 33, 31, 29, 65, 3, 1)):
        tap, flat, final = (run[shape]["tilelab"][0] for run in runs)
        assert runs[1][shape]["tilelab"][2]["flat_k"] is True  # the shipped table's choice, as the run recorded it
        assert final < flat < tap
        label = "x".join(map(str, shape))
        assert f"  {label}: {tap:.1f} -> {flat:.1f} -> {final:.1f} us ({tap / final:.2f}x in all)" in text


def test_conv_walkthrough_leaves_out_whatever_layer_torch_ran_slow(monkeypatch):
    """The rule, not one layer: a run where torch was slow on a layer leaves that one out (the ragged layer, in
    the twenty-eighth session's run)."""
    real = conv.bench_cases

    def slow_torch_on_the_stem(path):
        cases = real(path)
        if path == conv.DENSE_RUN:
            stem = (8, 3, 640, 640, 32, 3, 2)
            cases[stem] = {**cases[stem], "us": {**cases[stem]["us"], "torch": 10 * cases[stem]["us"]["torch"]}}
        return cases

    monkeypatch.setattr(conv, "bench_cases", slow_torch_on_the_stem)
    text = _text(conv.build())
    assert "on 9 CNN layers" in text and "Left out: 8x3x640x640x32x3x2's" in text


def _split_k_lines(text: str) -> list[str]:
    """The split-K section's printed candidate labels, in order."""
    start = text.index("split candidates candidates() adds here")
    lines = text[start:].splitlines()[1:]
    shown = []
    for line in lines:
        if not line.startswith("  ") or "?" in line:
            break
        shown += line.strip().split(", ")
    return shown


def test_conv_walkthrough_split_k_comes_from_the_library():
    from tilelab import tuning as tuning_lib
    from tilelab.ops import conv as conv_op

    text = _text(conv.build())
    answers = _answers(text)
    g = conv_op.ConvGeometry(32, 512, 7, 7, 512, 3, 3, (1, 1), (1, 1), (1, 1))
    m, n, k = g.gemm()
    assert answers["ResNet-50's last 3x3 layer, 32x512x7x7 to 512 channels, pad 1: M, N, K"] == f"{m}, {n}, {k}" == (
        "1568, 512, 4608")
    split = [c for c in conv_op.candidates(g, 2, 132) if conv_op.split_k_of(c) > 1 and not c.windows_by_multiplication]
    tile = split[0]
    assert (tile.block_m, tile.block_n, tile.block_k) == (64, 128, 64)
    assert answers["K steps of a 64x128x64 fp16 tile: KH*KW*cdiv(C_in, BLOCK_K)"] == str(9 * 512 // 64) == "72"
    tiles = tuning_lib.tile_count(m, n, tile)
    assert answers["its tiles (tuning.tile_count) on the H200's 132 SMs"].startswith(f"{tiles}: {132 - tiles} SMs idle")
    assert tiles == 100
    assert answers["split candidates candidates() adds here, fp16 (4 tiles x 2)"] == str(len(split)) == "8"
    assert _split_k_lines(text) == [c.label() for c in split]
    assert answers["the 32x64x56x56 layer above: K steps, split candidates (2 slices need 16)"] == "9, none"
    assert answers["fp32 32x256x14x14x256, 64x128x32 tile: tiles; 4 slices' programs against 4 x 132"] == (
        "196; 784 > 528: S tried 2")
    workspace = conv_op._workspace_shape(g, tile)
    assert answers["the workspace for 64x128x64-g8-w4-s3-sk2, [bundles, tiles, S, BLOCK_M*BLOCK_N] "
                   "(_workspace_shape)"].startswith(f"{list(workspace)}: {math.prod(workspace):,} floats")
    for name in ("ConvConfig.split_k", "hand_in_slice", "sum_of_slices", "conv2d_bn_silu_kernel", "_workspace_shape",
                 "src/tilelab/kernels/matmul_splitk.py", "SPLIT_K_MIN_STEPS = 8", "SPLIT_K_MAX_WAVES = 4",
                 "SPLIT_K_FACTORS = (2, 4)", "slice order"):
        assert name in text, name
    # Every named function exists where the walkthrough says it does.
    from tilelab.kernels import conv as conv_kernels
    from tilelab.kernels import matmul_splitk

    assert {"hand_in_slice", "sum_of_slices"} <= set(vars(matmul_splitk))
    assert "hand_in_slice" in inspect.getsource(conv_kernels.conv2d_bn_silu_kernel.fn)


def test_conv_walkthrough_split_k_follows_the_rule(monkeypatch):
    from tilelab.ops import conv as conv_op

    # Slices of at least 20 K steps: the 72-step tiles can be cut in 2, no longer in 4.
    monkeypatch.setattr(conv_op, "SPLIT_K_MIN_STEPS", 20)
    text = _text(conv.build())
    answers = _answers(text)
    shown = _split_k_lines(text)
    assert shown and all(label.endswith("-sk2") for label in shown), shown
    assert answers["split candidates candidates() adds here, fp16 (4 tiles x 2)"] == str(len(shown)) == "4"
    assert "SPLIT_K_MIN_STEPS = 20" in text
    assert answers["the 32x64x56x56 layer above: K steps, split candidates (2 slices need 40)"] == "9, none"


def test_conv_walkthrough_split_k_measurements_come_from_the_runs():
    from tilelab.ops.conv import ConvConfig

    rows = _text(conv.build()).splitlines()
    shown = 0
    for dtype in ("float16", "bfloat16", "float32"):
        for shape, variants in _bench(f"results/h200-conv2d_bn_silu-{dtype}-split-halves-tuned.json").items():
            us, speedup, config = variants["tilelab"]
            if config.get("split_k", 1) == 1:
                continue
            shown += 1
            after = (f"{us:.1f} us ({speedup:.2f}x, torch {variants['torch'][0]:.1f}) with "
                     f"{ConvConfig(**config).label()}")
            name = f" {'x'.join(map(str, shape))}: "
            matching = [row for row in rows if row.strip().startswith(dtype + " ") and name in row]
            assert len(matching) == 1 and matching[0].endswith(after), (dtype, shape, matching)
    assert shown == 4  # fp16, bf16 and fp32 7x7x512, fp32 14x14x256
    measured = [row for row in rows if re.match(r"\s+(float16|bfloat16|float32)\s+\d+x", row)]
    assert len(measured) == shown, measured  # only the layers whose tuned config split K
    fp16 = next(row for row in rows if row.strip().startswith("float16 ") and "32x512x7x7x512" in row)
    old_us, old_speedup, _ = _bench("results/h200-conv2d_bn_silu-float16-session23.json")[
        (32, 512, 7, 7, 512, 3, 1)]["tilelab"]
    assert f"{old_us:.1f} us ({old_speedup:.2f}x torch) before" in fp16
    assert "41.4 us (1.01x torch) before, 38.2 us (1.11x, torch 42.3)" in fp16
    text = "\n".join(rows)
    assert "29.2 us at S=4" in text and "38.6 us at S=2, 44.5 us at S=4" in text  # the probe logs


def test_conv_walkthrough_groups_come_from_the_library():
    from tilelab.ops import conv as conv_op

    answers = _answers(_text(conv.build()))
    resnext = conv_op.ConvGeometry(32, 128, 56, 56, 128, 3, 3, (1, 1), (1, 1), (1, 1), 32)
    bundle = conv_op.groups_per_tile(resnext)
    assert answers["ResNeXt's 128 channels in 32 groups: input channels per group, and one group's K"] == "4, 36"
    assert answers[f"groups_per_tile: groups in a bundle of at most PACKED_K={conv_op.PACKED_K} input channels"] == (
        str(bundle)) == "8"
    assert answers["depthwise (G = C_in = 64): which kernel"].startswith("direct")


def test_conv_walkthrough_vector_hints_come_from_the_library_and_the_probe():
    import torch

    from tilelab.ops import conv as conv_op

    text = _text(conv.build())
    answers = _answers(text)
    g = conv_op.ConvGeometry(32, 168, 28, 28, 168, 3, 3, (1, 1), (1, 1), (1, 1), 7)
    x = torch.empty(32, 168, 28, 28, device="meta").to(memory_format=torch.channels_last)
    w = torch.empty(168, 24, 3, 3, device="meta").to(memory_format=torch.channels_last)
    assert answers["input channels per group, and their bytes in fp16"] == "24, 48"
    assert answers["vector_hints(x, w, geometry): (X_ALIGN, W_ALIGN)"] == str(conv_op.vector_hints(x, w, g)) == "(8, 8)"
    assert answers["output_hint(y, geometry): Y_ALIGN, the same for C_OUT and y's strides"] == str(
        conv_op.output_hint(x, g)) == "8"
    assert answers["on the H200, fp16, best tile: unhinted, x and w hinted, all hinted"].startswith(
        "127.3 us, 63.7 us, 45.2 us (results/h200-conv-vector-hints-probe-2.log)")
    for name in ("known_multiple", "kernel-inspect --op conv2d_bn_silu --channels 24"):
        assert name in text, name


def test_conv_walkthrough_calls_the_direct_section():
    text = _text(conv.build())
    assert "The fix is fewer instructions, not fewer bytes." in text
    # After the groups and their vector hints, before split-K.
    assert text.index("Vector hints:") < text.index("The direct kernel: MobileNetV2's") < text.index("Split-K:")
    # Every function it sends the reader to exists where it says.
    from tilelab.kernels import conv as conv_kernels
    from tilelab.ops import conv as conv_op

    assert "conv2d_bn_silu_direct_kernel and divide_by_constant in src/tilelab/kernels/conv.py" in text
    assert {"conv2d_bn_silu_direct_kernel", "divide_by_constant"} <= set(vars(conv_kernels))
    assert ("division_magic,\ndirect_multiplier, direct_hint, register_cap and DIRECT_CANDIDATES in "
            "src/tilelab/ops/conv.py") in text
    assert {"division_magic", "direct_multiplier", "direct_hint", "register_cap", "DIRECT_CANDIDATES"} <= set(
        vars(conv_op))
    assert "kernel-bench --op conv2d_bn_silu-grouped" in text and "docs/PERFORMANCE.md" in text
    assert "divide_by_constant" in inspect.getsource(conv_kernels.conv2d_bn_silu_direct_kernel.fn)


def test_conv_walkthrough_direct_division_comes_from_the_library():
    from tilelab.ops.conv import division_magic

    answers = _answers(_text(conv.build()))
    magic, shift = division_magic(56)
    assert answers["division_magic(56), OW of this layer: (magic, shift)"] == str((magic, shift))
    n = 123_456
    assert (n * magic) >> shift == n // 56 == 2204
    assert answers["(123456 * magic) >> shift"] == "2204; 123456 // 56 = 2204: they agree"
    assert answers["pixel 123456 at OH = OW = 56: image, oh, ow"] == str((n // (56 * 56), n // 56 % 56, n % 56))
    assert answers["multiply-adds per output value: KH*KW*C_in/G"] == "9"
    # The walkthrough's mirror of divide_by_constant, at the edges of the 31-bit range and of each quotient.
    for divisor in (1, 7, 14, 28, 56, 112, 3136):
        for value in (0, 1, divisor - 1, divisor, divisor + 1, 2**31 - divisor, 2**31 - 1):
            assert conv.by_multiplication(value, divisor) == value // divisor, (value, divisor)


def test_conv_walkthrough_direct_division_says_when_the_magic_is_wrong(monkeypatch):
    from tilelab.ops import conv as conv_op

    real = conv_op.division_magic
    monkeypatch.setattr(conv_op, "division_magic", lambda d: (real(d)[0] // 2, real(d)[1]))  # half the quotient
    text = _text(conv.build())
    assert "they DIFFER" in text and ": NOT" in text and "they agree" not in text


def test_conv_walkthrough_direct_multiplier_comes_from_the_library(monkeypatch):
    from tilelab.ops import conv as conv_op

    layer = conv_op.ConvGeometry(32, 64, 56, 56, 128, 3, 3, (1, 1), (1, 1), (1, 1), 64)
    assert conv.bench_geometry(conv.MULTIPLIER_LAYER) == layer
    answers = _answers(_text(conv.build()))
    assert answers["direct_multiplier(geometry)"] == str(conv_op.direct_multiplier(layer)) == "2"
    assert answers["a 64-channel-wide tile: input channels one load covers"] == "32"
    assert answers["output channels 0 to 7 read input channels (c // (C_out/G))"] == "[0, 0, 1, 1, 2, 2, 3, 3]"
    monkeypatch.setattr(conv_op, "direct_multiplier", lambda g: 4)
    answers = _answers(_text(conv.build()))
    assert answers["direct_multiplier(geometry)"] == "4"
    assert answers["a 64-channel-wide tile: input channels one load covers"] == "16"


def _probe_times(path: str, layer: str) -> dict:
    """A direct probe log's section for `layer`: {label: us}, read independently of the walkthrough."""
    section = re.split(rf"== {layer}[ \n]", (REPO_ROOT / path).read_text(), maxsplit=1)[1].split("\n==", 1)[0]
    rows = (re.match(r" +(.+?) +([\d.]+) us", row) for row in section.splitlines())
    return {row.group(1): float(row.group(2)) for row in rows if row}


def test_conv_walkthrough_direct_measurements_come_from_the_files():
    text = _text(conv.build())
    answers = _answers(text)
    ncu = (REPO_ROOT / "results/h200-ncu-direct-16-64-2-1.log").read_text()
    sm = re.search(r"Compute \(SM\) Throughput +% +([\d.]+)", ncu).group(1)
    dram = re.search(r"DRAM Throughput +% +([\d.]+)", ncu).group(1)
    assert answers["Compute (SM) Throughput and DRAM Throughput, % of peak"] == f"{sm}% and {dram}%" == (
        "78.08% and 19.14%")

    layer = "32x144x56x56x144x3x1x144"
    before, after = (_probe_times(f"results/h200-conv-direct-rows-probe-{t}.log", layer) for t in ("t0", "t2"))
    best = [min(us for label, us in times.items() if label != "torch") for times in (before, after)]
    assert f"best tile tried {best[0]} -> {best[1]} us" in text and best == [58.7, 50.0]
    assert f"the profiled 16x64 on 2 warps {before['16x64x16-g1-w2-s1']} -> {after['16x64x16-g1-w2-s1']} " \
           f"(torch {after['torch']})" in text
    # The bytes the section computes are those the probe's header names.
    moved = answers["bytes that must move, x read once and y written once"]
    probe = (REPO_ROOT / "results/h200-conv-direct-rows-probe-t0.log").read_text()
    assert f"== {layer} ({moved} moved at least)" in probe

    shape = (32, 64, 56, 56, 128, 3, 1, 64)
    old = _bench("results/h200-conv2d_bn_silu-grouped-float16-direct-hints.json")[shape]["tilelab"][0]
    new = _bench("results/h200-conv2d_bn_silu-grouped-float16-session26.json")[shape]
    assert (f"{old:.1f} -> {new['tilelab'][0]:.1f} us (torch {new['torch'][0]:.1f}: cuDNN is slow on this layer, so "
            f"the {new['tilelab'][1]:.0f}x ratio says more about torch") in text
    assert "249.8 -> 36.4 us (torch 744.8" in text and "the 20x ratio" in text


def test_conv_walkthrough_register_caps_come_from_the_files_and_the_library():
    """Part three: Nsight Compute's registers and idle cycles, the programs an SM holds, and both probes' best
    tiles, read from the logs; the caps it names are the library's candidates."""
    from tilelab.ops import conv as conv_op

    text = _text(conv.build())
    answers = _answers(text)
    ncu = (REPO_ROOT / "results/h200-ncu-direct-rows-256-16-4.log").read_text()
    registers = int(re.search(r"Registers Per Thread +register/thread +(\d+)", ncu).group(1))
    assert answers["registers per thread"] == str(registers) == "151"
    # 151 registers allocate as 152; 152 * 128 threads = 19456 of 65536: 3 programs, as Nsight Compute's own limit.
    assert re.search(r"Block Limit Registers +block +3$", ncu, re.M)
    assert answers["programs of 4 warps one SM's 65536 registers hold (allocated 8 at a time)"] == "3"
    assert answers["programs of 4 warps per SM at a cap of 128"] == "4"
    assert answers["% of cycles in which no warp was ready to issue"].startswith("35.02%")

    layer = "32x144x56x56x144x3x1x144"
    order = _probe_times("results/h200-conv-direct-weights-probe.log", layer)
    assert "taps-first copy" in order  # the copy's own time, which the best tile must leave out
    assert "Best tile: 49.1 us on torch's filter, 52.4 on the filter taps first" in text
    caps = _probe_times("results/h200-conv-direct-registers-probe-replays.log", layer)
    assert min(us for label, us in caps.items() if label.endswith("maxnreg -")) == 49.7
    assert "Best tile uncapped 49.7 us, capped 46.6 us (torch 91.2;" in text
    # The caps the probe tried are those the library's candidates carry.
    assert {c.maxnreg for c in conv_op.DIRECT_CANDIDATES} == {0, 80, 96, 128}
    assert "ConvConfig.maxnreg; register_cap" in text


def test_conv_index_helpers_follow_the_kernel_order():
    tiny = conv.geometry(conv.TINY)
    assert [conv.tap_and_channel(k, tiny) for k in (0, 1, 2, 17)] == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (2, 2, 1)]
    assert [conv.k_step(k, tiny, 16) for k in (0, 1, 2, 17)] == [(0, 0), (0, 1), (1, 0), (8, 1)]
    assert conv.source(15, 17, tiny) == ((0, 1, 4, 4), False)  # the last pixel's last tap: past the corner
    scale, shift = conv.fold(gamma=1.0, var=1.0, eps=0.0, beta=0.0, mean=0.0, bias=0.0)
    assert (scale, shift) == (1.0, 0.0)
    # A check with stride and dilation, where a wrong index mapping would not match torch.
    check = conv.im2col_check(conv.geometry(dict(batch=2, c_in=3, h=7, w=6, c_out=4, kh=3, kw=2), stride=2, dil=2))
    assert check["same_columns"] and max(check["explicit"], check["implicit"]) < 1e-12


def test_explain_lists_every_topic():
    from learning import explain
    from learning.walkthroughs import TOPICS

    listed = explain.__doc__.split("Topics:")[1].replace("\n", " ").strip().rstrip(".")
    assert [topic.strip() for topic in listed.split(",")] == list(TOPICS)


def test_epilogue_walkthrough_computes_its_numbers():
    text = _text(epilogue.build())
    answers = {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}
    assert answers["M x N x K = 8192 x 8192 x 1024, fp16: bytes of C"] == "134,217,728 (128 MiB)"
    assert answers["bytes F.gelu moves (read C, write y)"] == "268,435,456"
    gbps = epilogue.copy_bandwidth_gbps()
    assert 3000 < gbps < 4800  # the H200's calibrated copy bandwidth, in GB/s
    assert float(answers[f"at the H200's copy bandwidth ({gbps:,.0f} GB/s, results/h200-calibration.json): us"]) \
        == round(2 * 134217728 / (gbps * 1e3), 1)
    assert answers["two slices' partial sums (2.0, -3.0): relu(a) + relu(b)"] == "2.0"
    assert answers["... relu(a + b), the activation of the tile's real value"] == "0.0"
    r = epilogue.roundings(count=2000, seed=1)
    assert 0 < r["twice_worse"] <= r["differ"] < r["count"]
    assert answers["sm_90 instructions per value of gelu, before and after"] == "30, 16"
    cost = answers["persistent kernel, gelu's cost over its matmul: erff, then the SFU polynomial (us)"]
    assert cost == "70.6, 57.2"  # 298.0 - 227.4 and 289.0 - 231.8: the probe logs' own rows
    for name in ("apply_epilogue", "finish_split_tile", "reciprocal", "exp2", "tilelab.linear",
                 "kernel-bench --op linear", "results/h200-linear-sfu-summary.md"):
        assert name in text, name


def test_epilogue_walkthrough_reads_its_times_from_the_probe_logs():
    """Every probe time the walkthrough quotes appears in the log its comment names."""
    logs = {name: (REPO_ROOT / f"results/h200-linear-epilogue-probe-{name}.log").read_text()
            for name in ("libdevice", "polynomial", "sfu")}
    quoted = {"pingpong bias + gelu, erff": ("libdevice", "pingpong: bias + gelu"),
              "pingpong bias + gelu, polynomial": ("polynomial", "pingpong: bias + gelu"),
              "pingpong bias + gelu, SFU": ("sfu", "pingpong: bias + gelu"),
              "F.gelu(F.linear), SFU call": ("sfu", "torch F.gelu(F.linear(x, w, b))"),
              "persistent matmul, erff call": ("libdevice", "persistent: matmul"),
              "persistent gelu, erff": ("libdevice", "persistent: gelu"),
              "persistent matmul, SFU call": ("sfu", "persistent: matmul"),
              "persistent gelu, SFU": ("sfu", "persistent: gelu")}
    for key, (log, row) in quoted.items():
        first = next(line for line in logs[log].splitlines() if line.strip().startswith(row + " "))
        assert float(first.split()[-4]) == epilogue.PROBE[key], (key, first)


def test_the_walkthroughs_erf_is_the_kernels():
    """The polynomial erf within Abramowitz and Stegun's bound, odd, and its coefficients the kernels' own."""
    import inspect
    import math

    from tilelab.kernels import matmul as kernels

    assert max(abs(epilogue.erf_polynomial(i / 50) - math.erf(i / 50)) for i in range(-400, 401)) <= 1.5e-7
    assert epilogue.erf_polynomial(-0.7) == -epilogue.erf_polynomial(0.7)
    source = inspect.getsource(kernels.gelu.fn)
    for coefficient in (epilogue.P, *epilogue.A):
        assert repr(coefficient) in source, coefficient


def _answers(text: str) -> dict:
    return {line.split("?")[0].strip(): line.split("->")[1].strip() for line in text.splitlines() if "->" in line}


def test_fp8_walkthrough_runs_without_torch_and_prints_its_numbers():
    from .helpers import run_module

    result = run_module("learning.explain", "fp8", fresh_python=True)  # -S: the standard library only
    assert result.returncode == 0, result.stderr
    assert "No torch here" in result.stdout
    answers = _answers(result.stdout)
    assert answers["patterns that are NaN; infinities"] == "2 (0x7F, 0xFF: S.1111.111); none"
    assert answers["largest finite (0x7E = 0.1111.110)"] == "448 = 1.75 * 2**8"
    assert answers["smallest normal, smallest subnormal"] == "0.015625 = 2**-6, 0.001953125 = 2**-9"
    assert answers["spacing of the values near 1, 100, 400"] == "0.125, 8, 32"
    assert answers["0.1 becomes"] == "0.101562 (1.6% off)"
    assert answers["300 becomes"] == "288 (4.0% off)"
    assert answers["500 becomes"] == "448 (10.4% off)"
    assert answers["alone: scale; the six values' relative errors"].startswith("0.001116; 0.0%, 0.0%")
    assert answers["with 1000: scale; the six values' relative errors"].startswith("2.232;")
    assert answers["with 1000: scale; the six values' relative errors"].endswith("100.0%")
    assert answers["... once per element of C"] == "6.71e+07 (16384x fewer)"
    assert answers["B stored [N, K] (nn.Linear's weight: [out, in]), seen as bt.t(): strides"] == "(1, 4096)"
    assert answers["scaled_matmul with the row-major B"].startswith('tilelab.AlignmentError: "b must be K-major')
    assert answers["that error in float32's half steps (2**-24), and in the model's (2**-14)"] == "535, 0.52"
    assert "1x1x16, B strides (1, 16), torch.float32, fast False: 3.19e-05" in result.stdout
    assert "8192x8192x8192: fast 1.02x, promoted 0.74x" in result.stdout
    assert "acc = acc * scale" in result.stdout and "scale = tl.load(scale_a_ptr)" in result.stdout
    fast = [answers[f"K={k:>5}, {max(4, 32768 // k):>3} dots: error of fast | promoted (every 128) | float32"]
            for k in (256, 4096, 65536)]
    assert [float(row.split(" | ")[0]) for row in fast] == sorted(float(row.split(" | ")[0]) for row in fast)


def test_fp8_walkthrough_shows_torch_s_conversion_when_torch_is_here():
    torch = pytest.importorskip("torch")
    answers = _answers(_text(fp8.build()))
    overflow = "448" if _torch_saturates_e4m3(torch) else "nan"  # 500 past the largest finite: see below
    assert answers[f"torch {torch.__version__}, the same four"] == f"0.101562, 3.25, 288, {overflow}"


def _torch_saturates_e4m3(torch) -> bool:
    """torch 2.13 turns a float past e4m3's range into 448 (pytorch/pytorch#178817); torch 2.11 into NaN."""
    return torch.tensor([1e6]).to(torch.float8_e4m3fn).float().item() == 448


def test_e4m3_decoder_and_rounding_agree_with_torch():
    import math

    torch = pytest.importorskip("torch")
    theirs = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn).double().tolist()
    ours = [fp8.decode(bits) for bits in range(256)]
    assert [math.isnan(v) for v in ours] == [math.isnan(v) for v in theirs]
    assert [v for v in ours if not math.isnan(v)] == [v for v in theirs if not math.isnan(v)]
    assert [math.copysign(1, v) for v in ours[:2] + ours[128:130]] == [1, 1, -1, -1]  # +0 and -0 kept apart
    # Rounding: random float32 values over the whole range, every tie between two neighbours, and overflow.
    generator = torch.Generator().manual_seed(0)
    values = torch.randn(4000, generator=generator) * torch.logspace(-4, 3, 4000).double().float()
    mids = [(a + b) / 2 for a, b in zip(fp8.MAGNITUDES, fp8.MAGNITUDES[1:], strict=False)]
    extra = torch.tensor(mids + [-m for m in mids] + [448.0, 460.0, 464.0, 500.0, 1e6, -1e6, 1e-5, 0.1, 3.3, 300.0])
    values = torch.cat([values, extra.float()])
    expected = values.to(torch.float8_e4m3fn).double().tolist()
    ours = [fp8.to_e4m3(v) for v in values.double().tolist()]
    in_range = [abs(v) <= 464 for v in values.tolist()]  # 464: the tie between 448 and the 480 that NaN took
    assert [o for o, keep in zip(ours, in_range, strict=True) if keep] == [
        e for e, keep in zip(expected, in_range, strict=True) if keep]
    past = [e for e, keep in zip(expected, in_range, strict=True) if not keep]
    assert len(past) > 100
    if _torch_saturates_e4m3(torch):  # as the walkthrough's own rounding does
        assert [o for o, keep in zip(ours, in_range, strict=True) if not keep] == past
        assert torch.tensor([float("inf")]).to(torch.float8_e4m3fn).item() == 448
    else:
        assert all(math.isnan(v) for v in past), "older torch: NaN past the range, as the walkthrough says"


def test_fp8_walkthrough_reads_the_h200_probe():
    """The probe log's rows as the walkthrough reads them, and what it says of them."""
    measured = fp8.probe_errors((REPO_ROOT / fp8.MEASURED).read_text())
    assert sorted(measured) == [256, 1024, 4096, 16384, 65536]
    assert measured[256]["tilelab fast"] == 2.10e-04 and measured[65536]["torch._scaled_mm fast"] == 3.70e-03
    for k, row in measured.items():  # promoted is level; the rounding model is nearer than the truncating one
        assert 1.0e-4 < row["tilelab promoted"] < 1.5e-4, k
        fast, rounded, truncated = row["tilelab fast"], row["model fast, rounded"], row["model fast, truncated"]
        assert abs(math.log(fast / rounded)) < abs(math.log(truncated / fast)), k
    text = _text(fp8.build())
    assert "7.0e-03 | 1.3e-04; 3.5e-03 | 1.3e-04; 5.0e-01" in text


def test_fp8_rounding_helpers():
    assert fp8.round_fraction(1 + 2**-14) == 1.0  # a tie: to the even neighbour
    assert fp8.round_fraction(1 + 3 * 2**-14) == 1 + 2**-12  # a tie: to the even neighbour, upward
    assert fp8.round_fraction(1 + 2**-13) == 1 + 2**-13  # representable: 13 fraction bits
    assert fp8.round_fraction(-3.0 - 2**-13) == -3.0  # 3 = 1.5 * 2: its step is 2**-12, a tie to even
    assert fp8.round_fraction(3.0 + 2**-12) == 3.0 + 2**-12
    assert fp8.round_fraction(0.0) == 0.0
    assert fp8.to_float32(0.1) == struct.unpack("f", struct.pack("f", 0.1))[0] != 0.1
    assert [fp8.spacing(x) for x in (0.0, 1.0, 100.0, 447.0)] == [2**-9, 0.125, 8.0, 32.0]


def test_fp8_accumulation_model_grows_for_fast_and_not_for_promoted():
    """A float64 sum would have no error at all; a float32 one about 1e-7: the model must keep 14 bits."""
    small, large = fp8.relative_errors(256, 32, seed=3), fp8.relative_errors(16384, 4, seed=3)
    assert large["fast"] > 4 * small["fast"]
    assert large["fast"] > 1e-4 and small["fast"] > 2**-13 / 10
    assert large["promoted"] < large["fast"] / 4
    assert large["promoted"] < 3 * small["promoted"]
    assert large["float32"] < 1e-5
    # Within one block promotion has nothing to split; 1 + 2**-14 is a tie that rounds back to 1, every time.
    products = [1.0] + [2**-14] * 100
    sums = fp8.accumulate(products)
    assert sums["fast"] == sums["promoted"] == 1.0 and sums["exact"] == sums["float32"] == 1 + 100 * 2**-14
    assert fp8.accumulate(products, bits=52)["fast"] == sum(products)  # 53 bits: float64's own running sum


def test_fp8_walkthrough_cites_what_exists():
    import re

    text = _text(fp8.build())
    for path, names in fp8.CITED.items():
        assert (fp8.ROOT / path).exists(), path
        assert path in text or path.rsplit("/", 1)[1] in text, path
        source = (fp8.ROOT / path).read_text()
        for name in names:
            assert re.search(rf"^\s*(def |async def )?{re.escape(name)}\b", source, re.M), (path, name)
            assert name in text, name
    for command in ("kernel-inspect --op scaled_matmul", "kernel-bench --op scaled_matmul", "--accumulate promoted"):
        assert command in text, command
    cli = (fp8.ROOT / "src/tilelab/inspect/cli.py").read_text()
    assert '"scaled_matmul"' in cli and '"--accumulate"' in cli
