"""Semantic analysis, the table of work-graph attributes: one row per attribute a node shader, its
input, outputs or records may carry, and the attributes of every shader entry that node rules read.

Input: nothing (data).  Output: `ATTRIBUTES` (lower-cased name -> `NodeAttribute`) and the views of
it that the stages read:
- the written-attribute checks (`attributes.py`): the spelling of each name (WG0343's suggestions),
  which repeat is only warned about (`LAST_ONE_WINS`, WG0342), and where each may be written at
  all (a row's `places` against the declaration that carries it, WG0346);
- folding the arguments (`stmt.py`): which take a specialization constant and how
  (`SPEC_OPERAND_ATTRIBUTES`, `SPEC_DEFAULT_ATTRIBUTES`), which name a parameter
  (`NAME_ARGUMENT_ATTRIBUTES`);
- the node rules (`nodes.py`): where each may appear (`FUNCTION_ATTRIBUTES`,
  `NODE_ONLY_FUNCTION_ATTRIBUTES`, `OUTPUT_ATTRIBUTES`, a row's `places` and `launches`), its arity
  and the range of its integer arguments per profile and proposal (`NodeAttribute.bounds`), the
  proposal it needs (`NodeAttribute.available`) and the code a bad value gets;
- the views (`metadata/`): the DXIL metadata tag of each (`dxil_tag`, `dxil_io_tag`), and where the
  inspect model shows its value (`shown`).
`fills` names the field of `nodes.NodeInfo`, `NodeInput`, `NodeOutput` or `mesh.MeshInfo` the
attribute's value lands in (tests check that it exists and that the inspect model shows it).

Places: "node" a node shader's function (node-only: elsewhere WG0442/WG0406), "shader" the function
of a shader of any stage, "input" a node input parameter, "output" a node output parameter, "record"
a record struct.  Launches: the node launch modes a function (or input) attribute is allowed with.

Invariants: pure data; imports nothing of wgc but `cached_dataclass` (`range_code` names a `codes`
kind, looked up by the checker); names are unique lower-cased.  Adding an attribute: a row here, its
rule where its place is checked (`nodes.py` for one node, `graph.py` for the graph), its tests.
"""

from __future__ import annotations

from typing import Any

from wgc.cached_dataclass import dataclass

LAUNCHES = ("broadcasting", "coalescing", "thread", "mesh")
INT32_MAX = 2**31 - 1
UNBOUNDED = 0xFFFFFFFF
MAX_COUNT_24 = 2**24 - 2


@dataclass(frozen=True)
class NodeAttribute:
    name: str
    """The usual spelling (HLSL matches names case-insensitively)."""
    places: frozenset[str]
    launches: tuple[str, ...] = LAUNCHES
    """The launch modes that allow it (function and input attributes)."""
    arity: tuple[int, ...] = (1,)
    """The numbers of arguments it takes (integer attributes: checked by `nodes.NodeChecker._values`)."""
    low: int = 0
    high: int = INT32_MAX
    ranges: tuple[tuple[str, int, int], ...] = ()
    """(condition, low, high) replacing the range when the condition holds: a place ("input"), a
    proposal ("loops", "max-records-per-node") or a profile ("lib_6_9"); the last that holds wins."""
    what: str = ""
    """The noun of its integer arguments in range messages ("thread count")."""
    range_code: str = "ATTRIBUTE_OUT_OF_RANGE"
    """The `codes` name of a bad argument."""
    proposal: str | None = None
    """The opt-in proposal it belongs to: "loops" (-fwork-graph-loops, lib_6_9) or
    "max-records-per-node" (-fmax-records-per-node, which makes it required on output arrays)."""
    profile: str = "lib_6_8"
    """The least profile that has it (mesh-node attributes: lib_6_9)."""
    spec: str | None = None
    """A specialization constant as argument: "operand" (kept as a SPIR-V AMDX <id> operand),
    "default" (taken at its default, WG0395), None (not foldable as one)."""
    names_parameter: bool = False
    """Its argument names a parameter (`[MaxRecordsSharedWith(Output)]`), not a constant."""
    last_one_wins: bool = False
    """Repeated with other values: dxc's warning WG0342, the one written last is used (else WG0341)."""
    fills: str | None = None
    """`Class.field` of the node description its value fills."""
    dxil_tag: int | None = None
    """Its entry-property tag in DXIL node metadata (DXC's DxilMetadataHelper.h; 0x2xxxx: wgc's own)."""
    dxil_io_tag: int | None = None
    """Its node-IO tag in DXIL node metadata (outputs and inputs)."""
    shown: str | None = None
    """Where the inspect model (`metadata/model.py`, which the text, DOT and DXIL views render) shows
    its value: a dotted key path in a node's entry, "outputs.x" in each output's."""

    @property
    def key(self) -> str:
        return self.name.lower()

    def bounds(self, options: Any = None, place: str = "") -> tuple[int, int]:
        """(low, high) of its integer arguments at `place` under `options` (`SemaOptions`)."""
        low, high = self.low, self.high
        for condition, condition_low, condition_high in self.ranges:
            if condition == place or _holds(condition, options):
                low, high = condition_low, condition_high
        return low, high

    def available(self, options: Any) -> bool:
        """Whether the proposal it belongs to applies under `options` (always, without one)."""
        return self.proposal is None or _holds(self.proposal, options)


