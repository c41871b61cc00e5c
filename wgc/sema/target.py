"""Semantic analysis, target limits: what a SPIR-V target (`wgc compile --target`: `amdx`,
SPV_AMDX_shader_enqueue on Vulkan, or `emulated`, plain compute shaders for `wgc run`) cannot
express in a program that is valid HLSL.

Input: a checked `Analysis` without errors (typed IR, nodes, graph) and the nodes to compile
(all of them, or the one `-E` names).
Output: diagnostics (WG06xx), each with a note naming the target:
- Work Graph Loops (amdx, and the emulated target under `loops="index-space"`): loops are unrolled
  in index space (`sema.stages`); what that form cannot express is an error: nodes of one name
  whose loops differ (WG0606: one index space per name; loops are compared by their entries' names
  and iteration counts, so the members of a node array of loop entries index alike), a self-feeding loop entry whose loop has
  other members (WG0607: its iterations must be recursion levels, and AMDX forbids enqueueing to
  its own name at another index), a stage index beyond 32 bits (WG0608), [NodeShareInputOf] with a
  loop member (WG0609: SharesInputWithAMDX names one index). `depth_warnings` (amdx only):
  WG0513, DefaultError `amdx-graph-depth`, when the unrolled graph is deeper than
  maxExecutionGraphDepth (32, the least Vulkan guarantees, or the device's, `--max-graph-depth`);
- WG0450 (amdx only, a warning): [NodeLocalRootArgumentsTableIndex]: SPV_AMDX has no local root
  arguments, so the node ignores it and its `[[vk::shader_record_ext]]` blocks stay ordinary uniform
  buffers; the emulated target reads them from the node's table entry;
- WG0620 (amdx only, a warning `amdx-record-atomics`): an Interlocked* operation on a node record
  that several invocations share, emitted as DXC emits it (spirv-val allows no atomics on NodePayloadAMDX storage; the emulated target's records are
  PhysicalStorageBuffer memory, where atomics are allowed). A record one invocation owns is fine:
  no other invocation can touch it, so the atomic is exactly a load, the operation and a store, and
  `plain_record_atomics` hands those calls to the back end, which lowers them so. Owned: the
  records of RWThreadNodeInputRecord (one per thread) and ThreadNodeOutputRecords (allocated per
  thread), and group records (RWGroupNodeInputRecords, GroupNodeOutputRecords) in a node whose
  thread group is one thread (thread launch, or [NumThreads(1, 1, 1)]). Shared: an
  RWDispatchNodeInputRecord (every group of the dispatch reads it) and group records in a larger
  group. Ownership follows the record object's type, which no assignment or helper call changes
  (node objects convert to no other kind); a helper reached from several compiled nodes is plain
  only if every one of them owns the record;
- WG0627: InterlockedCompare{Store,Exchange}FloatBitwise on any other float location (groupshared,
  buffer element, texel): OpAtomicCompareExchange takes integers only, and logical addressing
  cannot view the float location as a uint;
- WG0621: a column-major non-float matrix in buffer, uniform or record memory (SPIR-V matrices
  must be float; wgc stores the others as arrays of rows, which only a row-major layout matches);
- WG0622: a non-constant texel offset on a texture method other than Gather (HLSL allows it since
  SM 6.7; Vulkan only on OpImageGather, VUID-RuntimeSpirv-Offset-10213);
- WG0623: `?:` choosing between resources or node objects (a Vulkan descriptor or node payload is
  not a value SPIR-V can select);
- WG0624: a 64-bit `[[vk::image_format]]` (wgc's image sampled types are 32-bit);
- WG0626: a string that is not a compile-time constant (a `string` variable that is not a
  `static const` global, or a printf format that does not fold to a literal): SPIR-V has no string
  values, only literal strings;
- WG0453: a node object rebound (assigned, given to an `out` node-object parameter, or returned from
  a helper) inside an if/loop/switch/`?:`/`&&`/`||` that its declaration is not inside: SPIR-V
  has no node-object values (a payload is a variable or an OpAllocateNodePayloadsAMDX pointer that
  logical addressing cannot select at run time), so wgc binds each node variable statically;
- WG0454: a local, parameter or return value whose struct or array type holds node objects (HLSL
  allows them; wgc binds node objects one by one and does not split aggregates of them);
- WG0633: a RayQuery in a groupshared variable, or in a struct (a local, static, parameter or
  result whose type is or holds such a struct): DXC accepts both, but Vulkan keeps an
  OpTypeRayQueryKHR only in a Function or Private variable of its own type (or an array of it);
- WG0625: a NUL character in a string SPIR-V carries as a literal string, which ends at a NUL: the
  source text `-Zi` embeds (OpSource), a NodeID name (OpEntryPoint, OpConstantStringAMDX) of a node,
  an output target or a [NodeShareInputOf];
- WG0640: an entry point of a stage wgc does not compile (`[Shader("vertex")]`, geometry, hull,
  domain, ray tracing: all but node and `entry_stages.STAGES`), said rather than leaving it out;
- WG0642: a system value on the vertices or primitives of a mesh node or mesh shader, or on a pixel
  shader input or output, that wgc maps to no built-in
  (`irtools/stageio.py` has the table);
- WG0643: mesh entry points (nodes or shaders) of triangle and line topology in one module (without
  --split-nodes): spirv-val checks every index built-in against every MeshEXT entry point's mode;
- WG0644: an amplification shader's DispatchMesh payload that is not a groupshared variable;
- WG0645 (a warning, `spec-constant-in-attribute`): a specialization constant in a work-graph
  attribute (`ir.AttributeArg.spec`) that the module fixes at its default value: every one under
  the emulated target (its module and reflection, which `wgc run` sizes and dispatches by, use the
  default; the AMDX target gives the constant's <id> instead), and [NumThreads] of a thread-launch
  node (always LocalSize 1, 1, 1) or under vulkan1.2, which has no LocalSizeId (maintenance4 is
  core from Vulkan 1.3);
- WG0628: a call of a function declared without a body (HLSL libraries leave it to the linker;
  Vulkan SPIR-V cannot import functions: the `Linkage` capability is not allowed), once per
  function, at its first call in node order.

Policy (docs/reference.md, "Diagnostics"): HLSL rules are checked by the rest of sema and reported by every
command; these limits are reported only by the commands that produce SPIR-V (`wgc compile` with a
SPIR-V output); `wgc inspect` and `--emit=ir`, which show the program, do not report them (a loop
graph is shown with its loop). Only code the compiled nodes reach is checked, as only that code is
lowered. A back end may rely on every rule here (it asserts instead of re-checking).

All are errors except WG0450 and WG0645, warnings: the driver lowers the module when no limit is an error.

Invariants: pure; never raises for a checked program; diagnostics in node order, then code order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic, DiagnosticKind, Label
from wgc.irtools.consteval import Folded, fold
from wgc.sema.entry_stages import STAGES
from wgc.sema.graph import GraphInfo
from wgc.irtools.layout import TypeLayout
from wgc.sema.mesh import dispatch_mesh_calls, task_payload
from wgc.sema.nodes import NodeInfo, spec_constant_arguments
from wgc.irtools.stageio import BUILTINS, flatten, mesh_qualifier, unsupported
from wgc.sema.stages import (AMDX_MIN_GRAPH_DEPTH, MAX_STAGE_INDEX, NodeStages, StagePlan, UnrolledDepth,
                             self_feeding, unrolled_depth)
from wgc.sema.typeref import contains_ray_query
from wgc.irtools.walk import lvalue_chain, children, nodes_of, reachable_functions, walk_body
from wgc.source import SourceFile, Span

if TYPE_CHECKING:
    from wgc.sema.results import Analysis

_GLOBAL_STORAGES = frozenset({ir.Storage.UNIFORM, ir.Storage.RESOURCE, ir.Storage.GROUPSHARED, ir.Storage.STATIC})
"""The storages of the globals whose references `_global` checks."""

TARGET_NOTES = {
    "amdx": "a limit of the SPIR-V AMDX target (SPV_AMDX_shader_enqueue); 'wgc inspect' still shows the program",
    "emulated": "a limit of the emulated SPIR-V target (--target=emulated); 'wgc inspect' still shows the program",
}

_WIDE_FORMATS = frozenset({"r64ui", "r64i"})

_ATOMIC_RULE = ("the Vulkan spec (VUID-StandaloneSpirv-None-04686) limits the pointer of every atomic instruction to "
                "Uniform, Workgroup, Image, StorageBuffer, PhysicalStorageBuffer or TaskPayloadWorkgroupEXT storage; "
                "SPV_AMDX_shader_enqueue adds no NodePayloadAMDX to the list, and spirv-val's universal rules "
                "refuse it too")
_ATOMIC_EMITTED = ("wgc emits the atomic on the NodePayloadAMDX pointer, as DXC does, and validates the rest of the "
                   "module: spirv-val refuses the module as written, 'wgc run' runs it (the emulated target keeps "
                   "records in buffer memory, where atomics are allowed); -Werror=amdx-record-atomics refuses it")


def local_size_id_allowed(target_env: str) -> bool:
    """Whether the Vulkan version takes LocalSizeId without an extension (maintenance4, core from 1.3)."""
    return target_env not in ("vulkan1.0", "vulkan1.1", "vulkan1.2")



def check_target(analysis: Analysis, nodes: Sequence[NodeInfo], embedded_source: SourceFile | None = None,
                 target: str = "amdx", index_space: bool = False, split_nodes: bool = False,
                 target_env: str = "vulkan1.3") -> list[Diagnostic]:
    """The limits of `target` (module docstring) broken by `nodes` and the code they reach, and by
    `embedded_source`, the main file when `-Zi` embeds it; `index_space`: the emulated target
    lowers loops in index space as the AMDX target does; `split_nodes`: one module per entry point;
    `target_env`: the Vulkan version (`-fspv-target-env`)."""
    diagnostics: list[Diagnostic] = []
    amdx = target == "amdx"

    def report(kind: DiagnosticKind, span: Span | None, message: str, labels: tuple[Label, ...] = ()) -> None:
        diagnostics.append(kind(span, message, labels=labels, notes=(TARGET_NOTES[target],)))

    if embedded_source is not None and "\0" in embedded_source.text:
        nul = embedded_source.text.index("\0")
        report(codes.SOURCE_NOT_EMBEDDABLE, Span(embedded_source, nul, nul + 1),
               "-Zi cannot embed this source in the module: it holds a NUL character, which ends a SPIR-V "
               "literal string")

    for node in nodes:   # node names are SPIR-V literal strings (OpEntryPoint, OpConstantStringAMDX)
        named = [(node.id.name, node.span, f"node '{node.function.name}'")]
        named += [(o.target.name, o.parameter.span, f"output '{o.parameter.name}'") for o in node.outputs]
        if node.share_input_of is not None:
            named.append((node.share_input_of.name, node.span, f"the shared input of node '{node.function.name}'"))
        for name, span, owner in named:
            if "\0" in name:
                shown = name.replace("\0", "\\0")
                report(codes.SOURCE_NOT_EMBEDDABLE, span,
                       f"the node name '{shown}' of {owner} holds a NUL character, which ends a SPIR-V literal "
                       "string")

    for function in analysis.module.functions:   # entry points of other stages: never silently dropped
        kind = function.shader_kind
        if kind is not None and kind != "node" and kind not in STAGES:
            shader = ir.find_attribute(function.attributes, "shader")
            report(codes.STAGE_NOT_SUPPORTED, shader.span if shader is not None else function.span,
                   f"'{function.name}' is a {kind} shader, a stage wgc does not compile (wgc compiles node shaders, "
                   f"mesh nodes included, and {', '.join(STAGES[:-1])} and {STAGES[-1]} shaders)")
    for node in nodes:
        for param, kind, type_, semantic in _stage_values(node):
            what = f"mesh node '{node.function.name}'" if node.stage == "node" else \
                f"{node.stage} shader '{node.function.name}'"
            where = {"vertices": "the vertices", "primitives": "the primitives", "pixel-in": "an input",
                     "pixel-out": "an output"}[kind]
            for variable in unsupported(flatten(type_, semantic, kind)):
                report(codes.MESH_OUTPUT_NOT_EXPRESSIBLE, param.span if param is not None else node.span,
                       f"'{variable.semantic}' on {where} of {what} has no SPIR-V built-in in wgc (there it maps "
                       f"{', '.join(BUILTINS[kind]) or 'no system value'})")
        if node.stage == "amplification":
            for call in dispatch_mesh_calls(node.function)[:1]:
                if task_payload(call) is None:
                    report(codes.TASK_PAYLOAD_NOT_GROUPSHARED, call.args[3].span,
                           "the payload of DispatchMesh must be a groupshared variable: in SPIR-V the mesh shaders' "
                           "task payload is a TaskPayloadWorkgroupEXT variable of its own (DXC's SPIR-V back end "
                           "refuses it too)")
    meshes = [n for n in nodes if n.mesh is not None and n.mesh.topology is not None]
    if not split_nodes and meshes:
        first = meshes[0]
        other = next((n for n in meshes if n.mesh.topology != first.mesh.topology), None)  # type: ignore[union-attr]
        if other is not None:
            report(codes.MIXED_MESH_TOPOLOGIES, other.span,
                   f"'{other.function.name}' outputs {other.mesh.topology}s and '{first.function.name}' "  # type: ignore[union-attr]
                   f"{first.mesh.topology}s: spirv-val holds every MeshEXT entry point of a module to each index "  # type: ignore[union-attr]
                   "built-in, so they cannot share one module; compile with --split-nodes (one module per entry "
                   "point) or pick one with -E",
                   (Label(first.span, "the other topology"),))
    for node in nodes:
        for _, attribute, _, arg in spec_constant_arguments(node):
            spec = arg.spec
            assert spec is not None
            if not amdx:
                report(codes.SPEC_CONSTANT_FIXED_BY_TARGET, arg.span,
                       f"the emulated target fixes attribute '{attribute.name}' at the default value {arg.value} of "
                       f"specialization constant '{spec.name}' (constant_id {spec.spec_id}): 'wgc run' sizes and "
                       f"dispatches the graph by it, so specialising '{spec.name}' does not change the attribute")
            elif attribute.key == "numthreads" and node.launch == "thread":
                report(codes.SPEC_CONSTANT_FIXED_BY_TARGET, arg.span,
                       f"a thread-launch node runs one thread per group (LocalSize 1, 1, 1): [NumThreads] takes the "
                       f"default value {arg.value} of specialization constant '{spec.name}' (constant_id "
                       f"{spec.spec_id}), so specialising '{spec.name}' does not change the thread group size")
            elif attribute.key == "numthreads" and not local_size_id_allowed(target_env):
                report(codes.SPEC_CONSTANT_FIXED_BY_TARGET, arg.span,
                       f"{target_env} has no LocalSizeId (it needs maintenance4, core from Vulkan 1.3): [NumThreads] "
                       f"takes the default value {arg.value} of specialization constant '{spec.name}' (constant_id "
                       f"{spec.spec_id}), so specialising '{spec.name}' does not change the thread group size")

    graph = analysis.graph
    if (amdx or index_space) and graph is not None and graph.loops:
        _loop_stages(graph, analysis.stage_plan(), nodes, report)
    functions: dict[ir.Function, None] = {}
    for node in nodes:
        functions.update(dict.fromkeys(reachable_functions(node.function)))
        _records(node, report)
        if not amdx:
            for bound, parameter in node.local_root_bindings.items():
                if parameter.kind == "table":
                    report(codes.LOCAL_ROOT_TABLE_UNSUPPORTED, bound.span,
                           f"'{bound.name}' of node '{node.function.name}' is bound by a descriptor table of local "
                           f"root signature '{node.local_root.name if node.local_root else '?'}': wgc run reads root "
                           "constants and root descriptors (CBV, SRV, UAV) from the local-root-argument table, not "
                           "descriptor tables")
        if amdx and node.local_root_arguments_table_index is not None:
            index = node.local_root_arguments_table_index
            signature = f", and the resources its local root signature '{node.local_root.name}' binds stay " \
                "descriptors" if node.local_root is not None else ""
            diagnostics.append(codes.LOCAL_ROOT_ARGUMENTS_IGNORED(
                node.local_root_arguments_span,
                f"[NodeLocalRootArgumentsTableIndex({index})] of '{node.function.name}' has no SPIR-V "
                "equivalent: SPV_AMDX_shader_enqueue has no local root arguments, so the compiled node "
                f"ignores it (its [[vk::shader_record_ext]] blocks are ordinary uniform buffers{signature})",
                notes=("--target=emulated (wgc run) reads the node's [[vk::shader_record_ext]] blocks from "
                       f"entry {index} of the dispatch's local-root-argument table", TARGET_NOTES[target])))
    for call, (record, node) in (_record_atomics(nodes)[1] if amdx else {}).items():
        threads = node.num_threads[0] * node.num_threads[1] * node.num_threads[2]
        shared_by = f"the {threads} threads of a group of node '{node.function.name}'" \
            if record.kind in _OWNED_BY_THE_GROUP else "every thread group of the dispatch"
        scalar = t.element_scalar(call.args[0].type)
        if call.name.endswith("FloatBitwise") and scalar is not None and scalar.is_float:
            report(codes.FLOAT_COMPARE_EXCHANGE, call.span,
                   f"'{call.name}' on a float field of a shared node record cannot be expressed: SPIR-V "
                   "compare-exchanges integers only, and Vulkan allows no atomics on NodePayloadAMDX memory",
                   (Label(call.args[0].span, "declare this field uint and use asuint/asfloat"),))
            continue
        diagnostics.append(codes.ATOMIC_ON_NODE_RECORD(
            call.span,
            f"'{call.name}' on a record of '{record}' is not valid Vulkan SPIR-V: the record is shared by "
            f"{shared_by}, and Vulkan allows no atomic operations on NodePayloadAMDX memory",
            labels=(Label(call.args[0].span, "a shared node record (atomics work on records one thread owns: "
                                             "RWThreadNodeInputRecord, ThreadNodeOutputRecords, and group records "
                                             "of a one-thread group)"),),
            notes=(_ATOMIC_RULE, _ATOMIC_EMITTED, TARGET_NOTES[target])))
    globals_seen: set[ir.Variable] = set()
    undefined_seen: set[ir.Function] = set()
    for function in functions:
        _object_bindings(function, report)
        _ray_queries_in_signature(function, report)
        # the classes the checks below read (exactly: IR node classes have no subclasses), in body order
        for item in nodes_of(function, ir.Call, ir.VarRef, ir.VarDecl, ir.IntrinsicCall, ir.MethodCall, ir.Select):
            cls = type(item)
            if cls is ir.VarRef:
                if item.variable.storage in _GLOBAL_STORAGES and item.variable not in globals_seen:
                    globals_seen.add(item.variable)
                    _global(item.variable, report)
                if item.type is t.STRING and item.variable.storage is not ir.Storage.LOCAL \
                        and not isinstance(fold(item), Folded):
                    report(codes.STRING_NOT_CONSTANT, item.span,
                           f"string '{item.variable.name}' is not a compile-time constant: SPIR-V has no string values",
                           (Label(item.variable.span, "declare it 'static const' with a literal initializer"),))
            elif cls is ir.VarDecl:
                _ray_query_variable(item.variable, report)
                if item.variable.type is t.STRING:
                    report(codes.STRING_NOT_CONSTANT, item.variable.span,
                           f"string variable '{item.variable.name}' cannot be lowered: SPIR-V has no string values "
                           "(use a literal, or a 'static const string' global)")
            elif cls is ir.Call:
                if item.function.body is None and item.function not in undefined_seen:
                    undefined_seen.add(item.function)
                    report(codes.UNDEFINED_FUNCTION, item.span,
                           f"function '{item.function.name}' is declared but not defined: a library may leave it to "
                           "the linker, but Vulkan SPIR-V cannot import functions",
                           (Label(item.function.span, "declared here"),))
            elif cls is ir.Select:
                if _is_object(item.type):
                    report(codes.SELECT_OF_OBJECTS, item.span,
                           f"a conditional expression cannot choose between objects of type '{item.type}' in SPIR-V",
                           (Label(item.cond.span, "choose with if/else and use each object on its own branch"),))
            else:
                _call(item, report)
    return diagnostics


def _loop_stages(graph: GraphInfo, plan: StagePlan, nodes: Sequence[NodeInfo], report: Any) -> None:
    """WG0606-WG0609: what the index-space form of loops cannot express (module docstring); `plan`: the
    graph's (`Analysis.stage_plan`)."""
    compiled = {n.key for n in nodes}
    first_of: dict[str, NodeInfo] = {}
    for node in graph.nodes:
        first = first_of.setdefault(node.id.name, node)
        if node.key not in compiled or first is node:
            continue
        if _shape(plan.stages_of(first)) != _shape(plan.stages_of(node)):
            report(codes.LOOP_ARRAY_NOT_UNROLLABLE, node.span,
                   f"'{node.id}' and '{first.id}' share the name '{node.id.name}' but not their loops "
                   f"({_loops_text(plan.stages_of(node))}; {_loops_text(plan.stages_of(first))}): the stages of one name "
                   "share one index space",
                   (Label(first.span, f"'{first.id}' is declared here"),))
    for loop in graph.loops:
        if loop.entry.key in compiled and len(loop.members) > 1 and self_feeding(loop, graph):
            others = ", ".join(f"'{m.id}'" for m in loop.members if m is not loop.entry)
            report(codes.SELF_FEEDING_ENTRY_WITH_MEMBERS, loop.entry.span,
                   f"loop entry '{loop.entry.id}' targets itself, and its loop has other members ({others}): its "
                   "iterations would be recursion levels and its members' iterations stage indices, and "
                   "SPV_AMDX_shader_enqueue forbids a node enqueueing to its own name at another index")
    for node in nodes:
        stages = plan.stages_of(node)
        if stages.largest_index > MAX_STAGE_INDEX:
            report(codes.STAGE_INDEX_TOO_LARGE, node.span,
                   f"node '{node.id}' needs stage indices up to {stages.largest_index} ({_loops_text(stages)}); "
                   f"ShaderIndexAMDX holds at most {MAX_STAGE_INDEX}")
        shared = next((n for n in graph.nodes if node.share_input_of is not None and n.id == node.share_input_of),
                      None)
        if shared is not None and (stages.unrolled or plan.stages_of(shared).unrolled):
            member = node if stages.unrolled else shared
            report(codes.LOOP_INPUT_SHARING, node.span,
                   f"'{node.id}' shares the input of '{shared.id}', and '{member.id}' is in a loop: "
                   "SharesInputWithAMDX names one index, but a loop member has a stage per iteration")


