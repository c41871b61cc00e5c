"""The SPIR-V groundwork: grammar lookups, the module builder and the in-process SPIRV-Tools.

Every module built here goes through `tools.validate` (except the one that is broken on purpose).
"""

from __future__ import annotations

import ctypes
import re

import pytest

from wgc import driver
from wgc.spirv import grammar, tools
from wgc.spirv.builder import VERSION_FOR_ENV, Builder, string_words

# ../shared/reference/spirv-amdx.md §2.2: the validated two-node AMDX module.
REFERENCE_AMDX = """
               OpCapability Shader
               OpCapability ShaderEnqueueAMDX
               OpExtension "SPV_AMDX_shader_enqueue"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %main_in
               OpEntryPoint GLCompute %leaf "leaf" %leaf_in
               OpExecutionMode %main LocalSize 4 1 1
               OpExecutionModeId %main IsApiEntryAMDX %true
               OpExecutionModeId %main StaticNumWorkgroupsAMDX %uint_1 %uint_1 %uint_1
               OpExecutionModeId %main ShaderIndexAMDX %uint_0
               OpExecutionMode %leaf LocalSize 1 1 1
               OpExecutionMode %leaf CoalescingAMDX
               OpExecutionModeId %leaf IsApiEntryAMDX %false
               OpExecutionModeId %leaf MaxNodeRecursionAMDX %uint_0
               OpMemberDecorate %InRec 0 Offset 0
               OpMemberDecorate %LeafRec 0 Offset 0
               OpDecorateId %main_in_arr NodeMaxPayloadsAMDX %uint_1
               OpDecorateId %leaf_in_arr NodeMaxPayloadsAMDX %uint_1
               OpDecorateId %out_arr PayloadNodeNameAMDX %str_leaf
               OpDecorateId %out_arr NodeMaxPayloadsAMDX %uint_4
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %true = OpConstantTrue %bool
      %false = OpConstantFalse %bool
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_4 = OpConstant %uint 4
   %str_leaf = OpConstantStringAMDX "leaf"
      %InRec = OpTypeStruct %uint
    %LeafRec = OpTypeStruct %uint
%main_in_arr = OpTypeNodePayloadArrayAMDX %InRec
%leaf_in_arr = OpTypeNodePayloadArrayAMDX %LeafRec
    %out_arr = OpTypeNodePayloadArrayAMDX %LeafRec
%p_main_in_arr = OpTypePointer NodePayloadAMDX %main_in_arr
%p_leaf_in_arr = OpTypePointer NodePayloadAMDX %leaf_in_arr
  %p_out_arr = OpTypePointer NodePayloadAMDX %out_arr
     %p_uint = OpTypePointer NodePayloadAMDX %uint
    %main_in = OpVariable %p_main_in_arr NodePayloadAMDX
    %leaf_in = OpVariable %p_leaf_in_arr NodePayloadAMDX
       %main = OpFunction %void None %fn
         %m0 = OpLabel
        %inp = OpAccessChain %p_uint %main_in %uint_0 %uint_0
          %v = OpLoad %uint %inp
       %outs = OpAllocateNodePayloadsAMDX %p_out_arr %uint_2 %uint_4 %uint_0
         %o0 = OpAccessChain %p_uint %outs %uint_0 %uint_0
               OpStore %o0 %v
               OpEnqueueNodePayloadsAMDX %outs
               OpReturn
               OpFunctionEnd
       %leaf = OpFunction %void None %fn
         %l0 = OpLabel
          %n = OpNodePayloadArrayLengthAMDX %uint %leaf_in
         %lp = OpAccessChain %p_uint %leaf_in %uint_0 %uint_0
         %lv = OpLoad %uint %lp
               OpReturn
               OpFunctionEnd
"""

ENVS = ["vulkan1.2", "vulkan1.3", "vulkan1.4"]


