"""explain alignment: why rows of 1000 fp16 elements were loaded 2 bytes at a time, the one-line fix, and the
cost that remains: rows that start mid-way through a 128-byte line, and worse, through a 32-byte sector; and
how the kernel reads A's rows on lines anyway, by giving each program rows that start alike."""

from __future__ import annotations

from tilelab.alignment import LINE_BYTES, SECTOR_BYTES  # an L2 line; the unit the L2 serves reads in

from .script import Script

VECTOR_BYTES = 16  # the widest load one GPU thread issues


def align(m: int, n: int, k: int, element_size: int) -> int:
    """The library's own rule (tilelab.ops.matmul_plan.pointer_align) for contiguous A [m, k] and B [k, n]."""
    import torch

    from tilelab.ops.matmul_plan import pointer_align

    dtype = {2: torch.float16, 4: torch.float32}[element_size]
    a = torch.empty((1, m, k), dtype=dtype, device="meta")
    b = torch.empty((1, k, n), dtype=dtype, device="meta")
    return pointer_align(a, b, n, k)


def build() -> Script:
    s = Script("alignment: what the compiler can prove about a row, and what it then dares to load")
    s.say("A is a contiguous 1000x1000 fp16 matrix: row r starts r * 1000 elements after row 0.")
    s.ask("bytes per row", 1000 * 2)
    s.ask("is every row start a multiple of 16 bytes?", f"yes: 2000 = 16 x {2000 // 16}")
    s.say("A thread may load 16 bytes at once (8 fp16 values) only if the compiler can prove the address")
    s.say("is a multiple of 16. It knows that of the base pointer (Triton checks it at launch), and it knows")
    s.say("which integer arguments are multiples of 16, counted in elements, not bytes.\n")
    s.ask("does the stride 1000 count as a multiple of 16?", "no: 1000 % 16 = 8")
    s.ask("so, widest load the compiler can prove safe for A's rows", "2 bytes: one element at a time")
    s.say("The rows are aligned; the compiler just cannot see it. The loads also carry masks for K's end,")
    s.say("and K = 1000 is not a multiple of 16 either.\n")

    s.say("tilelab.ops.matmul_plan.pointer_align finds the largest power of two (up to one 16-byte vector) that")
    s.say("divides N, K and every row and batch stride; the kernel receives it as the constexpr ALIGN")
    s.say("(1 where Triton proves a multiple of 16 by itself, which it passes on its own).")
    s.ask("pointer_align for 1000x1000x1000 fp16", align(1000, 1000, 1000, 2))
    s.ask("... in bytes", align(1000, 1000, 1000, 2) * 2)
    s.ask("pointer_align for 1000x1000x1000 fp32 (4-byte elements)", align(1000, 1000, 1000, 4))
    s.ask("pointer_align for 1000x1004x1000 fp16 (N = 1004)",
          f"{align(1000, 1004, 1000, 2)}: 8-byte loads. B's rows are 2008 bytes, not a multiple of 16, so TMA "
          "cannot read B as it lies")
    s.say("On a Hopper GPU a product that large (2**29 multiply-adds or more) copies such an operand")
    s.say("onto 128-byte lines first and reads the copy through TMA (tilelab.ops.line_copies): 1004^3 fp16 19.7 ->")
    s.say("16.8 us, 1001^3 (odd rows, ALIGN 1) 156.0 -> 21.6 (results/h200-unaligned-copy-probe.log). Smaller")
    s.say("products, and other GPUs, run the pointer path with ALIGN.")
    s.ask("pointer_align for 1024x1024x1024 fp16", f"{align(1024, 1024, 1024, 2)}: Triton already proves 16")
    s.say("")
    s.say("In the kernel (src/tilelab/kernels/matmul.py, known_multiple): K = K // ALIGN * ALIGN.")
    s.ask("what does that change about K's value?", "nothing: the host checked K % ALIGN == 0")
    s.ask("what does it change for the compiler?", "K is now provably a multiple of ALIGN: 16-byte loads")
    s.say("\nSee it without a GPU: tests/unit/test_pointer_compile.py compiles the kernel for sm_90 both ways.")
    s.say("ALIGN=1: ld.global.b16, one element per instruction. ALIGN=8: cp.async 16-byte copies.")
    s.say("On the H200 (docs/PERFORMANCE-HISTORY.md, third session) 1000^3 bf16 went from 0.63x torch")
    s.say("(descriptor path, the old workaround) to 0.86x on the pointer path with ALIGN=8. Since then a single")
    s.say("GEMM this large takes the descriptor path again, with descriptors built on the host (explain")
    s.say("descriptors); ALIGN still serves smaller and batched problems, which stay on the pointer path, and")
    s.say("the split-K kernel for skinny ones (tilelab.ops.matmul_hopper.split_k_align). That kernel had no")
    s.say("ALIGN until the ninth session: 16x3000x4000 fp16 took 42.1 us without it, 16.0 with it, torch 17.1")
    s.say("(results/h200-splitk-align-probe.log). The same missing proof, a kernel later.")

    s.say("\nA second alignment: memory moves whole 128-byte lines, in 32-byte sectors, whatever the proof.")
    starts = [row * 2000 % LINE_BYTES for row in range(8)]
    s.ask("byte offset of rows 0..7 within their 128-byte line", ", ".join(map(str, starts)))
    s.ask("rows of those 8 that start on a line", f"{starts.count(0)}: every 8th row (8 x 2000 = 125 x 128)")
    s.ask("a 128-byte piece of row 1 (64 fp16 values): lines touched", lines_and_sectors(80)[0])
    s.ask("... and 32-byte sectors touched (row 0's piece: 4)", lines_and_sectors(80)[1])
    s.say("Each TMA box row, and each warp's load, of such a row spans that extra line and sector.")
    s.say("Measured on the H200 (results/h200-misaligned-probe.log), 1000^3 fp16 on the library's default tile:")
    s.say("12.9 us as allocated, 10.0 us for the same values kept in rows padded to 1024 elements")
    s.say("(torch.empty(1000, 1024)[:, :1000], a view tilelab takes as it is); torch.mm: 10.4 us.")
    s.say("No tile timed at 1000^3 did better than the default, so the rows are the whole gap.")

    s.say("\nWhich of the two units costs: the extra line, or the extra sector? Rows of other widths tell.")
    for width in (1000, 2000, 3000, 4000, 5000, 6000):
        s.ask(f"{width} fp16 per row: byte offsets in a line (first 8 rows); sectors of a box row, at most",
              f"{sorted({r * width * 2 % LINE_BYTES for r in range(8)})}; "
              f"{max(lines_and_sectors(r * width * 2 % LINE_BYTES)[1] for r in range(8))}")
    s.say("Every width but a multiple of 64 elements puts rows off lines; 1000, 3000 and 5000 (odd multiples of")
    s.say("8) also put them 16 bytes into a sector. The persistent kernel on the H200, fp16")
    s.say("(results/h200-line-alignment-paths-probe.log):")
    s.say("4000^3 and 6000^3 (off lines, on sectors) ran at 0.99x and 0.96x torch, like aligned sizes;")
    s.say("3000^3 and 5000^3 (off sectors) at 0.64x and 0.73x, and on rows padded onto lines 3000^3 went from")
    s.say("126.6 to 103.1 us (results/h200-wave-padded-probe.log). The sector is what costs.")
    s.ask("rows_on_sectors for a 3000x3000 fp16 B", on_sectors(3000, 2))
    s.ask("rows_on_sectors for a 4000x4000 fp16 B", on_sectors(4000, 2))
    s.say("\nWhy the sector costs this much: reads alone, no math (results/h200-row-alignment-read-probe.log).")
    s.say("TMA read fp16 rows of 1000 from L2 at 5.4-5.7 TB/s, rows of 1024 at 8.0-9.8 TB/s. A matmul reads")
    s.say("each row of A once per column of tiles and each row of B once per row of tiles.")
    asked = l2_bytes(1000, 1000, 1000, 64, 128, 2)
    s.ask("MB the 1000^3 default's 64x128 tiles ask L2 for (l2_bytes(1000, 1000, 1000, 64, 128, 2))",
          f"{asked / 1e6:.0f}")
    s.ask("microseconds for that at 5.4 TB/s, and at 8.6", f"{asked / 5.4e6:.1f} and {asked / 8.6e6:.1f}")
    s.say("The kernel takes 12.8 us off sectors and 10.1 on lines. cuBLAS launches clusters of 2-8 SMs that")
    s.say("share each load (TMA multicast), so it asks for fewer bytes; Triton 3.6 cannot do that yet.\n")
    s.say("tilelab.ops.matmul_plan._persistent_pays_off sends large fp16/bf16 problems whose B rows are off sectors")
    s.say("to the one-program-per-tile descriptor kernel, which suffers less there: 3000^3 0.65x -> 0.69x,")
    s.say("5000^3 0.73x -> 0.77x (results/h200-matmul-float16-rows-off-sectors.json). When only A's rows are")
    s.say("off, the persistent kernel measured ahead (4096x4096x3000: 1.00x against 0.96x), so it stays.")
    s.say("A and B are the caller's memory. Copying them onto lines inside the call lost at every size tried,")
    s.say("1000^3 to 5000^3 (results/h200-row-copy-probe.log: 1000^3 21.5 us with the copies, 12.8 without):")
    s.say("the copies cost as much as aligned rows save, or more (at 1000^3 about four times more).")

    s.say("\nBut A's rows are C's rows, and the kernel decides which rows each program owns.")
    s.ask("byte offsets in a line of rows 1, 9, 17, 25 (every 8th row from row 1)",
          ", ".join(str(row * 2000 % LINE_BYTES) for row in (1, 9, 17, 25)))
    s.say("Rows r, r + 8, r + 16, ... form one class: 8 rows span 125 whole lines, so all of a class's rows")
    s.say("start at the same offset. A program that owns one class can read its K from that many bytes early:")
    shift = 1 * 2000 % LINE_BYTES // 2
    s.ask("class 1: elements to start early so its boxes begin on a line", f"{shift} (80 bytes)")
    s.ask("what TMA returns for the columns of A before 0, and for B's rows before 0",
          "zeros: the extra products add nothing; K's loop takes one more step")
    s.ask("why not B's rows too?", "B's rows are K's: every program reads all of them, whatever its class")
    s.ask("row_classes for 1000x1000 fp16 (tilelab.ops.matmul_plan.row_classes)", classes(1000, 1000))
    s.ask("... for 1002 rows (2 divides M, 4 does not: classes on 32-byte sectors)", classes(1002, 1000))
    s.ask("... for rows of 1024 (on lines already)", classes(1000, 1024))
    s.ask("... for 640 rows (8 classes of 80 rows: 8 tiles of 128 rows where 5 cover M)", classes(640, 1000))
    s.ask("... for 1000 rows with B 2000 wide (B's rows on sectors)", classes(1000, 1000, 2000))
    s.say("The rule keeps the classes to what measured faster: each class's tiles no more than M's, and B off")
    s.say("sectors too. With B on sectors the extra K step cost more than A's reads saved: 2000x2000x1000 took")
    s.say("19.0 us in classes, 18.5 without (results/h200-row-class-rule-probe.log).")
    s.say("The descriptor kernel describes A and C as [classes, M / classes, cols] (host-built descriptors,")
    s.say("src/tilelab/kernels/matmul.py, ROW_CLASSES). Its tiles change too: B is now the operand read off")
    s.say("sectors, so taller tiles (128x64) read it fewer times. On the H200, in turns with torch")
    s.say("(results/h200-row-class-probe-host.log): 1000^3 fp16 12.4 -> 11.1 us (torch 10.6), bf16 12.4 -> 11.0")
    s.say("(torch 11.4); the default sweeps put 1000^3 at 0.92-0.99x fp16 and 0.97x bf16, from 0.82x and 0.87x.")
    s.ask("row_classes for 16 matrices of 1000x1000 (each starts 2,000,000 bytes on: a multiple of 128)",
          classes(1000, 1000, batch=16))
    s.ask("their A described by class (tilelab.ops.descriptors.row_class_descriptor): shape, strides", class_view())
    s.say("A batch reads by class too, on the persistent kernel it takes: A and C as [batch, classes, M / classes,")
    s.say("cols] (4-D), tiles walked matrix after matrix, class after class (tile_origin in")
    s.say("src/tilelab/kernels/matmul_persistent.py). 16x1000^3 fp16 70.4 -> 66.4 us (torch 58.5), but with B")
    s.say("stored [N, K] 67.0 -> 69.1, so a batch only with B stored [K, N] (results/h200-batch-row-class-probe.log).")
    s.ask("padded_row_stride(1000, 2): the 16-byte rule TMA needs, for a 1000-wide fp16 row", padded(1000, 2))
    s.ask("output_row_stride(1000, 2): what tilelab gives the rows of an output it stores through TMA",
          output_row(1000, 2))
    s.say("C is tilelab's own, so its rows start on lines: 1000^3 fp16 went from 12.8 to 12.4 us")
    s.say("(results/h200-output-alignment-probe.log). The caller sees a [1000, 1000] view of [1000, 1024].")
    s.say("\nA caller can give A and B the same rows: tilelab.empty_aligned allocates them so, tilelab.to_aligned")
    s.say("copies a tensor into such rows (once: a weight is read by every product). src/tilelab/alignment.py.")
    s.ask("tilelab.empty_aligned(1000, 1000, dtype=torch.float16).stride()", aligned_strides(1000, 1000))
    s.ask("... and empty_aligned(4, 36) in fp16: rows shorter than a line", aligned_strides(4, 36))
    return s


