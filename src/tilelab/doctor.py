"""`kernel-doctor`: can tilelab run kernels here, and what might bite?

Reports Python, torch, triton and numpy versions, CUDA and the GPU, and
whether Triton kernels really run: a tiny add and a tiny dot are executed in
a fresh process on the interpreter (TRITON_INTERPRET=1, CPU) and, when there
is a GPU, compiled and run on it. The same two kernels are also compiled for
Hopper (sm_90) without running them, as kernel-inspect and the course's
checker do on a machine without a GPU.
"""

import argparse
import importlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

EXIT_OK = 0
EXIT_WARNINGS = 1
EXIT_BROKEN = 2
EXIT_USAGE = 3  # bad arguments: argparse's own 2 would read as EXIT_BROKEN

EXIT_CODES_HELP = """exit codes:
  0  tilelab can run kernels here (on the GPU, or on Triton's interpreter without one); warnings may be printed
  1  as 0, but there were warnings and --strict was given
  2  tilelab cannot run kernels here: torch or triton fails to import, the GPU probe fails,
     or there is no GPU and the interpreter probe fails
  3  bad arguments (an unknown option); nothing was checked
"""

# numpy 2.4 changed behaviour Triton's interpreter (3.x) relies on; pyproject pins numpy<2.3 for CPU installs.
NUMPY_INTERPRETER_LIMIT = (2, 4)

PROBE = '''
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    x = tl.load(x_ptr + offsets, mask=inside)
    y = tl.load(y_ptr + offsets, mask=inside)
    tl.store(out_ptr + offsets, x + y, mask=inside)


@triton.jit
def dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    rows = tl.arange(0, N)
    a = tl.load(a_ptr + rows[:, None] * N + rows[None, :])
    b = tl.load(b_ptr + rows[:, None] * N + rows[None, :])
    tl.store(c_ptr + rows[:, None] * N + rows[None, :], tl.dot(a, b))


device = sys.argv[1]
if device == "sm_90":  # compile for Hopper without running: kernel-inspect and the course's checker need this
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    hopper = GPUTarget("cuda", 90, 32)
    triton.compile(ASTSource(add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                   "BLOCK": "constexpr"}, {(4,): 64}), target=hopper)
    compiled = triton.compile(ASTSource(dot, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
                                              "N": "constexpr"}, {(3,): 16}), target=hopper)
    assert "mma" in compiled.asm["ptx"], "the dot's PTX has no tensor-core instruction"
    print("probe ok")
    sys.exit(0)
x = torch.arange(100, dtype=torch.float32, device=device)
y = torch.full((100,), 0.5, device=device)
out = torch.empty_like(x)
add[(2,)](x, y, out, 100, BLOCK=64)
assert torch.equal(out, x + y), "add kernel gave wrong values"
a = torch.randn((16, 16), device=device).half()
b = torch.randn((16, 16), device=device).half()
c = torch.empty((16, 16), device=device, dtype=torch.float32)
dot[(1,)](a, b, c, N=16)
ref = a.double() @ b.double()
error = ((c.double() - ref).norm() / ref.norm()).item()
assert error < 1e-2, f"dot kernel relative error {error:.2e}"
print("probe ok")
'''


def version_tuple(version: str) -> tuple[int, ...]:
    """'2.4.1+cpu' -> (2, 4, 1); stops at the first non-numeric part."""
    numbers = []
    for part in re.split(r"[.+-]", version):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


def required_triton(torch_requirements: list[str] | None) -> str | None:
    """The triton version torch's wheel pins ('triton==3.6.0; ...' or 'pytorch-triton==...'), if any."""
    for requirement in torch_requirements or []:
        if m := re.match(r"^\s*(?:pytorch-)?triton\s*==\s*([\w.+]+)", requirement):
            return m.group(1)
    return None


