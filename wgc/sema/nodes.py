"""Semantic analysis, work-graph rules of each node shader: attributes, inputs, outputs,
records and system values, and the node's description for the graph analysis.

Input: the checked `ir.Module` and the `SemaOptions` (the profile, `lib_6_8` or `lib_6_9`, both
the released rules; and the opt-ins to the MaxRecordsPerNode and Work Graph Loops proposals,
`-fmax-records-per-node` / `-fwork-graph-loops`, which apply under lib_6_9 only).
Output: one `NodeInfo` per `[Shader("node")]` function (data only: ids, launch (broadcasting,
coalescing, thread or mesh; a mesh node's mesh part is `mesh.py`'s), attribute
values, input, outputs with their budgets and targets, and a key unique among the node shaders:
the function name, `name.N` for the N-th node shader of one name, N >= 2) and the diagnostics of
`../shared/reference/workgraph-rules.md` §1.2–§1.8 and proposal 0025 (WG04xx).
The bodies' rules (uniformity, OutputComplete, barriers) are `uniformity.py`'s; the
rules that need every node (targets, cycles, depth, budgets with shared inputs) are
`graph.py`'s.

Each attribute's places, launch modes, arity, argument ranges (per profile and proposal) and
proposal are its row in the attribute table (`node_attributes.py`, read by `_values` and the
placement checks); the rules that combine attributes, records and launch modes are here.

Decisions (where the spec and DXC differ, the spec wins, workgraph-rules.md §1.16):
- a node-only function attribute on a function without [Shader] is dxc's warning (WG0442,
  `misplaced-attributes`: ignored); on a shader of another stage it is an error (WG0406);
- a coalescing input's `[MaxRecords]` is optional (default 1), as DXC and the spec's HLSL table;
- `[MaxRecordsSharedWith]` must name an output carrying `[MaxRecords]`; a LATER one is warning
  WG0470 (the spec says "previously declared", DXC accepts it);
- an output without `[MaxRecords]`/`[MaxRecordsSharedWith]` is warning WG0409 and gets
  MaxRecords 1, as DXC's SPIR-V (NodeMaxPayloadsAMDX 1);
- thread launch accepts `[NumThreads(1,1,1)]` (DXC) and nothing else;
- `[NodeMaxRecursionDepth]` is at most 32 (DXC), 2^24-2 with the loops proposal;
- loop-entry attributes need the loops proposal (WG0426 without it);
- `[MaxRecordsPerNode]` is accepted everywhere (released DXC ignores it); a missing one on an
  output array is a DefaultError warning with `-fmax-records-per-node` only; its value is then the
  budget's MaxRecords; with `[MaxRecordsSharedWith]` the budget owner's MaxRecords is the bound it
  may not exceed;
- system values are checked inside struct parameters too, and their types (uint/int, 1-3 components);
- an output array without `[NodeArraySize]`/`[UnboundedSparseNodes]` is warning WG0428 (DXC accepts
  it) and is taken as `[UnboundedSparseNodes]`, as SPV_AMDX_shader_enqueue reads a missing size;
- `[NodeLocalRootArgumentsTableIndex]` is kept in the `NodeInfo` (inspect shows it; the emulated
  target's runtime reads the node's table entry); the AMDX target's check warns that it cannot
  express it (WG0450, `sema.target`).

Recovery: records of structs whose declaration had an error (`poisoned`) are not checked; a node
whose [NodeLaunch] is unknown (invalid, an argument with its own error, or mesh under lib_6_8) is
not held to the rules of the stand-in launch (`LAUNCH_RULES`); a function whose [Shader] stage is
invalid (WG0405) or whose [Shader] is misspelt (WG0343) gets no rule of the node attributes it
carries; a misspelt attribute a node needs labels the missing-attribute error;
the budget attributes of node outputs are checked on helper functions too (as DXC does).

Invariants: never raises for bad input; a node whose attributes are broken still gets a
`NodeInfo` with defaults (`analyze` leaves it out of the graph, which would cascade).
"""

from __future__ import annotations


from wgc import codes, ir
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, FixIt, Label
from wgc.sema.context import SemaOptions
from wgc.irtools.layout import LayoutRule, TypeLayout, layout_of
from wgc.sema.attributes import misspelling_of
from wgc.sema.mesh import (MAX_MESH_THREADS, MeshInfo, check_mesh, check_misplaced_dispatch_mesh,
                           check_misplaced_mesh_parameters, mesh_qualifier)
from wgc.sema.node_attributes import (ATTRIBUTES, FUNCTION_ATTRIBUTES, LAUNCHES, NODE_ONLY_FUNCTION_ATTRIBUTES,
                                      OUTPUT_ATTRIBUTES, UNBOUNDED)
from wgc.irtools.walk import nodes_of, reachable_functions
from wgc.sema.root_layout import LocalRootLayout, RootParameter
from wgc.source import Span

NK = t.NodeObjectKind
MAX_GRID_PRODUCT = 2**24 - 1
MAX_MESH_GRID_PRODUCT = 2**22
INPUT_KINDS = {
    "broadcasting": (NK.DISPATCH_NODE_INPUT_RECORD, NK.RW_DISPATCH_NODE_INPUT_RECORD),
    "coalescing": (NK.GROUP_NODE_INPUT_RECORDS, NK.RW_GROUP_NODE_INPUT_RECORDS, NK.EMPTY_NODE_INPUT),
    "thread": (NK.THREAD_NODE_INPUT_RECORD, NK.RW_THREAD_NODE_INPUT_RECORD),
    "mesh": (NK.DISPATCH_NODE_INPUT_RECORD,),
}
SYSTEM_VALUES = {
    # name: (launch modes that provide it, largest component count)
    "sv_groupthreadid": (("broadcasting", "coalescing", "mesh"), 3),
    "sv_groupindex": (("broadcasting", "coalescing", "mesh"), 1),
    "sv_groupid": (("broadcasting", "mesh"), 3),
    "sv_dispatchthreadid": (("broadcasting", "mesh"), 3),
}


LAUNCH_RULES = frozenset({codes.MISSING_NODE_ATTRIBUTE.code, codes.ATTRIBUTE_NOT_FOR_LAUNCH.code,
                          codes.INVALID_NODE_INPUT.code, codes.INVALID_SYSTEM_VALUE.code,
                          codes.MISPLACED_NODE_ATTRIBUTE.code, codes.INVALID_MESH_NODE_ATTRIBUTE.code,
                          codes.MESH_NODE_OUTPUT.code, codes.INVALID_MESH_OUTPUT.code,
                          codes.INVALID_DISPATCH_GRID.code, codes.INVALID_TRACK_RW_SHARING.code})
"""The codes of rules that depend on the launch mode: not reported for a node whose launch is unknown (or
not available under the profile: a mesh node under lib_6_8)."""


