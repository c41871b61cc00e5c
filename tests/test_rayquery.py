"""Inline ray tracing: RaytracingAccelerationStructure, RayDesc, RayQuery<...> and its methods in node
shaders, lowered with SPV_KHR_ray_query.

The expected instructions come from DXC's SPIR-V back end (lib/SPIRV/SpirvEmitter.cpp,
processRayQueryIntrinsics / processTraceRayInline) and the SPV_KHR_ray_query specification: the
opcode of each method, its result type, the RayQuery variable as first operand and the
intersection operand (0 candidate, 1 committed). Every module is validated with spirv-val
(vulkan1.3) by `compile_hlsl`. Diagnostics are compared as full rendered text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spirv_util import Compiled, compile_hlsl
from wgc import driver
from wgc.diagnostics import Renderer

HEAD = """
RaytracingAccelerationStructure Scene : register(t0);
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<float4> F : register(u2);
RWStructuredBuffer<float3x4> M34 : register(u3);
RWStructuredBuffer<float4x3> M43 : register(u4);
struct Rec { float3 origin; float3 direction; uint flags; };
"""


def node(body: str, declarations: str = "", flags: str = "RAY_FLAG_NONE") -> str:
    return HEAD + declarations + f"""
[Shader("node")]
[NodeLaunch("thread")]
void Trace(ThreadNodeInputRecord<Rec> rec)
{{
    RayQuery<{flags}> q;
    RayDesc ray;
    ray.Origin = rec.Get().origin;
    ray.TMin = 0.25;
    ray.Direction = rec.Get().direction;
    ray.TMax = 500.0;
    {body}
}}
"""


def function_body(c: Compiled) -> str:
    return c.asm[c.asm.index("%Trace = OpFunction"):]


def capabilities(c: Compiled) -> set[str]:
    return set(re.findall(r"OpCapability (\w+)", c.asm))


# ---------------------------------------------------------------- every method

C, K = "%uint_0", "%uint_1"      # the candidate and committed intersection operands

GETTERS = [
    # (method, how its result is stored, [expected instructions, regex, in order])
    ("CandidateType", "U[0] = {};", [rf"= OpRayQueryGetIntersectionTypeKHR %uint %q {C}$"]),
    ("CommittedStatus", "U[0] = {};", [rf"= OpRayQueryGetIntersectionTypeKHR %uint %q {K}$"]),
    ("CandidateInstanceIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionInstanceIdKHR %uint %q {C}$"]),
    ("CommittedInstanceIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionInstanceIdKHR %uint %q {K}$"]),
    ("CandidateInstanceID", "U[0] = {};", [rf"= OpRayQueryGetIntersectionInstanceCustomIndexKHR %uint %q {C}$"]),
    ("CommittedInstanceID", "U[0] = {};", [rf"= OpRayQueryGetIntersectionInstanceCustomIndexKHR %uint %q {K}$"]),
    ("CandidateInstanceContributionToHitGroupIndex", "U[0] = {};",
     [rf"= OpRayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR %uint %q {C}$"]),
    ("CommittedInstanceContributionToHitGroupIndex", "U[0] = {};",
     [rf"= OpRayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR %uint %q {K}$"]),
    ("CandidateGeometryIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionGeometryIndexKHR %uint %q {C}$"]),
    ("CommittedGeometryIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionGeometryIndexKHR %uint %q {K}$"]),
    ("CandidatePrimitiveIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionPrimitiveIndexKHR %uint %q {C}$"]),
    ("CommittedPrimitiveIndex", "U[0] = {};", [rf"= OpRayQueryGetIntersectionPrimitiveIndexKHR %uint %q {K}$"]),
    ("RayFlags", "U[0] = {};", [r"= OpRayQueryGetRayFlagsKHR %uint %q$"]),
    ("CandidateObjectRayOrigin", "F[0].xyz = {};",
     [rf"= OpRayQueryGetIntersectionObjectRayOriginKHR %v3float %q {C}$"]),
    ("CommittedObjectRayOrigin", "F[0].xyz = {};",
     [rf"= OpRayQueryGetIntersectionObjectRayOriginKHR %v3float %q {K}$"]),
    ("CandidateObjectRayDirection", "F[0].xyz = {};",
     [rf"= OpRayQueryGetIntersectionObjectRayDirectionKHR %v3float %q {C}$"]),
    ("CommittedObjectRayDirection", "F[0].xyz = {};",
     [rf"= OpRayQueryGetIntersectionObjectRayDirectionKHR %v3float %q {K}$"]),
    ("WorldRayOrigin", "F[0].xyz = {};", [r"= OpRayQueryGetWorldRayOriginKHR %v3float %q$"]),
    ("WorldRayDirection", "F[0].xyz = {};", [r"= OpRayQueryGetWorldRayDirectionKHR %v3float %q$"]),
    ("CandidateTriangleBarycentrics", "F[0].xy = {};",
     [rf"= OpRayQueryGetIntersectionBarycentricsKHR %v2float %q {C}$"]),
    ("CommittedTriangleBarycentrics", "F[0].xy = {};",
     [rf"= OpRayQueryGetIntersectionBarycentricsKHR %v2float %q {K}$"]),
    ("CandidateTriangleRayT", "F[0].x = {};", [rf"= OpRayQueryGetIntersectionTKHR %float %q {C}$"]),
    ("CommittedRayT", "F[0].x = {};", [rf"= OpRayQueryGetIntersectionTKHR %float %q {K}$"]),
    ("RayTMin", "F[0].x = {};", [r"= OpRayQueryGetRayTMinKHR %float %q$"]),
    ("CandidateTriangleFrontFace", "U[0] = {} ? 1 : 0;",
     [rf"= OpRayQueryGetIntersectionFrontFaceKHR %bool %q {C}$"]),
    ("CommittedTriangleFrontFace", "U[0] = {} ? 1 : 0;",
     [rf"= OpRayQueryGetIntersectionFrontFaceKHR %bool %q {K}$"]),
    # "non-opaque" is the negation of SPIR-V's "opaque" (DXC: OpLogicalNot)
    ("CandidateProceduralPrimitiveNonOpaque", "U[0] = {} ? 1 : 0;",
     [r"%(\d+) = OpRayQueryGetIntersectionCandidateAABBOpaqueKHR %bool %q$", r"= OpLogicalNot %bool %{0}$"]),
    # an HLSL float4x3 is SPIR-V's 4 columns of 3 components: the result as it is ...
    ("CandidateObjectToWorld4x3", "M43[0] = {};",
     [rf"= OpRayQueryGetIntersectionObjectToWorldKHR %mat4v3float %q {C}$"]),
    ("CommittedObjectToWorld4x3", "M43[0] = {};",
     [rf"= OpRayQueryGetIntersectionObjectToWorldKHR %mat4v3float %q {K}$"]),
    ("CandidateWorldToObject4x3", "M43[0] = {};",
     [rf"= OpRayQueryGetIntersectionWorldToObjectKHR %mat4v3float %q {C}$"]),
    ("CommittedWorldToObject4x3", "M43[0] = {};",
     [rf"= OpRayQueryGetIntersectionWorldToObjectKHR %mat4v3float %q {K}$"]),
    # ... and the 3x4 forms its transpose
    ("CandidateObjectToWorld3x4", "M34[0] = {};",
     [rf"%(\d+) = OpRayQueryGetIntersectionObjectToWorldKHR %mat4v3float %q {C}$",
      r"= OpTranspose %mat3v4float %{0}$"]),
    ("CommittedObjectToWorld3x4", "M34[0] = {};",
     [rf"%(\d+) = OpRayQueryGetIntersectionObjectToWorldKHR %mat4v3float %q {K}$",
      r"= OpTranspose %mat3v4float %{0}$"]),
    ("CandidateWorldToObject3x4", "M34[0] = {};",
     [rf"%(\d+) = OpRayQueryGetIntersectionWorldToObjectKHR %mat4v3float %q {C}$",
      r"= OpTranspose %mat3v4float %{0}$"]),
    ("CommittedWorldToObject3x4", "M34[0] = {};",
     [rf"%(\d+) = OpRayQueryGetIntersectionWorldToObjectKHR %mat4v3float %q {K}$",
      r"= OpTranspose %mat3v4float %{0}$"]),
    # the commands
    ("Proceed", "U[0] = {} ? 1 : 0;", [r"= OpRayQueryProceedKHR %bool %q$"]),
]
COMMANDS = [
    ("q.Abort();", [r"^OpRayQueryTerminateKHR %q$"]),
    ("q.CommitNonOpaqueTriangleHit();", [r"^OpRayQueryConfirmIntersectionKHR %q$"]),
    ("q.CommitProceduralPrimitiveHit(2.5);", [r"^OpRayQueryGenerateIntersectionKHR %q %float_2_5$"]),
]


def assert_sequence(c: Compiled, patterns: list[str]) -> None:
    """Each pattern matches a later instruction line of the node's function than the one before;
    `{0}` in a pattern is the first group captured by the previous pattern."""
    lines = [line.strip() for line in function_body(c).splitlines()]
    position, captured = 0, ""
    for pattern in patterns:
        pattern = pattern.replace("{0}", captured)
        for index in range(position, len(lines)):
            found = re.search(pattern, lines[index])
            if found:
                position, captured = index + 1, (found.group(1) if found.groups() else captured)
                break
        else:
            raise AssertionError(f"no instruction matches {pattern!r} after line {position}:\n" + "\n".join(lines))


@pytest.mark.parametrize(("method", "store", "patterns"), GETTERS, ids=[g[0] for g in GETTERS])
def test_every_getter_lowers_to_its_instruction(tmp_path, method, store, patterns):
    c = compile_hlsl(node("q.TraceRayInline(Scene, 0, 0xFF, ray);\n    " + store.format(f"q.{method}()")), tmp_path)
    assert_sequence(c, [r"^OpRayQueryInitializeKHR %q ", *patterns])
    assert {"RayQueryKHR"} <= capabilities(c) and 'OpExtension "SPV_KHR_ray_query"' in c.asm


@pytest.mark.parametrize(("statement", "patterns"), COMMANDS, ids=[s for s, _ in COMMANDS])
def test_every_command_lowers_to_its_instruction(tmp_path, statement, patterns):
    c = compile_hlsl(node("q.TraceRayInline(Scene, 0, 0xFF, ray);\n    " + statement), tmp_path)
    assert_sequence(c, [r"^OpRayQueryInitializeKHR %q ", *patterns])


# ---------------------------------------------------------------- TraceRayInline


def test_trace_ray_inline_ors_the_constant_flags_with_the_argument_and_takes_ray_desc_fields_in_order(tmp_path):
    # RAY_FLAG_FORCE_OPAQUE (1) | RAY_FLAG_CULL_BACK_FACING_TRIANGLES (0x10) = 17 in the type; a dynamic argument
    c = compile_hlsl(node("q.TraceRayInline(Scene, rec.Get().flags, 0x0F, ray);",
                          flags="RAY_FLAG_FORCE_OPAQUE | RAY_FLAG_CULL_BACK_FACING_TRIANGLES"), tmp_path)
    assert_sequence(c, [
        r"^%(\d+) = OpLoad %accelerationStructureNV %Scene$",
    ])
    body = function_body(c)
    accel = re.search(r"%(\d+) = OpLoad %accelerationStructureNV %Scene$", body, re.M).group(1)
    flags = re.search(r"%(\d+) = OpBitwiseOr %uint %uint_17 %(\d+)$", body, re.M)
    assert flags, body
    ray = re.search(r"%(\d+) = OpLoad %RayDesc %ray$", body, re.M).group(1)
    parts = {}
    for index, type_ in ((0, "v3float"), (1, "float"), (2, "v3float"), (3, "float")):
        parts[index] = re.search(rf"%(\d+) = OpCompositeExtract %{type_} %{ray} {index}$", body, re.M).group(1)
    assert re.search(rf"^\s*OpRayQueryInitializeKHR %q %{accel} %{flags.group(1)} %uint_15 "
                     rf"%{parts[0]} %{parts[1]} %{parts[2]} %{parts[3]}$", body, re.M), body
    assert "RayTraversalPrimitiveCullingKHR" not in capabilities(c)


def test_constant_flags_argument_is_folded_into_one_constant(tmp_path):
    # 4 | 0x40 = 68
    c = compile_hlsl(node("q.TraceRayInline(Scene, RAY_FLAG_CULL_OPAQUE, 0xFF, ray);",
                          flags="RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH"), tmp_path)
    assert re.search(r"^\s*OpRayQueryInitializeKHR %q %\d+ %uint_68 %uint_255 ", function_body(c), re.M)
    assert c.count("OpBitwiseOr") == 0


@pytest.mark.parametrize(("flags", "argument", "culling"), [
    ("RAY_FLAG_SKIP_TRIANGLES", "0", True),
    ("RAY_FLAG_NONE", "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES", True),
    ("RAY_FLAG_NONE", "rec.Get().flags", False),
    ("RAY_FLAG_CULL_OPAQUE", "RAY_FLAG_FORCE_OPAQUE", False),
])
def test_skipping_primitives_needs_the_culling_capability(tmp_path, flags, argument, culling):
    c = compile_hlsl(node(f"q.TraceRayInline(Scene, {argument}, 0xFF, ray);", flags=flags), tmp_path)
    assert ("RayTraversalPrimitiveCullingKHR" in capabilities(c)) is culling


# ---------------------------------------------------------------- objects and descriptors


def test_acceleration_structures_are_descriptors_bound_as_t_registers(tmp_path):
    c = compile_hlsl(node("""q.TraceRayInline(Scene, 0, 0xFF, ray);
    q.TraceRayInline(Far, 0, 0xFF, ray);
    q.TraceRayInline(Many[rec.Get().flags], 0, 0xFF, ray);
    q.TraceRayInline(Any[NonUniformResourceIndex(rec.Get().flags)], 0, 0xFF, ray);""",
                          """RaytracingAccelerationStructure Far : register(t7, space2);
