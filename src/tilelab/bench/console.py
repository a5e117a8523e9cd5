"""What the terminal shows: a progress bar while sweeping, a summary table at the end."""

import contextlib

from tilelab.bench import stats

STATUS_STYLE = {"wrong": "bold red", "failed": "bold red", "unsupported": "dim"}


@contextlib.contextmanager
def sweep_progress(total_cases: int, enabled: bool = True):
    """Yields (describe, case_done) callbacks driving a rich progress bar on stderr."""
    if not enabled:
        yield (lambda text: None), (lambda: None)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("[bold]cases"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True), transient=False,
    )
    with progress:
        task = progress.add_task("", total=total_cases)
        yield (lambda text: progress.update(task, description=text)), (lambda: progress.advance(task))
        progress.update(task, description="done")


def variant_names(cases: list[dict]) -> list[str]:
    """Variant names in first-seen order across all cases."""
    names: list[str] = []
    for case in cases:
        for v in case["variants"]:
            if v["name"] not in names:
                names.append(v["name"])
    return names


def cell(variant: dict, metric: str) -> tuple[str, str]:
    """(text, style) for one variant of one case."""
    status = variant["status"]
    if status == "wrong":
        error = variant["error"]
        return ("WRONG " + (f"{error:.1e}" if error is not None else "nan/inf"), STATUS_STYLE[status])
    if status in ("failed", "unsupported"):
        return (status, STATUS_STYLE[status])
    if variant["timing"] is None:
        if variant.get("timing_error"):
            return ("untimed", "yellow")
        return (f"ok {variant['error']:.1e}", "green")
    rate = variant["tflops"] if metric == "tflops" and variant["tflops"] is not None else variant["gbps"]
    text = f"{rate:,.1f}"
    if not variant.get("baseline") and variant["speedup_vs_torch"] is not None:
        text += f" ({variant['speedup_vs_torch']:.2f}x)"
    return (text, "")


def best_speedups(cases: list[dict], prefix: str = "tilelab") -> list[float]:
    """Per case, the best speedup vs torch among variants whose name starts with `prefix`."""
    found = []
    for case in cases:
        speedups = [v["speedup_vs_torch"] for v in case["variants"]
                    if v["name"].startswith(prefix) and v["speedup_vs_torch"] is not None]
        if speedups:
            found.append(max(speedups))
    return found


def summary_table(cases: list[dict], title: str):
    from rich.table import Table

    names = variant_names(cases)
    timed = any(v["timing"] for c in cases for v in c["variants"])
    several_ops = len({c["op"] for c in cases}) > 1
    unit = "median TFLOP/s or GB/s (speedup vs torch)" if timed else "relative error vs float64"
    table = Table(title=f"{title}\n{unit}", show_lines=False)
    if several_ops:
        table.add_column("op")
    table.add_column("shape", justify="right", no_wrap=True)
    table.add_column("dtype", no_wrap=True)
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)
    for case in cases:
        by_name = {v["name"]: v for v in case["variants"]}
        metric = case.get("metric", "tflops")
        row = ([case["op"]] if several_ops else []) + ["x".join(map(str, case["shape"])), case["dtype"]]
        for name in names:
            if name in by_name:
                text, style = cell(by_name[name], metric)
                row.append(f"[{style}]{text}[/]" if style else text)
            else:
                row.append("")
        table.add_row(*row)
    speedups = best_speedups(cases)
    if speedups:
        table.caption = (f"best tilelab variant vs torch: geometric mean {stats.geometric_mean(speedups):.2f}x "
                         f"over {len(speedups)} case(s)")
    return table


def wide_console():
    """A rich console for stdout; when that is a file or pipe, wide enough not to squeeze table columns."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=200)


def print_summary(cases: list[dict], summary: dict, title: str) -> None:
    console = wide_console()
    console.print(summary_table(cases, title))
    counts = ", ".join(f"{n} {s}" for s, n in summary["by_status"].items() if n)
    console.print(f"{summary['cases']} case(s), {summary['checked']} variant run(s): {counts}; "
                  f"{summary['timed']} timed" + (f", {summary['timing_errors']} could not be timed"
                                                 if summary.get("timing_errors") else ""))