def build_amdx(version=(1, 6), *, names=True, capability=True) -> Builder:
    """The §2.2 module, built in the order a lowering would (entry points and modes last)."""
    b = Builder(version, names=names)
    b.capability("Shader")
    if capability:
        b.capability("ShaderEnqueueAMDX")
    b.extension("SPV_AMDX_shader_enqueue")
    void = b.type_void()
    fn = b.type_function(void)
    true, false = b.constant_bool(True), b.constant_bool(False)
    uint = b.type_int(32, signed=False)
    u0, u1, u2, u4 = (b.constant_uint(v) for v in (0, 1, 2, 4))
    leaf_name = b.constant_string_amdx("leaf")          # before the type it names
    in_rec = b.type_struct([uint], fresh=True)
    leaf_rec = b.type_struct([uint], fresh=True)
    b.member_decorate(in_rec, 0, "Offset", 0)
    b.member_decorate(leaf_rec, 0, "Offset", 0)
    main_in_arr = b.type_node_payload_array(in_rec)
    leaf_in_arr = b.type_node_payload_array(leaf_rec)
    out_arr = b.type_node_payload_array(leaf_rec)
    b.decorate(main_in_arr, "NodeMaxPayloadsAMDX", u1)
    b.decorate(leaf_in_arr, "NodeMaxPayloadsAMDX", u1)
    b.decorate(out_arr, "PayloadNodeNameAMDX", leaf_name)
    b.decorate(out_arr, "NodeMaxPayloadsAMDX", u4)
    p_main_in = b.type_pointer("NodePayloadAMDX", main_in_arr)
    p_leaf_in = b.type_pointer("NodePayloadAMDX", leaf_in_arr)
    p_out = b.type_pointer("NodePayloadAMDX", out_arr)
    p_uint = b.type_pointer("NodePayloadAMDX", uint)
    main_in = b.variable(p_main_in, "NodePayloadAMDX")
    leaf_in = b.variable(p_leaf_in, "NodePayloadAMDX")

    main = b.begin_function(void, fn, "None")
    b.label()
    value = b.emit("OpLoad", uint, b.emit("OpAccessChain", p_uint, main_in, u0, u0))
    outs = b.emit("OpAllocateNodePayloadsAMDX", p_out, u2, u4, u0)
    b.emit("OpStore", b.emit("OpAccessChain", p_uint, outs, u0, u0), value)
    assert b.emit("OpEnqueueNodePayloadsAMDX", outs) == 0         # no result id
    b.emit("OpReturn")
    b.end_function()

    leaf = b.begin_function(void, fn)
    b.label()
    b.emit("OpNodePayloadArrayLengthAMDX", uint, leaf_in)
    b.emit("OpLoad", uint, b.emit("OpAccessChain", p_uint, leaf_in, u0, u0))
    b.emit("OpReturn")
    b.end_function()

    b.entry_point("GLCompute", main, "main", [main_in])
    b.entry_point("GLCompute", leaf, "leaf", [leaf_in])
    b.execution_mode(main, "LocalSize", 4, 1, 1)
    b.execution_mode(main, "IsApiEntryAMDX", true)
    b.execution_mode(main, "StaticNumWorkgroupsAMDX", u1, u1, u1)
    b.execution_mode(main, "ShaderIndexAMDX", u0)
    b.execution_mode(leaf, "LocalSize", 1, 1, 1)
    b.execution_mode(leaf, "CoalescingAMDX")
    b.execution_mode(leaf, "IsApiEntryAMDX", false)
    b.execution_mode(leaf, "MaxNodeRecursionAMDX", u0)
    for text, ident in (("main", main), ("leaf", leaf), ("main_in", main_in),
                        ("leaf_in", leaf_in), ("InRec", in_rec), ("LeafRec", leaf_rec)):
        b.name(ident, text)
    b.member_name(in_rec, 0, "value")
    return b


def build_compute(*, shader_capability=True) -> Builder:
    """GLCompute: a StorageBuffer struct with Offsets, a GLSL.std.450 FMix, a counted loop."""
    b = Builder(VERSION_FOR_ENV["vulkan1.3"])
    if shader_capability:
        b.capability("Shader")
    void, uint, f32 = b.type_void(), b.type_int(32), b.type_float(32)
    v3uint = b.type_vector(uint, 3)
    boolean = b.type_bool()
    values = b.type_runtime_array(f32, fresh=True)
    b.decorate(values, "ArrayStride", 4)
    data = b.type_struct([uint, f32, values], fresh=True)
    b.decorate(data, "Block")
    for member, offset in enumerate((0, 4, 8)):
        b.member_decorate(data, member, "Offset", offset)
    b.member_name(data, 0, "count")
    b.member_name(data, 2, "values")
    p_data = b.type_pointer("StorageBuffer", data)
    p_uint = b.type_pointer("StorageBuffer", uint)
    p_f32 = b.type_pointer("StorageBuffer", f32)
    p_gid = b.type_pointer("Input", v3uint)
    buffer = b.variable(p_data, "StorageBuffer")
    b.decorate(buffer, "DescriptorSet", 0)
    b.decorate(buffer, "Binding", 1)
    gid = b.variable(p_gid, "Input")
    b.decorate(gid, "BuiltIn", "GlobalInvocationId")
    u0, u1, u2 = b.constant_uint(0), b.constant_uint(1), b.constant_uint(2)
    half, one = b.constant_float(0.5), b.constant_float(1.0)

    main = b.begin_function(void, b.type_function(void), grammar.mask("FunctionControl"))
    entry = b.label()
    acc = b.local_variable(b.type_pointer("Function", f32), b.constant_float(0.0))
    base = b.emit("OpCompositeExtract", uint, b.emit("OpLoad", v3uint, gid), 0)
    count = b.emit("OpLoad", uint, b.emit("OpAccessChain", p_uint, buffer, u0))
    header, body, cont, merge = (b.new_id() for _ in range(4))
    following = b.new_id()                                   # defined in the continue block
    b.emit("OpBranch", header)
    b.label(header)
    i = b.emit("OpPhi", uint, base, entry, following, cont)
    more = b.emit("OpULessThan", boolean, i, count)
    b.emit("OpLoopMerge", merge, cont, "DontUnroll")
    b.emit("OpBranchConditional", more, body, merge)
    b.label(body)
    slot = b.emit("OpAccessChain", p_f32, buffer, u2, i)
    mixed = b.ext_inst(f32, "FMix", b.emit("OpLoad", f32, slot), one, half)
    b.emit("OpStore", slot, mixed, "Aligned", 4)             # a MemoryAccess operand with a parameter
    b.emit("OpStore", acc, b.emit("OpFAdd", f32, b.emit("OpLoad", f32, acc), mixed))
    b.emit("OpBranch", cont)
    b.label(cont)
    b.emit("OpIAdd", uint, i, u1, result=following)
    b.emit("OpBranch", header)
    b.label(merge)
    b.emit("OpReturn")
    b.end_function()
    b.entry_point("GLCompute", main, "main", [buffer, gid])
    b.execution_mode(main, "LocalSize", 64, 1, 1)
    b.name(main, "main")
    return b


