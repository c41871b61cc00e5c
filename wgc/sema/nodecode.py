"""Semantic analysis, HLSL rules of the code a node shader reaches that depend on the node (not on
control flow): `discard`, and the thread-group shape implicit derivatives need.

Input: one checked `NodeInfo` (its function, launch mode and numthreads); the bodies of the user
functions it calls (transitively) are checked with it.
Output: diagnostics, in the order the code is walked:
- WG0440: a `discard` statement (dxc allows `discard` in pixel shaders only);
- WG0441: implicit derivatives (`Sample`, `SampleBias`, `SampleCmp[Bias]`, `CalculateLevelOfDetail*`
  on a texture, the `ddx`/`ddy`/`fwidth` family) in a broadcasting or
  coalescing node whose numthreads is neither 1D with X a multiple of 4 nor has X and Y even
  (dxc's `warn_hlsl_derivatives_wrong_numthreads` text; wgc makes it an error, as Vulkan needs
  the derivative group of SPV_KHR_compute_shader_derivatives). Thread launch nodes have no
  derivatives at all: `uniformity.py` reports that (WG0416).

Invariants: pure; never raises; a helper reached from several nodes is reported once per node
(the caller drops identical duplicates, as for `uniformity.check_node_body`).
"""

from __future__ import annotations

from typing import Any

from wgc import codes, ir
from wgc.diagnostics import Diagnostic, Label
from wgc.irtools.walk import nodes_of, reachable_functions
from wgc.sema.nodes import NodeInfo
from wgc.sema.uniformity import uses_implicit_derivatives


def check_node_code(node: NodeInfo) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    x, y, z = node.num_threads
    shape_ok = (x % 4 == 0 and y == 1 and z == 1) or (x % 2 == 0 and y % 2 == 0)
    for function in reachable_functions(node.function):
        for item in nodes_of(function, ir.Discard, ir.IntrinsicCall, ir.MethodCall):   # pre-order
            if isinstance(item, ir.Discard):
                diagnostics.append(codes.DISCARD_IN_NODE(
                    item.span, f"'discard' is not allowed in node shaders (reached from node '{node.function.name}')",
                    notes=("only pixel shaders may discard",)))
            elif node.launch != "thread" and not shape_ok and uses_implicit_derivatives(item):
                diagnostics.append(codes.DERIVATIVES_NEED_GROUP_SHAPE(
                    item.span, f"Intrinsic {_name(item)} potentially used by '{node.function.name}' requires "
                    "derivatives - when used in compute/amplification/mesh shaders or broadcast nodes, numthreads "
                    "must be either 1D with X as a multiple of 4 or both X and Y must be multiples of 2.",
                    labels=(Label(node.span, f"'{node.function.name}' has numthreads ({x}, {y}, {z})"),)))
    return diagnostics


def _name(item: Any) -> str:
    return item.name if isinstance(item, ir.IntrinsicCall) else item.method


