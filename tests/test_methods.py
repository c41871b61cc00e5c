"""Methods and operator[] of resource and node objects, and their resolution against argument types."""

from __future__ import annotations

import pytest

from wgc import types as t
from wgc.sema.methods import (
    Ambiguous,
    IndexAccess,
    MethodResolved,
    NoMatch,
    arity,
    has_methods,
    index_access,
    method_names,
    resolve_method,
)

RK, NK = t.ResourceKind, t.NodeObjectKind
F, I, U, B = t.FLOAT, t.INT, t.UINT, t.BOOL
VOID = t.VOID


def v(element: t.ScalarType, n: int) -> t.Type:
    return t.vector(element, n)


F2, F3, F4 = v(F, 2), v(F, 3), v(F, 4)
I2, I3, I4 = v(I, 2), v(I, 3), v(I, 4)
U2, U3, U4 = v(U, 2), v(U, 3), v(U, 4)
S4 = v(F, 4)
SAMPLER = t.resource(RK.SAMPLER_STATE, None)
CMP_SAMPLER = t.resource(RK.SAMPLER_COMPARISON_STATE, None)
REC = t.StructType("Rec")
OTHER = t.StructType("Other")


def res(kind: t.ResourceKind, element: t.Type | None = None) -> t.ResourceType:
    return t.resource(kind, element)


def node(kind: t.NodeObjectKind, record: t.Type | None = REC) -> t.NodeObjectType:
    return t.node_object(kind, record)


def resolved(obj: t.Type, name: str, args: list[t.Type], template: t.Type | None = None) -> MethodResolved:
    result = resolve_method(obj, name, args, template)
    assert isinstance(result, MethodResolved), result
    return result


BAB, RWBAB = res(RK.BYTE_ADDRESS_BUFFER), res(RK.RW_BYTE_ADDRESS_BUFFER)
TEX2D = res(RK.TEXTURE_2D, F4)

