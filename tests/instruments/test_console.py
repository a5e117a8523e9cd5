"""The summary table printed at the end of a sweep."""

from rich.console import Console

from tests.instruments.helpers import synthetic_result
from tilelab.bench import console


def render(cases, title="t"):
    out = Console(width=250, record=True)
    out.print(console.summary_table(cases, title))
    return out.export_text()


def test_timed_table_shows_rates_speedups_and_failures():
    text = render(synthetic_result()["cases"])
    assert "650.0 (0.93x)" in text  # tilelab vs torch at 4096^3
    assert "700.0" in text and "(1.00x)" not in text  # the baseline shows no speedup of its own
    assert "unsupported" in text and "WRONG 5.0e-01" in text
    assert "geometric mean" in text


def test_check_only_table_shows_errors():
    cases = synthetic_result()["cases"]
    for case in cases:
        for v in case["variants"]:
            v.update(timing=None, tflops=None, speedup_vs_torch=None)
    text = render(cases)
    assert "ok 3.0e-04" in text and "relative error vs float64" in text