def _import_version(module: str) -> tuple[str | None, str | None]:
    try:
        imported = importlib.import_module(module)
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"
    try:
        return getattr(imported, "__version__", None) or importlib.metadata.version(module), None
    except importlib.metadata.PackageNotFoundError:
        return "unknown version", None


def run_probe(device: str, interpret: bool, timeout: int = 300) -> tuple[bool, str]:
    """Run the probe kernels in a fresh process; (worked, last line of output or error)."""
    env = dict(os.environ)
    env["TRITON_INTERPRET"] = "1" if interpret else "0"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "tilelab_doctor_probe.py"  # Triton reads kernel source from a real file
        script.write_text(PROBE)
        try:
            done = subprocess.run([sys.executable, str(script), device], env=env, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout} s"
    output = (done.stdout + done.stderr).strip().splitlines()
    last = output[-1] if output else ""
    return done.returncode == 0 and "probe ok" in done.stdout, last


def diagnose(run_probes: bool = True) -> dict:
    """Every finding, as data: versions, GPU, probes, warnings, problems."""
    report: dict = {"versions": {"python": sys.version.split()[0]}, "warnings": [], "problems": [],
                    "gpus": [], "probes": {}}
    versions = report["versions"]
    for module in ("torch", "triton", "numpy", "rich", "matplotlib"):
        versions[module], error = _import_version(module)
        if error and module in ("torch", "triton", "numpy"):
            report["problems"].append(f"cannot import {module}: {error}")
        elif error:
            report["warnings"].append(f"{module} is missing: kernel-bench/kernel-inspect need it "
                                      "(pip install 'tilelab[tools]')")
    if versions["torch"] is None:
        return report

    import torch

    report["cuda_available"] = torch.cuda.is_available()
    report["torch_cuda"] = torch.version.cuda
    if torch.version.cuda is None:
        report["warnings"].append("torch is a CPU-only build: kernels run on Triton's interpreter only, and "
                                  "kernel-bench can check but not time")
    elif not report["cuda_available"]:
        report["warnings"].append(f"torch is built for CUDA {torch.version.cuda} but sees no GPU "
                                  "(driver missing, or CUDA_VISIBLE_DEVICES hides it)")
    for index in range(torch.cuda.device_count() if report["cuda_available"] else 0):
        props = torch.cuda.get_device_properties(index)
        report["gpus"].append({"index": index, "name": props.name, "capability": f"{props.major}.{props.minor}",
                               "sm_count": props.multi_processor_count,
                               "l2_bytes": getattr(props, "L2_cache_size", None),
                               "memory_bytes": props.total_memory})
        if props.major < 8:
            report["warnings"].append(f"GPU {index} ({props.name}) is sm_{props.major}{props.minor}: tilelab's "
                                      "tensor-core paths need sm_80 or newer")

    try:
        torch_requirements = importlib.metadata.requires("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_requirements = None
    report["torch_requires_triton"] = required_triton(torch_requirements)
    if versions["triton"] and report["torch_requires_triton"]:
        wanted, have = report["torch_requires_triton"], versions["triton"]
        if version_tuple(wanted)[:2] != version_tuple(have)[:2]:
            report["warnings"].append(f"torch {versions['torch']} was built against triton {wanted} but triton "
                                      f"{have} is installed: torch.compile and kernels may misbehave")

    if versions["numpy"] and version_tuple(versions["numpy"])[:2] >= NUMPY_INTERPRETER_LIMIT:
        report["warnings"].append(f"numpy {versions['numpy']} with Triton's interpreter: numpy >= 2.4 breaks it "
                                  "(CPU installs pin numpy<2.3); GPU runs are unaffected")
    if os.environ.get("TRITON_INTERPRET") == "1" and report["cuda_available"]:
        report["warnings"].append("TRITON_INTERPRET=1 is set although a GPU is present: kernels will run "
                                  "on the CPU interpreter, slowly")

    if versions["triton"]:
        from tilelab import env

        report["gluon"] = env.has_gluon()
        if not report["gluon"] and any(gpu["capability"].startswith("9.") for gpu in report["gpus"]):
            report["warnings"].append("Triton's Gluon cannot be imported: on this Hopper GPU, tf32 with a row-major "
                                      "B copies B instead of taking the registers path, and fp16/bf16 with a short "
                                      "K take the persistent kernel instead of the pingpong one")
    if run_probes and versions["triton"]:
        worked, detail = run_probe("cpu", interpret=True)
        report["probes"]["interpreter"] = {"ok": worked, "detail": detail}
        if report["cuda_available"]:
            worked, detail = run_probe("cuda", interpret=False)
            report["probes"]["gpu"] = {"ok": worked, "detail": detail}
            if not worked:
                report["problems"].append(f"a Triton kernel failed to compile or run on the GPU: {detail}")
        elif not report["probes"]["interpreter"]["ok"]:
            report["problems"].append(f"no GPU, and Triton's interpreter failed: {detail}")
        if report["cuda_available"] and not report["probes"]["interpreter"]["ok"]:
            report["warnings"].append(f"Triton's interpreter does not work here (fine for GPU runs): {detail}")
        worked, detail = run_probe("sm_90", interpret=False)
        report["probes"]["sm_90 compile"] = {"ok": worked, "detail": detail}
        if not worked:
            report["warnings"].append("compiling for sm_90 without a GPU fails here, which kernel-inspect and the "
                                      f"course's compile check need (kernels still run): {detail}")
    return report


def exit_code(report: dict, strict: bool) -> int:
    if report["problems"]:
        return EXIT_BROKEN
    if report["warnings"] and strict:
        return EXIT_WARNINGS
    return EXIT_OK


def print_report(report: dict) -> None:
    try:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
    except ImportError:
        print(json.dumps(report, indent=1))
        return
    table = Table(title="kernel-doctor")
    table.add_column("check")
    table.add_column("found")
    for name, version in report["versions"].items():
        table.add_row(name, version or "[red]not importable[/]")
    if "cuda_available" in report:
        table.add_row("torch CUDA build", report["torch_cuda"] or "none (CPU-only)")
        table.add_row("CUDA available", "yes" if report["cuda_available"] else "no")
        table.add_row("triton torch expects", report.get("torch_requires_triton") or "not declared")
    if "gluon" in report:
        table.add_row("Gluon (registers and pingpong paths)",
                      "importable" if report["gluon"] else "[yellow]not importable[/]")
    for gpu in report["gpus"]:
        table.add_row(f"GPU {gpu['index']}", f"{gpu['name']}, sm_{gpu['capability'].replace('.', '')}, "
                                             f"{gpu['sm_count']} SMs, L2 {(gpu['l2_bytes'] or 0) >> 20} MiB")
    for name, probe in report["probes"].items():
        status = "[green]works[/]" if probe["ok"] else f"[red]fails[/]: {escape(probe['detail'])}"
        table.add_row(f"{name} probe", status)
    console = Console()
    console.print(table)
    for warning in report["warnings"]:
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    for problem in report["problems"]:
        console.print(f"[red]problem:[/] {escape(problem)}")
    code = exit_code(report, strict=False)
    console.print("[green]tilelab can run kernels here[/]" if code == EXIT_OK
                  else "[red]tilelab cannot run kernels here[/]")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits EXIT_USAGE: argparse's 2 is kernel-doctor's EXIT_BROKEN."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog="kernel-doctor",
        description="Check that tilelab can run Triton kernels here (GPU or interpreter) and warn about "
                    "known problems: numpy >= 2.4 with the interpreter, CPU-only torch, triton/torch mismatch.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when there are warnings")
    parser.add_argument("--no-probe", action="store_true", help="skip running the probe kernels (faster)")
    args = parser.parse_args(argv)
    report = diagnose(run_probes=not args.no_probe)
    report["exit_code"] = exit_code(report, args.strict)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)
    return report["exit_code"]


if __name__ == "__main__":
    raise SystemExit(main())