def canonical(text: str) -> list[str]:
    """Assembly lines without the header, every %id renamed by order of first appearance."""
    names: dict[str, str] = {}
    rename = lambda m: names.setdefault(m.group(0), f"%{len(names)}")  # noqa: E731
    return [re.sub(r"%[\w.]+", rename, line.strip()) for line in text.splitlines()
            if line.strip() and not line.startswith(";")]


# --- the AMDX module ----------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVS)
def test_amdx_module_validates(env):
    b = build_amdx(VERSION_FOR_ENV[env])
    assert tools.validate(b.to_words(), env) == []
    assert tools.validate(b.to_bytes(), env) == []


def test_amdx_module_is_the_reference_module():
    ours = tools.disassemble(build_amdx(names=False).to_words())
    reference = tools.disassemble(tools.assemble(REFERENCE_AMDX, "vulkan1.3"))
    assert canonical(ours) == canonical(reference)


def test_amdx_module_names_and_id_forms():
    text = tools.disassemble(build_amdx().to_words())
    assert "OpExecutionModeId %main StaticNumWorkgroupsAMDX %uint_1 %uint_1 %uint_1" in text
    assert "OpExecutionMode %leaf CoalescingAMDX" in text
    assert re.search(r"OpDecorateId %\w+ PayloadNodeNameAMDX %\w+", text)
    assert 'OpMemberName %InRec 0 "value"' in text
    assert "OpEntryPoint GLCompute %main \"main\" %main_in" in text


def test_amdx_needs_spirv_1_4():
    with pytest.raises(ValueError, match="requires SPIR-V 1.4"):
        build_amdx((1, 3)).to_words()


def test_decorate_id_operand_after_target_is_rejected():
    b = Builder()
    b.capability("Shader", "ShaderEnqueueAMDX")
    arr = b.type_node_payload_array(b.type_struct([b.type_int()], fresh=True))
    b.decorate(arr, "PayloadNodeNameAMDX", b.constant_string_amdx("late"))
    with pytest.raises(ValueError, match="defined after the target"):
        b.to_words()


# --- a plain compute module ---------------------------------------------------------------------

def test_compute_module_validates():
    words = build_compute().to_words()
    assert tools.validate(words, "vulkan1.3") == []
    text = tools.disassemble(words)
    assert 'OpExtInstImport "GLSL.std.450"' in text
    assert "OpLoopMerge" in text and "DontUnroll" in text
    assert "FMix" in text
    assert re.search(r"OpMemberDecorate %\w+ 2 Offset 8", text)
    assert re.search(r"OpExtInst %float %\w+ FMix", text)
    assert "OpStore %" in text and "Aligned 4" in text
    # the Function variable sits right after the first label, before the other instructions
    lines = [line.split("=")[-1].split()[0] for line in text.splitlines()
             if "Op" in line and not line.startswith(";")]
    first = lines.index("OpFunction")
    assert lines[first + 1:first + 3] == ["OpLabel", "OpVariable"]


def test_broken_module_gives_the_validator_message():
    messages = tools.validate(build_compute(shader_capability=False).to_words(), "vulkan1.3")
    assert len(messages) == 1
    # line 2: the instruction index (OpExtInstImport is instruction 1)
    assert messages[0].startswith("error: line 2: Operand 2 of MemoryModel requires one of "
                                  "these capabilities: Shader")
    assert "OpMemoryModel Logical GLSL450" in messages[0]
    amdx = tools.validate(build_amdx(capability=False).to_words(), "vulkan1.3")
    assert "requires one of these capabilities: ShaderEnqueueAMDX" in amdx[0]


def test_scalar_constants_encode_and_validate():
    b = Builder()
    b.capability("Shader", "Int64", "Int16", "Float64", "Float16")
    long_ = b.type_int(64, signed=True)
    short = b.type_int(16, signed=True)
    consts = [b.constant(long_, -5), b.constant(long_, 1 << 40), b.constant(short, -2),
              b.constant_float(2.5, 64), b.constant_float(-1.5, 16), b.constant_int(-7)]
    vec = b.constant_composite(b.type_vector(b.type_float(), 2),
                               [b.constant_float(1.0), b.constant_float(2.0)])
    b.constant_null(b.type_vector(b.type_int(), 4))
    b.undef(b.type_float())
    void = b.type_void()
    main = b.begin_function(void, b.type_function(void))
    b.label()
    merge, case, default = b.new_id(), b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", merge, "None")
    b.emit("OpSwitch", consts[-1], default, 1, case, -3, case)   # PairLiteralIntegerIdRef
    for label in (case, default):
        b.label(label)
        b.emit("OpBranch", merge)
    b.label(merge)
    b.emit("OpReturn")
    b.end_function()
    b.entry_point("GLCompute", main, "main")
    b.execution_mode(main, "LocalSize", 1, 1, 1)
    words = b.to_words()
    assert tools.validate(words, "vulkan1.3") == []
    text = tools.disassemble(words)
    assert re.search(r"OpSwitch %int_n7 %\d+ 1 %(\d+) -3 %\1", text)
    for expected in ("OpConstant %long -5", "OpConstant %long 1099511627776",
                     "OpConstant %short -2", "OpConstant %double 2.5",
                     "OpConstant %half -0x1.8p+0", "OpConstant %int -7",
                     "OpConstantNull %v4uint", "OpUndef %float"):
        assert expected in text
    assert len(set(consts + [vec])) == 7


