"""Provenance: source hash, git state, nvidia-smi parsing, the command line."""

import shutil
import sys

import pytest

from tilelab.bench import environment


def test_package_hash_covers_every_source_file(tmp_path):
    root = tmp_path / "pkg"
    shutil.copytree(environment.PACKAGE_ROOT, root, ignore=shutil.ignore_patterns("__pycache__"))
    before, count = environment.package_sha256(root)
    assert len(before) == 64 and count > 5
    assert environment.package_sha256(root)[0] == before  # deterministic
    kernel = root / "kernels" / "matmul.py"
    kernel.write_text(kernel.read_text() + "\n# one more line\n")
    assert environment.package_sha256(root)[0] != before
    (root / "kernels" / "matmul.py").rename(root / "kernels" / "renamed.py")
    assert environment.package_sha256(root)[0] != before


def test_git_state_is_null_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv("TILELAB_SOURCE_COMMIT", raising=False)
    assert environment.git_state(tmp_path) == {"commit": None, "dirty": None}


def test_git_state_takes_the_commit_named_for_a_copy_without_git(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELAB_SOURCE_COMMIT", "ab" * 20)
    assert environment.git_state(tmp_path) == {"commit": "ab" * 20, "dirty": None}
    assert environment.source_state()["git_commit"] == "ab" * 20


def test_git_state_inside_this_checkout(monkeypatch):
    monkeypatch.delenv("TILELAB_SOURCE_COMMIT", raising=False)
    state = environment.git_state()
    if state["commit"] is None:  # an installed copy, not a checkout
        return
    assert len(state["commit"]) == 40 and isinstance(state["dirty"], bool)


def test_nvidia_smi_line_parsing():
    parsed = environment.parse_nvidia_smi_line("570.86.15, 1980, 1980, 3201, 3201, 700.00, Enabled")
    assert parsed == {"driver_version": "570.86.15", "sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980,
                      "memory_clock_mhz": 3201, "max_memory_clock_mhz": 3201, "power_limit_w": 700,
                      "persistence_mode": "Enabled"}
    assert environment.parse_nvidia_smi_line("550.1, [N/A], 1980, N/A, 3201, 700.5, Disabled")["sm_clock_mhz"] is None


def test_command_line_is_quoted_as_typed(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/usr/bin/kernel-bench"])
    line = environment.command_line(["--op", "matmul", "--output", "my results/x.json"])
    assert line == "kernel-bench --op matmul --output 'my results/x.json'"


@pytest.mark.parametrize("main,expected", [
    ("/repo/src/tilelab/bench/__main__.py", "python -m tilelab.bench --op matmul"),
    ("/venv/lib/python3.11/site-packages/pytest/__main__.py", "kernel-bench --op matmul"),  # someone else's -m
])
def test_command_line_names_python_dash_m_only_for_tilelab_modules(monkeypatch, main, expected):
    monkeypatch.setattr(sys, "argv", [main, "--op", "matmul"])
    assert environment.command_line() == expected


def test_no_gpu_information_without_cuda():
    assert environment.gpu_info(None) is None
