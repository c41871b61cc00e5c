"""Runtime: the grid-scan meta shader of the GPU-driven schedule (record-given grids, `gpu_schedule`).

Input: nothing (the shader is fixed).  Output: `module()`, the SPIR-V words of a compute shader
`main` run beside `indirect_setup`'s in a level's setup pass: one workgroup of `GROUP_SIZE`
invocations per launch of a broadcasting (or mesh) node whose grid comes from its record
(`SV_DispatchGrid`).  A workgroup reads the launch's record count (the producer's counter clamped
to its arena, or the count the host gave), writes it into the NodeContext's `input_count`, reads
every record's grid (16- or 32-bit components; missing ones are 1), and writes the inclusive prefix
sums of their group counts at `prefix` (the NodeContext's `grid_prefix`, which the node's prologue
searches: `wgc.emulation_abi`, "grid from the record"), each record's group count at `shared`
where the node shares its input across groups (its FinishedCrossGroupSharing counters), the total
among the words the host reads back (with the first record, by index, whose grid is beyond
[NodeMaxDispatchGrid]: it counts 0 groups, and the host raises `GridBeyondMax`), the launch's
`VkDispatchIndirectCommand` (the total split over x, y and z within `max_x`, `max_y`, `max_z`)
and the capacity of each output slot (`min(total * per_unit, reserved)`, as `indirect_setup`).

How: each invocation sums the grids of a contiguous run of ceil(count / GROUP_SIZE) records, the
runs' sums are scanned in workgroup memory (log2(GROUP_SIZE) steps), and each invocation writes its
run's prefix sums.  A 16-bit component is read from the 4-byte-aligned word holding it (no 16-bit
storage capability: the device may not have it enabled); record buffers are whole words long.

Invariants: `SOURCE` (GLSL, the offsets filled in from `GRID_LAUNCH`, `indirect_setup.FIX` and
`emulation_abi`) is what the module was compiled from with glslc, `ASSEMBLY` its disassembly and
`MODULE_HEX` that assembled (tests/test_runtime_grid_launch.py keeps the three equal), so the
runtime needs no compiler; the table layout below is the one the shader reads.

Launch table entry (`GRID_LAUNCH_SIZE` bytes, little-endian): source (u64, the producer's u32
counter, 0 when `count` is the count); context (u64, the NodeContext); indirect (u64, 3 u32 dispatch
arguments); fixes (u64, `fix_count` `indirect_setup.FIX` entries); prefix (u64, room for as many u32
as the input may hold records); shared (u64, the same room, or 0); result (u64, `RESULT_WORDS` u32:
total groups, the first record beyond the max grid or 0xFFFFFFFF, that record's grid x, y, z);
count, source_capacity, fix_count, grid_at (byte offset of SV_DispatchGrid in the record),
grid_bits (16 or 32), grid_components, max_grid (3), max_x, max_y, max_z (u32).
Push constants: the table's address (u64) and its number of entries (u32).
"""

from __future__ import annotations

from wgc import emulation_abi as abi
from wgc.runtime import indirect_setup as meta

GRID_LAUNCH = {"source": (0, 8), "context": (8, 8), "indirect": (16, 8), "fixes": (24, 8), "prefix": (32, 8),
               "shared": (40, 8), "result": (48, 8), "count": (56, 4), "source_capacity": (60, 4),
               "fix_count": (64, 4), "grid_at": (68, 4), "grid_bits": (72, 4), "grid_components": (76, 4),
               "max_grid": (80, 12), "max_x": (92, 4), "max_y": (96, 4), "max_z": (100, 4)}
GRID_LAUNCH_SIZE = 104
RESULT_WORDS = 5
NO_RECORD = 0xFFFFFFFF
GROUP_SIZE = 64
"""Invocations per workgroup (one workgroup per launch table entry)."""

_TEMPLATE = """\
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = {group_size}) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word {{ uint v; }};
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Dword {{ uint64_t v; }};
layout(push_constant) uniform Push {{ uint64_t table; uint count; }} push;
shared uint partial[{group_size}];
shared uint first_bad;

uint word(uint64_t a) {{ return Word(a).v; }}
uint64_t dword(uint64_t a) {{ return Dword(a).v; }}

uint component(uint64_t a, uint bits) {{
    if (bits == 32u) return word(a);
    uint w = word(a & ~uint64_t(3));
    return (w >> (uint(a & uint64_t(2)) * 8u)) & 0xFFFFu;
}}

uvec3 grid(uint64_t record, uint at, uint bits, uint dims) {{
    uint64_t a = record + uint64_t(at);
    uint step = bits / 8u;
    uvec3 g = uvec3(component(a, bits), 1u, 1u);
    if (dims > 1u) g.y = component(a + uint64_t(step), bits);
    if (dims > 2u) g.z = component(a + uint64_t(2u * step), bits);
    return g;
}}

void main() {{
    uint lid = gl_LocalInvocationID.x;
    uint64_t e = push.table + uint64_t(gl_WorkGroupID.x) * {size}ul;
    uint64_t source = dword(e + {source}ul);
    uint count = word(e + {count}ul);
    if (source != 0ul) count = min(word(source), word(e + {source_capacity}ul));
    uint64_t context = dword(e + {context}ul);
    uint64_t records = dword(context + {input_records}ul);
    uint64_t stride = uint64_t(word(context + {input_stride}ul));
    uint at = word(e + {grid_at}ul);
    uint bits = word(e + {grid_bits}ul);
    uint dims = word(e + {grid_components}ul);
    uvec3 most = uvec3(word(e + {max_grid}ul), word(e + {max_grid}ul + 4ul), word(e + {max_grid}ul + 8ul));
    if (lid == 0u) first_bad = {no_record}u;
    barrier();
    uint per = (count + {group_size}u - 1u) / {group_size}u;
    uint begin = min(lid * per, count);
    uint end = min(begin + per, count);
    uint sum = 0u;
    for (uint r = begin; r < end; r++) {{
        uvec3 g = grid(records + uint64_t(r) * stride, at, bits, dims);
        if (any(greaterThan(g, most))) atomicMin(first_bad, r);
        else sum += g.x * g.y * g.z;
    }}
    partial[lid] = sum;
    barrier();
    for (uint d = 1u; d < {group_size}u; d <<= 1u) {{
        uint add = lid >= d ? partial[lid - d] : 0u;
        barrier();
        partial[lid] += add;
        barrier();
    }}
    uint running = lid > 0u ? partial[lid - 1u] : 0u;
    uint64_t prefix = dword(e + {prefix}ul);
    uint64_t sharing = dword(e + {shared}ul);
    for (uint r = begin; r < end; r++) {{
        uvec3 g = grid(records + uint64_t(r) * stride, at, bits, dims);
        uint n = any(greaterThan(g, most)) ? 0u : g.x * g.y * g.z;
        running += n;
        Word(prefix + 4ul * uint64_t(r)).v = running;
        if (sharing != 0ul) Word(sharing + 4ul * uint64_t(r)).v = n;
    }}
    uint64_t result = dword(e + {result}ul);
    uint bad = first_bad;
    if (bad >= begin && bad < end) {{
        uvec3 g = grid(records + uint64_t(bad) * stride, at, bits, dims);
        Word(result + 8ul).v = g.x;
        Word(result + 12ul).v = g.y;
        Word(result + 16ul).v = g.z;
    }}
    if (lid != 0u) return;
    uint total = partial[{group_size}u - 1u];
    Word(context + {input_count}ul).v = count;
    Word(result).v = total;
    Word(result + 4ul).v = bad;
    uint x = min(total, word(e + {max_x}ul));
    uint rest = x == 0u ? 0u : (total + x - 1u) / x;
    uint y = min(rest, word(e + {max_y}ul));
    uint z = y == 0u ? 0u : (rest + y - 1u) / y;
    uint64_t indirect = dword(e + {indirect}ul);
    Word(indirect).v = x;
    Word(indirect + 4ul).v = y;
    Word(indirect + 8ul).v = z;
    uint64_t fixes = dword(e + {fixes}ul);
    uint fix_count = word(e + {fix_count}ul);
    for (uint k = 0u; k < fix_count; k++) {{
        uint64_t f = fixes + uint64_t(k) * {fix_size}ul;
        uint64_t want = uint64_t(total) * uint64_t(word(f + {per_unit}ul));
        uint64_t reserved = uint64_t(word(f + {reserved}ul));
        Word(dword(f) + {capacity}ul).v = uint(min(want, reserved));
    }}
}}
"""

SOURCE = _TEMPLATE.format(
    **{name: offset for name, (offset, _) in GRID_LAUNCH.items()}, size=GRID_LAUNCH_SIZE, group_size=GROUP_SIZE,
    no_record=NO_RECORD, input_records=abi.NODE_CONTEXT["input_records"][0],
    input_stride=abi.NODE_CONTEXT["input_stride"][0], input_count=abi.NODE_CONTEXT["input_count"][0],
    capacity=abi.OUTPUT_SLOT["capacity"][0], fix_size=meta.FIX_SIZE, per_unit=meta.FIX["per_unit"][0],
    reserved=meta.FIX["reserved"][0])