def _shape(stages: NodeStages) -> tuple[tuple[str, int], ...]:
    """What the index space of a name depends on: its loops (by their entries' names: each entry of a
    node array of loop entries is a loop of its own, the proposal says, and they index alike) and
    iteration counts, and the recursion form."""
    recursion = stages.recursion_loop
    return tuple((d.entry.id.name, d.iterations) for d in stages.dimensions) + \
        (((recursion.entry.id.name, -recursion.iterations),) if recursion is not None else ())


def _loops_text(stages: NodeStages) -> str:
    if not stages.unrolled:
        return "in no loop"
    loops = [f"'{d.entry.id}' x {d.iterations}" for d in stages.dimensions]
    if stages.recursion_loop is not None:
        loops.append(f"'{stages.recursion_loop.entry.id}' x {stages.recursion_loop.iterations} (recursion)")
    return "loops " + ", ".join(loops)


def depth_warnings(graph: GraphInfo | None, max_graph_depth: int | None,
                   found: UnrolledDepth | None = None) -> list[Diagnostic]:
    """WG0513 (amdx): the unrolled graph deeper than maxExecutionGraphDepth (module docstring); `found`:
    the graph's `unrolled_depth` when known (`Analysis.unrolled_depth`)."""
    if graph is None or not graph.nodes:
        return []
    limit = max_graph_depth if max_graph_depth is not None else AMDX_MIN_GRAPH_DEPTH
    if found is None:
        found = unrolled_depth(graph)
    if found.depth <= limit or found.deepest is None:
        return []
    where = (f"a record fed back to the terminator stage after '{found.deepest.id}'" if found.terminator
             else f"'{found.deepest.id}'")
    stated = (f"the device's limit given with --max-graph-depth is {limit}" if max_graph_depth is not None
              else f"Vulkan guarantees maxExecutionGraphDepth >= {AMDX_MIN_GRAPH_DEPTH}")
    notes = [TARGET_NOTES["amdx"],
             "SPV_AMDX_shader_enqueue counts every enqueue, each loop iteration and recursion level included"]
    if max_graph_depth is None:
        notes.append("if the device offers more, state its maxExecutionGraphDepth with --max-graph-depth N")
    return [codes.UNROLLED_GRAPH_TOO_DEEP(
        found.deepest.span, f"unrolled for SPV_AMDX_shader_enqueue, the graph is {found.depth} stages deep (deepest: "
        f"{where}); {stated}", notes=tuple(notes))]


