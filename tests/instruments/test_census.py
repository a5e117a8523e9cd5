"""kernel-inspect: the compiler facts the seeds teach, checked on real compiles for sm_80 and sm_90.

Compiling needs no GPU: Triton targets a described GPU, and the ptxas and
cuobjdump inside its wheel give the cubin, SASS and register counts.
"""

import json

import pytest

from tests.instruments.helpers import run_tool
from tilelab.inspect import census


def inspect(tmp_path, *args):
    done = run_tool("tilelab.inspect", "--json", "--output", str(tmp_path), *args, interpret=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_fp16_on_sm80_uses_mma_sync(tmp_path):
    found = inspect(tmp_path, "--op", "matmul", "--path", "pointer", "--dtype", "float16", "--target", "sm_80")
    ptx = found["census"]["ptx"]
    assert ptx["mma.sync"] > 0 and ptx["wgmma"] == 0
    assert ptx["ldmatrix"] > 0  # operands reach the tensor cores through ldmatrix
    assert ptx["cp.async.bulk.tensor"] == 0  # no TMA before Hopper
    assert found["census"]["resources"]["registers"] > 0
    for stage in ("ttir", "ttgir", "llir", "ptx", "cubin"):
        assert stage in found["stages"]
    assert (tmp_path / "matmul_pointer_kernel.ptx").exists() and (tmp_path / "census.json").exists()


def test_descriptor_path_on_sm90_uses_wgmma_and_tma(tmp_path):
    found = inspect(tmp_path, "--op", "matmul", "--path", "descriptor", "--dtype", "float16", "--target", "sm_90")
    ptx = found["census"]["ptx"]
    assert ptx["wgmma"] > 0 and ptx["mma.sync"] == 0
    assert ptx["cp.async.bulk.tensor"] > 0
    assert ptx["cp.async"] == 0  # TMA replaces the per-thread copies
    assert ptx["tensormap.replace"] > 0  # inspected as a batch launches it: each program builds descriptors
    if "sass" in found["census"]:
        assert found["census"]["sass"]["HGMMA"] > 0 and found["census"]["sass"]["UTMALDG"] > 0


def test_persistent_kernel_on_sm90_uses_wgmma_and_tma(tmp_path):
    found = inspect(tmp_path, "--op", "matmul", "--path", "persistent", "--dtype", "float16", "--target", "sm_90")
    assert found["kernel"] == "matmul_persistent_kernel" and found["path"] == "persistent"
    ptx = found["census"]["ptx"]
    assert ptx["wgmma"] > 0 and ptx["mma.sync"] == 0 and ptx["wgmma.e4m3"] == 0
    assert ptx["cp.async.bulk.tensor"] > 0 and ptx["cp.async"] == 0
    assert ptx["tensormap.replace"] == 0  # one GEMM: its descriptors arrive built on the host
    resources = found["census"]["resources"]
    assert resources["registers"] > 0 and resources["spill_stores_bytes"] == 0
    assert 0 < resources["shared_bytes"] <= 232448  # what an sm_90 block may have
    assert found["config"]["block_m"] == 128 and found["config"]["block_n"] == 256


def test_a_wide_descriptor_tile_is_inspected_by_its_label(tmp_path):
    found = inspect(tmp_path, "--path", "descriptor", "--config", "128x192x64-g8-w4-s4", "--target", "sm_90")
    assert found["kernel"] == "matmul_wide_kernel" and found["config"]["block_n"] == 192
    assert found["census"]["ptx"]["wgmma"] > 0 and found["census"]["ptx"]["cp.async.bulk.tensor"] > 0
    assert found["census"]["resources"]["spill_stores_bytes"] in (0, None)


def test_fp8_scaled_matmul_on_sm90_uses_e4m3_wgmma(tmp_path):
    # --dtype float8_e4m3fn is implied by the op
    found = inspect(tmp_path, "--op", "scaled_matmul", "--target", "sm_90")
    assert found["kernel"] == "scaled_matmul_kernel" and found["dtype"] == "float8_e4m3fn"
    assert found["accumulate"] == "fast"
    ptx = found["census"]["ptx"]
    assert ptx["wgmma.e4m3"] > 0 and ptx["wgmma.e4m3"] == ptx["wgmma"]  # every MMA reads fp8
    assert ptx["cp.async.bulk.tensor"] > 0
    if "sass" in found["census"]:
        assert found["census"]["sass"]["QGMMA"] > 0  # ptxas kept the fp8 warpgroup MMA


def test_fp8_scaled_matmul_on_sm89_uses_e4m3_mma_sync(tmp_path):
    """Ada has fp8 tensor cores but no wgmma or TMA: warp-level e4m3 MMAs (SASS QMMA), counted as tensor cores."""
    found = inspect(tmp_path, "--op", "scaled_matmul", "--target", "sm_89")
    assert found["target"] == "sm_89" and found["census"]["tensor_cores"]
    ptx = found["census"]["ptx"]
    assert ptx["mma.sync"] > 0 and ptx["wgmma"] == 0 and ptx["cp.async.bulk.tensor"] == 0
    if "sass" in found["census"]:  # cuobjdump from Triton's wheel
        assert found["census"]["sass"]["QMMA"] > 0 and found["census"]["sass"]["QGMMA"] == 0
    if found["census"]["resources"]["registers"]:
        assert found["census"]["occupancy"] is not None  # sm_89's limits are known


def test_tf32_with_b_stored_kn_transposes_it_through_shared_memory(tmp_path):
    # Hopper's tf32 wgmma reads shared-memory operands K-major only: B stored [K, N] costs the threads extra
    # shared-memory traffic in the loop (lesson 9), B stored [N, K] goes from TMA straight to the wgmma.
    args = ("--path", "persistent", "--dtype", "float32", "--target", "sm_90")
    kn = inspect(tmp_path / "kn", *args)
    nk = inspect(tmp_path / "nk", *args, "--b-layout", "nk")
    assert (kn["b_layout"], nk["b_layout"]) == ("kn", "nk")
    assert kn["census"]["ptx"]["wgmma"] > 0 and nk["census"]["ptx"]["wgmma"] > 0
    assert nk["census"]["ptx"]["ld.shared"] == 0 < kn["census"]["ptx"]["ld.shared"]
    assert kn["census"]["ptx"]["st.shared"] > nk["census"]["ptx"]["st.shared"]
    # fp16 transposes in the wgmma itself: either layout compiles to the same shared-memory traffic.
    half = [inspect(tmp_path / f"half-{layout}", "--path", "persistent", "--b-layout", layout)["census"]["ptx"]
            for layout in ("kn", "nk")]
    assert half[0]["ld.shared"] == half[1]["ld.shared"] and half[0]["st.shared"] == half[1]["st.shared"]


def test_registers_kernel_feeds_wgmma_from_registers_without_a_transposed_copy(tmp_path):
    # The tf32 Gluon kernel (lesson 9): B's tile goes from TMA's buffer to registers, the wgmma's left operand.
    found = inspect(tmp_path / "registers", "--path", "registers", "--target", "sm_90")
    assert found["kernel"] == "matmul_tf32_registers_kernel" and found["dtype"] == "float32"
    assert found["b_layout"] == "kn" and found["config"]["block_m"] == 256
    ptx = found["census"]["ptx"]
    assert ptx["wgmma"] > 0 and ptx["wgmma.a_registers"] == ptx["wgmma"]
    assert ptx["cp.async.bulk.tensor"] > 0 and ptx["tensormap.replace"] == 0
    assert found["census"]["resources"]["spill_stores_bytes"] == 0
    small = inspect(tmp_path / "small", "--path", "registers", "--config", "128x64x32-w4-s6")
    assert small["config"]["block_m"] == 128 and small["config"]["num_warps"] == 4
    assert small["census"]["ptx"]["wgmma.a_registers"] == small["census"]["ptx"]["wgmma"] > 0
    persistent = inspect(tmp_path / "persistent", "--path", "persistent", "--dtype", "float32")["census"]["ptx"]
    assert persistent["wgmma"] > 0 and persistent["wgmma.a_registers"] == 0  # both operands from shared memory


def test_pingpong_kernel_reads_both_layouts_of_b_through_tma(tmp_path):
    # The fp16/bf16 Gluon kernel: two warp groups of 128x128 wgmmas from shared memory, TMA in and out.
    for layout in ("kn", "nk"):
        found = inspect(tmp_path / layout, "--path", "pingpong", "--dtype", "bfloat16", "--b-layout", layout)
        assert found["kernel"] == "matmul_pingpong_kernel" and found["b_layout"] == layout
        ptx = found["census"]["ptx"]
        assert ptx["wgmma"] == 16 and ptx["wgmma.a_registers"] == 0
        assert ptx["cp.async.bulk.tensor"] > 0 and ptx["tensormap.replace"] == 0
        assert found["census"]["resources"]["spill_stores_bytes"] == 0


def test_a_batch_is_copied_through_3d_descriptors(tmp_path):
    # --batch: the kernels a batch takes by default, each operand one [batch, rows, cols] descriptor.
    for path in ("pingpong", "persistent"):
        one = inspect(tmp_path / f"{path}-one", "--path", path)
        batch = inspect(tmp_path / f"{path}-batch", "--path", path, "--batch")
        assert batch["batched"] and not one["batched"]
        assert one["census"]["ptx"]["cp.async.bulk.tensor.3d"] == 0 < one["census"]["ptx"]["cp.async.bulk.tensor"]
        assert batch["census"]["ptx"]["cp.async.bulk.tensor.3d"] == batch["census"]["ptx"]["cp.async.bulk.tensor"] > 0
        assert batch["census"]["ptx"]["wgmma"] == one["census"]["ptx"]["wgmma"]  # the same tensor-core work
        assert batch["census"]["ptx"]["tensormap.replace"] == 0


def test_row_classes_read_a_and_write_c_through_3d_host_descriptors(tmp_path):
    # --row-classes: A's rows off sectors, read by class (tilelab.ops.matmul_plan.row_classes); host descriptors.
    found = inspect(tmp_path, "--path", "descriptor", "--row-classes", "8")
    ptx = found["census"]["ptx"]
    assert found["row_classes"] == 8 and ptx["wgmma"] > 0 and ptx["tensormap.replace"] == 0
    assert 0 < ptx["cp.async.bulk.tensor.3d"] < ptx["cp.async.bulk.tensor"]  # A and C in 3-D, B in 2-D
    assert ptx["cp.async.bulk.tensor.4d"] == 0


def test_a_batch_in_row_classes_reads_a_and_writes_c_through_4d_descriptors(tmp_path):
    # The persistent kernel, a batch's default: A and C [batch, classes, rows, cols], B [batch, rows, cols].
    found = inspect(tmp_path, "--path", "persistent", "--batch", "--row-classes", "8")
    ptx = found["census"]["ptx"]
    assert found["row_classes"] == 8 and found["batched"] and ptx["wgmma"] > 0 and ptx["tensormap.replace"] == 0
    assert ptx["cp.async.bulk.tensor.4d"] > 0 and ptx["cp.async.bulk.tensor.3d"] > 0
    assert ptx["cp.async.bulk.tensor.4d"] + ptx["cp.async.bulk.tensor.3d"] == ptx["cp.async.bulk.tensor"]


@pytest.mark.parametrize("args", [
    ("--path", "descriptor", "--batch"),  # a batch is inspected on the kernels it takes by default
    ("--path", "registers", "--batch"),
    ("--op", "scaled_matmul", "--batch"),
    ("--path", "persistent", "--batch", "--config", "128x256x64-g8-w4-s3-ws"),  # builds 2-D descriptors in-kernel
    ("--path", "registers", "--dtype", "float16"),
    ("--path", "registers", "--precision", "tf32x3"),
    ("--path", "registers", "--b-layout", "nk"),
    ("--path", "registers", "--config", "fixed"),
    ("--path", "registers", "--target", "sm_80"),
    ("--path", "pingpong", "--dtype", "float32"),
    ("--path", "pingpong", "--precision", "tf32"),
    ("--path", "pingpong", "--config", "fixed"),
    ("--path", "pingpong", "--target", "sm_80"),
])
def test_inspect_gluon_paths_reject_what_they_are_not(tmp_path, args):
    done = run_tool("tilelab.inspect", *args, "--output", str(tmp_path), interpret=False)
    assert done.returncode == 2 and done.stderr.startswith("kernel-inspect:"), done.stderr


def test_split_k_and_promoted_fp8_compile(tmp_path):
    splitk = inspect(tmp_path / "splitk", "--path", "splitk", "--target", "sm_90")
    assert splitk["kernel"] == "matmul_splitk_kernel" and splitk["census"]["tensor_cores"]
    promoted = inspect(tmp_path / "fp8", "--op", "scaled_matmul", "--dtype", "float8_e4m3fn",
                       "--accumulate", "promoted", "--config", "64x64x128-g8-w4-s4-sub")
    assert promoted["accumulate"] == "promoted" and promoted["config"]["block_m"] == 64
    assert promoted["census"]["ptx"]["wgmma.e4m3"] > 0


@pytest.mark.parametrize("args", [
    ("--op", "scaled_matmul", "--dtype", "float16"),  # fp8 is the op's only dtype
    ("--op", "matmul", "--dtype", "float8_e4m3fn"),  # fp8 is scaled_matmul's
    ("--op", "scaled_matmul", "--path", "pointer"),
    ("--op", "matmul", "--accumulate", "fast"),
    ("--path", "persistent", "--config", "nope"),
    ("--path", "pointer", "--config", "128x192x64-g8-w4-s4"),  # wide tiles are the descriptor kernel's
    ("--path", "pointer", "--b-layout", "nk"),  # pointer kernels are inspected with B [K, N]
    ("--path", "splitk", "--b-layout", "nk"),
    ("--op", "scaled_matmul", "--b-layout", "kn"),  # fp8 wgmma needs B K-major
    ("--path", "pointer", "--row-classes", "8"),  # row classes are the descriptor and persistent kernels'
    ("--path", "splitk-descriptor", "--row-classes", "8"),
    ("--path", "persistent", "--row-classes", "8", "--config", "128x256x64-g8-w4-s3-ws"),  # built in the kernel
    ("--dtype", "float32", "--row-classes", "8"),  # fp16/bf16 only, as planned
])
def test_inspect_rejects_meaningless_combinations(tmp_path, args):
    done = run_tool("tilelab.inspect", *args, "--output", str(tmp_path))
    assert done.returncode == 2 and done.stderr.startswith("kernel-inspect:"), done.stderr


@pytest.mark.parametrize("target,path", [("sm_80", "pointer"), ("sm_90", "descriptor")])
def test_fp32_ieee_uses_no_mma_but_tf32_does(tmp_path, target, path):
    ieee = inspect(tmp_path / "ieee", "--path", path, "--dtype", "float32", "--precision", "ieee", "--target", target)
    tf32 = inspect(tmp_path / "tf32", "--path", path, "--dtype", "float32", "--precision", "tf32", "--target", target)
    assert ieee["census"]["ptx"]["mma.sync"] == 0 and ieee["census"]["ptx"]["wgmma"] == 0
    assert ieee["census"]["tensor_cores"] is False
    assert ieee["census"]["ptx"]["fma.f32"] > 0  # the software FMA fallback
    assert tf32["census"]["tensor_cores"] is True


def test_inspect_rejects_unknown_targets_and_configs(tmp_path):
    assert run_tool("tilelab.inspect", "--target", "sm_banana", "--output", str(tmp_path)).returncode == 2
    assert run_tool("tilelab.inspect", "--config", "nope", "--output", str(tmp_path)).returncode == 2
    assert "exit codes" in run_tool("tilelab.inspect", "--help").stdout


PTX = """
	@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];
	ld.global.b16 %rs1, [ %rd2 + 0 ];
	@!%p2 ld.global.nc.v2.b32 { %r5, %r6 }, [ %rd3 + 0 ];
	cp.async.cg.shared.global [ %r38 + 0 ], [ %rd22 + 0 ], 0x10, %r39;
	cp.async.ca.shared.global [ %r38 + 0 ], [ %rd22 + 0 ], 4;
	cp.async.commit_group;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
	@%p4 cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%rd4, {%r7, %r8, %r9}], [%r6];
	@!%p5 cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd4, {%r7, %r8, %r9, %r10}], [%r6];
	cp.async.bulk.commit_group ;
	@%p6 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [ %rd1 + 0 ], %rd2;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [ %rd3 ], [ %rd1 ], 128;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2};
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 1;
	wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {%f1}, %rd1, %rd2, 1, 1, 1;
	wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%f1,
	%f2}, {%r1,%r2,%r3,%r4}, %rd2, %p1, 1, 1, 1;
	wgmma.commit_group.sync.aligned;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
	ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [%r5+1024];
	@%p3 st.shared.b32 [%r6], %r7;
	st.shared.v2.f32 [%r6+8], {%f1, %f2};
	stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r1, %r2, %r3, %r4};
	fma.rn.f32 %f1, %f2, %f3, %f1;
	cvt.rna.tf32.f32 %r9, %r10;
	cvt.rn.f16.f32 %rs2, %f1;
"""


def test_ptx_census_counts_instructions_not_their_neighbours():
    counts = census.count_ptx(PTX)
    assert counts == {"mma.sync": 1, "wgmma": 3, "wgmma.e4m3": 1, "wgmma.a_registers": 1, "ldmatrix": 1,
                      "ld.shared": 1, "st.shared": 2,
                      "cp.async": 2, "cp.async.bulk.tensor": 3, "cp.async.bulk.tensor.3d": 1,
                      "cp.async.bulk.tensor.4d": 1, "tensormap.replace": 1,
                      "fma.f32": 1, "cvt.rna.tf32": 1}
    assert census.global_load_widths(PTX) == {"128": 1, "64": 1, "16": 1}
    assert census.cp_async_sizes(PTX) == {"16": 1, "4": 1}
    assert census.uses_tensor_cores(counts)


def test_tool_output_parsing():
    verbose = ("ptxas info    : Used 154 registers, used 1 barriers, 0 bytes smem\n"
               "ptxas info    : 8 bytes stack frame, 192 bytes spill stores, 124 bytes spill loads\n")
    assert census.parse_ptxas_verbose(verbose) == {"registers": 154, "spill_stores_bytes": 192,
                                                   "spill_loads_bytes": 124, "stack_bytes": 8}
    assert census.parse_ptxas_verbose("")["registers"] is None
    usage = " Function k:\n  REG:154 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:584 TEXTURE:0"
    assert census.parse_res_usage(usage) == {"reg": 154, "shared": 1024, "local": 0, "stack": 0}
    sass = ("HGMMA.64x256x16.F32 R24, gdesc[UR4], R24 ;\nQGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;\n"
            "LDG.E.128 R4, desc[UR6][R2.64] ;\nLDG.E R5, [R2] ;")
    counted = census.count_sass(sass)
    assert counted["HGMMA"] == 1 and counted["QGMMA"] == 1 and counted["LDG by bits"] == {"128": 1, "32": 1}
    assert counted["QMMA"] == 0 and counted["HMMA"] == 0
    assert census.count_sass("QMMA.16832.F32.E4M3.E4M3 R4, R8, R12, R4 ;")["QMMA"] == 1  # sm_89's fp8 mma.sync


@pytest.mark.parametrize("registers,warps,shared,expected", [
    (151, 4, 0, (3, "registers")),  # Nsight Compute's "Block Limit Registers 3" (results/h200-ncu-direct-rows-...)
    (128, 4, 0, (4, "registers")),  # the same tile capped at 128 (ptxas's maxnreg): one more program
    (56, 2, 0, (18, "registers")),  # "Block Limit Registers 18" (results/h200-ncu-direct-16-64-2-1.log)
    (72, 2, 0, (14, "registers")),
    (73, 2, 0, (12, "registers")),  # allocated as 80
    (24, 4, 0, (16, "warps")),  # 16 programs of 4 warps are the 64 warps an SM has (registers would allow 21)
    (32, 2, 0, (32, "registers")),  # a tie (32 by registers, by warps and by programs): the first named
    (32, 1, 0, (32, "programs")),  # at most 32 programs, however small
    (154, 8, 180248, (1, "registers")),  # the persistent matmul: registers and shared memory both allow one
    (64, 4, 100 * 1024, (2, "shared memory")),  # 2 x (100 KB + 1 KB) of 228 KB
])
def test_programs_per_sm(registers, warps, shared, expected):
    found = census.programs_per_sm(90, registers, warps, shared)
    assert (found["programs"], found["limited_by"]) == expected and found["warps"] == expected[0] * warps


def test_programs_per_sm_needs_a_known_architecture_and_registers():
    assert census.programs_per_sm(75, 64, 4) is None  # an architecture without limits in SM_LIMITS
    assert census.programs_per_sm(90, None, 4) is None  # ptxas not found: no register count
    assert census.programs_per_sm(80, 64, 4, 164 * 1024 - 1024)["limited_by"] == "shared memory"  # A100: 164 KB
    # the sm_80 family's smaller SMs: 48 warps (12 programs of 4), 16 (sm_86) or 24 (sm_89) programs, 100 KB
    assert census.programs_per_sm(86, 32, 4) == {"programs": 12, "warps": 48, "limited_by": "warps"}
    assert census.programs_per_sm(89, 32, 1)["programs"] == 24
    assert census.programs_per_sm(86, 32, 1, 50 * 1024)["limited_by"] == "shared memory"
