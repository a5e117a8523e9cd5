"""Do the TMA paths write into the output's row padding on the GPU? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_padding_probe.py

The descriptor and persistent paths store C through a descriptor of shape
[M, N] into rows padded to 16 bytes; the hardware should clip every store at
N. This fills the whole padded buffer with NaN, runs one product and reports
which padding cells were written, for narrow and awkward widths.
"""

import torch

import tilelab
from tilelab.ops import matmul as matmul_op

buffers = []
_real = matmul_op._allocate_output


def _poisoned(*args, **kwargs):
    out = _real(*args, **kwargs)
    (out._base if out._base is not None else out).fill_(float("nan"))
    buffers.append(out)
    return out


matmul_op._allocate_output = _poisoned
matmul_op._REPLAYS = type("NoStore", (dict,), {"__setitem__": lambda self, k, v: None})()

for path in ("descriptor", "persistent"):
    for m in (1, 7, 128):
        for n in (1, 4, 7, 9, 36, 255):
            a = torch.randn(m, 64, device="cuda", dtype=torch.float16)
            b = torch.randn(n, 64, device="cuda", dtype=torch.float16).t()  # K-major: TMA-eligible for any N
            out = tilelab.matmul(a, b, path=path)
            storage = buffers[-1]._base
            padding = storage[..., n:]
            written = int((~torch.isnan(padding)).sum()) if padding.numel() else 0
            err = (out.double() - a.double() @ b.double()).abs().max().item()
            print(f"{path:10s} M={m:4d} N={n:4d} row stride {storage.shape[-1]:4d}  padding cells written "
                  f"{written:5d} of {padding.numel():5d}  max |err| {err:.2e}", flush=True)
