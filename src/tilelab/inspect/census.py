"""Counting what matters in compiled code. Pure functions of the text: testable on any machine.

PTX (the virtual ISA Triton emits) says which instruction families the
compiler chose:
  mma.sync              Ampere-style warp-level tensor-core MMA (sm_80+)
  wgmma.mma_async       Hopper warpgroup MMA, B (and usually A) from shared memory (sm_90a); `.e4m3`: fp8
                        inputs; `a_registers`: A from registers
  ldmatrix              shared memory -> registers in MMA fragment layout
  ld.shared / st.shared threads moving data through shared memory themselves: epilogue staging, layout
                        changes, and the transposes a dot needs when an operand is stored the other way round
  cp.async (non-bulk)   Ampere asynchronous global -> shared copies, per thread
  cp.async.bulk.tensor  Hopper TMA: one thread moves a whole tile by descriptor; `.3d`: through a batch's 3-D
                        descriptor ([batch, rows, cols]), the matrix index its third coordinate, or one GEMM's
                        rows by class ([classes, rows, cols]); `.4d`: a batch's rows by class
  tensormap.replace     a kernel writing descriptor fields itself (descriptors built in every program)
  ld.global[.vN]        ordinary loads; the vector width says how many bytes per thread per load
  cvt.rna.tf32          float32 rounded to tf32 to nearest in registers (wgmma alone truncates): the
                        registers kernel does it to B
SASS (the real machine code, via cuobjdump) confirms what ptxas kept:
HMMA / HGMMA (QMMA / QGMMA for fp8) tensor-core ops, LDSM, LDGSTS, UTMALDG, LDG widths.
Registers and shared memory per program say how many programs an SM holds at once (`programs_per_sm`).
"""

import re
from collections import Counter

_PTX_PATTERNS = {
    "mma.sync": r"^\s*(?:@!?%p\d+\s+)?mma\.sync\.",
    "wgmma": r"^\s*(?:@!?%p\d+\s+)?wgmma\.mma_async\.",
    # fp8 operands show in the type suffixes, e.g. wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
    "wgmma.e4m3": r"^\s*(?:@!?%p\d+\s+)?wgmma\.mma_async\.\S*\.e4m3\b",
    # A (the left operand) from registers: after the accumulator's {...} comes another {...}, not a descriptor
    "wgmma.a_registers": r"^\s*(?:@!?%p\d+\s+)?wgmma\.mma_async\.\S*\s+\{[^}]*\},\s*\{",
    "ldmatrix": r"^\s*(?:@!?%p\d+\s+)?ldmatrix\.",
    "ld.shared": r"^\s*(?:@!?%p\d+\s+)?ld\.shared\b",
    "st.shared": r"^\s*(?:@!?%p\d+\s+)?st\.shared\b",
    "cp.async": r"^\s*(?:@!?%p\d+\s+)?cp\.async\.(?:ca|cg)\.",
    "cp.async.bulk.tensor": r"^\s*(?:@!?%p\d+\s+)?cp\.async\.bulk\.tensor\.",
    "cp.async.bulk.tensor.3d": r"^\s*(?:@!?%p\d+\s+)?cp\.async\.bulk\.tensor\.3d\.",
    "cp.async.bulk.tensor.4d": r"^\s*(?:@!?%p\d+\s+)?cp\.async\.bulk\.tensor\.4d\.",
    "tensormap.replace": r"^\s*(?:@!?%p\d+\s+)?tensormap\.replace\.",
    "fma.f32": r"^\s*(?:@!?%p\d+\s+)?fma\.rn\.f32\b",
    "cvt.rna.tf32": r"^\s*(?:@!?%p\d+\s+)?cvt\.rna\.tf32\.f32\b",
}

_GLOBAL_LOAD = re.compile(r"^\s*(?:@!?%p\d+\s+)?ld\.global((?:\.[A-Za-z0-9_:]+)*)\s", re.MULTILINE)
_BITS = re.compile(r"\.[bsuf](\d+)$")

_SASS_PATTERNS = {
    "HMMA": r"\bHMMA\.",
    "HGMMA": r"\bHGMMA\.",
    "QGMMA": r"\bQGMMA\.",  # the fp8 warpgroup MMA (HGMMA is fp16/bf16/tf32)
    "QMMA": r"\bQMMA\.",  # the fp8 warp-level MMA (sm_89's mma.sync on e4m3)
    "LDSM": r"\bLDSM\.",
    "LDGSTS": r"\bLDGSTS\b",
    "UTMALDG": r"\bUTMALDG\b",
    "UTMASTG": r"\bUTMASTG\b",
    "FFMA": r"\bFFMA\b",
}
_SASS_LDG = re.compile(r"\bLDG\.E((?:\.[A-Z0-9_]+)*)")


def count_ptx(ptx: str) -> dict[str, int]:
    """Instruction counts (static, in the code, not executed) per family of interest."""
    return {name: len(re.findall(pattern, ptx, re.MULTILINE)) for name, pattern in _PTX_PATTERNS.items()}


