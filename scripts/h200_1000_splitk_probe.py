"""1000^3: do fewer, larger tiles split over K beat the descriptor path's 128 small ones? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_1000_splitk_probe.py [--rounds 10]

At 1000^3 the default (64x128x128 tiles, 128 of them) takes 12.8 us against torch's 10.4. Each program reads
(64 + 128) x 1000 elements for its tile, and rows 2000 bytes long make most of those reads straddle one more
32-byte sector than aligned rows would (padded rows: 10.0 us, results/h200-misaligned-probe.log). 128x128
tiles (64 of them) were no faster, because half the SMs sat idle. Split over K in two, 128x128 tiles make 128
programs again, each reading a third less than a 64x128 tile over the whole K, plus a 64 KB float32 partial
written by one slice and read back by the other. This times such splits, through pointers (the library's
split-K kernel) and through tensor descriptors (its descriptor variant), in turns with torch and the default.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul_plan import operand_layout

SPLITS = [  # BLOCK_M, BLOCK_N, BLOCK_K, stages, warps, slices
    (128, 128, 64, 3, 8, 2), (128, 128, 64, 4, 8, 2), (128, 128, 64, 4, 4, 2), (128, 128, 128, 3, 8, 2),
    (128, 256, 64, 3, 8, 4), (64, 256, 64, 4, 4, 2), (128, 64, 128, 4, 4, 1), (64, 128, 128, 4, 4, 1),
    (128, 128, 64, 6, 8, 2), (256, 128, 64, 3, 8, 4),
]


def descriptor_split(a: torch.Tensor, b: torch.Tensor, config: matmul_hopper.HopperConfig):
    """The split-K kernel reading A and B through host-built tensor descriptors (what `path="splitk"` does not
    choose): returns a callable giving C."""
    a3, b3 = a.unsqueeze(0), b.unsqueeze(0)
    c3 = torch.empty(1, a.shape[0], b.shape[1], dtype=a.dtype, device=a.device)
    layouts = {"a_layout": operand_layout(a3), "b_layout": operand_layout(b3)}
    m, k = a.shape

    def run():
        matmul_hopper.launch_split_k(a3, b3, c3, m, b.shape[1], k, "tf32", config, **layouts)
        return c3[0]
    return run


def probe(dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(1000, 1000, device="cuda").to(dtype)
    b = torch.randn(1000, 1000, device="cuda").to(dtype)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    for bm, bn, bk, stages, warps, slices in SPLITS:
        config = matmul_hopper.HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages,
                                            epilogue_subtile=False, split_k=slices)
        variants[f"pointers {config.label()}"] = (
            lambda c=config: tilelab.matmul(a, b, path="splitk", config=c))
        variants[f"descriptors {config.label()}"] = descriptor_split(a, b, config)
    report_in_turns(f"== 1000^3 {dtype}", variants, rounds, reference=a.double() @ b.double(), by_time=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        probe(dtype, args.rounds)


if __name__ == "__main__":
    main()
