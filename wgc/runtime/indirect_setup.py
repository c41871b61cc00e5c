"""Runtime: the indirect-setup meta shader of the GPU-driven schedule (`gpu_schedule`).

Input: nothing (the shader is fixed).  Output: `MODULE`, the SPIR-V words of a compute shader
`main` that, for every entry of a level's launch table, reads the number of records the producer
wrote (its counter, clamped to the records its arena holds) or the count the host gave, writes it
into the launch's `NodeContext.input_count`, writes the launch's `VkDispatchIndirectCommand` and
the capacity of each of its output slots (`min(units * per_unit, reserved)`: the MaxRecords budget
of the thread groups that really run, as the host-driven scheduler computes it).

Invariants: `ASSEMBLY` is the source and `MODULE_HEX` its assembled words (little-endian),
kept equal by a test (tests/test_runtime_gpu_schedule.py), so the runtime needs no assembler;
the table layout below (`LAUNCH`, `FIX`) is the one the shader reads, offsets never repeated as
literals elsewhere.  Memory model GLSL450 (no atomics: the counters are final when it runs, a
barrier separates it from their producers).

Launch table entry (`LAUNCH_SIZE` bytes, little-endian), per indirect dispatch:
  source (u64): address of the producer's u32 counter, 0 when `count` is the count;
  context (u64): address of the launch's NodeContext; indirect (u64): address of its 3 u32
  dispatch arguments; fixes (u64): address of `fix_count` FIX entries; count, source_capacity,
  group_mul, group_div, unit_div, fix_count, max_x (u32): groups = ceil(n * group_mul /
  group_div), units = ceil(n * group_mul / unit_div), dispatched as (min(groups, max_x),
  ceil(groups / that), 1).
FIX entry (`FIX_SIZE` bytes): slot (u64, address of an emulation_abi OutputSlot), per_unit (u32),
  reserved (u32).
Push constants: the table's address (u64) and its number of entries (u32).
"""

from __future__ import annotations

from wgc import emulation_abi as abi

LAUNCH = {"source": (0, 8), "context": (8, 8), "indirect": (16, 8), "fixes": (24, 8), "count": (32, 4),
          "source_capacity": (36, 4), "group_mul": (40, 4), "group_div": (44, 4), "unit_div": (48, 4),
          "fix_count": (52, 4), "max_x": (56, 4)}
LAUNCH_SIZE = 64
FIX = {"slot": (0, 8), "per_unit": (8, 4), "reserved": (12, 4)}
FIX_SIZE = 16
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
%count = OpPhi %uint %clamped %read %known %body
%count_a = OpIAdd %ulong %context %at_input_count
%count_p = OpConvertUToPtr %psb_uint %count_a
OpStore %count_p %count Aligned 4
%count64 = OpUConvert %ulong %count
%mul64 = OpUConvert %ulong %mul
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
%k = OpPhi %uint %c0 %counted %k_next %next
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
    input_count=abi.NODE_CONTEXT["input_count"][0], capacity=abi.OUTPUT_SLOT["capacity"][0])
"""The shader's source: the offsets come from the layouts above and from `emulation_abi`."""