# --- round trips and output format --------------------------------------------------------------

@pytest.mark.parametrize("build", [build_amdx, build_compute])
def test_disassemble_assemble_round_trip(build):
    words = build().to_words()
    raw = tools.disassemble(words, friendly_names=False)
    again = tools.assemble(raw, "vulkan1.3", preserve_numeric_ids=True)
    assert again[:2] == words[:2] and again[3:] == words[3:]   # word 2: the generator
    friendly = tools.disassemble(words)
    assert canonical(tools.disassemble(tools.assemble(friendly, "vulkan1.3"))) == \
        canonical(friendly)


def test_header_bytes_and_determinism():
    first, second = build_amdx().to_bytes(), build_amdx().to_bytes()
    assert first == second
    assert first[:4] == bytes([0x03, 0x02, 0x23, 0x07])
    words = build_amdx().to_words()
    assert words[0] == grammar.magic_number() == 0x07230203
    assert words[1] == 0x00010600 and words[2] == 0 and words[4] == 0
    assert Builder((1, 5)).to_words()[1] == 0x00010500


def test_string_words():
    assert string_words("leaf") == [0x6661656C, 0]
    assert string_words("abc") == [0x00636261]
    assert string_words("") == [0]
    assert string_words("é") == [0x0000A9C3]
    with pytest.raises(ValueError):
        string_words("a\0b")


# --- deduplication ------------------------------------------------------------------------------

def test_types_and_constants_are_deduplicated():
    b = Builder()
    b.capability("Shader", "ShaderEnqueueAMDX")
    b.extension("SPV_AMDX_shader_enqueue")
    uint = b.type_int(32)
    assert b.type_int(32, signed=False) == uint != b.type_int(32, signed=True)
    assert b.type_vector(uint, 3) == b.type_vector(uint, 3)
    assert b.type_pointer("Function", uint) == b.type_pointer(
        grammar.enumerant("StorageClass", "Function"), uint)
    assert b.type_struct([uint]) == b.type_struct([uint])
    assert b.type_struct([uint], fresh=True) != b.type_struct([uint])
    four = b.constant_uint(4)
    assert b.type_array(uint, four) == b.type_array(uint, four) != b.type_array(uint, four,
                                                                                 fresh=True)
    assert b.type_runtime_array(uint) == b.type_runtime_array(uint)
    assert b.type_function(b.type_void(), [uint]) == b.type_function(b.type_void(), [uint])
    assert b.constant_uint(7) == b.constant(uint, 7) != b.constant_int(7)
    assert b.constant_float(1.0) == b.constant_float(1)
    assert b.constant_bool(True) == b.constant_bool(True) != b.constant_bool(False)
    assert b.constant_string_amdx("n") == b.constant_string_amdx("n")
    assert b.ext_inst_import() == b.ext_inst_import("GLSL.std.450")
    rec = b.type_struct([uint, uint])
    arrays = {b.type_node_payload_array(rec) for _ in range(3)}
    assert len(arrays) == 3
    b.decorate(rec, "Block")
    b.decorate(rec, "Block")
    b.capability("Shader")
    void = b.type_void()
    main = b.begin_function(void, b.type_function(void))
    b.label()
    b.emit("OpReturn")
    b.end_function()
    b.entry_point("GLCompute", main, "main")
    b.execution_mode(main, "LocalSize", 1, 1, 1)
    words = b.to_words()
    assert tools.validate(words, "vulkan1.3") == []
    text = tools.disassemble(words)
    assert text.count("OpDecorate") == 1
    assert text.count("OpTypeInt 32 0") == 1
    assert text.count("OpTypeNodePayloadArrayAMDX") == 3
    assert text.index("OpCapability Shader\n") < text.index("OpCapability ShaderEnqueueAMDX")


# --- the builder's own checks -------------------------------------------------------------------

def test_builder_rejects_misuse():
    b = Builder()
    uint = b.type_int()
    with pytest.raises(RuntimeError, match="no open block"):
        b.emit("OpReturn")
    void = b.type_void()
    b.begin_function(void, b.type_function(void))
    b.label()
    with pytest.raises(ValueError, match="module section"):
        b.emit("OpTypeFloat", 32)
    with pytest.raises(ValueError, match=r"use Builder.label\(\)"):
        b.emit("OpLabel")
    with pytest.raises(ValueError, match="too many"):
        b.emit("OpIAdd", uint, 1, 2, 3)
    with pytest.raises(ValueError, match="missing operand"):
        b.emit("OpIAdd", uint, 1)
    with pytest.raises(TypeError, match="expected an id"):
        b.emit("OpIAdd", uint, "x", 2)
    with pytest.raises(KeyError, match="OpIAdd"):
        b.emit("OpIAd", uint, 1, 2)
    with pytest.raises(KeyError, match="DontUnroll"):
        b.emit("OpLoopMerge", 1, 2, "DontUnrol")
    with pytest.raises(RuntimeError, match="no terminator"):
        b.end_function()
    b.emit("OpReturn")
    with pytest.raises(RuntimeError, match="no open block"):
        b.emit("OpReturn")
    b.end_function()
    with pytest.raises(ValueError, match="not a pointer type of storage class"):
        b.variable(b.type_pointer("Private", uint), "Workgroup")
    with pytest.raises(ValueError, match="does not fit"):
        b.constant_uint(-1)
    with pytest.raises(ValueError, match="needs SPIR-V 1.2"):
        Builder((1, 1)).execution_mode(1, "LocalSizeId", 2, 2, 2)


