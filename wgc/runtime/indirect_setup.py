"""Runtime: the indirect-setup meta shader of the GPU-driven schedule (`gpu_schedule`).

Input: nothing (the shader is fixed).  Output: `MODULE`, the SPIR-V words of a compute shader
`main` that, for every entry of a level's launch table, reads the number of records the producer
wrote (its counter, clamped to the records its arena holds) or the count the host gave, writes it
into the launch's `NodeContext.input_count`, writes the launch's `VkDispatchIndirectCommand` and
the capacity of each of its output slots (`min(units * per_unit, reserved)`: the MaxRecords budget
of the thread groups that really run, as the host-driven scheduler computes it).

Invariants: `ASSEMBLY` is the source and `MODULE_HEX` its assembled words (little-endian),
kept equal by a test (tests/test_runtime_gpu_schedule.py), so the runtime needs no assembler;
the table layout below (`LAUNCH`, `FIX`: the emulation ABI's `LEVEL_LAUNCH`, `LEVEL_FIX`, which
the level tail of every node reads too) is the one the shader reads, offsets never repeated as
literals elsewhere.  Memory model GLSL450 (no atomics: the counters are final when it runs, a
barrier separates it from their producers).

Launch table entry (`LAUNCH_SIZE` bytes, little-endian), per indirect dispatch:
  source (u64): address of the producer's u32 counter, 0 when `count` is the count;
  context (u64): address of the launch's NodeContext; indirect (u64): address of its 3 u32
  dispatch arguments; fixes (u64): address of `fix_count` FIX entries; count, source_capacity,
  group_mul, group_div, unit_div, fix_count, max_x (u32): groups = ceil(n * group_mul /
  group_div), units = ceil(n * group_mul / unit_div), dispatched as (min(groups, max_x),
  ceil(groups / that), 1); record (u32), grid (u64), grid_at, grid_components (u32), max_grid (3 u32):
  where grid is not 0 the launch is of record `record` alone, its grid read from its record (the
  NodeContext's input_records, grid_components u32s at grid_at; missing ones are 1): count = 1 if
  the input holds that record, else 0, group_mul = the grid's product (0 beyond max_grid), and the
  grid asked for is written at `grid` (the host checks it).
FIX entry (`FIX_SIZE` bytes): slot (u64, address of an emulation_abi OutputSlot), per_unit (u32),
  reserved (u32).
Push constants: the table's address (u64) and its number of entries (u32).
"""

from __future__ import annotations

from wgc import emulation_abi as abi

LAUNCH = abi.LEVEL_LAUNCH
"""The emulation ABI's launch table entry: the level tail of ABI 6 reads the same table."""
LAUNCH_SIZE = abi.LEVEL_LAUNCH_SIZE
FIX = abi.LEVEL_FIX
FIX_SIZE = abi.LEVEL_FIX_SIZE
GROUP_SIZE = 64
"""Invocations per group of the meta shader (one per launch table entry)."""