def _holds(condition: str, options: Any) -> bool:
    if options is None:
        return False
    if condition == "loops":
        return bool(options.loops)
    if condition == "max-records-per-node":
        return bool(options.requires_max_records_per_node)
    return condition == options.profile


_NODE = frozenset({"node"})
_SHADER = frozenset({"shader"})
_OUTPUT = frozenset({"output"})

TABLE = (
    # functions of every shader stage that the node rules read
    NodeAttribute("Shader", _SHADER, dxil_tag=8),
    NodeAttribute("NumThreads", _SHADER, arity=(3,), low=1, high=1024, what="thread count", spec="operand",
                  fills="NodeInfo.num_threads", shown="num_threads", dxil_tag=4),
    NodeAttribute("WaveSize", _SHADER, arity=(1, 2, 3), spec="default"),
    NodeAttribute("OutputTopology", _SHADER, launches=("mesh",), profile="lib_6_9",
                  fills="MeshInfo.topology", shown="mesh.output_topology", dxil_tag=65536),
    # node shaders (Work Graphs 1.0)
    NodeAttribute("NodeLaunch", _NODE, fills="NodeInfo.launch", shown="launch", dxil_tag=13),
    NodeAttribute("NodeIsProgramEntry", _NODE, arity=(0,),
                  fills="NodeInfo.program_entry_explicit", shown="program_entry_explicit", dxil_tag=14),
    NodeAttribute("NodeID", frozenset({"node", "output"}), arity=(1, 2), spec="operand",
                  fills="NodeInfo.id", shown="id", dxil_tag=15, dxil_io_tag=0),
    NodeAttribute("NodeLocalRootArgumentsTableIndex", _NODE, low=-1, what="table index", spec="default",
                  fills="NodeInfo.local_root_arguments_table_index", shown="local_root_arguments_table_index",
                  dxil_tag=16),
    NodeAttribute("NodeShareInputOf", _NODE, arity=(1, 2), spec="operand",
                  fills="NodeInfo.share_input_of", shown="share_input_of", dxil_tag=17),
    NodeAttribute("NodeDispatchGrid", _NODE, launches=("broadcasting", "mesh"), arity=(3,), low=1, high=65535,
                  what="grid size", spec="operand", last_one_wins=True,
                  fills="NodeInfo.dispatch_grid", shown="dispatch_grid", dxil_tag=18),
    NodeAttribute("NodeMaxDispatchGrid", _NODE, launches=("broadcasting", "mesh"), arity=(3,), low=1, high=65535,
                  what="grid size", spec="operand", last_one_wins=True,
                  fills="NodeInfo.max_dispatch_grid", shown="max_dispatch_grid", dxil_tag=22),
    NodeAttribute("NodeMaxRecursionDepth", _NODE, high=32, ranges=(("loops", 0, MAX_COUNT_24),), what="depth",
                  spec="operand", fills="NodeInfo.max_recursion_depth", shown="max_recursion_depth", dxil_tag=19),
    # mesh nodes (lib_6_9)
    NodeAttribute("NodeMaxInputRecordsPerGraphEntryRecord", _NODE, launches=("mesh",), arity=(1, 2), low=1,
                  what="record count", profile="lib_6_9", spec="default",
                  fills="NodeInfo.max_input_records_per_graph_entry_record",
                  shown="mesh.max_input_records_per_graph_entry_record", dxil_tag=65539),
    # loop entries (the Work Graph Loops proposal)
    NodeAttribute("NodeMaxLoopIterations", _NODE, low=1, high=MAX_COUNT_24, what="iteration count",
                  range_code="INVALID_LOOP_ENTRY", proposal="loops", profile="lib_6_9", spec="default",
                  fills="NodeInfo.max_loop_iterations", shown="loop_entry.max_iterations", dxil_tag=0x20000),
    NodeAttribute("NodeMaxRecordsPerLoopIteration", _NODE, low=1, high=256, what="record count",
                  range_code="INVALID_LOOP_ENTRY", proposal="loops", profile="lib_6_9", spec="default",
                  fills="NodeInfo.max_records_per_loop_iteration", shown="loop_entry.max_records_per_iteration",
                  dxil_tag=0x20001),
    # inputs and outputs
    NodeAttribute("MaxRecords", frozenset({"input", "output"}), launches=("coalescing",),
                  ranges=(("input", 1, INT32_MAX),), what="record count", spec="operand",
                  fills="NodeOutput.max_records", shown="outputs.max_records", dxil_io_tag=3),
    NodeAttribute("MaxRecordsSharedWith", _OUTPUT, names_parameter=True,
                  fills="NodeOutput.shared_with", shown="outputs.max_records_shared_with", dxil_io_tag=4),
    NodeAttribute("MaxRecordsPerNode", _OUTPUT, what="record count", proposal="max-records-per-node",
                  profile="lib_6_9", spec="default",
                  fills="NodeOutput.max_records_per_node", shown="outputs.max_records_per_node", dxil_io_tag=7),
    NodeAttribute("NodeArraySize", _OUTPUT, low=1, high=UNBOUNDED, what="array size", spec="operand",
                  fills="NodeOutput.array_size", shown="outputs.array_size", dxil_io_tag=5),
    NodeAttribute("AllowSparseNodes", _OUTPUT, arity=(0,),
                  fills="NodeOutput.allow_sparse_nodes", shown="outputs.allow_sparse_nodes", dxil_io_tag=6),
    NodeAttribute("UnboundedSparseNodes", _OUTPUT, arity=(0,),
                  fills="NodeOutput.unbounded_sparse_nodes", shown="outputs.unbounded_sparse_nodes"),
    # records
    NodeAttribute("NodeTrackRWInputSharing", frozenset({"record"}), arity=(0,),
                  fills="NodeInput.track_rw_input_sharing", shown="input.record.track_rw_input_sharing"),
)
ATTRIBUTES: dict[str, NodeAttribute] = {row.key: row for row in TABLE}
"""Lower-cased name -> its row."""