# --- grammar ------------------------------------------------------------------------------------

AMDX_NAMES = [
    ("Capability", "ShaderEnqueueAMDX", 5067), ("StorageClass", "NodePayloadAMDX", 5068),
    ("ExecutionMode", "CoalescingAMDX", 5069), ("ExecutionMode", "IsApiEntryAMDX", 5070),
    ("ExecutionMode", "MaxNodeRecursionAMDX", 5071),
    ("ExecutionMode", "StaticNumWorkgroupsAMDX", 5072), ("ExecutionMode", "ShaderIndexAMDX", 5073),
    ("ExecutionMode", "MaxNumWorkgroupsAMDX", 5077), ("ExecutionMode", "SharesInputWithAMDX", 5102),
    ("Decoration", "NodeSharesPayloadLimitsWithAMDX", 5019),
    ("Decoration", "NodeMaxPayloadsAMDX", 5020), ("Decoration", "TrackFinishWritingAMDX", 5078),
    ("Decoration", "PayloadNodeNameAMDX", 5091), ("Decoration", "PayloadNodeBaseIndexAMDX", 5098),
    ("Decoration", "PayloadNodeSparseArrayAMDX", 5099),
    ("Decoration", "PayloadNodeArraySizeAMDX", 5100),
    ("Decoration", "PayloadDispatchIndirectAMDX", 5105),
    ("BuiltIn", "RemainingRecursionLevelsAMDX", 5021), ("BuiltIn", "ShaderIndexAMDX", 5073),
]
AMDX_OPS = {"OpAllocateNodePayloadsAMDX": 5074, "OpEnqueueNodePayloadsAMDX": 5075,
            "OpTypeNodePayloadArrayAMDX": 5076, "OpFinishWritingNodePayloadAMDX": 5078,
            "OpNodePayloadArrayLengthAMDX": 5090, "OpIsNodePayloadValidAMDX": 5101,
            "OpConstantStringAMDX": 5103, "OpSpecConstantStringAMDX": 5104}


@pytest.mark.parametrize("kind, name, value", AMDX_NAMES)
def test_grammar_amdx_enumerants(kind, name, value):
    assert grammar.enumerant(kind, name) == value


def test_grammar_amdx_instructions():
    assert {name: grammar.opcode(name) for name in AMDX_OPS} == AMDX_OPS
    assert [(o.kind, o.name) for o in grammar.operands("OpAllocateNodePayloadsAMDX")] == [
        ("IdResultType", None), ("IdResult", None), ("IdScope", "Visibility"),
        ("IdRef", "Payload Count"), ("IdRef", "Node Index")]
    assert grammar.instruction("OpConstantStringAMDX").has_result
    assert not grammar.instruction("OpConstantStringAMDX").has_result_type


def test_grammar_lookups():
    assert grammar.magic_number() == 0x07230203
    assert grammar.version() >= (1, 6)
    assert grammar.enumerant("ExecutionModel", "GLCompute") == 5
    assert grammar.mask("MemorySemantics", "AcquireRelease") == 0x8
    assert grammar.mask("MemorySemantics", "AcquireRelease", "OutputMemoryKHR") == 0x1008
    assert grammar.mask("FunctionControl", "Inline") == 1
    assert grammar.mask("LoopControl", "Unroll") == 1
    assert grammar.mask("LoopControl") == 0
    assert grammar.glsl_std_450("FMix") == 46
    assert grammar.opcode("OpSDotKHR") == grammar.opcode("OpSDot")       # aliases
    assert [o.quantifier for o in grammar.operands("OpEntryPoint")] == [None, None, None, "*"]
    assert grammar.takes_id_operands("ExecutionMode", "IsApiEntryAMDX")
    assert grammar.takes_id_operands("ExecutionMode", "LocalSizeId")
    assert not grammar.takes_id_operands("ExecutionMode", "CoalescingAMDX")
    assert not grammar.takes_id_operands("ExecutionMode", "LocalSize")
    assert grammar.takes_id_operands("Decoration", "PayloadNodeNameAMDX")
    assert not grammar.takes_id_operands("Decoration", "PayloadDispatchIndirectAMDX")
    assert grammar.headers_version()


def test_grammar_unknown_names():
    with pytest.raises(KeyError, match="did you mean OpTypeNodePayloadArrayAMDX"):
        grammar.opcode("OpTypeNodePayloadArray")
    with pytest.raises(KeyError, match="ShaderEnqueueAMDX"):
        grammar.enumerant("Capability", "ShaderEnqueue")
    with pytest.raises(KeyError, match="StorageClass"):
        grammar.enumerant("StorageClas", "Function")
    with pytest.raises(KeyError, match="FMix"):
        grammar.glsl_std_450("Fmix")
    with pytest.raises(KeyError, match="AcquireRelease"):
        grammar.mask("MemorySemantics", "AcquireRelase")
    with pytest.raises(TypeError):
        grammar.mask("StorageClass", "Function")