"""The shader's GLSL: the offsets come from the layouts above, `indirect_setup` and `emulation_abi`."""

ASSEMBLY = """\
; SPIR-V
; Version: 1.6
; Generator: Google Shaderc over Glslang; 11
; Bound: 1364
; Schema: 0
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel PhysicalStorageBuffer64 GLSL450
               OpEntryPoint GLCompute %4 "main" %gl_LocalInvocationID %138 %gl_WorkGroupID %233 %304
               OpExecutionModeId %4 LocalSizeId %uint_64 %uint_1 %uint_1
               OpMemberDecorate %_struct_35 0 Offset 0
               OpDecorate %_struct_35 Block
               OpMemberDecorate %_struct_46 0 Offset 0
               OpDecorate %_struct_46 Block
               OpDecorate %gl_LocalInvocationID BuiltIn LocalInvocationId
               OpMemberDecorate %_struct_136 0 Offset 0
               OpMemberDecorate %_struct_136 1 Offset 8
               OpDecorate %_struct_136 Block
               OpDecorate %gl_WorkGroupID BuiltIn WorkgroupId
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
    %uint_64 = OpConstant %uint 64
     %uint_1 = OpConstant %uint 1
      %ulong = OpTypeInt 64 0
     %v3uint = OpTypeVector %uint 3
               OpTypeForwardPointer %_ptr_PhysicalStorageBuffer__struct_35 PhysicalStorageBuffer
 %_struct_35 = OpTypeStruct %uint
%_ptr_PhysicalStorageBuffer__struct_35 = OpTypePointer PhysicalStorageBuffer %_struct_35
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
%_ptr_PhysicalStorageBuffer_uint = OpTypePointer PhysicalStorageBuffer %uint
               OpTypeForwardPointer %_ptr_PhysicalStorageBuffer__struct_46 PhysicalStorageBuffer
 %_struct_46 = OpTypeStruct %ulong
%_ptr_PhysicalStorageBuffer__struct_46 = OpTypePointer PhysicalStorageBuffer %_struct_46
%_ptr_PhysicalStorageBuffer_ulong = OpTypePointer PhysicalStorageBuffer %ulong
    %uint_32 = OpConstant %uint 32
       %bool = OpTypeBool
%ulong_18446744073709551612 = OpConstant %ulong 18446744073709551612
    %ulong_2 = OpConstant %ulong 2
     %uint_8 = OpConstant %uint 8
 %uint_65535 = OpConstant %uint 65535
     %uint_2 = OpConstant %uint 2
%_ptr_Input_v3uint = OpTypePointer Input %v3uint
%gl_LocalInvocationID = OpVariable %_ptr_Input_v3uint Input
     %uint_0 = OpConstant %uint 0
%_ptr_Input_uint = OpTypePointer Input %uint
%_struct_136 = OpTypeStruct %ulong %uint
%_ptr_PushConstant__struct_136 = OpTypePointer PushConstant %_struct_136
        %138 = OpVariable %_ptr_PushConstant__struct_136 PushConstant
%_ptr_PushConstant_ulong = OpTypePointer PushConstant %ulong
%gl_WorkGroupID = OpVariable %_ptr_Input_v3uint Input
  %ulong_104 = OpConstant %ulong 104
    %ulong_0 = OpConstant %ulong 0
   %ulong_56 = OpConstant %ulong 56
   %ulong_60 = OpConstant %ulong 60
    %ulong_8 = OpConstant %ulong 8
   %ulong_12 = OpConstant %ulong 12
   %ulong_68 = OpConstant %ulong 68
   %ulong_72 = OpConstant %ulong 72
   %ulong_76 = OpConstant %ulong 76
   %ulong_80 = OpConstant %ulong 80
    %ulong_4 = OpConstant %ulong 4
%_ptr_Workgroup_uint = OpTypePointer Workgroup %uint
        %233 = OpVariable %_ptr_Workgroup_uint Workgroup
%uint_4294967295 = OpConstant %uint 4294967295
   %uint_264 = OpConstant %uint 264
     %v3bool = OpTypeVector %bool 3
      %int_1 = OpConstant %int 1
%_arr_uint_uint_64 = OpTypeArray %uint %uint_64
%_ptr_Workgroup__arr_uint_uint_64 = OpTypePointer Workgroup %_arr_uint_uint_64
        %304 = OpVariable %_ptr_Workgroup__arr_uint_uint_64 Workgroup
   %ulong_32 = OpConstant %ulong 32
   %ulong_40 = OpConstant %ulong 40
   %ulong_48 = OpConstant %ulong 48
   %ulong_16 = OpConstant %ulong 16
     %int_63 = OpConstant %int 63
   %ulong_92 = OpConstant %ulong 92
   %ulong_96 = OpConstant %ulong 96
   %ulong_24 = OpConstant %ulong 24
   %ulong_64 = OpConstant %ulong 64
   %ulong_84 = OpConstant %ulong 84
   %ulong_88 = OpConstant %ulong 88
    %uint_63 = OpConstant %uint 63
          %4 = OpFunction %void None %3
          %5 = OpLabel
               OpSelectionMerge %622 None
               OpSwitch %uint_0 %623
        %623 = OpLabel
        %133 = OpAccessChain %_ptr_Input_uint %gl_LocalInvocationID %uint_0
        %134 = OpLoad %uint %133
        %140 = OpAccessChain %_ptr_PushConstant_ulong %138 %int_0
        %141 = OpLoad %ulong %140
        %143 = OpAccessChain %_ptr_Input_uint %gl_WorkGroupID %uint_0
        %144 = OpLoad %uint %143
        %145 = OpUConvert %ulong %144
        %147 = OpIMul %ulong %145 %ulong_104
        %148 = OpIAdd %ulong %141 %147
        %636 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %148
        %637 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %636 %int_0
        %638 = OpLoad %ulong %637 Aligned 8
        %158 = OpIAdd %ulong %148 %ulong_56
        %642 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %158
        %643 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %642 %int_0
        %644 = OpLoad %uint %643 Aligned 4
        %162 = OpINotEqual %bool %638 %ulong_0
               OpSelectionMerge %164 None
               OpBranchConditional %162 %163 %164
        %163 = OpLabel
        %648 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %638
        %649 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %648 %int_0
        %650 = OpLoad %uint %649 Aligned 4
        %170 = OpIAdd %ulong %148 %ulong_60
        %654 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %170
        %655 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %654 %int_0
        %656 = OpLoad %uint %655 Aligned 4
        %173 = OpExtInst %uint %1 UMin %650 %656
               OpBranch %164
        %164 = OpLabel
       %1276 = OpPhi %uint %644 %623 %173 %163
        %177 = OpIAdd %ulong %148 %ulong_8
        %660 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %177
        %661 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %660 %int_0
        %662 = OpLoad %ulong %661 Aligned 8
        %666 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %662
        %667 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %666 %int_0
        %668 = OpLoad %ulong %667 Aligned 8
        %188 = OpIAdd %ulong %662 %ulong_12
        %672 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %188
        %673 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %672 %int_0
        %674 = OpLoad %uint %673 Aligned 4
        %191 = OpUConvert %ulong %674
        %195 = OpIAdd %ulong %148 %ulong_68
        %678 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %195
        %679 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %678 %int_0
        %680 = OpLoad %uint %679 Aligned 4
        %201 = OpIAdd %ulong %148 %ulong_72
        %684 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %201
        %685 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %684 %int_0
        %686 = OpLoad %uint %685 Aligned 4
        %207 = OpIAdd %ulong %148 %ulong_76
        %690 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %207
        %691 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %690 %int_0
        %692 = OpLoad %uint %691 Aligned 4
        %213 = OpIAdd %ulong %148 %ulong_80
        %696 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %213
        %697 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %696 %int_0
        %698 = OpLoad %uint %697 Aligned 4
        %219 = OpIAdd %ulong %148 %ulong_84
        %702 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %219
        %703 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %702 %int_0
        %704 = OpLoad %uint %703 Aligned 4
        %224 = OpIAdd %ulong %148 %ulong_88
        %708 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %224
        %709 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %708 %int_0
        %710 = OpLoad %uint %709 Aligned 4
        %227 = OpCompositeConstruct %v3uint %698 %704 %710
        %229 = OpIEqual %bool %134 %uint_0
               OpSelectionMerge %231 None
               OpBranchConditional %229 %230 %231
        %230 = OpLabel
               OpStore %233 %uint_4294967295
               OpBranch %231
        %231 = OpLabel
               OpControlBarrier %uint_2 %uint_2 %uint_264
        %239 = OpIAdd %uint %1276 %uint_63
        %240 = OpUDiv %uint %239 %uint_64
        %244 = OpIMul %uint %134 %240
        %246 = OpExtInst %uint %1 UMin %244 %1276
        %250 = OpIAdd %uint %246 %240
        %252 = OpExtInst %uint %1 UMin %250 %1276
               OpBranch %256
        %256 = OpLabel
       %1278 = OpPhi %uint %uint_0 %231 %1344 %259
       %1277 = OpPhi %uint %246 %231 %301 %259
        %263 = OpULessThan %bool %1277 %252
               OpLoopMerge %258 %259 None
               OpBranchConditional %263 %257 %258
        %257 = OpLabel
        %267 = OpUConvert %ulong %1277
        %269 = OpIMul %ulong %267 %191
        %270 = OpIAdd %ulong %668 %269
        %724 = OpUConvert %ulong %680
        %725 = OpIAdd %ulong %270 %724
        %727 = OpUDiv %uint %686 %uint_8
               OpSelectionMerge %780 None
               OpSwitch %uint_0 %763
        %763 = OpLabel
        %765 = OpIEqual %bool %686 %uint_32
               OpSelectionMerge %769 None
               OpBranchConditional %765 %766 %769
        %766 = OpLabel
        %785 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %725
        %786 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %785 %int_0
        %787 = OpLoad %uint %786 Aligned 4
               OpBranch %780
        %769 = OpLabel
        %771 = OpBitwiseAnd %ulong %725 %ulong_18446744073709551612
        %791 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %771
        %792 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %791 %int_0
        %793 = OpLoad %uint %792 Aligned 4
        %775 = OpBitwiseAnd %ulong %725 %ulong_2
        %776 = OpUConvert %uint %775
        %777 = OpIMul %uint %776 %uint_8
        %778 = OpShiftRightLogical %uint %793 %777
        %779 = OpBitwiseAnd %uint %778 %uint_65535
               OpBranch %780
        %780 = OpLabel
       %1326 = OpPhi %uint %787 %766 %779 %769
        %731 = OpCompositeConstruct %v3uint %1326 %uint_1 %uint_1
        %733 = OpUGreaterThan %bool %692 %uint_1
               OpSelectionMerge %742 None
               OpBranchConditional %733 %734 %742
        %734 = OpLabel
        %737 = OpUConvert %ulong %727
        %738 = OpIAdd %ulong %725 %737
               OpSelectionMerge %818 None
               OpSwitch %uint_0 %801
        %801 = OpLabel
               OpSelectionMerge %807 None
               OpBranchConditional %765 %804 %807
        %804 = OpLabel
        %823 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %738
        %824 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %823 %int_0
        %825 = OpLoad %uint %824 Aligned 4
               OpBranch %818
        %807 = OpLabel
        %809 = OpBitwiseAnd %ulong %738 %ulong_18446744073709551612
        %829 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %809
        %830 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %829 %int_0
        %831 = OpLoad %uint %830 Aligned 4
        %813 = OpBitwiseAnd %ulong %738 %ulong_2
        %814 = OpUConvert %uint %813
        %815 = OpIMul %uint %814 %uint_8
        %816 = OpShiftRightLogical %uint %831 %815
        %817 = OpBitwiseAnd %uint %816 %uint_65535
               OpBranch %818
        %818 = OpLabel
       %1327 = OpPhi %uint %825 %804 %817 %807
       %1255 = OpCompositeInsert %v3uint %1327 %731 1
               OpBranch %742
        %742 = OpLabel
       %1331 = OpPhi %v3uint %731 %780 %1255 %818
        %744 = OpUGreaterThan %bool %692 %uint_2
               OpSelectionMerge %754 None
               OpBranchConditional %744 %745 %754
        %745 = OpLabel
        %748 = OpIMul %uint %uint_2 %727
        %749 = OpUConvert %ulong %748
        %750 = OpIAdd %ulong %725 %749
               OpSelectionMerge %856 None
               OpSwitch %uint_0 %839
        %839 = OpLabel
               OpSelectionMerge %845 None
               OpBranchConditional %765 %842 %845
        %842 = OpLabel
        %861 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %750
        %862 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %861 %int_0
        %863 = OpLoad %uint %862 Aligned 4
               OpBranch %856
        %845 = OpLabel
        %847 = OpBitwiseAnd %ulong %750 %ulong_18446744073709551612
        %867 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %847
        %868 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %867 %int_0
        %869 = OpLoad %uint %868 Aligned 4
        %851 = OpBitwiseAnd %ulong %750 %ulong_2
        %852 = OpUConvert %uint %851
        %853 = OpIMul %uint %852 %uint_8
        %854 = OpShiftRightLogical %uint %869 %853
        %855 = OpBitwiseAnd %uint %854 %uint_65535
               OpBranch %856
        %856 = OpLabel
       %1329 = OpPhi %uint %863 %842 %855 %845
       %1257 = OpCompositeInsert %v3uint %1329 %1331 2
               OpBranch %754
        %754 = OpLabel
       %1332 = OpPhi %v3uint %1331 %742 %1257 %856
        %282 = OpUGreaterThan %v3bool %1332 %227
        %283 = OpAny %bool %282
               OpSelectionMerge %285 None
               OpBranchConditional %283 %284 %288
        %284 = OpLabel
        %287 = OpAtomicUMin %uint %233 %uint_1 %uint_0 %1277
               OpBranch %285
        %288 = OpLabel
        %290 = OpCompositeExtract %uint %1332 0
        %292 = OpCompositeExtract %uint %1332 1
        %293 = OpIMul %uint %290 %292
        %295 = OpCompositeExtract %uint %1332 2
        %296 = OpIMul %uint %293 %295
        %298 = OpIAdd %uint %1278 %296
               OpBranch %285
        %285 = OpLabel
       %1344 = OpPhi %uint %1278 %284 %298 %288
               OpBranch %259
        %259 = OpLabel
        %301 = OpIAdd %uint %1277 %int_1
               OpBranch %256
        %258 = OpLabel
        %307 = OpAccessChain %_ptr_Workgroup_uint %304 %134
               OpStore %307 %1278
               OpControlBarrier %uint_2 %uint_2 %uint_264
               OpBranch %309
        %309 = OpLabel
       %1279 = OpPhi %uint %uint_1 %258 %337 %312
        %315 = OpULessThan %bool %1279 %uint_64
               OpLoopMerge %311 %312 None
               OpBranchConditional %315 %310 %311
        %310 = OpLabel
        %319 = OpUGreaterThanEqual %bool %134 %1279
               OpSelectionMerge %322 None
               OpBranchConditional %319 %321 %328
        %321 = OpLabel
        %325 = OpISub %uint %134 %1279
        %326 = OpAccessChain %_ptr_Workgroup_uint %304 %325
        %327 = OpLoad %uint %326
               OpBranch %322
        %328 = OpLabel
               OpBranch %322
        %322 = OpLabel
       %1324 = OpPhi %uint %327 %321 %uint_0 %328
               OpControlBarrier %uint_2 %uint_2 %uint_264
        %333 = OpLoad %uint %307
        %334 = OpIAdd %uint %333 %1324
               OpStore %307 %334
               OpControlBarrier %uint_2 %uint_2 %uint_264
               OpBranch %312
        %312 = OpLabel
        %337 = OpShiftLeftLogical %uint %1279 %uint_1
               OpBranch %309
        %311 = OpLabel
        %340 = OpUGreaterThan %bool %134 %uint_0
               OpSelectionMerge %343 None
               OpBranchConditional %340 %342 %348
        %342 = OpLabel
        %345 = OpISub %uint %134 %uint_1
        %346 = OpAccessChain %_ptr_Workgroup_uint %304 %345
        %347 = OpLoad %uint %346
               OpBranch %343
        %348 = OpLabel
               OpBranch %343
        %343 = OpLabel
       %1280 = OpPhi %uint %347 %342 %uint_0 %348
        %353 = OpIAdd %ulong %148 %ulong_32
        %873 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %353
        %874 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %873 %int_0
        %875 = OpLoad %ulong %874 Aligned 8
        %359 = OpIAdd %ulong %148 %ulong_40
        %879 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %359
        %880 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %879 %int_0
        %881 = OpLoad %ulong %880 Aligned 8
               OpBranch %364
        %364 = OpLabel
       %1314 = OpPhi %uint %1280 %343 %407 %367
       %1281 = OpPhi %uint %246 %343 %429 %367
        %371 = OpULessThan %bool %1281 %252
               OpLoopMerge %366 %367 None
               OpBranchConditional %371 %365 %366
        %365 = OpLabel
        %375 = OpUConvert %ulong %1281
        %377 = OpIMul %ulong %375 %191
        %378 = OpIAdd %ulong %668 %377
        %895 = OpUConvert %ulong %680
        %896 = OpIAdd %ulong %378 %895
        %898 = OpUDiv %uint %686 %uint_8
               OpSelectionMerge %951 None
               OpSwitch %uint_0 %934
        %934 = OpLabel
        %936 = OpIEqual %bool %686 %uint_32
               OpSelectionMerge %940 None
               OpBranchConditional %936 %937 %940
        %937 = OpLabel
        %956 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %896
        %957 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %956 %int_0
        %958 = OpLoad %uint %957 Aligned 4
               OpBranch %951
        %940 = OpLabel
        %942 = OpBitwiseAnd %ulong %896 %ulong_18446744073709551612
        %962 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %942
        %963 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %962 %int_0
        %964 = OpLoad %uint %963 Aligned 4
        %946 = OpBitwiseAnd %ulong %896 %ulong_2
        %947 = OpUConvert %uint %946
        %948 = OpIMul %uint %947 %uint_8
        %949 = OpShiftRightLogical %uint %964 %948
        %950 = OpBitwiseAnd %uint %949 %uint_65535
               OpBranch %951
        %951 = OpLabel
       %1302 = OpPhi %uint %958 %937 %950 %940
        %902 = OpCompositeConstruct %v3uint %1302 %uint_1 %uint_1
        %904 = OpUGreaterThan %bool %692 %uint_1
               OpSelectionMerge %913 None
               OpBranchConditional %904 %905 %913
        %905 = OpLabel
        %908 = OpUConvert %ulong %898
        %909 = OpIAdd %ulong %896 %908
               OpSelectionMerge %989 None
               OpSwitch %uint_0 %972
        %972 = OpLabel
               OpSelectionMerge %978 None
               OpBranchConditional %936 %975 %978
        %975 = OpLabel
        %994 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %909
        %995 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %994 %int_0
        %996 = OpLoad %uint %995 Aligned 4
               OpBranch %989
        %978 = OpLabel
        %980 = OpBitwiseAnd %ulong %909 %ulong_18446744073709551612
       %1000 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %980
       %1001 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1000 %int_0
       %1002 = OpLoad %uint %1001 Aligned 4
        %984 = OpBitwiseAnd %ulong %909 %ulong_2
        %985 = OpUConvert %uint %984
        %986 = OpIMul %uint %985 %uint_8
        %987 = OpShiftRightLogical %uint %1002 %986
        %988 = OpBitwiseAnd %uint %987 %uint_65535
               OpBranch %989
        %989 = OpLabel
       %1303 = OpPhi %uint %996 %975 %988 %978
       %1262 = OpCompositeInsert %v3uint %1303 %902 1
               OpBranch %913
        %913 = OpLabel
       %1307 = OpPhi %v3uint %902 %951 %1262 %989
        %915 = OpUGreaterThan %bool %692 %uint_2
               OpSelectionMerge %925 None
               OpBranchConditional %915 %916 %925
        %916 = OpLabel
        %919 = OpIMul %uint %uint_2 %898
        %920 = OpUConvert %ulong %919
        %921 = OpIAdd %ulong %896 %920
               OpSelectionMerge %1027 None
               OpSwitch %uint_0 %1010
       %1010 = OpLabel
               OpSelectionMerge %1016 None
               OpBranchConditional %936 %1013 %1016
       %1013 = OpLabel
       %1032 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %921
       %1033 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1032 %int_0
       %1034 = OpLoad %uint %1033 Aligned 4
               OpBranch %1027
       %1016 = OpLabel
       %1018 = OpBitwiseAnd %ulong %921 %ulong_18446744073709551612
       %1038 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1018
       %1039 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1038 %int_0
       %1040 = OpLoad %uint %1039 Aligned 4
       %1022 = OpBitwiseAnd %ulong %921 %ulong_2
       %1023 = OpUConvert %uint %1022
       %1024 = OpIMul %uint %1023 %uint_8
       %1025 = OpShiftRightLogical %uint %1040 %1024
       %1026 = OpBitwiseAnd %uint %1025 %uint_65535
               OpBranch %1027
       %1027 = OpLabel
       %1305 = OpPhi %uint %1034 %1013 %1026 %1016
       %1264 = OpCompositeInsert %v3uint %1305 %1307 2
               OpBranch %925
        %925 = OpLabel
       %1308 = OpPhi %v3uint %1307 %913 %1264 %1027
        %390 = OpUGreaterThan %v3bool %1308 %227
        %391 = OpAny %bool %390
               OpSelectionMerge %394 None
               OpBranchConditional %391 %393 %395
        %393 = OpLabel
               OpBranch %394
        %395 = OpLabel
        %397 = OpCompositeExtract %uint %1308 0
        %399 = OpCompositeExtract %uint %1308 1
        %400 = OpIMul %uint %397 %399
        %402 = OpCompositeExtract %uint %1308 2
        %403 = OpIMul %uint %400 %402
               OpBranch %394
        %394 = OpLabel
       %1309 = OpPhi %uint %uint_0 %393 %403 %395
        %407 = OpIAdd %uint %1314 %1309
        %411 = OpIMul %ulong %ulong_4 %375
        %412 = OpIAdd %ulong %875 %411
        %413 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %412
        %415 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %413 %int_0
               OpStore %415 %407 Aligned 4
        %417 = OpINotEqual %bool %881 %ulong_0
               OpSelectionMerge %419 None
               OpBranchConditional %417 %418 %419
        %418 = OpLabel
        %424 = OpIAdd %ulong %881 %411
        %425 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %424
        %427 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %425 %int_0
               OpStore %427 %1309 Aligned 4
               OpBranch %419
        %419 = OpLabel
               OpBranch %367
        %367 = OpLabel
        %429 = OpIAdd %uint %1281 %int_1
               OpBranch %364
        %366 = OpLabel
        %433 = OpIAdd %ulong %148 %ulong_48
       %1044 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %433
       %1045 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1044 %int_0
       %1046 = OpLoad %ulong %1045 Aligned 8
        %437 = OpLoad %uint %233
        %440 = OpUGreaterThanEqual %bool %437 %246
        %443 = OpULessThan %bool %437 %252
        %444 = OpLogicalAnd %bool %440 %443
               OpSelectionMerge %446 None
               OpBranchConditional %444 %445 %446
        %445 = OpLabel
        %450 = OpUConvert %ulong %437
        %452 = OpIMul %ulong %450 %191
        %453 = OpIAdd %ulong %668 %452
       %1060 = OpUConvert %ulong %680
       %1061 = OpIAdd %ulong %453 %1060
       %1063 = OpUDiv %uint %686 %uint_8
               OpSelectionMerge %1116 None
               OpSwitch %uint_0 %1099
       %1099 = OpLabel
       %1101 = OpIEqual %bool %686 %uint_32
               OpSelectionMerge %1105 None
               OpBranchConditional %1101 %1102 %1105
       %1102 = OpLabel
       %1121 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1061
       %1122 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1121 %int_0
       %1123 = OpLoad %uint %1122 Aligned 4
               OpBranch %1116
       %1105 = OpLabel
       %1107 = OpBitwiseAnd %ulong %1061 %ulong_18446744073709551612
       %1127 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1107
       %1128 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1127 %int_0
       %1129 = OpLoad %uint %1128 Aligned 4
       %1111 = OpBitwiseAnd %ulong %1061 %ulong_2
       %1112 = OpUConvert %uint %1111
       %1113 = OpIMul %uint %1112 %uint_8
       %1114 = OpShiftRightLogical %uint %1129 %1113
       %1115 = OpBitwiseAnd %uint %1114 %uint_65535
               OpBranch %1116
       %1116 = OpLabel
       %1282 = OpPhi %uint %1123 %1102 %1115 %1105
       %1067 = OpCompositeConstruct %v3uint %1282 %uint_1 %uint_1
       %1069 = OpUGreaterThan %bool %692 %uint_1
               OpSelectionMerge %1078 None
               OpBranchConditional %1069 %1070 %1078
       %1070 = OpLabel
       %1073 = OpUConvert %ulong %1063
       %1074 = OpIAdd %ulong %1061 %1073
               OpSelectionMerge %1154 None
               OpSwitch %uint_0 %1137
       %1137 = OpLabel
               OpSelectionMerge %1143 None
               OpBranchConditional %1101 %1140 %1143
       %1140 = OpLabel
       %1159 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1074
       %1160 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1159 %int_0
       %1161 = OpLoad %uint %1160 Aligned 4
               OpBranch %1154
       %1143 = OpLabel
       %1145 = OpBitwiseAnd %ulong %1074 %ulong_18446744073709551612
       %1165 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1145
       %1166 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1165 %int_0
       %1167 = OpLoad %uint %1166 Aligned 4
       %1149 = OpBitwiseAnd %ulong %1074 %ulong_2
       %1150 = OpUConvert %uint %1149
       %1151 = OpIMul %uint %1150 %uint_8
       %1152 = OpShiftRightLogical %uint %1167 %1151
       %1153 = OpBitwiseAnd %uint %1152 %uint_65535
               OpBranch %1154
       %1154 = OpLabel
       %1283 = OpPhi %uint %1161 %1140 %1153 %1143
       %1269 = OpCompositeInsert %v3uint %1283 %1067 1
               OpBranch %1078
       %1078 = OpLabel
       %1287 = OpPhi %v3uint %1067 %1116 %1269 %1154
       %1080 = OpUGreaterThan %bool %692 %uint_2
               OpSelectionMerge %1090 None
               OpBranchConditional %1080 %1081 %1090
       %1081 = OpLabel
       %1084 = OpIMul %uint %uint_2 %1063
       %1085 = OpUConvert %ulong %1084
       %1086 = OpIAdd %ulong %1061 %1085
               OpSelectionMerge %1192 None
               OpSwitch %uint_0 %1175
       %1175 = OpLabel
               OpSelectionMerge %1181 None
               OpBranchConditional %1101 %1178 %1181
       %1178 = OpLabel
       %1197 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1086
       %1198 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1197 %int_0
       %1199 = OpLoad %uint %1198 Aligned 4
               OpBranch %1192
       %1181 = OpLabel
       %1183 = OpBitwiseAnd %ulong %1086 %ulong_18446744073709551612
       %1203 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1183
       %1204 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1203 %int_0
       %1205 = OpLoad %uint %1204 Aligned 4
       %1187 = OpBitwiseAnd %ulong %1086 %ulong_2
       %1188 = OpUConvert %uint %1187
       %1189 = OpIMul %uint %1188 %uint_8
       %1190 = OpShiftRightLogical %uint %1205 %1189
       %1191 = OpBitwiseAnd %uint %1190 %uint_65535
               OpBranch %1192
       %1192 = OpLabel
       %1285 = OpPhi %uint %1199 %1178 %1191 %1181
       %1271 = OpCompositeInsert %v3uint %1285 %1287 2
               OpBranch %1090
       %1090 = OpLabel
       %1288 = OpPhi %v3uint %1287 %1078 %1271 %1192
        %463 = OpIAdd %ulong %1046 %ulong_8
        %464 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %463
        %466 = OpCompositeExtract %uint %1288 0
        %467 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %464 %int_0
               OpStore %467 %466 Aligned 4
        %469 = OpIAdd %ulong %1046 %ulong_12
        %470 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %469
        %472 = OpCompositeExtract %uint %1288 1
        %473 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %470 %int_0
               OpStore %473 %472 Aligned 4
        %476 = OpIAdd %ulong %1046 %ulong_16
        %477 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %476
        %479 = OpCompositeExtract %uint %1288 2
        %480 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %477 %int_0
               OpStore %480 %479 Aligned 4
               OpBranch %446
        %446 = OpLabel
        %482 = OpINotEqual %bool %134 %uint_0
               OpSelectionMerge %484 None
               OpBranchConditional %482 %483 %484
        %483 = OpLabel
               OpBranch %622
        %484 = OpLabel
        %488 = OpAccessChain %_ptr_Workgroup_uint %304 %int_63
        %489 = OpLoad %uint %488
        %491 = OpIAdd %ulong %662 %ulong_8
        %492 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %491
        %494 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %492 %int_0
               OpStore %494 %1276 Aligned 4
        %496 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1046
        %498 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %496 %int_0
               OpStore %498 %489 Aligned 4
        %500 = OpIAdd %ulong %1046 %ulong_4
        %501 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %500
        %503 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %501 %int_0
               OpStore %503 %437 Aligned 4
        %508 = OpIAdd %ulong %148 %ulong_92
       %1209 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %508
       %1210 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1209 %int_0
       %1211 = OpLoad %uint %1210 Aligned 4
        %511 = OpExtInst %uint %1 UMin %489 %1211
        %514 = OpIEqual %bool %511 %uint_0
               OpSelectionMerge %517 None
               OpBranchConditional %514 %516 %518
        %516 = OpLabel
               OpBranch %517
        %518 = OpLabel
        %521 = OpIAdd %uint %489 %511
        %522 = OpISub %uint %521 %uint_1
        %524 = OpUDiv %uint %522 %511
               OpBranch %517
        %517 = OpLabel
       %1299 = OpPhi %uint %uint_0 %516 %524 %518
        %530 = OpIAdd %ulong %148 %ulong_96
       %1215 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %530
       %1216 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1215 %int_0
       %1217 = OpLoad %uint %1216 Aligned 4
        %533 = OpExtInst %uint %1 UMin %1299 %1217
        %536 = OpIEqual %bool %533 %uint_0
               OpSelectionMerge %539 None
               OpBranchConditional %536 %538 %540
        %538 = OpLabel
               OpBranch %539
        %540 = OpLabel
        %543 = OpIAdd %uint %1299 %533
        %544 = OpISub %uint %543 %uint_1
        %546 = OpUDiv %uint %544 %533
               OpBranch %539
        %539 = OpLabel
       %1300 = OpPhi %uint %uint_0 %538 %546 %540
        %550 = OpIAdd %ulong %148 %ulong_16
       %1221 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %550
       %1222 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1221 %int_0
       %1223 = OpLoad %ulong %1222 Aligned 8
        %554 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1223
        %556 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %554 %int_0
               OpStore %556 %511 Aligned 4
        %558 = OpIAdd %ulong %1223 %ulong_4
        %559 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %558
        %561 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %559 %int_0
               OpStore %561 %533 Aligned 4
        %563 = OpIAdd %ulong %1223 %ulong_8
        %564 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %563
        %566 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %564 %int_0
               OpStore %566 %1300 Aligned 4
        %570 = OpIAdd %ulong %148 %ulong_24
       %1227 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %570
       %1228 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1227 %int_0
       %1229 = OpLoad %ulong %1228 Aligned 8
        %576 = OpIAdd %ulong %148 %ulong_64
       %1233 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %576
       %1234 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1233 %int_0
       %1235 = OpLoad %uint %1234 Aligned 4
               OpBranch %580
        %580 = OpLabel
       %1301 = OpPhi %uint %uint_0 %539 %620 %581
        %587 = OpULessThan %bool %1301 %1235
               OpLoopMerge %582 %581 None
               OpBranchConditional %587 %581 %582
        %581 = OpLabel
        %591 = OpUConvert %ulong %1301
        %592 = OpIMul %ulong %591 %ulong_16
        %593 = OpIAdd %ulong %1229 %592
        %596 = OpUConvert %ulong %489
        %598 = OpIAdd %ulong %593 %ulong_8
       %1239 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %598
       %1240 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1239 %int_0
       %1241 = OpLoad %uint %1240 Aligned 4
        %601 = OpUConvert %ulong %1241
        %602 = OpIMul %ulong %596 %601
        %605 = OpIAdd %ulong %593 %ulong_12
       %1245 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %605
       %1246 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1245 %int_0
       %1247 = OpLoad %uint %1246 Aligned 4
        %608 = OpUConvert %ulong %1247
       %1251 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %593
       %1252 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1251 %int_0
       %1253 = OpLoad %ulong %1252 Aligned 8
        %612 = OpIAdd %ulong %1253 %ulong_16
        %613 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %612
        %616 = OpExtInst %ulong %1 UMin %602 %608
        %617 = OpUConvert %uint %616
        %618 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %613 %int_0
               OpStore %618 %617 Aligned 4
        %620 = OpIAdd %uint %1301 %int_1
               OpBranch %580
        %582 = OpLabel
               OpBranch %622
        %622 = OpLabel
               OpReturn
               OpFunctionEnd
"""
"""`SOURCE` compiled by glslc (`GLSLC_COMMAND`) and disassembled by SPIRV-Tools."""

