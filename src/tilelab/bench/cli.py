"""`kernel-bench`: correctness first, then timing against torch, with the evidence written to JSON.

    kernel-bench --op matmul --dtype float16 --output results/local/my-gemm.json
    kernel-bench --op matmul --shape 127 255 65 --shape 4096 4096 4096 --timing graph
    kernel-bench --op matmul --check-only            # no GPU needed: Triton's interpreter
    kernel-bench --op scaled_matmul --dtype float8_e4m3fn --shape 8192 8192 8192   # fp8 vs torch._scaled_mm
    kernel-bench --op bmm_nt --shape 32 1024 1024 128  # batch M N K; B stored [batch, N, K], passed transposed
    kernel-bench calibrate                           # measure this GPU's ceilings
    kernel-bench report a.json b.json --output summary.md --plot summary.png
    kernel-bench schema                              # the result JSON Schema
    kernel-bench list                                # ops, variants, default shapes
"""

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_PROBLEM = 1  # a variant was wrong, failed, or could not be timed
EXIT_USAGE = 2  # bad arguments (argparse's own code)
EXIT_NO_GPU = 3  # timing asked for without a CUDA GPU
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT (128 + 2)

EXIT_CODES_HELP = """exit codes:
  0  every variant was correct (or refused the inputs by contract) and, unless --check-only, was timed
  1  a variant was wrong, failed, or could not be timed, or the sweep stopped early (the JSON is still
     written, with what finished)
  2  bad arguments, or an unreadable input file
  3  no CUDA GPU: timing needs one (use --check-only to run the correctness part on Triton's interpreter)
  130 interrupted (Ctrl-C): the JSON is still written, with the cases that finished
"""

CALIBRATE_EXIT_CODES_HELP = """exit codes:
  0  measured, cached (and written to --output)
  1  measured, but --output could not be written after all (a disk that filled since the check)
  2  bad arguments (a --device this machine lacks, an --output that cannot be written)
  3  no CUDA GPU
"""

REPORT_EXIT_CODES_HELP = """exit codes:
  0  the report was written (to --output, or stdout) with its --plot
  2  bad arguments, an unreadable result file, or an --output/--plot that cannot be written
"""

# torch.compile's modes (torch._inductor.list_mode_options): an unknown one fails only when compiling, on a GPU.
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")

SUBCOMMANDS = ("calibrate", "report", "schema", "list")


def _integer_at_least(least: int):
    """An argparse type: an integer >= least, so the error names the argument and echoes the value."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be >= {least}, got {value}")
        return value
    return parse


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):  # also refuses nan, which never compares true
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _png_path(text: str) -> Path:
    if Path(text).suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(f"expected a .png file name, got {text!r}")
    return Path(text)


def _partial(output: Path) -> Path:
    """Where a result is written before it replaces `output`, so that no half-written file is ever left."""
    return output.with_name(output.name + ".partial")


def _unwritable(path: Path) -> str | None:
    """Why `path` cannot be written as a file, or None. It creates missing parent directories (the write would
    anyway) and never truncates an existing file. The write goes to a sibling `.partial` file that then replaces
    `path`, so the directory must take a new file, and `path` itself must be a regular file or nothing: a symbolic
    link or a device (/dev/null) would be replaced by a file."""
    if path.is_symlink():
        return "is a symbolic link: name the file itself (the result replaces what is there)"
    if path.is_dir():
        return "is a directory"
    if path.exists() and not path.is_file():
        return "is not a regular file (a device or a pipe): the result would replace it; name a file"
    existing = next((p for p in path.absolute().parents if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"cannot be created: {existing} is not a directory"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with open(path, "a"):  # append mode: an existing file keeps its contents
            pass
        if not existed:
            path.unlink()
        partial = _partial(path)  # what the write creates next to it, then renames
        partial.touch()
        partial.unlink()
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    return None


def _device_problem(index: int) -> str | None:
    import torch

    count = torch.cuda.device_count()
    if index >= count:
        return f"--device {index}: this machine has {count} CUDA device(s), indices 0 to {count - 1}"
    return None


def _variant_names(text: str) -> list[str]:
    """`--variants a,b`: the names, empty items dropped; no name at all is an error, not 'the defaults'."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"no variant named in {text!r}; give names like torch,tilelab, or all")
    return names


