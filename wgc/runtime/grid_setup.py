"""Runtime: the grid-scan meta shader of the GPU-driven schedule (record-given grids, `gpu_schedule`).

Input: nothing (the shader is fixed).  Output: `module()`, the SPIR-V words of a compute shader
`main` run beside `indirect_setup`'s in a level's setup pass: one workgroup of `GROUP_SIZE`
invocations per launch of a broadcasting (or mesh) node whose grid comes from its record
(`SV_DispatchGrid`).  A workgroup reads the launch's record count (the producer's counter clamped
to its arena, or the count the host gave), writes it into the NodeContext's `input_count`, reads
every record's grid (16- or 32-bit components; missing ones are 1), and writes the inclusive prefix
sums of their group counts at `prefix` (the NodeContext's `grid_prefix`, which the node's prologue
searches: `wgc.emulation_abi`, "grid from the record"), the record of each group at `table` where
the launch has one (NodeContext `grid_records`), each record's group count at `shared`
where the node shares its input across groups (its FinishedCrossGroupSharing counters), the total
among the words the host reads back (with the first record, by index, whose grid is beyond
[NodeMaxDispatchGrid]: it counts 0 groups, and the host raises `GridBeyondMax`), the launch's
`VkDispatchIndirectCommand` (the total split over x, y and z within `max_x`, `max_y`, `max_z`)
and the capacity of each output slot (`min(total * per_unit, reserved)`, as `indirect_setup`).

How: each invocation sums the grids of a contiguous run of ceil(count / GROUP_SIZE) records, the
runs' sums are scanned in workgroup memory (log2(GROUP_SIZE) steps), and each invocation writes its
run's prefix sums and its records' entries of the group table.  A 16-bit component is read from the 4-byte-aligned word holding it (no 16-bit
storage capability: the device may not have it enabled); record buffers are whole words long.

Invariants: `SOURCE` (GLSL, the offsets filled in from `GRID_LAUNCH`, `indirect_setup.FIX` and
`emulation_abi`) is what the module was compiled from with glslc, `ASSEMBLY` its disassembly and
`MODULE_HEX` that assembled (tests/test_runtime_grid_launch.py keeps the three equal), so the
runtime needs no compiler; the table layout below is the one the shader reads.

Launch table entry (`GRID_LAUNCH_SIZE` bytes, little-endian): source (u64, the producer's u32
counter, 0 when `count` is the count); context (u64, the NodeContext); indirect (u64, 3 u32 dispatch
arguments); fixes (u64, `fix_count` `indirect_setup.FIX` entries); prefix (u64, room for as many u32
as the input may hold records); shared (u64, the same room, or 0); table (u64, a u32 per group the
launch may have, or 0); result (u64, `RESULT_WORDS` u32:
total groups, the first record beyond the max grid or 0xFFFFFFFF, that record's grid x, y, z);
count, source_capacity, fix_count, grid_at (byte offset of SV_DispatchGrid in the record),
grid_bits (16 or 32), grid_components, max_grid (3), max_x, max_y, max_z (u32); table (u64, at the
end).
Push constants: the table's address (u64) and its number of entries (u32).
"""

from __future__ import annotations

from wgc import emulation_abi as abi
from wgc.runtime import indirect_setup as meta

