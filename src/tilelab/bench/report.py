"""`kernel-bench report`: result files into markdown a reader can check.

Per file: where and how it was measured (GPU, software, source, command,
timing settings, ceilings), then rates and speedups, times with their
spread, the relative errors, and the configuration the tuner chose.
"""

import json
from pathlib import Path

from tilelab.bench import schema, stats
from tilelab.bench.console import best_speedups, variant_names


class ReportError(Exception):
    """A file that is not a kernel-bench result this version can read."""


def load(path: Path) -> dict:
    try:
        document = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ReportError(f"{path} is not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("tool") != "kernel-bench":
        raise ReportError(f"{path} is not a kernel-bench result")
    if document.get("schema_version") != schema.SCHEMA_VERSION:
        raise ReportError(f"{path} has schema_version {document.get('schema_version')!r}; "
                          f"this kernel-bench reads version {schema.SCHEMA_VERSION}")
    problems = schema.validate(document)
    if problems:
        raise ReportError(f"{path} does not match the schema: " + "; ".join(problems[:5]))
    return document


def shape_label(case: dict, with_op: bool = False) -> str:
    shape = "×".join(str(d) for d in case["shape"])
    return f"{case['op']} {shape}" if with_op else shape


def several_ops(cases: list[dict]) -> bool:
    """Whether rows need the op named: bmm and bmm_nt (an --op all run) share shapes and dtypes."""
    return len({c["op"] for c in cases}) > 1


def _fmt(value, spec: str, empty: str = "–") -> str:
    return empty if value is None else format(value, spec)


def _bytes(n: int | None) -> str:
    return "?" if n is None else f"{n / 2**20:.0f} MiB"


def header(document: dict, name: str) -> list[str]:
    settings, env, source = document["settings"], document["environment"], document["source"]
    gpu, sw = env["gpu"], env["software"]
    ops = ", ".join(settings["ops"])
    dtypes = ", ".join(settings["dtypes"])
    where = gpu["name"] if gpu else "Triton interpreter (CPU)"
    lines = [f"## {name}: {ops} {dtypes} on {where}", "", "| | |", "|---|---|"]
    if gpu:
        clocks = ""
        if gpu.get("sm_clock_mhz") is not None:
            clocks = f", SM clock {gpu['sm_clock_mhz']} / max {gpu.get('max_sm_clock_mhz')} MHz"
        lines.append(f"| GPU | {gpu['name']}, compute capability {gpu['capability']}, {gpu['sm_count']} SMs, "
                     f"L2 {_bytes(gpu.get('l2_bytes'))}, driver {gpu.get('driver_version') or '?'}{clocks} |")
    lines.append(f"| Software | Python {sw['python']}, torch {sw['torch']} (CUDA {sw['cuda'] or 'none'}), "
                 f"triton {sw['triton']}, numpy {sw['numpy']} |")
    commit = source["git_commit"][:12] if source["git_commit"] else "not a git checkout"
    dirty = {True: " (uncommitted changes)", False: "", None: ""}[source["git_dirty"]]
    lines.append(f"| Source | commit {commit}{dirty}; package sha256 `{source['package_sha256'][:16]}…` "
                 f"over {source['package_files']} files |")
    lines.append(f"| Command | `{document['command']}` |")
    if settings["check_only"]:
        lines.append("| Timing | none (--check-only) |")
    else:
        lines.append(f"| Timing | {settings['timing']}, {settings['cache']} L2, {settings['warmup']} warmup calls, "
                     f"{settings['samples']} samples, seed {settings['seed']}; median reported |")
    ceilings = document["ceilings"]
    if ceilings:
        peaks = ", ".join(f"{k} {v:,.1f}" for k, v in ceilings["compute_tflops"].items())
        lines.append(f"| Roofline ceilings | {ceilings['source']}: {peaks} TFLOP/s; memory "
                     f"{_fmt(ceilings.get('memory_gbps'), ',.0f')} GB/s |")
    else:
        lines.append("| Roofline ceilings | none known for this GPU (run `kernel-bench calibrate`) |")
    lines.append(f"| Created | {document['created_utc']} |")
    lines.append("")
    if document["summary"].get("aborted"):
        lines += [f"**The sweep stopped early**: {document['summary']['aborted']}. Only the cases that finished "
                  "are here.", ""]
    return lines


def _table(head: list[str], rows: list[list[str]], right_from: int = 2) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def _status_text(v: dict) -> str | None:
    if v["status"] == "ok" and v["timing"] is None and v.get("timing_error"):
        return "untimed"
    if v["status"] != "ok":
        return v["status"].upper() if v["status"] in ("wrong", "failed") else v["status"]
    return None


def rates_table(cases: list[dict], names: list[str]) -> list[str]:
    with_op = several_ops(cases)
    rows = []
    for case in cases:
        by_name = {v["name"]: v for v in case["variants"]}
        metric = case.get("metric", "tflops")
        row = [shape_label(case, with_op), case["dtype"]]
        for name in names:
            v = by_name.get(name)
            if v is None:
                row.append("")
                continue
            text = _status_text(v)
            if text is None:
                rate = v["tflops"] if metric == "tflops" and v["tflops"] is not None else v["gbps"]
                text = f"{rate:,.1f}" if rate is not None else "ok, untimed"  # a --check-only run
                if rate is not None and not v.get("baseline") and v["speedup_vs_torch"] is not None:
                    text += f" ({v['speedup_vs_torch']:.2f}×)"
            row.append(text)
        tilelab = [v for v in case["variants"] if v["name"].startswith("tilelab") and v["roofline_fraction"]]
        best = max(tilelab, key=lambda v: v["roofline_fraction"], default=None)
        row.append(f"{best['roofline_fraction']:.0%} ({best['name']})" if best else "–")
        rows.append(row)
    unit = "TFLOP/s" if all(c.get("metric", "tflops") == "tflops" for c in cases) else "TFLOP/s or GB/s"
    head = ["shape", "dtype", *names, "best tilelab, of roofline"]
    lines = [f"### Throughput ({unit}, median; × = speedup vs torch)", ""]
    lines += _table(head, rows)
    speedups = best_speedups(cases)
    if speedups:
        lines += [f"Best tilelab variant vs torch, geometric mean over {len(speedups)} case(s): "
                  f"**{stats.geometric_mean(speedups):.2f}×** (faster in "
                  f"{sum(s > 1 for s in speedups)}, slower in {sum(s < 1 for s in speedups)}).", ""]
    return lines


def times_table(cases: list[dict], names: list[str]) -> list[str]:
    with_op = several_ops(cases)
    rows = []
    for case in cases:
        by_name = {v["name"]: v for v in case["variants"]}
        row = [shape_label(case, with_op), case["dtype"]]
        for name in names:
            v = by_name.get(name)
            t = v and v["timing"]
            row.append(f"{t['median_ms']:.4f} ({t['min_ms']:.4f}–{t['max_ms']:.4f})" if t else "")
        rows.append(row)
    return ["### Time per call (ms: median, min–max)", ""] + _table(["shape", "dtype", *names], rows)


def errors_table(cases: list[dict], names: list[str]) -> list[str]:
    with_op = several_ops(cases)
    rows = []
    for case in cases:
        by_name = {v["name"]: v for v in case["variants"]}
        row = [shape_label(case, with_op), case["dtype"]]
        tolerance = None
        for name in names:
            v = by_name.get(name)
            if v is None:
                row.append("")
                continue
            tolerance = v["tolerance"]
            text = _fmt(v["error"], ".1e", "")
            if v["status"] != "ok":
                text = (text + " " if text else "") + v["status"]
            row.append(text)
        row.append(_fmt(tolerance, ".0e"))
        rows.append(row)
    lines = ["### Relative error vs the float64 reference (‖out − ref‖ / ‖ref‖)", ""]
    return lines + _table(["shape", "dtype", *names, "tolerance"], rows)


def plans_table(cases: list[dict]) -> list[str]:
    with_op = several_ops(cases)
    rows = []
    for case in cases:
        for v in case["variants"]:
            plan = v.get("plan") or {}
            if v["name"] != "tilelab" or not plan:
                continue
            config = plan.get("config") or {}
            tile = (f"{config.get('block_m')}×{config.get('block_n')}×{config.get('block_k')}, "
                    f"GROUP_M {config.get('group_m')}, {config.get('num_warps')} warps, "
                    f"{config.get('num_stages')} stages") if config else "not recorded"
            path = str(plan.get("path", "?"))
            if plan.get("line_copies"):  # operands TMA could not read, copied onto lines first
                path += f" ({' and '.join(name.upper() for name in plan['line_copies'])} copied onto lines)"
            rows.append([shape_label(case, with_op), case["dtype"], path, tile])
    if not rows:
        return []
    return ["### What tilelab chose (default variant)", ""] + _table(["shape", "dtype", "path", "config"], rows, 4)


def torch_kernels_table(cases: list[dict]) -> list[str]:
    """The kernels the baseline ran, as its plan recorded them (GPU runs)."""
    from tilelab.bench.kernels import short_name

    with_op = several_ops(cases)
    rows = []
    for case in cases:
        for v in case["variants"]:
            kernels = (v.get("plan") or {}).get("kernels")
            if v.get("baseline") and kernels:
                rows.append([shape_label(case, with_op), case["dtype"],
                             " + ".join(f"`{short_name(k)}`" for k in kernels)])
    if not rows:
        return []
    return ["### What torch ran (one profiled call)", ""] + _table(["shape", "dtype", "kernels"], rows, 3)


def notes(cases: list[dict]) -> list[str]:
    with_op = several_ops(cases)
    lines = []
    for case in cases:
        for v in case["variants"]:
            message = v["message"] or v.get("timing_error")
            if (message and v["status"] != "ok") or v.get("timing_error"):
                lines.append(f"- {shape_label(case, with_op)} {case['dtype']} `{v['name']}`: {v['status']} — "
                             f"{message}")
    return (["### Not timed, and why", ""] + lines + [""]) if lines else []


def render(documents: list[dict], names: list[str], plot_link: str | None = None) -> str:
    lines = ["# kernel-bench report", ""]
    if plot_link:
        lines += [f"![TFLOP/s, speedup vs torch and roofline per case]({plot_link})", ""]
    for document, name in zip(documents, names, strict=True):
        cases = document["cases"]
        variants = variant_names(cases)
        lines += header(document, name)
        if not document["settings"]["check_only"]:
            lines += rates_table(cases, variants)
            lines += times_table(cases, variants)
        lines += errors_table(cases, variants)
        lines += plans_table(cases)
        lines += torch_kernels_table(cases)
        lines += notes(cases)
    return "\n".join(lines).rstrip() + "\n"