RaytracingAccelerationStructure Many[3] : register(t8);
RaytracingAccelerationStructure Any[] : register(t0, space5);
"""), tmp_path)
    asm = c.asm
    assert "%accelerationStructureNV = OpTypeAccelerationStructureKHR" in asm
    assert "%Scene = OpVariable %_ptr_UniformConstant_accelerationStructureNV UniformConstant" in asm
    for name, (set_, binding) in {"Scene": (0, 0), "Far": (2, 7), "Many": (0, 8), "Any": (5, 0)}.items():
        assert f"OpDecorate %{name} DescriptorSet {set_}" in asm and f"OpDecorate %{name} Binding {binding}" in asm
    assert re.search(r"%_arr_accelerationStructureNV_uint_3 = OpTypeArray %accelerationStructureNV %uint_3", asm)
    assert "OpTypeRuntimeArray %accelerationStructureNV" in asm
    assert "RuntimeDescriptorArray" in capabilities(c)
    # the non-uniform element: its access chain and the loaded structure are NonUniform
    chain = re.search(r"%(\d+) = OpAccessChain %_ptr_UniformConstant_accelerationStructureNV %Any %(\d+)", asm)
    loaded = re.search(rf"%(\d+) = OpLoad %accelerationStructureNV %{chain.group(1)}$", asm, re.M)
    assert f"OpDecorate %{chain.group(1)} NonUniform" in asm and f"OpDecorate %{loaded.group(1)} NonUniform" in asm
    assert "ShaderNonUniform" in capabilities(c)
    assert not {c for c in capabilities(c) if c.endswith("ArrayNonUniformIndexing")}


def test_ir_dump_shows_the_acceleration_structure_binding(tmp_path):
    path = tmp_path / "a.hlsl"
    path.write_text(node("q.TraceRayInline(Scene, 0, 0xFF, ray);"))
    result = driver.compile(driver.Options(input=str(path), emit="ir"))
    assert result.ok
    assert "global resource RaytracingAccelerationStructure Scene set 0 binding 0 by register(t0)" \
        in result.outputs["ir"].decode()


def test_queries_are_function_or_private_variables(tmp_path):
    c = compile_hlsl(node("""RayQuery<0> many[2];
    many[1].TraceRayInline(Scene, 0, 0xFF, ray);
    Global.TraceRayInline(Scene, 0, 0xFF, ray);
    U[0] = many[1].Proceed() && Global.Proceed() ? 1 : 0;""", "static RayQuery<0> Global;\n"), tmp_path)
    asm = c.asm
    assert "%rayQueryKHR = OpTypeRayQueryKHR" in asm and asm.count("OpTypeRayQueryKHR") == 1
    assert "%q = OpVariable %_ptr_Function_rayQueryKHR Function" in asm
    assert "%many = OpVariable %_ptr_Function__arr_rayQueryKHR_uint_2 Function" in asm
    assert "%Global = OpVariable %_ptr_Private_rayQueryKHR Private" in asm
    element = re.search(r"%(\d+) = OpAccessChain %_ptr_Function_rayQueryKHR %many %int_1", asm).group(1)
    assert re.search(rf"^\s*OpRayQueryInitializeKHR %{element} ", asm, re.M)
    assert re.search(r"^\s*OpRayQueryInitializeKHR %Global ", asm, re.M)
    assert re.search(r"OpEntryPoint GLCompute %Trace \"Trace\" .*%Global", asm)


def test_a_query_parameter_is_the_callers_query(tmp_path):
    """DXC passes a RayQuery to a function by reference: the callee initialises the caller's query."""
    c = compile_hlsl(node("""Start(q, ray);
    U[0] = q.Proceed() ? 1 : 0;""", """void Start(RayQuery<RAY_FLAG_FORCE_OPAQUE> query, RayDesc r)
{
    query.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, r);
}
""", flags="RAY_FLAG_FORCE_OPAQUE"), tmp_path)
    body = function_body(c)
    assert re.search(r"^\s*OpRayQueryInitializeKHR %q %\d+ %uint_1 %uint_255 ", body, re.M)
    assert re.search(r"= OpRayQueryProceedKHR %bool %q$", body, re.M)
    assert body.count("OpVariable %_ptr_Function_rayQueryKHR") == 1