GRID_LAUNCH = abi.LEVEL_GRID_LAUNCH
"""The emulation ABI's grid launch entry: the level tail (ABI 8) reads the same table."""
GRID_LAUNCH_SIZE = abi.LEVEL_GRID_LAUNCH_SIZE
RESULT_WORDS = abi.LEVEL_GRID_RESULT_WORDS
NO_RECORD = abi.LEVEL_NO_RECORD
GROUP_SIZE = 256
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
    uint64_t table = dword(e + {table}ul);
    for (uint r = begin; r < end; r++) {{
        uvec3 g = grid(records + uint64_t(r) * stride, at, bits, dims);
        uint n = any(greaterThan(g, most)) ? 0u : g.x * g.y * g.z;
        if (table != 0ul)
            for (uint k = 0u; k < n; k++) Word(table + 4ul * uint64_t(running + k)).v = r;
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
; Bound: 1408
; Schema: 0
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel PhysicalStorageBuffer64 GLSL450
               OpEntryPoint GLCompute %4 "main" %gl_LocalInvocationID %138 %gl_WorkGroupID %233 %304
               OpExecutionModeId %4 LocalSizeId %uint_256 %uint_1 %uint_1
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
   %uint_256 = OpConstant %uint 256
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
  %ulong_112 = OpConstant %ulong 112
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
%_arr_uint_uint_256 = OpTypeArray %uint %uint_256
%_ptr_Workgroup__arr_uint_uint_256 = OpTypePointer Workgroup %_arr_uint_uint_256
        %304 = OpVariable %_ptr_Workgroup__arr_uint_uint_256 Workgroup
   %ulong_32 = OpConstant %ulong 32
   %ulong_40 = OpConstant %ulong 40
  %ulong_104 = OpConstant %ulong 104
   %ulong_48 = OpConstant %ulong 48
   %ulong_16 = OpConstant %ulong 16
    %int_255 = OpConstant %int 255
   %ulong_92 = OpConstant %ulong 92
   %ulong_96 = OpConstant %ulong 96
   %ulong_24 = OpConstant %ulong 24
   %ulong_64 = OpConstant %ulong 64
   %ulong_84 = OpConstant %ulong 84
   %ulong_88 = OpConstant %ulong 88
   %uint_255 = OpConstant %uint 255
          %4 = OpFunction %void None %3
          %5 = OpLabel
               OpSelectionMerge %653 None
               OpSwitch %uint_0 %654
        %654 = OpLabel
        %133 = OpAccessChain %_ptr_Input_uint %gl_LocalInvocationID %uint_0
        %134 = OpLoad %uint %133
        %140 = OpAccessChain %_ptr_PushConstant_ulong %138 %int_0
        %141 = OpLoad %ulong %140
        %143 = OpAccessChain %_ptr_Input_uint %gl_WorkGroupID %uint_0
        %144 = OpLoad %uint %143
        %145 = OpUConvert %ulong %144
        %147 = OpIMul %ulong %145 %ulong_112
        %148 = OpIAdd %ulong %141 %147
        %667 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %148
        %668 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %667 %int_0
        %669 = OpLoad %ulong %668 Aligned 8
        %158 = OpIAdd %ulong %148 %ulong_56
        %673 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %158
        %674 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %673 %int_0
        %675 = OpLoad %uint %674 Aligned 4
        %162 = OpINotEqual %bool %669 %ulong_0
               OpSelectionMerge %164 None
               OpBranchConditional %162 %163 %164
        %163 = OpLabel
        %679 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %669
        %680 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %679 %int_0
        %681 = OpLoad %uint %680 Aligned 4
        %170 = OpIAdd %ulong %148 %ulong_60
        %685 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %170
        %686 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %685 %int_0
        %687 = OpLoad %uint %686 Aligned 4
        %173 = OpExtInst %uint %1 UMin %681 %687
               OpBranch %164
        %164 = OpLabel
       %1313 = OpPhi %uint %675 %654 %173 %163
        %177 = OpIAdd %ulong %148 %ulong_8
        %691 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %177
        %692 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %691 %int_0
        %693 = OpLoad %ulong %692 Aligned 8
        %697 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %693
        %698 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %697 %int_0
        %699 = OpLoad %ulong %698 Aligned 8
        %188 = OpIAdd %ulong %693 %ulong_12
        %703 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %188
        %704 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %703 %int_0
        %705 = OpLoad %uint %704 Aligned 4
        %191 = OpUConvert %ulong %705
        %195 = OpIAdd %ulong %148 %ulong_68
        %709 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %195
        %710 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %709 %int_0
        %711 = OpLoad %uint %710 Aligned 4
        %201 = OpIAdd %ulong %148 %ulong_72
        %715 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %201
        %716 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %715 %int_0
        %717 = OpLoad %uint %716 Aligned 4
        %207 = OpIAdd %ulong %148 %ulong_76
        %721 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %207
        %722 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %721 %int_0
        %723 = OpLoad %uint %722 Aligned 4
        %213 = OpIAdd %ulong %148 %ulong_80
        %727 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %213
        %728 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %727 %int_0
        %729 = OpLoad %uint %728 Aligned 4
        %219 = OpIAdd %ulong %148 %ulong_84
        %733 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %219
        %734 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %733 %int_0
        %735 = OpLoad %uint %734 Aligned 4
        %224 = OpIAdd %ulong %148 %ulong_88
        %739 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %224
        %740 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %739 %int_0
        %741 = OpLoad %uint %740 Aligned 4
        %227 = OpCompositeConstruct %v3uint %729 %735 %741
        %229 = OpIEqual %bool %134 %uint_0
               OpSelectionMerge %231 None
               OpBranchConditional %229 %230 %231
        %230 = OpLabel
               OpStore %233 %uint_4294967295
               OpBranch %231
        %231 = OpLabel
               OpControlBarrier %uint_2 %uint_2 %uint_264
        %239 = OpIAdd %uint %1313 %uint_255
        %240 = OpUDiv %uint %239 %uint_256
        %244 = OpIMul %uint %134 %240
        %246 = OpExtInst %uint %1 UMin %244 %1313
        %250 = OpIAdd %uint %246 %240
        %252 = OpExtInst %uint %1 UMin %250 %1313
               OpBranch %256
        %256 = OpLabel
       %1315 = OpPhi %uint %uint_0 %231 %1386 %259
       %1314 = OpPhi %uint %246 %231 %301 %259
        %263 = OpULessThan %bool %1314 %252
               OpLoopMerge %258 %259 None
               OpBranchConditional %263 %257 %258
        %257 = OpLabel
        %267 = OpUConvert %ulong %1314
        %269 = OpIMul %ulong %267 %191
        %270 = OpIAdd %ulong %699 %269
        %755 = OpUConvert %ulong %711
        %756 = OpIAdd %ulong %270 %755
        %758 = OpUDiv %uint %717 %uint_8
               OpSelectionMerge %811 None
               OpSwitch %uint_0 %794
        %794 = OpLabel
        %796 = OpIEqual %bool %717 %uint_32
               OpSelectionMerge %800 None
               OpBranchConditional %796 %797 %800
        %797 = OpLabel
        %816 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %756
        %817 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %816 %int_0
        %818 = OpLoad %uint %817 Aligned 4
               OpBranch %811
        %800 = OpLabel
        %802 = OpBitwiseAnd %ulong %756 %ulong_18446744073709551612
        %822 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %802
        %823 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %822 %int_0
        %824 = OpLoad %uint %823 Aligned 4
        %806 = OpBitwiseAnd %ulong %756 %ulong_2
        %807 = OpUConvert %uint %806
        %808 = OpIMul %uint %807 %uint_8
        %809 = OpShiftRightLogical %uint %824 %808
        %810 = OpBitwiseAnd %uint %809 %uint_65535
               OpBranch %811
        %811 = OpLabel
       %1368 = OpPhi %uint %818 %797 %810 %800
        %762 = OpCompositeConstruct %v3uint %1368 %uint_1 %uint_1
        %764 = OpUGreaterThan %bool %723 %uint_1
               OpSelectionMerge %773 None
               OpBranchConditional %764 %765 %773
        %765 = OpLabel
        %768 = OpUConvert %ulong %758
        %769 = OpIAdd %ulong %756 %768
               OpSelectionMerge %849 None
               OpSwitch %uint_0 %832
        %832 = OpLabel
               OpSelectionMerge %838 None
               OpBranchConditional %796 %835 %838
        %835 = OpLabel
        %854 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %769
        %855 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %854 %int_0
        %856 = OpLoad %uint %855 Aligned 4
               OpBranch %849
        %838 = OpLabel
        %840 = OpBitwiseAnd %ulong %769 %ulong_18446744073709551612
        %860 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %840
        %861 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %860 %int_0
        %862 = OpLoad %uint %861 Aligned 4
        %844 = OpBitwiseAnd %ulong %769 %ulong_2
        %845 = OpUConvert %uint %844
        %846 = OpIMul %uint %845 %uint_8
        %847 = OpShiftRightLogical %uint %862 %846
        %848 = OpBitwiseAnd %uint %847 %uint_65535
               OpBranch %849
        %849 = OpLabel
       %1369 = OpPhi %uint %856 %835 %848 %838
       %1292 = OpCompositeInsert %v3uint %1369 %762 1
               OpBranch %773
        %773 = OpLabel
       %1373 = OpPhi %v3uint %762 %811 %1292 %849
        %775 = OpUGreaterThan %bool %723 %uint_2
               OpSelectionMerge %785 None
               OpBranchConditional %775 %776 %785
        %776 = OpLabel
        %779 = OpIMul %uint %uint_2 %758
        %780 = OpUConvert %ulong %779
        %781 = OpIAdd %ulong %756 %780
               OpSelectionMerge %887 None
               OpSwitch %uint_0 %870
        %870 = OpLabel
               OpSelectionMerge %876 None
               OpBranchConditional %796 %873 %876
        %873 = OpLabel
        %892 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %781
        %893 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %892 %int_0
        %894 = OpLoad %uint %893 Aligned 4
               OpBranch %887
        %876 = OpLabel
        %878 = OpBitwiseAnd %ulong %781 %ulong_18446744073709551612
        %898 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %878
        %899 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %898 %int_0
        %900 = OpLoad %uint %899 Aligned 4
        %882 = OpBitwiseAnd %ulong %781 %ulong_2
        %883 = OpUConvert %uint %882
        %884 = OpIMul %uint %883 %uint_8
        %885 = OpShiftRightLogical %uint %900 %884
        %886 = OpBitwiseAnd %uint %885 %uint_65535
               OpBranch %887
        %887 = OpLabel
       %1371 = OpPhi %uint %894 %873 %886 %876
       %1294 = OpCompositeInsert %v3uint %1371 %1373 2
               OpBranch %785
        %785 = OpLabel
       %1374 = OpPhi %v3uint %1373 %773 %1294 %887
        %282 = OpUGreaterThan %v3bool %1374 %227
        %283 = OpAny %bool %282
               OpSelectionMerge %285 None
               OpBranchConditional %283 %284 %288
        %284 = OpLabel
        %287 = OpAtomicUMin %uint %233 %uint_1 %uint_0 %1314
               OpBranch %285
        %288 = OpLabel
        %290 = OpCompositeExtract %uint %1374 0
        %292 = OpCompositeExtract %uint %1374 1
        %293 = OpIMul %uint %290 %292
        %295 = OpCompositeExtract %uint %1374 2
        %296 = OpIMul %uint %293 %295
        %298 = OpIAdd %uint %1315 %296
               OpBranch %285
        %285 = OpLabel
       %1386 = OpPhi %uint %1315 %284 %298 %288
               OpBranch %259
        %259 = OpLabel
        %301 = OpIAdd %uint %1314 %int_1
               OpBranch %256
        %258 = OpLabel
        %307 = OpAccessChain %_ptr_Workgroup_uint %304 %134
               OpStore %307 %1315
               OpControlBarrier %uint_2 %uint_2 %uint_264
               OpBranch %309
        %309 = OpLabel
       %1316 = OpPhi %uint %uint_1 %258 %337 %312
        %315 = OpULessThan %bool %1316 %uint_256
               OpLoopMerge %311 %312 None
               OpBranchConditional %315 %310 %311
        %310 = OpLabel
        %319 = OpUGreaterThanEqual %bool %134 %1316
               OpSelectionMerge %322 None
               OpBranchConditional %319 %321 %328
        %321 = OpLabel
        %325 = OpISub %uint %134 %1316
        %326 = OpAccessChain %_ptr_Workgroup_uint %304 %325
        %327 = OpLoad %uint %326
               OpBranch %322
        %328 = OpLabel
               OpBranch %322
        %322 = OpLabel
       %1366 = OpPhi %uint %327 %321 %uint_0 %328
               OpControlBarrier %uint_2 %uint_2 %uint_264
        %333 = OpLoad %uint %307
        %334 = OpIAdd %uint %333 %1366
               OpStore %307 %334
               OpControlBarrier %uint_2 %uint_2 %uint_264
               OpBranch %312
        %312 = OpLabel
        %337 = OpShiftLeftLogical %uint %1316 %uint_1
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
       %1317 = OpPhi %uint %347 %342 %uint_0 %348
        %353 = OpIAdd %ulong %148 %ulong_32
        %904 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %353
        %905 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %904 %int_0
        %906 = OpLoad %ulong %905 Aligned 8
        %359 = OpIAdd %ulong %148 %ulong_40
        %910 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %359
        %911 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %910 %int_0
        %912 = OpLoad %ulong %911 Aligned 8
        %365 = OpIAdd %ulong %148 %ulong_104
        %916 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %365
        %917 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %916 %int_0
        %918 = OpLoad %ulong %917 Aligned 8
               OpBranch %370
        %370 = OpLabel
       %1353 = OpPhi %uint %1317 %343 %438 %373
       %1318 = OpPhi %uint %246 %343 %460 %373
        %377 = OpULessThan %bool %1318 %252
               OpLoopMerge %372 %373 None
               OpBranchConditional %377 %371 %372
        %371 = OpLabel
        %381 = OpUConvert %ulong %1318
        %383 = OpIMul %ulong %381 %191
        %384 = OpIAdd %ulong %699 %383
        %932 = OpUConvert %ulong %711
        %933 = OpIAdd %ulong %384 %932
        %935 = OpUDiv %uint %717 %uint_8
               OpSelectionMerge %988 None
               OpSwitch %uint_0 %971
        %971 = OpLabel
        %973 = OpIEqual %bool %717 %uint_32
               OpSelectionMerge %977 None
               OpBranchConditional %973 %974 %977
        %974 = OpLabel
        %993 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %933
        %994 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %993 %int_0
        %995 = OpLoad %uint %994 Aligned 4
               OpBranch %988
        %977 = OpLabel
        %979 = OpBitwiseAnd %ulong %933 %ulong_18446744073709551612
        %999 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %979
       %1000 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %999 %int_0
       %1001 = OpLoad %uint %1000 Aligned 4
        %983 = OpBitwiseAnd %ulong %933 %ulong_2
        %984 = OpUConvert %uint %983
        %985 = OpIMul %uint %984 %uint_8
        %986 = OpShiftRightLogical %uint %1001 %985
        %987 = OpBitwiseAnd %uint %986 %uint_65535
               OpBranch %988
        %988 = OpLabel
       %1339 = OpPhi %uint %995 %974 %987 %977
        %939 = OpCompositeConstruct %v3uint %1339 %uint_1 %uint_1
        %941 = OpUGreaterThan %bool %723 %uint_1
               OpSelectionMerge %950 None
               OpBranchConditional %941 %942 %950
        %942 = OpLabel
        %945 = OpUConvert %ulong %935
        %946 = OpIAdd %ulong %933 %945
               OpSelectionMerge %1026 None
               OpSwitch %uint_0 %1009
       %1009 = OpLabel
               OpSelectionMerge %1015 None
               OpBranchConditional %973 %1012 %1015
       %1012 = OpLabel
       %1031 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %946
       %1032 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1031 %int_0
       %1033 = OpLoad %uint %1032 Aligned 4
               OpBranch %1026
       %1015 = OpLabel
       %1017 = OpBitwiseAnd %ulong %946 %ulong_18446744073709551612
       %1037 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1017
       %1038 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1037 %int_0
       %1039 = OpLoad %uint %1038 Aligned 4
       %1021 = OpBitwiseAnd %ulong %946 %ulong_2
       %1022 = OpUConvert %uint %1021
       %1023 = OpIMul %uint %1022 %uint_8
       %1024 = OpShiftRightLogical %uint %1039 %1023
       %1025 = OpBitwiseAnd %uint %1024 %uint_65535
               OpBranch %1026
       %1026 = OpLabel
       %1340 = OpPhi %uint %1033 %1012 %1025 %1015
       %1299 = OpCompositeInsert %v3uint %1340 %939 1
               OpBranch %950
        %950 = OpLabel
       %1344 = OpPhi %v3uint %939 %988 %1299 %1026
        %952 = OpUGreaterThan %bool %723 %uint_2
               OpSelectionMerge %962 None
               OpBranchConditional %952 %953 %962
        %953 = OpLabel
        %956 = OpIMul %uint %uint_2 %935
        %957 = OpUConvert %ulong %956
        %958 = OpIAdd %ulong %933 %957
               OpSelectionMerge %1064 None
               OpSwitch %uint_0 %1047
       %1047 = OpLabel
               OpSelectionMerge %1053 None
               OpBranchConditional %973 %1050 %1053
       %1050 = OpLabel
       %1069 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %958
       %1070 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1069 %int_0
       %1071 = OpLoad %uint %1070 Aligned 4
               OpBranch %1064
       %1053 = OpLabel
       %1055 = OpBitwiseAnd %ulong %958 %ulong_18446744073709551612
       %1075 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1055
       %1076 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1075 %int_0
       %1077 = OpLoad %uint %1076 Aligned 4
       %1059 = OpBitwiseAnd %ulong %958 %ulong_2
       %1060 = OpUConvert %uint %1059
       %1061 = OpIMul %uint %1060 %uint_8
       %1062 = OpShiftRightLogical %uint %1077 %1061
       %1063 = OpBitwiseAnd %uint %1062 %uint_65535
               OpBranch %1064
       %1064 = OpLabel
       %1342 = OpPhi %uint %1071 %1050 %1063 %1053
       %1301 = OpCompositeInsert %v3uint %1342 %1344 2
               OpBranch %962
        %962 = OpLabel
       %1345 = OpPhi %v3uint %1344 %950 %1301 %1064
        %396 = OpUGreaterThan %v3bool %1345 %227
        %397 = OpAny %bool %396
               OpSelectionMerge %400 None
               OpBranchConditional %397 %399 %401
        %399 = OpLabel
               OpBranch %400
        %401 = OpLabel
        %403 = OpCompositeExtract %uint %1345 0
        %405 = OpCompositeExtract %uint %1345 1
        %406 = OpIMul %uint %403 %405
        %408 = OpCompositeExtract %uint %1345 2
        %409 = OpIMul %uint %406 %408
               OpBranch %400
        %400 = OpLabel
       %1346 = OpPhi %uint %uint_0 %399 %409 %401
        %412 = OpINotEqual %bool %918 %ulong_0
               OpSelectionMerge %414 None
               OpBranchConditional %412 %413 %414
        %413 = OpLabel
               OpBranch %416
        %416 = OpLabel
       %1347 = OpPhi %uint %uint_0 %413 %435 %417
        %423 = OpULessThan %bool %1347 %1346
               OpLoopMerge %418 %417 None
               OpBranchConditional %423 %417 %418
        %417 = OpLabel
        %427 = OpIAdd %uint %1353 %1347
        %428 = OpUConvert %ulong %427
        %429 = OpIMul %ulong %ulong_4 %428
        %430 = OpIAdd %ulong %918 %429
        %431 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %430
        %433 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %431 %int_0
               OpStore %433 %1318 Aligned 4
        %435 = OpIAdd %uint %1347 %int_1
               OpBranch %416
        %418 = OpLabel
               OpBranch %414
        %414 = OpLabel
        %438 = OpIAdd %uint %1353 %1346
        %442 = OpIMul %ulong %ulong_4 %381
        %443 = OpIAdd %ulong %906 %442
        %444 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %443
        %446 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %444 %int_0
               OpStore %446 %438 Aligned 4
        %448 = OpINotEqual %bool %912 %ulong_0
               OpSelectionMerge %450 None
               OpBranchConditional %448 %449 %450
        %449 = OpLabel
        %455 = OpIAdd %ulong %912 %442
        %456 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %455
        %458 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %456 %int_0
               OpStore %458 %1346 Aligned 4
               OpBranch %450
        %450 = OpLabel
               OpBranch %373
        %373 = OpLabel
        %460 = OpIAdd %uint %1318 %int_1
               OpBranch %370
        %372 = OpLabel
        %464 = OpIAdd %ulong %148 %ulong_48
       %1081 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %464
       %1082 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1081 %int_0
       %1083 = OpLoad %ulong %1082 Aligned 8
        %468 = OpLoad %uint %233
        %471 = OpUGreaterThanEqual %bool %468 %246
        %474 = OpULessThan %bool %468 %252
        %475 = OpLogicalAnd %bool %471 %474
               OpSelectionMerge %477 None
               OpBranchConditional %475 %476 %477
        %476 = OpLabel
        %481 = OpUConvert %ulong %468
        %483 = OpIMul %ulong %481 %191
        %484 = OpIAdd %ulong %699 %483
       %1097 = OpUConvert %ulong %711
       %1098 = OpIAdd %ulong %484 %1097
       %1100 = OpUDiv %uint %717 %uint_8
               OpSelectionMerge %1153 None
               OpSwitch %uint_0 %1136
       %1136 = OpLabel
       %1138 = OpIEqual %bool %717 %uint_32
               OpSelectionMerge %1142 None
               OpBranchConditional %1138 %1139 %1142
       %1139 = OpLabel
       %1158 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1098
       %1159 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1158 %int_0
       %1160 = OpLoad %uint %1159 Aligned 4
               OpBranch %1153
       %1142 = OpLabel
       %1144 = OpBitwiseAnd %ulong %1098 %ulong_18446744073709551612
       %1164 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1144
       %1165 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1164 %int_0
       %1166 = OpLoad %uint %1165 Aligned 4
       %1148 = OpBitwiseAnd %ulong %1098 %ulong_2
       %1149 = OpUConvert %uint %1148
       %1150 = OpIMul %uint %1149 %uint_8
       %1151 = OpShiftRightLogical %uint %1166 %1150
       %1152 = OpBitwiseAnd %uint %1151 %uint_65535
               OpBranch %1153
       %1153 = OpLabel
       %1319 = OpPhi %uint %1160 %1139 %1152 %1142
       %1104 = OpCompositeConstruct %v3uint %1319 %uint_1 %uint_1
       %1106 = OpUGreaterThan %bool %723 %uint_1
               OpSelectionMerge %1115 None
               OpBranchConditional %1106 %1107 %1115
       %1107 = OpLabel
       %1110 = OpUConvert %ulong %1100
       %1111 = OpIAdd %ulong %1098 %1110
               OpSelectionMerge %1191 None
               OpSwitch %uint_0 %1174
       %1174 = OpLabel
               OpSelectionMerge %1180 None
               OpBranchConditional %1138 %1177 %1180
       %1177 = OpLabel
       %1196 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1111
       %1197 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1196 %int_0
       %1198 = OpLoad %uint %1197 Aligned 4
               OpBranch %1191
       %1180 = OpLabel
       %1182 = OpBitwiseAnd %ulong %1111 %ulong_18446744073709551612
       %1202 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1182
       %1203 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1202 %int_0
       %1204 = OpLoad %uint %1203 Aligned 4
       %1186 = OpBitwiseAnd %ulong %1111 %ulong_2
       %1187 = OpUConvert %uint %1186
       %1188 = OpIMul %uint %1187 %uint_8
       %1189 = OpShiftRightLogical %uint %1204 %1188
       %1190 = OpBitwiseAnd %uint %1189 %uint_65535
               OpBranch %1191
       %1191 = OpLabel
       %1320 = OpPhi %uint %1198 %1177 %1190 %1180
       %1306 = OpCompositeInsert %v3uint %1320 %1104 1
               OpBranch %1115
       %1115 = OpLabel
       %1324 = OpPhi %v3uint %1104 %1153 %1306 %1191
       %1117 = OpUGreaterThan %bool %723 %uint_2
               OpSelectionMerge %1127 None
               OpBranchConditional %1117 %1118 %1127
       %1118 = OpLabel
       %1121 = OpIMul %uint %uint_2 %1100
       %1122 = OpUConvert %ulong %1121
       %1123 = OpIAdd %ulong %1098 %1122
               OpSelectionMerge %1229 None
               OpSwitch %uint_0 %1212
       %1212 = OpLabel
               OpSelectionMerge %1218 None
               OpBranchConditional %1138 %1215 %1218
       %1215 = OpLabel
       %1234 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1123
       %1235 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1234 %int_0
       %1236 = OpLoad %uint %1235 Aligned 4
               OpBranch %1229
       %1218 = OpLabel
       %1220 = OpBitwiseAnd %ulong %1123 %ulong_18446744073709551612
       %1240 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1220
       %1241 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1240 %int_0
       %1242 = OpLoad %uint %1241 Aligned 4
       %1224 = OpBitwiseAnd %ulong %1123 %ulong_2
       %1225 = OpUConvert %uint %1224
       %1226 = OpIMul %uint %1225 %uint_8
       %1227 = OpShiftRightLogical %uint %1242 %1226
       %1228 = OpBitwiseAnd %uint %1227 %uint_65535
               OpBranch %1229
       %1229 = OpLabel
       %1322 = OpPhi %uint %1236 %1215 %1228 %1218
       %1308 = OpCompositeInsert %v3uint %1322 %1324 2
               OpBranch %1127
       %1127 = OpLabel
       %1325 = OpPhi %v3uint %1324 %1115 %1308 %1229
        %494 = OpIAdd %ulong %1083 %ulong_8
        %495 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %494
        %497 = OpCompositeExtract %uint %1325 0
        %498 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %495 %int_0
               OpStore %498 %497 Aligned 4
        %500 = OpIAdd %ulong %1083 %ulong_12
        %501 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %500
        %503 = OpCompositeExtract %uint %1325 1
        %504 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %501 %int_0
               OpStore %504 %503 Aligned 4
        %507 = OpIAdd %ulong %1083 %ulong_16
        %508 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %507
        %510 = OpCompositeExtract %uint %1325 2
        %511 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %508 %int_0
               OpStore %511 %510 Aligned 4
               OpBranch %477
        %477 = OpLabel
        %513 = OpINotEqual %bool %134 %uint_0
               OpSelectionMerge %515 None
               OpBranchConditional %513 %514 %515
        %514 = OpLabel
               OpBranch %653
        %515 = OpLabel
        %519 = OpAccessChain %_ptr_Workgroup_uint %304 %int_255
        %520 = OpLoad %uint %519
        %522 = OpIAdd %ulong %693 %ulong_8
        %523 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %522
        %525 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %523 %int_0
               OpStore %525 %1313 Aligned 4
        %527 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1083
        %529 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %527 %int_0
               OpStore %529 %520 Aligned 4
        %531 = OpIAdd %ulong %1083 %ulong_4
        %532 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %531
        %534 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %532 %int_0
               OpStore %534 %468 Aligned 4
        %539 = OpIAdd %ulong %148 %ulong_92
       %1246 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %539
       %1247 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1246 %int_0
       %1248 = OpLoad %uint %1247 Aligned 4
        %542 = OpExtInst %uint %1 UMin %520 %1248
        %545 = OpIEqual %bool %542 %uint_0
               OpSelectionMerge %548 None
               OpBranchConditional %545 %547 %549
        %547 = OpLabel
               OpBranch %548
        %549 = OpLabel
        %552 = OpIAdd %uint %520 %542
        %553 = OpISub %uint %552 %uint_1
        %555 = OpUDiv %uint %553 %542
               OpBranch %548
        %548 = OpLabel
       %1336 = OpPhi %uint %uint_0 %547 %555 %549
        %561 = OpIAdd %ulong %148 %ulong_96
       %1252 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %561
       %1253 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1252 %int_0
       %1254 = OpLoad %uint %1253 Aligned 4
        %564 = OpExtInst %uint %1 UMin %1336 %1254
        %567 = OpIEqual %bool %564 %uint_0
               OpSelectionMerge %570 None
               OpBranchConditional %567 %569 %571
        %569 = OpLabel
               OpBranch %570
        %571 = OpLabel
        %574 = OpIAdd %uint %1336 %564
        %575 = OpISub %uint %574 %uint_1
        %577 = OpUDiv %uint %575 %564
               OpBranch %570
        %570 = OpLabel
       %1337 = OpPhi %uint %uint_0 %569 %577 %571
        %581 = OpIAdd %ulong %148 %ulong_16
       %1258 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %581
       %1259 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1258 %int_0
       %1260 = OpLoad %ulong %1259 Aligned 8
        %585 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %1260
        %587 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %585 %int_0
               OpStore %587 %542 Aligned 4
        %589 = OpIAdd %ulong %1260 %ulong_4
        %590 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %589
        %592 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %590 %int_0
               OpStore %592 %564 Aligned 4
        %594 = OpIAdd %ulong %1260 %ulong_8
        %595 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %594
        %597 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %595 %int_0
               OpStore %597 %1337 Aligned 4
        %601 = OpIAdd %ulong %148 %ulong_24
       %1264 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %601
       %1265 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1264 %int_0
       %1266 = OpLoad %ulong %1265 Aligned 8
        %607 = OpIAdd %ulong %148 %ulong_64
       %1270 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %607
       %1271 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1270 %int_0
       %1272 = OpLoad %uint %1271 Aligned 4
               OpBranch %611
        %611 = OpLabel
       %1338 = OpPhi %uint %uint_0 %570 %651 %612
        %618 = OpULessThan %bool %1338 %1272
               OpLoopMerge %613 %612 None
               OpBranchConditional %618 %612 %613
        %612 = OpLabel
        %622 = OpUConvert %ulong %1338
        %623 = OpIMul %ulong %622 %ulong_16
        %624 = OpIAdd %ulong %1266 %623
        %627 = OpUConvert %ulong %520
        %629 = OpIAdd %ulong %624 %ulong_8
       %1276 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %629
       %1277 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1276 %int_0
       %1278 = OpLoad %uint %1277 Aligned 4
        %632 = OpUConvert %ulong %1278
        %633 = OpIMul %ulong %627 %632
        %636 = OpIAdd %ulong %624 %ulong_12
       %1282 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %636
       %1283 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %1282 %int_0
       %1284 = OpLoad %uint %1283 Aligned 4
        %639 = OpUConvert %ulong %1284
       %1288 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_46 %624
       %1289 = OpAccessChain %_ptr_PhysicalStorageBuffer_ulong %1288 %int_0
       %1290 = OpLoad %ulong %1289 Aligned 8
        %643 = OpIAdd %ulong %1290 %ulong_16
        %644 = OpConvertUToPtr %_ptr_PhysicalStorageBuffer__struct_35 %643
        %647 = OpExtInst %ulong %1 UMin %633 %639
        %648 = OpUConvert %uint %647
        %649 = OpAccessChain %_ptr_PhysicalStorageBuffer_uint %644 %int_0
               OpStore %649 %648 Aligned 4
        %651 = OpIAdd %uint %1338 %int_1
               OpBranch %611
        %613 = OpLabel
               OpBranch %653
        %653 = OpLabel
               OpReturn
               OpFunctionEnd
"""
"""`SOURCE` compiled by glslc (`GLSLC_COMMAND`) and disassembled by SPIRV-Tools."""

GLSLC_COMMAND = ("glslc", "-fshader-stage=compute", "--target-env=vulkan1.3", "-O")
"""How `ASSEMBLY` was made from `SOURCE` (shaderc 2023.2, spirv-tools 2022.4)."""

MODULE_HEX = (
    "03022307000601000000070044020000000000001100020001000000110002000b00000011000200e31400000b000600"
    "01000000474c534c2e7374642e343530000000000e000300e4140000010000000f000a0005000000020000006d61696e"
    "0000000003000000040000000500000006000000070000004b0106000200000026000000080000000900000009000000"
    "480005000a000000000000002300000000000000470003000a00000002000000480005000b0000000000000023000000"
    "00000000470003000b0000000200000047000400030000000b0000001b000000480005000c0000000000000023000000"
    "00000000480005000c000000010000002300000008000000470003000c0000000200000047000400050000000b000000"
    "1a000000130002000d000000210003000e0000000d000000150004000f00000020000000000000002b0004000f000000"
    "08000000000100002b0004000f0000000900000001000000150004001000000040000000000000001700040011000000"
    "0f000000030000002700030012000000e51400001e0003000a0000000f0000002000040012000000e51400000a000000"
    "150004001300000020000000010000002b0004001300000014000000000000002000040015000000e51400000f000000"
    "2700030016000000e51400001e0003000b000000100000002000040016000000e51400000b0000002000040017000000"
    "e5140000100000002b0004000f000000180000002000000014000200190000002b000500100000001a000000fcffffff"
    "ffffffff2b000500100000001b00000002000000000000002b0004000f0000001c000000080000002b0004000f000000"
    "1d000000ffff00002b0004000f0000001e00000002000000200004001f00000001000000110000003b0004001f000000"
    "03000000010000002b0004000f00000020000000000000002000040021000000010000000f0000001e0004000c000000"
    "100000000f0000002000040022000000090000000c0000003b0004002200000004000000090000002000040023000000"
    "09000000100000003b0004001f00000005000000010000002b000500100000002400000070000000000000002b000500"
    "100000002500000000000000000000002b000500100000002600000038000000000000002b0005001000000027000000"
    "3c000000000000002b000500100000002800000008000000000000002b00050010000000290000000c00000000000000"
    "2b000500100000002a00000044000000000000002b000500100000002b00000048000000000000002b00050010000000"
    "2c0000004c000000000000002b000500100000002d00000050000000000000002b000500100000002e00000004000000"
    "00000000200004002f000000040000000f0000003b0004002f00000006000000040000002b0004000f00000030000000"
    "ffffffff2b0004000f0000003100000008010000170004003200000019000000030000002b0004001300000033000000"
    "010000001c000400340000000f00000008000000200004003500000004000000340000003b0004003500000007000000"
    "040000002b000500100000003600000020000000000000002b000500100000003700000028000000000000002b000500"
    "100000003800000068000000000000002b000500100000003900000030000000000000002b000500100000003a000000"
    "10000000000000002b000400130000003b000000ff0000002b000500100000003c0000005c000000000000002b000500"
    "100000003d00000060000000000000002b000500100000003e00000018000000000000002b000500100000003f000000"
    "40000000000000002b000500100000004000000054000000000000002b00050010000000410000005800000000000000"
    "2b0004000f00000042000000ff000000360005000d00000002000000000000000e000000f800020043000000f7000300"
    "4400000000000000fb0003002000000045000000f8000200450000004100050021000000460000000300000020000000"
    "3d0004000f000000470000004600000041000500230000004800000004000000140000003d0004001000000049000000"
    "4800000041000500210000004a00000005000000200000003d0004000f0000004b0000004a0000007100040010000000"
    "4c0000004b00000084000500100000004d0000004c0000002400000080000500100000004e000000490000004d000000"
    "78000400160000004f0000004e0000004100050017000000500000004f000000140000003d0006001000000051000000"
    "5000000002000000080000008000050010000000520000004e0000002600000078000400120000005300000052000000"
    "41000500150000005400000053000000140000003d0006000f00000055000000540000000200000004000000ab000500"
    "19000000560000005100000025000000f70003005700000000000000fa000400560000005800000057000000f8000200"
    "580000007800040012000000590000005100000041000500150000005a00000059000000140000003d0006000f000000"
    "5b0000005a000000020000000400000080000500100000005c0000004e0000002700000078000400120000005d000000"
    "5c00000041000500150000005e0000005d000000140000003d0006000f0000005f0000005e0000000200000004000000"
    "0c0007000f0000006000000001000000260000005b0000005f000000f900020057000000f800020057000000f5000700"
    "0f00000061000000550000004500000060000000580000008000050010000000620000004e0000002800000078000400"
    "16000000630000006200000041000500170000006400000063000000140000003d000600100000006500000064000000"
    "02000000080000007800040016000000660000006500000041000500170000006700000066000000140000003d000600"
    "100000006800000067000000020000000800000080000500100000006900000065000000290000007800040012000000"
    "6a0000006900000041000500150000006b0000006a000000140000003d0006000f0000006c0000006b00000002000000"
    "0400000071000400100000006d0000006c00000080000500100000006e0000004e0000002a0000007800040012000000"
    "6f0000006e0000004100050015000000700000006f000000140000003d0006000f000000710000007000000002000000"
    "040000008000050010000000720000004e0000002b000000780004001200000073000000720000004100050015000000"
    "7400000073000000140000003d0006000f00000075000000740000000200000004000000800005001000000076000000"
    "4e0000002c0000007800040012000000770000007600000041000500150000007800000077000000140000003d000600"
    "0f0000007900000078000000020000000400000080000500100000007a0000004e0000002d0000007800040012000000"
    "7b0000007a00000041000500150000007c0000007b000000140000003d0006000f0000007d0000007c00000002000000"
    "0400000080000500100000007e0000004e0000004000000078000400120000007f0000007e0000004100050015000000"
    "800000007f000000140000003d0006000f00000081000000800000000200000004000000800005001000000082000000"
    "4e000000410000007800040012000000830000008200000041000500150000008400000083000000140000003d000600"
    "0f000000850000008400000002000000040000005000060011000000860000007d0000008100000085000000aa000500"
    "19000000870000004700000020000000f70003008800000000000000fa000400870000008900000088000000f8000200"
    "890000003e0003000600000030000000f900020088000000f800020088000000e00004001e0000001e00000031000000"
    "800005000f0000008a0000006100000042000000860005000f0000008b0000008a00000008000000840005000f000000"
    "8c000000470000008b0000000c0007000f0000008d00000001000000260000008c00000061000000800005000f000000"
    "8e0000008d0000008b0000000c0007000f0000008f00000001000000260000008e00000061000000f900020090000000"
    "f800020090000000f50007000f0000009100000020000000880000009200000093000000f50007000f00000094000000"
    "8d000000880000009500000093000000b00005001900000096000000940000008f000000f60004009700000093000000"
    "00000000fa000400960000009800000097000000f8000200980000007100040010000000990000009400000084000500"
    "100000009a000000990000006d00000080000500100000009b000000680000009a00000071000400100000009c000000"
    "7100000080000500100000009d0000009b0000009c000000860005000f0000009e000000750000001c000000f7000300"
    "9f00000000000000fb00030020000000a0000000f8000200a0000000aa00050019000000a10000007500000018000000"
    "f7000300a200000000000000fa000400a1000000a3000000a2000000f8000200a30000007800040012000000a4000000"
    "9d0000004100050015000000a5000000a4000000140000003d0006000f000000a6000000a50000000200000004000000"
    "f90002009f000000f8000200a2000000c700050010000000a70000009d0000001a0000007800040012000000a8000000"
    "a70000004100050015000000a9000000a8000000140000003d0006000f000000aa000000a90000000200000004000000"
    "c700050010000000ab0000009d0000001b000000710004000f000000ac000000ab000000840005000f000000ad000000"
    "ac0000001c000000c20005000f000000ae000000aa000000ad000000c70005000f000000af000000ae0000001d000000"
    "f90002009f000000f80002009f000000f50007000f000000b0000000a6000000a3000000af000000a200000050000600"
    "11000000b1000000b00000000900000009000000ac00050019000000b20000007900000009000000f7000300b3000000"
    "00000000fa000400b2000000b4000000b3000000f8000200b40000007100040010000000b50000009e00000080000500"
    "10000000b60000009d000000b5000000f7000300b700000000000000fb00030020000000b8000000f8000200b8000000"
    "f7000300b900000000000000fa000400a1000000ba000000b9000000f8000200ba0000007800040012000000bb000000"
    "b60000004100050015000000bc000000bb000000140000003d0006000f000000bd000000bc0000000200000004000000"
    "f9000200b7000000f8000200b9000000c700050010000000be000000b60000001a0000007800040012000000bf000000"
    "be0000004100050015000000c0000000bf000000140000003d0006000f000000c1000000c00000000200000004000000"
    "c700050010000000c2000000b60000001b000000710004000f000000c3000000c2000000840005000f000000c4000000"
    "c30000001c000000c20005000f000000c5000000c1000000c4000000c70005000f000000c6000000c50000001d000000"
    "f9000200b7000000f8000200b7000000f50007000f000000c7000000bd000000ba000000c6000000b900000052000600"
    "11000000c8000000c7000000b100000001000000f9000200b3000000f8000200b3000000f500070011000000c9000000"
    "b10000009f000000c8000000b7000000ac00050019000000ca000000790000001e000000f7000300cb00000000000000"
    "fa000400ca000000cc000000cb000000f8000200cc000000840005000f000000cd0000001e0000009e00000071000400"
    "10000000ce000000cd0000008000050010000000cf0000009d000000ce000000f7000300d000000000000000fb000300"
    "20000000d1000000f8000200d1000000f7000300d200000000000000fa000400a1000000d3000000d2000000f8000200"
    "d30000007800040012000000d4000000cf0000004100050015000000d5000000d4000000140000003d0006000f000000"
    "d6000000d50000000200000004000000f9000200d0000000f8000200d2000000c700050010000000d7000000cf000000"
    "1a0000007800040012000000d8000000d70000004100050015000000d9000000d8000000140000003d0006000f000000"
    "da000000d90000000200000004000000c700050010000000db000000cf0000001b000000710004000f000000dc000000"
    "db000000840005000f000000dd000000dc0000001c000000c20005000f000000de000000da000000dd000000c7000500"
    "0f000000df000000de0000001d000000f9000200d0000000f8000200d0000000f50007000f000000e0000000d6000000"
    "d3000000df000000d20000005200060011000000e1000000e0000000c900000002000000f9000200cb000000f8000200"
    "cb000000f500070011000000e2000000c9000000b3000000e1000000d0000000ac00050032000000e3000000e2000000"
    "860000009a00040019000000e4000000e3000000f7000300e500000000000000fa000400e4000000e6000000e7000000"
    "f8000200e6000000ed0007000f000000e800000006000000090000002000000094000000f9000200e5000000f8000200"
    "e7000000510005000f000000e9000000e200000000000000510005000f000000ea000000e20000000100000084000500"
    "0f000000eb000000e9000000ea000000510005000f000000ec000000e200000002000000840005000f000000ed000000"
    "eb000000ec000000800005000f000000ee00000091000000ed000000f9000200e5000000f8000200e5000000f5000700"
    "0f0000009200000091000000e6000000ee000000e7000000f900020093000000f800020093000000800005000f000000"
    "950000009400000033000000f900020090000000f800020097000000410005002f000000ef0000000700000047000000"
    "3e000300ef00000091000000e00004001e0000001e00000031000000f9000200f0000000f8000200f0000000f5000700"
    "0f000000f10000000900000097000000f2000000f3000000b000050019000000f4000000f100000008000000f6000400"
    "f5000000f300000000000000fa000400f4000000f6000000f5000000f8000200f6000000ae00050019000000f7000000"
    "47000000f1000000f7000300f800000000000000fa000400f7000000f9000000fa000000f8000200f900000082000500"
    "0f000000fb00000047000000f1000000410005002f000000fc00000007000000fb0000003d0004000f000000fd000000"
    "fc000000f9000200f8000000f8000200fa000000f9000200f8000000f8000200f8000000f50007000f000000fe000000"
    "fd000000f900000020000000fa000000e00004001e0000001e000000310000003d0004000f000000ff000000ef000000"
    "800005000f00000000010000ff000000fe0000003e000300ef00000000010000e00004001e0000001e00000031000000"
    "f9000200f3000000f8000200f3000000c40005000f000000f2000000f100000009000000f9000200f0000000f8000200"
    "f5000000ac00050019000000010100004700000020000000f70003000201000000000000fa0004000101000003010000"
    "04010000f800020003010000820005000f000000050100004700000009000000410005002f0000000601000007000000"
    "050100003d0004000f0000000701000006010000f900020002010000f800020004010000f900020002010000f8000200"
    "02010000f50007000f00000008010000070100000301000020000000040100008000050010000000090100004e000000"
    "3600000078000400160000000a0100000901000041000500170000000b0100000a010000140000003d00060010000000"
    "0c0100000b010000020000000800000080000500100000000d0100004e0000003700000078000400160000000e010000"
    "0d01000041000500170000000f0100000e010000140000003d00060010000000100100000f0100000200000008000000"
    "8000050010000000110100004e0000003800000078000400160000001201000011010000410005001700000013010000"
    "12010000140000003d0006001000000014010000130100000200000008000000f900020015010000f800020015010000"
    "f50007000f0000001601000008010000020100001701000018010000f50007000f000000190100008d00000002010000"
    "1a01000018010000b0000500190000001b010000190100008f000000f60004001c0100001801000000000000fa000400"
    "1b0100001d0100001c010000f80002001d01000071000400100000001e0100001901000084000500100000001f010000"
    "1e0100006d000000800005001000000020010000680000001f0100007100040010000000210100007100000080000500"
    "10000000220100002001000021010000860005000f00000023010000750000001c000000f70003002401000000000000"
    "fb0003002000000025010000f800020025010000aa00050019000000260100007500000018000000f700030027010000"
    "00000000fa000400260100002801000027010000f8000200280100007800040012000000290100002201000041000500"
    "150000002a01000029010000140000003d0006000f0000002b0100002a0100000200000004000000f900020024010000"
    "f800020027010000c7000500100000002c010000220100001a00000078000400120000002d0100002c01000041000500"
    "150000002e0100002d010000140000003d0006000f0000002f0100002e0100000200000004000000c700050010000000"
    "30010000220100001b000000710004000f0000003101000030010000840005000f00000032010000310100001c000000"
    "c20005000f000000330100002f01000032010000c70005000f00000034010000330100001d000000f900020024010000"
    "f800020024010000f50007000f000000350100002b010000280100003401000027010000500006001100000036010000"
    "350100000900000009000000ac00050019000000370100007900000009000000f70003003801000000000000fa000400"
    "370100003901000038010000f80002003901000071000400100000003a0100002301000080000500100000003b010000"
    "220100003a010000f70003003c01000000000000fb000300200000003d010000f80002003d010000f70003003e010000"
    "00000000fa000400260100003f0100003e010000f80002003f0100007800040012000000400100003b01000041000500"
    "150000004101000040010000140000003d0006000f00000042010000410100000200000004000000f90002003c010000"
    "f80002003e010000c700050010000000430100003b0100001a0000007800040012000000440100004301000041000500"
    "150000004501000044010000140000003d0006000f00000046010000450100000200000004000000c700050010000000"
    "470100003b0100001b000000710004000f0000004801000047010000840005000f00000049010000480100001c000000"
    "c20005000f0000004a0100004601000049010000c70005000f0000004b0100004a0100001d000000f90002003c010000"
    "f80002003c010000f50007000f0000004c010000420100003f0100004b0100003e01000052000600110000004d010000"
    "4c0100003601000001000000f900020038010000f800020038010000f5000700110000004e0100003601000024010000"
    "4d0100003c010000ac000500190000004f010000790000001e000000f70003005001000000000000fa0004004f010000"
    "5101000050010000f800020051010000840005000f000000520100001e00000023010000710004001000000053010000"
    "520100008000050010000000540100002201000053010000f70003005501000000000000fb0003002000000056010000"
    "f800020056010000f70003005701000000000000fa000400260100005801000057010000f80002005801000078000400"
    "12000000590100005401000041000500150000005a01000059010000140000003d0006000f0000005b0100005a010000"
    "0200000004000000f900020055010000f800020057010000c7000500100000005c010000540100001a00000078000400"
    "120000005d0100005c01000041000500150000005e0100005d010000140000003d0006000f0000005f0100005e010000"
    "0200000004000000c70005001000000060010000540100001b000000710004000f000000610100006001000084000500"
    "0f00000062010000610100001c000000c20005000f000000630100005f01000062010000c70005000f00000064010000"
    "630100001d000000f900020055010000f800020055010000f50007000f000000650100005b0100005801000064010000"
    "57010000520006001100000066010000650100004e01000002000000f900020050010000f800020050010000f5000700"
    "11000000670100004e010000380100006601000055010000ac000500320000006801000067010000860000009a000400"
    "190000006901000068010000f70003006a01000000000000fa000400690100006b0100006c010000f80002006b010000"
    "f90002006a010000f80002006c010000510005000f0000006d0100006701000000000000510005000f0000006e010000"
    "6701000001000000840005000f0000006f0100006d0100006e010000510005000f000000700100006701000002000000"
    "840005000f000000710100006f01000070010000f90002006a010000f80002006a010000f50007000f00000072010000"
    "200000006b010000710100006c010000ab00050019000000730100001401000025000000f70003007401000000000000"
    "fa000400730100007501000074010000f800020075010000f900020076010000f800020076010000f50007000f000000"
    "7701000020000000750100007801000079010000b0000500190000007a0100007701000072010000f60004007b010000"
    "7901000000000000fa0004007a010000790100007b010000f800020079010000800005000f0000007c01000016010000"
    "7701000071000400100000007d0100007c01000084000500100000007e0100002e0000007d0100008000050010000000"
    "7f010000140100007e0100007800040012000000800100007f0100004100050015000000810100008001000014000000"
    "3e00050081010000190100000200000004000000800005000f000000780100007701000033000000f900020076010000"
    "f80002007b010000f900020074010000f800020074010000800005000f00000017010000160100007201000084000500"
    "10000000820100002e0000001e0100008000050010000000830100000c01000082010000780004001200000084010000"
    "8301000041000500150000008501000084010000140000003e00050085010000170100000200000004000000ab000500"
    "19000000860100001001000025000000f70003008701000000000000fa000400860100008801000087010000f8000200"
    "88010000800005001000000089010000100100008201000078000400120000008a010000890100004100050015000000"
    "8b0100008a010000140000003e0005008b010000720100000200000004000000f900020087010000f800020087010000"
    "f900020018010000f800020018010000800005000f0000001a0100001901000033000000f900020015010000f8000200"
    "1c01000080000500100000008c0100004e0000003900000078000400160000008d0100008c0100004100050017000000"
    "8e0100008d010000140000003d000600100000008f0100008e01000002000000080000003d0004000f00000090010000"
    "06000000ae0005001900000091010000900100008d000000b00005001900000092010000900100008f000000a7000500"
    "19000000930100009101000092010000f70003009401000000000000fa000400930100009501000094010000f8000200"
    "9501000071000400100000009601000090010000840005001000000097010000960100006d0000008000050010000000"
    "9801000068000000970100007100040010000000990100007100000080000500100000009a0100009801000099010000"
    "860005000f0000009b010000750000001c000000f70003009c01000000000000fb000300200000009d010000f8000200"
    "9d010000aa000500190000009e0100007500000018000000f70003009f01000000000000fa0004009e010000a0010000"
    "9f010000f8000200a00100007800040012000000a10100009a0100004100050015000000a2010000a101000014000000"
    "3d0006000f000000a3010000a20100000200000004000000f90002009c010000f80002009f010000c700050010000000"
    "a40100009a0100001a0000007800040012000000a5010000a40100004100050015000000a6010000a501000014000000"
    "3d0006000f000000a7010000a60100000200000004000000c700050010000000a80100009a0100001b00000071000400"
    "0f000000a9010000a8010000840005000f000000aa010000a90100001c000000c20005000f000000ab010000a7010000"
    "aa010000c70005000f000000ac010000ab0100001d000000f90002009c010000f80002009c010000f50007000f000000"
    "ad010000a3010000a0010000ac0100009f0100005000060011000000ae010000ad0100000900000009000000ac000500"
    "19000000af0100007900000009000000f7000300b001000000000000fa000400af010000b1010000b0010000f8000200"
    "b10100007100040010000000b20100009b0100008000050010000000b30100009a010000b2010000f7000300b4010000"
    "00000000fb00030020000000b5010000f8000200b5010000f7000300b601000000000000fa0004009e010000b7010000"
    "b6010000f8000200b70100007800040012000000b8010000b30100004100050015000000b9010000b801000014000000"
    "3d0006000f000000ba010000b90100000200000004000000f9000200b4010000f8000200b6010000c700050010000000"
    "bb010000b30100001a0000007800040012000000bc010000bb0100004100050015000000bd010000bc01000014000000"
    "3d0006000f000000be010000bd0100000200000004000000c700050010000000bf010000b30100001b00000071000400"
    "0f000000c0010000bf010000840005000f000000c1010000c00100001c000000c20005000f000000c2010000be010000"
    "c1010000c70005000f000000c3010000c20100001d000000f9000200b4010000f8000200b4010000f50007000f000000"
    "c4010000ba010000b7010000c3010000b60100005200060011000000c5010000c4010000ae01000001000000f9000200"
    "b0010000f8000200b0010000f500070011000000c6010000ae0100009c010000c5010000b4010000ac00050019000000"
    "c7010000790000001e000000f7000300c801000000000000fa000400c7010000c9010000c8010000f8000200c9010000"
    "840005000f000000ca0100001e0000009b0100007100040010000000cb010000ca0100008000050010000000cc010000"
    "9a010000cb010000f7000300cd01000000000000fb00030020000000ce010000f8000200ce010000f7000300cf010000"
    "00000000fa0004009e010000d0010000cf010000f8000200d00100007800040012000000d1010000cc01000041000500"
    "15000000d2010000d1010000140000003d0006000f000000d3010000d20100000200000004000000f9000200cd010000"
    "f8000200cf010000c700050010000000d4010000cc0100001a0000007800040012000000d5010000d401000041000500"
    "15000000d6010000d5010000140000003d0006000f000000d7010000d60100000200000004000000c700050010000000"
    "d8010000cc0100001b000000710004000f000000d9010000d8010000840005000f000000da010000d90100001c000000"
    "c20005000f000000db010000d7010000da010000c70005000f000000dc010000db0100001d000000f9000200cd010000"
    "f8000200cd010000f50007000f000000dd010000d3010000d0010000dc010000cf0100005200060011000000de010000"
    "dd010000c601000002000000f9000200c8010000f8000200c8010000f500070011000000df010000c6010000b0010000"
    "de010000cd0100008000050010000000e00100008f010000280000007800040012000000e1010000e001000051000500"
    "0f000000e2010000df010000000000004100050015000000e3010000e1010000140000003e000500e3010000e2010000"
    "02000000040000008000050010000000e40100008f010000290000007800040012000000e5010000e401000051000500"
    "0f000000e6010000df010000010000004100050015000000e7010000e5010000140000003e000500e7010000e6010000"
    "02000000040000008000050010000000e80100008f0100003a0000007800040012000000e9010000e801000051000500"
    "0f000000ea010000df010000020000004100050015000000eb010000e9010000140000003e000500eb010000ea010000"
    "0200000004000000f900020094010000f800020094010000ab00050019000000ec0100004700000020000000f7000300"
    "ed01000000000000fa000400ec010000ee010000ed010000f8000200ee010000f900020044000000f8000200ed010000"
    "410005002f000000ef010000070000003b0000003d0004000f000000f0010000ef0100008000050010000000f1010000"
    "65000000280000007800040012000000f2010000f10100004100050015000000f3010000f2010000140000003e000500"
    "f30100006100000002000000040000007800040012000000f40100008f0100004100050015000000f5010000f4010000"
    "140000003e000500f5010000f001000002000000040000008000050010000000f60100008f0100002e00000078000400"
    "12000000f7010000f60100004100050015000000f8010000f7010000140000003e000500f80100009001000002000000"
    "040000008000050010000000f90100004e0000003c0000007800040012000000fa010000f90100004100050015000000"
    "fb010000fa010000140000003d0006000f000000fc010000fb01000002000000040000000c0007000f000000fd010000"
    "0100000026000000f0010000fc010000aa00050019000000fe010000fd01000020000000f7000300ff01000000000000"
    "fa000400fe0100000002000001020000f800020000020000f9000200ff010000f800020001020000800005000f000000"
    "02020000f0010000fd010000820005000f000000030200000202000009000000860005000f0000000402000003020000"
    "fd010000f9000200ff010000f8000200ff010000f50007000f0000000502000020000000000200000402000001020000"
    "8000050010000000060200004e0000003d00000078000400120000000702000006020000410005001500000008020000"
    "07020000140000003d0006000f000000090200000802000002000000040000000c0007000f0000000a02000001000000"
    "260000000502000009020000aa000500190000000b0200000a02000020000000f70003000c02000000000000fa000400"
    "0b0200000d0200000e020000f80002000d020000f90002000c020000f80002000e020000800005000f0000000f020000"
    "050200000a020000820005000f000000100200000f02000009000000860005000f00000011020000100200000a020000"
    "f90002000c020000f80002000c020000f50007000f00000012020000200000000d020000110200000e02000080000500"
    "10000000130200004e0000003a0000007800040016000000140200001302000041000500170000001502000014020000"
    "140000003d00060010000000160200001502000002000000080000007800040012000000170200001602000041000500"
    "150000001802000017020000140000003e00050018020000fd0100000200000004000000800005001000000019020000"
    "160200002e00000078000400120000001a0200001902000041000500150000001b0200001a020000140000003e000500"
    "1b0200000a020000020000000400000080000500100000001c020000160200002800000078000400120000001d020000"
    "1c02000041000500150000001e0200001d020000140000003e0005001e02000012020000020000000400000080000500"
    "100000001f0200004e0000003e0000007800040016000000200200001f02000041000500170000002102000020020000"
    "140000003d00060010000000220200002102000002000000080000008000050010000000230200004e0000003f000000"
    "7800040012000000240200002302000041000500150000002502000024020000140000003d0006000f00000026020000"
    "250200000200000004000000f900020027020000f800020027020000f50007000f00000028020000200000000c020000"
    "290200002a020000b0000500190000002b0200002802000026020000f60004002c0200002a02000000000000fa000400"
    "2b0200002a0200002c020000f80002002a02000071000400100000002d0200002802000084000500100000002e020000"
    "2d0200003a00000080000500100000002f020000220200002e020000710004001000000030020000f001000080000500"
    "10000000310200002f020000280000007800040012000000320200003102000041000500150000003302000032020000"
    "140000003d0006000f000000340200003302000002000000040000007100040010000000350200003402000084000500"
    "100000003602000030020000350200008000050010000000370200002f02000029000000780004001200000038020000"
    "3702000041000500150000003902000038020000140000003d0006000f0000003a020000390200000200000004000000"
    "71000400100000003b0200003a02000078000400160000003c0200002f02000041000500170000003d0200003c020000"
    "140000003d000600100000003e0200003d020000020000000800000080000500100000003f0200003e0200003a000000"
    "7800040012000000400200003f0200000c00070010000000410200000100000026000000360200003b02000071000400"
    "0f000000420200004102000041000500150000004302000040020000140000003e000500430200004202000002000000"
    "04000000800005000f000000290200002802000033000000f900020027020000f80002002c020000f900020044000000"
    "f800020044000000fd00010038000100"
)
"""`ASSEMBLY` assembled (SPIRV-Tools, target vulkan1.3), as hex of its little-endian words."""


def module() -> bytes:
    return bytes.fromhex(MODULE_HEX)
