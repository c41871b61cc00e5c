"""Semantic analysis, the whole graph: every node shader of the file, their edges, loops,
recursion, depth, budgets and backing memory.

Input: the `NodeInfo`s of `nodes.py`, the profile and whether the Work Graph Loops proposal
applies (`-fwork-graph-loops` under lib_6_9).
Output: `GraphInfo` (data only) and the diagnostics of workgraph-rules.md §1.13, the
node output limits, and the Work Graph Loops rules (WG05xx, WG0422 for budgets, and warning
WG0472 for FinishedCrossGroupSharing() in a node nothing in the file targets). Rules of the state
object that DXC does not check and real code breaks are warnings or DefaultErrors in named groups,
with the spec's sentence in a note: a node array mixing fixed and record-given grids (warning
WG0515), members of one array differing in launch or input (DefaultError WG0507), a self target
without [NodeMaxRecursionDepth] (DefaultError WG0511; warning WG0516 where the output names the
node only by its [NodeID], which a Vulkan pipeline does not use), an entry node sharing another
node's input (warning WG0517). A node sharing its own NodeID is error WG0506 unless an index is a
specialization constant (the pipeline decides then which node is shared).

Model and decisions:
- Nodes are keyed by their `NodeInfo.key` (unique); node arrays are the nodes sharing a NodeID
  name. An output targets `NodeID` (single) or `base .. base+size-1` (arrays; unbounded arrays:
  every node of that name from `base` on). Targets missing from the file are a warning
  (`missing-node`: they may live in another library) unless the output allows sparse nodes.
- Duplicate NodeIDs (overloaded node shaders, or one `[NodeID]` written twice) are warning WG0501
  (`duplicate-node-id`): a library may hold both, the application puts at most one of them in a
  graph. The graph here is the union of those choices: an output to a NodeID that several nodes
  carry has an edge to each of them that takes its records (to each, with WG0502 for each, when
  none does; a node's output to its own NodeID reaches only itself: recursion), so depth, cycles,
  reachability, entries and budgets cover every graph the application can form; node-array
  consistency is checked against the carriers of the array's first NodeID; node-ID slots and the
  graph's backing memory count the largest carrier of each NodeID once.
- Edges: a node's output to itself is recursion (needs `[NodeMaxRecursionDepth]`) unless
  the node is a loop entry; an edge from a member of a loop back to its entry closes the
  loop. Loop membership = nodes on a path from the entry back to it; a node's loop is the
  innermost (smallest) loop containing it; a loop's parent is the innermost loop that
  contains its entry. Any other cycle is an error naming it.
- Depth: the longest chain of nodes, with every member of a node array at the greatest
  depth of any member. The released rules (lib_6_8, lib_6_9) count a recursive node as
  1 + NodeMaxRecursionDepth levels and allow 32; the loops proposal counts neither recursion nor
  loop iterations and allows 48.
- Output limits (spec "Node output limits", DefaultError `hlsl-node-output-limits`): per
  budget (a `[MaxRecords]` output and the outputs sharing it) the records are MaxRecords
  and the bytes MaxRecords x the largest record among the sharers; empty outputs do not
  count, except those into a loop's nodes (loops proposal: their records are limited like
  any other); an output whose target's input is shared by N nodes counts N times.
- Backing memory (an estimate for sizing buffers, not a rule): per node, what its outputs
  may hold for one producing thread group (broadcasting/coalescing) or thread (thread
  launch): MaxRecords x record size for a single output; for an array, each targeted node
  may receive MaxRecordsPerNode records (without it: MaxRecords each), so the array needs
  members x min(MaxRecordsPerNode, MaxRecords) x record size; a self-recursive output is
  multiplied by the recursion levels. Sizes round up to 8 bytes (the D3D12 backing-memory
  alignment). Outputs sharing a `[MaxRecordsSharedWith]` budget hold its records together:
  the most demanding of them counts. The graph's figure is the sum over nodes.
- Node-ID slots: per name, the largest index + 1; plus the recursion levels; loop members
  count once per iteration (loops proposal); the total must stay below 2^24-1.

Invariants: never raises for bad input; each problem is reported once.
"""

from __future__ import annotations

from collections import defaultdict

from wgc import codes, ir
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, Label
from wgc.sema.node_attributes import ATTRIBUTES
from wgc.sema.nodes import UNBOUNDED, NodeId, NodeInfo, NodeOutput, spec_constant_arguments
from wgc.suggest import closest, listing

NK = t.NodeObjectKind
DEPTH_LIMIT = 32
"""D3D12_WORK_GRAPHS_MAX_NODE_DEPTH (Work Graphs 1.0, also SM 6.9)."""
DEPTH_LIMIT_WITH_LOOPS = 48
"""The Work Graph Loops proposal's D3D12_WORK_GRAPHS_TIER_1_X_MAX_NODE_DEPTH."""
MAX_NODE_SLOTS = 2**24 - 1
BACKING_ALIGNMENT = 8
THREAD_LIMITS = {"records": 8, "bytes": 128}
GROUP_LIMITS = {"records": 256, "bytes": 32 * 1024, "combined": 48 * 1024}
GROUPSHARED_LIMIT = 32 * 1024
MAX_OUTPUT_DECLARATIONS = 1024
MAX_SHARERS = 256
_ENTRY_SHARING_RULE = ("the spec (Sharing input records across nodes): \"A node that recurses, is directly targeted by "
                       "another node, or is an entrypoint cannot share the input of another node.\" DXC does not "
                       "check it")