def _keys(test: Any) -> frozenset[str]:
    return frozenset(row.key for row in TABLE if test(row))


FUNCTION_ATTRIBUTES = _keys(lambda row: row.places & {"node", "shader"})
"""Attributes a node shader's function may carry."""
NODE_ONLY_FUNCTION_ATTRIBUTES = _keys(lambda row: "node" in row.places)
"""Function attributes that only a node shader may carry (WG0442 without [Shader], WG0406 on another stage)."""
OUTPUT_ATTRIBUTES = _keys(lambda row: "output" in row.places)
"""Attributes of node output parameters (misplaced anywhere else but `places`)."""
NAME_ARGUMENT_ATTRIBUTES = _keys(lambda row: row.names_parameter)
SPEC_OPERAND_ATTRIBUTES = _keys(lambda row: row.spec == "operand")
SPEC_DEFAULT_ATTRIBUTES = _keys(lambda row: row.spec == "default")
LAST_ONE_WINS = _keys(lambda row: row.last_one_wins)


def dxil_tag(key: str) -> int:
    """The DXIL entry-property tag of attribute `key` (one that has one)."""
    tag = ATTRIBUTES[key].dxil_tag
    assert tag is not None, key
    return tag


def dxil_io_tag(key: str) -> int:
    """The DXIL node-IO tag of attribute `key` (one that has one)."""
    tag = ATTRIBUTES[key].dxil_io_tag
    assert tag is not None, key
    return tag
