"""Compile the learner's kernels for a Hopper GPU (sm_90) as they were launched on Triton's interpreter.

The interpreter runs a kernel as Python, so it accepts code the GPU compiler refuses: a block size without
`tl.constexpr`, a variable first made inside a loop and used after it, a `break`, more shared memory than an SM
has. Without a GPU the check still gets the compiler's word: the worker records each launch of a kernel from the
learner's file as Triton would specialize it for sm_90 (argument types, constants, divisibility), and a separate
process, started without the interpreter so that `triton.jit` gives real JIT functions, compiles those launches
all the way to machine code with the ptxas in Triton's wheel. No GPU is needed for that (docs/SETUP.md).

Usage (internal): python -m learning.checking.gpu_compile LEARNER_FILE LAUNCHES_FILE RESULT_FILE
"""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from pathlib import Path

from .status import Status
from .worker import _relative, load_module

TARGET_NAME = "sm_90"
TARGET_ARCH, WARP_SIZE = 90, 32
SHARED_MEMORY_PER_PROGRAM = 232448  # bytes: the most one sm_90 program may ask for (227 KiB, opt-in)
SPECIALIZATIONS_PER_KERNEL = 3  # a ragged shape or a new tile compiles again; a few cover what a check launches
PART_NAME = f"compiles for {TARGET_NAME}"


def _target():
    from triton.backends.compiler import GPUTarget

    return GPUTarget("cuda", TARGET_ARCH, WARP_SIZE)


@contextmanager
def recording(learner_file: Path):
    """Record, while the block runs on Triton's interpreter, each distinct launch of a kernel defined in
    `learner_file` as JSON that `compile_launch` reads (the fields of triton's serialize_specialization_data).
    Yields the list the records go into. Launches of kernels from elsewhere (the library's) are left out."""
    from triton.compiler import make_backend
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction, create_function_from_signature, serialize_specialization_data

    backend = make_backend(_target())
    learner = str(Path(learner_file).resolve())
    binders: dict[int, tuple] = {}
    seen: dict[str, set] = {}
    launches: list[str] = []
    interpret = InterpretedFunction.run

    def record(kernel, args, kwargs) -> None:
        if id(kernel) not in binders:
            jit = JITFunction(kernel.fn, **kernel.kwargs)
            binders[id(kernel)] = (jit, create_function_from_signature(jit.signature, jit.params, backend))
        jit, binder = binders[id(kernel)]
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constants, attrs = jit._pack_args(backend, kwargs, bound, specialization, options)
        name = kernel.fn.__name__
        # One compile per distinct signature, constants and launch options; divisibility alone does not count.
        key = json.dumps([signature, repr(sorted(constants.items())), options.num_warps, options.num_stages])
        if key in seen.setdefault(name, set()) or len(seen[name]) >= SPECIALIZATIONS_PER_KERNEL:
            return
        seen[name].add(key)
        launches.append(serialize_specialization_data(name, signature, constants, attrs, options, key))

    def run(self, *args, grid, warmup, **kwargs):
        code = getattr(self.fn, "__code__", None)
        if code is not None and str(Path(code.co_filename).resolve()) == learner:
            try:
                record(self, args, kwargs)
            except Exception:  # noqa: BLE001 - arguments Triton cannot specialize: the launch itself will say so
                pass
        return interpret(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run
    try:
        yield launches
    finally:
        InterpretedFunction.run = interpret


def explain_compilation_error(error, learner_file: Path) -> str:
    """'NameError: acc is not defined (learning/exercises/x.py, line 28: c_desc.store(...))' for a Triton
    CompilationError: what the code generator refused, and where in the learner's file."""
    why = error.error_message or (str(error).strip().splitlines() or [""])[-1]
    raised = re.fullmatch(r"(\w+)\((['\"])(.*)\2\)", why, re.DOTALL)  # the repr of a Python error inside
    if raised:
        why = f"{raised[1]}: {raised[3]}"
    elif type(error).__name__ != "CompilationError":  # UnsupportedLanguageConstruct and such name the rule
        why = f"{type(error).__name__}: {why}"
    node, source = getattr(error, "node", None), getattr(error, "src", None) or ""
    if not hasattr(node, "lineno") or not source.strip():
        return why
    # The error counts lines from the function's `def`; find that line in the file.
    file_lines = Path(learner_file).read_text().splitlines()
    first = source.strip().splitlines()[0].strip()
    start = next((i for i, line in enumerate(file_lines) if line.strip() == first), None)
    if start is None:
        return why
    lineno = start + node.lineno
    text = file_lines[lineno - 1].strip() if lineno <= len(file_lines) else ""
    return f"{why} ({_relative(learner_file)}, line {lineno}{': ' + text if text else ''})"


def compile_launch(module, launch: dict, learner_file: Path) -> dict:
    """Compile one recorded launch: {"kernel", "ok", "message", "shared"}; "learners" marks a failure that can
    only be the learner's code (the code generator's CompilationError)."""
    import triton
    import triton.language as tl
    from triton.compiler import ASTSource
    from triton.compiler.errors import CompilationError

    name = launch["name"]
    kernel = getattr(module, name, None)
    if kernel is None or not hasattr(kernel, "fn"):
        return {"kernel": name, "ok": False, "message": f"{name} is no longer a @triton.jit function in the file"}
    constants = {tuple(k): tl.dtype(v) if tl.dtype.is_dtype(v) else
                 tl.constexpr(v["constexpr"]) if isinstance(v, dict) and "constexpr" in v else v
                 for k, v in zip(launch["constant_keys"], launch["constant_vals"], strict=True)}
    attrs = {tuple(k): v for k, v in zip(launch["attrs_keys"], launch["attrs_vals"], strict=True)}
    signature = {k: tuple(v) if isinstance(v, list) else v for k, v in launch["signature"].items()}
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in launch["options"].items()}
    try:
        compiled = triton.compile(ASTSource(kernel, signature, constants, attrs), target=_target(), options=options)
    except CompilationError as error:
        return {"kernel": name, "ok": False, "learners": True,  # the code generator refused the learner's code
                "message": f"{name} does not compile for {TARGET_NAME}: "
                           f"{explain_compilation_error(error, learner_file)}"}
    except Exception as error:  # noqa: BLE001 - a later stage (MLIR passes, ptxas) refused it
        first = (str(error).strip().splitlines() or [""])[0][:300]
        return {"kernel": name, "ok": False,
                "message": f"{name} does not compile for {TARGET_NAME}: {type(error).__name__}: {first}"}
    shared = int(compiled.metadata.shared)
    if shared > SHARED_MEMORY_PER_PROGRAM:
        return {"kernel": name, "ok": False, "shared": shared,
                "message": f"{name} compiles for {TARGET_NAME} but would not launch there: it needs {shared} bytes "
                           f"of shared memory (num_warps={options.get('num_warps')}, "
                           f"num_stages={options.get('num_stages')}), and one program may have at most "
                           f"{SHARED_MEMORY_PER_PROGRAM}; smaller tiles or fewer stages"}
    return {"kernel": name, "ok": True, "shared": shared, "message": ""}


