"""Semantic analysis, inline ray tracing: the built-in constants of `RayQuery` and the rules on its
flags.

Input: a `RayQuery<RAY_FLAGS, RAYQUERY_FLAGS>` type as written (its span), the profile, and the
constant `RayFlags` argument of a `TraceRayInline` call.
Output: the constant tables (`RAY_CONSTANTS`, declared in the built-in scope by
`wgc.sema.analyze`; `RAY_TYPEDEFS`, the `uint` typedefs `wgc.sema.typeref` resolves) and
diagnostics:
- WG0380 [`hlsl-availability`, DefaultError]: a non-zero RAYQUERY_FLAGS argument written as an
  integer literal needs shader model 6.9 (`lib_6_9`), as DXC (which lets a named constant pass);
- WG0381 [`hlsl-rayquery-flags`, DefaultError]: RAY_FLAG_FORCE_OMM_2_STATE in the RayQuery's
  ray flags, or in the constant flags of its TraceRayInline, without
  RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS in its RAYQUERY_FLAGS, as DXC;
- WG0382 [`hlsl-availability-constant`, warning]: RAY_FLAG_FORCE_OMM_2_STATE or
  RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS used under lib_6_8, as DXC (which warns only in code
  reachable from an entry point; wgc warns at every use).

Invariants: the values are DXC's (`DXIL::RayFlag`, `DXIL::RayQueryFlag`,
`DXIL::CommittedStatus`, `DXIL::CandidateType`, `DXIL::HitKind`), each a `uint`; they equal
SPIR-V's RayFlags and intersection-type values, so the back end passes them through unchanged.
"""

from __future__ import annotations

from wgc import codes
from wgc import types as t
from wgc.diagnostics import Label
from wgc.sema.context import Context
from wgc.source import Span

RAY_FLAG_FORCE_OMM_2_STATE = 0x400
RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS = 0x1
RAY_FLAG_CULL_PRIMITIVES = 0x100 | 0x200
"""RAY_FLAG_SKIP_TRIANGLES | RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES (SPIR-V: the
RayTraversalPrimitiveCullingKHR capability)."""

RAY_CONSTANTS: dict[str, int] = {
    "RAY_FLAG_NONE": 0x0,
    "RAY_FLAG_FORCE_OPAQUE": 0x1,
    "RAY_FLAG_FORCE_NON_OPAQUE": 0x2,
    "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH": 0x4,
    "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER": 0x8,
    "RAY_FLAG_CULL_BACK_FACING_TRIANGLES": 0x10,
    "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES": 0x20,
    "RAY_FLAG_CULL_OPAQUE": 0x40,
    "RAY_FLAG_CULL_NON_OPAQUE": 0x80,
    "RAY_FLAG_SKIP_TRIANGLES": 0x100,
    "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES": 0x200,
    "RAY_FLAG_FORCE_OMM_2_STATE": RAY_FLAG_FORCE_OMM_2_STATE,
    "RAYQUERY_FLAG_NONE": 0x0,
    "RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS": RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS,
    "COMMITTED_NOTHING": 0,
    "COMMITTED_TRIANGLE_HIT": 1,
    "COMMITTED_PROCEDURAL_PRIMITIVE_HIT": 2,
    "CANDIDATE_NON_OPAQUE_TRIANGLE": 0,
    "CANDIDATE_PROCEDURAL_PRIMITIVE": 1,
    "HIT_KIND_NONE": 0x0,
    "HIT_KIND_TRIANGLE_FRONT_FACE": 0xFE,
    "HIT_KIND_TRIANGLE_BACK_FACE": 0xFF,
}
"""DXC's inline ray tracing constants (`AddRaytracingConstants`), all `uint`."""

RAY_TYPEDEFS = ("RAY_FLAG", "RAYQUERY_FLAG", "COMMITTED_STATUS", "CANDIDATE_TYPE")
"""DXC's pseudo-enum typedefs of `uint` for the constants above."""

_OMM_CONFLICT = ("RAY_FLAG_FORCE_OMM_2_STATE needs RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS in the "
                 "RayQuery's RAYQUERY_FLAGS")


SM69_CONSTANTS = frozenset({"RAY_FLAG_FORCE_OMM_2_STATE", "RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS"})
"""The constants DXC marks as introduced in shader model 6.9."""


def check_type(ctx: Context, type_: t.RayQueryType, span: Span, query_flags_literal: bool) -> None:
    """The rules on a written `RayQuery<...>` type (WG0380, WG0381). `query_flags_literal`: the
    RAYQUERY_FLAGS argument is written as an integer literal (DXC's condition for WG0380; a named
    constant gets WG0382 where it is used instead)."""
    if type_.query_flags and query_flags_literal and ctx.options.profile == "lib_6_8":
        ctx.report(codes.RAYQUERY_FLAGS_NEED_SM69, span,
                   f"a non-zero RAYQUERY_FLAGS argument ({type_.query_flags}) needs shader model 6.9 (lib_6_9)")
    if type_.flags & RAY_FLAG_FORCE_OMM_2_STATE and not type_.query_flags & RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS:
        ctx.report(codes.RAYQUERY_OMM_FLAGS_CONFLICT, span, _OMM_CONFLICT + f" ('{type_}')")


def check_trace_flags(ctx: Context, query: t.RayQueryType, flags: int, span: Span,
                      declared: Span | None) -> None:
    """TraceRayInline's constant RayFlags argument `flags` on a query of type `query` (WG0381);
    `declared` is where the query variable is declared (labelled, as DXC notes it), if known."""
    if flags & RAY_FLAG_FORCE_OMM_2_STATE and not query.query_flags & RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS:
        labels = [Label(declared, "RayQueryFlags declared here")] if declared is not None else []
        ctx.report(codes.RAYQUERY_OMM_FLAGS_CONFLICT, span, _OMM_CONFLICT + f" ('{query}')", labels=labels)


def check_constant_use(ctx: Context, name: str, span: Span) -> None:
    """A use of a built-in constant of shader model 6.9 under lib_6_8 (WG0382, a warning as in DXC)."""
    if name in SM69_CONSTANTS and ctx.options.profile == "lib_6_8":
        ctx.report(codes.SM69_CONSTANT_UNDER_LIB_6_8, span,
                   f"potential misuse of built-in constant '{name}' under lib_6_8: it is introduced in shader "
                   "model 6.9 (lib_6_9)")