# object, method, arguments, expected parameters, result, out parameters
CASES = [
    # typed buffers
    (res(RK.BUFFER, F4), "Load", [I], [I], F4, ()),
    (res(RK.BUFFER, F4), "Load", [U], [I], F4, ()),
    (res(RK.RW_BUFFER, U), "Load", [I, U], [I, U], U, (1,)),
    (res(RK.BUFFER, F4), "GetDimensions", [U], [U], VOID, (0,)),
    # structured buffers
    (res(RK.STRUCTURED_BUFFER, REC), "Load", [I], [I], REC, ()),
    (res(RK.STRUCTURED_BUFFER, REC), "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    (res(RK.RW_STRUCTURED_BUFFER, REC), "IncrementCounter", [], [], U, ()),
    (res(RK.RW_STRUCTURED_BUFFER, REC), "DecrementCounter", [], [], U, ()),
    (res(RK.APPEND_STRUCTURED_BUFFER, REC), "Append", [REC], [REC], VOID, ()),
    (res(RK.APPEND_STRUCTURED_BUFFER, F3), "Append", [I3], [F3], VOID, ()),
    (res(RK.CONSUME_STRUCTURED_BUFFER, REC), "Consume", [], [], REC, ()),
    (res(RK.CONSUME_STRUCTURED_BUFFER, REC), "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    # byte-address buffers
    (BAB, "Load", [I], [U], U, ()),
    (BAB, "Load", [U, U], [U, U], U, (1,)),
    (BAB, "Load2", [U], [U], U2, ()),
    (BAB, "Load3", [U], [U], U3, ()),
    (BAB, "Load4", [U, U], [U, U], U4, (1,)),
    (BAB, "GetDimensions", [U], [U], VOID, (0,)),
    (RWBAB, "Store", [U, U], [U, U], VOID, ()),
    (RWBAB, "Store2", [U, U2], [U, U2], VOID, ()),
    (RWBAB, "Store3", [U, I3], [U, U3], VOID, ()),
    (RWBAB, "Store4", [U, U4], [U, U4], VOID, ()),
    (RWBAB, "InterlockedAdd", [U, U], [U, U], VOID, ()),
    (RWBAB, "InterlockedAdd", [U, U, U], [U, U, U], VOID, (2,)),
    (RWBAB, "InterlockedMax", [U, I], [U, I], VOID, ()),
    (RWBAB, "InterlockedMin", [U, I, U], [U, I, I], VOID, (2,)),
    (RWBAB, "InterlockedExchange", [I, U, U], [U, U, U], VOID, (2,)),
    (RWBAB, "InterlockedCompareExchange", [U, U, U, U], [U, U, U, U], VOID, (3,)),
    (RWBAB, "InterlockedCompareExchange", [U, I, I, I], [U, I, I, I], VOID, (3,)),
    (RWBAB, "InterlockedCompareStore", [U, U, U], [U, U, U], VOID, ()),
    # sampled textures
    (TEX2D, "Sample", [SAMPLER, F2], [SAMPLER, F2], F4, ()),
    (TEX2D, "SampleLevel", [SAMPLER, F2, I], [SAMPLER, F2, F], F4, ()),
    (TEX2D, "SampleGrad", [SAMPLER, F2, F2, F2], [SAMPLER, F2, F2, F2], F4, ()),
    (TEX2D, "SampleBias", [SAMPLER, F2, F], [SAMPLER, F2, F], F4, ()),
    (TEX2D, "SampleCmpLevelZero", [CMP_SAMPLER, F2, F], [CMP_SAMPLER, F2, F], F, ()),
    (TEX2D, "Gather", [SAMPLER, F2], [SAMPLER, F2], F4, ()),
    (TEX2D, "Load", [I3], [I3], F4, ()),
    (TEX2D, "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    (TEX2D, "GetDimensions", [I, I], [U, U], VOID, (0, 1)),
    (TEX2D, "GetDimensions", [F, F], [F, F], VOID, (0, 1)),
    (TEX2D, "GetDimensions", [I, U, U, U], [U, U, U, U], VOID, (1, 2, 3)),
    (TEX2D, "GetDimensions", [U, F, F, F], [U, F, F, F], VOID, (1, 2, 3)),
    (res(RK.TEXTURE_2D, U2), "Gather", [SAMPLER, F2], [SAMPLER, F2], U4, ()),
    (res(RK.TEXTURE_2D, F), "Sample", [SAMPLER, F2], [SAMPLER, F2], F, ()),
    (res(RK.TEXTURE_1D, F4), "Sample", [SAMPLER, F], [SAMPLER, F], F4, ()),
    (res(RK.TEXTURE_1D, F4), "Load", [I2], [I2], F4, ()),
    (res(RK.TEXTURE_1D, F4), "GetDimensions", [U], [U], VOID, (0,)),
    (res(RK.TEXTURE_1D, F4), "GetDimensions", [U, U, U], [U, U, U], VOID, (1, 2)),
    (res(RK.TEXTURE_1D_ARRAY, F4), "SampleGrad", [SAMPLER, F2, F, F], [SAMPLER, F2, F, F], F4, ()),
    (res(RK.TEXTURE_1D_ARRAY, F4), "Load", [I3], [I3], F4, ()),
    (res(RK.TEXTURE_1D_ARRAY, F4), "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    (res(RK.TEXTURE_2D_ARRAY, F4), "SampleLevel", [SAMPLER, F3, F], [SAMPLER, F3, F], F4, ()),
    (res(RK.TEXTURE_2D_ARRAY, F4), "SampleGrad", [SAMPLER, F3, F2, F2], [SAMPLER, F3, F2, F2], F4, ()),
    (res(RK.TEXTURE_2D_ARRAY, F4), "Load", [I4], [I4], F4, ()),
    (res(RK.TEXTURE_2D_ARRAY, F4), "GetDimensions", [U, U, U, U, U], [U, U, U, U, U], VOID, (1, 2, 3, 4)),
    (res(RK.TEXTURE_3D, F4), "SampleGrad", [SAMPLER, F3, F3, F3], [SAMPLER, F3, F3, F3], F4, ()),
    (res(RK.TEXTURE_3D, F4), "Load", [I4], [I4], F4, ()),
    (res(RK.TEXTURE_3D, F4), "GetDimensions", [U, U, U], [U, U, U], VOID, (0, 1, 2)),
    (res(RK.TEXTURE_CUBE, F4), "Sample", [SAMPLER, F3], [SAMPLER, F3], F4, ()),
    (res(RK.TEXTURE_CUBE, F4), "SampleGrad", [SAMPLER, F3, F3, F3], [SAMPLER, F3, F3, F3], F4, ()),
    (res(RK.TEXTURE_CUBE, F4), "Gather", [SAMPLER, F3], [SAMPLER, F3], F4, ()),
    (res(RK.TEXTURE_CUBE, F4), "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    (res(RK.TEXTURE_CUBE_ARRAY, F4), "SampleLevel", [SAMPLER, F4, F], [SAMPLER, F4, F], F4, ()),
    (res(RK.TEXTURE_CUBE_ARRAY, F4), "SampleGrad", [SAMPLER, F4, F3, F3], [SAMPLER, F4, F3, F3], F4, ()),
    (res(RK.TEXTURE_CUBE_ARRAY, F4), "SampleCmpLevelZero", [CMP_SAMPLER, F4, F], [CMP_SAMPLER, F4, F], F, ()),
    (res(RK.TEXTURE_CUBE_ARRAY, F4), "GetDimensions", [U, U, U], [U, U, U], VOID, (0, 1, 2)),
    # RW textures
    (res(RK.RW_TEXTURE_1D, F), "Load", [I], [I], F, ()),
    (res(RK.RW_TEXTURE_2D, F4), "Load", [U2], [I2], F4, ()),
    (res(RK.RW_TEXTURE_2D, F4), "GetDimensions", [U, U], [U, U], VOID, (0, 1)),
    (res(RK.RW_TEXTURE_2D_ARRAY, F4), "Load", [I3], [I3], F4, ()),
    (res(RK.RW_TEXTURE_3D, F4), "GetDimensions", [F, F, F], [F, F, F], VOID, (0, 1, 2)),
    # node inputs
    (node(NK.DISPATCH_NODE_INPUT_RECORD), "Get", [], [], REC, ()),
    (node(NK.RW_DISPATCH_NODE_INPUT_RECORD), "FinishedCrossGroupSharing", [], [], B, ()),
    (node(NK.THREAD_NODE_INPUT_RECORD), "Get", [], [], REC, ()),
    (node(NK.RW_THREAD_NODE_INPUT_RECORD), "Get", [], [], REC, ()),
    (node(NK.GROUP_NODE_INPUT_RECORDS), "Get", [], [], REC, ()),
    (node(NK.GROUP_NODE_INPUT_RECORDS), "Get", [I], [U], REC, ()),
    (node(NK.RW_GROUP_NODE_INPUT_RECORDS), "Count", [], [], U, ()),
    (node(NK.EMPTY_NODE_INPUT, None), "Count", [], [], U, ()),
    # node outputs
    (node(NK.NODE_OUTPUT), "GetThreadNodeOutputRecords", [I], [U],
     node(NK.THREAD_NODE_OUTPUT_RECORDS), ()),
    (node(NK.NODE_OUTPUT), "GetGroupNodeOutputRecords", [U], [U], node(NK.GROUP_NODE_OUTPUT_RECORDS), ()),
    (node(NK.NODE_OUTPUT), "IsValid", [], [], B, ()),
    (node(NK.EMPTY_NODE_OUTPUT, None), "GroupIncrementOutputCount", [U], [U], VOID, ()),
    (node(NK.EMPTY_NODE_OUTPUT, None), "ThreadIncrementOutputCount", [I], [U], VOID, ()),
    (node(NK.EMPTY_NODE_OUTPUT, None), "IsValid", [], [], B, ()),
    (node(NK.THREAD_NODE_OUTPUT_RECORDS), "Get", [], [], REC, ()),
    (node(NK.GROUP_NODE_OUTPUT_RECORDS), "Get", [U], [U], REC, ()),
    (node(NK.GROUP_NODE_OUTPUT_RECORDS), "OutputComplete", [], [], VOID, ()),
]


@pytest.mark.parametrize("obj, name, args, params, result, outs", CASES,
                         ids=[f"{c[0]}.{c[1]}/{len(c[2])}" for c in CASES])
def test_resolves(obj, name, args, params, result, outs) -> None:
    r = resolved(obj, name, args)
    assert r.name == name
    assert r.params == tuple(params)
    assert r.result is result
    assert r.out_params == outs
    assert r.template_type is None


def test_record_access_flags() -> None:
    for kind in (NK.DISPATCH_NODE_INPUT_RECORD, NK.RW_DISPATCH_NODE_INPUT_RECORD, NK.THREAD_NODE_INPUT_RECORD,
                 NK.GROUP_NODE_INPUT_RECORDS, NK.THREAD_NODE_OUTPUT_RECORDS):
        assert resolved(node(kind), "Get", []).record_access
    assert resolved(node(NK.RW_GROUP_NODE_INPUT_RECORDS), "Get", [U]).record_access
    assert not resolved(node(NK.GROUP_NODE_INPUT_RECORDS), "Count", []).record_access
    assert not resolved(node(NK.NODE_OUTPUT), "GetThreadNodeOutputRecords", [U]).record_access
    assert not resolved(res(RK.STRUCTURED_BUFFER, REC), "Load", [U]).record_access


def test_single_record_inputs_have_no_indexed_get() -> None:
    assert arity(node(NK.DISPATCH_NODE_INPUT_RECORD), "Get") == (0,)
    assert isinstance(resolve_method(node(NK.THREAD_NODE_INPUT_RECORD), "Get", [U]), NoMatch)
    assert arity(node(NK.GROUP_NODE_INPUT_RECORDS), "Get") == (0, 1)


# object, index type, element, writable, record access
INDEXED = [
    (res(RK.BUFFER, F4), U, F4, False, False),
    (res(RK.RW_BUFFER, U), U, U, True, False),
    (res(RK.STRUCTURED_BUFFER, REC), U, REC, False, False),
    (res(RK.RW_STRUCTURED_BUFFER, REC), U, REC, True, False),
    (res(RK.TEXTURE_1D, F4), U, F4, False, False),
    (res(RK.TEXTURE_1D_ARRAY, F4), U2, F4, False, False),
    (TEX2D, U2, F4, False, False),
    (res(RK.TEXTURE_2D_ARRAY, F), U3, F, False, False),
    (res(RK.TEXTURE_3D, F4), U3, F4, False, False),
    (res(RK.RW_TEXTURE_1D, I), U, I, True, False),
    (res(RK.RW_TEXTURE_2D, F4), U2, F4, True, False),
    (res(RK.RW_TEXTURE_2D_ARRAY, F4), U3, F4, True, False),
    (res(RK.RW_TEXTURE_3D, U), U3, U, True, False),
    (node(NK.GROUP_NODE_INPUT_RECORDS), U, REC, False, True),
    (node(NK.RW_GROUP_NODE_INPUT_RECORDS), U, REC, True, True),
    (node(NK.THREAD_NODE_OUTPUT_RECORDS), U, REC, True, True),
    (node(NK.GROUP_NODE_OUTPUT_RECORDS), U, REC, True, True),
    (node(NK.NODE_OUTPUT_ARRAY), U, node(NK.NODE_OUTPUT), False, False),
    (node(NK.EMPTY_NODE_OUTPUT_ARRAY, None), U, node(NK.EMPTY_NODE_OUTPUT, None), False, False),
]


@pytest.mark.parametrize("obj, index, element, writable, record", INDEXED, ids=[str(c[0]) for c in INDEXED])
def test_index_access(obj, index, element, writable, record) -> None:
    assert index_access(obj) == IndexAccess(index, element, writable, record)


@pytest.mark.parametrize("obj", [
    res(RK.TEXTURE_CUBE, F4), res(RK.TEXTURE_CUBE_ARRAY, F4), BAB, RWBAB,
    res(RK.APPEND_STRUCTURED_BUFFER, REC), res(RK.CONSUME_STRUCTURED_BUFFER, REC),
    SAMPLER, CMP_SAMPLER, res(RK.CONSTANT_BUFFER, REC), res(RK.TEXTURE_BUFFER, REC),
    node(NK.DISPATCH_NODE_INPUT_RECORD), node(NK.RW_THREAD_NODE_INPUT_RECORD), node(NK.EMPTY_NODE_INPUT, None),
    node(NK.NODE_OUTPUT), node(NK.EMPTY_NODE_OUTPUT, None), F4, REC,
], ids=str)
def test_not_indexable(obj) -> None:
    assert index_access(obj) is None


def test_templated_load() -> None:
    r = resolved(BAB, "Load", [U], template=REC)
    assert (r.result, r.params, r.template_type) == (REC, (U,), REC)
    arr = t.array(F3, 4)
    r = resolved(RWBAB, "Load", [I, U], template=arr)
    assert (r.result, r.params, r.out_params, r.template_type) == (arr, (U, U), (1,), arr)
    # without a template argument Load is the uint overload
    r = resolved(BAB, "Load", [U])
    assert (r.result, r.template_type) == (U, None)
    # a template argument picks only templated overloads; objects are not loadable
    assert isinstance(resolve_method(BAB, "Load2", [U], template_type=U), NoMatch)
    assert isinstance(resolve_method(BAB, "Load", [U], template_type=SAMPLER), NoMatch)


def test_templated_store() -> None:
    r = resolved(RWBAB, "Store", [U, F3], template=F3)
    assert (r.params, r.template_type) == ((U, F3), F3)
    r = resolved(RWBAB, "Store", [U, I3], template=F3)
    assert (r.params, r.template_type) == ((U, F3), F3)
    # deduced from the value
    r = resolved(RWBAB, "Store", [U, REC])
    assert (r.params, r.template_type) == ((U, REC), REC)
    r = resolved(RWBAB, "Store", [U, F])
    assert (r.params, r.template_type) == ((U, F), F)
    # an exact uint value prefers the non-template Store(uint, uint)
    r = resolved(RWBAB, "Store", [U, U])
    assert (r.params, r.template_type) == ((U, U), None)
    assert "Store" not in method_names(BAB)


def test_texture_feature_sets() -> None:
    assert "Load" not in method_names(res(RK.TEXTURE_CUBE, F4))
    assert "Load" not in method_names(res(RK.TEXTURE_CUBE_ARRAY, F4))
    assert "Gather" not in method_names(res(RK.TEXTURE_1D, F4))
    assert "Gather" not in method_names(res(RK.TEXTURE_3D, F4))
    assert "SampleCmpLevelZero" not in method_names(res(RK.TEXTURE_3D, F4))
    assert method_names(res(RK.RW_TEXTURE_2D, F4)) == ("GetDimensions", "Load")
    # RW textures have no mip level in GetDimensions
    assert arity(res(RK.RW_TEXTURE_2D, F4), "GetDimensions") == (2,)


def test_conversions_and_ranking() -> None:
    # truncation and splat are allowed, as for intrinsics
    assert resolved(TEX2D, "Sample", [SAMPLER, F3]).params == (SAMPLER, F2, )
    assert resolved(TEX2D, "SampleLevel", [SAMPLER, F, F]).params == (SAMPLER, F2, F)
    # a wrong sampler or a non-convertible argument is no match
    assert isinstance(resolve_method(TEX2D, "Sample", [CMP_SAMPLER, F2]), NoMatch)
    assert isinstance(resolve_method(TEX2D, "SampleCmpLevelZero", [SAMPLER, F2, F]), NoMatch)
    assert isinstance(resolve_method(res(RK.STRUCTURED_BUFFER, REC), "Load", [REC]), NoMatch)
    assert isinstance(resolve_method(res(RK.APPEND_STRUCTURED_BUFFER, REC), "Append", [OTHER]), NoMatch)
    # one uint and one float output fit neither overload better
    result = resolve_method(TEX2D, "GetDimensions", [U, F])
    assert isinstance(result, Ambiguous)
    assert result.candidates == ("void Texture2D<float4>::GetDimensions(out uint, out uint)",
                                 "void Texture2D<float4>::GetDimensions(out float, out float)")


def test_no_match_text() -> None:
    result = resolve_method(TEX2D, "SampleLevel", [SAMPLER, F2])
    assert result == NoMatch(("float4 Texture2D<float4>::SampleLevel(SamplerState, float2, float)",
                              "float4 Texture2D<float4>::SampleLevel(SamplerState, float2, float, int2)",
                              "float4 Texture2D<float4>::SampleLevel(SamplerState, float2, float, int2, out uint)"))
    result = resolve_method(res(RK.TEXTURE_2D_ARRAY, F4), "GetDimensions", [U])
    assert isinstance(result, NoMatch)
    assert "void Texture2DArray<float4>::GetDimensions(uint, out uint, out uint, out uint, out uint)" \
        in result.candidates
    assert "void Texture2DArray<float4>::GetDimensions(out float, out float, out float)" in result.candidates
    result = resolve_method(BAB, "Load", [])
    assert isinstance(result, NoMatch)
    assert "T ByteAddressBuffer::Load<T>(uint)" in result.candidates
    assert "uint ByteAddressBuffer::Load(uint, out uint)" in result.candidates
    result = resolve_method(RWBAB, "InterlockedAdd", [U])
    assert result == NoMatch(("void RWByteAddressBuffer::InterlockedAdd(uint, I) [I: int/uint]",
                              "void RWByteAddressBuffer::InterlockedAdd(uint, I, out I) [I: int/uint]"))
    result = resolve_method(node(NK.NODE_OUTPUT), "GetThreadNodeOutputRecords", [])
    assert result == NoMatch(("ThreadNodeOutputRecords<Rec> NodeOutput<Rec>::GetThreadNodeOutputRecords(uint)",))


def test_unknown_method() -> None:
    assert resolve_method(TEX2D, "sample", [SAMPLER, F2]) is None  # case-sensitive
    assert resolve_method(TEX2D, "Store", [U, U]) is None
    assert resolve_method(res(RK.RW_BUFFER, U), "IncrementCounter", []) is None
    assert resolve_method(res(RK.STRUCTURED_BUFFER, REC), "IncrementCounter", []) is None
    assert resolve_method(BAB, "InterlockedAdd", [U, U]) is None
    assert resolve_method(node(NK.DISPATCH_NODE_INPUT_RECORD), "FinishedCrossGroupSharing", []) is None
    assert resolve_method(node(NK.NODE_OUTPUT_ARRAY), "Count", []) is None
    assert resolve_method(node(NK.NODE_OUTPUT_ARRAY), "IsValid", []) is None
    assert resolve_method(node(NK.THREAD_NODE_INPUT_RECORD), "Count", []) is None
    assert resolve_method(SAMPLER, "Sample", []) is None
    assert resolve_method(F4, "Load", [U]) is None


def test_has_methods_and_names() -> None:
    assert has_methods(TEX2D) and has_methods(RWBAB) and has_methods(node(NK.EMPTY_NODE_INPUT, None))
    for obj in (SAMPLER, CMP_SAMPLER, res(RK.CONSTANT_BUFFER, REC), res(RK.TEXTURE_BUFFER, REC),
                node(NK.NODE_OUTPUT_ARRAY), node(NK.EMPTY_NODE_OUTPUT_ARRAY, None), F4, REC):
        assert not has_methods(obj)
        assert method_names(obj) == ()
    assert method_names(node(NK.GROUP_NODE_INPUT_RECORDS)) == ("Count", "Get")
    assert method_names(node(NK.NODE_OUTPUT)) == ("GetGroupNodeOutputRecords", "GetThreadNodeOutputRecords",
                                                  "IsValid")
    assert method_names(res(RK.RW_STRUCTURED_BUFFER, REC)) == ("DecrementCounter", "GetDimensions",
                                                               "IncrementCounter", "Load")
    names = method_names(RWBAB)
    assert names == tuple(sorted(names))
    assert {"Load", "Load2", "Store", "Store4", "InterlockedCompareExchange", "InterlockedCompareStore"} <= set(names)


def test_arity() -> None:
    assert arity(TEX2D, "GetDimensions") == (2, 4)
    assert arity(TEX2D, "SampleGrad") == (4, 5, 6, 7)  # without and with a texel offset, clamp, status
    assert arity(res(RK.TEXTURE_CUBE, F4), "SampleGrad") == (4, 5, 6)  # cube maps: no offset; clamp, status
    assert arity(res(RK.TEXTURE_3D, F4), "GetDimensions") == (3, 5)
    assert arity(res(RK.BUFFER, F4), "Load") == (1, 2)
    assert arity(RWBAB, "InterlockedAdd") == (2, 3)
    assert arity(RWBAB, "InterlockedCompareExchange") == (4,)
    assert arity(node(NK.GROUP_NODE_OUTPUT_RECORDS), "Get") == (0, 1)
    assert arity(TEX2D, "Nope") == ()
    assert arity(F4, "Load") == ()
    # a wrong count is no match, not "no such method"
    assert isinstance(resolve_method(node(NK.NODE_OUTPUT), "IsValid", [U]), NoMatch)


def test_unorm_element_and_default_spelling() -> None:
    unorm = t.resource(RK.RW_TEXTURE_2D, F4, "unorm")
    r = resolved(unorm, "Load", [I2])
    assert r.result is F4
    assert index_access(unorm) == IndexAccess(U2, F4, True, False)
    result = resolve_method(unorm, "Load", [])
    assert result == NoMatch(("float4 RWTexture2D<unorm float4>::Load(int2)",
                              "float4 RWTexture2D<unorm float4>::Load(int2, out uint)"))