def run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernel-bench",
        description="Check tilelab ops against a float64 reference, then time them against torch. "
                    "Subcommands: calibrate, report, schema, list (kernel-bench SUBCOMMAND --help).",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--op", default="matmul", help="an op name (see `kernel-bench list`) or 'all'")
    parser.add_argument("--dtype", nargs="+",
                        choices=["float16", "bfloat16", "float32", "float8_e4m3fn"],
                        help="one or more (default: the op's first: matmul float16, scaled_matmul float8_e4m3fn, "
                             "which is also the only one scaled_matmul takes)")
    parser.add_argument("--precision", choices=["tf32", "tf32x3", "ieee"],
                        help="float32 dot precision (default: the library's, tf32)")
    parser.add_argument("--shape", nargs="+", type=int, action="append", metavar="N",
                        help="a shape in the op's order (matmul: M N K, bmm: batch M N K); repeat for several "
                             "(with --op all, each goes to the ops taking its count of numbers). "
                             "Default: the op's sweep (on the interpreter: its small check shapes)")
    parser.add_argument("--variants", type=_variant_names, action="extend",
                        help="comma-separated subset (torch is always kept), or 'all' for extras too")
    parser.add_argument("--compile", action="store_true", help="add a torch.compile baseline")
    parser.add_argument("--torch-kernels", action="store_true",
                        help="record which kernels torch launches (cuBLAS names carry tile and cluster shapes): one "
                             "profiled call per case, after all timing (profiling slows torch's later calls); the "
                             "report lists them")
    parser.add_argument("--compile-mode", default="max-autotune-no-cudagraphs", choices=COMPILE_MODES,
                        help="torch.compile mode for --compile (default: %(default)s)")
    parser.add_argument("--timing", choices=["events", "graph"], default="events",
                        help="events: CUDA events around each call; graph: replays of N calls in a CUDA graph")
    parser.add_argument("--cache", choices=["warm", "cold"], default="cold",
                        help="cold: L2 flushed (events) or inputs rotated (graph) before each call")
    parser.add_argument("--warmup", type=_integer_at_least(0), default=10,
                        help="untimed calls first (default %(default)s)")
    parser.add_argument("--samples", type=_integer_at_least(1), default=50,
                        help="timed samples per variant (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="variants take turns, SAMPLES/ROUNDS calls at a time, forward then back, so clock drift "
                             "during a case hits them alike (default %(default)s: each variant's samples back to back)")
    parser.add_argument("--graph-calls", type=_integer_at_least(0), default=0,
                        help="calls captured per graph (default: enough for ~2 ms per replay)")
    parser.add_argument("--seed", type=int, default=0, help="shuffles shapes and seeds the inputs")
    parser.add_argument("--check-only", action="store_true",
                        help="only the correctness part; without a GPU it runs on Triton's interpreter")
    parser.add_argument("--ceilings", type=Path, help="a calibration JSON to use instead of the cached one")
    parser.add_argument("--time-budget", type=_positive_seconds, metavar="SECONDS",
                        help="start no new case after this long; the JSON says which cases are missing")
    parser.add_argument("--device", type=_integer_at_least(0), default=0, help="CUDA device index")
    parser.add_argument("--output", type=Path,
                        help="result JSON (default: results/local/kernel-bench-<op>-<dtype>-<time>.json)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--tune", action="store_true",
                        help="pre-tune tilelab.matmul (the persistent path included; matmul, bmm and bmm_nt) and "
                             "scaled_matmul (fast and promoted accumulation) for the sweep's shapes first (winners "
                             "go to the tuning cache, so later runs and processes reuse them)")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        command, rest = argv[0], argv[1:]
        if command == "calibrate":
            return calibrate_command(rest)
        if command == "report":
            return report_command(rest)
        if command == "schema":
            return schema_command(rest)
        return list_command(rest)
    return bench_command(argv)


def _no_gpu_message(what: str) -> str:
    import torch

    build = "a CPU-only torch build" if torch.version.cuda is None else f"torch built for CUDA {torch.version.cuda}"
    return (f"kernel-bench: {what} needs a CUDA GPU, and torch.cuda.is_available() is False here "
            f"({build}, torch {torch.__version__}).\n"
            "Use `kernel-bench --check-only` to run the correctness checks on Triton's interpreter, "
            "or `kernel-doctor` to see what is missing.")


