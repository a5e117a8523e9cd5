"""Compile every tuning candidate of some conv2d_bn_silu layers in parallel processes, so that a tuning run after it
(kernel-bench on keys the shipped table lacks) finds each kernel in Triton's on-disk cache instead of compiling
the candidates one at a time. Times nothing: each candidate is launched once, on kernel-bench's own inputs
(`bench.op_conv.make_inputs`), so the launches specialize as the tuner's will.

    python scripts/warm_conv_candidates.py --dtype float16 --shape 32 64 56 56 256 1 1 [--shape ...] [--workers 12]

Shapes are kernel-bench's: batch C_in H W C_out kernel stride [groups].

Since `tuning.compile_ahead` the tuner compiles one key's candidates on threads by itself; this script still
compiles many layers and dtypes at once, in processes, before a run that tunes them all (the device calls
DDDDDDDDD, FFFFFFFFF and HHHHHHHHH ran it so).
"""

import argparse
import concurrent.futures
import multiprocessing
import time


def _compile(task) -> tuple[str, int, float]:
    shape, dtype_name, labels = task
    import torch

    import tilelab
    from tilelab.bench import op_conv
    from tilelab.ops import conv as conv_op

    dtype = getattr(torch, dtype_name)
    inputs = op_conv.make_inputs(shape, dtype, "cuda", torch.Generator("cuda").manual_seed(0))
    x, weight, bias, mean, var, gamma, beta, stride = inputs[:8]
    groups = inputs[8] if len(inputs) > 8 else 1
    by_label = {c.label(): c for c in conv_op.candidates(op_conv.geometry(shape), dtype.itemsize)}
    start = time.perf_counter()
    for label in labels:
        tilelab.conv2d_bn_silu(x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma, bn_bias=beta,
                               eps=op_conv.EPS, stride=stride, padding=weight.shape[-1] // 2, groups=groups,
                               config=by_label[label])
    torch.cuda.synchronize()
    return f"{dtype_name} {shape}", len(labels), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", nargs="+", type=int, action="append", required=True)
    parser.add_argument("--dtype", action="append", required=True, choices=["float16", "bfloat16", "float32"])
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--per-task", type=int, default=8, help="candidates per task (a worker's turn)")
    args = parser.parse_args()

    from tilelab.bench import op_conv
    from tilelab.ops import conv as conv_op

    tasks = []
    for dtype_name in args.dtype:
        size = 4 if dtype_name == "float32" else 2
        for shape in map(tuple, args.shape):
            labels = [c.label() for c in conv_op.candidates(op_conv.geometry(shape), size)]
            tasks += [(shape, dtype_name, labels[i:i + args.per_task]) for i in range(0, len(labels), args.per_task)]
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # CUDA in each worker of its own
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        for name, count, seconds in pool.map(_compile, tasks):
            print(f"{name}: {count} candidates in {seconds:.1f} s", flush=True)
    print(f"{len(tasks)} tasks, {sum(len(t[2]) for t in tasks)} candidates in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
