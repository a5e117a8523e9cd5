"""`kernel-inspect`: compile the real library kernel for a GPU target and count what the compiler made.

    kernel-inspect --op matmul --path descriptor --dtype float16 --target sm_90
    kernel-inspect --op matmul --path pointer --target sm_80 --output results/local/inspect/ampere
    kernel-inspect --dtype float32 --precision ieee --json
    kernel-inspect --op matmul --path persistent --target sm_90      # the Hopper kernels: persistent, splitk
    kernel-inspect --op scaled_matmul --target sm_90                 # fp8 (float8_e4m3fn implied)
    kernel-inspect --path registers --target sm_90                   # tf32, B through registers (Gluon)
    kernel-inspect --path pingpong --target sm_90                    # fp16/bf16, warp groups in turns (Gluon)
    kernel-inspect --path pingpong --batch                           # a batch: 3-D descriptors
    kernel-inspect --path pingpong --bias --activation gelu          # tilelab.linear's fused epilogue
    kernel-inspect --path descriptor --row-classes 8                 # A's rows off sectors, read in 8 classes
    kernel-inspect --path persistent --batch --row-classes 8         # ... and a batch's, in 4-D
    kernel-inspect --op conv2d_bn_silu --target sm_90                # conv + batch norm + SiLU (implicit GEMM)
    kernel-inspect --op conv2d_bn_silu --groups 64                   # depthwise: the direct kernel (FMAs)
    kernel-inspect --op conv2d_bn_silu --channels 24                 # vector hints: x in 16-byte cp.async
    kernel-inspect --op conv2d_bn_silu --groups 64 --out-channels 128  # channel multiplier 2: x in 16-byte loads

No GPU is needed (except for --target native): Triton compiles for a
described target, and the cuobjdump/ptxas inside Triton's wheel give SASS,
registers and spills, and from those the programs an SM holds at once.
"""

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