def as_part(compiled: list[dict]) -> dict:
    """The check's part for the compiled launches, in the worker's part format."""
    failed = [c for c in compiled if not c["ok"]]
    kernels = sorted({c["kernel"] for c in compiled})
    if failed:
        return {"name": PART_NAME, "status": Status.ERROR.value, "cases": len(compiled),
                "message": failed[0]["message"]}
    shared = max(c["shared"] for c in compiled)
    launches = f"{len(compiled)} launch{'es' if len(compiled) > 1 else ''}"
    memory = f"; shared memory up to {shared} bytes a program" if shared else ""
    return {"name": PART_NAME, "status": Status.PASS.value, "cases": len(compiled),
            "message": f"{launches} of {', '.join(kernels)} compiled to Hopper machine code{memory}"}


def cannot_compile_here() -> str | None:
    """Why this machine cannot compile for sm_90 at all (a Triton without its NVIDIA backend or ptxas), found by
    compiling a one-line kernel; None when it can. Then a failure says nothing about the learner's code."""
    import triton
    import triton.language as tl
    from triton.compiler import ASTSource

    @triton.jit
    def store_one(x_ptr):
        tl.store(x_ptr, 1.0)

    try:
        triton.compile(ASTSource(store_one, {"x_ptr": "*fp32"}, {}, {}), target=_target())
    except Exception as error:  # noqa: BLE001 - any failure here is the machine's
        return f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:200]}"
    return None


def main(argv: list[str]) -> int:
    """Write {"compiled": [compile_launch results]}, or {"unavailable": why} when this machine cannot compile."""
    learner_file, launches_file, result_file = (Path(a) for a in argv[:3])
    launches = [json.loads(s) for s in json.loads(launches_file.read_text())]
    try:
        module = load_module("learner_compiled", learner_file)
    except Exception as error:  # noqa: BLE001 - the interpreter's run imported it; report, do not crash
        compiled = [{"kernel": "(import)", "ok": False,
                     "message": f"importing the file without the interpreter failed: {type(error).__name__}: "
                                f"{error}"}]
    else:
        compiled = [compile_launch(module, launch, learner_file) for launch in launches]
    if any(not c["ok"] and not c.get("learners") for c in compiled):
        why = cannot_compile_here()
        if why:
            result_file.write_text(json.dumps({"unavailable": why}))
            return 0
    result_file.write_text(json.dumps({"compiled": compiled}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