def test_a_new_query_initialises_nothing_and_a_copy_loads_and_stores(tmp_path):
    """DXC: `RayQuery<F> r = RayQuery<F>();` stores nothing; `b = a` is OpLoad + OpStore of the query."""
    c = compile_hlsl(node("""RayQuery<0> fresh = RayQuery<0>();
    RayQuery<0> copy = fresh;
    copy = fresh;
    copy.TraceRayInline(Scene, 0, 0xFF, ray);"""), tmp_path)
    body = function_body(c)
    assert "OpStore %fresh" not in body
    loads = re.findall(r"%(\d+) = OpLoad %rayQueryKHR %fresh$", body, re.M)
    assert len(loads) == 2
    for load in loads:
        assert re.search(rf"^\s*OpStore %copy %{load}$", body, re.M)


def test_a_static_query_with_a_new_query_as_initialiser_stores_nothing(tmp_path):
    c = compile_hlsl(node("Global.TraceRayInline(Scene, 0, 0xFF, ray);",
                          "static RayQuery<0> Global = RayQuery<0>();\n"), tmp_path)
    assert "%Global = OpVariable %_ptr_Private_rayQueryKHR Private" in c.asm
    assert "OpStore %Global" not in c.asm and "OpConstantComposite %rayQueryKHR" not in c.asm


