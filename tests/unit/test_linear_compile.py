"""`tilelab.linear`'s fused epilogue leaves every matmul launch's machine code alone (sm_90 PTX, no GPU needed).

The pointer, descriptor, persistent and split-K kernels (pointer and descriptor variants) take the epilogue
through trailing parameters with defaults, `bias_ptr=None, ACTIVATION=""` (`apply_epilogue` in
kernels/matmul.py; split-K's `finish_split_tile` applies it to the slices' sum). A matmul launch leaves them to
Triton's binder, which binds the defaults: a None pointer is a constexpr, and the kernels skip the epilogue
statically. Each kernel is compiled three ways here: without the two parameters in its signature (as before
they existed, and as `inspection_source` and kernel-inspect still build it), with them at their defaults (what
a matmul launch compiles), and with a bias and an activation (a linear launch). The first two must give the
same PTX once the source locations (`.loc`, `.file`, debug sections) are stripped; the third must differ, and
keep the tensor cores and TMA.

As in test_hopper_compile: compiling needs real JIT functions, which TRITON_INTERPRET=1 (set by conftest
without a GPU) replaces, so the compiles run in one child process without it.
"""

import collections
import json
import re

import pytest

from tests.helpers import run_without_interpreter

_WORKER = r"""
import dataclasses, json, sys, torch, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul import inspection_attrs, inspection_source

P = matmul_hopper.PERSISTENT_CANDIDATES
HOPPER = {
    "persistent-default": {"config": P[0], "b_k_major": True},  # a linear's B: weight.T, K-major
    "persistent-kn": {"config": P[0]},
    "persistent-whole-tile": {"config": dataclasses.replace(P[0], epilogue_subtile=False), "b_k_major": True},
    "persistent-warp-specialized": {"config": P[3], "b_k_major": True},
    "persistent-flattened": {"config": P[11], "b_k_major": True},
    "persistent-row-classes": {"config": P[0], "row_classes": 8},
    "persistent-bf16": {"config": P[0], "dtype": torch.bfloat16, "b_k_major": True},
    "persistent-fp32": {"config": dataclasses.replace(P[4], block_k=32), "dtype": torch.float32, "b_k_major": True},
}
# Split-K, the kernel name matmul_hopper knows and its options: a split (the last slice sums and writes C) and
# no split (each program writes C), pointer loads and TMA (a linear's B, weight.T, is K-major).
S = {c.label(): c for c in matmul_hopper.SPLIT_K_CANDIDATES}
SPLIT_K = {
    "splitk-sk2": ("splitk", {"config": S["16x64x128-g8-w4-s4-sk2"]}),
    "splitk-sk1": ("splitk", {"config": S["32x64x128-g8-w4-s4"]}),
    "splitk-sk3-fp32": ("splitk", {"config": dataclasses.replace(S["64x128x64-g8-w4-s4-sk3"], block_k=32),
                                   "dtype": torch.float32}),
    "splitk-descriptor-sk4": ("splitk_descriptor", {"config": S["32x64x128-g8-w4-s4-sk4"], "b_k_major": True}),
    "splitk-descriptor-sk1": ("splitk_descriptor", {"config": S["32x64x128-g8-w4-s4"], "b_k_major": True}),
    "splitk-descriptor-kn": ("splitk_descriptor", {"config": S["64x128x64-g8-w4-s4-sk3"]}),
}
TRITON = {
    "pointer-fp16": ("pointer", torch.float16, {}),
    "pointer-fp32": ("pointer", torch.float32, {}),
    "descriptor-fp16": ("descriptor", torch.float16, {"b_k_major": True}),
    "descriptor-row-classes": ("descriptor", torch.float16, {"row_classes": 8}),
    "descriptor-fp32": ("descriptor", torch.float32, {"b_k_major": True}),
}
DEFAULTS = {"bias_ptr": None, "ACTIVATION": ""}


def compile_source(kernel, signature, constexprs, attrs, options):
    source = ASTSource(kernel, signature, constexprs, attrs)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options).asm["ptx"]


def variants(name):
    # (without the parameters, at their defaults, with a bias and gelu): the same source three ways.
    if name in HOPPER or name in SPLIT_K:
        kernel_name, job = ("persistent", HOPPER[name]) if name in HOPPER else SPLIT_K[name]
        out = []
        for epilogue in ({}, None, {"bias": True, "activation": "gelu"}):
            kernel, signature, constexprs, attrs, options = matmul_hopper.inspection_source(
                kernel_name, **job, **(epilogue or {}))
            if epilogue is None:
                signature = {**signature, "bias_ptr": "constexpr", "ACTIVATION": "constexpr"}
                constexprs = {**constexprs, **DEFAULTS}
            out.append(compile_source(kernel, signature, constexprs, attrs, options))
        return out
    path, dtype, options = TRITON[name]
    out = []
    for epilogue in ({}, None, {"bias": True, "activation": "gelu"}):
        kernel, signature, constexprs, config = inspection_source(path, dtype, **options, **(epilogue or {}))
        if epilogue is None:
            signature = {**signature, "bias_ptr": "constexpr", "ACTIVATION": "constexpr"}
            constexprs = {**constexprs, **DEFAULTS}
        out.append(compile_source(kernel, signature, constexprs, inspection_attrs(kernel, signature),
                                  {"num_warps": config.num_warps, "num_stages": config.num_stages}))
    return out


facts = {}
for name in [*HOPPER, *SPLIT_K, *TRITON]:
    try:
        facts[name] = variants(name)
    except Exception as e:
        facts[name] = {"error": f"{type(e).__name__}: {e}"[-2000:]}
json.dump(facts, sys.stdout)
"""

