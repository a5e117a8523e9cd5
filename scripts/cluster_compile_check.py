"""Can Triton 3.6 give the matmul kernels thread-block clusters (`num_ctas=2`), and do their loads multicast?

    PYTHONPATH=src python scripts/cluster_compile_check.py    (no GPU needed: compiles for sm_90)

cuBLAS runs 1000^3 on 4x2 clusters whose TMA loads are shared across the cluster (multicast), cutting what
each SM reads. This compiles the library's descriptor, persistent and pointer kernels for sm_90 with one and
two CTAs per program and counts, in the PTX, the TMA loads and those that multicast.
"""

import re

import triton

from tilelab.inspect import targets
from tilelab.inspect.compile import kernel_source


def main() -> None:
    for path in ("descriptor", "persistent", "pointer"):
        kernel, signature, constexprs, attrs, config = kernel_source("matmul", path, "float16", None, None)
        for ctas in (1, 2):
            source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
            try:
                compiled = triton.compile(source, target=targets.resolve("sm_90"), options={
                    "num_warps": config.num_warps, "num_stages": config.num_stages, "num_ctas": ctas})
            except Exception as error:  # the failure is the finding
                print(f"{path:10s} num_ctas={ctas}: does not compile ({type(error).__name__}: {str(error)[:60]})")
                continue
            ptx = compiled.asm["ptx"]
            loads = len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global", ptx))
            multicast = len(re.findall(r"cp\.async\.bulk\.tensor[^;]*multicast", ptx))
            cluster = re.search(r"\.reqnctapercluster\s+(\d+)", ptx)
            print(f"{path:10s} num_ctas={ctas}: compiles; cluster of {cluster.group(1) if cluster else 1}, "
                  f"{loads} TMA loads in the PTX, {multicast} multicast; {compiled.metadata.shared} bytes of "
                  "shared memory per CTA")


if __name__ == "__main__":
    main()