def test_query_values_that_are_no_location_are_copies(tmp_path):
    """`(c ? a : b).Proceed()` and `RayQuery<0>().RayFlags()` work on a copy in a new variable;
    `?:` of two queries is a branch that copies one of them (OpLoad + OpStore)."""
    c = compile_hlsl(node("""RayQuery<0> a, b;
    RayQuery<0> pairs[2];
    RayQuery<0> copies[2] = pairs;
    U[0] = (rec.Get().flags ? a : b).Proceed() ? 1 : 0;
    U[1] = RayQuery<0>().RayFlags();"""), tmp_path)
    body = function_body(c)
    assert re.search(r"%(\d+) = OpLoad %_arr_rayQueryKHR_uint_2 %pairs$", body, re.M)
    assert re.search(r"^\s*OpStore %copies %\d+$", body, re.M)
    for name in ("a", "b"):
        assert re.search(rf"%\d+ = OpLoad %rayQueryKHR %{name}$", body, re.M)
    proceed = re.search(r"= OpRayQueryProceedKHR %bool %(\d+)$", body, re.M).group(1)
    assert re.search(rf"%{proceed} = OpVariable %_ptr_Function_rayQueryKHR Function", body)
    flags = re.search(r"= OpRayQueryGetRayFlagsKHR %uint %(\d+)$", body, re.M).group(1)
    assert re.search(rf"%{flags} = OpVariable %_ptr_Function_rayQueryKHR Function", body)