# --- tools --------------------------------------------------------------------------------------

def test_tools_version_and_environments():
    assert tools.version().startswith("SPIRV-Tools v")
    parse = tools._lib().spvParseTargetEnv
    parse.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    parse.restype = ctypes.c_bool
    for name in [*ENVS, "spv1.6", "vulkan1.1spv1.4"]:
        env = ctypes.c_int()
        assert parse(name.encode(), ctypes.byref(env))
        assert tools.env_value(name) == env.value
    with pytest.raises(ValueError, match="unknown target environment"):
        tools.env_value("universal1.6")


def test_tools_errors():
    with pytest.raises(tools.SpirvToolsError, match="Invalid Opcode name 'OpNope'"):
        tools.assemble("OpNope", "vulkan1.3")
    with pytest.raises(ValueError, match="whole 32-bit words"):
        tools.validate(b"\x03\x02\x23", "vulkan1.3")


def test_tools_missing_library_is_explained(monkeypatch):
    monkeypatch.setattr(tools, "TOOLS_DISTRIBUTION", "wgc-no-such-distribution")
    with pytest.raises(tools.ToolsUnavailable, match="install the Python package"):
        tools._prefix_file("lib/libSPIRV-Tools-shared.so")


# --- the fast encoding (builder._simple_layout / _encode_simple) against the grammar walk -----------

def _encodings(build, *calls):
    """(words, result id) or (exception type, message) of each `_encode` call, on a fresh builder
    made by `build`, with the fast path (`fast`) or the grammar walk alone."""
    import wgc.spirv.builder as builder_module

    def run(fast: bool) -> list:
        b = build()
        out = []
        for op, operands, result in calls:
            try:
                if fast:
                    out.append(b._encode(op, operands, result))
                else:
                    out.append(b._encode_walk(op, operands, result))
            except Exception as error:  # noqa: BLE001 - compared below
                out.append((type(error), str(error)))
        return out

    assert builder_module._simple_layout("OpIAdd", 3) is not None
    return run(True), run(False)


def _typed_builder() -> Builder:
    b = Builder()
    b.type_int(32, False), b.type_float(32), b.type_int(16, True)
    return b


FAST_ENCODING_CALLS = [
    ("OpIAdd", [1, 2, 3], None), ("OpIAdd", [1, 2, 3], 40), ("OpLoad", [1, 5], None),
    ("OpLoad", [1, 5, "Volatile"], None), ("OpLoad", [1, 5, "Aligned", 4], None),
    ("OpLoad", [1, 5, "Aligned"], None), ("OpStore", [5, 6], None), ("OpStore", [5, 6, 2], None),
    ("OpLabel", [], None), ("OpLabel", [], 77), ("OpReturn", [], None), ("OpReturn", [], 3),
    ("OpName", [4, "a name"], None), ("OpName", [4, "nul\0"], None), ("OpName", [4, 5], None),
    ("OpEntryPoint", ["GLCompute", 9, "main", 10, 11], None), ("OpEntryPoint", [5, 9, "main"], None),
    ("OpEntryPoint", [99, 9, "main"], None), ("OpDecorate", [4, "Block"], None),
    ("OpDecorate", [4, "ArrayStride", 16], None), ("OpDecorate", [4, "NoSuchDecoration"], None),
    ("OpMemberDecorate", [4, 0, "Offset", 8], None), ("OpVariable", [3, "Function"], None),
    ("OpVariable", [3, 7], None), ("OpConstant", [1, (7,)], None), ("OpConstant", [1, 7], None),
    ("OpConstant", [2, 1.5], None), ("OpConstant", [3, -2], None), ("OpConstant", [1, [1, 2]], None),
    ("OpCompositeExtract", [1, 5, 0, 2], None), ("OpCompositeExtract", [1, 5, -1], None),
    ("OpCompositeExtract", [1, 5, 1 << 32], None), ("OpCompositeExtract", [1, 5, True], None),
    ("OpIAdd", [True, 2, 3], None), ("OpIAdd", [1, 0, 3], None), ("OpIAdd", [(1,), 2, 3], None),
    ("OpIAdd", [1, (2,), 3], None), ("OpIAdd", [1, 2], None), ("OpIAdd", [1, 2, 3, 4], None),
    ("OpIAdd", [], None), ("OpIAdd", [1, 2.0, 3], None), ("OpTypeVoid", [], None),
    ("OpTypeVoid", [], 12), ("OpExtInst", [1, 8, "FMix", 2, 3, 4], None),
    ("OpExtInst", [1, 8, "NoSuchInst", 2], None), ("OpExtInst", [1, 8, 46, 2, 3, 4], None),
    ("OpSelectionMerge", [6, "None"], None), ("OpLoopMerge", [6, 7, "Unroll|DontUnroll"], None),
    ("OpLoopMerge", [6, 7, "MaxIterations", 8], None), ("OpSwitch", [5, 6, 1, 7, 2, 8], None),
    ("OpPhi", [1, 2, 3, 4, 5], None), ("OpExecutionMode", [9, "LocalSize", 8, 1, 1], None),
    ("OpExecutionModeId", [9, "LocalSizeId", 2, 2, 2], None), ("OpMemoryModel", ["Logical", "GLSL450"], None),
    ("OpCapability", ["Shader"], None), ("OpCapability", [1], None), ("OpExtension", ["SPV_KHR_x"], None),
    ("OpNoSuchOp", [1], None), ("OpTypeInt", [32, 0], None), ("OpTypePointer", ["Private", 1], None),
    ("OpSpecConstantOp", [1, "IAdd", 2, 3], None), ("OpConstantStringAMDX", ["leaf"], None),
    # enum operands whose enumerant's parameters follow them
    ("OpDecorate", [4, "BuiltIn", "WorkgroupId"], None), ("OpDecorate", [4, "BuiltIn", 999999], None),
    ("OpDecorate", [4, "BuiltIn", "NoSuchBuiltIn"], None), ("OpDecorate", [4, "ArrayStride"], None),
    ("OpDecorate", [4, "ArrayStride", 16, 3], None), ("OpDecorate", [4, 6, 16], None),
    ("OpDecorate", [4, 999999, 16], None), ("OpDecorate", [4, "ArrayStride", "16"], None),
    ("OpDecorate", [4, (6,), 16], None), ("OpDecorate", [4, True, 16], None),
    ("OpDecorateId", [4, "PayloadNodeNameAMDX", 7], None), ("OpDecorateId", [4, "PayloadNodeNameAMDX", 0], None),
    ("OpMemberDecorate", [4, 1, "BuiltIn", "Position"], None),
    ("OpImageFetch", [1, 2, 3, "Lod", 4], None), ("OpImageFetch", [1, 2, 3, "Lod|ConstOffset", 4, 5], None),
    ("OpImageFetch", [1, 2, 3, "Lod|ConstOffset", 4], None), ("OpImageFetch", [1, 2, 3, "None"], None),
    ("OpCopyMemory", [1, 2, "Aligned", 4, "Aligned", 8], None), ("OpCopyMemory", [1, 2, "Volatile"], None),
    ("OpExecutionMode", [9, "LocalSize", 8, 1], None), ("OpExecutionMode", [9, "NoSuchMode"], None),
]


