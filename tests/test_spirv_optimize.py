"""The safe spirv-opt passes for AMDX modules (`wgc.spirv.optimize`).

The optimized modules must still validate (vulkan1.3), pass wgc's lint and keep every AMDX
instruction, decoration and execution mode; the banned passes must still break them (if SPIRV-Tools
fixes one, its test fails and the pass can join `PASSES`).
"""

from __future__ import annotations

import collections
import re
import subprocess

import pytest

from test_spirv_builder import REFERENCE_AMDX
from wgc.spirv import tools
from wgc.spirv.lint import lint
from wgc.spirv.optimize import BANNED, PASSES, optimize, run_spirv_opt, spirv_opt

# A richer module than REFERENCE_AMDX, for the passes that need loops, branches and calls. Four nodes:
# "producer" (API entry, broadcasting, grid read from its record) loops over its
# threads' share of a dynamic record count, allocates that many "consumer" records per group and
# one "tracker" record per thread 0, calls a helper, and checks IsValid. "consumer" (coalescing)
# sums its records in a loop; "sharer" shares consumer's input; "tracker" (fixed grid) uses
# TrackFinishWritingAMDX and OpFinishWritingNodePayloadAMDX.
RICH_AMDX = """
               OpCapability Shader
               OpCapability ShaderEnqueueAMDX
               OpExtension "SPV_AMDX_shader_enqueue"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %producer "producer" %prod_in %lid
               OpEntryPoint GLCompute %consumer "consumer" %cons_in %lid %results
               OpEntryPoint GLCompute %sharer "sharer" %share_in %lid %results
               OpEntryPoint GLCompute %tracker "tracker" %track_in %results
               OpExecutionMode %producer LocalSize 8 1 1
               OpExecutionModeId %producer IsApiEntryAMDX %true
               OpExecutionModeId %producer MaxNumWorkgroupsAMDX %uint_16 %uint_1 %uint_1
               OpExecutionModeId %producer ShaderIndexAMDX %uint_0
               OpExecutionMode %consumer LocalSize 4 1 1
               OpExecutionMode %consumer CoalescingAMDX
               OpExecutionModeId %consumer IsApiEntryAMDX %false
               OpExecutionMode %sharer LocalSize 4 1 1
               OpExecutionMode %sharer CoalescingAMDX
               OpExecutionModeId %sharer IsApiEntryAMDX %false
               OpExecutionModeId %sharer SharesInputWithAMDX %str_consumer %uint_0
               OpExecutionMode %tracker LocalSize 2 1 1
               OpExecutionModeId %tracker IsApiEntryAMDX %false
               OpExecutionModeId %tracker StaticNumWorkgroupsAMDX %uint_2 %uint_1 %uint_1
               OpName %producer "producer"
               OpName %consumer "consumer"
               OpName %sharer "sharer"
               OpName %tracker "tracker"
               OpName %scale "scale"
               OpName %Inner "Inner"
               OpName %ProdRec "ProdRec"
               OpName %WorkRec "WorkRec"
               OpName %TrackRec "TrackRec"
               OpName %work_out "work_out"
               OpName %track_out "track_out"
               OpName %prod_in "prod_in"
               OpName %cons_in "cons_in"
               OpName %share_in "share_in"
               OpName %track_in "track_in"
               OpName %results "results"
               OpName %lid "lid"
               OpName %work "work"
               OpName %track "track"
               OpName %i "i"
               OpName %sum "sum"
               OpName %n "n"
               OpName %done "done"
               OpDecorate %lid BuiltIn LocalInvocationIndex
               OpMemberDecorate %Inner 0 Offset 0
               OpMemberDecorate %Inner 1 Offset 4
               OpMemberDecorate %ProdRec 0 Offset 0
               OpMemberDecorate %ProdRec 0 PayloadDispatchIndirectAMDX
               OpMemberDecorate %ProdRec 1 Offset 12
               OpMemberDecorate %ProdRec 2 Offset 16
               OpMemberDecorate %WorkRec 0 Offset 0
               OpMemberDecorate %WorkRec 1 Offset 4
               OpDecorate %TrackRec TrackFinishWritingAMDX
               OpMemberDecorate %TrackRec 0 Offset 0
               OpDecorate %rta ArrayStride 4
               OpDecorate %Results Block
               OpMemberDecorate %Results 0 Offset 0
               OpDecorate %results DescriptorSet 0
               OpDecorate %results Binding 0
               OpDecorateId %prod_in_arr NodeMaxPayloadsAMDX %uint_1
               OpDecorateId %cons_in_arr NodeMaxPayloadsAMDX %uint_4
               OpDecorateId %share_in_arr NodeMaxPayloadsAMDX %uint_4
               OpDecorateId %track_in_arr NodeMaxPayloadsAMDX %uint_1
               OpDecorateId %work_out PayloadNodeNameAMDX %str_consumer
               OpDecorateId %work_out NodeMaxPayloadsAMDX %uint_16
               OpDecorateId %track_out PayloadNodeNameAMDX %str_tracker
               OpDecorateId %track_out NodeMaxPayloadsAMDX %uint_1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %true = OpConstantTrue %bool
      %false = OpConstantFalse %bool
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %uint 3
%fn_uint_uint = OpTypeFunction %uint %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
     %uint_8 = OpConstant %uint 8
    %uint_16 = OpConstant %uint 16
    %float_0 = OpConstant %float 0
  %float_0_5 = OpConstant %float 0.5
%str_consumer = OpConstantStringAMDX "consumer"
%str_tracker = OpSpecConstantStringAMDX "tracker"
      %Inner = OpTypeStruct %float %uint
    %ProdRec = OpTypeStruct %v3uint %uint %Inner
    %WorkRec = OpTypeStruct %uint %float
   %TrackRec = OpTypeStruct %uint
%prod_in_arr = OpTypeNodePayloadArrayAMDX %ProdRec
%cons_in_arr = OpTypeNodePayloadArrayAMDX %WorkRec
%share_in_arr = OpTypeNodePayloadArrayAMDX %WorkRec
%track_in_arr = OpTypeNodePayloadArrayAMDX %TrackRec
   %work_out = OpTypeNodePayloadArrayAMDX %WorkRec
  %track_out = OpTypeNodePayloadArrayAMDX %TrackRec
%p_prod_in_arr = OpTypePointer NodePayloadAMDX %prod_in_arr
%p_cons_in_arr = OpTypePointer NodePayloadAMDX %cons_in_arr
%p_share_in_arr = OpTypePointer NodePayloadAMDX %share_in_arr
%p_track_in_arr = OpTypePointer NodePayloadAMDX %track_in_arr
 %p_work_out = OpTypePointer NodePayloadAMDX %work_out
%p_track_out = OpTypePointer NodePayloadAMDX %track_out
%pf_track_out = OpTypePointer Function %track_out
   %p_n_uint = OpTypePointer NodePayloadAMDX %uint
  %p_n_float = OpTypePointer NodePayloadAMDX %float
  %pf_uint = OpTypePointer Function %uint
  %pf_float = OpTypePointer Function %float
   %pi_uint = OpTypePointer Input %uint
        %rta = OpTypeRuntimeArray %uint
    %Results = OpTypeStruct %rta
  %p_results = OpTypePointer StorageBuffer %Results
   %ps_uint = OpTypePointer StorageBuffer %uint
    %prod_in = OpVariable %p_prod_in_arr NodePayloadAMDX
    %cons_in = OpVariable %p_cons_in_arr NodePayloadAMDX
   %share_in = OpVariable %p_share_in_arr NodePayloadAMDX
   %track_in = OpVariable %p_track_in_arr NodePayloadAMDX
        %lid = OpVariable %pi_uint Input
    %results = OpVariable %p_results StorageBuffer

      %scale = OpFunction %uint None %fn_uint_uint
          %x = OpFunctionParameter %uint
         %s0 = OpLabel
        %odd = OpBitwiseAnd %uint %x %uint_1
      %isodd = OpINotEqual %bool %odd %uint_0
               OpSelectionMerge %s3 None
               OpBranchConditional %isodd %s1 %s2
         %s1 = OpLabel
         %x3 = OpIMul %uint %x %uint_3
               OpBranch %s3
         %s2 = OpLabel
         %x2 = OpShiftRightLogical %uint %x %uint_1
               OpBranch %s3
         %s3 = OpLabel
         %sx = OpPhi %uint %x3 %s1 %x2 %s2
               OpReturnValue %sx
               OpFunctionEnd

   %producer = OpFunction %void None %fn
         %p0 = OpLabel
          %i = OpVariable %pf_uint Function
    %scratch = OpVariable %pf_track_out Function
      %cnt_p = OpAccessChain %p_n_uint %prod_in %uint_0 %uint_1
     %cnt_in = OpLoad %uint %cnt_p
     %capped = OpULessThan %bool %cnt_in %uint_16
      %count = OpSelect %uint %capped %cnt_in %uint_16
     %wt_ptr = OpAccessChain %p_n_float %prod_in %uint_0 %uint_2 %uint_0
     %weight = OpLoad %float %wt_ptr
       %work = OpAllocateNodePayloadsAMDX %p_work_out %uint_2 %count %uint_0
        %tid = OpLoad %uint %lid
               OpStore %i %tid
               OpBranch %p1
         %p1 = OpLabel
               OpLoopMerge %p4 %p3 None
               OpBranch %p2
         %p2 = OpLabel
         %iv = OpLoad %uint %i
       %more = OpULessThan %bool %iv %count
               OpBranchConditional %more %p5 %p4
         %p5 = OpLabel
         %sv = OpFunctionCall %uint %scale %iv
        %w_v = OpAccessChain %p_n_uint %work %iv %uint_0
               OpStore %w_v %sv
        %w_f = OpAccessChain %p_n_float %work %iv %uint_1
               OpStore %w_f %weight
               OpBranch %p3
         %p3 = OpLabel
        %iv2 = OpLoad %uint %i
       %next = OpIAdd %uint %iv2 %uint_8
               OpStore %i %next
               OpBranch %p1
         %p4 = OpLabel
               OpEnqueueNodePayloadsAMDX %work
      %first = OpIEqual %bool %tid %uint_0
     %tcount = OpSelect %uint %first %uint_1 %uint_0
      %valid = OpIsNodePayloadValidAMDX %bool %scratch %uint_0
      %wants = OpLogicalAnd %bool %first %valid
      %count1 = OpSelect %uint %wants %uint_1 %uint_0
      %track = OpAllocateNodePayloadsAMDX %p_track_out %uint_4 %count1 %uint_0
               OpSelectionMerge %p7 None
               OpBranchConditional %wants %p6 %p7
         %p6 = OpLabel
        %t_v = OpAccessChain %p_n_uint %track %uint_0 %uint_0
               OpStore %t_v %count
               OpBranch %p7
         %p7 = OpLabel
               OpEnqueueNodePayloadsAMDX %track
               OpReturn
               OpFunctionEnd

   %consumer = OpFunction %void None %fn
         %c0 = OpLabel
        %sum = OpVariable %pf_float Function
          %j = OpVariable %pf_uint Function
          %n = OpNodePayloadArrayLengthAMDX %uint %cons_in
               OpStore %sum %float_0
               OpStore %j %uint_0
               OpBranch %c1
         %c1 = OpLabel
               OpLoopMerge %c4 %c3 None
               OpBranch %c2
         %c2 = OpLabel
         %jv = OpLoad %uint %j
      %cmore = OpULessThan %bool %jv %n
               OpBranchConditional %cmore %c5 %c4
         %c5 = OpLabel
        %r_f = OpAccessChain %p_n_float %cons_in %jv %uint_1
         %rf = OpLoad %float %r_f
        %acc = OpLoad %float %sum
       %acc2 = OpFAdd %float %acc %rf
               OpStore %sum %acc2
               OpBranch %c3
         %c3 = OpLabel
        %jv2 = OpLoad %uint %j
        %jn = OpIAdd %uint %jv2 %uint_1
               OpStore %j %jn
               OpBranch %c1
         %c4 = OpLabel
       %tot = OpLoad %float %sum
      %half = OpFMul %float %tot %float_0_5
       %bits = OpConvertFToU %uint %half
       %ctid = OpLoad %uint %lid
        %out = OpAccessChain %ps_uint %results %uint_0 %ctid
               OpStore %out %bits
               OpReturn
               OpFunctionEnd

     %sharer = OpFunction %void None %fn
         %h0 = OpLabel
         %hn = OpNodePayloadArrayLengthAMDX %uint %share_in
       %htid = OpLoad %uint %lid
       %hin = OpULessThan %bool %htid %hn
               OpSelectionMerge %h2 None
               OpBranchConditional %hin %h1 %h2
         %h1 = OpLabel
        %h_v = OpAccessChain %p_n_uint %share_in %htid %uint_0
         %hv = OpLoad %uint %h_v
       %hout = OpAccessChain %ps_uint %results %uint_0 %hv
               OpStore %hout %htid
               OpBranch %h2
         %h2 = OpLabel
               OpReturn
               OpFunctionEnd

    %tracker = OpFunction %void None %fn
         %t0 = OpLabel
       %done = OpFinishWritingNodePayloadAMDX %bool %track_in
               OpSelectionMerge %t2 None
               OpBranchConditional %done %t1 %t2
         %t1 = OpLabel
        %k_v = OpAccessChain %p_n_uint %track_in %uint_0 %uint_0
         %kv = OpLoad %uint %k_v
       %kout = OpAccessChain %ps_uint %results %uint_0 %uint_0
               OpStore %kout %kv
               OpBranch %t2
         %t2 = OpLabel
               OpReturn
               OpFunctionEnd
"""