def test_a_user_ray_desc_shadows_the_built_in(tmp_path):
    c = compile_hlsl("""
struct RayDesc { uint a; };
RWStructuredBuffer<uint> U : register(u1);
[Shader("node")]
[NodeLaunch("thread")]
void N()
{
    RayDesc d;
    d.a = 3;
    U[0] = d.a;
}
""", tmp_path)
    assert "OpTypeRayQueryKHR" not in c.asm and "RayQueryKHR" not in capabilities(c)


def test_the_force_omm_2_state_rule_can_be_lowered_to_a_warning(tmp_path):
    c = compile_hlsl(node("q.TraceRayInline(Scene, RAY_FLAG_FORCE_OMM_2_STATE, 0xFF, ray);"), tmp_path,
                     warning_flags=("no-error=hlsl-rayquery-flags",))
    assert re.search(r"^\s*OpRayQueryInitializeKHR %q %\d+ %uint_1024 ", function_body(c), re.M)


def test_sample_compiles_end_to_end(tmp_path):
    source = (Path(__file__).parent / "rayquery" / "inline_raytracing.hlsl").read_text()
    c = compile_hlsl(source, tmp_path)
    assert c.count("OpRayQueryInitializeKHR") == 2 and c.count("OpRayQueryProceedKHR") == 2
    assert "RayTraversalPrimitiveCullingKHR" in capabilities(c)      # the shadow ray skips procedurals