EXIT_CODES_HELP = """exit codes:
  0  compiled; stages saved, census printed
  1  the compiler failed
  2  bad arguments (unknown target, config or combination, a target without the op's
     instructions, an --output that is not a directory we can write), checked before compiling
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kernel-inspect",
        description="Compile a tilelab kernel for a target, save every stage (ttir, ttgir, llir, ptx, cubin, "
                    "sass) and print a census: MMA instructions, async copies, load widths, registers, "
                    "spills, shared memory, programs per SM.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--op", default="matmul", choices=["matmul", "scaled_matmul", "conv2d_bn_silu"],
                   help="matmul, scaled_matmul (fp8 with per-tensor scales; its one kernel is persistent), or "
                        "conv2d_bn_silu (convolution + inference batch norm + SiLU, one implicit-GEMM kernel, "
                        "or with --groups as many as the channels the depthwise direct kernel; inspected with a "
                        "3x3 filter on channels-last 56x56 images of the inspected channels (--channels, default "
                        "64))")
    p.add_argument("--path", choices=["pointer", "descriptor", "persistent", "splitk", "splitk-descriptor",
                                      "registers", "pingpong", "implicit-gemm"],
                   help="matmul's kernel (default descriptor); persistent, splitk*, registers (tf32) and "
                        "pingpong (fp16/bf16) are the Hopper kernels (the last two in Gluon, sm_90 only); "
                        "split-K loads through pointers (splitk) under 256 rows of C, through TMA "
                        "(splitk-descriptor) from 256 rows; conv2d_bn_silu's is implied (implicit-gemm, or with "
                        "--groups equal to --channels the depthwise direct kernel)")
    p.add_argument("--dtype", choices=["float16", "bfloat16", "float32", "float8_e4m3fn"],
                   help="matmul and conv2d_bn_silu: float16 (default), bfloat16, float32; scaled_matmul: "
                        "float8_e4m3fn (implied)")
    p.add_argument("--precision", choices=["tf32", "tf32x3", "ieee"], help="float32 only (default tf32)")
    p.add_argument("--accumulate", choices=["fast", "promoted"],
                   help="scaled_matmul only: use_fast_accum=True (fast, default) or False (promoted)")
    p.add_argument("--b-layout", choices=["kn", "nk"],
                   help="B as stored: kn = [K, N] rows, N contiguous (matmul's default); nk = [N, K] rows, "
                        "K-major (what tilelab copies a large float32 B into on Hopper; scaled_matmul's only "
                        "layout). nk needs a TMA path: descriptor, persistent or splitk-descriptor")
    p.add_argument("--batch", action="store_true",
                   help="compile for a batch with an A and a B per entry, each operand one 3-D descriptor "
                        "([batch, rows, cols]); --path persistent or pingpong")
    p.add_argument("--row-classes", type=int, choices=[8, 4, 2],
                   help="--path descriptor or persistent: A's rows read in this many classes, through host-built "
                        "descriptors (A and C 3-D, 4-D with --batch), as tilelab plans fp16/bf16 rows that start "
                        "16 bytes into a sector (tilelab.ops.matmul_plan.row_classes)")
    p.add_argument("--activation", choices=["relu", "gelu", "silu"],
                   help="matmul's pointer, descriptor, persistent, splitk* or pingpong path with tilelab.linear's "
                        "fused epilogue: this activation on the float32 accumulator (split-K: the slices' sum) "
                        "before the store")
    p.add_argument("--bias", action="store_true",
                   help="with the fused epilogue's bias add (a [N] vector read in float32), as tilelab.linear")
    p.add_argument("--config",
                   help="pointer/descriptor: a named config (e.g. fixed) or a tuning candidate's label (e.g. "
                        "128x192x64-g8-w4-s4, a wide tile); Hopper kernels: a candidate's label "
                        "(e.g. 128x256x64-g8-w8-s3-sub); registers: a tag of matmul_registers.CONFIGS (e.g. "
                        "128x64x32-w4-s6); conv2d_bn_silu: seed, interpreter or a candidate's label (e.g. "
                        "128x128x64-g8-w8-s3, its twin with pixels divided by multiplication 128x128x64-g8-w8-s3-mul, "
                        "split-K's 64x128x64-g8-w4-s3-sk2, or with few or ragged --channels flat K steps' "
                        "64x64x64-g8-w4-s4-flat); default: the first tuning candidate")
    p.add_argument("--groups", type=int, default=1,
                   help="conv2d_bn_silu only: a grouped convolution of the inspected channels (--channels, default "
                        "64; a divisor of them); as many groups as channels (depthwise) is the direct kernel; of 64 "
                        "channels, 8 to 32 groups (2 to 8 channels each) share implicit-GEMM tiles with "
                        "block-diagonal weight blocks")
    p.add_argument("--channels", type=int, default=64,
                   help="conv2d_bn_silu only: the channels in (and out, unless --out-channels) of the inspected "
                        "images (default %(default)s). Counts that are multiples of 8 but not of 16 show the "
                        "kernel's vector hints (X_ALIGN, W_ALIGN, Y_ALIGN), which Triton's multiple-of-16 "
                        "specialization misses: 24 loads x in 16-byte cp.async copies, 33 one element at a time")
    p.add_argument("--out-channels", type=int,
                   help="conv2d_bn_silu only: the channels out of the inspected layer (default: --channels), a "
                        "multiple of --groups. Depthwise with 2, 4 or 8 times the channels out is the direct "
                        "kernel's channel multiplier (MULTIPLIER): --groups 64 --out-channels 128 loads x in "
                        "16-byte vectors, repeated in registers, instead of gathering each output channel's input")
    p.add_argument("--target", default="sm_90",
                   help="sm_80, sm_86, sm_87, sm_89 (mma.sync), sm_90 (wgmma; sm_90a is the same) or native (the GPU "
                        "here, one of those) (default %(default)s): the architectures whose tensor-core "
                        "instructions the census counts (not sm_100's tcgen05)")
    p.add_argument("--output", type=Path,
                   help="directory for the stages, created if missing (default: "
                        "results/local/inspect/<op>-<path>-<dtype>[-config-<config>]-<target>)")
    p.add_argument("--json", action="store_true", help="print the census as JSON instead of a table")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Compiling needs real JIT functions, which TRITON_INTERPRET=1 replaces by interpreted ones.
    if os.environ.get("TRITON_INTERPRET") == "1":
        if "triton" in sys.modules:
            print("kernel-inspect: Triton was imported with TRITON_INTERPRET=1; run kernel-inspect in its own "
                  "process without it", file=sys.stderr)
            return 2
        os.environ["TRITON_INTERPRET"] = "0"

    created = []
    if args.output is not None:  # checked before anything compiles
        try:
            created = prepare_output(args.output)
        except ValueError as exc:
            print(f"kernel-inspect: {exc}", file=sys.stderr)
            return 2

    from tilelab.inspect import compile as compiler

    try:
        result = compiler.inspect_kernel(args.op, args.path, args.dtype, args.precision, args.config, args.target,
                                         args.accumulate, args.b_layout, args.batch, args.row_classes or 1,
                                         bias=args.bias, activation=args.activation, groups=args.groups,
                                         channels=args.channels, out_channels=args.out_channels)
    except (ValueError, KeyError) as exc:
        remove_created(created)
        print(f"kernel-inspect: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # the compiler's own failure: show it, that is what the tool is for
        remove_created(created)
        print(f"kernel-inspect: compiling failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    label = f"{args.op}-{result.path}-{result.dtype}" + (f"-{args.precision}" if args.precision else "")
    label += f"-{result.accumulate}-accum" if result.accumulate else ""
    label += "-b-nk" if result.b_layout == "nk" and result.op == "matmul" else ""
    label += "-batch" if result.batched else ""
    label += f"-rowclasses{result.row_classes}" if result.row_classes > 1 else ""
    label += f"-epilogue-{result.epilogue}" if result.epilogue else ""
    label += f"-channels{result.channels}" if result.channels != compiler.CONV_CHANNELS else ""
    label += f"-outchannels{result.out_channels}" if result.out_channels != result.channels else ""
    label += f"-groups{result.groups}" if result.groups > 1 else ""
    label += "-config-" + re.sub(r"[^\w.-]", "_", args.config) if args.config else ""  # apart from the default
    directory = args.output or Path("results") / "local" / "inspect" / f"{label}-{result.target}"
    try:
        written = compiler.save(result, directory)
    except OSError as exc:  # checked above when given; the default directory, or a disk that filled up since
        print(f"kernel-inspect: cannot save the stages in {directory}: {exc.strerror or exc}"
              + ("" if args.output else "; name a directory we can write with --output"), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(compiler.as_json(result), indent=1))
    else:
        print_census(result)
        print(f"saved {', '.join(p.name for p in written)} in {directory}")
    return 0


def prepare_output(directory: Path) -> list[Path]:
    """--output: a directory we can write the stages into, created now (with its missing parents) so that a path
    that is a file, lies under one, or cannot be created is refused before anything compiles (ValueError).
    Returns the directories created, deepest first, for `remove_created` should nothing be saved after all."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"--output {directory} is a file; it must be a directory (the stages are saved in it)")
    missing = []
    for parent in (directory, *directory.parents):
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"--output {directory} lies under the file {parent}; it must be a directory we can "
                                 f"create")
            break
        missing.append(parent)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        remove_created(missing)
        raise ValueError(f"--output {directory} cannot be created: {exc.strerror or exc}") from None
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        remove_created(missing)
        raise ValueError(f"--output {directory} is not a directory we can write: {exc.strerror or exc}") from None
    return missing


