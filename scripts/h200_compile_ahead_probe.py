"""First-sight tuning with and without `tuning.compile_ahead` (run on the GPU).

    PYTHONPATH=src:. python scripts/h200_compile_ahead_probe.py [--threads 1 8]

Each setting runs in a fresh process with empty Triton and tilelab caches and the shipped table off
(TILELAB_SHIPPED_TUNING=0), so every case below tunes on its first call: the wall time of that call, the kernels
compiled ahead, and the winner. The winners may differ between settings where candidates time within noise.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = """
import json, time, torch, tilelab
from tilelab import tuning
from tilelab.bench import op_conv
from tilelab.ops import conv as conv_op

ahead = []
real = tuning.compile_ahead
def counting(launches, threads=None):
    ahead.append(real(launches, threads))
    return ahead[-1]
tuning.compile_ahead = counting

def conv(shape, dtype):
    inputs = op_conv.make_inputs(shape, dtype, "cuda", torch.Generator("cuda").manual_seed(0))
    x, w, bias, mean, var, gamma, beta, stride = inputs[:8]
    return lambda: tilelab.conv2d_bn_silu(x, w, bias, running_mean=mean, running_var=var, bn_weight=gamma,
                                          bn_bias=beta, stride=stride, padding=w.shape[-1] // 2)

def matmul(m, n, k, dtype):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    return lambda: tilelab.matmul(a, b)

cases = {
    "conv 32x64x56x56x64x3x1 fp16": conv((32, 64, 56, 56, 64, 3, 1), torch.float16),
    "conv 7x33x31x29x65x3x1 fp32": conv((7, 33, 31, 29, 65, 3, 1), torch.float32),
    "conv 32x512x7x7x512x3x1 bf16": conv((32, 512, 7, 7, 512, 3, 1), torch.bfloat16),
    "matmul 1024^3 fp16": matmul(1024, 1024, 1024, torch.float16),
    "matmul 16x4096x4096 fp16": matmul(16, 4096, 4096, torch.float16),
}
torch.cuda.synchronize()
found = {}
for name, call in cases.items():
    before = len(ahead)
    start = time.perf_counter()
    call()
    torch.cuda.synchronize()
    found[name] = {"seconds": round(time.perf_counter() - start, 2), "compiled_ahead": ahead[before:]}
entries = tuning.cache()._entries
found["winners"] = {key.split("|", 2)[2][:70]: entry["config"] for key, entry in entries.items()}
print(json.dumps(found))
"""


def run(threads: int) -> dict:
    with tempfile.TemporaryDirectory() as triton_cache, tempfile.TemporaryDirectory() as tilelab_cache:
        env = {**os.environ, "TRITON_CACHE_DIR": triton_cache, "TILELAB_CACHE_DIR": tilelab_cache,
               "TILELAB_SHIPPED_TUNING": "0", "TILELAB_COMPILE_THREADS": str(threads)}
        done = subprocess.run([sys.executable, "-c", CASES], env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(done.stderr[-3000:])
        return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    results = {threads: run(threads) for threads in args.threads}
    names = [name for name in results[args.threads[0]] if name != "winners"]
    print(f"{'case':32} " + " ".join(f"{f'{t} thread(s)':>22}" for t in args.threads))
    for name in names:
        cells = [f"{results[t][name]['seconds']:7.2f} s ({sum(results[t][name]['compiled_ahead']):3d} ahead)"
                 for t in args.threads]
        print(f"{name:32} " + " ".join(f"{cell:>22}" for cell in cells))
    for threads in args.threads:
        print(f"\nwinners, {threads} thread(s):")
        for key, config in results[threads]["winners"].items():
            print(f"  {key}: {config}")


if __name__ == "__main__":
    main()
