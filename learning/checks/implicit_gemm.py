"""Checks for exercise 17: output sizes, the implicit GEMM's sizes, which input value A[m, k] is, and the
folded batch norm."""

from __future__ import annotations

import math

from learning.checking import reference as ref
from learning.checking.compare import check_value
from learning.checking.trial import Part

# (batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation): kernel-bench's layers and odd ones.
LAYERS = [
    (32, 64, 56, 56, 64, 3, 3, 1, 1, 1), (32, 256, 56, 56, 64, 1, 1, 1, 0, 1), (8, 3, 640, 640, 32, 3, 3, 2, 1, 1),
    (8, 128, 80, 80, 256, 3, 3, 2, 1, 1), (7, 33, 31, 29, 65, 3, 3, 1, 1, 1), (1, 2, 4, 4, 3, 3, 3, 1, 1, 1),
    (1, 5, 12, 12, 7, 3, 3, 1, 2, 2), (2, 4, 8, 9, 6, 3, 1, 1, 0, 1), (1, 6, 5, 5, 9, 1, 1, 3, 2, 1),
]


def _random_layer(trial):
    kh, kw = trial.rng.choice([1, 3, 5, 7]), trial.rng.choice([1, 3, 5])
    stride, dilation = trial.rng.choice([1, 1, 2, 3]), trial.rng.choice([1, 1, 2])
    padding = trial.rng.randint(0, 3)
    h = trial.rng.randint(dilation * (kh - 1) + 1, 40)
    w = trial.rng.randint(dilation * (kw - 1) + 1, 40)
    return (trial.rng.randint(1, 4), trial.rng.randint(1, 9), h, w, trial.rng.randint(1, 9), kh, kw, stride,
            padding, dilation)