# ---------------------------------------------------------------- sema


def rendered(source: str, **options: object) -> str:
    result = driver.compile(driver.Options(input="-", emit="ir", **options), stdin=source.encode())  # type: ignore[arg-type]
    return Renderer().render(result.diagnostics)


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


NODE = ("struct R { uint id; float3 pos; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void N(ThreadNodeInputRecord<R> r)",
        "{")

SEMA_CASES = [
    pytest.param(
        lines(*NODE, "    uint f = r.Get().id;", "    RayQuery<f> q;", "}"),
        lines("<stdin>:7:14: error: RayQuery ray flags must be a constant expression [WG0311]",
              "    RayQuery<f> q;",
              "             ^",
              "note: 'f' is not a constant",
              "1 error generated."),
        id="non-constant-flags"),
    pytest.param(
        lines(*NODE, "    RayQuery<uint> q;", "}"),
        lines("<stdin>:6:14: error: 'RayQuery' flag argument must be a constant, not a type [WG0328]",
              "    RayQuery<uint> q;",
              "             ^~~~",
              "1 error generated."),
        id="type-as-flags"),
    pytest.param(
        lines(*NODE, "    RayQuery q;", "}"),
        lines("<stdin>:6:5: error: 'RayQuery' takes one or two constant flag arguments: "
              "RayQuery<RAY_FLAGS[, RAYQUERY_FLAGS]> [WG0328]",
              "    RayQuery q;",
              "    ^~~~~~~~",
              "1 error generated."),
        id="no-flags"),
    pytest.param(
        lines(*NODE, "    RayQuery<0> a;", "    RayQuery<1> b = a;", "}"),
        lines("<stdin>:7:21: error: cannot convert from 'RayQuery<0>' to 'RayQuery<1>' in initialization [WG0303]",
              "    RayQuery<1> b = a;",
              "                    ^",
              "1 error generated."),
        id="copy-between-flags"),
    pytest.param(
        lines(*NODE, "    RayQuery<0> a = 0;", "}"),
        lines("<stdin>:6:21: error: cannot convert from 'int' to 'RayQuery<0>' in initialization [WG0303]",
              "    RayQuery<0> a = 0;",
              "                    ^",
              "1 error generated."),
        id="init-from-int"),
    pytest.param(
        lines("RayQuery<0> Plain[2];"),
        lines("<stdin>:1:13: error: global 'RayQuery<0>[2]' 'Plain' cannot be a constant-buffer member ($Globals): "
              "a RayQuery is a local, a static or a groupshared global [WG0310]",
              "RayQuery<0> Plain[2];",
              "            ^~~~~",
              "1 error generated."),
        id="non-static-global"),
    pytest.param(
        lines("struct Probe { RayQuery<0> q; uint id; };", "Probe Plain;"),
        lines("<stdin>:2:7: error: global 'Probe' 'Plain' cannot be a constant-buffer member ($Globals): "
              "a RayQuery is a local, a static or a groupshared global [WG0310]",
              "Probe Plain;",
              "      ^~~~~",
              "1 error generated."),
        id="non-static-global-struct"),
    pytest.param(
        lines("struct Probe { RayQuery<0> q; uint id; };", "StructuredBuffer<Probe> Probes;"),
        lines("<stdin>:2:18: error: 'StructuredBuffer' element cannot contain a RayQuery [WG0310]",
              "StructuredBuffer<Probe> Probes;",
              "                 ^~~~~",
              "1 error generated."),
        id="struct-field-so-no-buffer-element"),
    pytest.param(
        lines("struct Probe { RayQuery<0> q; uint id; };", "cbuffer C { Probe probe; };"),
        lines("<stdin>:2:19: error: cbuffer member 'probe' cannot hold a RayQuery ('Probe') [WG0310]",
              "cbuffer C { Probe probe; };",
              "                  ^~~~~",
              "1 error generated."),
        id="struct-field-so-no-cbuffer-member"),
    pytest.param(
        lines("struct Probe { RayQuery<0> q; uint id; };",
              '[Shader("node")] [NodeLaunch("thread")] void N(ThreadNodeInputRecord<Probe> r) { }'),
        lines("<stdin>:2:70: error: record 'Probe' of 'ThreadNodeInputRecord' holds a resource or node object, "
              "which node records cannot hold [WG0412]",
              '[Shader("node")] [NodeLaunch("thread")] void N(ThreadNodeInputRecord<Probe> r) { }',
              "                                                                     ^~~~~",
              "1 error generated."),
        id="struct-field-so-no-record-member"),
    pytest.param(
        lines("RaytracingAccelerationStructure Scene : register(t0);", *NODE,
              "    RayQuery<0> q;",
              "    q.TraceRayInline(Scene, 0, 0xFF, r.Get().pos);", "}"),
        lines("<stdin>:8:5: error: no matching overload for call to 'RayQuery<0>::TraceRayInline("
              "RaytracingAccelerationStructure, int, int, float3)' [WG0304]",
              "    q.TraceRayInline(Scene, 0, 0xFF, r.Get().pos);",
              "    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
              "note: candidate: void RayQuery<0>::TraceRayInline(RaytracingAccelerationStructure, uint, uint, RayDesc)",
              "1 error generated."),
        id="trace-without-ray-desc"),
    pytest.param(
        lines(*NODE, "    RayQuery<0> q;", "    float t = q.CommitedRayT();", "}"),
        lines("<stdin>:7:17: error: no member named 'CommitedRayT' in 'RayQuery<0>' [WG0319]",
              "    float t = q.CommitedRayT();",
              "                ^~~~~~~~~~~~",
              "note: did you mean 'CommittedRayT'?",
              "1 error generated."),
        id="misspelled-method"),
]


