"""Semantic analysis, Work Graph Loops in index space: the (name, index) stages of every node.

Input: the checked `GraphInfo` (`graph.py`: loops, edges, back edges).
Output: `plan_stages` -> `StagePlan`: per node its `NodeStages` (the loops that index its stages,
the stage index of an (array index, iterations) pair, the list of its stages); `unrolled_depth` ->
the depth of the graph once every loop is unrolled (what SPV_AMDX_shader_enqueue counts against
`maxExecutionGraphDepth`).  Both the SPIR-V back end (`wgc.spirv.loop_stages`: the AMDX target, and
the emulated target under `loops="index-space"`), the target check (`sema.target`), the metadata
(reflection, `wgc inspect`) and the runtime's stage expansion read them; nothing else decides them.

The unrolling (SPV_AMDX has no loops, but a node array of stages can hold one iteration each):
- A node X inside loops L1 (outermost) .. Lk, with NodeMaxLoopIterations N1 .. Nk, is the node
  array of stages (X.name, index) with
      index = ((a * S1 + i1) * S2 + i2) ... * Sk + ik,      Sj = Nj + 1,
  where a is X's NodeID index and ij its iteration of loop Lj (`NodeStages.stage_index`).  One
  entry point serves every stage: the application creates a pipeline stage per index
  (`VkPipelineShaderStageNodeCreateInfoAMDX::index`) and the shader reads the index back from the
  `ShaderIndexAMDX` built-in: ij = (index / (S(j+1) x .. x Sk)) mod Sj, and
  GetCurrentLoopIterationIndex() is ik.  The array index is index / (S1 x .. x Sk).
- An output of a producer P to a target T at array index k targets stage
  (T.name, (b + k) * Pi(T) + suffix), b the output's base index, Pi(T) = S1 x .. x Sk of T, and the
  suffix encodes T's iterations: an enclosing loop of both keeps P's iteration, a loop T's records
  enter starts at 0, and a back edge into T's own loop is P's iteration + 1.  Outputs leaving a loop
  keep their written index (a target outside loops has Pi = 1).
- The iteration limit: a record fed back at the last iteration (i = N - 1) reaches iteration N,
  the terminator stage of the entry (the slot Sj = Nj + 1 keeps free): the entry's entry point
  returns at once there, so the record is consumed and discarded (the proposal's "immediate loop
  termination", without undefined behaviour), and IsValid() of that back-edge output is false at
  the last iteration, as in the native form.  Terminator stages are listed (`Stage.terminator`).
- A loop entry that targets itself (a loop of one node): AMDX forbids a node enqueueing to its own
  name at another index, so its iterations are recursion levels of one stage instead:
  MaxNodeRecursionAMDX = N (N - 1 feedbacks and one more level, the terminator level, where
  RemainingRecursionLevelsAMDX = 0 and the node consumes and discards), and the iteration is
  N - RemainingRecursionLevelsAMDX.  Its own loop adds no index dimension.
- Unrolled depth (AMDX counts every enqueue): a node's level in the graph without back edges,
  where a self-recursive node counts 1 + NodeMaxRecursionDepth levels; leaving a loop L adds
  (N - 1) x len(L), len(L) being the longest chain from the entry around to a back edge (in
  unrolled stages, inner loops included); a terminator stage is one level after its feeder's last
  iteration.  Members of a node array are each at their own level.

Invariants: pure; never raises for a checked graph (a malformed one, with errors reported, gives
some plan); the stage list of a node is produced lazily (a loop may have 2^24-2 iterations).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from itertools import product

from wgc.cached_dataclass import dataclass, field
from wgc.sema.graph import Edge, GraphInfo, Loop
from wgc.sema.nodes import NodeInfo, NodeOutput

AMDX_MIN_GRAPH_DEPTH = 32
"""The least maxExecutionGraphDepth VK_AMDX_shader_enqueue guarantees (WG0513 without --max-graph-depth)."""
MAX_STAGE_INDEX = 0xFFFFFFFF
"""ShaderIndexAMDX and the node index of an allocation are 32-bit unsigned integers."""


@dataclass(frozen=True)
class LoopDimension:
    """One loop indexing a node's stages."""

    entry: NodeInfo
    iterations: int
    members: frozenset[str]
    """The keys of the loop's members."""

    @property
    def stride(self) -> int:
        """Iterations 0 .. N-1 and the terminator slot N."""
        return self.iterations + 1


