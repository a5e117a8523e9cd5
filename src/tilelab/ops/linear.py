"""`tilelab.linear`: y = activation(x @ weight.T + bias), `torch.nn.functional.linear` and an activation in one launch.

The bias add and the activation run on the matmul kernel's float32 accumulator, before its one rounding and
store (`apply_epilogue` in kernels/matmul.py): C is written once, where torch writes x @ weight.T, reads it
back for the bias and again for the activation.

The call is tilelab.matmul's, with B = weight.T (a K-major view of nn.Linear's [N, K] weight, no copy): the
same contract style, the same plan (`plan_matmul`) and tuned tiles (under the matmul's keys: the epilogue adds
none), except that

- only the pointer, descriptor, persistent, split-K and pingpong kernels have the epilogue (`EPILOGUE_PATHS`;
  split-K applies it to the slices' float32 sum, in the program that writes C; pingpong to each half tile as
  it is stored). Where the matmul would take another kernel (registers, a wide tile), `plan_linear` re-plans
  the same problem on the first of the persistent, descriptor and pointer kernels that can take it;
- replays are recorded apart: the first call with a given signature records its launch, as tilelab.matmul's
  do, in the same table (`matmul._REPLAYS`, so `pretune` forgets them too) but under keys of their own that
  begin with "linear" (a matmul key begins with a shape: neither can serve the other). A replay passes x's,
  weight's, the output's and the bias's addresses anew on every call (`_LinearReplay`; split-K's also a fresh
  workspace and the stream's tile counters).

A call without bias and activation is a plain tilelab.matmul call, on any of its paths, its replays included.

Autograd: with grad enabled and x, weight or bias requiring grad, the fused kernel computes the forward inside
a `torch.autograd.Function` whose backward recomputes the block with torch's own ops and differentiates that.
"""

import dataclasses
import itertools

import torch

from tilelab import contracts, env, tuning
from tilelab.ops import bound_launch, descriptors, line_copies, matmul_plan
from tilelab.ops import matmul as matmul_op
from tilelab.recompute import gradients_by_recompute
from tilelab.tuning import Config

ACTIVATIONS = ("relu", "gelu", "silu")  # gelu: the exact erf form, torch.nn.functional.gelu's default
EPILOGUE_PATHS = matmul_op.EPILOGUE_PATHS  # ("pointer", "descriptor", "persistent", "splitk", "pingpong")
BIAS_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *, activation: str | None = None,
           precision: str | None = None, path: str | None = None,
           config: str | Config | None = None) -> torch.Tensor:
    """activation(x @ weight.T + bias) with `torch.nn.functional.linear`'s semantics, in one kernel launch.

    x: [..., K] (any leading dimensions, or none); weight: [N, K], nn.Linear's layout; bias: [N] or None, of any
    of float16, bfloat16 and float32 (read as float32). activation: None, "relu", "gelu" (the exact erf form)
    or "silu". The result has x's dtype and shape [..., N]; on the TMA paths its rows are padded as
    tilelab.matmul's are (a [..., :N] view).

    float16/bfloat16 accumulate in float32; float32 takes `precision` as tilelab.matmul does ("tf32",
    "tf32x3", "ieee"). `path` forces "pointer", "descriptor", "persistent", "splitk" or "pingpong" (the
    kernels with the fused epilogue); `config`, a named or explicit tile (a power-of-two block_n; on the
    split-K path a `HopperConfig` also gives the number of slices, `split_k`).
    """
    if torch.compiler.is_compiling():  # traced: the matmul op (it has a fake implementation), the epilogue in torch
        z = matmul_op._differentiable(x, weight.mT, torch.float32, precision, path, config)
        z = z + bias.float() if bias is not None else z  # in float32, as the fused epilogue adds it
        return _torch_epilogue(z, activation).to(x.dtype)
    key = _replay_key(x, weight, bias, activation, precision, path, config)
    replay = matmul_op._REPLAYS.get(key) if key is not None else None
    if replay is not None and bound_launch.no_launch_hooks():
        return replay(x, weight, bias)

    _check(x, weight, bias, activation, precision, path, config)
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (x, weight, bias)):
        return _Linear.apply(x, weight, bias, activation, precision, path, config)
    return _forward(x, weight, bias, activation, precision, path, config, key)


