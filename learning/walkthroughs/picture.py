"""explain --plot: tiles owned by each program, masked cells, and the GROUP_M visiting order.

Needs matplotlib (imported here, so the text walkthroughs never need it).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # write files; never open a window

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from learning.checking import reference as ref  # noqa: E402

from .grouping import panels_touched  # noqa: E402
from .matmul import EXIT_BK, EXIT_BM, EXIT_BN, EXIT_K, EXIT_M, EXIT_N  # noqa: E402

ORDER_GRID = (16, 16)  # tile rows x tile columns for the visiting-order panels
WAVE = 32  # programs assumed to run at the same time


def _cell(ax, row, col, color, hatch=None, text="", text_color="black"):
    ax.add_patch(Rectangle((col, row), 1, 1, facecolor=color, edgecolor="white", linewidth=0.8, hatch=hatch))
    if text:
        ax.text(col + 0.5, row + 0.5, text, ha="center", va="center", fontsize=8, color=text_color, zorder=3)


def _frame(ax, rows, cols, title):
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)  # row 0 at the top, like a matrix
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([c + 0.5 for c in range(cols)], [str(c) for c in range(cols)], fontsize=7)
    ax.set_yticks([r + 0.5 for r in range(rows)], [str(r) for r in range(rows)], fontsize=7)
    ax.tick_params(length=0)


def draw_ownership(ax):
    """C (5x7) tiled by BM x BN: each program's tile in its own colour, masked lanes hatched."""
    tiles_m, tiles_n = ref.cdiv(EXIT_M, EXIT_BM), ref.cdiv(EXIT_N, EXIT_BN)
    rows, cols = tiles_m * EXIT_BM, tiles_n * EXIT_BN
    palette = plt.get_cmap("tab10")
    for r in range(rows):
        for c in range(cols):
            program = (r // EXIT_BM) * tiles_n + c // EXIT_BN
            if r < EXIT_M and c < EXIT_N:
                _cell(ax, r, c, palette(program % 10), text=str(program), text_color="white")
            else:
                _cell(ax, r, c, "#dddddd", hatch="///", text="m", text_color="#777777")
    for t in range(tiles_m + 1):
        ax.axhline(t * EXIT_BM, color="black", linewidth=1.5)
    for t in range(tiles_n + 1):
        ax.axvline(t * EXIT_BN, color="black", linewidth=1.5)
    ax.add_patch(Rectangle((0, 0), EXIT_N, EXIT_M, fill=False, edgecolor="red", linewidth=2.5))
    _frame(ax, rows, cols, f"C {EXIT_M}x{EXIT_N}, BM={EXIT_BM}, BN={EXIT_BN}: {tiles_m}x{tiles_n} = "
                           f"{tiles_m * tiles_n} programs\n(number = program, m = masked lane, red = real C)")


def draw_k_steps(ax):
    """A (5x5) split along K into BK-wide steps; the lane past K is masked."""
    steps = ref.cdiv(EXIT_K, EXIT_BK)
    cols = steps * EXIT_BK
    palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    for r in range(EXIT_M):
        for k in range(cols):
            if k < EXIT_K:
                _cell(ax, r, k, palette[k // EXIT_BK % 4], text=f"s{k // EXIT_BK}", text_color="white")
            else:
                _cell(ax, r, k, "#dddddd", hatch="///", text="m", text_color="#777777")
    for s in range(steps + 1):
        ax.axvline(s * EXIT_BK, color="black", linewidth=1.5)
    ax.add_patch(Rectangle((0, 0), EXIT_K, EXIT_M, fill=False, edgecolor="red", linewidth=2.5))
    _frame(ax, EXIT_M, cols, f"A {EXIT_M}x{EXIT_K} walked along K in BK={EXIT_BK} steps: "
                             f"{steps} K steps\n(s0, s1, s2 = K step; column {EXIT_K} is masked, loads 0)")
    ax.set_xlabel("k", fontsize=8)


def draw_order(ax, group_m):
    """Each tile coloured by the program that takes it; the first WAVE programs numbered and joined."""
    num_m, num_n = ORDER_GRID
    total = num_m * num_n
    cmap = plt.get_cmap("Blues")
    path = []
    for pid in range(total):
        m, n = ref.grouped_tile(pid, num_m, num_n, group_m)
        early = pid < WAVE
        _cell(ax, m, n, cmap(0.15 + 0.8 * pid / total) if not early else "#ffb74d",
              text=str(pid) if early else "", text_color="black")
        if early:
            path.append((n + 0.5, m + 0.5))
    xs, ys = zip(*path, strict=True)
    ax.plot(xs, ys, color="#c62828", linewidth=0.8, alpha=0.6, zorder=1)
    a_panels, b_panels = panels_touched(num_m, num_n, group_m, WAVE)
    label = "fixed config" if group_m == 1 else "tuned configs"
    _frame(ax, num_m, num_n, f"GROUP_M={group_m} ({label}): {total} programs, darker = later\nfirst {WAVE} (orange) "
                             f"read {a_panels} A row panels + {b_panels} B column panels = {a_panels + b_panels}")
    ax.set_xlabel("pid_n (tile column)", fontsize=8)
    ax.set_ylabel("pid_m (tile row)", fontsize=8)


def draw(path: str) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(13, 12), gridspec_kw={"height_ratios": [1, 1.6]})
    draw_ownership(axes[0][0])
    draw_k_steps(axes[0][1])
    draw_order(axes[1][0], 1)
    draw_order(axes[1][1], 8)
    fig.suptitle("Lesson 6: who computes what, and in which order", fontsize=13)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