SHADER_STAGES = ("compute", "vertex", "pixel", "hull", "domain", "geometry", "raygeneration", "intersection",
                 "anyhit", "closesthit", "miss", "callable", "mesh", "amplification", "node")
"""The values of [Shader("...")], as DXC lists them (`ValidateShaderAttributes`)."""


def _diagnosed(attribute: ir.Attribute) -> bool:
    """Whether an argument of `attribute` had an error of its own (reported where it was folded)."""
    return any(arg.value is None and arg.name is None for arg in attribute.args)


def _misspelt(attributes: tuple[ir.Attribute, ...], *keys: str) -> list[Label]:
    """Labels at the unknown attributes that are misspellings of one of `keys` (the missing attribute's
    error then shows what was meant, beside WG0343's warning)."""
    return [Label(a.span, f"'{a.name}' is not [{ATTRIBUTES[close].name}]: an unknown attribute is ignored")
            for a in attributes if (close := misspelling_of(a.name)) in keys]


def _close_stage(shader: ir.Attribute) -> str:
    """The end of WG0405's message for an invalid [Shader] stage: the value written, and a close stage."""
    import difflib

    value = shader.values()[0] if len(shader.args) == 1 else None
    close = difflib.get_close_matches(value.lower(), SHADER_STAGES, n=1) if isinstance(value, str) else []
    return f", not \"{value}\" (did you mean \"{close[0]}\"?)" if close else \
        (f", not \"{value}\"" if isinstance(value, str) else "")


@dataclass(frozen=True, order=True)
class NodeId:
    name: str
    index: int = 0

    def __str__(self) -> str:
        return self.name if self.index == 0 else f"{self.name}[{self.index}]"


@dataclass(frozen=True)
class DispatchGridField:
    offset: int
    components: int
    bits: int


@dataclass
class NodeInput:
    parameter: ir.Variable
    kind: t.NodeObjectKind
    record: t.Type | None
    layout: TypeLayout | None
    max_records: int | None
    """Coalescing `[MaxRecords]` as written (None: not written; 1 is implied)."""
    globally_coherent: bool
    track_rw_input_sharing: bool
    dispatch_grid_field: DispatchGridField | None
    implied: bool = False
    """A coalescing node without an input: `[MaxRecords(1)] EmptyNodeInput`."""
    dispatch_grid_field_invalid: bool = False
    """The record has an SV_DispatchGrid field that was rejected (reported already)."""


@dataclass
class NodeOutput:
    parameter: ir.Variable
    index: int
    """Declaration order among the outputs (the API's output index)."""
    kind: t.NodeObjectKind
    target: NodeId
    record: t.Type | None
    layout: TypeLayout | None
    track_rw_input_sharing: bool
    max_records: int | None
    shared_with: str | None = None
    shared_with_index: int | None = None
    max_records_per_node: int | None = None
    """Arrays: the written value, or the budget's MaxRecords when implied."""
    max_records_per_node_written: bool = False
    array_size: int | None = None
    allow_sparse_nodes: bool = False
    unbounded_sparse_nodes: bool = False
    dispatch_grid_field: DispatchGridField | None = None

    @property
    def is_array(self) -> bool:
        return self.kind.is_array

    @property
    def is_empty(self) -> bool:
        return self.kind.is_empty

    @property
    def record_size(self) -> int:
        return self.layout.size if self.layout is not None else 0


@dataclass
class NodeInfo:
    function: ir.Function
    id: NodeId
    launch: str
    span: Span
    program_entry_explicit: bool = False
    num_threads: tuple[int, int, int] = (1, 1, 1)
    dispatch_grid: tuple[int, int, int] | None = None
    max_dispatch_grid: tuple[int, int, int] | None = None
    max_recursion_depth: int | None = None
    local_root_arguments_table_index: int | None = None
    local_root_arguments_span: Span | None = None
    """Where [NodeLocalRootArgumentsTableIndex] is written."""
    local_root: LocalRootLayout | None = None
    """The local root signature associated with the node's export (`local_root.py`), if any."""
    local_root_bindings: dict[ir.Variable, RootParameter] = field(default_factory=dict)
    """The uniform blocks and buffers the node reaches that `local_root` binds (`local_root.py`)."""
    share_input_of: NodeId | None = None
    max_loop_iterations: int | None = None
    max_records_per_loop_iteration: int | None = None
    input: NodeInput | None = None
    outputs: list[NodeOutput] = field(default_factory=list)
    groupshared_bytes: int = 0
    calls_finished_cross_group_sharing: Span | None = None
    launch_unknown: bool = False
    """[NodeLaunch] names no launch mode (reported): `launch` is a stand-in, its rules are not checked."""
    declares_repetition: bool = False
    """A loop attribute, or a rejected `[NodeMaxRecursionDepth]`, is written: a self edge is intended."""
    mesh: MeshInfo | None = None
    """Mesh nodes and mesh shaders: the topology and the mesh outputs (`mesh.py`)."""
    stage: str = "node"
    """"node"; for the entry points of other stages compiled beside the nodes (`entry_stages.py`: never in
    the graph) "compute", "pixel", "mesh" or "amplification", and `launch` is the stage too."""
    max_input_records_per_graph_entry_record: tuple[int, bool] | None = None
    """Mesh nodes: [NodeMaxInputRecordsPerGraphEntryRecord(count, sharedAcrossNodeArray)]."""
    key: str = ""
    """Unique and stable among the file's node shaders (`overload_keys`): what the graph, the modules,
    `-E`, `--split-nodes` file names and `wgc inspect` tell nodes apart by. Not given: the function name."""

    def __post_init__(self) -> None:
        if not self.key:
            self.key = self.function.name

    @property
    def is_loop_entry(self) -> bool:
        return bool(self.max_loop_iterations)

    def output_budgets(self) -> list[tuple[NodeOutput, list[NodeOutput]]]:
        """Each `[MaxRecords]` output with the outputs that share its budget (itself first)."""
        budgets = [(o, [o]) for o in self.outputs if o.max_records is not None]
        by_name = {o.parameter.name: sharers for o, sharers in budgets}
        for output in self.outputs:
            if output.shared_with is not None and output.shared_with in by_name:
                by_name[output.shared_with].append(output)
        return budgets