@pytest.mark.parametrize(("source", "expected"), SEMA_CASES)
def test_sema_rules(source, expected):
    assert rendered(source) == expected


def test_groupshared_queries_and_query_fields_are_hlsl_and_shown(tmp_path):
    """DXC's Sema accepts both (SemaHLSL.cpp, DiagnoseTypeElements: a RayQuery is allowed in every
    object context but template arguments and node records); SPIR-V cannot hold them (WG0633, a
    target limit: tests/test_stage_policy.py), so the IR keeps them as written."""
    source = lines("RaytracingAccelerationStructure Scene : register(t0);",
                   "struct Probe { RayQuery<0> q; uint hits; };",
                   "groupshared RayQuery<RAY_FLAG_FORCE_OPAQUE> Shared;",
                   "groupshared Probe SharedProbes[2];",
                   '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]',
                   "void N()",
                   "{",
                   "    RayDesc ray = { float3(0, 0, 0), 0.0, float3(0, 0, 1), 10.0 };",
                   "    Probe p;",
                   "    p.q.TraceRayInline(Scene, 0, 0xFF, ray);",
                   "    Shared.TraceRayInline(Scene, 0, 0xFF, ray);",
                   "    p.hits = p.q.Proceed() + Shared.Proceed() + SharedProbes[1].q.Proceed();",
                   "}")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    assert result.ok and not result.diagnostics
    text = result.outputs["ir"].decode()
    assert "global groupshared RayQuery<1> Shared" in text
    assert "global groupshared Probe SharedProbes[2]" in text
    assert "p.q.TraceRayInline(Scene:RaytracingAccelerationStructure, 0u, 255u, ray:RayDesc)" in text