_ENTRY_SHARING_AMDX = ("SPV_AMDX_shader_enqueue: IsApiEntryAMDX \"Must be set to false if SharesInputWithAMDX is "
                       "specified\"; wgc emits it true for an entry, as DXC's output means (DXC leaves it out: true by default), and "
                       "AMD's Vulkan samples share inputs so")
MISSING_SHOWN = 3
"""How many missing targets of one output a WG0503 message names."""


@dataclass
class Edge:
    source: NodeInfo
    target: NodeInfo
    output: NodeOutput
    recursive: bool = False
    loop_back: bool = False


@dataclass
class Loop:
    entry: NodeInfo
    members: list[NodeInfo]
    parent: Loop | None = None


@dataclass
class GraphInfo:
    profile: str
    nodes: list[NodeInfo]
    work_graph_loops: bool = False
    """The Work Graph Loops proposal's rules apply (depth, slots, loop entries)."""
    edges: list[Edge] = field(default_factory=list)
    entry_nodes: list[NodeInfo] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    loop_of: dict[str, Loop] = field(default_factory=dict)
    """The innermost loop of each node (by key) that is in one."""
    depth_of: dict[str, int] = field(default_factory=dict)
    """Each node's level (by key)."""
    depth: int = 0
    depth_limit: int = 48
    longest_chain: list[NodeInfo] = field(default_factory=list)
    node_id_slots: int = 0
    backing_of: dict[str, int] = field(default_factory=dict)
    """Each node's backing memory (by key)."""
    backing_without_per_node_of: dict[str, int] = field(default_factory=dict)
    limits_exceeded: dict[str, list[str]] = field(default_factory=dict)
    """The spec's node output limits each node (by key) exceeds (WG0422's messages, also when the
    warning group is downgraded or silenced): what the inspect views mark."""

    @property
    def backing_bytes(self) -> int:
        return self._per_node_id(self.backing_of)

    @property
    def backing_bytes_without_max_records_per_node(self) -> int:
        return self._per_node_id(self.backing_without_per_node_of)

    def _per_node_id(self, bytes_of: dict[str, int]) -> int:
        """The sum over NodeIDs of the largest figure of the nodes carrying each (a graph holds one)."""
        largest: dict[NodeId, int] = {}
        for node in self.nodes:
            largest[node.id] = max(largest.get(node.id, 0), bytes_of.get(node.key, 0))
        return sum(largest.values())