def plan_linear(p: "matmul_op._Problem", precision: str | None, path: str | None, config, *,
                copy: bool = True) -> tuple:
    """(plan, problem): the matmul's plan for this problem, or, where its kernel has no epilogue, the same
    problem re-planned on the first of "persistent", "descriptor" and "pointer" that can take it.

    The registers kernel (tf32, Gluon) and the wide tiles (`tuning.is_wide`) have no fused epilogue. Split-K
    has it (on the sum of its slices), so a skinny problem keeps its split, and so has the pingpong kernel
    (fp16/bf16 with a short K or a better-filled last wave). The persistent kernel is the matmul's choice for
    large Hopper problems where those are not taken, so it comes first; it and the descriptor kernel need
    TMA-usable operands (`operand_layout`; plan_matmul raises AlignmentError otherwise) and a Hopper GPU (or
    the interpreter); the pointer kernel takes anything.

    The problem is returned too: a large tf32 product whose B is stored [K, N] (a weight passed transposed)
    gets B copied K-major, as tilelab.matmul gives it on every path but the registers one (`_with_k_major_b`),
    and a large fp16/bf16 one whose rows TMA cannot read gets them copied onto lines (`_with_rows_on_lines`;
    copy=False: the copies are allocated, not made, as for describing a plan).
    """
    q = matmul_op._with_rows_on_lines(matmul_op._with_k_major_b(p, precision, path, config, copy=copy), path, config,
                                      copy=copy)
    plan = matmul_plan.plan_matmul(q.a3, q.b3, path, precision or "tf32", config)
    if plan.path in EPILOGUE_PATHS and not (plan.config is not None and tuning.is_wide(plan.config)):
        return plan, q
    tma_device = env.interpreting() or env.is_hopper_or_newer(p.a3.device)
    for fallback in ("persistent", "descriptor", "pointer"):
        if fallback != "pointer" and not tma_device:
            continue
        r = matmul_op._with_k_major_b(q, precision, fallback, config, copy=copy)  # no second copy of a copy
        try:
            return matmul_plan.plan_matmul(r.a3, r.b3, fallback, precision or "tf32", config), r
        except contracts.AlignmentError:
            continue
    raise AssertionError("the pointer path takes any operands")  # pragma: no cover


