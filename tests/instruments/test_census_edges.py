"""`tilelab.inspect.census` beyond `test_census.py`'s sample: global loads of every integer and float type (u8,
s16, u32, f32: byte-wide loads are what int8 and fp8 operands compile to), SASS LDG widths below 32 bits, and
`programs_per_sm` for the smaller sm_8x SMs and the 1 KB of shared memory the driver keeps per program.

The occupancy limits are CUDA's (the programming guide's table of compute capabilities): sm_86 and sm_87 hold
48 warps and 16 programs, with 100 KB and 164 KB of shared memory; sm_80 holds 64 warps and 32 programs.
"""

import pytest

from tilelab.inspect import census

PTX = """
	ld.global.u8 %rs1, [ %rd1 + 0 ];
	@%p1 ld.global.s16 %rs2, [ %rd2 + 0 ];
	ld.global.L1::evict_last.u32 %r1, [ %rd3 + 0 ];
	@!%p2 ld.global.v2.f32 { %f1, %f2 }, [ %rd4 + 0 ];
	ld.global.nc.v4.u32 { %r2, %r3, %r4, %r5 }, [ %rd5 + 0 ];
	st.global.b32 [ %rd6 + 0 ], %r6;
"""


def test_global_loads_of_every_type_count_by_bits():
    assert census.global_load_widths(PTX) == {"128": 1, "64": 1, "32": 1, "16": 1, "8": 1}


def test_sass_loads_below_32_bits():
    sass = "LDG.E.U8 R1, [R2] ;\nLDG.E.S8 R1, [R2] ;\nLDG.E.U16 R3, [R4] ;\nLDG.E.S16 R3, [R4] ;\nLDG.E.64 R6, [R8] ;"
    assert census.count_sass(sass)["LDG by bits"] == {"64": 1, "16": 2, "8": 2}


@pytest.mark.parametrize("arch, registers, warps, shared, expected", [
    (86, 32, 1, 50 * 1024, {"programs": 1, "warps": 1, "limited_by": "shared memory"}),  # 100 KB // 51 KB
    (86, 32, 1, 20 * 1024, {"programs": 4, "warps": 4, "limited_by": "shared memory"}),  # 100 KB // 21 KB
    (87, 32, 4, 0, {"programs": 12, "warps": 48, "limited_by": "warps"}),  # Orin: 48 warps
    (87, 32, 1, 40 * 1024, {"programs": 4, "warps": 4, "limited_by": "shared memory"}),  # 164 KB // 41 KB
    (87, 32, 1, 0, {"programs": 16, "warps": 16, "limited_by": "programs"}),
    (80, 32, 1, 0, {"programs": 32, "warps": 32, "limited_by": "programs"}),
])
def test_programs_per_sm_on_the_sm_8x_family(arch, registers, warps, shared, expected):
    assert census.programs_per_sm(arch, registers, warps, shared) == expected


def test_the_driver_keeps_one_kb_of_shared_memory_per_program():
    # sm_90's 228 KB hold two programs of 113 KB (2 x 114 KB) but only one of 113.3 KB (2 x 114.3 KB > 228 KB).
    assert census.programs_per_sm(90, 32, 4, 113 * 1024)["programs"] == 2
    one = census.programs_per_sm(90, 32, 4, 116000)
    assert one == {"programs": 1, "warps": 4, "limited_by": "shared memory"}