def _use_interpreter() -> str | None:
    """Switch Triton to its CPU interpreter; it must happen before Triton is imported. Returns a problem, if any."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return None
    if "triton" in sys.modules:
        return ("Triton was imported before kernel-bench could set TRITON_INTERPRET=1; "
                "run it as its own process, or set TRITON_INTERPRET=1 in the environment")
    os.environ["TRITON_INTERPRET"] = "1"
    return None


def bench_command(argv: list[str]) -> int:
    args = run_parser().parse_args(argv)
    if not 1 <= args.rounds <= args.samples:
        print(f"kernel-bench: --rounds must be between 1 and --samples ({args.samples}); got {args.rounds}",
              file=sys.stderr)
        return EXIT_USAGE

    import torch

    on_gpu = torch.cuda.is_available()
    if not on_gpu and not args.check_only:
        try:  # a bad argument is exit 2 here too, not hidden behind the missing GPU
            plan_run(args, torch.device("cpu"), small=False)
        except UsageError as exc:
            print(f"kernel-bench: {exc}", file=sys.stderr)
            return EXIT_USAGE
        print(_no_gpu_message("timing"), file=sys.stderr)
        return EXIT_NO_GPU
    problem = _device_problem(args.device) if on_gpu else None
    if problem:
        print(f"kernel-bench: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if not on_gpu:
        problem = _use_interpreter()
        if problem:
            print(f"kernel-bench: {problem}", file=sys.stderr)
            return EXIT_USAGE

    from tilelab.bench import console, environment, roofline, schema, sweep

    device = torch.device("cuda", args.device) if on_gpu else torch.device("cpu")
    if on_gpu:
        torch.cuda.set_device(device)
    try:
        ops, cases, settings = plan_run(args, device, small=not on_gpu)
    except UsageError as exc:
        print(f"kernel-bench: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.ceilings and roofline.load_calibration(args.ceilings) is None:
        print(f"kernel-bench: --ceilings {args.ceilings} is not a readable calibration file "
              "(made by `kernel-bench calibrate --output FILE`)", file=sys.stderr)
        return EXIT_USAGE
    output = args.output or _default_output(args.op, args.dtype)
    problem = _unwritable(output)
    if problem:  # now, not after a sweep of many minutes
        print(f"kernel-bench: --output {output} {problem}", file=sys.stderr)
        return EXIT_USAGE
    note = _ignored_options(args, on_gpu)
    if note:
        print(f"kernel-bench: note: {note}", file=sys.stderr)

    env_info = environment.collect(device if on_gpu else None)
    gpu = env_info["gpu"]
    ceilings = roofline.ceilings_for(gpu["name"], args.ceilings) if gpu else None
    document = {
        "schema_version": schema.SCHEMA_VERSION,
        "tool": "kernel-bench",
        "created_utc": environment.utc_now(),
        "command": environment.command_line(argv),
        "argv": argv,
        "settings": {
            "ops": [op.name for op in ops], "dtypes": args.dtype, "precision": args.precision,
            "timing": args.timing, "cache": args.cache, "warmup": args.warmup, "samples": args.samples,
            "seed": args.seed, "check_only": args.check_only, "compile": args.compile,
            "compile_mode": args.compile_mode if args.compile else None, "variants": args.variants,
            "graph_calls": args.graph_calls or None, "rounds": args.rounds, "device": str(device),
            "interpreter": not on_gpu, "time_budget_s": args.time_budget, "tune": args.tune,
            "torch_kernels": args.torch_kernels,
        },
        "environment": env_info,
        "source": environment.source_state(),
        "ceilings": ceilings,
    }

    def write(results: list[dict], aborted: str | None) -> dict:
        summary = sweep.summarize_cases(results)
        summary["aborted"] = aborted
        document.update(cases=results, summary=summary)
        text = json.dumps(schema.finite(document), indent=1, allow_nan=False) + "\n"
        partial = _partial(output)
        try:
            partial.write_text(text)
            partial.replace(output)  # never leave a half-written file behind
        except OSError as exc:  # checked before the sweep, but a disk can fill or a directory vanish since
            partial.unlink(missing_ok=True)
            raise OutputError(f"kernel-bench: could not write --output {output}: {exc}") from None
        return summary

    finished: list[dict] = []  # the cases done so far, for Ctrl-C

    def checkpoint(done: list[dict]) -> None:
        finished[:] = done
        if len(done) < len(cases):
            write(done, f"incomplete: {len(done)} of {len(cases)} cases finished when this was "
                        "written (the run was interrupted)")

    aborted = None
    try:
        if args.tune:
            document["tuned"] = _pretune(cases, args.precision, device, measured=on_gpu)
        with console.sweep_progress(len(cases), enabled=not args.no_progress) as (describe, case_done):
            try:
                results = sweep.run(cases, settings, ceilings, gpu["l2_bytes"] if gpu else None, describe,
                                    case_done, checkpoint, args.time_budget)
            except sweep.SweepAborted as stop:  # keep what was measured, and say why the rest is missing
                results, aborted = stop.cases, stop.reason
        if args.torch_kernels and on_gpu:
            sweep.record_baseline_kernels(results, cases, settings)
        summary = write(results, aborted)
    except KeyboardInterrupt:  # Ctrl-C: keep what finished, no traceback
        try:
            write(finished, f"interrupted (Ctrl-C) after {len(finished)} of {len(cases)} cases")
        except OutputError as exc:
            print(exc, file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"\nkernel-bench: interrupted; the {len(finished)} finished case(s) of {len(cases)} are in {output}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_PROBLEM
    problems = schema.validate(document)
    if problems:  # a bug in kernel-bench itself: say so, the data is written anyway
        print("kernel-bench: the result does not match its own schema:\n  " + "\n  ".join(problems[:20]),
              file=sys.stderr)

    where = gpu["name"] if gpu else "Triton interpreter (CPU)"
    mode = "check only" if args.check_only else f"{args.timing}, {args.cache} L2"
    console.print_summary(results, summary, f"kernel-bench on {where} ({mode})")
    print(f"wrote {output}")
    if aborted:
        print(f"kernel-bench: the sweep stopped early: {aborted}", file=sys.stderr)
    bad = summary["by_status"]["wrong"] + summary["by_status"]["failed"] + summary["timing_errors"]
    return EXIT_PROBLEM if bad or problems or aborted else EXIT_OK


class OutputError(Exception):
    """The result file could not be written; the message says so."""


class UsageError(ValueError):
    """Arguments that parse but ask for something kernel-bench cannot run (exit status 2)."""


def plan_run(args, device, small: bool) -> tuple[list, list, object]:
    """The ops, cases and sweep settings that parsed arguments ask for, found before any work (`small`: the
    interpreter's small default shapes). Raises UsageError naming the argument that is wrong. Fills in
    args.dtype when none was given."""
    from tilelab.bench import registry, sweep

    ops_by_name = registry.all_ops()
    if args.op == "all":
        ops = [op for op in ops_by_name.values() if op.available()]
    elif args.op in ops_by_name:
        ops = [ops_by_name[args.op]]
    else:
        raise UsageError(f"unknown op {args.op!r}; known: {', '.join(ops_by_name)}, all")
    problem = _resolve_dtypes(args, ops, list(ops_by_name.values()))
    if problem:
        raise UsageError(problem)
    if args.precision and "float32" not in args.dtype:
        raise UsageError("--precision applies to --dtype float32 only")
    settings = sweep.SweepSettings(
        dtypes=args.dtype, precision=args.precision, timing=args.timing, cache=args.cache,
        warmup=args.warmup, samples=args.samples, seed=args.seed, check_only=args.check_only,
        compile=args.compile, compile_mode=args.compile_mode, variants=args.variants,
        graph_calls=args.graph_calls, rounds=args.rounds, device=device,
    )
    shapes = list(dict.fromkeys(tuple(s) for s in args.shape)) if args.shape else None  # each shape once
    try:
        cases = sweep.plan_cases(ops, args.dtype, shapes, args.seed, small=small)
        for op in ops:  # fail on a misspelt --variants before any work
            for dtype in args.dtype:
                if dtype in op.dtypes:
                    sweep.variants_for(op, dtype, settings)
    except (ValueError, KeyError) as exc:
        raise UsageError(exc.args[0] if exc.args else str(exc)) from exc
    if not cases:
        raise UsageError(f"no case to run ({args.op} with dtypes {', '.join(args.dtype)})")
    return ops, cases, settings


def _ignored_options(args, on_gpu: bool) -> str | None:
    """A note on options given but without effect in this run, or None."""
    defaults = run_parser()
    untimed = [f"--{name.replace('_', '-')} {getattr(args, name)}"
               for name in ("timing", "cache", "warmup", "samples", "rounds", "graph_calls")
               if args.check_only and getattr(args, name) != defaults.get_default(name)]
    gpu_only = [flag for flag, given in (("--compile", args.compile), ("--torch-kernels", args.torch_kernels),
                                         (f"--device {args.device}", args.device != defaults.get_default("device")))
                if given and not on_gpu]
    parts = []
    if untimed:
        parts.append(f"{', '.join(untimed)} ignored (--check-only times nothing)")
    if gpu_only:
        parts.append(f"{', '.join(gpu_only)} ignored (needs a CUDA GPU)")
    if args.tune and not on_gpu:
        parts.append("--tune measures nothing on Triton's interpreter: its `tuned` records are the untuned "
                     "defaults, marked \"measured\": false")
    return "; ".join(parts) or None


def _pretune(cases, precision: str | None, device, measured: bool = True) -> list[dict]:
    """Tune each case's shape before anything is timed: matmul, bmm and bmm_nt cases per dtype
    (`tilelab.ops.matmul.pretune`; bmm_nt with B stored [batch, N, K]), scaled_matmul cases for the bench's
    output dtype and both accumulations (`pretune_scaled`). With `measured=False` (Triton's interpreter, where
    the tuner times nothing and caches nothing) each record says so."""
    import torch

    from tilelab.bench.op_scaled_matmul import OUT_DTYPE as FP8_OUT_DTYPE
    from tilelab.ops.matmul import pretune
    from tilelab.ops.scaled_matmul import pretune_scaled

    tuned = []
    for case in cases:
        dtypes = (getattr(torch, case.dtype),)
        if case.op.name in ("matmul", "bmm"):  # (M, N, K) or (batch, M, N, K)
            tuned += pretune([case.shape], dtypes, precision=precision, device=device)
        elif case.op.name == "bmm_nt":
            tuned += pretune([case.shape], dtypes, precision=precision, device=device, b_layout="nk")
        elif case.op.name == "scaled_matmul":
            tuned += pretune_scaled([case.shape], out_dtype=FP8_OUT_DTYPE, device=device)
    if not measured:
        tuned = [{**record, "measured": False} for record in tuned]
    return tuned


def _resolve_dtypes(args, ops: list, known_ops: list) -> str | None:
    """Fill in args.dtype (each op's first dtype when none is given); a problem for a dtype the named op lacks."""
    if args.dtype is None:
        args.dtype = list(dict.fromkeys(op.dtypes[0] for op in ops))
        return None
    args.dtype = list(dict.fromkeys(args.dtype))  # `--dtype float16 float16` runs each case once
    if args.op == "all":
        return None  # each op runs the dtypes it has
    op = ops[0]
    wrong = [d for d in args.dtype if d not in op.dtypes]
    if not wrong:
        return None
    elsewhere = [other.name for other in known_ops if set(wrong) <= set(other.dtypes) and other is not op]
    hint = f" ({', '.join(wrong)} is for --op {', '.join(elsewhere)})" if elsewhere else ""
    return f"{op.name} takes --dtype {' '.join(op.dtypes)} only, not {' '.join(wrong)}{hint}"


def _default_output(op: str, dtypes: list[str]) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / "local" / f"kernel-bench-{op}-{'-'.join(dtypes)}-{stamp}.json"


def calibrate_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="kernel-bench calibrate",
        description="Measure this GPU's copy bandwidth and torch's best matmul rate per precision; cache them "
                    "(under $TILELAB_CACHE_DIR or ~/.cache/tilelab) as the roofline ceilings for kernel-bench.",
        epilog=CALIBRATE_EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--device", type=_integer_at_least(0), default=0, help="CUDA device index")
    parser.add_argument("--output", type=Path, help="also write the calibration JSON here")
    args = parser.parse_args(argv)

    import torch

    if not torch.cuda.is_available():
        print(_no_gpu_message("calibrate"), file=sys.stderr)
        return EXIT_NO_GPU
    problem = _device_problem(args.device)
    if not problem and args.output:
        problem = _unwritable(args.output)
        problem = problem and f"--output {args.output} {problem}"
    if problem:  # before a minute of measuring
        print(f"kernel-bench calibrate: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from rich.console import Console
    from rich.table import Table

    from tilelab.bench import calibrate, console, roofline

    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    Console(stderr=True).print("measuring copy bandwidth and torch.matmul peaks (about a minute)...")
    data = calibrate.measure(device)
    cached = roofline.calibration_path(data["gpu_name"])
    try:
        roofline.save_calibration(data, cached)
    except OSError as exc:  # the measurement still stands: print it, and write --output if given
        print(f"kernel-bench calibrate: warning: could not cache the ceilings in {cached} ({exc.strerror or exc}); "
              "set TILELAB_CACHE_DIR to a directory you can write, or pass the file with --ceilings", file=sys.stderr)
    if args.output:
        try:
            roofline.save_calibration(data, args.output)
        except OSError as exc:  # checked before measuring, but a disk can fill or a directory vanish since
            print(f"kernel-bench calibrate: could not write --output {args.output} ({exc.strerror or exc})",
                  file=sys.stderr)
            return 1

    sheet = data["datasheet"] or {}
    table = Table(title=f"ceilings of {data['gpu_name']}")
    for column in ("ceiling", "measured", "datasheet", "measured / datasheet"):
        table.add_column(column, justify="right" if column != "ceiling" else "left")
    rows = [(f"{key} TFLOP/s", value, (sheet.get("compute_tflops") or {}).get(key))
            for key, value in data["compute_tflops"].items()]
    rows.append(("memory GB/s", data["memory_gbps"], sheet.get("memory_gbps")))
    for label, measured, datasheet in rows:
        ratio = f"{measured / datasheet:.0%}" if datasheet else ""
        table.add_row(label, f"{measured:,.1f}", f"{datasheet:,.1f}" if datasheet else "-", ratio)
    console.wide_console().print(table)
    print(f"cached in {cached}" + (f" and written to {args.output}" if args.output else ""))
    return EXIT_OK


def report_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="kernel-bench report",
        description="Markdown tables and PNG plots (TFLOP/s, speedup vs torch, roofline) from result files.",
        epilog=REPORT_EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", type=Path, help="kernel-bench result JSON files")
    parser.add_argument("--output", type=Path, help="markdown file (default: print to stdout)")
    parser.add_argument("--plot", type=_png_path, help="PNG file for the plots")
    args = parser.parse_args(argv)

    from tilelab.bench import report

    try:
        documents = [report.load(path) for path in args.files]
    except report.ReportError as exc:
        print(f"kernel-bench report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problem = _report_outputs_problem(args)
    if problem:
        print(f"kernel-bench report: {problem}", file=sys.stderr)
        return EXIT_USAGE
    names = [path.name for path in args.files]
    plot_link = None
    try:
        if args.plot:
            from tilelab.bench import plots

            plots.render(documents, names, args.plot)
            plot_link = os.path.relpath(args.plot, args.output.parent) if args.output else str(args.plot)
        markdown = report.render(documents, names, plot_link)
        if args.output:
            args.output.write_text(markdown)
    except OSError as exc:  # checked above; this is a disk that filled or a directory that went since
        print(f"kernel-bench report: could not write {exc.filename or 'the output'}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    if args.output:
        print(f"wrote {args.output}" + (f" and {args.plot}" if args.plot else ""))
    else:
        sys.stdout.write(markdown)
    return EXIT_OK


def _report_outputs_problem(args) -> str | None:
    """Why --output or --plot cannot be written, or None. Neither may be one of the inputs: the report would
    replace the results it was made from."""
    inputs = {path.resolve() for path in args.files}
    named = [(flag, path) for flag, path in (("--output", args.output), ("--plot", args.plot)) if path]
    for flag, path in named:
        if path.resolve() in inputs:
            return f"{flag} {path} is one of the input files; it would be overwritten"
    if len(named) == 2 and args.output.resolve() == args.plot.resolve():
        return f"--output and --plot name the same file, {args.output}"
    for flag, path in named:
        problem = _unwritable(path)
        if problem:
            return f"{flag} {path} {problem}"
    return None


def schema_command(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="kernel-bench schema", description="Print the result JSON Schema.").parse_args(argv)
    from tilelab.bench import schema

    print(json.dumps(schema.RESULT, indent=1))
    return EXIT_OK


def list_command(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="kernel-bench list",
                            description="Ops, their variants and default shapes.").parse_args(argv)
    import torch

    if not torch.cuda.is_available() and _use_interpreter():
        pass  # listing runs no kernel; an already-imported Triton is fine here
    from rich.table import Table

    from tilelab.bench import console, registry

    table = Table(title="kernel-bench ops")
    for column in ("op", "dims", "dtypes", "variants (* = default)", "default shapes"):
        table.add_column(column)
    for op in registry.all_ops().values():
        options = registry.VariantOptions(dtype=registry.DTYPES[op.dtypes[0]], compile=False, on_gpu=True)
        try:
            variants = ", ".join(v.name + ("*" if v.default else "") for v in op.variants(options))
            variants += ", torch-compile (with --compile)" if op.compile_baseline else ""
        except Exception as exc:  # the library side of the op may be missing
            variants = f"(unavailable: {exc})"
        shapes = ", ".join("x".join(map(str, s)) for s in op.default_shapes)
        table.add_row(op.name, " ".join(op.dims), ", ".join(op.dtypes), variants, shapes)
    console.wide_console().print(table)
    return EXIT_OK