def lines_and_sectors(offset: int, size: int = 128) -> tuple[int, int]:
    """How many 128-byte lines and 32-byte sectors the bytes [offset, offset + size) of a line-aligned buffer touch."""
    last = offset + size - 1
    return last // LINE_BYTES - offset // LINE_BYTES + 1, last // SECTOR_BYTES - offset // SECTOR_BYTES + 1


def l2_bytes(m: int, n: int, k: int, block_m: int, block_n: int, element_size: int) -> int:
    """Bytes a one-tile-per-program matmul asks L2 for: all of A per column of tiles, all of B per row of tiles."""
    return (m * k * -(-n // block_n) + k * n * -(-m // block_m)) * element_size


def on_sectors(width: int, element_size: int) -> bool:
    """tilelab.ops.matmul_plan.rows_on_sectors for a contiguous [width, width] operand."""
    import torch

    from tilelab.ops.matmul_plan import operand_layout, rows_on_sectors

    x = torch.empty((1, width, width), dtype={2: torch.float16, 4: torch.float32}[element_size], device="meta")
    return rows_on_sectors(x, operand_layout(x))


def class_view() -> str:
    """Shape and strides of the 4-D descriptor tilelab builds for 16 fp16 matrices [1000, 1000] in 8 classes."""
    import torch

    from tilelab.ops.descriptors import row_class_descriptor

    a = torch.empty((16, 1000, 1000), dtype=torch.float16, device="meta")
    view = row_class_descriptor(a, 8, 1000, [128, 64])
    return f"{view.shape}, {view.strides}"


def classes(rows: int, width: int, b_width: int = 1000, batch: int = 1) -> int:
    """tilelab.ops.matmul_plan.row_classes for `batch` contiguous fp16 A [rows, width] (its base on a line) and B
    [width, b_width]."""
    import torch

    from tilelab.ops.matmul_plan import operand_layout, row_classes

    a = torch.empty((batch, rows, width), dtype=torch.float16, device="meta")  # meta: address 0, every boundary
    b = torch.empty((batch, width, b_width), dtype=torch.float16, device="meta")
    return row_classes(a, operand_layout(a), b, operand_layout(b))


def padded(width: int, element_size: int) -> int:
    from tilelab.alignment import padded_row_stride

    return padded_row_stride(width, element_size)


def output_row(width: int, element_size: int) -> int:
    from tilelab.alignment import output_row_stride

    return output_row_stride(width, element_size)


def aligned_strides(rows: int, cols: int) -> tuple[int, ...]:
    import torch

    from tilelab.alignment import empty_aligned

    return empty_aligned(rows, cols, dtype=torch.float16).stride()
