"""Semantic analysis, the stage's entry point: a parsed translation unit in, the typed IR out.

Input: an `ast.TranslationUnit` (after syntax errors: the declarations that parsed, and the
identifiers of those the parser skipped) and `SemaOptions`.
Output: `Analysis(module, nodes, graph, diagnostics, stage_entries, unsound)` (`results.py`, which derives
what the later stages ask of them): the checked `ir.Module`, the
node shaders' descriptions (`nodes.py`), the graph of the sound nodes (`graph.py`), the compute,
pixel, mesh and amplification shaders beside them (`entry_stages.py`, never in the graph), the
functions whose declaration holds an error (`unsound`), and every
diagnostic of the stage (the products are only meant for later stages when no diagnostic is
an error; inspect shows the graph of the sound nodes beside the errors).

Order: the attributes as written (`attributes`: unknown ones, duplicates); declarations and
bodies in source order (`declarations`); the static globals nothing writes (`settled`); then the
whole-file checks: Vulkan bindings
(`bindings`), recursion (WG0326: HLSL has none, and the back end inlines calls that carry node
objects), the limits of SPIR-V
(`limits`: how deep control flow and structs nest), `[WaveSize]` (`wavesize`), and structs
holding resources where they are used; then the work-graph rules of each node (`nodes`, and
`uniformity` and `nodecode` for their bodies) and of the graph (`graph`).

Recovery (no phase gate: an error in one declaration hides no rule of the others, and does not
cascade): every declaration records its extent; an error inside it makes the function or struct
unsound (structs holding or deriving from an unsound struct too). Every node gets the rules of
its attributes and parameters, except records of unsound structs; a node whose body, or a
function it calls, is unsound, or whose launch mode is unknown, skips the body rules; the graph
is built from the nodes without any error in their declaration, and outputs that target a node
left out (or a function whose signature failed) are no missing node.

Invariants: never raises for bad input; the built-in scope (the `Barrier`
flag constants, the inline ray tracing constants of `rayquery`) is the parent of the global
scope, so user declarations may shadow it.
"""

from __future__ import annotations

from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import DefaultSeverity, Diagnostic
from wgc.sema.attributes import check_written_attributes
from wgc.sema.bindings import assign_bindings
from wgc.sema.context import Context, EnumeratorEntity, SemaOptions
from wgc.sema.declarations import DeclarationChecker
from wgc.sema.graph import check_graph
from wgc.sema.coherence import check_coherence
from wgc.sema import local_root
from wgc.sema.limits import check_limits
from wgc.sema.nodecode import check_node_code
from wgc.sema.nodes import NodeInfo, check_nodes, object_fields
from wgc.sema.entry_stages import check_stages
from wgc.irtools.walk import reachable_functions, nodes_of
from wgc.sema.uniformity import check_mesh_uniformity, check_node_body, check_stage_barriers
from wgc.sema.wavesize import check_wave_sizes
from wgc.sema.intrinsics import BARRIER_CONSTANTS
from wgc.sema.rayquery import RAY_CONSTANTS
from wgc.sema.results import Analysis
from wgc.sema.settled import settle_statics
from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind
from wgc.sema.typeref import contains_only_ray_queries
from wgc.source import Span
from wgc.syntax import ast


_BUILTIN_SYMBOLS: dict[str, Symbol] = {}
"""The built-in scope's symbols, made once per process: a compile never changes them (nothing declares
into the built-in scope, and its symbols and their enumerators are read only)."""


def builtin_scope() -> Scope:
    """A new scope holding the built-in constants (the barrier flags, the ray flags), outermost."""
    symbols = _BUILTIN_SYMBOLS
    if not symbols:
        for name, value in [*BARRIER_CONSTANTS.items(), *RAY_CONSTANTS.items()]:
            symbols.setdefault(name, Symbol(name, SymbolKind.ENUMERATOR, EnumeratorEntity(t.UINT, value)))
    return Scope(ScopeKind.GLOBAL, None, "<built-in>", {name: [symbol] for name, symbol in symbols.items()})


