"""Where a result came from: the GPU, the software, the exact source and the exact command."""

import datetime
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import torch

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # src/tilelab
SOURCE_SUFFIXES = (".py", ".json")

NVIDIA_SMI_FIELDS = {
    "driver_version": "driver_version",
    "clocks.sm": "sm_clock_mhz",
    "clocks.max.sm": "max_sm_clock_mhz",
    "clocks.mem": "memory_clock_mhz",
    "clocks.max.mem": "max_memory_clock_mhz",
    "power.limit": "power_limit_w",
    "persistence_mode": "persistence_mode",
}


def package_sha256(root: Path = PACKAGE_ROOT) -> tuple[str, int]:
    """sha256 over the package's source files (relative path and bytes, in sorted order), and their count.

    Two results with the same hash ran the same tilelab code, whatever git says.
    """
    digest = hashlib.sha256()
    files = sorted(
        p for p in root.rglob("*")
        if p.is_file() and p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts
    )
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest(), len(files)


def git_state(directory: Path = PACKAGE_ROOT) -> dict:
    """Commit of the checkout holding the package, and whether the package differs from it; nulls outside git.

    TILELAB_SOURCE_COMMIT names the commit instead, for a copy of the tree whose `.git` is missing or stale
    (a GPU machine that receives the working tree): whether that copy differs from the commit is then unknown,
    and `package_sha256` is what identifies the code."""
    named = os.environ.get("TILELAB_SOURCE_COMMIT", "").strip()
    if named:
        return {"commit": named, "dirty": None}
    state = {"commit": None, "dirty": None}
    git = shutil.which("git")
    if git is None:
        return state
    try:
        commit = subprocess.run([git, "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True,
                                timeout=10)
        if commit.returncode != 0:
            return state
        # Only the package's own files: a results file written by an earlier command is not a code change,
        # but a new untracked module is.
        status = subprocess.run([git, "status", "--porcelain", "--", "."], cwd=directory,
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return state
    state["commit"] = commit.stdout.strip() or None
    state["dirty"] = bool(status.stdout.strip()) if status.returncode == 0 else None
    return state


def source_state() -> dict:
    sha, count = package_sha256()
    git = git_state()
    return {"git_commit": git["commit"], "git_dirty": git["dirty"], "package_sha256": sha, "package_files": count}


def command_line(argv: list[str] | None = None, program: str = "kernel-bench") -> str:
    """The command as typed: program name plus its arguments, shell-quoted.

    `python -m tilelab.bench ...` is recorded as such, so the line can be pasted back as it was run.
    """
    args = sys.argv[1:] if argv is None else argv
    main = Path(sys.argv[0])
    if main.name == "__main__.py" and main.parent.parent.name == "tilelab":  # not e.g. `python -m pytest`
        program = f"python -m tilelab.{main.parent.name}"
    return shlex.join([*program.split(), *args])


def nvidia_smi(index: int = 0) -> dict:
    """Clocks, driver and power limit from nvidia-smi; all null when it is absent or fails."""
    found = dict.fromkeys(NVIDIA_SMI_FIELDS.values())
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return found
    query = ",".join(NVIDIA_SMI_FIELDS)
    try:
        done = subprocess.run([smi, f"--query-gpu={query}", "--format=csv,noheader,nounits", f"--id={index}"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return found
    if done.returncode != 0 or not done.stdout.strip():
        return found
    return parse_nvidia_smi_line(done.stdout.strip().splitlines()[0])


def parse_nvidia_smi_line(line: str) -> dict:
    """One CSV line of the query above into named fields; numbers where numbers, None for [N/A]."""
    values = [v.strip() for v in line.split(",")]
    parsed = {}
    for key, raw in zip(NVIDIA_SMI_FIELDS.values(), values, strict=False):
        if not raw or raw.startswith("[") or raw.upper() == "N/A":
            parsed[key] = None
            continue
        try:
            number = float(raw)
            parsed[key] = int(number) if number.is_integer() else number
        except ValueError:
            parsed[key] = raw
    return {key: parsed.get(key) for key in NVIDIA_SMI_FIELDS.values()}


def gpu_info(device: torch.device | None) -> dict | None:
    """The GPU's identity and the numbers that bound its speed; None without CUDA."""
    if device is None or device.type != "cuda":
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    info = {
        "name": props.name,
        "capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "memory_bytes": props.total_memory,
        "index": index,
    }
    info.update(nvidia_smi(index))
    return info


def software_versions() -> dict:
    import numpy

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "triton": triton_version,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
    }


def collect(device: torch.device | None) -> dict:
    return {
        "gpu": gpu_info(device),
        "software": software_versions(),
        # Read directly: importing tilelab.env would import the package, and with it Triton.
        "triton_interpret": os.environ.get("TRITON_INTERPRET", "0") == "1",
    }


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