class GraphChecker:
    def __init__(self, nodes: list[NodeInfo], profile: str, work_graph_loops: bool = False,
                 unchecked: frozenset[str] = frozenset()) -> None:
        self.graph = GraphInfo(profile, nodes, work_graph_loops,
                               depth_limit=DEPTH_LIMIT_WITH_LOOPS if work_graph_loops else DEPTH_LIMIT)
        self.unchecked = unchecked
        """Names of nodes left out because their declaration had an error: targeting them is no 'missing node'."""
        self.diagnostics: list[Diagnostic] = []
        self.by_id: dict[NodeId, list[NodeInfo]] = defaultdict(list)
        """The nodes carrying each NodeID, in source order (several: WG0501)."""
        self.by_name: dict[str, list[NodeInfo]] = defaultdict(list)
        self.pipeline_names = False
        """-spirv: the Vulkan pipeline names the nodes (VkPipelineShaderStageNodeCreateInfoAMDX::pName)."""

    def report(self, kind, span, message, labels=(), notes=()):
        self.diagnostics.append(kind(span, message, labels=labels, notes=notes))

    def check(self) -> GraphInfo:
        self._index()
        self._edges()
        self._entries()
        self._loops()
        self._cycles()
        self._arrays()
        self._entry_record_limits()
        self._input_sharing()
        self._cross_group_sharing()
        self._depth()
        self._slots()
        self._budgets()
        self._backing()
        return self.graph

    # ------------------------------------------------------------ nodes and edges

    def _index(self) -> None:
        names = [n.function.name for n in self.graph.nodes]
        for node in self.graph.nodes:
            carriers = self.by_id[node.id]
            if carriers:
                first = carriers[0]
                self.report(codes.DUPLICATE_NODE_ID, node.span,
                            f"node ID '{node.id}' of {_describe(node, names)} is already used by "
                            f"{_describe(first, names)}: both cannot be in one graph",
                            labels=[Label(first.span, f"{_describe(first, names)} is declared here")],
                            notes=[f"a library may hold both: the application puts one of them in each graph; in a "
                                   f"SPIR-V module holding both, their entry points are named '{first.key}' and "
                                   f"'{node.key}'"])
            carriers.append(node)
            self.by_name[node.id.name].append(node)

    def targets(self, output: NodeOutput) -> tuple[list[NodeInfo], list[NodeId], int]:
        """The nodes an output can reach, the first few NodeIDs it names that are not in the file,
        and how many it names that are not.  The work is proportional to the nodes of the file,
        not to the array's size (which may be up to 2^32-1)."""
        base = output.target
        if not output.is_array:
            found = self.by_id.get(base)
            return (list(found), [], 0) if found else ([], [base], 1)
        unbounded = output.array_size is None or output.array_size == UNBOUNDED
        end = base.index + (0 if unbounded else output.array_size)  # type: ignore[operator]
        present = sorted((n for n in self.by_name.get(base.name, [])
                          if n.id.index >= base.index and (unbounded or n.id.index < end)),
                         key=lambda n: n.id.index)
        if unbounded:
            return present, [], 0
        indexes = {n.id.index for n in present}
        sample: list[NodeId] = []
        index = base.index
        while len(sample) < MISSING_SHOWN and index < end:
            if index not in indexes:
                sample.append(NodeId(base.name, index))
            index += 1
        return present, sample, end - base.index - len(indexes)

    def _edges(self) -> None:
        for node in self.graph.nodes:
            for output in node.outputs:
                present, missing, missing_count = self.targets(output)
                if missing and not output.allow_sparse_nodes and output.target.name not in self.unchecked:
                    shown = ", ".join(f"'{m}'" for m in missing) + (f" and {missing_count - len(missing)} more"
                                                                    if missing_count > len(missing) else "")
                    self.report(codes.MISSING_NODE, output.parameter.span,
                                f"output '{output.parameter.name}' of '{node.function.name}' targets {shown}, "
                                f"not in this file",
                                notes=[*self._similar_nodes(node, output),
                                       "the node may come from another library; add [AllowSparseNodes] if it may "
                                       "be absent, or -Wno-missing-node"])
                # a node's output to its own NodeID reaches itself, not another carrier of that ID
                present = [n for n in present if n is node or n.id != node.id]
                carriers: dict[NodeId, list[NodeInfo]] = defaultdict(list)
                for target in present:
                    carriers[target.id].append(target)
                own_array = set()
                for target in present:
                    if target is not node and target.id.name == node.id.name:
                        if target.id not in own_array:
                            own_array.add(target.id)
                            self.report(codes.ARRAY_TARGETS_OWN_ARRAY, output.parameter.span,
                                        f"'{node.id}' targets '{target.id}', another node of its own node array",
                                        notes=["the spec (Node array constraints): \"a node in an array cannot "
                                               "target another node in the same array (else the max-depth rule "
                                               "would go to infinity)\"; DXC does not check it (a rule of the "
                                               "graph, not of one shader)"])
                        continue
                    # of several nodes carrying the NodeID, only those taking the output's records can be
                    # in a graph with it (a mismatch is reported when none of them does)
                    alternatives = carriers[target.id]
                    if len(alternatives) > 1 and not self._accepts(output, target) \
                            and any(self._accepts(output, n) for n in alternatives):
                        continue
                    self._edge(node, output, target)

    def _edge(self, node: NodeInfo, output: NodeOutput, target: NodeInfo) -> None:
        edge = Edge(node, target, output, recursive=target is node and not node.is_loop_entry)
        self._record_compatibility(node, output, target)
        if edge.recursive and not node.max_recursion_depth and not node.declares_repetition:
            self._recursion_without_depth(node, output)
        self.graph.edges.append(edge)

    def _recursion_without_depth(self, node: NodeInfo, output: NodeOutput) -> None:
        """A node that targets itself without [NodeMaxRecursionDepth(n > 0)], which the spec requires
        (DefaultError WG0511), unless the output names the node only through the node's own [NodeID], while its
        function name, which names the node in DXC's SPIR-V and by default in a Vulkan pipeline, differs: a
        program written for Vulkan then targets another node (warning WG0516); or, in a program compiled with
        -spirv (written for Vulkan, whose pipeline names every node), wherever the names match (warning WG0535)."""
        rule = ("the spec (Recursion): \"If a node targets itself, it must declare a max recursion level\" "
                "([NodeMaxRecursionDepth(n)]); DXC does not check it (a rule of the graph, not of one shader)")
        if node.function.name != node.id.name and output.target.name != node.function.name:
            self.report(codes.SELF_TARGET_BY_NODE_ID, output.parameter.span,
                        f"output '{output.parameter.name}' of '{node.function.name}' targets '{output.target}', "
                        f"the node's own [NodeID], without [NodeMaxRecursionDepth(n)]",
                        notes=[rule, "the spec ([NodeMaxRecursionDepth]): \"If no output node name matches the "
                               "current node name, including via renaming of output NodeID or shader's NodeID, "
                               "recursion is not actually happening\"",
                               f"in DXC's SPIR-V, and in a Vulkan pipeline unless its "
                               f"VkPipelineShaderStageNodeCreateInfoAMDX::pName says otherwise, this node is named "
                               f"'{node.function.name}', so the output targets another node; wgc names the node "
                               f"'{node.id.name}': the output is recursion with no levels, and 'wgc run' drops the "
                               "records it sends"])
            return
        if self.pipeline_names:
            self.report(codes.SELF_TARGET_UNDER_PIPELINE_NAMES, output.parameter.span,
                        f"output '{output.parameter.name}' of '{node.function.name}' targets '{output.target}', the "
                        "node's own name in the module, without [NodeMaxRecursionDepth(n)]",
                        notes=[rule, "the program is written for Vulkan (-spirv), whose pipeline names each node "
                               "(VkPipelineShaderStageNodeCreateInfoAMDX::pName): unless it keeps the name "
                               f"'{output.target.name}' for this node, the output targets another node",
                               f"wgc names the node '{node.id.name}': the output is recursion with no levels, and "
                               "'wgc run' drops the records it sends"])
            return
        self.report(codes.MISSING_RECURSION_DEPTH, output.parameter.span,
                    f"'{node.function.name}' targets itself through '{output.parameter.name}' and needs "
                    "[NodeMaxRecursionDepth(n)] with n > 0",
                    notes=[rule, "with -Wno-error=node-recursion-depth it compiles as recursion with no levels, and "
                           "'wgc run' drops the records the node sends itself"])

    def _similar_nodes(self, node: NodeInfo, output: NodeOutput) -> list[str]:
        """For an output of `node` whose node name is not in the file (WG0503): "did you mean" a
        node whose name is close (`wgc.suggest`) and that takes the output's records, or else the
        nodes that take them (bounded); nothing when no other node takes them or the name is there
        (a missing index)."""
        if output.target.name in self.by_name:
            return []
        takers = list(dict.fromkeys(n.id.name for n in self.graph.nodes
                                    if n.id.name != node.id.name and self._accepts(output, n)))
        if not takers:
            return []
        close = closest(output.target.name, takers)
        if close:
            return [f"did you mean '{close[0]}'?"]
        what = "empty records" if output.is_empty else f"'{output.record}' records"
        return [f"the nodes of this file that take {what}: {listing(takers)}"]

    @staticmethod
    def _accepts(output: NodeOutput, target: NodeInfo) -> bool:
        """Whether `target`'s input takes the records of `output`."""
        node_input = target.input
        empty_target = node_input is None or node_input.kind is NK.EMPTY_NODE_INPUT
        if output.is_empty or empty_target:
            return output.is_empty and empty_target
        return output.record is node_input.record  # type: ignore[union-attr]

    def _record_compatibility(self, node: NodeInfo, output: NodeOutput, target: NodeInfo) -> None:
        if self._accepts(output, target):
            return
        node_input = target.input
        expected = node_input.record if node_input is not None else None
        empty_target = node_input is None or node_input.kind is NK.EMPTY_NODE_INPUT
        given = "no record (empty output)" if output.is_empty else f"record '{output.record}'"
        wanted = "no record (empty input)" if empty_target else f"record '{expected}'"
        labels = [Label(node_input.parameter.span, "the input is declared here")] \
            if node_input is not None and node_input.parameter is not None else [Label(target.span, "target node")]
        self.report(codes.RECORD_TYPE_MISMATCH, output.parameter.span,
                    f"output '{output.parameter.name}' sends {given} to '{target.id}', whose input takes {wanted}",
                    labels=labels)

    def _entries(self) -> None:
        """Explicit entries, and nodes nothing targets (except nodes that share another's input:
        they run on that node's records)."""
        targeted = {e.target.key for e in self.graph.edges if e.source is not e.target}
        self.graph.entry_nodes = [n for n in self.graph.nodes if
                                  n.program_entry_explicit or n.key not in targeted and n.share_input_of is None]

    # ------------------------------------------------------------ loops and cycles

    def _dominators(self) -> dict[str, str | None]:
        """Each reachable node's immediate dominator (None for an entry node: the virtual root
        that feeds every entry node dominates it); unreachable nodes are absent.

        Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm": iterate in reverse
        postorder, intersecting the idoms of the processed predecessors; linear space, and
        near-linear time on the graphs work graphs make (no recursion: 100,000-node chains)."""
        successors: dict[str, list[str]] = defaultdict(list)
        preds: dict[str, list[str]] = defaultdict(list)
        for edge in self.graph.edges:
            if edge.source is not edge.target:
                successors[edge.source.key].append(edge.target.key)
                preds[edge.target.key].append(edge.source.key)
        root = None  # the virtual root's key
        order = _postorder([n.key for n in self.graph.entry_nodes], successors)
        number = {node: index for index, node in enumerate(order)}
        number[root] = len(order)  # type: ignore[index]
        idom: dict[str | None, str | None] = {root: root}
        for entry in self.graph.entry_nodes:
            idom[entry.key] = root
        entries = set(idom)

        def intersect(a: str | None, b: str | None) -> str | None:
            while a != b:
                while number[a] < number[b]:  # type: ignore[index]
                    a = idom[a]
                while number[b] < number[a]:  # type: ignore[index]
                    b = idom[b]
            return a

        changed = True
        while changed:
            changed = False
            for node in reversed(order):
                if node in entries:
                    continue
                new = None
                first = True
                for pred in preds[node]:
                    if pred not in idom:
                        continue
                    new = pred if first else intersect(pred, new)
                    first = False
                if not first and (node not in idom or idom[node] != new):
                    idom[node], changed = new, True
        del idom[root]
        return idom  # type: ignore[return-value]

    @staticmethod
    def _dominators_of(node: str, idom: dict[str, str | None]) -> set[str]:
        """`node` and every node that dominates it (every node, for an unreachable one)."""
        found = {node}
        current = idom.get(node)
        while current is not None and current not in found:
            found.add(current)
            current = idom.get(current)
        return found

    def _loops(self) -> None:
        """A loop entry E's members: the nodes on a path from E back to E through none of the nodes
        that dominate E (an outer loop's nodes on the way into E). A member E does not dominate can
        be reached from outside the loop: that is reported below."""
        idom = self._dominators()
        successors: dict[str, list[NodeInfo]] = defaultdict(list)
        predecessors: dict[str, list[NodeInfo]] = defaultdict(list)
        for edge in self.graph.edges:
            successors[edge.source.key].append(edge.target)
            predecessors[edge.target.key].append(edge.source)
        for entry in self.graph.nodes:
            if not entry.is_loop_entry:
                continue
            dominators = self._dominators_of(entry.key, idom) - {entry.key}
            # a path back to E through a node that dominates E (an outer loop's entry) is the outer
            # loop's next iteration: the nodes after an inner loop on the way back are not its members
            forward = _reach(entry, successors, avoid=dominators)
            backward = _reach(entry, predecessors, avoid=dominators)
            inside = (forward & backward) | {entry.key}
            members = [n for n in self.graph.nodes if n.key in inside]
            self.graph.loops.append(Loop(entry, members))
        self.graph.loops.sort(key=lambda loop: (len(loop.members), str(loop.entry.id), loop.entry.key))
        for loop in self.graph.loops:
            for member in loop.members:
                self.graph.loop_of.setdefault(member.key, loop)
            outer = [o for o in self.graph.loops if o is not loop and loop.entry in o.members]
            loop.parent = outer[0] if outer else None
        inside_of = [(loop, {m.key for m in loop.members}) for loop in self.graph.loops]
        for edge in self.graph.edges:
            for loop, inside_keys in inside_of:
                if edge.target is loop.entry and edge.source.key in inside_keys:
                    edge.loop_back = True
                elif edge.target.key in inside_keys and edge.source.key not in inside_keys \
                        and edge.target is not loop.entry:
                    self.report(codes.INVALID_LOOP, edge.output.parameter.span,
                                f"'{edge.source.id}' is outside the loop of '{loop.entry.id}' and targets "
                                f"'{edge.target.id}' inside it; a loop may only be entered through its entry node",
                                labels=[Label(loop.entry.span, "the loop entry")])

    def _cycles(self) -> None:
        """Report each cycle that is not recursion and does not pass through a loop's back edge."""
        successors: dict[str, list[Edge]] = defaultdict(list)
        for edge in self.graph.edges:
            if edge.source is not edge.target and not edge.loop_back:
                successors[edge.source.key].append(edge)
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        reported: set[frozenset[str]] = set()
        position: dict[str, int] = {}  # index of each node of the current path in `path`
        for root in self.graph.nodes:
            if root.key in state:
                continue
            path: list[NodeInfo] = [root]
            pending = [iter(successors.get(root.key, []))]  # per node of the path: edges left to follow
            state[root.key], position[root.key] = 1, 0
            while pending:
                following = next(pending[-1], None)
                if following is None:
                    done = path.pop()
                    pending.pop()
                    state[done.key] = 2
                    del position[done.key]
                    continue
                target = following.target
                if state.get(target.key) == 1:
                    cycle = path[position[target.key]:]
                    key = frozenset(n.key for n in cycle)
                    if key not in reported:
                        reported.add(key)
                        chain = _chain_text([*cycle, target])
                        hint = ("only a node targeting itself (with [NodeMaxRecursionDepth]) or a loop through a "
                                "loop entry ([NodeMaxLoopIterations], -fwork-graph-loops) may form a cycle")
                        self.report(codes.ILLEGAL_CYCLE, edge.output.parameter.span,
                                    f"the graph has a cycle: {chain}", notes=[hint])
                elif target.key not in state:
                    state[target.key], position[target.key] = 1, len(path)
                    path.append(target)
                    pending.append(iter(successors.get(target.key, [])))

    # ------------------------------------------------------------ arrays, sharing

    def _arrays(self) -> None:
        """Each member is compared with the nodes of the array's first NodeID (one of them, if several
        carry it, is in a graph with the member): reported when it differs from all of them."""
        for members in self.by_name.values():
            firsts = self.by_id[members[0].id]
            for other in members:
                if other.id == members[0].id:
                    continue
                problems = [_array_difference(first, other) for first in firsts]
                problem, first = problems[0], firsts[0]
                if all(problems):
                    self.report(codes.INCONSISTENT_NODE_ARRAY, other.span,
                                f"'{other.id}' and '{first.id}' are nodes of one array but {problem}",
                                labels=[Label(first.span, f"'{first.id}' is declared here")],
                                notes=[ARRAY_RULE_NOTE])
                elif all((f.dispatch_grid is None) != (other.dispatch_grid is None) for f in firsts):
                    fixed, given = (first, other) if first.dispatch_grid is not None else (other, first)
                    self.report(codes.NODE_ARRAY_GRID_MIX, other.span,
                                f"'{other.id}' and '{first.id}' are nodes of one array but only '{fixed.id}' declares "
                                f"a fixed [NodeDispatchGrid]; '{given.id}' takes its grid from the record",
                                labels=[Label(first.span, f"'{first.id}' is declared here")],
                                notes=["the spec (Node array constraints): \"If any node in an array has a static "
                                       "dispatch grid size (e.g. declares [NodeDispatchGrid()]), all nodes must do "
                                       "so.\" DXC accepts the array (vkd3d-proton's own tests use one), and wgc runs "
                                       "it: each member launches the grid it declares"])

    def _entry_record_limits(self) -> None:
        """A mesh node of an array whose [NodeMaxInputRecordsPerGraphEntryRecord] shares its count across
        the array: each other mesh node of the array (another NodeID of its name) declares the same."""
        key = "nodemaxinputrecordspergraphentryrecord"
        name = ATTRIBUTES[key].name
        for members in self.by_name.values():
            sharing = next((m for m in members if m.launch == "mesh" and m.max_input_records_per_graph_entry_record
                            and m.max_input_records_per_graph_entry_record[1]), None)
            if sharing is None:
                continue
            declared = sharing.max_input_records_per_graph_entry_record
            assert declared is not None
            shared_at = ir.find_attribute(sharing.function.attributes, key)
            for other in members:
                theirs = other.max_input_records_per_graph_entry_record
                if other.launch != "mesh" or other.id == sharing.id or theirs == declared:
                    continue
                written = ir.find_attribute(other.function.attributes, key)
                what = f"[{name}({theirs[0]}, {str(theirs[1]).lower()})]" if theirs else f"no [{name}]"
                self.report(codes.ENTRY_RECORD_LIMIT_MISMATCH, written.span if written is not None else other.span,
                            f"'{other.id}' declares {what}, but '{sharing.id}', a node of the same array, shares "
                            f"[{name}({declared[0]}, true)] across the array: every node of the array must "
                            "declare the same",
                            labels=[Label(shared_at.span if shared_at is not None else sharing.span,
                                          f"'{sharing.id}' shares its count across the array here")])

    def _input_sharing(self) -> None:
        sharers: dict[NodeId, list[NodeInfo]] = defaultdict(list)
        targeted = {e.target.key for e in self.graph.edges if e.source is not e.target}
        targeted_ids = {e.target.id for e in self.graph.edges if e.source is not e.target}
        for node in self.graph.nodes:
            shared = node.share_input_of
            if shared is None:
                continue
            attribute = next(a for a in node.function.attributes if a.key == "nodeshareinputof")
            # specialization constants in either index decide at pipeline creation which node is shared
            specialized = any(a.key in ("nodeid", "nodeshareinputof") for _, a, _, _ in spec_constant_arguments(node))
            sources = [s for s in self.by_id.get(shared, []) if not (specialized and s is node)]
            # allowed when it is allowed with one of the nodes carrying that NodeID
            reasons = [self._sharing_problem(node, shared, source, targeted, targeted_ids, specialized)
                       for source in sources or [None]]  # type: ignore[list-item]
            reason = reasons[0] if all(reasons) else None
            if reason:
                self.report(codes.INVALID_INPUT_SHARING, attribute.span,
                            f"[NodeShareInputOf(\"{shared}\")] is not allowed: {reason}")
                continue
            if node.program_entry_explicit:
                indices = " (an index is a specialization constant; these are its default values)" \
                    if specialized else ""
                self.report(codes.ENTRY_SHARES_INPUT, attribute.span,
                            f"entry node '{node.function.name}' ('{node.id.name}', {node.id.index}) shares the input "
                            f"of ('{shared.name}', {shared.index}){indices}: the spec allows no entry node to share "
                            "another node's input",
                            notes=[_ENTRY_SHARING_RULE, _ENTRY_SHARING_AMDX])
            sharers[shared].append(node)
        for shared, nodes in sharers.items():
            if len(nodes) + 1 > MAX_SHARERS:
                self.report(codes.INVALID_INPUT_SHARING, nodes[MAX_SHARERS - 1].span,
                            f"{len(nodes) + 1} nodes share the input of '{shared}'; at most {MAX_SHARERS} may")
        self.sharers = sharers

    @staticmethod
    def _sharing_problem(node: NodeInfo, shared: NodeId, source: NodeInfo | None, targeted: set[str],
                         targeted_ids: set[NodeId], specialized: bool) -> str | None:
        """Why `node` may not share the input of `source` (a node carrying `shared`, None if none does);
        `specialized`: an index is a specialization constant, so the NodeIDs compare only once specialized.
        An entry that shares is warning WG0517 (`_input_sharing`), not a reason here."""
        if shared == node.id and not specialized:
            return "a node cannot share its own input"
        if node.max_recursion_depth:
            return "a recursive node cannot share another node's input"
        if node.key in targeted:
            return "a node that other nodes target cannot share another node's input"
        if node.input is not None and node.input.kind.writable:
            return "RW inputs cannot be shared"
        if source is None:
            return None
        if source.program_entry_explicit and shared in targeted_ids:
            return f"'{shared}' is fed both by other nodes and as a graph entry, so its input cannot be shared"
        if source.max_recursion_depth:
            return f"'{source.id}' is recursive, and the input of a recursive node cannot be shared"
        if _input_record(source) is not _input_record(node):
            return f"its input record differs from the input record of '{source.id}'"
        return None

    def _cross_group_sharing(self) -> None:
        entries = {n.key for n in self.graph.entry_nodes}
        for node in self.graph.nodes:
            call = node.calls_finished_cross_group_sharing
            if call is None:
                continue
            if node.key in entries:
                self.report(codes.CROSS_GROUP_SHARING_IN_ENTRY, call,
                            f"FinishedCrossGroupSharing() in '{node.id}', which nothing in this file targets: an "
                            "entry node may not call it",
                            notes=["a library may be linked with its producer; if this node is an entry of the "
                                   "graph, the behaviour is undefined"])

    # ------------------------------------------------------------ depth and slots

    def _depth(self) -> None:
        """Each node's level in the longest chain leading to it (recursion and loop back edges left
        out). The members of a node array start at the same level (the greatest of any member; a
        node carrying the same NodeID as another is not raised by that one's feeders);
        without the loops proposal a self-recursive member then adds its own recursion levels, which do not
        raise the other members. A node sharing another's input sits where that node sits."""
        loops = self.graph.work_graph_loops
        feeders: dict[str, list[NodeInfo]] = defaultdict(list)
        for edge in self.graph.edges:
            if edge.loop_back or edge.source.id.name == edge.target.id.name:
                continue
            for target in (edge.target, *self.sharers.get(edge.target.id, [])):
                if not any(f is edge.source for f in feeders[target.key]):
                    feeders[target.key].append(edge.source)

        self_targeting = {id(e.source) for e in self.graph.edges if e.recursive}

        def weight(node: NodeInfo) -> int:
            recursive = not loops and id(node) in self_targeting
            return 1 + (node.max_recursion_depth or 0) if recursive else 1

        start: dict[str, tuple[int, NodeInfo | None]] = {}
        """Each node's (by key) starting level and the feeder that sets it."""
        finished: set[str] = set()

        def start_of(node: NodeInfo) -> tuple[int, NodeInfo | None]:
            """The level a node starts after, and the feeder that sets it: the greatest of its own
            feeders' and of the other members of its array (not of other nodes of its NodeID:
            those are alternatives to it, never in one graph with it).

            A depth-first search over NodeID names with an explicit stack (chains of 100,000
            nodes): a name is finished once all its feeders' names are; a feeder still on the
            stack closes a cycle (reported already) and counts as level 0."""
            visiting: set[str] = set()
            stack = [node.id.name]
            while stack:
                current = stack[-1]
                if current in finished:
                    stack.pop()
                    continue
                visiting.add(current)
                feeder_names = {f.id.name for m in self.by_name[current] for f in feeders[m.key]}
                waiting = [f for f in feeder_names if f not in finished and f not in visiting]
                if waiting:
                    stack.extend(waiting)
                    continue
                members = self.by_name[current]
                own: dict[str, tuple[int, NodeInfo | None]] = {}
                for member in members:
                    found: tuple[int, NodeInfo | None] = (0, None)
                    for feeder in feeders[member.key]:
                        level = start.get(feeder.key, (0, None))[0] + weight(feeder)
                        if level > found[0]:
                            found = (level, feeder)
                    own[member.key] = found
                deepest = max(members, key=lambda m: own[m.key][0])     # the first of the deepest
                for member in members:
                    chosen = deepest
                    if chosen is not member and chosen.id == member.id:   # an alternative to it: look again
                        chosen = max((m for m in members if m is member or m.id != member.id),
                                     key=lambda m: own[m.key][0])
                    start[member.key] = own[chosen.key]
                visiting.discard(current)
                finished.add(current)
                stack.pop()
            return start[node.key]

        nodes = self.graph.nodes
        for node in nodes:
            self.graph.depth_of[node.key] = start_of(node)[0] + weight(node)
        deepest = max(nodes, key=lambda n: self.graph.depth_of[n.key], default=None)
        chain: list[NodeInfo] = []
        in_chain: set[int] = set()
        current = deepest
        while current is not None and id(current) not in in_chain:
            chain.append(current)
            in_chain.add(id(current))
            current = start_of(current)[1]
        chain.reverse()
        depth = self.graph.depth_of[deepest.key] if deepest is not None else 0
        self.graph.depth = depth
        self.graph.longest_chain = chain
        if depth > self.graph.depth_limit:
            counting = ("recursion and loop iterations do not count (-fwork-graph-loops)" if loops
                        else "recursion levels count")
            self.report(codes.GRAPH_TOO_DEEP, chain[0].span,
                        f"the graph is {depth} nodes deep; the limit is {self.graph.depth_limit} ({counting})",
                        notes=["longest chain: " + _chain_text(chain),
                               "the spec (Node count limits): \"The longest chain of nodes cannot exceed 32\" "
                               "(48 with Work Graph Loops); DXC does not check it (a rule of the graph, not of one "
                               "shader); -Wno-error=graph-depth compiles it, and 'wgc run' runs it"])

    def _slots(self) -> None:
        slots = sum(max(m.id.index for m in members) + 1 for members in self.by_name.values())
        slots += sum(max(n.max_recursion_depth or 0 for n in carriers) for carriers in self.by_id.values())
        for loop in self.graph.loops:
            slots += len(loop.members) * ((loop.entry.max_loop_iterations or 1) - 1)
        self.graph.node_id_slots = slots
        # the spec (Work Graphs 1.0): at most 0xffffff; the loops proposal: less than 2^24-1
        loops = self.graph.work_graph_loops
        too_many = slots >= MAX_NODE_SLOTS if loops else slots > MAX_NODE_SLOTS
        if too_many:
            first = self.graph.nodes[0]
            self.report(codes.TOO_MANY_NODE_SLOTS, first.span,
                        f"the graph needs {slots} node-ID slots (node IDs, recursion levels and loop iterations); "
                        + (f"it must stay below {MAX_NODE_SLOTS} (2^24-1)" if loops
                           else f"at most {MAX_NODE_SLOTS} (0xffffff) are allowed"))

    # ------------------------------------------------------------ budgets and backing memory

    def _multiplier(self, output: NodeOutput) -> int:
        """How many nodes read each record of this output (NodeShareInputOf sharers plus the target)."""
        present = self.targets(output)[0]
        return max((1 + len(self.sharers.get(n.id, [])) for n in present), default=1)

    def _budgets(self) -> None:
        for node in self.graph.nodes:
            records = 0
            output_bytes = 0
            tracked = 0
            for owner, sharers in node.output_budgets():
                live = [o for o in sharers if not o.is_empty or self._feeds_a_loop(o)]
                if not live:
                    continue
                multiplier = max(self._multiplier(o) for o in live)
                count = (owner.max_records or 0) * multiplier
                records += count
                output_bytes += count * max(o.record_size for o in live)
                if any(o.track_rw_input_sharing for o in live):
                    tracked += count
            self._limits(node, records, output_bytes, tracked)

    def _feeds_a_loop(self, output: NodeOutput) -> bool:
        """An empty output into a loop counts against the producer's record limit (loops proposal, rule 11)."""
        present = self.targets(output)[0]
        return any(n.key in self.graph.loop_of for n in present)

    def _limits(self, node: NodeInfo, records: int, output_bytes: int, tracked: int) -> None:
        def over(message: str) -> None:
            self.graph.limits_exceeded.setdefault(node.key, []).append(message)
            self.report(codes.NODE_OUTPUT_LIMIT, node.span, f"node '{node.id}': {message}",
                        notes=["the limits are the spec's 'Node output limits'; the runtime rejects the graph "
                               "unless MaxRecords is overridden at the API"])

        if len(node.outputs) > MAX_OUTPUT_DECLARATIONS:
            over(f"{len(node.outputs)} output declarations; at most {MAX_OUTPUT_DECLARATIONS} are allowed")
        if node.groupshared_bytes > GROUPSHARED_LIMIT:
            over(f"{node.groupshared_bytes} bytes of groupshared memory; at most {GROUPSHARED_LIMIT} are allowed")
        if node.launch == "thread":
            if records > THREAD_LIMITS["records"]:
                over(f"thread launch nodes may output at most {THREAD_LIMITS['records']} records in total, "
                     f"but the outputs' MaxRecords add up to {records}")
            if output_bytes > THREAD_LIMITS["bytes"]:
                over(f"thread launch nodes may output at most {THREAD_LIMITS['bytes']} bytes of records, "
                     f"but the outputs may need {output_bytes} bytes")
            return
        if records > GROUP_LIMITS["records"]:
            over(f"a thread group may output at most {GROUP_LIMITS['records']} records in total, but the outputs' "
                 f"MaxRecords add up to {records}")
        byte_limit = GROUP_LIMITS["bytes"] - 4 * tracked
        if output_bytes > byte_limit:
            extra = f" (32768 - 4 x {tracked} tracked records)" if tracked else ""
            over(f"the outputs may need {output_bytes} bytes of records; at most {byte_limit} are allowed{extra}")
        combined = output_bytes + node.groupshared_bytes + 8 * records
        if combined > GROUP_LIMITS["combined"]:
            over(f"output records ({output_bytes} bytes) + groupshared memory ({node.groupshared_bytes} bytes) + "
                 f"8 x {records} records = {combined} bytes; at most {GROUP_LIMITS['combined']} are allowed")

    def _backing(self) -> None:
        self.recursive_outputs = {id(e.output) for e in self.graph.edges if e.recursive}
        for node in self.graph.nodes:
            with_per_node = without = 0
            for owner, sharers in node.output_budgets():
                # outputs sharing a budget hold its records together: the most demanding one counts
                costs = [self._output_backing(node, o, owner.max_records or 0) for o in sharers if not o.is_empty]
                with_per_node += max((c[0] for c in costs), default=0)
                without += max((c[1] for c in costs), default=0)
            self.graph.backing_of[node.key] = with_per_node
            self.graph.backing_without_per_node_of[node.key] = without

    def _output_backing(self, node: NodeInfo, output: NodeOutput, budget: int) -> tuple[int, int]:
        """(bytes with MaxRecordsPerNode, bytes without it) an output may hold."""
        size = _round_up(output.record_size, BACKING_ALIGNMENT)
        recursive = id(output) in self.recursive_outputs
        levels = 1 + (node.max_recursion_depth or 0) if recursive else 1
        if not output.is_array:
            return budget * size * levels, budget * size * levels
        present, _, missing_count = self.targets(output)
        members = len(present) + missing_count
        per_node = min(output.max_records_per_node or budget, budget)
        return members * per_node * size * levels, members * budget * size * levels