MODULE_HEX = (
    "03022307000601000000070091000000000000001100020001000000110002000b00000011000200e31400000e000300"
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
    "40000000000000002b000500080000002200000008000000000000002b00050008000000230000000c00000000000000"
    "2b000500080000002400000010000000000000002b000500080000002500000008000000000000002b00050008000000"
    "2600000010000000000000003600050005000000010000000000000006000000f8000200270000003d0004000a000000"
    "28000000020000005100050007000000290000002800000000000000410005000d0000002a0000000300000012000000"
    "3d000400070000002b0000002a000000ae000500090000002c000000290000002b000000f70003002d00000000000000"
    "fa0004002c0000002e0000002d000000f80002002e000000fd000100f80002002d000000410005000c0000002f000000"
    "03000000110000003d00040008000000300000002f000000710004000800000031000000290000008400050008000000"
    "320000003100000021000000800005000800000033000000300000003200000078000400100000003400000033000000"
    "3d0006000800000035000000340000000200000008000000800005000800000036000000330000001700000078000400"
    "1000000037000000360000003d0006000800000038000000370000000200000008000000800005000800000039000000"
    "330000001800000078000400100000003a000000390000003d000600080000003b0000003a0000000200000008000000"
    "80000500080000003c000000330000001900000078000400100000003d0000003c0000003d000600080000003e000000"
    "3d000000020000000800000080000500080000003f000000330000001a000000780004000f000000400000003f000000"
    "3d0006000700000041000000400000000200000004000000800005000800000042000000330000001b00000078000400"
    "0f00000043000000420000003d0006000700000044000000430000000200000004000000800005000800000045000000"
    "330000001c000000780004000f00000046000000450000003d0006000700000047000000460000000200000004000000"
    "800005000800000048000000330000001d000000780004000f00000049000000480000003d000600070000004a000000"
    "49000000020000000400000080000500080000004b000000330000001e000000780004000f0000004c0000004b000000"
    "3d000600070000004d0000004c000000020000000400000080000500080000004e000000330000001f00000078000400"
    "0f0000004f0000004e0000003d00060007000000500000004f0000000200000004000000800005000800000051000000"
    "3300000020000000780004000f00000052000000510000003d0006000700000053000000520000000200000004000000"
    "ab00050009000000540000003500000013000000f70003005500000000000000fa000400540000005600000055000000"
    "f800020056000000780004000f00000057000000350000003d0006000700000058000000570000000200000004000000"
    "b000050009000000590000005800000044000000a9000600070000005a000000590000005800000044000000f9000200"
    "55000000f800020055000000f5000700070000005b0000005a00000056000000410000002d0000008000050008000000"
    "5c0000003800000025000000780004000f0000005d0000005c0000003e0005005d0000005b0000000200000004000000"
    "71000400080000005e0000005b00000071000400080000005f000000470000007100040008000000600000004a000000"
    "7100040008000000610000004d0000008400050008000000620000005e0000005f000000820005000800000063000000"
    "600000001400000080000500080000006400000062000000630000008600050008000000650000006400000060000000"
    "820005000800000066000000610000001400000080000500080000006700000062000000660000008600050008000000"
    "68000000670000006100000071000400070000006900000065000000b0000500090000006a0000006900000053000000"
    "a9000600070000006b0000006a0000006900000053000000aa000500090000006c0000006b00000011000000a9000600"
    "070000006d0000006c000000120000006b00000082000500070000006e0000006d000000120000008000050007000000"
    "6f000000690000006e0000008600050007000000700000006f0000006d000000780004000f000000710000003b000000"
    "3e000500710000006b00000002000000040000008000050008000000720000003b00000015000000780004000f000000"
    "73000000720000003e000500730000007000000002000000040000008000050008000000740000003b00000016000000"
    "780004000f00000075000000740000003e00050075000000120000000200000004000000f900020076000000f8000200"
    "76000000f5000700070000007700000011000000550000007800000079000000f60004007a0000007900000000000000"
    "f90002007b000000f80002007b000000b0000500090000007c0000007700000050000000fa0004007c0000007d000000"
    "7a000000f80002007d00000071000400080000007e0000007700000084000500080000007f0000007e00000024000000"
    "8000050008000000800000003e0000007f000000780004001000000081000000800000003d0006000800000082000000"
    "8100000002000000080000008000050008000000830000008000000022000000780004000f0000008400000083000000"
    "3d0006000700000085000000840000000200000004000000800005000800000086000000800000002300000078000400"
    "0f00000087000000860000003d0006000700000088000000870000000200000004000000710004000800000089000000"
    "8500000071000400080000008a0000008800000084000500080000008b0000006800000089000000b000050009000000"
    "8c0000008b0000008a000000a9000600080000008d0000008c0000008b0000008a00000071000400070000008e000000"
    "8d00000080000500080000008f0000008200000026000000780004000f000000900000008f0000003e00050090000000"
    "8e0000000200000004000000f900020079000000f8000200790000008000050007000000780000007700000012000000"
    "f900020076000000f80002007a000000fd00010038000100"
)
"""`ASSEMBLY` assembled (SPIRV-Tools, target vulkan1.3), as hex of its little-endian words."""


def module() -> bytes:
    return bytes.fromhex(MODULE_HEX)