_TEMPLATE = """\
OpCapability Shader
OpCapability Int64
OpCapability PhysicalStorageBufferAddresses
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main" %gid %pc
OpExecutionMode %main LocalSize {group_size} 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %PC Block
OpMemberDecorate %PC 0 Offset 0
OpMemberDecorate %PC 1 Offset 8
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%bool = OpTypeBool
%v3uint = OpTypeVector %uint 3
%PC = OpTypeStruct %ulong %uint
%ptr_pc = OpTypePointer PushConstant %PC
%ptr_pc_ulong = OpTypePointer PushConstant %ulong
%ptr_pc_uint = OpTypePointer PushConstant %uint
%ptr_in_v3 = OpTypePointer Input %v3uint
%psb_uint = OpTypePointer PhysicalStorageBuffer %uint
%psb_ulong = OpTypePointer PhysicalStorageBuffer %ulong
%pc = OpVariable %ptr_pc PushConstant
%gid = OpVariable %ptr_in_v3 Input
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%l0 = OpConstant %ulong 0
%l1 = OpConstant %ulong 1
%l4 = OpConstant %ulong 4
%l8 = OpConstant %ulong 8
%at_context = OpConstant %ulong {context}
%at_indirect = OpConstant %ulong {indirect}
%at_fixes = OpConstant %ulong {fixes}
%at_count = OpConstant %ulong {count}
%at_source_capacity = OpConstant %ulong {source_capacity}
%at_group_mul = OpConstant %ulong {group_mul}
%at_group_div = OpConstant %ulong {group_div}
%at_unit_div = OpConstant %ulong {unit_div}
%at_fix_count = OpConstant %ulong {fix_count}
%at_max_x = OpConstant %ulong {max_x}
%at_record = OpConstant %ulong {record}
%at_grid = OpConstant %ulong {grid}
%at_grid_at = OpConstant %ulong {grid_at}
%at_grid_components = OpConstant %ulong {grid_components}
%at_max_grid = OpConstant %ulong {max_grid}
%at_input_records = OpConstant %ulong {input_records}
%c2 = OpConstant %uint 2
%launch_size = OpConstant %ulong {launch_size}
%at_per_unit = OpConstant %ulong {per_unit}
%at_reserved = OpConstant %ulong {reserved}
%fix_size = OpConstant %ulong {fix_size}
%at_input_count = OpConstant %ulong {input_count}
%at_capacity = OpConstant %ulong {capacity}
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %g 0
%n_ptr = OpAccessChain %ptr_pc_uint %pc %c1
%n = OpLoad %uint %n_ptr
%past = OpUGreaterThanEqual %bool %i %n
OpSelectionMerge %body None
OpBranchConditional %past %leave %body
%leave = OpLabel
OpReturn
%body = OpLabel
%t_ptr = OpAccessChain %ptr_pc_ulong %pc %c0
%table = OpLoad %ulong %t_ptr
%i64 = OpUConvert %ulong %i
%e_off = OpIMul %ulong %i64 %launch_size
%e = OpIAdd %ulong %table %e_off
%source_p = OpConvertUToPtr %psb_ulong %e
%source = OpLoad %ulong %source_p Aligned 8
%context_a = OpIAdd %ulong %e %at_context
%context_p = OpConvertUToPtr %psb_ulong %context_a
%context = OpLoad %ulong %context_p Aligned 8
%indirect_a = OpIAdd %ulong %e %at_indirect
%indirect_p = OpConvertUToPtr %psb_ulong %indirect_a
%indirect = OpLoad %ulong %indirect_p Aligned 8
%fixes_a = OpIAdd %ulong %e %at_fixes
%fixes_p = OpConvertUToPtr %psb_ulong %fixes_a
%fixes = OpLoad %ulong %fixes_p Aligned 8
%known_a = OpIAdd %ulong %e %at_count
%known_p = OpConvertUToPtr %psb_uint %known_a
%known = OpLoad %uint %known_p Aligned 4
%cap_a = OpIAdd %ulong %e %at_source_capacity
%cap_p = OpConvertUToPtr %psb_uint %cap_a
%cap = OpLoad %uint %cap_p Aligned 4
%mul_a = OpIAdd %ulong %e %at_group_mul
%mul_p = OpConvertUToPtr %psb_uint %mul_a
%mul = OpLoad %uint %mul_p Aligned 4
%gdiv_a = OpIAdd %ulong %e %at_group_div
%gdiv_p = OpConvertUToPtr %psb_uint %gdiv_a
%gdiv = OpLoad %uint %gdiv_p Aligned 4
%udiv_a = OpIAdd %ulong %e %at_unit_div
%udiv_p = OpConvertUToPtr %psb_uint %udiv_a
%udiv = OpLoad %uint %udiv_p Aligned 4
%nfix_a = OpIAdd %ulong %e %at_fix_count
%nfix_p = OpConvertUToPtr %psb_uint %nfix_a
%nfix = OpLoad %uint %nfix_p Aligned 4
%maxx_a = OpIAdd %ulong %e %at_max_x
%maxx_p = OpConvertUToPtr %psb_uint %maxx_a
%maxx = OpLoad %uint %maxx_p Aligned 4
%has_source = OpINotEqual %bool %source %l0
OpSelectionMerge %counted None
OpBranchConditional %has_source %read %counted
%read = OpLabel
%produced_p = OpConvertUToPtr %psb_uint %source
%produced = OpLoad %uint %produced_p Aligned 4
%fits = OpULessThan %bool %produced %cap
%clamped = OpSelect %uint %fits %produced %cap
OpBranch %counted
%counted = OpLabel
%read_count = OpPhi %uint %clamped %read %known %body
%grid_a = OpIAdd %ulong %e %at_grid
%grid_p = OpConvertUToPtr %psb_ulong %grid_a
%grid = OpLoad %ulong %grid_p Aligned 8
%is_grid = OpINotEqual %bool %grid %l0
OpSelectionMerge %gridded None
OpBranchConditional %is_grid %read_grid %gridded
%read_grid = OpLabel
%record_a = OpIAdd %ulong %e %at_record
%record_p = OpConvertUToPtr %psb_uint %record_a
%record = OpLoad %uint %record_p Aligned 4
%gat_a = OpIAdd %ulong %e %at_grid_at
%gat_p = OpConvertUToPtr %psb_uint %gat_a
%gat = OpLoad %uint %gat_p Aligned 4
%dims_a = OpIAdd %ulong %e %at_grid_components
%dims_p = OpConvertUToPtr %psb_uint %dims_a
%dims = OpLoad %uint %dims_p Aligned 4
%mx_a = OpIAdd %ulong %e %at_max_grid
%mx_p = OpConvertUToPtr %psb_uint %mx_a
%mx = OpLoad %uint %mx_p Aligned 4
%my_a = OpIAdd %ulong %mx_a %l4
%my_p = OpConvertUToPtr %psb_uint %my_a
%my = OpLoad %uint %my_p Aligned 4
%mz_a = OpIAdd %ulong %mx_a %l8
%mz_p = OpConvertUToPtr %psb_uint %mz_a
%mz = OpLoad %uint %mz_p Aligned 4
%present = OpULessThan %bool %record %read_count
%ir_a = OpIAdd %ulong %context %at_input_records
%ir_p = OpConvertUToPtr %psb_ulong %ir_a
%rec = OpLoad %ulong %ir_p Aligned 8
%gat64 = OpUConvert %ulong %gat
%ga = OpIAdd %ulong %rec %gat64
OpSelectionMerge %have_x None
OpBranchConditional %present %load_x %have_x
%load_x = OpLabel
%gx_p = OpConvertUToPtr %psb_uint %ga
%gx_l = OpLoad %uint %gx_p Aligned 4
OpBranch %have_x
%have_x = OpLabel
%gx = OpPhi %uint %gx_l %load_x %c0 %read_grid
%two = OpUGreaterThan %bool %dims %c1
%want_y = OpLogicalAnd %bool %present %two
OpSelectionMerge %have_y None
OpBranchConditional %want_y %load_y %have_y
%load_y = OpLabel
%gy_a = OpIAdd %ulong %ga %l4
%gy_p = OpConvertUToPtr %psb_uint %gy_a
%gy_l = OpLoad %uint %gy_p Aligned 4
OpBranch %have_y
%have_y = OpLabel
%gy = OpPhi %uint %gy_l %load_y %c1 %have_x
%three = OpUGreaterThan %bool %dims %c2
%want_z = OpLogicalAnd %bool %present %three
OpSelectionMerge %have_z None
OpBranchConditional %want_z %load_z %have_z
%load_z = OpLabel
%gz_a = OpIAdd %ulong %ga %l8
%gz_p = OpConvertUToPtr %psb_uint %gz_a
%gz_l = OpLoad %uint %gz_p Aligned 4
OpBranch %have_z
%have_z = OpLabel
%gz = OpPhi %uint %gz_l %load_z %c1 %have_y
%ok_x = OpULessThanEqual %bool %gx %mx
%ok_y = OpULessThanEqual %bool %gy %my
%ok_z = OpULessThanEqual %bool %gz %mz
%ok_xy = OpLogicalAnd %bool %ok_x %ok_y
%ok = OpLogicalAnd %bool %ok_xy %ok_z
%runs = OpLogicalAnd %bool %present %ok
%gxy = OpIMul %uint %gx %gy
%gxyz = OpIMul %uint %gxy %gz
%grid_mul = OpSelect %uint %runs %gxyz %c0
%grid_count = OpSelect %uint %present %c1 %c0
%out_x = OpConvertUToPtr %psb_uint %grid
OpStore %out_x %gx Aligned 4
%out_y_a = OpIAdd %ulong %grid %l4
%out_y = OpConvertUToPtr %psb_uint %out_y_a
OpStore %out_y %gy Aligned 4
%out_z_a = OpIAdd %ulong %grid %l8
%out_z = OpConvertUToPtr %psb_uint %out_z_a
OpStore %out_z %gz Aligned 4
OpBranch %gridded
%gridded = OpLabel
%count = OpPhi %uint %grid_count %have_z %read_count %counted
%launch_mul = OpPhi %uint %grid_mul %have_z %mul %counted
%count_a = OpIAdd %ulong %context %at_input_count
%count_p = OpConvertUToPtr %psb_uint %count_a
OpStore %count_p %count Aligned 4
%count64 = OpUConvert %ulong %count
%mul64 = OpUConvert %ulong %launch_mul
%gdiv64 = OpUConvert %ulong %gdiv
%udiv64 = OpUConvert %ulong %udiv
%product = OpIMul %ulong %count64 %mul64
%g_round = OpISub %ulong %gdiv64 %l1
%g_sum = OpIAdd %ulong %product %g_round
%groups64 = OpUDiv %ulong %g_sum %gdiv64
%u_round = OpISub %ulong %udiv64 %l1
%u_sum = OpIAdd %ulong %product %u_round
%units = OpUDiv %ulong %u_sum %udiv64
%groups = OpUConvert %uint %groups64
%wide = OpULessThan %bool %groups %maxx
%x = OpSelect %uint %wide %groups %maxx
%x_zero = OpIEqual %bool %x %c0
%x_div = OpSelect %uint %x_zero %c1 %x
%x_round = OpISub %uint %x_div %c1
%y_sum = OpIAdd %uint %groups %x_round
%y = OpUDiv %uint %y_sum %x_div
%arg_x = OpConvertUToPtr %psb_uint %indirect
OpStore %arg_x %x Aligned 4
%arg_y_a = OpIAdd %ulong %indirect %l4
%arg_y = OpConvertUToPtr %psb_uint %arg_y_a
OpStore %arg_y %y Aligned 4
%arg_z_a = OpIAdd %ulong %indirect %l8
%arg_z = OpConvertUToPtr %psb_uint %arg_z_a
OpStore %arg_z %c1 Aligned 4
OpBranch %head
%head = OpLabel
%k = OpPhi %uint %c0 %gridded %k_next %next
OpLoopMerge %done %next None
OpBranch %check
%check = OpLabel
%more = OpULessThan %bool %k %nfix
OpBranchConditional %more %fix %done
%fix = OpLabel
%k64 = OpUConvert %ulong %k
%f_off = OpIMul %ulong %k64 %fix_size
%f = OpIAdd %ulong %fixes %f_off
%slot_p = OpConvertUToPtr %psb_ulong %f
%slot = OpLoad %ulong %slot_p Aligned 8
%per_a = OpIAdd %ulong %f %at_per_unit
%per_p = OpConvertUToPtr %psb_uint %per_a
%per = OpLoad %uint %per_p Aligned 4
%res_a = OpIAdd %ulong %f %at_reserved
%res_p = OpConvertUToPtr %psb_uint %res_a
%res = OpLoad %uint %res_p Aligned 4
%per64 = OpUConvert %ulong %per
%res64 = OpUConvert %ulong %res
%want = OpIMul %ulong %units %per64
%less = OpULessThan %bool %want %res64
%capacity64 = OpSelect %ulong %less %want %res64
%capacity = OpUConvert %uint %capacity64
%slot_cap_a = OpIAdd %ulong %slot %at_capacity
%slot_cap = OpConvertUToPtr %psb_uint %slot_cap_a
OpStore %slot_cap %capacity Aligned 4
OpBranch %next
%next = OpLabel
%k_next = OpIAdd %uint %k %c1
OpBranch %head
%done = OpLabel
OpReturn
OpFunctionEnd
"""