# Two allocations with the same operands are two allocations: no pass may merge them.
TWIN_ALLOCATIONS = REFERENCE_AMDX.replace("""               OpEnqueueNodePayloadsAMDX %outs
""", """               OpEnqueueNodePayloadsAMDX %outs
      %outs2 = OpAllocateNodePayloadsAMDX %p_out_arr %uint_2 %uint_4 %uint_0
         %o2 = OpAccessChain %p_uint %outs2 %uint_0 %uint_0
               OpStore %o2 %v
               OpEnqueueNodePayloadsAMDX %outs2
""")

MODULES = {"reference": REFERENCE_AMDX, "rich": RICH_AMDX, "twin allocations": TWIN_ALLOCATIONS}


def amdx_counts(words: list[int]) -> collections.Counter[str]:
    """How often each AMDX opcode and enumerant (capability, storage class, decoration, execution
    mode) occurs; ids are numbers, so no name of ours counts."""
    return collections.Counter(re.findall(r"\b\w*AMDX\b", tools.disassemble(words, friendly_names=False)))


@pytest.mark.parametrize("text", MODULES.values(), ids=MODULES.keys())
def test_optimized_modules_stay_valid_and_keep_every_amdx_instruction(text):
    words = tools.assemble(text, "vulkan1.3")
    assert tools.validate(words, "vulkan1.3") == [] and lint(words) == []
    optimized = optimize(words)
    assert tools.validate(optimized, "vulkan1.3") == []
    assert lint(optimized) == []
    assert amdx_counts(optimized) == amdx_counts(words)
    for kept in ("OpAllocateNodePayloadsAMDX", "OpEnqueueNodePayloadsAMDX", "OpConstantStringAMDX",
                 "PayloadNodeNameAMDX", "NodeMaxPayloadsAMDX"):
        assert amdx_counts(optimized)[kept] > 0


