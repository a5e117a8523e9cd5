"""One GEMM off sectors: do 256-row tiles in fewer row classes read B few enough times to win? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_tall_tile_classes_probe.py [--rounds 10]

At 3000^3 the default reads A in 8 classes of 375 rows with 128x256 tiles, so B, whose rows are off sectors, is
read 24 times. A 256-row tile reads it 12 times, but fits 375-row classes badly; in 4 classes (750 rows: 3 tiles)
or 2 (1500: 6 tiles) it wastes 2%, and A's rows then start on 64-byte or 32-byte boundaries instead of lines.
Variants, each its recorded launch (tilelab.matmul's replay), on the descriptor kernel, in turns with torch.
"""



from scripts.turns import operands_with_torch, recorded_launch, report_in_turns, rounds_argument
from tilelab.reference import matmul_reference
from tilelab.tuning import Config

SHAPES = [(3000, 3000, 3000), (5000, 5000, 5000), (3000, 3000, 1000)]
TALL = [Config(256, 128, 64, 8, num_warps=8, num_stages=3), Config(256, 128, 64, 16, num_warps=8, num_stages=3)]


def main() -> None:
    rounds = rounds_argument()
    for m, n, k in SHAPES:
        a, b, variants = operands_with_torch(m, n, k)
        variants["default"], plan = recorded_launch(a, b)
        config = plan["config"] or {}
        print(f"  default: {plan['path']}, {plan['row_classes']} classes, {config.get('block_m')}x"
              f"{config.get('block_n')}x{config.get('block_k')} s{config.get('num_stages')}", flush=True)
        for tall in TALL:
            for counts in ((8, 4, 2), (4, 2), (2,)):
                name = f"{tall.label()} in {counts[0]} classes"
                try:
                    variants[name], plan = recorded_launch(a, b, path="descriptor", config=tall,
                                                           ROW_CLASS_COUNTS=counts)
                    assert plan["row_classes"] == counts[0], plan["row_classes"]
                except Exception as error:  # a tile that does not fit is a result too
                    print(f"  {name} failed: {type(error).__name__}: {str(error)[:200]}", flush=True)
        report_in_turns(f"{m}x{n}x{k} float16", variants, rounds, reference=matmul_reference(a, b),
                        by_time=True)


if __name__ == "__main__":
    main()