def global_load_widths(ptx: str) -> dict[str, int]:
    """Global loads by bits moved per thread per instruction, e.g. {'128': 8, '16': 2}.

    `ld.global.v4.b32` moves 4 x 32 = 128 bits (16 bytes): the widest a thread
    can load at once, and what coalesced, aligned tiles should compile to.
    """
    widths: Counter[str] = Counter()
    for match in _GLOBAL_LOAD.finditer(ptx):
        modifiers = match.group(1).split(".")[1:]
        lanes = 1
        element_bits = None
        for modifier in modifiers:
            if re.fullmatch(r"v\d+", modifier):
                lanes = int(modifier[1:])
            bits = _BITS.search("." + modifier)
            if bits:
                element_bits = int(bits.group(1))
        if element_bits is not None:
            widths[str(lanes * element_bits)] += 1
    return dict(sorted(widths.items(), key=lambda kv: -int(kv[0])))


_CP_ASYNC_SIZE = re.compile(
    r"cp\.async\.c[ag]\.shared\.global(?:\.[a-z0-9_:]+)*"  # the non-bulk copy and its modifiers
    r"\s*\[[^\]]*\],\s*\[[^\]]*\],\s*(0x[0-9a-fA-F]+|\d+)"  # [dst], [src], bytes
)


def cp_async_sizes(ptx: str) -> dict[str, int]:
    """Non-bulk cp.async copies by bytes per thread, e.g. {'16': 36}: 16 is the widest (and the goal)."""
    sizes: Counter[str] = Counter(str(int(raw, 0)) for raw in _CP_ASYNC_SIZE.findall(ptx))
    return dict(sorted(sizes.items(), key=lambda kv: -int(kv[0])))


def count_sass(sass: str) -> dict[str, int]:
    counts = {name: len(re.findall(pattern, sass)) for name, pattern in _SASS_PATTERNS.items()}
    widths: Counter[str] = Counter()
    for match in _SASS_LDG.finditer(sass):
        size = next((m for m in match.group(1).split(".") if m in ("64", "128", "U16", "S16", "U8", "S8")), "32")
        widths[{"U16": "16", "S16": "16", "U8": "8", "S8": "8"}.get(size, size)] += 1
    counts["LDG by bits"] = dict(sorted(widths.items(), key=lambda kv: -int(kv[0])))
    return counts


def parse_ptxas_verbose(text: str) -> dict:
    """Registers and spills from `ptxas -v` output (None where absent)."""
    found = {"registers": None, "spill_stores_bytes": None, "spill_loads_bytes": None, "stack_bytes": None}
    if m := re.search(r"Used (\d+) registers", text):
        found["registers"] = int(m.group(1))
    if m := re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text):
        found["spill_stores_bytes"], found["spill_loads_bytes"] = int(m.group(1)), int(m.group(2))
    if m := re.search(r"(\d+) bytes stack frame", text):
        found["stack_bytes"] = int(m.group(1))
    return found


def parse_res_usage(text: str) -> dict:
    """`cuobjdump -res-usage`: REG, SHARED (static), LOCAL (per-thread local memory, where spills go)."""
    found = {}
    for key in ("REG", "SHARED", "LOCAL", "STACK"):
        if m := re.search(rf"\b{key}:(\d+)", text):
            found[key.lower()] = int(m.group(1))
    return found


# What one SM holds at once (CUDA's occupancy limits) for kernel-inspect's targets (`targets.TARGETS`): its
# register file, warps, programs (thread blocks) and shared memory in bytes, of which the driver keeps 1 KB per
# program.
SM_LIMITS = {
    80: {"registers": 65536, "warps": 64, "programs": 32, "shared_bytes": 164 * 1024},  # A100
    86: {"registers": 65536, "warps": 48, "programs": 16, "shared_bytes": 100 * 1024},  # RTX 30xx, A40
    87: {"registers": 65536, "warps": 48, "programs": 16, "shared_bytes": 164 * 1024},  # Jetson Orin
    89: {"registers": 65536, "warps": 48, "programs": 24, "shared_bytes": 100 * 1024},  # RTX 40xx, L4, L40
    90: {"registers": 65536, "warps": 64, "programs": 32, "shared_bytes": 228 * 1024},  # H100, H200
}
SHARED_BYTES_RESERVED_PER_PROGRAM = 1024
REGISTER_GRANULE = 8  # registers per thread are allocated 8 at a time (256 per warp)


def programs_per_sm(arch: int, registers: int | None, num_warps: int, shared_bytes: int = 0) -> dict | None:
    """How many programs of a kernel one SM can hold at once, and which resource stops it: {"programs",
    "warps", "limited_by": "registers" | "warps" | "programs" | "shared memory"}; None for an architecture not in
    SM_LIMITS or without a register count. More programs per SM hide more latency: ptxas's `maxnreg` trades
    registers (and spills) for them (`tilelab.ops.conv.register_cap`)."""
    limits = SM_LIMITS.get(arch)
    if limits is None or not registers:
        return None
    allocated = -(-registers // REGISTER_GRANULE) * REGISTER_GRANULE
    by = {"registers": limits["registers"] // (allocated * 32 * num_warps),
          "warps": limits["warps"] // num_warps,
          "programs": limits["programs"],
          "shared memory": limits["shared_bytes"] // (shared_bytes + SHARED_BYTES_RESERVED_PER_PROGRAM)}
    limited_by = min(by, key=by.get)  # the first of equals: registers before warps before the others
    return {"programs": by[limited_by], "warps": by[limited_by] * num_warps, "limited_by": limited_by}


def uses_tensor_cores(ptx_counts: dict[str, int]) -> bool:
    return ptx_counts.get("mma.sync", 0) > 0 or ptx_counts.get("wgmma", 0) > 0