class NodeChecker:
    def __init__(self, module: ir.Module, options: SemaOptions, poisoned: frozenset[t.StructType] = frozenset()) -> None:
        self.module = module
        self.options = options
        self.poisoned = poisoned
        """Structs whose declaration had an error: their records are not checked (it would cascade)."""
        self.diagnostics: list[Diagnostic] = []
        self.forward_shares: list[tuple[NodeOutput, str, Span]] = []
        """Outputs whose [MaxRecordsSharedWith] names a later output (WG0470), resolved once all are known."""
        self.launch_unknown = False
        """Set by `_launch` where [NodeLaunch]'s argument had an error of its own (the node's launch is unknown)."""
        self.groupshared = any(v.storage is ir.Storage.GROUPSHARED for v in module.globals)
        """Whether the module declares a groupshared variable (only globals are: `declarations`); without one
        no node uses groupshared memory, and `_groupshared_bytes` (a look at every variable reference of every
        function a node reaches) is not asked."""

    def report(self, kind, span, message, labels=(), notes=()):
        self.diagnostics.append(kind(span, message, labels=labels, notes=notes))

    # ------------------------------------------------------------ attribute arguments

    def _ints(self, attribute: ir.Attribute, count: tuple[int, ...], low: int, high: int,
              what: str, kind=codes.ATTRIBUTE_OUT_OF_RANGE) -> tuple[int, ...] | None:
        """The attribute's integer arguments, `len in count`, each in [low, high] (else `kind` is reported)."""
        values = attribute.values()
        if len(values) not in count:
            expected = " or ".join(str(c) for c in count)
            self.report(kind, attribute.span,
                        f"[{attribute.name}] takes {expected} argument{'s' if count != (1,) else ''}, "
                        f"{len(values)} given")
            return None
        for value, arg in zip(values, attribute.args):
            if isinstance(value, bool) or not isinstance(value, int):
                if value is not None or arg.name is not None:
                    self.report(kind, arg.span, f"[{attribute.name}] {what} must be an integer constant")
                return None
            if not low <= value <= high:
                self.report(kind, arg.span,
                            f"[{attribute.name}] {what} must be between {low} and {high}, not {value}")
                return None
        return tuple(values)  # type: ignore[arg-type]

    def _values(self, attribute: ir.Attribute, place: str = "",
                count: tuple[int, ...] | None = None) -> tuple[int, ...] | None:
        """`_ints` with the arity, range (at `place`, under the options), noun and code of the attribute's
        row in the table (`node_attributes`); `count` overrides the arity."""
        row = ATTRIBUTES[attribute.key]
        low, high = row.bounds(self.options, place)
        return self._ints(attribute, row.arity if count is None else count, low, high, row.what,
                          getattr(codes, row.range_code))

    def _node_id(self, attribute: ir.Attribute) -> NodeId | None:
        values = attribute.values()
        if len(values) not in ATTRIBUTES[attribute.key].arity or not isinstance(values[0], str):
            self.report(codes.ATTRIBUTE_OUT_OF_RANGE, attribute.span,
                        f"[{attribute.name}] takes a node name string and an optional index")
            return None
        index = values[1] if len(values) == 2 else 0
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            self.report(codes.ATTRIBUTE_OUT_OF_RANGE, attribute.args[-1].span,
                        f"[{attribute.name}] index must be a non-negative integer constant")
            return None
        return NodeId(values[0], index)

    # ------------------------------------------------------------ functions

    def check(self) -> list[NodeInfo]:
        nodes = []
        for function in self.module.functions:
            if function.shader_kind == "node":
                nodes.append(self._node(function))
            else:
                self._not_a_node(function)
        for node, key in zip(nodes, overload_keys([n.function.name for n in nodes])):
            node.key = key
        return nodes

    def _not_a_node(self, function: ir.Function) -> None:
        shader = ir.find_attribute(function.attributes, "shader")
        if shader is not None and function.shader_kind not in SHADER_STAGES:
            if not _diagnosed(shader):
                self.report(codes.ATTRIBUTE_OUT_OF_RANGE, shader.span,
                            "[Shader] takes one of " + ", ".join(f'"{s}"' for s in SHADER_STAGES)
                            + _close_stage(shader))
            return   # its stage is unknown: the rules of the attributes it carries would only cascade
        if shader is None and any(misspelling_of(a.name) == "shader" for a in function.attributes):
            return   # [Shadr("node")]: WG0343 says it; the node attributes are not "without a shader attribute"
        for attribute in function.attributes:
            if attribute.key in NODE_ONLY_FUNCTION_ATTRIBUTES and shader is None:
                self.report(codes.NODE_ATTRIBUTE_WITHOUT_SHADER, attribute.span,
                            f"attribute '{attribute.name}' ignored without accompanying shader attribute",
                            notes=[f"add [Shader(\"node\")] to make '{function.name}' a node shader"])
            elif attribute.key in NODE_ONLY_FUNCTION_ATTRIBUTES:
                self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] is only allowed on node shaders ([Shader(\"node\")])")
            elif attribute.key in OUTPUT_ATTRIBUTES:
                self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] applies to node output parameters, not to functions")
        for param in function.params:
            for attribute in param.attributes:
                if attribute.key in OUTPUT_ATTRIBUTES and not isinstance(param.type, t.NodeObjectType):
                    self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                                f"[{attribute.name}] applies to node output parameters only")
            if isinstance(param.type, t.NodeObjectType) and param.type.kind.is_output:
                # a helper's output parameter: its budget attributes are checked as on a node (DXC does)
                attributes = {a.key: a for a in param.attributes}
                shared = attributes.get("maxrecordssharedwith")
                if not self._budget_conflict(attributes) and shared is not None and len(shared.args) == 1 \
                        and shared.args[0].name == param.name:
                    self._self_shared(param.name, shared)

    def _node(self, function: ir.Function) -> NodeInfo:
        attributes = {a.key: a for a in function.attributes}
        shader = attributes["shader"]
        if shader.values()[0] != "node":
            self.report(codes.ATTRIBUTE_OUT_OF_RANGE, shader.args[0].span,
                        f"shader kind must be written \"node\" (lower case), not \"{shader.values()[0]}\"")
        known_launch = len(self.diagnostics)
        self.launch_unknown = False
        launch = self._launch(attributes)
        known_launch = len(self.diagnostics) == known_launch and not self.launch_unknown
        name = function.name
        node = NodeInfo(function, NodeId(name), launch, function.span)
        if function.return_type is not t.VOID:
            self.report(codes.INVALID_NODE_SIGNATURE, function.span,
                        f"node shader '{name}' must return void, not '{function.return_type}'")
        mark = len(self.diagnostics)
        for attribute in function.attributes:
            if attribute.key in OUTPUT_ATTRIBUTES - FUNCTION_ATTRIBUTES:
                self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] applies to node output parameters, not to functions")
        self._function_attributes(node, attributes)
        self._parameters(node)
        self._dispatch_grid_rules(node, attributes)
        self._loop_attributes(node, attributes)
        reached = reachable_functions(function)
        node.groupshared_bytes = _groupshared_bytes(reached) if self.groupshared else 0
        node.calls_finished_cross_group_sharing = _find_method(reached, "FinishedCrossGroupSharing")
        self._track_rw_sharing(node)
        if not known_launch:  # the rules of the launch mode assumed in its place would only cascade
            node.launch_unknown = True
            self.diagnostics[mark:] = [d for d in self.diagnostics[mark:] if d.code not in LAUNCH_RULES]
        return node

    def _launch(self, attributes: dict[str, ir.Attribute]) -> str:
        attribute = attributes.get("nodelaunch")
        if attribute is None:
            return "broadcasting"
        if _diagnosed(attribute):   # [NodeLaunch(broadcasting)]: the argument's own error is the one
            self.launch_unknown = True
            return "broadcasting"
        values = attribute.values()
        value = values[0] if len(values) == 1 else None
        if value == "mesh" and self.options.profile == "lib_6_8":
            self.report(codes.MESH_NODE_UNDER_LIB_6_8, attribute.span,
                        "mesh nodes need shader model 6.9 (Work Graphs tier 1.1): compile with -T lib_6_9")
        if value in LAUNCHES:
            return value
        hint = ""
        if isinstance(value, str) and value.lower() in LAUNCHES:
            hint = f" (launch modes are case-sensitive: write \"{value.lower()}\")"
        if isinstance(value, str):
            message = (f"invalid node launch mode \"{value}\": expected \"broadcasting\", \"coalescing\", \"thread\" "
                       f"or \"mesh\"{hint}")
        else:
            message = "[NodeLaunch] takes one string: \"broadcasting\", \"coalescing\", \"thread\" or \"mesh\""
        self.report(codes.INVALID_LAUNCH, attribute.span, message)
        return "broadcasting"

    def _function_attributes(self, node: NodeInfo, attributes: dict[str, ir.Attribute]) -> None:
        launch = node.launch
        threads = attributes.get("numthreads")
        written = threads.values() if threads is not None else ()
        ignored: list[Label] = []
        if len(written) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in written) \
                and not 1 <= written[0] * written[1] * written[2] <= 1024:  # type: ignore[operator]
            # DXC: a warning, and the attribute is dropped (so a node that needs one lacks it)
            self.report(codes.NUM_THREADS_IGNORED, threads.span,  # type: ignore[union-attr]
                        f"[NumThreads({written[0]}, {written[1]}, {written[2]})] asks for "
                        f"{written[0] * written[1] * written[2]} threads, outside 1..1024: the attribute is "  # type: ignore[operator]
                        "ignored")
            ignored = [Label(threads.span, "the [NumThreads] written here is ignored")]  # type: ignore[union-attr]
            threads = None
        if threads is None:
            if launch != "thread":
                self.report(codes.MISSING_NODE_ATTRIBUTE, node.span,
                            f"{launch} node '{node.function.name}' needs [NumThreads(x, y, z)]",
                            labels=ignored + _misspelt(node.function.attributes, "numthreads"))
        else:
            values = self._values(threads)
            if values is not None:
                if launch == "thread" and values != (1, 1, 1):
                    self.report(codes.ATTRIBUTE_NOT_FOR_LAUNCH, threads.span,
                                "thread launch nodes run one thread: [NumThreads] must be (1, 1, 1) or absent")
                elif launch == "mesh" and values[0] * values[1] * values[2] > MAX_MESH_THREADS:
                    self.report(codes.INVALID_MESH_NODE_ATTRIBUTE, threads.span,
                                f"[NumThreads({values[0]}, {values[1]}, {values[2]})] asks for "
                                f"{values[0] * values[1] * values[2]} threads; a mesh node runs at most "
                                f"{MAX_MESH_THREADS} threads per group")
                elif values[2] > 64 or values[0] * values[1] * values[2] > 1024:
                    self.report(codes.ATTRIBUTE_OUT_OF_RANGE, threads.span,
                                f"[NumThreads({values[0]}, {values[1]}, {values[2]})] exceeds the limits: "
                                "z <= 64 and x*y*z <= 1024")
                else:
                    node.num_threads = values  # type: ignore[assignment]
        if "nodeisprogramentry" in attributes:
            node.program_entry_explicit = True
        self._mesh_attributes(node, attributes)
        self._dispatch_mesh(node)
        if "nodeid" in attributes:
            node_id = self._node_id(attributes["nodeid"])
            if node_id is not None:
                node.id = node_id
        if "nodelocalrootargumentstableindex" in attributes:
            attribute = attributes["nodelocalrootargumentstableindex"]
            values = self._values(attribute)
            node.local_root_arguments_table_index = values[0] if values else None
            node.local_root_arguments_span = attribute.span
        if "nodeshareinputof" in attributes:
            node.share_input_of = self._node_id(attributes["nodeshareinputof"])
        if "nodemaxrecursiondepth" in attributes:
            values = self._values(attributes["nodemaxrecursiondepth"])
            node.max_recursion_depth = values[0] if values else None
        # a self edge is intended when a loop attribute or a (rejected) recursion depth is written
        node.declares_repetition = "nodemaxloopiterations" in attributes or \
            "nodemaxrecordsperloopiteration" in attributes or \
            "nodemaxrecursiondepth" in attributes and node.max_recursion_depth is None

    def _mesh_attributes(self, node: NodeInfo, attributes: dict[str, ir.Attribute]) -> None:
        """A mesh node's topology and mesh outputs (`mesh.py`); the mesh-only attributes elsewhere."""
        per_entry = attributes.get("nodemaxinputrecordspergraphentryrecord")
        if node.launch == "mesh":
            node.mesh = check_mesh(node.function, attributes, self.report)
            if per_entry is not None:
                node.max_input_records_per_graph_entry_record = self._per_entry_record(per_entry)
            return
        for key in ("outputtopology", "nodemaxinputrecordspergraphentryrecord"):
            attribute = attributes.get(key)
            if attribute is not None and node.launch not in ATTRIBUTES[key].launches:
                self.report(codes.INVALID_MESH_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] may only be used with {_and(ATTRIBUTES[key].launches)} nodes")
        check_misplaced_mesh_parameters(node.function, f"{node.launch} nodes", self.report)

    def _dispatch_mesh(self, node: NodeInfo) -> None:
        check_misplaced_dispatch_mesh(node.function, f"{node.launch} nodes", self.report)

    def _per_entry_record(self, attribute: ir.Attribute) -> tuple[int, bool] | None:
        """[NodeMaxInputRecordsPerGraphEntryRecord(count, sharedAcrossNodeArray = false)]."""
        values = attribute.values()
        shared = values[1] if len(values) == 2 else False
        if len(values) == 2 and not isinstance(shared, bool):
            self.report(codes.ATTRIBUTE_OUT_OF_RANGE, attribute.args[1].span,
                        f"[{attribute.name}] sharedAcrossNodeArray must be true or false")
            return None
        first = ir.Attribute(attribute.name, attribute.args[:1], attribute.span) if len(values) == 2 else attribute
        count = self._values(first, count=(1,))
        return (count[0], bool(shared)) if count is not None else None

    def _dispatch_grid_rules(self, node: NodeInfo, attributes: dict[str, ir.Attribute]) -> None:
        fixed, maximum = attributes.get("nodedispatchgrid"), attributes.get("nodemaxdispatchgrid")
        launches = ATTRIBUTES["nodedispatchgrid"].launches   # NodeMaxDispatchGrid's too
        if node.launch not in launches:
            for attribute in (fixed, maximum):
                if attribute is not None:
                    self.report(codes.ATTRIBUTE_NOT_FOR_LAUNCH, attribute.span,
                                f"[{attribute.name}] may only be used with {_and(launches)} nodes")
            return
        if fixed is None and maximum is None:
            self.report(codes.MISSING_NODE_ATTRIBUTE, node.span,
                        f"{node.launch} node '{node.function.name}' needs [NodeDispatchGrid(x, y, z)] or "
                        "[NodeMaxDispatchGrid(x, y, z)]",
                        labels=_misspelt(node.function.attributes, "nodedispatchgrid", "nodemaxdispatchgrid"))
            return
        if fixed is not None and maximum is not None:
            self.report(codes.CONFLICTING_ATTRIBUTES, maximum.span,
                        "[NodeDispatchGrid] and [NodeMaxDispatchGrid] cannot both be given",
                        labels=[Label(fixed.span, "the fixed grid is given here")])
        else:
            attribute = fixed or maximum
            assert attribute is not None
            values = self._values(attribute)
            if values is not None and node.launch == "mesh" and values[0] * values[1] * values[2] > MAX_MESH_GRID_PRODUCT:
                self.report(codes.INVALID_MESH_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] has {values[0] * values[1] * values[2]} thread groups; a mesh node "
                            f"launches at most {MAX_MESH_GRID_PRODUCT} (2^22)")
                values = None
            elif values is not None and values[0] * values[1] * values[2] > MAX_GRID_PRODUCT:
                self.report(codes.ATTRIBUTE_OUT_OF_RANGE, attribute.span,
                            f"[{attribute.name}] has {values[0] * values[1] * values[2]} thread groups; at most "
                            f"{MAX_GRID_PRODUCT} (2^24-1) are allowed")
                values = None
            if fixed is not None:
                node.dispatch_grid = values  # type: ignore[assignment]
            else:
                node.max_dispatch_grid = values  # type: ignore[assignment]
        field_ = node.input.dispatch_grid_field if node.input is not None else None
        if maximum is not None and field_ is None and not (node.input is not None and node.input.dispatch_grid_field_invalid):
            # where DXC reports it: the function (a conflict with [NodeDispatchGrid] does not hide it)
            record = node.input.record if node.input is not None else None
            where = f"record '{record}'" if record is not None else "the node (it has no input record)"
            self.report(codes.INVALID_DISPATCH_GRID, node.span,
                        f"{node.launch} node '{node.function.name}' has [NodeMaxDispatchGrid], so its input record "
                        f"needs an SV_DispatchGrid field; {where} has none",
                        labels=[Label(maximum.span, "[NodeMaxDispatchGrid] is given here")])

    def _loop_attributes(self, node: NodeInfo, attributes: dict[str, ir.Attribute]) -> None:
        iterations = attributes.get("nodemaxloopiterations")
        per_iteration = attributes.get("nodemaxrecordsperloopiteration")
        if iterations is None and per_iteration is None:
            return
        attribute = iterations or per_iteration
        if not ATTRIBUTES[attribute.key].available(self.options):  # type: ignore[union-attr]
            how = ("which lib_6_8 (Work Graphs 1.0) does not have; compile with -T lib_6_9 -fwork-graph-loops"
                   if self.options.profile == "lib_6_8" else
                   "a proposal that released SM 6.9 does not have; opt in with -fwork-graph-loops")
            self.report(codes.INVALID_LOOP_ENTRY, attribute.span,  # type: ignore[union-attr]
                        f"[{attribute.name}] needs Work Graph Loops, {how}")  # type: ignore[union-attr]
            return
        if iterations is None or per_iteration is None:
            present = iterations or per_iteration
            missing = "NodeMaxRecordsPerLoopIteration" if per_iteration is None else "NodeMaxLoopIterations"
            self.report(codes.INVALID_LOOP_ENTRY, present.span,  # type: ignore[union-attr]
                        f"a loop entry needs both [NodeMaxLoopIterations] and [NodeMaxRecordsPerLoopIteration]; "
                        f"[{missing}] is missing")
            return
        counts = self._values(iterations)
        records = self._values(per_iteration)
        if counts is None or records is None:
            return
        if node.max_recursion_depth:
            recursion = next(a for a in node.function.attributes if a.key == "nodemaxrecursiondepth")
            self.report(codes.INVALID_LOOP_ENTRY, iterations.span,
                        "a loop entry node cannot be recursive; it may output records back to itself as loop "
                        "iterations instead",
                        labels=[Label(recursion.span, "declared recursive here")])
            return
        node.max_loop_iterations, node.max_records_per_loop_iteration = counts[0], records[0]

    # ------------------------------------------------------------ parameters

    def _parameters(self, node: NodeInfo) -> None:
        for param in node.function.params:
            type_ = param.type
            element = type_.element if isinstance(type_, t.ArrayType) else type_
            if isinstance(element, t.NodeObjectType) and isinstance(type_, t.ArrayType):
                array_kind = "NodeOutputArray" if not element.kind.is_empty else "EmptyNodeOutputArray"
                self.report(codes.INVALID_NODE_PARAMETER, param.span,
                            f"node object parameter '{param.name}' may not be an array",
                            notes=[f"did you mean '{array_kind}'?"] if element.kind.is_output else [])
            elif isinstance(type_, t.NodeObjectType) and type_.kind.is_input:
                self._input(node, param, type_)
            elif isinstance(type_, t.NodeObjectType) and type_.kind.is_output:
                if node.launch == "mesh":
                    self.report(codes.MESH_NODE_OUTPUT, param.span,
                                f"mesh node '{node.function.name}' cannot have node outputs: mesh nodes are the "
                                "leaves of a work graph")
                else:
                    self._output(node, param, type_)
            elif mesh_qualifier(param) is not None:
                pass   # mesh outputs: `mesh.py` (mesh nodes), `_mesh_attributes` (other nodes)
            elif isinstance(type_, t.NodeObjectType):
                self.report(codes.INVALID_NODE_PARAMETER, param.span,
                            f"'{type_}' cannot be a node shader parameter; obtain it from an output's "
                            "Get*NodeOutputRecords()")
            else:
                self._system_values(node, param)
        for param in node.function.params:
            element = param.type.element if isinstance(param.type, t.ArrayType) else param.type
            if not isinstance(element, t.NodeObjectType):
                for attribute in param.attributes:
                    if attribute.key in OUTPUT_ATTRIBUTES:
                        self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                                    f"[{attribute.name}] applies to node outputs only")
        if node.input is None and node.launch == "coalescing":
            node.input = NodeInput(None, NK.EMPTY_NODE_INPUT, None, None, 1, False, False, None,  # type: ignore[arg-type]
                                   implied=True)
        self._forward_shared_budgets(node)
        self._output_budgets(node)

    def _forward_shared_budgets(self, node: NodeInfo) -> None:
        """[MaxRecordsSharedWith] naming a later output (accepted with WG0470): it must own a budget."""
        by_name = {o.parameter.name: o for o in node.outputs}
        for output, name, span in self.forward_shares:
            owner = by_name.get(name)
            if owner is None:
                continue
            if owner.max_records is None:
                self.report(codes.INVALID_SHARED_BUDGET, span,
                            f"[MaxRecordsSharedWith({name})] must name an output with its own [MaxRecords]; "
                            f"'{name}' shares a budget itself",
                            labels=[Label(owner.parameter.span, f"'{name}' is declared here")])
                continue
            output.shared_with, output.shared_with_index = name, owner.index
        self.forward_shares.clear()

    def _input(self, node: NodeInfo, param: ir.Variable, type_: t.NodeObjectType) -> None:
        if node.input is not None:
            self.report(codes.INVALID_NODE_INPUT, param.span, "a node shader has at most one input",
                        labels=[Label(node.input.parameter.span, "the input is declared here")])
            return
        allowed = INPUT_KINDS[node.launch]
        if type_.kind not in allowed:
            names = ", ".join(k.value for k in allowed)
            self.report(codes.INVALID_NODE_INPUT, param.span,
                        f"'{type_.kind.value}' is not a valid input for a {node.launch} node; use {names}")
        attributes = {a.key: a for a in param.attributes}
        max_records = None
        for key, attribute in attributes.items():
            row = ATTRIBUTES.get(key)
            if row is not None and "input" in row.places:
                if node.launch not in row.launches:
                    self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                                f"[{row.name}] on a node input is only allowed for {_and(row.launches)} nodes")
                else:
                    values = self._values(attribute, "input")
                    max_records = values[0] if values else None
            elif key in OUTPUT_ATTRIBUTES:
                self.report(codes.MISPLACED_NODE_ATTRIBUTE, attribute.span,
                            f"[{attribute.name}] applies to node outputs, not to the input")
        coherent = "globallycoherent" in param.modifiers
        if coherent and type_.kind is not NK.RW_DISPATCH_NODE_INPUT_RECORD:
            self.report(codes.MISPLACED_NODE_ATTRIBUTE, param.span,
                        "'globallycoherent' can only be applied to UAVs and RWDispatchNodeInputRecord")
            coherent = False
        record, layout, tracked = self._record(type_, param)
        errors = len(self.diagnostics)
        grid = self._dispatch_grid_field(record, param) if record is not None else None
        node.input = NodeInput(param, type_.kind, record, layout, max_records, coherent, tracked, grid,
                               dispatch_grid_field_invalid=len(self.diagnostics) > errors or record in self.poisoned)

    def _record(self, type_: t.NodeObjectType, param: ir.Variable) -> tuple[t.Type | None, TypeLayout | None, bool]:
        record = type_.record
        if record is None or record in self.poisoned:
            return record, None, False
        if not isinstance(record, t.StructType):
            return record, None, False  # reported where the type is written (typeref, WG0412)
        held = object_fields(record)
        if held:
            self.report(codes.INVALID_RECORD, param.span,
                        f"record '{record}' of '{param.name}' holds '{held[0].name}' of type '{held[0].type}': "
                        "node records cannot hold resources or node objects",
                        labels=[Label(held[0].span, "the field is declared here")])
            return record, None, False
        layout = layout_of(record, LayoutRule.SCALAR, default_row_major=self.module.default_row_major)
        tracked = "nodetrackrwinputsharing" in record.attributes
        return record, layout, tracked

    def _dispatch_grid_field(self, record: t.Type, param: ir.Variable, report: bool = True) -> DispatchGridField | None:
        found: list[tuple[int, t.Field]] = []
        if isinstance(record, t.StructType):
            layout = layout_of(record, LayoutRule.SCALAR, default_row_major=self.module.default_row_major)
            _collect_semantic(record, layout, 0, "sv_dispatchgrid", found)
        if not found:
            return None
        for _offset, extra in found[1:] if report else ():
            self.report(codes.INVALID_DISPATCH_GRID, extra.span, "a record may have only one SV_DispatchGrid field",
                        labels=[Label(found[0][1].span, "the first SV_DispatchGrid is here")])
        offset, field_ = found[0]
        shape = _grid_shape(field_.type)
        if shape is None:
            if not report:
                return None
            self.report(codes.INVALID_DISPATCH_GRID, field_.span,
                        f"SV_DispatchGrid must be uint, uint2, uint3 (or 16-bit uint / an array of up to 3), "
                        f"not '{field_.type}'")
            return None
        return DispatchGridField(offset, shape[0], shape[1])

    def _output(self, node: NodeInfo, param: ir.Variable, type_: t.NodeObjectType) -> None:
        attributes = {a.key: a for a in param.attributes}
        index = len(node.outputs)
        record, layout, tracked = self._record(type_, param)
        target = NodeId(param.name)
        if "nodeid" in attributes:
            target = self._node_id(attributes["nodeid"]) or target
        output = NodeOutput(param, index, type_.kind, target, record, layout, tracked, None)
        if record is not None:
            output.dispatch_grid_field = self._dispatch_grid_field(record, param, report=False)
        node.outputs.append(output)
        max_records = attributes.get("maxrecords")
        shared = attributes.get("maxrecordssharedwith")
        if self._budget_conflict(attributes):
            pass
        elif max_records is None and shared is None:
            output.max_records = 1
            declared = param.declaration or param.span
            at = Span(declared.file, declared.start, declared.start)
            self.diagnostics.append(codes.MISSING_MAX_RECORDS(
                param.span, f"output '{param.name}' has no [MaxRecords(n)] or [MaxRecordsSharedWith(output)]; "
                "its MaxRecords is taken to be 1, as DXC's SPIR-V does (NodeMaxPayloadsAMDX 1)",
                notes=("the spec requires one on every output, empty outputs too; DXC's DXIL leaves "
                       "MaxRecords 0",),
                fixes=(FixIt(at, "[MaxRecords(1)] ", "add [MaxRecords(1)]"),)))
        elif max_records is not None:
            values = self._values(max_records)
            output.max_records = values[0] if values else None
        else:
            self._shared_budget(node, output, shared)  # type: ignore[arg-type]
        self._array_attributes(output, attributes)
        output.allow_sparse_nodes = "allowsparsenodes" in attributes or output.unbounded_sparse_nodes

    def _budget_conflict(self, attributes: dict[str, ir.Attribute]) -> bool:
        """Report (and say) whether an output has both [MaxRecords] and [MaxRecordsSharedWith]."""
        max_records, shared = attributes.get("maxrecords"), attributes.get("maxrecordssharedwith")
        if max_records is None or shared is None:
            return False
        self.report(codes.CONFLICTING_ATTRIBUTES, shared.span,
                    "[MaxRecords] and [MaxRecordsSharedWith] cannot both be given on one output",
                    labels=[Label(max_records.span, "[MaxRecords] is given here")])
        return True

    def _self_shared(self, name: str, attribute: ir.Attribute) -> None:
        self.report(codes.INVALID_SHARED_BUDGET, attribute.args[0].span,
                    f"output '{name}' cannot share its MaxRecords budget with itself")

    def _shared_budget(self, node: NodeInfo, output: NodeOutput, attribute: ir.Attribute) -> None:
        args = attribute.args
        name = args[0].name if len(args) == 1 else None
        if name is None:
            self.report(codes.INVALID_SHARED_BUDGET, attribute.span,
                        "[MaxRecordsSharedWith] takes the name of another output parameter")
            return
        if name == output.parameter.name:
            self._self_shared(name, attribute)
            return
        earlier = next((o for o in node.outputs[:-1] if o.parameter.name == name), None)
        if earlier is None:
            later = next((p for p in node.function.params[node.function.params.index(output.parameter) + 1:]
                          if p.name == name and isinstance(p.type, t.NodeObjectType) and p.type.kind.is_output), None)
            if later is None:
                self.report(codes.INVALID_SHARED_BUDGET, args[0].span,
                            f"[MaxRecordsSharedWith({name})] must name an earlier output with [MaxRecords]: "
                            "there is no output parameter of that name")
                return
            self.report(codes.SHARED_BUDGET_DECLARED_LATER, args[0].span,
                        f"[MaxRecordsSharedWith({name})] names an output declared after this one; the spec asks "
                        "for a previously declared output (DXC accepts it)",
                        labels=[Label(later.span, f"'{name}' is declared here")])
            self.forward_shares.append((output, name, args[0].span))
            return
        if earlier.max_records is None:
            self.report(codes.INVALID_SHARED_BUDGET, args[0].span,
                        f"[MaxRecordsSharedWith({name})] must name an output with its own [MaxRecords]; "
                        f"'{name}' shares a budget itself",
                        labels=[Label(earlier.parameter.span, f"'{name}' is declared here")])
            return
        output.shared_with, output.shared_with_index = name, earlier.index

    def _array_attributes(self, output: NodeOutput, attributes: dict[str, ir.Attribute]) -> None:
        size = attributes.get("nodearraysize")
        unbounded = attributes.get("unboundedsparsenodes")
        per_node = attributes.get("maxrecordspernode")
        if not output.is_array:
            for attribute in (size, unbounded):
                if attribute is not None:
                    self.report(codes.INVALID_OUTPUT_ARRAY, attribute.span,
                                f"[{attribute.name}] may only be used on NodeOutputArray / EmptyNodeOutputArray")
            if per_node is not None:
                self.report(codes.MAX_RECORDS_PER_NODE_NOT_ARRAY, per_node.span,
                            "[MaxRecordsPerNode] may only be used with node output arrays "
                            "(NodeOutputArray / EmptyNodeOutputArray)")
            return
        if size is not None:
            if size.values() == (-1,):  # the spec's spelling of 0xffffffff: unbounded
                size = ir.Attribute(size.name, (ir.AttributeArg(UNBOUNDED, size.args[0].span),), size.span)
            values = self._values(size)
            if values is not None:
                output.array_size = values[0]
                if values[0] == UNBOUNDED:
                    output.unbounded_sparse_nodes = True
        if unbounded is not None:
            if size is not None and output.array_size not in (None, UNBOUNDED):
                self.report(codes.CONFLICTING_ATTRIBUTES, size.span,  # where DXC reports it
                            f"[NodeArraySize({output.array_size})] conflicts with [UnboundedSparseNodes], which "
                            "implies [NodeArraySize(-1)]: use one",
                            labels=[Label(unbounded.span, "[UnboundedSparseNodes] is given here")])
            output.unbounded_sparse_nodes = True
            output.array_size = UNBOUNDED
        if size is None and unbounded is None:
            self.report(codes.OUTPUT_ARRAY_WITHOUT_SIZE, output.parameter.span,
                        f"output array '{output.parameter.name}' has no [NodeArraySize(n)] or [UnboundedSparseNodes]: "
                        "taken as [UnboundedSparseNodes]",
                        notes=["the spec (Node output attributes): [NodeArraySize(count)] is required \"for "
                               "NodeOutputArray or EmptyNodeOutputArray, unless [UnboundedSparseNodes] is "
                               "specified\"; DXC accepts the array without it, and SPV_AMDX_shader_enqueue reads a "
                               "missing size as unbounded (\"If not specified, the node array is considered "
                               "unbounded.\"), which needs PayloadNodeSparseArrayAMDX"])
            output.unbounded_sparse_nodes = True
            output.array_size = UNBOUNDED
        if per_node is not None:
            values = self._values(per_node)
            if values is not None:
                output.max_records_per_node, output.max_records_per_node_written = values[0], True

    def _output_budgets(self, node: NodeInfo) -> None:
        """MaxRecordsPerNode against its budget, and its implied value when missing."""
        by_name = {o.parameter.name: o for o in node.outputs}
        for output in node.outputs:
            if not output.is_array:
                continue
            owner = by_name.get(output.shared_with) if output.shared_with else output
            budget = owner.max_records if owner is not None else None
            attribute = next((a for a in output.parameter.attributes if a.key == "maxrecordspernode"), None)
            if output.max_records_per_node_written:
                if budget is not None and output.max_records_per_node > budget:  # type: ignore[operator]
                    whose = "its MaxRecords" if owner is output else f"the MaxRecords of '{owner.parameter.name}', whose budget it shares"  # type: ignore[union-attr]
                    self.report(codes.MAX_RECORDS_PER_NODE_TOO_LARGE, attribute.span,  # type: ignore[union-attr]
                                f"MaxRecordsPerNode ({output.max_records_per_node}) exceeds {whose} ({budget})")
                continue
            output.max_records_per_node = budget
            if self.options.requires_max_records_per_node:
                declared = output.parameter.declaration or output.parameter.span
                at = Span(declared.file, declared.start, declared.start)
                fixes = () if budget is None else (
                    FixIt(at, f"[MaxRecordsPerNode({budget})] ", f"add [MaxRecordsPerNode({budget})]"),)
                self.diagnostics.append(codes.MISSING_MAX_RECORDS_PER_NODE(
                    output.parameter.span,
                    f"output array '{output.parameter.name}' has no [MaxRecordsPerNode]; it is required by "
                    f"-fmax-records-per-node (the value is taken to be MaxRecords, {budget})",
                    notes=["declare the most records any one node of the array can receive, so the "
                           "runtime can size the array's backing memory"], fixes=fixes))

    def _system_values(self, node: NodeInfo, param: ir.Variable) -> None:
        if param.semantic is None and isinstance(param.type, t.StructType):
            for field_ in param.type.all_fields():
                if field_.semantic is None:
                    self.report(codes.INVALID_NODE_PARAMETER, field_.span,
                                f"field '{field_.name}' of node parameter '{param.name}' needs a system-value semantic")
                else:
                    self._system_value(node, field_.semantic, field_.type, field_.span)
            return
        if param.semantic is None:
            self.report(codes.INVALID_NODE_PARAMETER, param.span,
                        f"node shader parameter '{param.name}' must be a node input, a node output or a system value")
            return
        self._system_value(node, param.semantic, param.type, param.span)

    def _system_value(self, node: NodeInfo, semantic: str, type_: t.Type, span: Span) -> None:
        key = semantic.lower()
        known = SYSTEM_VALUES.get(key)
        if known is None:
            self.report(codes.INVALID_SYSTEM_VALUE, span,
                        f"'{semantic}' is not a node shader system value (node shaders have SV_GroupThreadID, "
                        "SV_GroupIndex, SV_GroupID and SV_DispatchThreadID)")
            return
        launches, components = known
        if node.launch not in launches:
            self.report(codes.INVALID_SYSTEM_VALUE, span,
                        f"'{semantic}' is not available in {node.launch} launch nodes "
                        f"(only in {_and(launches)} nodes)")
            return
        scalar = t.element_scalar(type_)
        count = t.component_count(type_)
        if scalar is None or not scalar.is_integer or scalar.bits != 32 or count is None or count > components \
                or isinstance(type_, t.MatrixType):
            allowed = "uint" if components == 1 else "uint, uint2 or uint3"
            self.report(codes.INVALID_SYSTEM_VALUE, span, f"'{semantic}' must be {allowed}, not '{type_}'")

    def _track_rw_sharing(self, node: NodeInfo) -> None:
        node_input = node.input
        call = node.calls_finished_cross_group_sharing
        if node_input is None or node_input.implied:
            return
        if node_input.track_rw_input_sharing and node_input.kind is not NK.RW_DISPATCH_NODE_INPUT_RECORD:
            self.report(codes.INVALID_TRACK_RW_SHARING, node_input.parameter.span,
                        f"record '{node_input.record}' has [NodeTrackRWInputSharing], which is only allowed on the "
                        f"records of RWDispatchNodeInputRecord inputs, not {node_input.kind.value}")
        if call is not None and not node_input.track_rw_input_sharing and \
                node_input.kind is NK.RW_DISPATCH_NODE_INPUT_RECORD:
            self.report(codes.INVALID_TRACK_RW_SHARING, call,
                        f"FinishedCrossGroupSharing() needs the input record '{node_input.record}' to be declared "
                        "with [NodeTrackRWInputSharing]",
                        labels=[Label(node_input.parameter.span, "the input is declared here")])