def test_the_passes_do_optimize():
    words = tools.assemble(RICH_AMDX, "vulkan1.3")
    optimized = tools.disassemble(optimize(words))
    assert "OpFunctionCall" in tools.disassemble(words)
    assert "OpFunctionCall" not in optimized and "%scale = OpFunction" not in optimized    # inlined
    assert "OpPhi" in optimized                                                          # ssa-rewrite
    assert len(optimize(words)) < len(words)
    assert optimize(words) == optimize(words)


def test_the_pass_list_has_no_banned_pass():
    assert set(BANNED) == {"eliminate-dead-members", "eliminate-dead-const"}
    assert not {name.partition("=")[0] for name in PASSES} & set(BANNED)


def o_passes() -> list[str]:
    """What `spirv-opt -O` runs, from `spirv-opt --help`."""
    help_text = subprocess.run([str(spirv_opt()), "--help"], capture_output=True, text=True, check=True).stdout
    section = re.search(r"^  -O\n(.*?)^  -Os\n", help_text, flags=re.M | re.S)
    assert section, "no -O section in spirv-opt --help"
    return re.findall(r"^\t\t(\S+)$", section.group(1), flags=re.M)


def test_the_pass_list_is_what_minus_o_runs_without_the_banned_passes():
    """If SPIRV-Tools changes -O, this fails: check the new passes on AMDX modules, then update."""
    assert list(PASSES) == [name for name in o_passes() if name.partition("=")[0] not in BANNED]


