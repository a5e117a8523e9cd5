"""Shapes between powers of two (1536^3 at 0.72x torch): does another path or tile of the library do better?
(run on the H200)

    PYTHONPATH=src:. python scripts/h200_mid_shapes_probe.py [--rounds 10]

1536^3 takes the descriptor kernel with 128x256 tiles: 72 tiles for 132 SMs (results/h200-bucket-probe.log).
Each variant below is an explicit path and configuration, its recorded launch timed in turns with torch and the
default: the pingpong kernel (128x128 tiles, two warp groups taking turns), the persistent kernel, the
descriptor kernel and split-K at tiles that make other tile counts.
"""



from scripts.turns import operands_with_torch, record_default, recorded_launch, report_in_turns, rounds_argument
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.reference import matmul_reference
from tilelab.tuning import Config

SHAPES = [(1536, 1536, 1536), (1536, 1536, 4096), (768, 4096, 4096)]
VARIANTS = {
    "pingpong": ("pingpong", None),
    "persistent 128x128x64 w8 s4": ("persistent", HopperConfig(128, 128, 64, 8, num_warps=8, num_stages=4)),
    "persistent 128x128x64 w4 s4": ("persistent", HopperConfig(128, 128, 64, 8, num_warps=4, num_stages=4)),
    "persistent 128x256x64 w8 s3": ("persistent", HopperConfig(128, 256, 64, 8, num_warps=8, num_stages=3)),
    "descriptor 128x128x64 w8 s4": ("descriptor", Config(128, 128, 64, 8, num_warps=8, num_stages=4)),
    "descriptor 128x128x64 w4 s4": ("descriptor", Config(128, 128, 64, 8, num_warps=4, num_stages=4)),
    "descriptor 64x256x64 w4 s4": ("descriptor", Config(64, 256, 64, 8, num_warps=4, num_stages=4)),
    "descriptor 64x128x64 w4 s4": ("descriptor", Config(64, 128, 64, 8, num_warps=4, num_stages=4)),
    "splitk 128x256x64 w8 s3 sk2": ("splitk", HopperConfig(128, 256, 64, 8, num_warps=8, num_stages=3,
                                                          epilogue_subtile=False, split_k=2)),
    "splitk 128x128x128 w8 s3 sk1": ("splitk", HopperConfig(128, 128, 128, 8, num_warps=8, num_stages=3,
                                                           epilogue_subtile=False, split_k=1)),
}


def main() -> None:
    rounds = rounds_argument()
    for m, n, k in SHAPES:
        a, b, variants = operands_with_torch(m, n, k)
        record_default(variants, a, b)
        for name, (path, config) in VARIANTS.items():
            try:
                variants[name], _ = recorded_launch(a, b, path=path, config=config)
            except Exception as error:  # a tile that does not fit is a result too
                print(f"  {name} failed: {type(error).__name__}: {str(error)[:150]}", flush=True)
        report_in_turns(f"{m}x{n}x{k} float16", variants, rounds, reference=matmul_reference(a, b),
                        by_time=True)


if __name__ == "__main__":
    main()