def check_output_size(module, trial) -> None:
    cases = [(56, 3, 1, 1, 1), (640, 3, 2, 1, 1), (12, 3, 1, 2, 2), (7, 7, 1, 3, 1), (31, 3, 1, 1, 1),
             (5, 1, 3, 2, 1), (9, 5, 1, 0, 2), (4, 3, 1, 0, 1), (10, 3, 3, 0, 1), (224, 7, 2, 3, 1)]
    for _ in range(6):
        kernel, dilation = trial.rng.choice([1, 3, 5]), trial.rng.choice([1, 2])
        cases.append((trial.rng.randint(dilation * (kernel - 1) + 1, 300), kernel, trial.rng.choice([1, 2, 3]),
                      trial.rng.randint(0, 3), dilation))
    for size, kernel, stride, padding, dilation in cases:
        call = f"output_size({size}, {kernel}, {stride}, {padding}, {dilation})"
        with trial.case(call):
            check_value(module.output_size(size, kernel, stride, padding, dilation),
                        ref.conv_output_size(size, kernel, stride, padding, dilation), call, known_mistakes=[
                            ((size + 2 * padding - kernel) // stride + 1,
                             "the dilated filter spans dilation * (kernel - 1) + 1 inputs, not kernel"),
                            ((size - dilation * (kernel - 1) - 1) // stride + 1,
                             "padding adds `padding` zeros at each end of the side: 2 * padding more inputs"),
                            (math.ceil((size + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1,
                             "the filter must fit entirely: round the number of strides down, not up"),
                            ((size + 2 * padding - dilation * (kernel - 1) - 1) // stride,
                             "count the first placement too: + 1"),
                        ])


def check_gemm_sizes(module, trial) -> None:
    for layer in LAYERS + [_random_layer(trial) for _ in range(6)]:
        batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation = layer
        oh = ref.conv_output_size(h, kh, stride, padding, dilation)
        ow = ref.conv_output_size(w, kw, stride, padding, dilation)
        call = f"gemm_sizes{layer}"
        with trial.case(call):
            check_value(tuple(module.gemm_sizes(*layer)), (batch * oh * ow, c_out, kh * kw * c_in), call,
                        known_mistakes=[
                            ((batch * h * w, c_out, kh * kw * c_in),
                             "M counts output pixels (batch * OH * OW), not input pixels"),
                            ((batch * oh * ow, c_out, kh * kw), "K counts every tap of every input channel"),
                            ((batch * oh * ow, c_out, c_in), "K counts every tap of every input channel"),
                            ((oh * ow, c_out, kh * kw * c_in), "every image of the batch adds OH * OW rows"),
                        ])


def check_a_entry(module, trial) -> None:
    layers = LAYERS[4:] + [_random_layer(trial) for _ in range(6)]
    for layer in layers:
        batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation = layer
        k_count = kh * kw * c_in
        m_count = (batch * ref.conv_output_size(h, kh, stride, padding, dilation)
                   * ref.conv_output_size(w, kw, stride, padding, dilation))
        points = {(0, 0), (m_count - 1, k_count - 1), (m_count // 2, k_count // 2)}
        points |= {(trial.rng.randrange(m_count), trial.rng.randrange(k_count)) for _ in range(12)}
        geometry = (batch, c_in, h, w, kh, kw, stride, padding, dilation)
        for m, k in sorted(points):
            call = f"a_entry({m}, {k}, {', '.join(map(str, geometry))})"
            with trial.case(call):
                want = ref.conv_a_entry(m, k, *geometry)
                got = module.a_entry(m, k, *geometry)
                check_value(tuple(got) if got is not None else None, want, call, known_mistakes=[
                    (ref.conv_a_entry(m, k, *geometry, channels_outer=True),
                     "that is unfold's order, channel outermost; the kernel walks taps outermost and channels "
                     "innermost: k = (r * KW + s) * C_in + c"),
                    (_unpadded(m, k, *geometry), "where the tap falls outside the image the kernel's masked load "
                                                 "reads 0: return None there"),
                ])


def _unpadded(m, k, batch, c_in, h, w, kh, kw, stride, padding, dilation):
    """a_entry without the padding test: coordinates outside the image returned as they are."""
    oh_count = ref.conv_output_size(h, kh, stride, padding, dilation)
    ow_count = ref.conv_output_size(w, kw, stride, padding, dilation)
    n, rest = divmod(m, oh_count * ow_count)
    oh, ow = divmod(rest, ow_count)
    tap, c = divmod(k, c_in)
    r, s = divmod(tap, kw)
    return n, c, oh * stride - padding + r * dilation, ow * stride - padding + s * dilation


def check_fold_batch_norm(module, trial) -> None:
    cases = [(2.0, 3.0, 0.0, 0.5, 1.0, 0.25), (1.0, 1.0, 1e-5, 0.0, 0.0, 0.0), (0.5, 1e-4, 1e-3, -1.0, 2.0, 3.0),
             (-1.5, 4.0, 0.1, 2.0, -0.5, 0.0)]
    cases += [(trial.rng.uniform(-2, 2), trial.rng.uniform(0.01, 4), trial.rng.choice([1e-5, 1e-3, 0.1]),
               trial.rng.uniform(-2, 2), trial.rng.uniform(-2, 2), trial.rng.uniform(-2, 2)) for _ in range(6)]
    for gamma, var, eps, beta, mean, bias in cases:
        call = f"fold_batch_norm({gamma:g}, {var:g}, {eps:g}, {beta:g}, {mean:g}, {bias:g})"
        with trial.case(call):
            scale = gamma / math.sqrt(var + eps)
            got_scale, got_shift = module.fold_batch_norm(gamma, var, eps, beta, mean, bias)
            check_value(got_scale, scale, f"{call}[0] (scale)", known_mistakes=[
                (gamma / math.sqrt(var), "eps goes inside the square root: sqrt(var + eps)"),
                (gamma / (var + eps), "divide by the standard deviation, sqrt(var + eps), not by the variance"),
                (gamma * math.sqrt(var + eps), "the batch norm divides by sqrt(var + eps)"),
            ])
            check_value(got_shift, beta + (bias - mean) * scale, f"{call}[1] (shift)", known_mistakes=[
                (beta - mean * scale, "the convolution's bias comes before the batch norm, so it is scaled too: "
                                      "shift = beta + (bias - mean) * scale"),
                (beta + bias - mean * scale, "the bias comes before the batch norm, so it is scaled too: "
                                             "(bias - mean) * scale"),
                (beta - (bias - mean) * scale, "the bias adds and the mean subtracts: beta + (bias - mean) * scale"),
            ])


PARTS = [
    Part("output_size", check_output_size),
    Part("gemm_sizes", check_gemm_sizes),
    Part("a_entry", check_a_entry),
    Part("fold_batch_norm", check_fold_batch_norm),
]