def _describe(node: NodeInfo, function_names: list[str]) -> str:
    """A node as a message names it: `'f'`, or `'void f(NodeOutput<A> out)'` when f is overloaded."""
    name = node.function.name
    return f"'{node.function.signature}'" if function_names.count(name) > 1 else f"'{name}'"


def _chain_text(chain: list[NodeInfo]) -> str:
    """`A -> B -> C`, with the middle of a very long chain elided."""
    names = [str(n.id) for n in chain]
    if len(names) > 16:
        names = names[:8] + [f"... ({len(names) - 16} more) ..."] + names[-8:]
    return " -> ".join(names)


def _reach(start: NodeInfo, following: dict[str, list[NodeInfo]], avoid: set[str] | frozenset[str] = frozenset()
           ) -> set[str]:
    """The keys of the nodes reachable from `start` by one or more steps of `following`, through
    none of the nodes whose keys are in `avoid`."""
    seen: set[str] = set()
    stack = list(following.get(start.key, []))
    while stack:
        node = stack.pop()
        if node.key not in seen and node.key not in avoid:
            seen.add(node.key)
            stack.extend(following.get(node.key, []))
    return seen


def _postorder(roots: list[str], successors: dict[str, list[str]]) -> list[str]:
    """The nodes (keys) reachable from `roots`, each after every node it reaches first (iterative DFS)."""
    order: list[str] = []
    seen: set[str] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(successors.get(root, [])))]
        while stack:
            node, following = stack[-1]
            child = next(following, None)
            if child is None:
                order.append(node)
                stack.pop()
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(successors.get(child, []))))
    return order