@dataclass(frozen=True)
class Stage:
    index: int
    iterations: tuple[int, ...]
    """The iteration of each dimension, outermost first (a terminator's last one is N)."""
    terminator: bool


@dataclass
class NodeStages:
    node: NodeInfo
    dimensions: tuple[LoopDimension, ...] = ()
    """The loops indexing the stages, outermost first."""
    recursion_loop: LoopDimension | None = None
    """A loop entry that targets itself: its iterations are recursion levels of each stage."""
    terminates: bool = False
    """The node is the entry of its innermost dimension: the stages at iteration N are terminators."""

    @property
    def stride(self) -> int:
        """Stages per array index (1 outside loops)."""
        return math.prod(d.stride for d in self.dimensions)

    @property
    def unrolled(self) -> bool:
        return bool(self.dimensions) or self.recursion_loop is not None

    @property
    def max_recursion(self) -> int | None:
        """MaxNodeRecursionAMDX: N for a self-feeding loop entry (module docstring), else the node's own."""
        if self.recursion_loop is not None:
            return self.recursion_loop.iterations
        return self.node.max_recursion_depth

    def after(self, position: int) -> int:
        """The product of the strides of the dimensions after `position`."""
        return math.prod(d.stride for d in self.dimensions[position + 1:])

    def stage_index(self, array_index: int, iterations: tuple[int, ...]) -> int:
        index = array_index
        for dimension, iteration in zip(self.dimensions, iterations):
            index = index * dimension.stride + iteration
        return index

    def stages(self) -> Iterator[Stage]:
        """Every stage of the node, in index order (lazily: loops may be long)."""
        if not self.dimensions:
            yield Stage(self.node.id.index, (), False)
            return
        last = len(self.dimensions) - 1
        ranges = [range(d.stride if j == last and self.terminates else d.iterations)
                  for j, d in enumerate(self.dimensions)]
        for iterations in product(*ranges):
            terminator = self.terminates and iterations[last] == self.dimensions[last].iterations
            yield Stage(self.stage_index(self.node.id.index, iterations), iterations, terminator)

    @property
    def stage_count(self) -> int:
        if not self.dimensions:
            return 1
        count = math.prod(d.iterations for d in self.dimensions)
        if self.terminates:
            count += count // self.dimensions[-1].iterations
        return count

    @property
    def has_holes(self) -> bool:
        """Some index within the stride names no stage: slot N of an outer dimension (its terminator
        slot; only the innermost loop's entry has terminator stages), or slot N of the innermost
        dimension when the node is not that loop's entry."""
        return len(self.dimensions) > 1 or (bool(self.dimensions) and not self.terminates)

    @property
    def largest_index(self) -> int:
        return (self.node.id.index + 1) * self.stride - 1


@dataclass(frozen=True)
class TargetIndex:
    """How an output's node index maps into its target's stages: node index k becomes
    k * stride + the sum of `terms`, each (producer dimension or None for 0, increment, weight)."""

    stride: int
    terms: tuple[tuple[int | None, int, int], ...]
    feedback: int | None
    """The producer dimension whose next iteration the output feeds (a back edge into an index-space loop)."""


@dataclass(frozen=True)
class OutputSpan:
    """The node indices an output into a loop's stages may name: PayloadNodeBaseIndexAMDX `base`,
    PayloadNodeArraySizeAMDX `size` (None: unbounded), and `sparse` (PayloadNodeSparseArrayAMDX:
    some index in the span names no stage, `NodeStages.has_holes`)."""

    base: int
    size: int | None
    sparse: bool