ASSEMBLY = _TEMPLATE.format(
    **{name: offset for name, (offset, _) in LAUNCH.items()}, launch_size=LAUNCH_SIZE,
    per_unit=FIX["per_unit"][0], reserved=FIX["reserved"][0], fix_size=FIX_SIZE, group_size=GROUP_SIZE,
    input_count=abi.NODE_CONTEXT["input_count"][0], input_records=abi.NODE_CONTEXT["input_records"][0], capacity=abi.OUTPUT_SLOT["capacity"][0])
"""The shader's source: the offsets come from the layouts above and from `emulation_abi`."""

MODULE_HEX = (
    "030223070006010000000700dc000000000000001100020001000000110002000b00000011000200e31400000e000300"
    "e4140000010000000f00070005000000010000006d61696e000000000200000003000000100006000100000011000000"
    "40000000010000000100000047000400020000000b0000001c0000004700030004000000020000004800050004000000"
    "000000002300000000000000480005000400000001000000230000000800000013000200050000002100030006000000"
    "050000001500040007000000200000000000000015000400080000004000000000000000140002000900000017000400"
    "0a00000007000000030000001e000400040000000800000007000000200004000b000000090000000400000020000400"
    "0c0000000900000008000000200004000d0000000900000007000000200004000e000000010000000a00000020000400"
    "0f000000e5140000070000002000040010000000e5140000080000003b0004000b00000003000000090000003b000400"
    "0e00000002000000010000002b0004000700000011000000000000002b0004000700000012000000010000002b000500"
    "080000001300000000000000000000002b000500080000001400000001000000000000002b0005000800000015000000"
    "04000000000000002b000500080000001600000008000000000000002b00050008000000170000000800000000000000"
    "2b000500080000001800000010000000000000002b000500080000001900000018000000000000002b00050008000000"
    "1a00000020000000000000002b000500080000001b00000024000000000000002b000500080000001c00000028000000"
    "000000002b000500080000001d0000002c000000000000002b000500080000001e00000030000000000000002b000500"
    "080000001f00000034000000000000002b000500080000002000000038000000000000002b0005000800000021000000"
    "3c000000000000002b000500080000002200000040000000000000002b00050008000000230000004800000000000000"
    "2b00050008000000240000004c000000000000002b000500080000002500000050000000000000002b00050008000000"
    "2600000000000000000000002b0004000700000027000000020000002b00050008000000280000006000000000000000"
    "2b000500080000002900000008000000000000002b000500080000002a0000000c000000000000002b00050008000000"
    "2b00000010000000000000002b000500080000002c00000008000000000000002b000500080000002d00000010000000"
    "000000003600050005000000010000000000000006000000f80002002e0000003d0004000a0000002f00000002000000"
    "5100050007000000300000002f00000000000000410005000d0000003100000003000000120000003d00040007000000"
    "3200000031000000ae00050009000000330000003000000032000000f70003003400000000000000fa00040033000000"
    "3500000034000000f800020035000000fd000100f800020034000000410005000c000000360000000300000011000000"
    "3d0004000800000037000000360000007100040008000000380000003000000084000500080000003900000038000000"
    "2800000080000500080000003a000000370000003900000078000400100000003b0000003a0000003d00060008000000"
    "3c0000003b000000020000000800000080000500080000003d0000003a0000001700000078000400100000003e000000"
    "3d0000003d000600080000003f0000003e00000002000000080000008000050008000000400000003a00000018000000"
    "780004001000000041000000400000003d00060008000000420000004100000002000000080000008000050008000000"
    "430000003a00000019000000780004001000000044000000430000003d00060008000000450000004400000002000000"
    "080000008000050008000000460000003a0000001a000000780004000f00000047000000460000003d00060007000000"
    "480000004700000002000000040000008000050008000000490000003a0000001b000000780004000f0000004a000000"
    "490000003d000600070000004b0000004a000000020000000400000080000500080000004c0000003a0000001c000000"
    "780004000f0000004d0000004c0000003d000600070000004e0000004d00000002000000040000008000050008000000"
    "4f0000003a0000001d000000780004000f000000500000004f0000003d00060007000000510000005000000002000000"
    "040000008000050008000000520000003a0000001e000000780004000f00000053000000520000003d00060007000000"
    "540000005300000002000000040000008000050008000000550000003a0000001f000000780004000f00000056000000"
    "550000003d00060007000000570000005600000002000000040000008000050008000000580000003a00000020000000"
    "780004000f00000059000000580000003d000600070000005a000000590000000200000004000000ab00050009000000"
    "5b0000003c00000013000000f70003005c00000000000000fa0004005b0000005d0000005c000000f80002005d000000"
    "780004000f0000005e0000003c0000003d000600070000005f0000005e0000000200000004000000b000050009000000"
    "600000005f0000004b000000a90006000700000061000000600000005f0000004b000000f90002005c000000f8000200"
    "5c000000f50007000700000062000000610000005d00000048000000340000008000050008000000630000003a000000"
    "22000000780004001000000064000000630000003d0006000800000065000000640000000200000008000000ab000500"
    "09000000660000006500000013000000f70003006700000000000000fa000400660000006800000067000000f8000200"
    "680000008000050008000000690000003a00000021000000780004000f0000006a000000690000003d00060007000000"
    "6b0000006a000000020000000400000080000500080000006c0000003a00000023000000780004000f0000006d000000"
    "6c0000003d000600070000006e0000006d000000020000000400000080000500080000006f0000003a00000024000000"
    "780004000f000000700000006f0000003d00060007000000710000007000000002000000040000008000050008000000"
    "720000003a00000025000000780004000f00000073000000720000003d00060007000000740000007300000002000000"
    "040000008000050008000000750000007200000015000000780004000f00000076000000750000003d00060007000000"
    "770000007600000002000000040000008000050008000000780000007200000016000000780004000f00000079000000"
    "780000003d000600070000007a000000790000000200000004000000b0000500090000007b0000006b00000062000000"
    "80000500080000007c0000003f0000002600000078000400100000007d0000007c0000003d000600080000007e000000"
    "7d000000020000000800000071000400080000007f0000006e0000008000050008000000800000007e0000007f000000"
    "f70003008100000000000000fa0004007b0000008200000081000000f800020082000000780004000f00000083000000"
    "800000003d0006000700000084000000830000000200000004000000f900020081000000f800020081000000f5000700"
    "070000008500000084000000820000001100000068000000ac00050009000000860000007100000012000000a7000500"
    "09000000870000007b00000086000000f70003008800000000000000fa000400870000008900000088000000f8000200"
    "8900000080000500080000008a0000008000000015000000780004000f0000008b0000008a0000003d00060007000000"
    "8c0000008b0000000200000004000000f900020088000000f800020088000000f5000700070000008d0000008c000000"
    "890000001200000081000000ac000500090000008e0000007100000027000000a7000500090000008f0000007b000000"
    "8e000000f70003009000000000000000fa0004008f0000009100000090000000f8000200910000008000050008000000"
    "920000008000000016000000780004000f00000093000000920000003d00060007000000940000009300000002000000"
    "04000000f900020090000000f800020090000000f5000700070000009500000094000000910000001200000088000000"
    "b200050009000000960000008500000074000000b200050009000000970000008d00000077000000b200050009000000"
    "98000000950000007a000000a700050009000000990000009600000097000000a7000500090000009a00000099000000"
    "98000000a7000500090000009b0000007b0000009a00000084000500070000009c000000850000008d00000084000500"
    "070000009d0000009c00000095000000a9000600070000009e0000009b0000009d00000011000000a900060007000000"
    "9f0000007b0000001200000011000000780004000f000000a0000000650000003e000500a00000008500000002000000"
    "040000008000050008000000a10000006500000015000000780004000f000000a2000000a10000003e000500a2000000"
    "8d00000002000000040000008000050008000000a30000006500000016000000780004000f000000a4000000a3000000"
    "3e000500a4000000950000000200000004000000f900020067000000f800020067000000f500070007000000a5000000"
    "9f00000090000000620000005c000000f500070007000000a60000009e000000900000004e0000005c00000080000500"
    "08000000a70000003f0000002c000000780004000f000000a8000000a70000003e000500a8000000a500000002000000"
    "040000007100040008000000a9000000a50000007100040008000000aa000000a60000007100040008000000ab000000"
    "510000007100040008000000ac000000540000008400050008000000ad000000a9000000aa0000008200050008000000"
    "ae000000ab000000140000008000050008000000af000000ad000000ae0000008600050008000000b0000000af000000"
    "ab0000008200050008000000b1000000ac000000140000008000050008000000b2000000ad000000b100000086000500"
    "08000000b3000000b2000000ac0000007100040007000000b4000000b0000000b000050009000000b5000000b4000000"
    "5a000000a900060007000000b6000000b5000000b40000005a000000aa00050009000000b7000000b600000011000000"
    "a900060007000000b8000000b700000012000000b60000008200050007000000b9000000b80000001200000080000500"
    "07000000ba000000b4000000b90000008600050007000000bb000000ba000000b8000000780004000f000000bc000000"
    "420000003e000500bc000000b600000002000000040000008000050008000000bd000000420000001500000078000400"
    "0f000000be000000bd0000003e000500be000000bb00000002000000040000008000050008000000bf00000042000000"
    "16000000780004000f000000c0000000bf0000003e000500c0000000120000000200000004000000f9000200c1000000"
    "f8000200c1000000f500070007000000c20000001100000067000000c3000000c4000000f6000400c5000000c4000000"
    "00000000f9000200c6000000f8000200c6000000b000050009000000c7000000c200000057000000fa000400c7000000"
    "c8000000c5000000f8000200c80000007100040008000000c9000000c20000008400050008000000ca000000c9000000"
    "2b0000008000050008000000cb00000045000000ca0000007800040010000000cc000000cb0000003d00060008000000"
    "cd000000cc00000002000000080000008000050008000000ce000000cb00000029000000780004000f000000cf000000"
    "ce0000003d00060007000000d0000000cf00000002000000040000008000050008000000d1000000cb0000002a000000"
    "780004000f000000d2000000d10000003d00060007000000d3000000d200000002000000040000007100040008000000"
    "d4000000d00000007100040008000000d5000000d30000008400050008000000d6000000b3000000d4000000b0000500"
    "09000000d7000000d6000000d5000000a900060008000000d8000000d7000000d6000000d50000007100040007000000"
    "d9000000d80000008000050008000000da000000cd0000002d000000780004000f000000db000000da0000003e000500"
    "db000000d90000000200000004000000f9000200c4000000f8000200c40000008000050007000000c3000000c2000000"
    "12000000f9000200c1000000f8000200c5000000fd00010038000100"
)
"""`ASSEMBLY` assembled (SPIRV-Tools, target vulkan1.3), as hex of its little-endian words."""


def module() -> bytes:
    return bytes.fromhex(MODULE_HEX)
