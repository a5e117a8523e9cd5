"""NVIDIA's binary tools, as shipped inside Triton's wheel (or found on PATH): cuobjdump and ptxas."""

import shutil
import subprocess
import tempfile
from pathlib import Path


def find_tool(name: str) -> str | None:
    """Triton's bundled copy first (its version matches the PTX Triton emits), then PATH."""
    try:
        from triton import knobs

        return getattr(knobs.nvidia, name.replace("-", "_")).path
    except Exception:  # an older Triton without knobs, or a wheel without the binary
        return shutil.which(name)


def _run(args: list[str], timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def _cuobjdump(cubin: bytes, flag: str) -> str | None:
    """`cuobjdump FLAG` on a cubin; None without cuobjdump or when it fails."""
    tool = find_tool("cuobjdump")
    if tool is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        done = _run([tool, flag, str(path)])
        return done.stdout if done.returncode == 0 else None


def sass(cubin: bytes) -> str | None:
    """Disassembly of a cubin via `cuobjdump -sass`; None without cuobjdump."""
    return _cuobjdump(cubin, "-sass")


def res_usage(cubin: bytes) -> str | None:
    """`cuobjdump -res-usage`: registers, static shared and local memory per kernel."""
    return _cuobjdump(cubin, "-res-usage")


def ptxas_verbose(ptx: str, arch: str) -> str | None:
    """`ptxas -v` on the PTX for `arch` (e.g. 'sm_90a'): register and spill report; None without ptxas."""
    tool = find_tool("ptxas")
    if tool is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx)
        done = _run([tool, f"--gpu-name={arch}", "-v", str(source), "-o", str(Path(tmp) / "kernel.cubin")])
        return done.stderr + done.stdout if done.returncode == 0 else None
