"""Semantic analysis, the stage's entry point: a parsed translation unit in, the typed IR out.

Input: an `ast.TranslationUnit` and `SemaOptions`.
Output: `Analysis(module, nodes, graph, diagnostics)`: the checked `ir.Module`, the
node shaders' descriptions and the whole graph (`nodes.py`, `graph.py`; present only
when the program itself had no errors other than DefaultErrors such as WG0381, which
`-Wno-error=` may lower, so work-graph rules never report cascades of type errors), and every diagnostic of the stage (the products are only meant for
later stages when no diagnostic is an error).

Order: the attributes as written (`attributes`: unknown ones, duplicates); declarations and
bodies in source order (`declarations`); then the
whole-file checks: Vulkan bindings (`bindings`), functions that are called
but never defined (WG0325), and recursion (WG0326: HLSL has none, and the
back end inlines calls that carry node objects), and the limits of SPIR-V
(`limits`: how deep control flow and structs nest); then the work-graph rules of
each node (`nodes`, and `uniformity` and `nodecode` for their bodies) and of the graph (`graph`).

Invariants: never raises for bad input; the built-in scope (the `Barrier`
flag constants, the inline ray tracing constants of `rayquery`) is the parent of the global
scope, so user declarations may shadow it.
"""

from __future__ import annotations

from dataclasses import dataclass

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import DefaultSeverity, Diagnostic, Label, has_errors
from wgc.sema.attributes import check_written_attributes
from wgc.sema.bindings import assign_bindings
from wgc.sema.context import Context, EnumeratorEntity, SemaOptions
from wgc.sema.declarations import DeclarationChecker
from wgc.sema.graph import GraphInfo, check_graph
from wgc.sema.coherence import check_coherence
from wgc.sema.limits import check_limits
from wgc.sema.nodecode import check_node_code
from wgc.sema.nodes import NodeInfo, check_nodes
from wgc.sema.uniformity import check_node_body, check_stage_barriers
from wgc.sema.intrinsics import BARRIER_CONSTANTS
from wgc.sema.rayquery import RAY_CONSTANTS
from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind
from wgc.syntax import ast


@dataclass(frozen=True)
class Analysis:
    module: ir.Module
    diagnostics: tuple[Diagnostic, ...]
    nodes: tuple[NodeInfo, ...] = ()
    graph: GraphInfo | None = None


def builtin_scope() -> Scope:
    scope = Scope(ScopeKind.GLOBAL, None, "<built-in>")
    for name, value in BARRIER_CONSTANTS.items():
        scope.declare(Symbol(name, SymbolKind.ENUMERATOR, EnumeratorEntity(t.UINT, value)))
    for name, value in RAY_CONSTANTS.items():
        scope.declare(Symbol(name, SymbolKind.ENUMERATOR, EnumeratorEntity(t.UINT, value)))
    return scope


def analyze(unit: ast.TranslationUnit, options: SemaOptions = SemaOptions()) -> Analysis:
    global_scope = builtin_scope().child(ScopeKind.GLOBAL)
    ctx = Context(options, global_scope)
    written = check_written_attributes(unit)   # reported, but no gate: a duplicate attribute must not
    #                                            hide the work-graph rules of the rest of the file
    checker = DeclarationChecker(ctx)
    checker.declare_all(unit.decls)
    checker.finish()
    ctx.diagnostics.extend(assign_bindings(checker.binding_requests, options.binding_shifts))
    _undefined_functions(ctx)
    _recursion(ctx)
    ctx.diagnostics.extend(check_limits(ctx.module))
    ctx.diagnostics.extend(check_coherence(ctx.module))
    # a DefaultError (e.g. WG0381) may yet be lowered to a warning: it does not stop the node checks
    if has_errors(d for d in ctx.diagnostics if d.default is not DefaultSeverity.DEFAULT_ERROR):
        return Analysis(ctx.module, tuple(written + ctx.diagnostics))
    nodes, node_diagnostics = check_nodes(ctx.module, options)
    seen: set[tuple[str, object, str]] = set()
    for node in nodes:
        for diagnostic in [*check_node_body(node.function, node.launch), *check_node_code(node)]:
            key = (diagnostic.code, diagnostic.span, diagnostic.message)
            if key not in seen:  # a helper called by two nodes is reported once
                seen.add(key)
                node_diagnostics.append(diagnostic)
    for function in ctx.module.functions:   # entries of other stages: DXC's Barrier() rules only
        if function.shader_kind not in (None, "node"):
            node_diagnostics.extend(check_stage_barriers(function, function.shader_kind))  # type: ignore[arg-type]
    graph, graph_diagnostics = check_graph(nodes, options.profile, work_graph_loops=options.loops)
    return Analysis(ctx.module, tuple(written + ctx.diagnostics + node_diagnostics + graph_diagnostics), tuple(nodes),
                    graph)


def _undefined_functions(ctx: Context) -> None:
    for entity, span in ctx.uses.items():
        if not entity.defined and entity.function is not None:
            ctx.report(codes.UNDEFINED_FUNCTION, span, f"function '{entity.function.name}' is called but never defined",
                       labels=[Label(entity.function.span, "declared here")])


def _recursion(ctx: Context) -> None:
    """Report each cycle of the call graph once, at the call that closes it."""
    state: dict[ir.Function, int] = {}  # 1 = on the current path, 2 = done
    reported: set[frozenset[ir.Function]] = set()

    def visit(function: ir.Function, path: list[ir.Function]) -> None:
        state[function] = 1
        path.append(function)
        for callee, span in ctx.call_graph.get(function, []):
            if state.get(callee) == 1:
                cycle = path[path.index(callee):]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    chain = " -> ".join(f.name for f in (*cycle, callee))
                    ctx.report(codes.RECURSIVE_CALL, span,
                               f"recursive call to '{callee.name}' ({chain}): HLSL functions cannot be recursive",
                               notes=["work-graph recursion is expressed with a node output that targets the node "
                                      "itself and [NodeMaxRecursionDepth]"])
            elif callee not in state:
                visit(callee, path)
        path.pop()
        state[function] = 2

    for function in ctx.module.functions:
        if function not in state:
            visit(function, [])