@dataclass
class StagePlan:
    of: dict[str, NodeStages] = field(default_factory=dict)
    """Each node's stages (by key)."""

    @property
    def unrolled(self) -> bool:
        return any(s.unrolled for s in self.of.values())

    def stages_of(self, node: NodeInfo) -> NodeStages:
        """`node`'s stages; a node left out of the graph (for an error a -W option lowered) is one stage."""
        return self.of.get(node.key) or NodeStages(node)

    def target_index(self, producer: NodeInfo, output: NodeOutput, target: NodeStages) -> TargetIndex:
        """The stage mapping of `producer`'s `output` into `target` (module docstring)."""
        mine = self.stages_of(producer)
        positions = {d.entry.key: j for j, d in enumerate(mine.dimensions)}
        terms: list[tuple[int | None, int, int]] = []
        feedback = None
        for j, dimension in enumerate(target.dimensions):
            weight = target.after(j)
            position = positions.get(dimension.entry.key)
            if position is None:
                terms.append((None, 0, weight))     # entering the loop: iteration 0
                continue
            back = dimension.entry is target.node and producer.key in dimension.members
            if back:
                feedback = position
            terms.append((position, 1 if back else 0, weight))
        return TargetIndex(target.stride, tuple(terms), feedback)

    def output_span(self, output: NodeOutput, graph: GraphInfo) -> OutputSpan | None:
        """The stages an output into a loop reaches: its target's array indices times the stride,
        sparse where the target's stages leave holes; None when the target is outside loops."""
        target = self.output_target(output, graph)
        if target is None or target.stride == 1:
            return None
        size = 1 if output.array_size is None else output.array_size
        bounded = 0 < size < MAX_STAGE_INDEX
        return OutputSpan(output.target.index * target.stride, size * target.stride if bounded else None,
                          target.has_holes)

    def output_target(self, output: NodeOutput, graph: GraphInfo) -> NodeStages | None:
        """The stages of the node `output` targets: the one with its NodeID, else the first of its
        name (the members of a name share their index space, WG0606); None when none is in the file."""
        first = None
        for node in graph.nodes:
            if node.id.name == output.target.name and node.key in self.of:
                if node.id == output.target:
                    return self.of[node.key]
                first = first or self.of[node.key]
        return first


def loop_chain(node: NodeInfo, graph: GraphInfo) -> tuple[Loop, ...]:
    """The loops holding `node`, outermost first (its innermost loop and that loop's parents)."""
    chain: list[Loop] = []
    seen: set[int] = set()
    loop = graph.loop_of.get(node.key)
    while loop is not None and id(loop) not in seen:     # loops by identity (their == compares nodes)
        seen.add(id(loop))
        chain.append(loop)
        loop = loop.parent
    return tuple(reversed(chain))


def self_feeding(loop: Loop, graph: GraphInfo) -> bool:
    """The loop's entry targets itself: the recursion form (module docstring)."""
    return any(e.source is loop.entry and e.target is loop.entry for e in graph.edges)


def plan_stages(graph: GraphInfo) -> StagePlan:
    plan = StagePlan()
    feeding_itself = {e.source.key for e in graph.edges if e.source is e.target and e.source.is_loop_entry}
    for node in graph.nodes:
        dimensions = []
        recursion = None
        for loop in loop_chain(node, graph):
            dimension = LoopDimension(loop.entry, loop.entry.max_loop_iterations or 1,
                                      frozenset(m.key for m in loop.members))
            if loop.entry is node and len(loop.members) == 1 and node.key in feeding_itself:
                recursion = dimension
            else:
                dimensions.append(dimension)
        terminates = bool(dimensions) and dimensions[-1].entry is node
        plan.of[node.key] = NodeStages(node, tuple(dimensions), recursion, terminates)
    return plan


@dataclass(frozen=True)
class UnrolledDepth:
    depth: int
    deepest: NodeInfo | None
    """The node at the deepest stage (the feeder of a terminator when that is deepest)."""
    terminator: bool
    """The deepest stage is a terminator stage, one level after `deepest`."""