def _round_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _input_record(node: NodeInfo) -> t.Type | None:
    return node.input.record if node.input is not None else None


def _access(node: NodeInfo) -> str:
    if node.input is None or node.input.kind is NK.EMPTY_NODE_INPUT:
        return "empty"
    return "read-write" if node.input.kind.writable else "read-only"


ARRAY_RULE_NOTE = ("the spec (Node array constraints) asks every node of an array for the same input record type, "
                   "the same input record access mode and the same launch mode; DXC does not check it (a rule of the "
                   "graph, not of one shader)")


def _array_difference(a: NodeInfo, b: NodeInfo) -> str | None:
    """What the spec's node array constraints forbid between two members (the dispatch grid apart: WG0515)."""
    if a.launch != b.launch:
        return f"their launch modes differ ({a.launch}, {b.launch})"
    if _input_record(a) is not _input_record(b):
        return f"their input records differ ('{_input_record(a)}', '{_input_record(b)}')"
    if _access(a) != _access(b):
        return f"their input access differs ({_access(a)}, {_access(b)})"
    return None


def check_graph(nodes: list[NodeInfo], profile: str,
                work_graph_loops: bool = False,
                unchecked: frozenset[str] = frozenset(), pipeline_names: bool = False) -> tuple[GraphInfo, list[Diagnostic]]:
    """The graph of `nodes` (the sound ones); `unchecked` names the nodes left out for their errors;
    `pipeline_names`: a program written for Vulkan (-spirv), whose pipeline names the nodes."""
    checker = GraphChecker(nodes, profile, work_graph_loops, unchecked)
    checker.pipeline_names = pipeline_names
    graph = checker.check()
    return graph, checker.diagnostics
