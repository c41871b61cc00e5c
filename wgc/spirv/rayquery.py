"""Inline ray tracing in SPIR-V: the methods of `RayQuery<...>` with SPV_KHR_ray_query (SPIR-V back end).

Input: an `ir.MethodCall` whose object is a `RayQuery<RAY_FLAGS, RAYQUERY_FLAGS>` location (a
Function or Private variable of OpTypeRayQueryKHR, or an element of an array of them), through a
`FunctionLowering`.
Output: the OpRayQuery*KHR instructions, following DXC's `SpirvEmitter::processRayQueryIntrinsics`
and `processTraceRayInline`:
- TraceRayInline(as, flags, mask, ray): OpRayQueryInitializeKHR with the loaded acceleration
  structure, the RayQuery's constant RAY_FLAGS OR-ed with the `flags` argument (OpBitwiseOr of the
  constant and the argument; one constant when the argument is constant too, which is what DXC's
  output shows after its optimiser), the mask, then the RayDesc's fields in the order
  Origin, TMin, Direction, TMax. When the constant flags hold RAY_FLAG_SKIP_TRIANGLES or
  RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES the module declares RayTraversalPrimitiveCullingKHR (DXC).
- Proceed: OpRayQueryProceedKHR; Abort: OpRayQueryTerminateKHR; CommitNonOpaqueTriangleHit:
  OpRayQueryConfirmIntersectionKHR; CommitProceduralPrimitiveHit(t): OpRayQueryGenerateIntersectionKHR.
- Candidate*/Committed* getters: OpRayQueryGetIntersection*KHR with the intersection operand 0
  (candidate) or 1 (committed): CandidateType and CommittedStatus are GetIntersectionType,
  InstanceIndex is InstanceId, InstanceID is InstanceCustomIndex,
  InstanceContributionToHitGroupIndex is InstanceShaderBindingTableRecordOffset,
  CandidateTriangleRayT / CommittedRayT are GetIntersectionT; the 4x3 matrices are the SPIR-V
  result as it is (an HLSL float4x3 is SPIR-V's 4 columns of 3), the 3x4 ones its OpTranspose.
- CandidateProceduralPrimitiveNonOpaque: OpLogicalNot of GetIntersectionCandidateAABBOpaque.
- RayFlags, RayTMin, WorldRayOrigin, WorldRayDirection: OpRayQueryGet{RayFlags,RayTMin,
  WorldRayOrigin,WorldRayDirection}KHR (no intersection operand).

Invariants: sema resolved the method and converted the arguments (`wgc.sema.methods`); the
object is a location (a variable, an array element, an inlined parameter bound to the caller's
location) or else a copy in a new Function variable (`query_pointer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.irtools.consteval import Folded, fold
from wgc.sema.rayquery import RAY_FLAG_CULL_PRIMITIVES

from . import resources
from .places import Place

if TYPE_CHECKING:
    from .lower import FunctionLowering

CANDIDATE, COMMITTED = 0, 1

_INTERSECTION_GETTERS = {
    "InstanceIndex": "OpRayQueryGetIntersectionInstanceIdKHR",
    "InstanceID": "OpRayQueryGetIntersectionInstanceCustomIndexKHR",
    "InstanceContributionToHitGroupIndex": "OpRayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR",
    "GeometryIndex": "OpRayQueryGetIntersectionGeometryIndexKHR",
    "PrimitiveIndex": "OpRayQueryGetIntersectionPrimitiveIndexKHR",
    "ObjectRayOrigin": "OpRayQueryGetIntersectionObjectRayOriginKHR",
    "ObjectRayDirection": "OpRayQueryGetIntersectionObjectRayDirectionKHR",
    "ObjectToWorld4x3": "OpRayQueryGetIntersectionObjectToWorldKHR",
    "ObjectToWorld3x4": "OpRayQueryGetIntersectionObjectToWorldKHR",
    "WorldToObject4x3": "OpRayQueryGetIntersectionWorldToObjectKHR",
    "WorldToObject3x4": "OpRayQueryGetIntersectionWorldToObjectKHR",
    "TriangleBarycentrics": "OpRayQueryGetIntersectionBarycentricsKHR",
    "TriangleFrontFace": "OpRayQueryGetIntersectionFrontFaceKHR",
    "TriangleRayT": "OpRayQueryGetIntersectionTKHR",          # CandidateTriangleRayT
    "RayT": "OpRayQueryGetIntersectionTKHR",                  # CommittedRayT
}
"""The Candidate*/Committed* getters by the name after the prefix."""

_RAY_GETTERS = {
    "RayFlags": "OpRayQueryGetRayFlagsKHR",
    "RayTMin": "OpRayQueryGetRayTMinKHR",
    "WorldRayOrigin": "OpRayQueryGetWorldRayOriginKHR",
    "WorldRayDirection": "OpRayQueryGetWorldRayDirectionKHR",
}
_COMMANDS = {
    "Proceed": "OpRayQueryProceedKHR",
    "Abort": "OpRayQueryTerminateKHR",
    "CommitNonOpaqueTriangleHit": "OpRayQueryConfirmIntersectionKHR",
    "CommitProceduralPrimitiveHit": "OpRayQueryGenerateIntersectionKHR",
}


def query_pointer(fl: FunctionLowering, expr: ir.Expr) -> int:
    """The pointer to the OpTypeRayQueryKHR variable (or array element) `expr` denotes; a query
    value that is no location (`(c ? a : b).Proceed()`, `RayQuery<0>().Proceed()`) is a copy in a
    new Function variable, as every RayQuery value is a copy."""
    place = fl.place(expr)
    if not isinstance(place, Place):
        place = fl.local(expr.type)
        fl.store(place, fl.value(expr))
    return fl.pointer(place)


def method(fl: FunctionLowering, expr: ir.MethodCall) -> object:
    query_type = expr.object.type
    assert isinstance(query_type, t.RayQueryType)
    query = query_pointer(fl, expr.object)
    name = expr.method
    if name == "TraceRayInline":
        _trace_ray_inline(fl, query, query_type, expr.args)
        return None
    if name in _COMMANDS:
        operands = [fl.value(a) for a in expr.args]
        if expr.type is t.VOID:
            fl.b.emit(_COMMANDS[name], query, *operands)
            return None
        return fl.b.emit(_COMMANDS[name], fl.types.id(expr.type), query, *operands)
    result = fl.types.id(expr.type)
    if name in _RAY_GETTERS:
        return fl.b.emit(_RAY_GETTERS[name], result, query)
    if name == "CandidateProceduralPrimitiveNonOpaque":
        opaque = fl.b.emit("OpRayQueryGetIntersectionCandidateAABBOpaqueKHR", result, query)
        return fl.b.emit("OpLogicalNot", result, opaque)
    if name in ("CandidateType", "CommittedStatus"):
        which = CANDIDATE if name == "CandidateType" else COMMITTED
        return fl.b.emit("OpRayQueryGetIntersectionTypeKHR", result, query, fl.uint(which))
    which, getter = (CANDIDATE, name[len("Candidate"):]) if name.startswith("Candidate") else \
        (COMMITTED, name[len("Committed"):])
    op = _INTERSECTION_GETTERS.get(getter)
    if op is None:
        raise AssertionError(f"method '{name}' of '{query_type}' has no SPIR-V lowering")
    if getter.endswith("3x4"):          # SPIR-V gives the 4x3 (4 columns of 3): transpose it
        transposed = fl.types.id(t.matrix(t.FLOAT, 4, 3))
        value = fl.b.emit(op, transposed, query, fl.uint(which))
        return fl.b.emit("OpTranspose", result, value)
    return fl.b.emit(op, result, query, fl.uint(which))


def _trace_ray_inline(fl: FunctionLowering, query: int, query_type: t.RayQueryType,
                      args: tuple[ir.Expr, ...]) -> None:
    accel_arg, flags_arg, mask_arg, ray_arg = args
    accel = resources.load_object(fl, accel_arg)
    folded = fold(flags_arg)
    if isinstance(folded, Folded) and isinstance(folded.value, int) and not isinstance(folded.value, bool):
        all_flags = query_type.flags | (folded.value & 0xFFFFFFFF)
        flags = fl.uint(all_flags)
    else:
        all_flags = query_type.flags
        flags = fl.b.emit("OpBitwiseOr", fl.types.id(t.UINT), fl.uint(query_type.flags), fl.value(flags_arg))
    if all_flags & RAY_FLAG_CULL_PRIMITIVES:
        fl.b.capability("RayTraversalPrimitiveCullingKHR")
    mask = fl.value(mask_arg)
    ray = fl.value(ray_arg)
    float3, float1 = fl.types.id(t.vector(t.FLOAT, 3)), fl.types.id(t.FLOAT)
    origin = fl.b.emit("OpCompositeExtract", float3, ray, 0)
    t_min = fl.b.emit("OpCompositeExtract", float1, ray, 1)
    direction = fl.b.emit("OpCompositeExtract", float3, ray, 2)
    t_max = fl.b.emit("OpCompositeExtract", float1, ray, 3)
    fl.b.emit("OpRayQueryInitializeKHR", query, accel, flags, mask, origin, t_min, direction, t_max)