def remove_created(directories: list[Path]) -> None:
    """Remove the (still empty) directories `prepare_output` created, deepest first."""
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:
            pass


def _conv_title(result) -> str:
    from tilelab.inspect.compile import CONV_CHANNELS, CONV_DIRECT_PATH, CONV_KERNEL_SIZE

    kernel = f"a {CONV_KERNEL_SIZE}x{CONV_KERNEL_SIZE} filter"
    if result.out_channels != result.channels:
        kernel += f" on {result.channels} channels in, {result.out_channels} out"
    elif result.channels != CONV_CHANNELS:
        kernel += f" on {result.channels} channels"
    groups = f" in {result.groups} groups" if result.groups > 1 else ""
    if result.path == CONV_DIRECT_PATH:
        return f", {kernel}{groups}, direct (float32 FMAs, no dot; x, weight, y channels-last)"
    return f", {kernel}{groups} as an implicit GEMM (x, weight, y channels-last; B = weight [N, K], K-major)"


def print_census(result) -> None:
    from rich.console import Console
    from rich.table import Table

    c = result.census
    cfg = result.config
    title = (f"{result.kernel} for {result.target}: {result.dtype}"
             + (f" ({result.precision})" if result.dtype == "float32" else "")
             + (f" ({result.accumulate} accumulation)" if result.accumulate else "")
             + (_conv_title(result) if result.op == "conv2d_bn_silu"
                else f", B stored [{'N, K' if result.b_layout == 'nk' else 'K, N'}]")
             + (", a batch (3-D descriptors)" if result.batched else "")
             + (f", A's rows in {result.row_classes} classes (A and C {4 if result.batched else 3}-D)"
                if result.row_classes > 1 else "")
             + (f", fused epilogue: {result.epilogue.replace('-', ' + ')}" if result.epilogue else "")
             + f", tiles {cfg['block_m']}x{cfg['block_n']}x{cfg['block_k']}, "
               f"{cfg['num_warps']} warps, {cfg['num_stages']} stages")
    table = Table(title=title)
    table.add_column("what")
    table.add_column("count / value", justify="right")
    table.add_column("meaning")
    meaning = {
        "mma.sync": "warp-level tensor-core MMA (Ampere style)",
        "wgmma": "warpgroup tensor-core MMA, operands from shared memory (Hopper)",
        "wgmma.e4m3": "of those, fp8 (float8_e4m3fn) inputs",
        "wgmma.a_registers": "of those, A (the left operand) from registers",
        "ldmatrix": "shared -> registers in MMA fragment layout",
        "ld.shared": "threads' own shared-memory loads (layout changes, transposes)",
        "st.shared": "threads' own shared-memory stores (epilogue staging, transposes)",
        "cp.async": "per-thread async global -> shared copies (Ampere)",
        "cp.async.bulk.tensor": "TMA tile copies by descriptor (Hopper)",
        "cp.async.bulk.tensor.3d": "of those, through a 3-D descriptor (a batch's matrix or a row class a "
                                   "coordinate)",
        "cp.async.bulk.tensor.4d": "of those, through a 4-D descriptor (a batch's matrix and a row class)",
        "tensormap.replace": "descriptor fields written in the kernel (0: built on the host)",
        "fma.f32": "scalar float32 fused multiply-adds (no tensor cores)",
        "cvt.rna.tf32": "float32 rounded to tf32 to nearest (wgmma alone truncates)",
    }
    for name, count in c["ptx"].items():
        table.add_row(f"PTX {name}", str(count), meaning[name])
    widths = ", ".join(f"{n} x {bits}-bit" for bits, n in c["global_load_bits"].items()) or "none"
    table.add_row("PTX ld.global widths", widths, "bits per thread per load; 128 is the widest")
    copies = ", ".join(f"{n} x {size} B" for size, n in c["cp_async_bytes"].items()) or "none"
    table.add_row("PTX cp.async sizes", copies, "bytes per thread per async copy; 16 is the widest")
    table.add_row("tensor cores", "yes" if c["tensor_cores"] else "NO", "any mma.sync or wgmma")
    resources = c["resources"]
    source = f" ({resources['source']})" if resources.get("source") else ""
    table.add_row("registers per thread", str(resources.get("registers")), f"255 is the limit{source}")
    spills = resources.get("spill_stores_bytes"), resources.get("spill_loads_bytes")
    table.add_row("spills (store/load bytes)", f"{spills[0]}/{spills[1]}", "registers that did not fit")
    table.add_row("shared memory (bytes)", str(resources.get("shared_bytes")), "dynamic, per program")
    occupancy = c.get("occupancy")
    if occupancy:
        table.add_row("programs per SM", f"{occupancy['programs']} ({occupancy['warps']} warps), limited by "
                      f"{occupancy['limited_by']}", "at once, by registers, warps, programs and shared memory")
    if "sass" in c:
        sass = {k: v for k, v in c["sass"].items() if k != "LDG by bits"}
        table.add_row("SASS", ", ".join(f"{k} {v}" for k, v in sass.items() if v) or "-", "what ptxas kept")
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a log file has no edge: do not squeeze the columns
    console.print(table)