def _stage_values(node: NodeInfo) -> list[tuple[ir.Variable | None, str, t.Type, str | None]]:
    """(parameter or None for the result, stageio kind, type of one value, semantic) of each stage
    input or output of a mesh or pixel entry point."""
    found: list[tuple[ir.Variable | None, str, t.Type, str | None]] = []
    for param in node.function.params:
        kind = mesh_qualifier(param)
        if node.mesh is not None and kind in ("vertices", "primitives") and isinstance(param.type, t.ArrayType):
            found.append((param, kind, param.type.element, param.semantic))
        elif node.stage == "pixel" and kind is None:
            found.append((param, "pixel-in" if param.direction is ir.Direction.IN else "pixel-out", param.type,
                          param.semantic))
    if node.stage == "pixel" and node.function.return_type is not t.VOID:
        found.append((None, "pixel-out", node.function.return_type, node.function.return_semantic))
    return found


def _object_bindings(function: ir.Function, report: Any) -> None:
    """WG0453: node objects rebound in control flow narrower than their declaration (module docstring)."""
    if function.body is None:
        return
    for variable in function.params:
        _aggregate_of_node_objects(variable.type, variable.span, f"parameter '{variable.name}'", report)
    _aggregate_of_node_objects(function.return_type, function.span, f"the result of '{function.name}'", report)
    returns_object = _is_node_object(function.return_type)
    if not returns_object and not _rebinds_node_object(function):
        # nothing can be rebound in control flow: only the locals' types are checked, in the walk's order
        for declaration in nodes_of(function, ir.VarDecl):
            variable = declaration.variable
            _aggregate_of_node_objects(variable.type, variable.span, f"local '{variable.name}'", report)
        return
    declared_at: dict[ir.Variable, int] = {p: 0 for p in function.params}
    stack: list[tuple[Any, int]] = [(function.body, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ir.VarDecl):
            declared_at[node.variable] = depth
            variable = node.variable
            _aggregate_of_node_objects(variable.type, variable.span, f"local '{variable.name}'", report)
        bound: list[ir.Expr] = []
        if isinstance(node, ir.Assign):
            bound = [node.target]
        elif isinstance(node, ir.Call):
            bound = [a for p, a in zip(node.function.params, node.args) if p.direction is not ir.Direction.IN]
        for target in bound:
            if isinstance(target, ir.VarRef) and _is_node_object(target.type) \
                    and depth > declared_at.get(target.variable, 0):
                variable = target.variable
                report(codes.NODE_OBJECT_BOUND_IN_BRANCH, target.span,
                       f"node object '{variable.name}' cannot be rebound here: SPIR-V binds node objects "
                       "statically, and this is inside control flow that its declaration is not in",
                       (Label(variable.span, "declared here"),))
        if isinstance(node, ir.Return) and returns_object and depth > 0:
            report(codes.NODE_OBJECT_BOUND_IN_BRANCH, node.span,
                   f"'{function.name}' cannot return a node object from inside control flow: SPIR-V binds "
                   "node objects statically (return once, at the end of the function)")
        inner = depth + 1 if isinstance(node, (ir.If, ir.Switch, ir.Select, ir.SwitchCase)) or \
            isinstance(node, ir.Binary) and node.op in ("&&", "||") else depth
        if isinstance(node, ir.Loop):     # the body repeats: deeper than the init statements
            stack.extend((child, depth + (1 if any(child is s for s in node.init) else 2))
                         for child in reversed(children(node)))
            continue
        stack.extend((child, inner) for child in reversed(children(node)))


def _rebinds_node_object(function: ir.Function) -> bool:
    """Whether the body assigns a node object variable, or passes one to an out or inout parameter
    (the bindings `_object_bindings` checks the depth of)."""
    for node in nodes_of(function, ir.Assign, ir.Call):
        if isinstance(node, ir.Assign):
            targets: Sequence[ir.Expr] = (node.target,)
        else:
            targets = [a for p, a in zip(node.function.params, node.args) if p.direction is not ir.Direction.IN]
        if any(isinstance(target, ir.VarRef) and _is_node_object(target.type) for target in targets):
            return True
    return False


def _aggregate_of_node_objects(type_: t.Type, span: Span, what: str, report: Any) -> None:
    """WG0454: a struct or array type holding node objects."""
    if isinstance(type_, (t.StructType, t.ArrayType)) and _holds_node_object(type_):
        report(codes.NODE_OBJECTS_IN_AGGREGATE, span,
               f"{what} has type '{type_}', which holds node objects: wgc binds each node object on its own "
               "in SPIR-V and cannot keep them in a struct or array; use separate variables")


def _holds_node_object(type_: t.Type) -> bool:
    if isinstance(type_, t.NodeObjectType):
        return True
    if isinstance(type_, t.ArrayType):
        return _holds_node_object(type_.element)
    if isinstance(type_, t.StructType):
        return any(_holds_node_object(f.type) for f in type_.all_fields())
    return False


def _is_node_object(type_: t.Type) -> bool:
    return isinstance(t.innermost_element(type_), t.NodeObjectType)


def _is_object(type_: t.Type) -> bool:
    return isinstance(t.innermost_element(type_), (t.NodeObjectType, t.ResourceType))


def _call(call: ir.IntrinsicCall | ir.MethodCall, report: Any) -> None:
    if isinstance(call, ir.IntrinsicCall):
        if call.name == "printf" and call.args and not isinstance(fold(call.args[0]), Folded) \
                and not isinstance(call.args[0], ir.VarRef):     # string variables: reported above
            report(codes.STRING_NOT_CONSTANT, call.args[0].span,
                   "the format of 'printf' must be a string literal: SPIR-V has no string values")
        if call.name.startswith("Interlocked") and call.name.endswith("FloatBitwise") and call.args \
                and _record_of(call) is None:          # on records: WG0620, or plain when owned
            report(codes.FLOAT_COMPARE_EXCHANGE, call.span,
                   f"'{call.name}' on a float variable cannot be expressed: SPIR-V compare-exchanges integers "
                   "only and cannot view a float location as a uint",
                   (Label(call.args[0].span, "declare this location uint and use asuint/asfloat, or use "
                                             "RWByteAddressBuffer's method"),))
        return
    type_ = call.object.type
    if not isinstance(type_, t.ResourceType) or not type_.kind.is_texture or type_.kind.writable:
        return
    offsets = texel_offset_arguments(call)
    if len(offsets) == 4:                           # an offset per gathered texel: ConstOffsets
        variable = next((each for each in offsets if not isinstance(fold(each, optimized=True), Folded)), None)
        if variable is not None:
            report(codes.VARIABLE_TEXEL_OFFSET, variable.span,
                   f"the four texel offsets of '{call.method}' must be constants: SPIR-V takes them as "
                   "ConstOffsets")
    elif offsets and not call.method.startswith("Gather") and not isinstance(fold(offsets[0], optimized=True), Folded):
        report(codes.VARIABLE_TEXEL_OFFSET, offsets[0].span,
               f"the texel offset of '{call.method}' must be a constant: Vulkan allows a variable offset only "
               "on Gather (VUID-RuntimeSpirv-Offset-10213)")


_OWNED_BY_THE_THREAD = frozenset({t.NodeObjectKind.RW_THREAD_NODE_INPUT_RECORD, t.NodeObjectKind.THREAD_NODE_OUTPUT_RECORDS})
_OWNED_BY_THE_GROUP = frozenset({t.NodeObjectKind.RW_GROUP_NODE_INPUT_RECORDS, t.NodeObjectKind.GROUP_NODE_OUTPUT_RECORDS})


def _record_of(call: ir.IntrinsicCall) -> t.NodeObjectType | None:
    """The record object type whose record an Interlocked* call's destination is in, if any."""
    base, _ = lvalue_chain(call.args[0]) if call.args else (None, [])
    if isinstance(base, ir.RecordAccess) and isinstance(base.object.type, t.NodeObjectType):
        return base.object.type
    return None


def _owned(record: t.NodeObjectType, node: NodeInfo) -> bool:
    """Whether one invocation of `node` owns the records of `record` (module docstring, WG0620)."""
    if record.kind in _OWNED_BY_THE_THREAD:
        return True
    one_thread = node.launch == "thread" or node.num_threads == (1, 1, 1)
    return record.kind in _OWNED_BY_THE_GROUP and one_thread


def _record_atomics(nodes: Sequence[NodeInfo]) -> tuple[
        dict[ir.IntrinsicCall, None], dict[ir.IntrinsicCall, tuple[t.NodeObjectType, NodeInfo]]]:
    """The Interlocked* calls on node records that `nodes` reach: those every reaching node owns
    the record of (in code order), and the others (with the record type and the first node that
    shares it)."""
    owned: dict[ir.IntrinsicCall, None] = {}
    shared: dict[ir.IntrinsicCall, tuple[t.NodeObjectType, NodeInfo]] = {}
    for node in nodes:
        for function in reachable_functions(node.function):
            for item in walk_body(function):
                if not isinstance(item, ir.IntrinsicCall) or not item.name.startswith("Interlocked"):
                    continue
                record = _record_of(item)
                if record is None or item in shared:
                    continue
                if _owned(record, node):
                    owned[item] = None
                else:
                    owned.pop(item, None)
                    shared[item] = (record, node)
    return owned, shared


def plain_record_atomics(nodes: Sequence[NodeInfo]) -> frozenset[ir.IntrinsicCall]:
    """The Interlocked* calls on node records that the back end lowers as a load, the operation
    and a store: every compiled node that reaches them owns the record (module docstring, WG0620)."""
    return frozenset(_record_atomics(nodes)[0])


def texel_offset_arguments(call: ir.MethodCall) -> tuple[ir.Expr, ...]:
    """The texel offset arguments of a read-only texture method: the signed-integer arguments after
    the location (Sample*/Gather*/CalculateLevelOfDetail take float coordinates, clamps, biases,
    LODs and gradients; `Load`'s first argument is its integer location, on a multisampled texture
    followed by the sample index; a status is `out uint`; `GetSamplePosition` takes a sample index)."""
    if call.method == "GetSamplePosition":
        return ()
    multisampled = isinstance(call.object.type, t.ResourceType) and call.object.type.kind.multisampled
    args = call.args[(2 if multisampled else 1):] if call.method == "Load" else call.args
    return tuple(a for a in args if (scalar := t.element_scalar(a.type)) is not None
                 and scalar.kind is t.ScalarKind.INT)


def _ray_queries_in_signature(function: ir.Function, report: Any) -> None:
    """WG0633 for parameters and a result whose struct types hold a RayQuery."""
    if function.body is None:
        return
    for variable in function.params:
        _ray_query_variable(variable, report)
    if _struct_with_ray_query(function.return_type):
        report(codes.RAYQUERY_NOT_EXPRESSIBLE, function.span,
               f"the result of '{function.name}' has type '{function.return_type}', which holds a RayQuery in "
               "a struct: SPIR-V keeps a ray query only in a variable of its own type")


def _ray_query_variable(variable: ir.Variable, report: Any) -> None:
    """WG0633 for a variable that holds a RayQuery where SPIR-V cannot (module docstring)."""
    if variable.storage is ir.Storage.GROUPSHARED and contains_ray_query(variable.type):
        report(codes.RAYQUERY_NOT_EXPRESSIBLE, variable.span,
               f"groupshared '{variable.name}' cannot hold a RayQuery ('{variable.type}'): SPIR-V keeps a ray "
               "query only in a Function or Private variable (declare it a local or a static global)")
    elif _struct_with_ray_query(variable.type):
        report(codes.RAYQUERY_NOT_EXPRESSIBLE, variable.span,
               f"'{variable.name}' has type '{variable.type}', which holds a RayQuery in a struct: SPIR-V keeps "
               "a ray query only in a variable of its own type (declare the RayQuery as a variable of its own)")


def _struct_with_ray_query(type_: t.Type) -> bool:
    inner = t.innermost_element(type_)
    return isinstance(inner, t.StructType) and contains_ray_query(inner)


def _global(variable: ir.Variable, report: Any) -> None:
    _ray_query_variable(variable, report)
    fmt = ir.find_attribute(variable.attributes, "vk::image_format")
    written = fmt.values()[0] if fmt is not None and fmt.values() else None
    if fmt is not None and isinstance(written, str) and written.lower() in _WIDE_FORMATS:
        report(codes.WIDE_IMAGE_FORMAT, fmt.span,
               f"image format '{fmt.values()[0]}' of '{variable.name}' is 64-bit: wgc's SPIR-V images have "
               "32-bit sampled types")
    if variable.layout is None:
        return
    type_ = variable.type
    if variable.storage is ir.Storage.RESOURCE:
        type_ = t.innermost_element(type_)
        if not isinstance(type_, t.ResourceType) or type_.element is None:
            return
        type_ = type_.element
    _matrices(type_, variable.layout, variable.span, f"'{variable.name}'", report)


def _records(node: NodeInfo, report: Any) -> None:
    for param in node.function.params:
        type_ = t.innermost_element(param.type)
        if isinstance(type_, t.NodeObjectType) and type_.record is not None and param.layout is not None:
            _matrices(type_.record, param.layout, param.span, f"the record of '{param.name}'", report)


def _matrices(type_: t.Type, layout: TypeLayout, span: Span, what: str, report: Any,
              field: t.Field | None = None) -> None:
    """WG0621 for every column-major non-float matrix (with two rows and two columns at least) in `type_`."""
    if isinstance(type_, t.StructType):
        for member, member_layout in zip(type_.all_fields(), layout.members):
            _matrices(member.type, member_layout.layout, span, what, report, member)
    elif isinstance(type_, t.ArrayType):
        _matrices(type_.element, layout.element or layout, span, what, report, field)
    elif isinstance(type_, t.MatrixType) and not type_.element.is_float and type_.rows > 1 and type_.columns > 1 \
            and not layout.row_major:
        labels = (Label(field.span, f"'{field.name}' is declared here"),) if field is not None and field.span else ()
        report(codes.COLUMN_MAJOR_INTEGER_MATRIX, span,
               f"a column-major '{type_}' in {what} cannot be expressed: wgc keeps non-float matrices as arrays "
               "of rows in buffer and record memory; declare it row_major (or use -Zpr)", labels)