def analyze(unit: ast.TranslationUnit, options: SemaOptions = SemaOptions(),
            skipped_names: frozenset[str] = frozenset()) -> Analysis:
    """Check `unit`; `skipped_names`: identifiers of declarations the parser skipped after syntax
    errors (uses of them are not reported, but still make the using declaration unsound)."""
    global_scope = builtin_scope().child(ScopeKind.GLOBAL)
    ctx = Context(options, global_scope, skipped_names)
    written = check_written_attributes(unit)   # reported, but no gate: a duplicate attribute must not
    #                                            hide the work-graph rules of the rest of the file
    checker = DeclarationChecker(ctx)
    checker.declare_all(unit.decls)
    checker.finish()
    settle_statics(ctx.module)   # before the rules that need Barrier flags after optimisation
    bound = {(c, n, space): (set_, binding) for c, n, space, binding, set_ in options.bound_registers}
    ctx.diagnostics.extend(assign_bindings(checker.binding_requests, options.binding_shifts, bound))
    _recursion(ctx)
    ctx.diagnostics.extend(check_limits(ctx.module))
    ctx.diagnostics.extend(check_coherence(ctx.module))
    ctx.diagnostics.extend(check_wave_sizes(ctx.module))
    _objects_in_used_structs(ctx)
    broken_functions, poisoned_types = _unsound(ctx, ctx.diagnostics, ctx.unreported)
    nodes, node_diagnostics = check_nodes(ctx.module, options, poisoned_types)
    node_diagnostics.extend(local_root.apply(unit.decls, nodes))
    stage_entries, stage_diagnostics = check_stages(ctx.module, frozenset(broken_functions))
    misdeclared, _ = _unsound(ctx, written + node_diagnostics)  # nodes whose attributes or parameters are wrong
    seen: set[tuple[str, object, str]] = set()
    sound: list[NodeInfo] = []
    for node in nodes:
        if node.launch_unknown or any(f in broken_functions for f in reachable_functions(node.function)):
            continue  # its body (or a function it calls) has an error, or its launch mode is unknown: the
            #           body rules would only cascade
        if node.function not in misdeclared and not any(_uses_type(node, p) for p in poisoned_types):
            sound.append(node)
        for diagnostic in [*check_node_body(node.function, node.launch), *check_node_code(node)]:
            key = (diagnostic.code, diagnostic.span, diagnostic.message)
            if key not in seen:  # a helper called by two nodes is reported once
                seen.add(key)
                node_diagnostics.append(diagnostic)
    for function in ctx.module.functions:   # entries of other stages: DXC's Barrier() rules only
        if function.shader_kind not in (None, "node"):
            node_diagnostics.extend(check_stage_barriers(function, function.shader_kind))
    for entry in stage_entries:            # a mesh shader's SetMeshOutputCounts in varying control flow
        if entry.stage == "mesh" and not any(f in broken_functions for f in reachable_functions(entry.function)):
            node_diagnostics.extend(check_mesh_uniformity(entry.function))
    # the graph of the sound nodes: budgets, depth and edges of a node with a wrong declaration would cascade
    sound_ids = {id(node) for node in sound}   # by identity: NodeInfo's == compares every field
    # (and the names in declarations the parser skipped: a node whose declaration did not parse is no missing node)
    unchecked = frozenset(ctx.broken_function_names) | {n.id.name for n in nodes if id(n) not in sound_ids} \
        | ctx.skipped_names
    graph, graph_diagnostics = check_graph(sound, options.profile, options.loops, unchecked,
                                               pipeline_names=options.pipeline_names)
    diagnostics = written + ctx.diagnostics + node_diagnostics + stage_diagnostics + graph_diagnostics
    checker.release()
    ctx.release()
    return Analysis(ctx.module, tuple(diagnostics), tuple(nodes), graph, tuple(stage_entries),
                    frozenset(broken_functions | misdeclared))


def _unsound(ctx: Context, diagnostics: list[Diagnostic],
             unreported: Sequence[Span] = ()) -> tuple[set[ir.Function], set[t.StructType]]:
    """The functions and structs whose own declaration holds one of the `diagnostics` that is an
    error, or one of the `unreported` errors (its span inside the declaration's extent), and the
    structs that contain or derive from such a struct."""
    errors = [d.span for d in diagnostics if d.default is DefaultSeverity.ERROR and d.span is not None]
    errors += list(unreported)
    broken: set[ir.Function | t.StructType] = set()
    for extent, entity in ctx.extents:
        if any(span.file is extent.file and extent.start <= span.start < extent.end for span in errors):
            broken.add(entity)
    functions = {e for e in broken if isinstance(e, ir.Function)}
    structs = {e for e in broken if isinstance(e, t.StructType)}
    changed = True
    while changed:  # a struct holding (or deriving from) a poisoned struct is poisoned too
        changed = False
        for struct in ctx.module.structs:
            if struct not in structs and (struct.base in structs or
                                          any(t.innermost_element(f.type) in structs for f in struct.fields)):
                structs.add(struct)
                changed = True
    return functions, structs


def _uses_type(node: NodeInfo, struct: t.StructType) -> bool:
    """Whether one of the node's parameters is (or carries records of) `struct`."""
    for param in node.function.params:
        type_ = t.innermost_element(param.type)
        if type_ is struct or isinstance(type_, t.NodeObjectType) and type_.record is struct:
            return True
    return False


def _objects_in_used_structs(ctx: Context) -> None:
    """The resource fields of structs used other than as node records (variables,
    parameters, results, buffer elements): wgc cannot lay them out. Structs only used as records
    are `nodes.py`'s (the record rule), unused ones are accepted, as DXC does. RayQuery fields are
    fields (DXC): refused in laid-out memory where the type is written, a target limit elsewhere."""
    if not any(s.object_fields for s in ctx.module.structs):
        return
    used: list[t.Type] = [v.type for v in ctx.module.globals]
    for function in ctx.module.functions:
        used.append(function.return_type)
        used.extend(p.type for p in function.params)
        used.extend(item.variable.type for item in nodes_of(function, ir.VarDecl))
    reported: set[int] = set()
    for type_ in used:
        type_ = t.innermost_element(type_)
        if isinstance(type_, t.ResourceType) and type_.element is not None:
            type_ = t.innermost_element(type_.element)
        if not isinstance(type_, t.StructType):
            continue  # node objects carry records: the record rule covers them
        for field_ in object_fields(type_):
            if contains_only_ray_queries(field_.type):
                continue  # a field (DXC): a target limit where it is held (`target`, WG0633)
            if id(field_) not in reported:
                reported.add(id(field_))
                ctx.report(codes.INVALID_RESOURCE_USE, field_.span,
                           f"struct field '{field_.name}' cannot be a resource ('{field_.type}')")


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
    # `visit` calls itself through its closure cell, a reference cycle: unbound, reference counting frees it
    visit = None    # type: ignore[assignment]