# ---------------------------------------------------------------- helpers


def object_fields(struct: t.StructType) -> list[t.Field]:
    """The resource and node-object fields of `struct`, its bases and the structs it holds."""
    found: list[t.Field] = []
    seen: set[t.StructType] = set()
    stack = [struct]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        found.extend(current.object_fields)
        if current.base is not None:
            stack.append(current.base)
        for field_ in current.fields:
            inner = t.innermost_element(field_.type)
            if isinstance(inner, t.StructType):
                stack.append(inner)
    return found


def _collect_semantic(struct: t.StructType, layout: TypeLayout, base: int, semantic: str,
                      found: list[tuple[int, t.Field]]) -> None:
    for field_, member in zip(struct.all_fields(), layout.members):
        if field_.semantic is not None and field_.semantic.lower() == semantic:
            found.append((base + member.offset, field_))
        if isinstance(field_.type, t.StructType):
            _collect_semantic(field_.type, member.layout, base + member.offset, semantic, found)


def _grid_shape(type_: t.Type) -> tuple[int, int] | None:
    """(components, bits) of an SV_DispatchGrid field type, or None if the type is not allowed."""
    count = 1
    if isinstance(type_, t.ArrayType):
        if type_.length is None or not 1 <= type_.length <= 3:
            return None
        count, type_ = type_.length, type_.element
    scalar = t.element_scalar(type_)
    if scalar is None or scalar.kind is not t.ScalarKind.UINT or scalar.bits not in (16, 32):
        return None
    if isinstance(type_, t.VectorType):
        if count != 1 or type_.count > 3:
            return None
        count = type_.count
    elif not isinstance(type_, t.ScalarType):
        return None
    return count, scalar.bits