def describe_linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
                    activation: str | None = None, precision: str | None = None, path: str | None = None,
                    config: str | Config | None = None) -> dict:
    """The path and configuration `linear` uses for these arguments (as `tilelab.ops.matmul.describe_plan`
    describes a matmul's: after tuning, if it ran)."""
    _check(x, weight, bias, activation, precision, path, config)
    if bias is None and activation is None:
        return matmul_op.describe_plan(x, weight.mT, precision=precision, path=path, config=config)
    plan, p = plan_linear(matmul_op._as_gemm(x, weight.mT), precision, path, config, copy=False)
    described = plan.as_dict()
    described["line_copies"] = [name for name, _ in p.line_copies]  # as matmul's describe_plan names them
    c_probe = torch.empty((max(p.a3.shape[0], p.b3.shape[0]), 0, 0), dtype=x.dtype, device=x.device)
    if plan.path == "persistent":
        described["config"] = matmul_op.persistent_config(plan, p, c_probe).as_dict()
    elif plan.path == "pingpong":  # one configuration, by C's dtype
        from tilelab.ops import matmul_pingpong

        described["config"] = matmul_pingpong.config_for(x.dtype).as_dict()
    elif plan.config is None:
        known = matmul_op.known_config(plan, p, c_probe)
        if known is not None and tuning.is_wide(known):  # as `_launch_plan` narrows it for the epilogue
            known = Config(**{**known.as_dict(), "block_n": known.block_n * 2 // 3})
        described["config"] = known.as_dict() if known else None
    return described


# -- the forward --------------------------------------------------------------------------------------------


def _forward(x, weight, bias, activation, precision, path, config, replay_key=None) -> torch.Tensor:
    """The fused kernel's result (no autograd); records a replay under `replay_key` where it can."""
    if bias is None and activation is None:
        # Nothing to fuse: tilelab.matmul itself, on whichever path it takes, with its replays.
        return matmul_op.matmul(x, weight.mT, precision=precision, path=path, config=config)
    p = matmul_op._as_gemm(x, weight.mT)  # x's leading dimensions fold into rows: one GEMM against B = weight.T
    if p.batch == 0 or p.m == 0 or p.n == 0:
        return torch.empty(p.out_shape, dtype=x.dtype, device=x.device)
    if p.k == 0:  # an empty sum: the epilogue applied to zeros
        zeros = torch.zeros(p.out_shape, dtype=torch.float32, device=x.device)
        return _torch_epilogue(zeros if bias is None else zeros + bias.float(), activation).to(x.dtype)
    plan, p = plan_linear(p, precision, path, config)
    c3 = matmul_op._allocate_output(plan, p, x.dtype)
    bias_arg = None if bias is None else bias.contiguous()
    with matmul_op._config_must_fit(config):
        compiled, grid, args, _, split_k = matmul_op._launch_plan(plan, p, c3,
                                                                  epilogue=(bias_arg, activation or ""))
    out = c3.view(p.out_shape) if c3.is_contiguous() else c3.reshape(p.out_shape)
    if (replay_key is not None and p.b_copy is None and bias_arg is bias
            and matmul_op._replayable(p, x, weight, c3, out)):
        matmul_op._REPLAYS[replay_key] = _LinearReplay.record(compiled, grid, args, plan, c3, out, split_k,
                                                              p.line_copies)
    return out


# -- replays -----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _LinearReplay:
    """A linear launch recorded for one call signature (`_replay_key`): replaying it skips checks, planning and
    Triton's binder, as tilelab.matmul's `_Replay` does.

    The epilogue's parameters come last in the kernels' signatures (bias_ptr, ACTIVATION). A replay passes
    x's, weight's and the output's addresses first (for host-built descriptors, their tensor maps:
    `bind_descriptor_launch`), then, for split-K, a fresh float32 workspace's and the tile counters' (as
    tilelab.matmul's `_Replay`: `matmul_hopper.split_k_counters`, for this call's stream), then the recorded
    arguments between those and the bias (`middle`), then the bias's address: the bias is read where this
    call's bias lies, never where the first call's did.
    """

    launch: object  # bind_launch / bind_descriptor_launch, with ACTIVATION as the fixed tail
    middle: tuple  # the recorded arguments after the pointers and before bias_ptr: sizes, strides, constexprs
    device: torch.device
    storage_shape: tuple[int, ...]
    out_dtype: torch.dtype
    out_shape: tuple[int, ...]
    out_strides: tuple[int, ...]
    out_is_storage: bool  # the output is its whole buffer: return it as allocated
    needs_scratch: bool  # descriptors built in the kernel: the allocator must be set in this thread
    split_k: tuple | None = None  # split-K: (workspace shape, tile counters needed), as `_launch_plan` gives it
    # x or weight copied onto lines first (`line_copies.bound_copies`), as tilelab.matmul's `_Replay` does; "b"
    # copies weight's rows (B = weight.T, column-major).
    line_copies: tuple = ()

    @classmethod
    def record(cls, compiled, grid, args, plan, c3, out, split_k=None, copies=()) -> "_LinearReplay":
        *head, _, activation = args  # ..., bias_ptr, ACTIVATION (`matmul.epilogue_args`)
        descriptors = tuple(itertools.takewhile(lambda arg: hasattr(arg, "block_shape"), head[:3]))
        if descriptors:
            launch = bound_launch.bind_descriptor_launch(compiled, grid, (activation,), descriptors)
        else:
            launch = bound_launch.bind_launch(compiled, grid, (activation,))
        storage = c3._base if c3._base is not None else c3
        whole = out.is_contiguous() and out.numel() == storage.numel()
        pointers = 3 if split_k is None else 5  # A, B, C (and split-K's workspace and counters)
        return cls(launch, tuple(head[pointers:]), out.device, tuple(out.shape if whole else storage.shape),
                   out.dtype, tuple(out.shape), out.stride(), whole,
                   plan.path in ("descriptor", "persistent") and not descriptors, split_k,
                   line_copies.bound_copies(copies))

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        if self.needs_scratch:
            descriptors.ensure_descriptor_scratch()
        stream = bound_launch.stream_getter()(self.device.index)
        x, weight = line_copies.copy_again(self.line_copies, stream, x, weight)
        storage = x.new_empty(self.storage_shape, dtype=self.out_dtype)
        bias_address = None if bias is None else bias.data_ptr()
        if self.split_k is None:
            self.launch(stream, x.data_ptr(), weight.data_ptr(), storage.data_ptr(), *self.middle, bias_address)
        else:
            workspace, counters = matmul_op.split_k_scratch(self.split_k, x, self.device)
            self.launch(stream, x.data_ptr(), weight.data_ptr(), storage.data_ptr(), workspace.data_ptr(),
                        counters.data_ptr(), *self.middle, bias_address)
        if self.out_is_storage:
            return storage
        return storage.as_strided(self.out_shape, self.out_strides)


def _replay_key(x, weight, bias, activation, precision, path, config) -> tuple | None:
    """Everything a recorded launch depends on but the addresses (those modulo 16: Triton specializes pointers
    on 16-byte alignment), or None where no replay may serve the call: not on a GPU, autograd, a call with
    nothing to fuse (tilelab.matmul replays those), a bias the full path would copy, unhashable arguments."""
    if not (isinstance(x, torch.Tensor) and isinstance(weight, torch.Tensor) and x.is_cuda):
        return None
    if bias is None and activation is None:
        return None
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad
                                    or (isinstance(bias, torch.Tensor) and bias.requires_grad)):
        return None  # autograd goes through _Linear
    if not (config is None or isinstance(config, (str, Config))):
        return None  # let the contract check report it
    try:
        if bias is None:
            bias_signature = None
        elif not isinstance(bias, torch.Tensor) or bias.dim() != 1 or bias.stride(0) != 1:
            return None  # the full path checks it, or copies it contiguous
        else:
            bias_signature = (bias.shape, bias.dtype, bias.get_device(), bias.data_ptr() % 16)
        key = ("linear", x.shape, x.stride(), weight.shape, weight.stride(), x.dtype, weight.dtype, x.get_device(),
               weight.get_device(), x.data_ptr() % 16, weight.data_ptr() % 16, bias_signature, activation,
               precision, path, config)
    except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
        return None
    try:
        hash(key)
    except TypeError:  # an activation given as a list, say: the contract check reports it
        return None
    return key


def _torch_epilogue(z: torch.Tensor, activation: str | None) -> torch.Tensor:
    if activation == "relu":
        return torch.nn.functional.relu(z)
    if activation == "gelu":
        return torch.nn.functional.gelu(z)
    if activation == "silu":
        return torch.nn.functional.silu(z)
    return z


# -- autograd -----------------------------------------------------------------------------------------------


class _Linear(torch.autograd.Function):
    """Forward: the fused kernel. Backward: the block recomputed with torch's own ops (F.linear, the
    activation) and differentiated: the same function, so the same gradients, for one more matmul."""

    @staticmethod
    def forward(ctx, x, weight, bias, activation, precision, path, config):
        ctx.save_for_backward(x, weight, bias)
        ctx.activation = activation
        return _forward(x, weight, bias, activation, precision, path, config)

    @staticmethod
    def backward(ctx, grad):
        x, weight, bias = ctx.saved_tensors

        def block(x_, weight_, bias_):
            y = torch.nn.functional.linear(x_, weight_, None if bias_ is None else bias_.to(x_.dtype))
            return _torch_epilogue(y, ctx.activation)

        dx, dweight, dbias = gradients_by_recompute(block, (x, weight, bias), ctx.needs_input_grad[:3], grad)
        return dx, dweight, dbias, None, None, None, None


# -- contracts ----------------------------------------------------------------------------------------------


def _check(x, weight, bias, activation, precision, path, config) -> None:
    contracts.require_tensor(x, "x")
    contracts.require_tensor(weight, "weight")
    contracts.require_rank_at_least(x, "x", 1)
    if weight.dim() != 2:
        raise contracts.ShapeError(
            f"weight must be 2-D, [N, K] as nn.Linear stores it; got shape {tuple(weight.shape)}")
    contracts.require_dtype(x, "x", matmul_op.INPUT_DTYPES)
    contracts.require_dtype(weight, "weight", matmul_op.INPUT_DTYPES)
    contracts.require_same_dtype({"x": x, "weight": weight})
    operands = {"x": x, "weight": weight}
    if bias is not None:
        contracts.require_tensor(bias, "bias")
        operands["bias"] = bias
    contracts.require_runnable_device(operands)
    contracts.require_dot_dtype_runs_here(x, "x")
    n, k = weight.shape
    if x.shape[-1] != k:
        raise contracts.ShapeError(f"x's last dimension must be weight's K: x is {tuple(x.shape)} "
                                   f"(K={x.shape[-1]}) but weight is {tuple(weight.shape)} (K={k})")
    if bias is not None:
        if tuple(bias.shape) != (n,):
            raise contracts.ShapeError(f"bias must have shape ({n},), one value per output column (weight's N); "
                                       f"got {tuple(bias.shape)}")
        contracts.require_dtype(bias, "bias", BIAS_DTYPES)
    contracts.require_choice(activation, "activation", (None, *ACTIVATIONS))
    if precision is not None:
        contracts.require_choice(precision, "precision", matmul_op.PRECISIONS)
        if x.dtype != torch.float32:
            raise contracts.ContractError(
                f"precision={precision!r} applies to float32 inputs only; x and weight are {x.dtype}")
    if path is not None and path not in EPILOGUE_PATHS:
        options = ", ".join(repr(p) for p in EPILOGUE_PATHS)
        raise contracts.ContractError(f"path must be None or one of {options} (the kernels with the fused "
                                      f"epilogue); got {path!r}")
    if config is not None and not isinstance(config, Config):
        if not isinstance(config, str):
            raise contracts.InputTypeError(
                f"config must be None, a name or a tilelab.tuning.Config; got {type(config).__name__}")
        contracts.require_choice(config, "config", tuning.NAMED_CONFIGS)
    if isinstance(config, Config):
        if tuning.is_wide(config):
            raise contracts.ContractError(
                f"config.block_n={config.block_n} is a wide tile, whose kernel has no fused epilogue; pass a "
                "power of two")
        matmul_op._check_tile(config, "pointer")
        matmul_op.check_split_k_path(config, path)