CASES = ["persistent-default", "persistent-kn", "persistent-whole-tile", "persistent-warp-specialized",
         "persistent-flattened", "persistent-row-classes", "persistent-bf16", "persistent-fp32",
         "pointer-fp16", "pointer-fp32", "descriptor-fp16", "descriptor-row-classes", "descriptor-fp32",
         "splitk-sk2", "splitk-sk1", "splitk-sk3-fp32", "splitk-descriptor-sk4", "splitk-descriptor-sk1",
         "splitk-descriptor-kn"]


@pytest.fixture(scope="module")
def compiled() -> dict:
    return json.loads(run_without_interpreter(_WORKER))


def _ptx(compiled, name) -> tuple[str, str, str]:
    if "error" in compiled[name]:
        raise AssertionError(f"{name}: compile failed: {compiled[name]['error']}")
    return tuple(compiled[name])


def strip_locations(ptx: str) -> str:
    """The PTX without source locations: `.loc` and `.file` lines, and the debug sections."""
    kept, in_debug = [], False
    for line in ptx.splitlines():
        text = line.strip()
        if text.startswith(".section") and ".debug" in text:
            in_debug = True
        if in_debug:
            in_debug = text != "}"
            continue
        if text.startswith((".loc", ".file")):
            continue
        kept.append(line)
    return "\n".join(kept)


def opcodes(ptx: str) -> collections.Counter:
    """How many times each instruction (the opcode with its modifiers) occurs."""
    return collections.Counter(re.findall(r"^\s+(?:@%p\d+\s+)?([a-z][\w.:]*)", strip_locations(ptx), re.M))


# Triton 3.6's warp specialization places its mbarriers in shared memory in an order that follows incidental
# state of the compile: the same kernel compiled from a source whose docstrings differ by a word, or with one
# more constexpr in its call, swaps two barriers' offsets (213376 and 213440 here). Only there, the PTX is
# compared with its numbers masked, and the numbers compared as a multiset: the same instructions, operands
# and constants, two offsets exchanged at most.
PLACES_BARRIERS = {"persistent-warp-specialized"}


def masked(ptx: str) -> tuple[str, list[str]]:
    """(the PTX with every number replaced by #, its numbers sorted)."""
    return re.sub(r"\d+", "#", ptx), sorted(re.findall(r"\d+", ptx))


@pytest.mark.parametrize("name", CASES)
def test_a_launch_without_epilogue_compiles_as_before(compiled, name):
    without, defaults, _ = _ptx(compiled, name)
    if name in PLACES_BARRIERS:
        assert masked(strip_locations(defaults)) == masked(strip_locations(without)), name
    else:
        assert strip_locations(defaults) == strip_locations(without), name


@pytest.mark.parametrize("name", CASES)
def test_bias_and_activation_change_the_code(compiled, name):
    """The comparison above can fail: the epilogue adds the bias load and gelu's arithmetic (one more pointer
    parameter, more instructions), and the tensor cores and TMA stay (split-K's pointer kernel has no TMA)."""
    without, _, fused = _ptx(compiled, name)
    params = [len(re.findall(r"\.param \.u64 \.ptr", ptx)) for ptx in (without, fused)]
    assert params[1] == params[0] + 1, f"{name}: parameters {params}"
    plain, epilogue = opcodes(without), opcodes(fused)
    assert sum(epilogue.values()) > sum(plain.values()), name
    loads = [sum(count for op, count in ops.items() if op.startswith("ld.global")) for ops in (plain, epilogue)]
    assert loads[1] > loads[0], f"{name}: no load of the bias ({loads})"
    if name.startswith("splitk"):
        assert "wgmma.mma_async" in fused or "mma.sync" in fused, f"{name}: no tensor cores"
        assert ("cp.async.bulk.tensor" in fused) == name.startswith("splitk-descriptor"), name
    elif not name.startswith("pointer"):
        assert "cp.async.bulk.tensor" in fused and "wgmma.mma_async" in fused, f"{name}: no TMA or wgmma"


@pytest.mark.parametrize("name", [name for name in CASES if name.startswith("splitk")])
def test_split_k_keeps_its_hand_over_with_the_epilogue(compiled, name):
    """With the epilogue, a split still hands its partials over through the release/acquire tile counter and
    resets it; without a split, each program still stores C directly (no atomics)."""
    _, _, fused = _ptx(compiled, name)
    if "sk1" in name:
        assert "atom." not in fused, f"{name}: split_k=1 stores C directly"
    else:
        assert "atom.global.gpu.acq_rel.add" in fused and "atom.global.gpu.relaxed.exch" in fused, name


def test_strip_locations_keeps_instructions():
    ptx = "\t.file\t1 \"a.py\"\n\t.loc\t1 2 3\n\tadd.s32 \t%r1, %r2, %r3;\n\t.section\t.debug_abbrev\n\t{\n.b8 1\n\t}\n"
    assert strip_locations(ptx) == "\tadd.s32 \t%r1, %r2, %r3;"
    assert opcodes(ptx) == collections.Counter({"add.s32": 1})
    swapped = ("add.s32 %r1, %r9, 213376;\nadd.s32 %r2, %r9, 213440;",
               "add.s32 %r1, %r9, 213440;\nadd.s32 %r2, %r9, 213376;")
    assert swapped[0] != swapped[1] and masked(swapped[0]) == masked(swapped[1])
    assert masked("add.s32 %r1, %r9, 213376;") != masked("add.s32 %r1, %r9, 213377;")