def test_query_flags_are_fine_under_lib_6_9_and_in_the_flag_typedefs():
    source = lines(*NODE,
                   "    RayQuery<RAY_FLAG_FORCE_OMM_2_STATE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS> q;",
                   "    RAY_FLAG f = RAY_FLAG_CULL_OPAQUE;",
                   "    COMMITTED_STATUS s = COMMITTED_PROCEDURAL_PRIMITIVE_HIT;",
                   "    CANDIDATE_TYPE c = CANDIDATE_PROCEDURAL_PRIMITIVE;",
                   "    RAYQUERY_FLAG g = RAYQUERY_FLAG_NONE;",
                   "}")
    assert rendered(source, profile="lib_6_9") == ""


def test_named_query_flags_under_lib_6_8_are_a_warning_as_in_dxc(tmp_path):
    """DXC refuses a non-zero RAYQUERY_FLAGS under SM < 6.9 only when written as a literal; the named
    constant gets its availability warning (WG0382) and compiles (SPIR-V has no RayQuery flags)."""
    source = node("q.TraceRayInline(Scene, 0, 0xFF, ray);",
                  flags="RAY_FLAG_FORCE_OMM_2_STATE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS")
    path = tmp_path / "a.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), profile="lib_6_8"))
    assert result.ok
    assert [d.code for d in result.diagnostics] == ["WG0382", "WG0382"]
    assert re.search(r"^\s*OpRayQueryInitializeKHR %q %\d+ %uint_1024 ",
                     Compiled(*_words_and_asm(result.outputs["spirv"])).asm, re.M)


def _words_and_asm(data: bytes) -> tuple[list[int], str]:
    from spirv_util import words_of
    from wgc.spirv import tools
    words = words_of(data)
    return words, tools.disassemble(words, header=False)


def test_a_helper_with_a_local_query_stays_a_function_and_both_nodes_list_the_structure(tmp_path):
    c = compile_hlsl("""
RaytracingAccelerationStructure Scene : register(t0);
RWStructuredBuffer<float> U : register(u1);
struct Rec { float3 o; };
float Probe(float3 o)
{
    RayQuery<0> q;
    RayDesc d = { o, 0.0, float3(0, 1, 0), 10.0 };
    q.TraceRayInline(Scene, 0, 0xFF, d);
    q.Proceed();
    return q.CommittedRayT();
}
[Shader("node")] [NodeLaunch("thread")]
void A(ThreadNodeInputRecord<Rec> r) { U[0] = Probe(r.Get().o); }
[Shader("node")] [NodeLaunch("thread")]
void B(ThreadNodeInputRecord<Rec> r) { U[1] = Probe(r.Get().o * 2); }
""", tmp_path)
    assert "%Probe = OpFunction %float" in c.asm and c.count("OpFunctionCall") == 2
    entries = re.findall(r"OpEntryPoint GLCompute %\w+ \"\w+\" (.*)$", c.asm, re.M)
    assert len(entries) == 2 and all("%Scene" in e.split() for e in entries)
    probe = c.asm[c.asm.index("%Probe = OpFunction"):]
    assert re.search(r"%q = OpVariable %_ptr_Function_rayQueryKHR Function", probe)


def test_non_constant_flags_do_not_hide_the_rest_of_the_body():
    """The query still gets a type: its uses are not 'undeclared', and later errors are reported."""
    source = lines(*NODE,
                   "    uint f = r.Get().id;",
                   "    RayQuery<f> q;",
                   "    q.Proceed();",
                   "    float3 v = 1;",
                   "    v.w = 2;",
                   "}")
    assert rendered(source) == lines(
        "<stdin>:7:14: error: RayQuery ray flags must be a constant expression [WG0311]",
        "    RayQuery<f> q;",
        "             ^",
        "note: 'f' is not a constant",
        "<stdin>:10:7: error: invalid swizzle 'w': 'float3' has no component 'w' [WG0306]",
        "    v.w = 2;",
        "      ^",
        "2 errors generated.")