def test_fast_encoding_matches_the_grammar_walk():
    """Every call, well-formed or not, encodes (or fails) exactly as the grammar walk does."""
    fast, walk = _encodings(_typed_builder, *FAST_ENCODING_CALLS)
    for call, got, expected in zip(FAST_ENCODING_CALLS, fast, walk):
        assert got == expected, call
    # the walk alone checks versions too: OpExecutionModeId needs SPIR-V 1.2
    fast, walk = _encodings(lambda: Builder((1, 1)), ("OpExecutionModeId", [9, "LocalSizeId", 2, 2, 2], None))
    assert fast == walk and fast[0][0] is ValueError


@pytest.mark.parametrize("sample", ["material_dispatch.hlsl", "recursive_tree.hlsl", "mesh_materials.hlsl",
                                    "syntax_tour.hlsl"])
@pytest.mark.parametrize("options", [{}, {"debug_info": True}, {"target": "emulated"}])
def test_fast_encoding_gives_the_modules_of_the_walk(sample, options, monkeypatch):
    """Whole samples compile to the same bytes with the fast encoding off (the walk encodes all)."""
    import wgc.spirv.builder as builder_module
    from pathlib import Path

    samples = Path(__file__).resolve().parent.parent / "samples"
    compile_options = driver.Options(input=str(samples / sample), include_dirs=(str(samples / "include"),), **options)
    fast_words = []
    real = builder_module._encode_simple

    def counted(layout, values):
        words = real(layout, values)
        fast_words.append(words is not None)
        return words

    monkeypatch.setattr(builder_module, "_encode_simple", counted)
    monkeypatch.setattr(builder_module, "_IDS_ONLY", {})         # emit's own fast path learns afresh
    fast = driver.compile(compile_options)
    monkeypatch.setattr(builder_module, "_simple_layout", lambda op_name, count: None)
    monkeypatch.setattr(builder_module, "_IDS_ONLY", {})         # and stays empty: the walk encodes all
    walked = driver.compile(compile_options)
    assert not builder_module._IDS_ONLY
    assert fast.outputs == walked.outputs
    assert [str(d) for d in fast.diagnostics] == [str(d) for d in walked.diagnostics]
    if fast.outputs:
        assert sum(fast_words) > 0.8 * len(fast_words) > 100      # the fast path did the work


def test_word_array_holds_the_words_as_ctypes_did():
    """`tools._word_array` (through array.array) gives the C array ctypes' constructor gave."""
    for words in ([0x07230203, 0x00010600, 0, 5, 0], [0xFFFFFFFF, 1, 2], [-1, 1 << 32, 3]):
        expected = (ctypes.c_uint32 * len(words))(*words)     # what validate() built before
        pointer, _buffer = tools._word_array(words)
        assert pointer[:len(words)] == list(expected)
    pointer, _buffer = tools._word_array([-1, 2])
    assert pointer[:2] == [0xFFFFFFFF, 2]