@pytest.mark.parametrize("name", BANNED)
@pytest.mark.parametrize("text", [REFERENCE_AMDX, RICH_AMDX], ids=["reference", "rich"])
def test_the_banned_passes_still_break_amdx_modules(name, text):
    """spirv-opt does not validate its output: the pass "succeeds" and the module is invalid."""
    broken = run_spirv_opt(tools.assemble(text, "vulkan1.3"), "vulkan1.3", [f"--{name}"])
    assert tools.validate(broken, "vulkan1.3") != []


def test_eliminate_dead_const_deletes_the_node_names():
    broken = run_spirv_opt(tools.assemble(REFERENCE_AMDX, "vulkan1.3"), "vulkan1.3", ["--eliminate-dead-const"])
    assert "OpConstantStringAMDX" not in tools.disassemble(broken)
    [message] = tools.validate(broken, "vulkan1.3")
    assert "forward referenced IDs have not been defined" in message


def test_spirv_opt_failures_raise_with_its_message():
    invalid = tools.assemble(REFERENCE_AMDX.replace('OpExtension "SPV_AMDX_shader_enqueue"\n', ""), "vulkan1.3")
    with pytest.raises(tools.SpirvToolsError, match="spirv-opt failed: .*ShaderEnqueueAMDX"):
        optimize(invalid)
    with pytest.raises(tools.SpirvToolsError, match="spirv-opt failed: .*1.6"):     # the env is used
        optimize(tools.assemble(REFERENCE_AMDX, "vulkan1.3"), "vulkan1.2")


def test_missing_spirv_opt(monkeypatch):
    words = tools.assemble(REFERENCE_AMDX, "vulkan1.3")
    monkeypatch.setattr(tools, "TOOLS_DISTRIBUTION", "wgc-no-such-distribution")
    with pytest.raises(tools.ToolsUnavailable, match="wgc-no-such-distribution"):
        optimize(words)
