"""PNG plots for `kernel-bench report`: one row per result file.

1. rate per shape and variant (grouped bars, log scale: shapes span 1000x)
2. speedup vs torch per shape (bars; the line at 1 is parity)
3. roofline: each timed case at its arithmetic intensity, under the ceilings

matplotlib is imported here only, so neither the library nor the rest of
kernel-bench needs it.
"""

from pathlib import Path

from tilelab.bench import roofline
from tilelab.bench.console import variant_names
from tilelab.bench.report import several_ops, shape_label


def _rate(v: dict, metric: str) -> float | None:
    return v["tflops"] if metric == "tflops" else v["gbps"]


def render(documents: list[dict], names: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    rows = len(documents)
    fig, axes = plt.subplots(rows, 3, figsize=(21, 5.5 * rows), squeeze=False)
    for row, (document, name) in enumerate(zip(documents, names, strict=True)):
        cases = document["cases"]
        variants = variant_names(cases)
        colors = {v: plt.cm.tab10(i % 10) for i, v in enumerate(variants)}
        gpu = (document["environment"]["gpu"] or {}).get("name", "interpreter")
        title = f"{name} ({', '.join(document['settings']['dtypes'])}, {gpu})"
        _rates(axes[row][0], cases, variants, colors, title)
        _speedups(axes[row][1], cases, variants, colors, title)
        _roofline(axes[row][2], cases, variants, colors, document.get("ceilings"), title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _log_scale_if_timed(ax, timed: bool, axes: str = "y") -> None:
    """Log axes need positive data: a check-only file has none, so say so on the panel instead."""
    if not timed:
        ax.text(0.5, 0.5, "no timed variants\n(a --check-only run?)", ha="center", va="center",
                transform=ax.transAxes, fontsize=11, color="gray")
        return
    if "x" in axes:
        ax.set_xscale("log")
    if "y" in axes:
        ax.set_yscale("log")


def _legend(ax, fontsize: int) -> None:
    """A legend only when something is labelled: matplotlib warns about an empty one (check-only files)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=fontsize)


def _case_labels(cases: list[dict]) -> list[str]:
    multiple_dtypes = len({c["dtype"] for c in cases}) > 1
    with_op = several_ops(cases)
    return [shape_label(c, with_op) + (f"\n{c['dtype']}" if multiple_dtypes else "") for c in cases]


def _rates(ax, cases, variants, colors, title):
    width = 0.8 / max(len(variants), 1)
    metric = "tflops" if all(c.get("metric", "tflops") == "tflops" for c in cases) else "gbps"
    timed = False
    for i, name in enumerate(variants):
        xs, ys = [], []
        for x, case in enumerate(cases):
            v = next((v for v in case["variants"] if v["name"] == name), None)
            if v and v["timing"] and _rate(v, metric):
                xs.append(x + (i - (len(variants) - 1) / 2) * width)
                ys.append(_rate(v, metric))
        timed = timed or bool(ys)
        ax.bar(xs, ys, width, label=name, color=colors[name])
    ax.set_xticks(range(len(cases)), _case_labels(cases), rotation=45, ha="right", fontsize=8)
    _log_scale_if_timed(ax, timed)
    ax.set_ylabel("TFLOP/s (median)" if metric == "tflops" else "GB/s (median)")
    ax.set_title(f"Throughput: {title}", fontsize=10)
    _legend(ax, fontsize=8)
    ax.grid(axis="y", alpha=0.3, which="both")


def _speedups(ax, cases, variants, colors, title):
    others = [v for v in variants if v != "torch"]
    width = 0.8 / max(len(others), 1)
    for i, name in enumerate(others):
        xs, ys = [], []
        for x, case in enumerate(cases):
            v = next((v for v in case["variants"] if v["name"] == name), None)
            if v and v["speedup_vs_torch"] is not None:
                xs.append(x + (i - (len(others) - 1) / 2) * width)
                ys.append(v["speedup_vs_torch"])
        ax.bar(xs, ys, width, label=name, color=colors[name])
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(cases)), _case_labels(cases), rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("speedup vs torch (>1: faster)")
    ax.set_title(f"Speedup vs torch: {title}", fontsize=10)
    _legend(ax, fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _roofline(ax, cases, variants, colors, ceilings, title):
    intensities = [c["intensity"] for c in cases if c["intensity"]]
    timed = False
    for name in variants:
        xs, ys = [], []
        for case in cases:
            v = next((v for v in case["variants"] if v["name"] == name), None)
            if v and v["tflops"] and case["intensity"]:
                xs.append(case["intensity"])
                ys.append(v["tflops"])
        if xs:
            timed = True
            ax.scatter(xs, ys, label=name, color=colors[name], s=25, zorder=3)
    if ceilings and intensities:
        lo, hi = min(intensities) / 2, max(intensities) * 2
        bandwidth = ceilings.get("memory_gbps")
        keys = sorted({roofline.compute_key(c["dtype"], c["precision"]) for c in cases})
        for key in keys:
            peak = roofline.compute_peak(ceilings, key)
            if not peak or not bandwidth:
                continue
            knee = peak * 1e3 / bandwidth  # FLOP/B where the two ceilings meet
            xs = [lo, min(max(knee, lo), hi), hi]
            ax.plot(xs, [min(peak, x * bandwidth / 1e3) for x in xs], color="gray", linestyle="--",
                    label=f"roofline {key} ({ceilings['source']})")
    _log_scale_if_timed(ax, timed, axes="xy")
    ax.set_xlabel("arithmetic intensity (FLOP per byte, minimum traffic)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"Roofline: {title}", fontsize=10)
    _legend(ax, fontsize=7)
    ax.grid(alpha=0.3, which="both")