def test_a_places_step_is_what_dataclasses_replace_made():
    """`Place.step` builds the place one index further in directly: every field as
    `dataclasses.replace(place, type=..., layout=..., indices=... + (index,), as_array=...)` gives,
    from a place whose every field differs from its default. A field added to `Place` fails the
    list below until `step` carries it too."""
    import dataclasses

    from wgc import types as t
    from wgc.spirv.places import MEMORY, Place

    assert [f.name for f in dataclasses.fields(Place)] == [
        "pointer", "type", "storage", "layout", "indices", "coherent", "as_array", "stage_bool"]
    array = t.array(t.UINT, 3)
    place = Place(7, t.vector(t.UINT, 3), "StorageBuffer", MEMORY, (11, 12), True, array, True)
    for as_array in (None, array):
        assert place.step(t.UINT, None, 13, as_array) == dataclasses.replace(
            place, type=t.UINT, layout=None, indices=(11, 12, 13), as_array=as_array)


def _emitted(version, calls):
    """(the outcome of each `emit` call in one block of a fresh builder, the block's words)."""
    b = Builder(version)
    b.begin_function(b.type_void(), b.type_function(b.type_void()))
    b.label()
    outcomes = []
    for name, operands, result in calls:
        try:
            outcomes.append(b.emit(name, *operands, result=result))
        except (TypeError, ValueError, KeyError) as error:
            outcomes.append(type(error))
    return outcomes, list(b._fn_blocks)


EMIT_CALLS = [("OpIAdd", [1, 2, 3], None), ("OpIAdd", [1, 2, 3], 40), ("OpIAdd", [1, 2, 3], None),
              ("OpIAdd", [1, 0, 3], None), ("OpIAdd", [1, True, 3], None), ("OpIAdd", [1, (2,), 3], None),
              ("OpIAdd", [1, 2.0, 3], None), ("OpIAdd", [1, 2], None), ("OpStore", [5, 6], None),
              ("OpStore", [5, 6], 9), ("OpStore", [5, 6, "Volatile"], None), ("OpLoad", [1, 5], None),
              ("OpLoad", [1, 5, 2], None), ("OpCompositeExtract", [1, 5, 0], None),
              ("OpCopyLogical", [1, 5], None), ("OpBranch", [7], None)]


def test_emits_fast_path_writes_what_the_encoder_writes(monkeypatch):
    """`Builder.emit` writes the instructions whose operands are all ids itself once it has seen
    them (`_IDS_ONLY`): every call, well-formed or not, gives the words, ids and errors of the
    encoder (`_encode`), whether the path has learnt the instruction or not."""
    import wgc.spirv.builder as builder_module

    monkeypatch.setattr(builder_module, "_IDS_ONLY", {})
    learning = _emitted((1, 6), EMIT_CALLS)
    assert builder_module._IDS_ONLY                               # it learnt OpIAdd, OpLoad, ...
    learnt = _emitted((1, 6), EMIT_CALLS)
    monkeypatch.setattr(builder_module, "_IDS_ONLY", {})
    monkeypatch.setattr(builder_module, "_simple_layout", lambda *args: None)
    walked = _emitted((1, 6), EMIT_CALLS)
    assert learning == learnt == walked
    outcomes, words = walked
    assert outcomes[:4] == [5, 40, 6, TypeError]     # void, its function type, the function, the label: 1-4
    assert outcomes[-1] == 0 and words[-2:] == [(2 << 16) | grammar.opcode("OpBranch"), 7]


def test_emits_fast_path_keeps_the_version_check(monkeypatch):
    """OpCopyLogical "needs SPIR-V 1.4" (the grammar's version): learnt by a 1.6 builder, it is still
    refused by a 1.3 one, as the encoder refuses it."""
    import wgc.spirv.builder as builder_module

    monkeypatch.setattr(builder_module, "_IDS_ONLY", {})
    calls = [("OpCopyLogical", [1, 5], None)]
    assert _emitted((1, 6), calls)[0] == [5]
    assert ("OpCopyLogical", 2) in builder_module._IDS_ONLY
    assert _emitted((1, 3), calls)[0] == [ValueError]


def test_types_given_lists_or_tuples_are_one_type():
    """A type's operands given as a list or as a tuple of words are one key (the same id); a fresh
    one is another, declared with the tuple form."""
    b = Builder()
    first = b.type("OpTypeStruct", 1, [2, 3])
    assert b.type("OpTypeStruct", 1, (2, 3)) == first
    fresh = b.type("OpTypeStruct", 1, [2, 3], fresh=True)
    assert fresh != first and b.type_declaration(fresh) == ("OpTypeStruct", 1, (2, 3))
    assert b.type("OpTypeStruct", 1, [2, 3]) == first


def test_int_constants_are_remembered_and_floats_keep_their_sign():
    """Int constants come from a memo (the same id, no second instruction); -0.0 and 0.0 are two
    float constants (IEEE 754: 0x80000000 and 0), though equal as Python keys; an int type refuses
    a float value even once the same int is known."""
    b = Builder()
    u32, f32 = b.type_int(32, False), b.type_float(32)
    one = b.constant(u32, 1)
    count = len(b._globals)
    assert b.constant(u32, 1) == one and len(b._globals) == count
    assert b.constant(u32, True) == one                              # as before: the same words
    assert b.constant(f32, -0.0) != b.constant(f32, 0.0)
    with pytest.raises(TypeError):
        b.constant(u32, 1.0)
    with pytest.raises(ValueError):
        b.constant(u32, 1 << 32)
    with pytest.raises(ValueError):
        b.constant(u32, 1 << 32)                                     # an error is never remembered