def unrolled_depth(graph: GraphInfo) -> UnrolledDepth:
    """The depth of the unrolled graph (module docstring).  Kahn's order over the edges without
    back edges, where a node after a loop also waits for every member of that loop (its length
    must be known); nodes left on a cycle (a graph with errors) keep the levels found so far."""
    nodes = graph.nodes
    by_key = {n.key: n for n in nodes}
    chains = {n.key: loop_chain(n, graph) for n in nodes}
    holding = {n.key: {id(loop) for loop in chains[n.key]} for n in nodes}
    by_id: dict[object, list[NodeInfo]] = defaultdict(list)
    for node in nodes:
        by_id[node.id].append(node)
    sharers: dict[str, list[NodeInfo]] = defaultdict(list)
    for node in nodes:
        if node.share_input_of is not None:
            for other in by_id.get(node.share_input_of, []):
                if other is not node:
                    sharers[other.key].append(node)
    forward: list[Edge] = [e for e in graph.edges if not e.loop_back and e.source is not e.target
                           and e.source.id.name != e.target.id.name]
    loops_entered_at: dict[str, list[tuple[Loop, set[str]]]] = defaultdict(list)
    for loop in graph.loops:
        loops_entered_at[loop.entry.key].append((loop, {m.key for m in loop.members}))
    back_sources: dict[int, list[NodeInfo]] = defaultdict(list)
    for edge in graph.edges:
        if edge.loop_back:
            for loop, inside in loops_entered_at[edge.target.key]:
                if edge.source.key in inside:
                    back_sources[id(loop)].append(edge.source)
    recursive = {e.source.key for e in graph.edges if e.recursive}

    def weight(node: NodeInfo) -> int:
        return 1 + (node.max_recursion_depth or 0) if node.key in recursive else 1

    feeds: list[tuple[NodeInfo, NodeInfo, list[Loop]]] = []
    for edge in forward:
        for target in (edge.target, *sharers.get(edge.target.key, [])):
            left = [loop for loop in chains[edge.source.key] if id(loop) not in holding[target.key]]
            feeds.append((edge.source, target, left))
    waits: dict[str, set[str]] = defaultdict(set)
    following: dict[str, list[str]] = defaultdict(list)
    for source, target, left in feeds:
        before = {source.key} | {m.key for loop in left for m in loop.members}
        for key in before - waits[target.key] - {target.key}:
            waits[target.key].add(key)
            following[key].append(target.key)
    level = {n.key: weight(n) for n in nodes}
    length: dict[int, int] = {}

    def loop_length(loop: Loop) -> int:
        if id(loop) not in length:
            entry_level = level[loop.entry.key]
            longest = max((within(b, loop) - entry_level + 1 for b in back_sources[id(loop)]), default=1)
            length[id(loop)] = max(longest, 1)
        return length[id(loop)]

    def amplification(loops: list[Loop] | tuple[Loop, ...]) -> int:
        return sum(((loop.entry.max_loop_iterations or 1) - 1) * loop_length(loop) for loop in loops)

    def within(node: NodeInfo, loop: Loop) -> int:
        """`node`'s deepest level inside one iteration of `loop` (the loops inside it unrolled)."""
        chain = chains[node.key]
        position = next((i for i, each in enumerate(chain) if each is loop), None)
        inner = chain[position + 1:] if position is not None else ()
        return level[node.key] + amplification(inner)

    incoming: dict[str, list[tuple[NodeInfo, list[Loop]]]] = defaultdict(list)
    for source, target, left in feeds:
        incoming[target.key].append((source, left))
    remaining = {n.key: len(waits[n.key]) for n in nodes}
    ready = [n.key for n in nodes if remaining[n.key] == 0]
    while ready:
        key = ready.pop()
        node = by_key[key]
        for source, left in incoming[key]:
            level[key] = max(level[key], level[source.key] + amplification(left) + weight(node))
        for after in following[key]:
            remaining[after] -= 1
            if remaining[after] == 0:
                ready.append(after)
    best = UnrolledDepth(0, None, False)
    for node in nodes:
        deepest = level[node.key] + amplification(chains[node.key])
        if deepest > best.depth:
            best = UnrolledDepth(deepest, node, False)
    for loop in graph.loops:
        for source in back_sources[id(loop)]:
            stage = level[source.key] + amplification(chains[source.key]) + 1
            if stage > best.depth:
                best = UnrolledDepth(stage, source, True)
    # the helpers call one another through their closure cells, a reference cycle: unbound, reference
    # counting frees them
    loop_length = amplification = within = None  # type: ignore[assignment]  # noqa: F811
    return best