def _find_method(functions: list[ir.Function], name: str) -> Span | None:
    """The first call of the method `name` in the `functions`' bodies."""
    return next((e.span for f in functions for e in nodes_of(f, ir.MethodCall) if e.method == name), None)


def _groupshared_bytes(functions: list[ir.Function]) -> int:
    """Bytes of the groupshared variables the `functions` (a node and what it calls) use."""
    used: dict[int, ir.Variable] = {}
    for function in functions:
        for expr in nodes_of(function, ir.VarRef):
            if expr.variable.storage is ir.Storage.GROUPSHARED:
                used[id(expr.variable)] = expr.variable
    return sum(layout_of(v.type, LayoutRule.SCALAR).size for v in used.values())


def _and(words: tuple[str, ...] | list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def overload_keys(names: list[str]) -> list[str]:
    """The key of each node shader, given their function names in source order: the name, and for
    the second and later node shaders of one name (overloads) `name.N`, N = 2, 3, ... its position
    among them. HLSL names hold no '.', so a key never equals another function's name."""
    seen: dict[str, int] = {}
    keys = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        keys.append(name if seen[name] == 1 else f"{name}.{seen[name]}")
    return keys


def check_nodes(module: ir.Module, options: SemaOptions,
                poisoned: frozenset[t.StructType] | set[t.StructType] = frozenset()) -> tuple[list[NodeInfo], list[Diagnostic]]:
    """Every node's description and the rules of one node; records of `poisoned` structs are not checked."""
    checker = NodeChecker(module, options, frozenset(poisoned))
    nodes = checker.check()
    return nodes, checker.diagnostics


def spec_constant_arguments(node: NodeInfo) -> list[tuple[str | None, ir.Attribute, int, ir.AttributeArg]]:
    """(parameter name or None for the function, attribute, argument position, argument) of every attribute
    argument of the node that is a specialization constant (`ir.AttributeArg.spec`), the function's
    attributes first, then its parameters', in source order."""
    owners: list[tuple[str | None, tuple[ir.Attribute, ...]]] = [(None, node.function.attributes)]
    owners += [(p.name, p.attributes) for p in node.function.params]
    return [(parameter, attribute, i, arg) for parameter, attributes in owners for attribute in attributes
            for i, arg in enumerate(attribute.args) if arg.spec is not None]