GLSLC_COMMAND = ("glslc", "-fshader-stage=compute", "--target-env=vulkan1.3", "-O")
"""How `ASSEMBLY` was made from `SOURCE` (shaderc 2023.2, spirv-tools 2022.4)."""

MODULE_HEX = (
    "03022307000601000000070030020000000000001100020001000000110002000b00000011000200e31400000b000600"
    "01000000474c534c2e7374642e343530000000000e000300e4140000010000000f000a0005000000020000006d61696e"
    "0000000003000000040000000500000006000000070000004b0106000200000026000000080000000900000009000000"
    "480005000a000000000000002300000000000000470003000a00000002000000480005000b0000000000000023000000"
    "00000000470003000b0000000200000047000400030000000b0000001b000000480005000c0000000000000023000000"
    "00000000480005000c000000010000002300000008000000470003000c0000000200000047000400050000000b000000"
    "1a000000130002000d000000210003000e0000000d000000150004000f00000020000000000000002b0004000f000000"
    "08000000400000002b0004000f0000000900000001000000150004001000000040000000000000001700040011000000"
    "0f000000030000002700030012000000e51400001e0003000a0000000f0000002000040012000000e51400000a000000"
    "150004001300000020000000010000002b0004001300000014000000000000002000040015000000e51400000f000000"
    "2700030016000000e51400001e0003000b000000100000002000040016000000e51400000b0000002000040017000000"
    "e5140000100000002b0004000f000000180000002000000014000200190000002b000500100000001a000000fcffffff"
    "ffffffff2b000500100000001b00000002000000000000002b0004000f0000001c000000080000002b0004000f000000"
    "1d000000ffff00002b0004000f0000001e00000002000000200004001f00000001000000110000003b0004001f000000"
    "03000000010000002b0004000f00000020000000000000002000040021000000010000000f0000001e0004000c000000"
    "100000000f0000002000040022000000090000000c0000003b0004002200000004000000090000002000040023000000"
    "09000000100000003b0004001f00000005000000010000002b000500100000002400000068000000000000002b000500"
    "100000002500000000000000000000002b000500100000002600000038000000000000002b0005001000000027000000"
    "3c000000000000002b000500100000002800000008000000000000002b00050010000000290000000c00000000000000"
    "2b000500100000002a00000044000000000000002b000500100000002b00000048000000000000002b00050010000000"
    "2c0000004c000000000000002b000500100000002d00000050000000000000002b000500100000002e00000004000000"
    "00000000200004002f000000040000000f0000003b0004002f00000006000000040000002b0004000f00000030000000"
    "ffffffff2b0004000f0000003100000008010000170004003200000019000000030000002b0004001300000033000000"
    "010000001c000400340000000f00000008000000200004003500000004000000340000003b0004003500000007000000"
    "040000002b000500100000003600000020000000000000002b000500100000003700000028000000000000002b000500"
    "100000003800000030000000000000002b000500100000003900000010000000000000002b000400130000003a000000"
    "3f0000002b000500100000003b0000005c000000000000002b000500100000003c00000060000000000000002b000500"
    "100000003d00000018000000000000002b000500100000003e00000040000000000000002b000500100000003f000000"
    "54000000000000002b000500100000004000000058000000000000002b0004000f000000410000003f00000036000500"
    "0d00000002000000000000000e000000f800020042000000f70003004300000000000000fb0003002000000044000000"
    "f80002004400000041000500210000004500000003000000200000003d0004000f000000460000004500000041000500"
    "230000004700000004000000140000003d00040010000000480000004700000041000500210000004900000005000000"
    "200000003d0004000f0000004a0000004900000071000400100000004b0000004a00000084000500100000004c000000"
    "4b0000002400000080000500100000004d000000480000004c00000078000400160000004e0000004d00000041000500"
    "170000004f0000004e000000140000003d00060010000000500000004f00000002000000080000008000050010000000"
    "510000004d00000026000000780004001200000052000000510000004100050015000000530000005200000014000000"
    "3d0006000f00000054000000530000000200000004000000ab00050019000000550000005000000025000000f7000300"
    "5600000000000000fa000400550000005700000056000000f80002005700000078000400120000005800000050000000"
    "41000500150000005900000058000000140000003d0006000f0000005a00000059000000020000000400000080000500"
    "100000005b0000004d0000002700000078000400120000005c0000005b00000041000500150000005d0000005c000000"
    "140000003d0006000f0000005e0000005d00000002000000040000000c0007000f0000005f0000000100000026000000"
    "5a0000005e000000f900020056000000f800020056000000f50007000f0000006000000054000000440000005f000000"
    "570000008000050010000000610000004d00000028000000780004001600000062000000610000004100050017000000"
    "6300000062000000140000003d0006001000000064000000630000000200000008000000780004001600000065000000"
    "6400000041000500170000006600000065000000140000003d0006001000000067000000660000000200000008000000"
    "80000500100000006800000064000000290000007800040012000000690000006800000041000500150000006a000000"
    "69000000140000003d0006000f0000006b0000006a000000020000000400000071000400100000006c0000006b000000"
    "80000500100000006d0000004d0000002a00000078000400120000006e0000006d00000041000500150000006f000000"
    "6e000000140000003d0006000f000000700000006f00000002000000040000008000050010000000710000004d000000"
    "2b0000007800040012000000720000007100000041000500150000007300000072000000140000003d0006000f000000"
    "740000007300000002000000040000008000050010000000750000004d0000002c000000780004001200000076000000"
    "7500000041000500150000007700000076000000140000003d0006000f00000078000000770000000200000004000000"
    "8000050010000000790000004d0000002d00000078000400120000007a0000007900000041000500150000007b000000"
    "7a000000140000003d0006000f0000007c0000007b000000020000000400000080000500100000007d0000004d000000"
    "3f00000078000400120000007e0000007d00000041000500150000007f0000007e000000140000003d0006000f000000"
    "800000007f00000002000000040000008000050010000000810000004d00000040000000780004001200000082000000"
    "8100000041000500150000008300000082000000140000003d0006000f00000084000000830000000200000004000000"
    "5000060011000000850000007c0000008000000084000000aa00050019000000860000004600000020000000f7000300"
    "8700000000000000fa000400860000008800000087000000f8000200880000003e0003000600000030000000f9000200"
    "87000000f800020087000000e00004001e0000001e00000031000000800005000f000000890000006000000041000000"
    "860005000f0000008a0000008900000008000000840005000f0000008b000000460000008a0000000c0007000f000000"
    "8c00000001000000260000008b00000060000000800005000f0000008d0000008c0000008a0000000c0007000f000000"
    "8e00000001000000260000008d00000060000000f90002008f000000f80002008f000000f50007000f00000090000000"
    "20000000870000009100000092000000f50007000f000000930000008c000000870000009400000092000000b0000500"
    "1900000095000000930000008e000000f6000400960000009200000000000000fa000400950000009700000096000000"
    "f80002009700000071000400100000009800000093000000840005001000000099000000980000006c00000080000500"
    "100000009a000000670000009900000071000400100000009b0000007000000080000500100000009c0000009a000000"
    "9b000000860005000f0000009d000000740000001c000000f70003009e00000000000000fb000300200000009f000000"
    "f80002009f000000aa00050019000000a00000007400000018000000f7000300a100000000000000fa000400a0000000"
    "a2000000a1000000f8000200a20000007800040012000000a30000009c0000004100050015000000a4000000a3000000"
    "140000003d0006000f000000a5000000a40000000200000004000000f90002009e000000f8000200a1000000c7000500"
    "10000000a60000009c0000001a0000007800040012000000a7000000a60000004100050015000000a8000000a7000000"
    "140000003d0006000f000000a9000000a80000000200000004000000c700050010000000aa0000009c0000001b000000"
    "710004000f000000ab000000aa000000840005000f000000ac000000ab0000001c000000c20005000f000000ad000000"
    "a9000000ac000000c70005000f000000ae000000ad0000001d000000f90002009e000000f80002009e000000f5000700"
    "0f000000af000000a5000000a2000000ae000000a10000005000060011000000b0000000af0000000900000009000000"
    "ac00050019000000b10000007800000009000000f7000300b200000000000000fa000400b1000000b3000000b2000000"
    "f8000200b30000007100040010000000b40000009d0000008000050010000000b50000009c000000b4000000f7000300"
    "b600000000000000fb00030020000000b7000000f8000200b7000000f7000300b800000000000000fa000400a0000000"
    "b9000000b8000000f8000200b90000007800040012000000ba000000b50000004100050015000000bb000000ba000000"
    "140000003d0006000f000000bc000000bb0000000200000004000000f9000200b6000000f8000200b8000000c7000500"
    "10000000bd000000b50000001a0000007800040012000000be000000bd0000004100050015000000bf000000be000000"
    "140000003d0006000f000000c0000000bf0000000200000004000000c700050010000000c1000000b50000001b000000"
    "710004000f000000c2000000c1000000840005000f000000c3000000c20000001c000000c20005000f000000c4000000"
    "c0000000c3000000c70005000f000000c5000000c40000001d000000f9000200b6000000f8000200b6000000f5000700"
    "0f000000c6000000bc000000b9000000c5000000b80000005200060011000000c7000000c6000000b000000001000000"
    "f9000200b2000000f8000200b2000000f500070011000000c8000000b00000009e000000c7000000b6000000ac000500"
    "19000000c9000000780000001e000000f7000300ca00000000000000fa000400c9000000cb000000ca000000f8000200"
    "cb000000840005000f000000cc0000001e0000009d0000007100040010000000cd000000cc0000008000050010000000"
    "ce0000009c000000cd000000f7000300cf00000000000000fb00030020000000d0000000f8000200d0000000f7000300"
    "d100000000000000fa000400a0000000d2000000d1000000f8000200d20000007800040012000000d3000000ce000000"
    "4100050015000000d4000000d3000000140000003d0006000f000000d5000000d40000000200000004000000f9000200"
    "cf000000f8000200d1000000c700050010000000d6000000ce0000001a0000007800040012000000d7000000d6000000"
    "4100050015000000d8000000d7000000140000003d0006000f000000d9000000d80000000200000004000000c7000500"
    "10000000da000000ce0000001b000000710004000f000000db000000da000000840005000f000000dc000000db000000"
    "1c000000c20005000f000000dd000000d9000000dc000000c70005000f000000de000000dd0000001d000000f9000200"
    "cf000000f8000200cf000000f50007000f000000df000000d5000000d2000000de000000d10000005200060011000000"
    "e0000000df000000c800000002000000f9000200ca000000f8000200ca000000f500070011000000e1000000c8000000"
    "b2000000e0000000cf000000ac00050032000000e2000000e1000000850000009a00040019000000e3000000e2000000"
    "f7000300e400000000000000fa000400e3000000e5000000e6000000f8000200e5000000ed0007000f000000e7000000"
    "06000000090000002000000093000000f9000200e4000000f8000200e6000000510005000f000000e8000000e1000000"
    "00000000510005000f000000e9000000e100000001000000840005000f000000ea000000e8000000e900000051000500"
    "0f000000eb000000e100000002000000840005000f000000ec000000ea000000eb000000800005000f000000ed000000"
    "90000000ec000000f9000200e4000000f8000200e4000000f50007000f0000009100000090000000e5000000ed000000"
    "e6000000f900020092000000f800020092000000800005000f000000940000009300000033000000f90002008f000000"
    "f800020096000000410005002f000000ee00000007000000460000003e000300ee00000090000000e00004001e000000"
    "1e00000031000000f9000200ef000000f8000200ef000000f50007000f000000f00000000900000096000000f1000000"
    "f2000000b000050019000000f3000000f000000008000000f6000400f4000000f200000000000000fa000400f3000000"
    "f5000000f4000000f8000200f5000000ae00050019000000f600000046000000f0000000f7000300f700000000000000"
    "fa000400f6000000f8000000f9000000f8000200f8000000820005000f000000fa00000046000000f000000041000500"
    "2f000000fb00000007000000fa0000003d0004000f000000fc000000fb000000f9000200f7000000f8000200f9000000"
    "f9000200f7000000f8000200f7000000f50007000f000000fd000000fc000000f800000020000000f9000000e0000400"
    "1e0000001e000000310000003d0004000f000000fe000000ee000000800005000f000000ff000000fe000000fd000000"
    "3e000300ee000000ff000000e00004001e0000001e00000031000000f9000200f2000000f8000200f2000000c4000500"
    "0f000000f1000000f000000009000000f9000200ef000000f8000200f4000000ac000500190000000001000046000000"
    "20000000f70003000101000000000000fa000400000100000201000003010000f800020002010000820005000f000000"
    "040100004600000009000000410005002f0000000501000007000000040100003d0004000f0000000601000005010000"
    "f900020001010000f800020003010000f900020001010000f800020001010000f50007000f0000000701000006010000"
    "0201000020000000030100008000050010000000080100004d0000003600000078000400160000000901000008010000"
    "41000500170000000a01000009010000140000003d000600100000000b0100000a010000020000000800000080000500"
    "100000000c0100004d0000003700000078000400160000000d0100000c01000041000500170000000e0100000d010000"
    "140000003d000600100000000f0100000e0100000200000008000000f900020010010000f800020010010000f5000700"
    "0f0000001101000007010000010100001201000013010000f50007000f000000140100008c0000000101000015010000"
    "13010000b00005001900000016010000140100008e000000f6000400170100001301000000000000fa00040016010000"
    "1801000017010000f8000200180100007100040010000000190100001401000084000500100000001a01000019010000"
    "6c00000080000500100000001b010000670000001a01000071000400100000001c010000700000008000050010000000"
    "1d0100001b0100001c010000860005000f0000001e010000740000001c000000f70003001f01000000000000fb000300"
    "2000000020010000f800020020010000aa00050019000000210100007400000018000000f70003002201000000000000"
    "fa000400210100002301000022010000f8000200230100007800040012000000240100001d0100004100050015000000"
    "2501000024010000140000003d0006000f00000026010000250100000200000004000000f90002001f010000f8000200"
    "22010000c700050010000000270100001d0100001a000000780004001200000028010000270100004100050015000000"
    "2901000028010000140000003d0006000f0000002a010000290100000200000004000000c7000500100000002b010000"
    "1d0100001b000000710004000f0000002c0100002b010000840005000f0000002d0100002c0100001c000000c2000500"
    "0f0000002e0100002a0100002d010000c70005000f0000002f0100002e0100001d000000f90002001f010000f8000200"
    "1f010000f50007000f0000003001000026010000230100002f0100002201000050000600110000003101000030010000"
    "0900000009000000ac00050019000000320100007800000009000000f70003003301000000000000fa00040032010000"
    "3401000033010000f8000200340100007100040010000000350100001e0100008000050010000000360100001d010000"
    "35010000f70003003701000000000000fb0003002000000038010000f800020038010000f70003003901000000000000"
    "fa000400210100003a01000039010000f80002003a01000078000400120000003b010000360100004100050015000000"
    "3c0100003b010000140000003d0006000f0000003d0100003c0100000200000004000000f900020037010000f8000200"
    "39010000c7000500100000003e010000360100001a00000078000400120000003f0100003e0100004100050015000000"
    "400100003f010000140000003d0006000f00000041010000400100000200000004000000c70005001000000042010000"
    "360100001b000000710004000f0000004301000042010000840005000f00000044010000430100001c000000c2000500"
    "0f000000450100004101000044010000c70005000f00000046010000450100001d000000f900020037010000f8000200"
    "37010000f50007000f000000470100003d0100003a010000460100003901000052000600110000004801000047010000"
    "3101000001000000f900020033010000f800020033010000f50007001100000049010000310100001f01000048010000"
    "37010000ac000500190000004a010000780000001e000000f70003004b01000000000000fa0004004a0100004c010000"
    "4b010000f80002004c010000840005000f0000004d0100001e0000001e01000071000400100000004e0100004d010000"
    "80000500100000004f0100001d0100004e010000f70003005001000000000000fb0003002000000051010000f8000200"
    "51010000f70003005201000000000000fa000400210100005301000052010000f8000200530100007800040012000000"
    "540100004f01000041000500150000005501000054010000140000003d0006000f000000560100005501000002000000"
    "04000000f900020050010000f800020052010000c700050010000000570100004f0100001a0000007800040012000000"
    "580100005701000041000500150000005901000058010000140000003d0006000f0000005a0100005901000002000000"
    "04000000c7000500100000005b0100004f0100001b000000710004000f0000005c0100005b010000840005000f000000"
    "5d0100005c0100001c000000c20005000f0000005e0100005a0100005d010000c70005000f0000005f0100005e010000"
    "1d000000f900020050010000f800020050010000f50007000f0000006001000056010000530100005f01000052010000"
    "520006001100000061010000600100004901000002000000f90002004b010000f80002004b010000f500070011000000"
    "6201000049010000330100006101000050010000ac000500320000006301000062010000850000009a00040019000000"
    "6401000063010000f70003006501000000000000fa000400640100006601000067010000f800020066010000f9000200"
    "65010000f800020067010000510005000f000000680100006201000000000000510005000f0000006901000062010000"
    "01000000840005000f0000006a0100006801000069010000510005000f0000006b010000620100000200000084000500"
    "0f0000006c0100006a0100006b010000f900020065010000f800020065010000f50007000f0000006d01000020000000"
    "660100006c01000067010000800005000f00000012010000110100006d01000084000500100000006e0100002e000000"
    "1901000080000500100000006f0100000b0100006e0100007800040012000000700100006f0100004100050015000000"
    "7101000070010000140000003e00050071010000120100000200000004000000ab00050019000000720100000f010000"
    "25000000f70003007301000000000000fa000400720100007401000073010000f8000200740100008000050010000000"
    "750100000f0100006e010000780004001200000076010000750100004100050015000000770100007601000014000000"
    "3e000500770100006d0100000200000004000000f900020073010000f800020073010000f900020013010000f8000200"
    "13010000800005000f000000150100001401000033000000f900020010010000f8000200170100008000050010000000"
    "780100004d000000380000007800040016000000790100007801000041000500170000007a0100007901000014000000"
    "3d000600100000007b0100007a01000002000000080000003d0004000f0000007c01000006000000ae00050019000000"
    "7d0100007c0100008c000000b0000500190000007e0100007c0100008e000000a7000500190000007f0100007d010000"
    "7e010000f70003008001000000000000fa0004007f0100008101000080010000f8000200810100007100040010000000"
    "820100007c010000840005001000000083010000820100006c0000008000050010000000840100006700000083010000"
    "710004001000000085010000700000008000050010000000860100008401000085010000860005000f00000087010000"
    "740000001c000000f70003008801000000000000fb0003002000000089010000f800020089010000aa00050019000000"
    "8a0100007400000018000000f70003008b01000000000000fa0004008a0100008c0100008b010000f80002008c010000"
    "78000400120000008d0100008601000041000500150000008e0100008d010000140000003d0006000f0000008f010000"
    "8e0100000200000004000000f900020088010000f80002008b010000c70005001000000090010000860100001a000000"
    "7800040012000000910100009001000041000500150000009201000091010000140000003d0006000f00000093010000"
    "920100000200000004000000c70005001000000094010000860100001b000000710004000f0000009501000094010000"
    "840005000f00000096010000950100001c000000c20005000f000000970100009301000096010000c70005000f000000"
    "98010000970100001d000000f900020088010000f800020088010000f50007000f000000990100008f0100008c010000"
    "980100008b01000050000600110000009a010000990100000900000009000000ac000500190000009b01000078000000"
    "09000000f70003009c01000000000000fa0004009b0100009d0100009c010000f80002009d0100007100040010000000"
    "9e0100008701000080000500100000009f010000860100009e010000f7000300a001000000000000fb00030020000000"
    "a1010000f8000200a1010000f7000300a201000000000000fa0004008a010000a3010000a2010000f8000200a3010000"
    "7800040012000000a40100009f0100004100050015000000a5010000a4010000140000003d0006000f000000a6010000"
    "a50100000200000004000000f9000200a0010000f8000200a2010000c700050010000000a70100009f0100001a000000"
    "7800040012000000a8010000a70100004100050015000000a9010000a8010000140000003d0006000f000000aa010000"
    "a90100000200000004000000c700050010000000ab0100009f0100001b000000710004000f000000ac010000ab010000"
    "840005000f000000ad010000ac0100001c000000c20005000f000000ae010000aa010000ad010000c70005000f000000"
    "af010000ae0100001d000000f9000200a0010000f8000200a0010000f50007000f000000b0010000a6010000a3010000"
    "af010000a20100005200060011000000b1010000b00100009a01000001000000f90002009c010000f80002009c010000"
    "f500070011000000b20100009a01000088010000b1010000a0010000ac00050019000000b3010000780000001e000000"
    "f7000300b401000000000000fa000400b3010000b5010000b4010000f8000200b5010000840005000f000000b6010000"
    "1e000000870100007100040010000000b7010000b60100008000050010000000b801000086010000b7010000f7000300"
    "b901000000000000fb00030020000000ba010000f8000200ba010000f7000300bb01000000000000fa0004008a010000"
    "bc010000bb010000f8000200bc0100007800040012000000bd010000b80100004100050015000000be010000bd010000"
    "140000003d0006000f000000bf010000be0100000200000004000000f9000200b9010000f8000200bb010000c7000500"
    "10000000c0010000b80100001a0000007800040012000000c1010000c00100004100050015000000c2010000c1010000"
    "140000003d0006000f000000c3010000c20100000200000004000000c700050010000000c4010000b80100001b000000"
    "710004000f000000c5010000c4010000840005000f000000c6010000c50100001c000000c20005000f000000c7010000"
    "c3010000c6010000c70005000f000000c8010000c70100001d000000f9000200b9010000f8000200b9010000f5000700"
    "0f000000c9010000bf010000bc010000c8010000bb0100005200060011000000ca010000c9010000b201000002000000"
    "f9000200b4010000f8000200b4010000f500070011000000cb010000b20100009c010000ca010000b901000080000500"
    "10000000cc0100007b010000280000007800040012000000cd010000cc010000510005000f000000ce010000cb010000"
    "000000004100050015000000cf010000cd010000140000003e000500cf010000ce010000020000000400000080000500"
    "10000000d00100007b010000290000007800040012000000d1010000d0010000510005000f000000d2010000cb010000"
    "010000004100050015000000d3010000d1010000140000003e000500d3010000d2010000020000000400000080000500"
    "10000000d40100007b010000390000007800040012000000d5010000d4010000510005000f000000d6010000cb010000"
    "020000004100050015000000d7010000d5010000140000003e000500d7010000d60100000200000004000000f9000200"
    "80010000f800020080010000ab00050019000000d80100004600000020000000f7000300d901000000000000fa000400"
    "d8010000da010000d9010000f8000200da010000f900020043000000f8000200d9010000410005002f000000db010000"
    "070000003a0000003d0004000f000000dc010000db0100008000050010000000dd010000640000002800000078000400"
    "12000000de010000dd0100004100050015000000df010000de010000140000003e000500df0100006000000002000000"
    "040000007800040012000000e00100007b0100004100050015000000e1010000e0010000140000003e000500e1010000"
    "dc01000002000000040000008000050010000000e20100007b0100002e0000007800040012000000e3010000e2010000"
    "4100050015000000e4010000e3010000140000003e000500e40100007c01000002000000040000008000050010000000"
    "e50100004d0000003b0000007800040012000000e6010000e50100004100050015000000e7010000e601000014000000"
    "3d0006000f000000e8010000e701000002000000040000000c0007000f000000e90100000100000026000000dc010000"
    "e8010000aa00050019000000ea010000e901000020000000f7000300eb01000000000000fa000400ea010000ec010000"
    "ed010000f8000200ec010000f9000200eb010000f8000200ed010000800005000f000000ee010000dc010000e9010000"
    "820005000f000000ef010000ee01000009000000860005000f000000f0010000ef010000e9010000f9000200eb010000"
    "f8000200eb010000f50007000f000000f101000020000000ec010000f0010000ed0100008000050010000000f2010000"
    "4d0000003c0000007800040012000000f3010000f20100004100050015000000f4010000f3010000140000003d000600"
    "0f000000f5010000f401000002000000040000000c0007000f000000f60100000100000026000000f1010000f5010000"
    "aa00050019000000f7010000f601000020000000f7000300f801000000000000fa000400f7010000f9010000fa010000"
    "f8000200f9010000f9000200f8010000f8000200fa010000800005000f000000fb010000f1010000f601000082000500"
    "0f000000fc010000fb01000009000000860005000f000000fd010000fc010000f6010000f9000200f8010000f8000200"
    "f8010000f50007000f000000fe01000020000000f9010000fd010000fa0100008000050010000000ff0100004d000000"
    "39000000780004001600000000020000ff01000041000500170000000102000000020000140000003d00060010000000"
    "020200000102000002000000080000007800040012000000030200000202000041000500150000000402000003020000"
    "140000003e00050004020000e90100000200000004000000800005001000000005020000020200002e00000078000400"
    "12000000060200000502000041000500150000000702000006020000140000003e00050007020000f601000002000000"
    "040000008000050010000000080200000202000028000000780004001200000009020000080200004100050015000000"
    "0a02000009020000140000003e0005000a020000fe010000020000000400000080000500100000000b0200004d000000"
    "3d00000078000400160000000c0200000b02000041000500170000000d0200000c020000140000003d00060010000000"
    "0e0200000d020000020000000800000080000500100000000f0200004d0000003e000000780004001200000010020000"
    "0f02000041000500150000001102000010020000140000003d0006000f00000012020000110200000200000004000000"
    "f900020013020000f800020013020000f50007000f0000001402000020000000f80100001502000016020000b0000500"
    "19000000170200001402000012020000f6000400180200001602000000000000fa000400170200001602000018020000"
    "f8000200160200007100040010000000190200001402000084000500100000001a020000190200003900000080000500"
    "100000001b0200000e0200001a02000071000400100000001c020000dc01000080000500100000001d0200001b020000"
    "2800000078000400120000001e0200001d02000041000500150000001f0200001e020000140000003d0006000f000000"
    "200200001f0200000200000004000000710004001000000021020000200200008400050010000000220200001c020000"
    "210200008000050010000000230200001b02000029000000780004001200000024020000230200004100050015000000"
    "2502000024020000140000003d0006000f00000026020000250200000200000004000000710004001000000027020000"
    "260200007800040016000000280200001b02000041000500170000002902000028020000140000003d00060010000000"
    "2a02000029020000020000000800000080000500100000002b0200002a0200003900000078000400120000002c020000"
    "2b0200000c000700100000002d02000001000000260000002202000027020000710004000f0000002e0200002d020000"
    "41000500150000002f0200002c020000140000003e0005002f0200002e0200000200000004000000800005000f000000"
    "150200001402000033000000f900020013020000f800020018020000f900020043000000f800020043000000fd000100"
    "38000100"
)
"""`ASSEMBLY` assembled (SPIRV-Tools, target vulkan1.3), as hex of its little-endian words."""


def module() -> bytes:
    return bytes.fromhex(MODULE_HEX)
