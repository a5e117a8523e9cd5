"""The Hopper kernels as kernel-inspect sees them: persistent, split-K and fp8 (`scaled_matmul`).

`tilelab.ops.matmul_hopper.inspection_source` specializes each kernel as a
launch on aligned 4096-wide operands would; this module only maps the
command line's names onto it and picks the configuration to compile.
"""

import dataclasses

# --path (op matmul) -> the kernel name matmul_hopper knows.
MATMUL_PATHS = {
    "persistent": "persistent",
    "splitk": "splitk",
    "splitk-descriptor": "splitk_descriptor",
}
ACCUMULATE = ("fast", "promoted")  # scaled_matmul's use_fast_accum True / False


def candidates(kernel_name: str) -> tuple:
    from tilelab.ops import matmul_hopper as hopper

    if kernel_name == "persistent":
        return hopper.PERSISTENT_CANDIDATES
    if kernel_name == "fp8":
        return hopper.FP8_CANDIDATES
    return hopper.SPLIT_K_CANDIDATES


def choose_config(kernel_name: str, element_size: int, label: str | None):
    """The candidate named by its label (see `--config`), else the first: the one the library tries first."""
    options = candidates(kernel_name)
    if label is None:
        config = options[0]
        if kernel_name == "persistent" and element_size >= 4:
            # As tilelab.ops.matmul.persistent_config: half the K step keeps float32 in shared memory.
            config = dataclasses.replace(config, block_k=config.block_k // 2)
        return config
    for config in options:
        if config.label() == label:
            return config
    raise ValueError(f"unknown config {label!r} (--config) for the {kernel_name} kernel; known: "
                     + ", ".join(c.label() for c in options))


def kernel_source(kernel_name: str, dtype, precision: str | None, config: str | None, accumulate: str | None,
                  b_k_major: bool = False, batched: bool = False, row_classes: int = 1, bias: bool = False,
                  activation: str | None = None):
    """(jit function, signature, constexprs, attrs, config) like `tilelab.inspect.compile.kernel_source`.

    b_k_major: B stored [N, K] (matmul's persistent and split-K descriptor kernels; fp8 always is).
    batched: the persistent kernel on a batch's 3-D descriptors.
    row_classes > 1: the persistent kernel reading A's rows in that many classes (A and C one dimension up).
    bias, activation: the persistent or split-K kernels with `tilelab.linear`'s fused epilogue.
    """
    from tilelab.ops import matmul_hopper as hopper

    chosen = choose_config(kernel_name, dtype.itemsize, config)
    kwargs = {"dtype": dtype, "config": chosen}
    if kernel_name == "fp8":
        kwargs["fast_accum"] = (accumulate or "fast") == "fast"
    else:
        kwargs["precision"] = precision or "tf32"
        kwargs["b_k_major"] = b_k_major  # the pointer split-K kernel ignores it (resolve() allows it only kn)
    if batched or row_classes > 1:
        if not hopper.persistent_host_descriptors(chosen):
            raise ValueError(f"--batch and --row-classes: {chosen.label()} is warp-specialized, and builds each "
                             "matrix's 2-D descriptors in its programs; inspect with a configuration without -ws")
        kwargs.update(batched=batched, row_classes=row_classes)
    if bias or activation:
        kwargs.update(bias=bias, activation=activation)
    kernel, signature, constexprs, attrs, options = hopper.inspection_source(kernel_name, **kwargs)
    chosen = dataclasses.replace(chosen, num_warps=options["num_warps"], num_stages=options["num_stages"])
    return kernel, signature, constexprs, attrs, chosen
