"""DXIL-style node metadata view of the inspect model: `wgc inspect --format dxil`.

Stage:      output view (runs after the inspect model is built; reads nothing else).
Input:      the inspect model (`metadata.schema.InspectModel`; its JSON is docs/reference.md's "The JSON
            model") and the compile's proposal opt-ins (`driver.PROPOSALS`).
Output:     `render_dxil(model, proposals) -> str`, LLVM IR text holding the metadata DXC would
            emit for the module, no code, printed as llvm-dis prints DXC's output
            (`metadata.llvm_text`: bare names where LLVM prints them bare, a parent's number
            before its children's), so that DXC's own FileCheck lines for node metadata match it:

              declare void @Generate()                     ; one per entry, so entries can name it
                                                           ; (named by the node's key: f, f.2 for overloads)
              @Out = external constant %"class.RWStructuredBuffer<uint>"   ; one per resource
              !llvm.ident = !{!{!"wgc 0.1.0"}}
              !dx.version = !{!{i32 1, i32 9}}             ; from the profile: lib_6_9 -> 1.9
              !dx.shaderModel = !{!{!"lib", i32 6, i32 9}}
              !dx.resources = !{!{!SRVs, !UAVs, !CBuffers, !Samplers}}  ; null for an empty list
              !dx.entryPoints = !{!{null, !"", null, !resources, null},   ; the library itself
                                  !{void ()* @Generate, !"Generate", null, null, !props}, ...}
              !wgc.spirv.entryPoints = !{!{void ()* @Generate, !"Generate"}, ...}  ; the
                                                       ; OpEntryPoint name in wgc's SPIR-V (NodeID name)
              !wgc.experimental.tags = !{!{!"NodeMaxLoopIterations", i32 131072}, ...}  ; loops opt-in

            A library's entries (nodes and other stages alike) follow it sorted by function name,
            as DXC's DxilModule::EmitDxilMetadata sorts them. Any other target (`-T cs_6_8`) is
            DXC's non-library module: `!dx.entryPoints` holds the one entry, the -E function,
            with the resources as its fourth operand and properties without ShaderKind.

            Entry properties follow DXC's `EmitDxilEntryProperties`/`EmitDxilNodeState`
            (dxc.md §4.1): ShaderKind 8 = 15; NodeLaunchType 13 (1 broadcasting,
            2 coalescing, 3 thread, 4 mesh); WaveSize (if written: tag 23 `!{min, max,
            preferred}` from SM 6.8, tag 11 `!{min}` below, 0 for what is not written);
            NodeIsProgramEntry 14 = i1 true, only when [NodeIsProgramEntry] is written (as DXC);
            NodeID 15 = !{!"name", i32 i} (always); NodeLocalRootArgumentsTableIndex 16 (always,
            -1 by default); NodeShareInputOf 17 (if set); NodeDispatchGrid 18 (if nonzero);
            NodeMaxDispatchGrid 22 (if set); NodeMaxRecursionDepth 19 (if nonzero);
            NodeInputs 20 (if an input is declared); NodeOutputs 21 (if any);
            NumThreads 4 (always).  Then, for mesh nodes only, the tags of DXC's mesh-nodes
            preview (v1.8.2405-mesh-nodes-preview): MeshOutputTopology 65536 (i32: 1 line,
            2 triangle), MeshMaxVertexCount 65537, MeshMaxPrimitiveCount 65538 (the preview's
            source spells it 655368, a typo), and MaxInputRecordsPerGraphEntryRecord 65539
            `!{i32 count, i1 sharedAcrossNodeArray}` when written.  Then, for loop entries
            with the loops opt-in only, the experimental tags.  Last, AutoBindingSpace
            5 `!{i32 0}`: DXC passes space 0 for every library entry (none on the library's
            own entry, none outside a library).  The library's other shaders: ShaderKind 8
            (pixel 0, compute 5, mesh 13, amplification 14; in a library only), then compute
            NumThreads 4 and WaveSize; mesh MSState 9 `!{!{x, y, z}, i32 maxVertices, i32
            maxPrimitives, i32 topology, i32 payload bytes}`; amplification ASState 10
            `!{!{x, y, z}, i32 payload bytes}` (payload bytes: scalar layout).

            Node I/O tuples (dxc.md §4.2): inputs `1 flags, 2 record type (if size > 0),
            3 MaxRecords (if nonzero)`; outputs `1 flags, 2 record type (if size > 0),
            3 MaxRecords (always; 0 when shared, and 0 without [MaxRecords], as DXC, with a
            comment naming the spec's rule and wgc's value 1), 5 OutputArraySize (arrays;
            0xFFFFFFFF is printed as i32 -1), 4 MaxRecordsSharedWith (the owner's output index),
            6 AllowSparseNodes (i1 true), 0 OutputID !{!"target", i32 i},
            7 MaxRecordsPerNode (arrays, with -fmax-records-per-node above lib_6_8 only:
            proposal 0025 / DXC PR #7177, in no released DXC)`.
            Record type: `!{i32 0, i32 size, [i32 1, !{i32 offset, i32 componentType
            (U32 = 5, U16 = 3), i32 count},] i32 2, i32 alignment}`.
            NodeIOFlags: Input 0x1, Output 0x2, ReadWrite 0x4, EmptyRecord 0x8,
            NodeArray 0x10, granularity Thread 0x20 / Group 0x40 / Dispatch 0x60,
            TrackRWInputSharing 0x100, GloballyCoherent 0x200 (NodeOutputArray = 0x16).

            Resources (DxilMetadataHelper's fields; every resource, uniform and push-constant
            block the program declares, in source order per list, IDs counted per list; the
            register class sorts them: t SRV, u UAV, b CBuffer, s Sampler):
              common   `i32 ID, T* @global, !"name", i32 space, i32 lower bound, i32 range size`
                       (a register as written; none: space and lower bound -1, unbound, as DXC
                       leaves them in a library; range: the array's element count, -1 unsized);
              SRV      `+ i32 kind, i32 sample count 0, !extra`;
              UAV      `+ i32 kind, i1 globallycoherent, i1 counter used, i1 false (ROV), !extra`;
              CBuffer  `+ i32 size in bytes, null`;  Sampler `+ i32 sampler kind (1: comparison), null`.
            kind is DXIL::ResourceKind (Texture2D 2, TypedBuffer 10, RawBuffer 11,
            StructuredBuffer 12, CBuffer 13, TBuffer 15, RTAccelerationStructure 16, ...); !extra
            is `!{i32 0, i32 componentType}` for typed buffers and textures, `!{i32 1, i32 stride}`
            for structured buffers, else null.  The global's type is an opaque
            `%"class.Kind<T>"` (wgc's spelling of T, not clang's), `%name` for a cbuffer or
            tbuffer.  `[[vk::push_constant]]` blocks are CBuffers (DXIL has no push constants);
            specialization constants are not listed.

            Experimental tags (the Work Graph Loops proposal, hlsl-specs PR #770, leaves
            their DXIL encoding "i32 TBD"; wgc picks numbers far above DXC's entry-property
            tags and away from the mesh-node ones 65536-65538):
              NodeMaxLoopIterations          = 0x20000 = 131072  (i32)
              NodeMaxRecordsPerLoopIteration = 0x20001 = 131073  (i32)
            `!wgc.experimental.tags` maps their names to these numbers (with the opt-in).
            Not emitted (absent from the model): ShaderFlags 0, signatures, RootSignature 12,
            GroupSharedLimit 24, `!dx.valver`, `!dx.typeAnnotations`.
            `parse_dxil(text)` parses (and verifies) the text with llvmlite.binding.
Invariants: deterministic; the text parses with LLVM 14 (`llvm-as`,
            `llvmlite.binding.parse_assembly`) and an `llvm-as | llvm-dis` round trip prints it
            unchanged but for its ModuleID line; ends with a newline; never mutates the model.
            This is the only wgc module importing llvmlite, and it does so lazily (inside
            `parse_dxil`).
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from wgc.metadata.llvm_text import Function, Global, Int, Module, Node, Operand, node
from wgc.metadata.reflection import Resource
from wgc.metadata.schema import (EntryPointModel, GridFieldModel, InputModel, InspectModel, NodeIdModel, NodeModel,
                                 OutputModel)
from wgc.sema.node_attributes import dxil_io_tag, dxil_tag

SHADER_KIND_NODE = 15
TAG_NUM_THREADS = dxil_tag("numthreads")
TAG_SHADER_KIND = dxil_tag("shader")
TAG_NODE_LAUNCH_TYPE = dxil_tag("nodelaunch")
TAG_NODE_IS_PROGRAM_ENTRY = dxil_tag("nodeisprogramentry")
TAG_NODE_ID = dxil_tag("nodeid")
TAG_NODE_LOCAL_ROOT_ARGUMENTS_TABLE_INDEX = dxil_tag("nodelocalrootargumentstableindex")
TAG_NODE_SHARE_INPUT_OF = dxil_tag("nodeshareinputof")
TAG_NODE_DISPATCH_GRID = dxil_tag("nodedispatchgrid")
TAG_NODE_MAX_RECURSION_DEPTH = dxil_tag("nodemaxrecursiondepth")
TAG_NODE_INPUTS = 20
TAG_NODE_OUTPUTS = 21
TAG_NODE_MAX_DISPATCH_GRID = dxil_tag("nodemaxdispatchgrid")
TAG_NODE_MESH_OUTPUT_TOPOLOGY = dxil_tag("outputtopology")   # experimental (DXC's mesh-nodes preview)
TAG_NODE_MESH_MAX_VERTEX_COUNT = 65537
TAG_NODE_MESH_MAX_PRIMITIVE_COUNT = 65538
TAG_NODE_MAX_INPUT_RECORDS_PER_GRAPH_ENTRY_RECORD = dxil_tag("nodemaxinputrecordspergraphentryrecord")
MESH_OUTPUT_TOPOLOGIES = {"line": 1, "triangle": 2}   # DXIL::MeshOutputTopology
TAG_MS_STATE = 9                                # !{!{x, y, z}, maxVertices, maxPrimitives, topology, payload bytes}
TAG_AS_STATE = 10                               # !{!{x, y, z}, payload bytes}
SHADER_KINDS = {"pixel": 0, "compute": 5, "mesh": 13, "amplification": 14}   # DXIL::ShaderKind
TAG_WAVE_SIZE, TAG_RANGED_WAVE_SIZE = 11, 23     # [WaveSize]: !{min} below SM 6.8, !{min, max, preferred} from it
TAG_AUTO_BINDING_SPACE = 5
TAG_NODE_MAX_LOOP_ITERATIONS = dxil_tag("nodemaxloopiterations")          # experimental (wgc)
TAG_NODE_MAX_RECORDS_PER_LOOP_ITERATION = dxil_tag("nodemaxrecordsperloopiteration")  # experimental (wgc)
EXPERIMENTAL_TAGS = (("NodeMaxLoopIterations", TAG_NODE_MAX_LOOP_ITERATIONS),
                     ("NodeMaxRecordsPerLoopIteration", TAG_NODE_MAX_RECORDS_PER_LOOP_ITERATION))

IO_FLAGS, IO_RECORD_TYPE = 1, 2
IO_OUTPUT_ID, IO_MAX_RECORDS = dxil_io_tag("nodeid"), dxil_io_tag("maxrecords")
IO_MAX_RECORDS_SHARED_WITH, IO_OUTPUT_ARRAY_SIZE = dxil_io_tag("maxrecordssharedwith"), dxil_io_tag("nodearraysize")
IO_ALLOW_SPARSE_NODES, IO_MAX_RECORDS_PER_NODE = dxil_io_tag("allowsparsenodes"), dxil_io_tag("maxrecordspernode")
RECORD_SIZE, RECORD_SV_DISPATCH_GRID, RECORD_ALIGNMENT = 0, 1, 2
COMPONENT_U16, COMPONENT_U32 = 3, 5

LAUNCH_TYPES = {"broadcasting": 1, "coalescing": 2, "thread": 3, "mesh": 4}

IO_INPUT, IO_OUTPUT, IO_READ_WRITE, IO_EMPTY_RECORD, IO_NODE_ARRAY = 0x1, 0x2, 0x4, 0x8, 0x10
IO_THREAD_RECORD, IO_GROUP_RECORD, IO_DISPATCH_RECORD = 0x20, 0x40, 0x60
IO_TRACK_RW_INPUT_SHARING, IO_GLOBALLY_COHERENT = 0x100, 0x200

_INPUT_KINDS = {"DispatchNodeInputRecord": IO_DISPATCH_RECORD, "GroupNodeInputRecords": IO_GROUP_RECORD,
                "ThreadNodeInputRecord": IO_THREAD_RECORD, "EmptyNodeInput": IO_EMPTY_RECORD}
_OUTPUT_KINDS = {"NodeOutput": IO_READ_WRITE, "NodeOutputArray": IO_READ_WRITE | IO_NODE_ARRAY,
                 "EmptyNodeOutput": IO_EMPTY_RECORD, "EmptyNodeOutputArray": IO_EMPTY_RECORD | IO_NODE_ARRAY}


def input_flags(inp: InputModel) -> int:
    """DXIL::NodeIOFlags of a node input (e.g. DispatchNodeInputRecord = 0x61)."""
    kind = inp.kind
    read_write = kind.startswith("RW")
    base = kind[2:] if read_write else kind
    if base not in _INPUT_KINDS:
        raise ValueError(f"unknown node input kind {kind!r}")
    flags = IO_INPUT | _INPUT_KINDS[base] | (IO_READ_WRITE if read_write else 0)
    if inp.track_rw_input_sharing:
        flags |= IO_TRACK_RW_INPUT_SHARING
    if inp.globally_coherent:
        flags |= IO_GLOBALLY_COHERENT
    return flags


def output_flags(out: OutputModel) -> int:
    """DXIL::NodeIOFlags of a node output (e.g. NodeOutputArray = 0x16: record outputs are ReadWrite)."""
    if out.kind not in _OUTPUT_KINDS:
        raise ValueError(f"unknown node output kind {out.kind!r}")
    flags = IO_OUTPUT | _OUTPUT_KINDS[out.kind]
    if out.track_rw_input_sharing:
        flags |= IO_TRACK_RW_INPUT_SHARING
    return flags


def shader_model(profile: str) -> tuple[str, int, int]:
    """("lib", 6, 9) for "lib_6_9"."""
    match = re.fullmatch(r"([a-z]+)_(\d+)_(\d+)", profile or "")
    if not match:
        raise ValueError(f"unrecognized profile {profile!r}")
    return match.group(1), int(match.group(2)), int(match.group(3))


def _i32(value: int) -> Int:
    return Int(32, int(value))


def _flag(value: Any) -> Int:
    return Int(1, int(bool(value)))


def _ints(values: list[int] | tuple[int, ...]) -> Node:
    return Node(tuple(_i32(v) for v in values))


def _node_id(node_id: NodeIdModel) -> Node:
    return node(str(node_id.name), _i32(node_id.index or 0))


def _record_type(size: int, alignment: int | None, grid: GridFieldModel | None) -> Node:
    ops: list[Operand] = [_i32(RECORD_SIZE), _i32(size)]
    if grid:
        component = COMPONENT_U16 if grid.bits == 16 else COMPONENT_U32
        ops += [_i32(RECORD_SV_DISPATCH_GRID), _ints([grid.offset, component, grid.components])]
    ops += [_i32(RECORD_ALIGNMENT), _i32(alignment or 0)]
    return Node(tuple(ops))


def _input_state(inp: InputModel) -> Node:
    ops: list[Operand] = [_i32(IO_FLAGS), _i32(input_flags(inp))]
    if inp.record_size:
        ops += [_i32(IO_RECORD_TYPE), _record_type(inp.record_size, inp.record_alignment, inp.dispatch_grid_field)]
    if inp.max_records_written and inp.max_records:
        ops += [_i32(IO_MAX_RECORDS), _i32(inp.max_records)]
    return Node(tuple(ops))


class _Builder:
    """The metadata of one view: its nodes, the comments on some of them, the opt-ins in force."""

    def __init__(self, module: Module, kind: str, major: int, minor: int, proposals: tuple[str, ...]) -> None:
        self.module = module
        self.library = kind == "lib"
        self.sm68 = (major, minor) >= (6, 8)
        beyond_1_0 = (major, minor) > (6, 8)    # the proposals apply above Work Graphs 1.0 only
        self.max_records_per_node = beyond_1_0 and "max-records-per-node" in proposals
        self.loops = beyond_1_0 and "work-graph-loops" in proposals

    def output_state(self, out: OutputModel) -> Node:
        ops: list[Operand] = [_i32(IO_FLAGS), _i32(output_flags(out))]
        if out.record_size:
            ops += [_i32(IO_RECORD_TYPE), _record_type(out.record_size, out.record_alignment,
                                                       out.dispatch_grid_field)]
        # DXC writes 0 for an output without [MaxRecords] (and for one sharing another's budget)
        ops += [_i32(IO_MAX_RECORDS), _i32(out.max_records if out.max_records_written and out.max_records else 0)]
        if out.array_size:
            ops += [_i32(IO_OUTPUT_ARRAY_SIZE), _i32(out.array_size)]
        if out.max_records_shared_with_index is not None:
            ops += [_i32(IO_MAX_RECORDS_SHARED_WITH), _i32(out.max_records_shared_with_index)]
        if out.allow_sparse_nodes or out.unbounded_sparse_nodes:
            ops += [_i32(IO_ALLOW_SPARSE_NODES), _flag(True)]
        ops += [_i32(IO_OUTPUT_ID), _node_id(out.target)]
        if self.max_records_per_node and out.max_records_per_node is not None:
            ops += [_i32(IO_MAX_RECORDS_PER_NODE), _i32(out.max_records_per_node)]
        state = Node(tuple(ops))
        if not out.max_records_written:
            self.module.comments[state] = (
                f"output '{out.name}': no [MaxRecords], MaxRecords 0 as DXC writes it; the spec requires "
                f"[MaxRecords] or [MaxRecordsSharedWith] on every output, and wgc takes {out.max_records or 1}")
        return state

    def wave_size(self, wave_size: tuple[int, int, int] | None) -> list[Operand]:
        """WaveSize: tag 23 `!{min, max, preferred}` from SM 6.8, tag 11 `!{min}` below (DXC's
        EmitDxilNodeState / EmitDxilEntryProperties); nothing without the attribute."""
        if wave_size is None:
            return []
        if self.sm68:
            return [_i32(TAG_RANGED_WAVE_SIZE), _ints(wave_size)]
        return [_i32(TAG_WAVE_SIZE), _ints(wave_size[:1])]

    def auto_binding_space(self) -> list[Operand]:
        """AutoBindingSpace 5 `!{i32 0}`: DXC gives every entry of a library space 0 (SM 6.3+)."""
        return [_i32(TAG_AUTO_BINDING_SPACE), _ints([0])] if self.library else []

    def properties(self, node_: NodeModel) -> Node:
        if node_.launch not in LAUNCH_TYPES:
            raise ValueError(f"unknown launch mode {node_.launch!r}")
        ops: list[Operand] = [_i32(TAG_SHADER_KIND), _i32(SHADER_KIND_NODE),
                              _i32(TAG_NODE_LAUNCH_TYPE), _i32(LAUNCH_TYPES[node_.launch])]
        ops += self.wave_size(node_.wave_size)
        if node_.program_entry_explicit:
            ops += [_i32(TAG_NODE_IS_PROGRAM_ENTRY), _flag(True)]
        ops += [_i32(TAG_NODE_ID), _node_id(node_.id)]
        table = node_.local_root_arguments_table_index
        ops += [_i32(TAG_NODE_LOCAL_ROOT_ARGUMENTS_TABLE_INDEX), _i32(-1 if table is None else table)]
        if node_.share_input_of:
            ops += [_i32(TAG_NODE_SHARE_INPUT_OF), _node_id(node_.share_input_of)]
        if node_.dispatch_grid and any(node_.dispatch_grid):
            ops += [_i32(TAG_NODE_DISPATCH_GRID), _ints(node_.dispatch_grid)]
        if node_.max_dispatch_grid and any(node_.max_dispatch_grid):
            ops += [_i32(TAG_NODE_MAX_DISPATCH_GRID), _ints(node_.max_dispatch_grid)]
        if node_.max_recursion_depth:
            ops += [_i32(TAG_NODE_MAX_RECURSION_DEPTH), _i32(node_.max_recursion_depth)]
        if node_.input is not None:
            ops += [_i32(TAG_NODE_INPUTS), node(_input_state(node_.input))]
        if node_.outputs:
            ops += [_i32(TAG_NODE_OUTPUTS), Node(tuple(self.output_state(out) for out in node_.outputs))]
        ops += [_i32(TAG_NUM_THREADS), _ints(node_.num_threads or [1, 1, 1])]
        mesh = node_.mesh
        if mesh:
            topology = MESH_OUTPUT_TOPOLOGIES.get(mesh.output_topology or "", 0)
            ops += [_i32(TAG_NODE_MESH_OUTPUT_TOPOLOGY), _i32(topology),
                    _i32(TAG_NODE_MESH_MAX_VERTEX_COUNT), _i32(mesh.max_vertices),
                    _i32(TAG_NODE_MESH_MAX_PRIMITIVE_COUNT), _i32(mesh.max_primitives)]
            per_entry = mesh.max_input_records_per_graph_entry_record
            if per_entry:
                ops += [_i32(TAG_NODE_MAX_INPUT_RECORDS_PER_GRAPH_ENTRY_RECORD),
                        node(_i32(per_entry.count), _flag(per_entry.shared_across_node_array))]
        loop_entry = node_.loop_entry
        if loop_entry and self.loops:
            ops += [_i32(TAG_NODE_MAX_LOOP_ITERATIONS), _i32(loop_entry.max_iterations or 0),
                    _i32(TAG_NODE_MAX_RECORDS_PER_LOOP_ITERATION),
                    _i32(loop_entry.max_records_per_iteration or 0)]
        return Node(tuple(ops + self.auto_binding_space()))

    def stage_properties(self, entry: EntryPointModel) -> Node | None:
        """A compute, pixel, mesh or amplification shader's properties (DXC's
        EmitDxilEntryProperties): ShaderKind (in a library only), then NumThreads and WaveSize
        (compute), the MS or AS state, then AutoBindingSpace (in a library); None when empty."""
        ops: list[Operand] = [_i32(TAG_SHADER_KIND), _i32(SHADER_KINDS[entry.stage])] if self.library else []
        mesh = entry.mesh
        if entry.stage == "compute":
            ops += [_i32(TAG_NUM_THREADS), _ints(entry.num_threads or [1, 1, 1])]
            ops += self.wave_size(entry.wave_size)
        elif entry.stage == "mesh" and mesh:
            threads = _ints(entry.num_threads or [1, 1, 1])
            ops += [_i32(TAG_MS_STATE), node(threads, _i32(mesh.max_vertices), _i32(mesh.max_primitives),
                                             _i32(MESH_OUTPUT_TOPOLOGIES.get(mesh.output_topology or "", 0)),
                                             _i32(entry.payload_bytes or 0))]
        elif entry.stage == "amplification":
            threads = _ints(entry.num_threads or [1, 1, 1])
            ops += [_i32(TAG_AS_STATE), node(threads, _i32(entry.payload_bytes or 0))]
        ops += self.auto_binding_space()
        return Node(tuple(ops)) if ops else None


DXIL_RESOURCE_KINDS = {
    "Texture1D": 1, "Texture2D": 2, "Texture3D": 4, "TextureCube": 5, "Texture1DArray": 6, "Texture2DArray": 7,
    "TextureCubeArray": 9, "Buffer": 10, "ByteAddressBuffer": 11, "StructuredBuffer": 12,
    "AppendStructuredBuffer": 12, "ConsumeStructuredBuffer": 12, "cbuffer": 13, "ConstantBuffer": 13,
    "SamplerState": 14, "SamplerComparisonState": 14, "tbuffer": 15, "TextureBuffer": 15,
    "RaytracingAccelerationStructure": 16,
}
"""DXIL::ResourceKind of each HLSL resource kind (the RW forms: their read-only form's)."""
COMPONENT_TYPES = {"i1": 1, "i16": 2, "u16": 3, "i32": 4, "u32": 5, "i64": 6, "u64": 7, "f16": 8, "f32": 9,
                   "f64": 10, "snorm_f16": 11, "unorm_f16": 12, "snorm_f32": 13, "unorm_f32": 14,
                   "snorm_f64": 15, "unorm_f64": 16}
"""DXIL::ComponentType of the model's `element_component`."""
RESOURCE_CLASSES = ("t", "u", "b", "s")
"""The order of `!dx.resources`' lists: SRVs, UAVs, CBuffers, Samplers."""
EXTRA_ELEMENT_TYPE, EXTRA_STRUCTURED_STRIDE = 0, 1
UNBOUND = 0xFFFFFFFF


def _resource_kind(resource: Resource) -> int:
    kind = str(resource.kind)
    base = kind[2:] if kind.startswith("RW") else kind
    if base not in DXIL_RESOURCE_KINDS:
        raise ValueError(f"unknown resource kind {kind!r}")
    return DXIL_RESOURCE_KINDS[base]


class _Resources:
    """`!dx.resources`: one list per register class, in model (source) order; IDs count per class."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.taken: set[str] = set()

    def variable(self, resource: Resource) -> Global:
        """`@name = external constant %"class.Kind<T>"` (an array of them for an array of resources;
        `%name` for a cbuffer or tbuffer), the resource's global as in a DXC library."""
        kind = str(resource.kind)
        if kind in ("cbuffer", "tbuffer"):
            type_name = str(resource.name)
        else:
            element = resource.element_type or (resource.layout.type if resource.layout else None)
            type_name = f"class.{kind}<{element}>" if element else f"class.{kind}"
        name = str(resource.name)
        while name in self.taken:
            name += ".res"
        self.taken.add(name)
        variable = Global(name, type_name, tuple(resource.array_dims))
        self.module.add_global(variable)
        return variable

    def entry(self, resource: Resource, ident: int) -> Node:
        register = resource.register
        count: int = 1 if resource.push_constant else resource.descriptor_count
        space, lower = (register.space, register.number) if register else (UNBOUND, UNBOUND)
        ops: list[Operand] = [_i32(ident), self.variable(resource), str(resource.name), _i32(space), _i32(lower),
                              _i32(UNBOUND if count == 0 else count)]
        register_class = resource.register_class
        layout = resource.layout
        if register_class == "b":
            return Node(tuple(ops + [_i32(layout.size if layout else 0), None]))
        if register_class == "s":
            return Node(tuple(ops + [_i32(1 if resource.kind == "SamplerComparisonState" else 0), None]))
        ops.append(_i32(_resource_kind(resource)))
        if register_class == "t":
            ops.append(_i32(0))                                   # sample count
        else:
            counter = resource.counter
            ops += [_flag(resource.globally_coherent), _flag(bool(counter and counter.used_by)), _flag(False)]
        extra: Node | None = None
        if resource.element_component in COMPONENT_TYPES:
            extra = _ints([EXTRA_ELEMENT_TYPE, COMPONENT_TYPES[resource.element_component]])
        elif layout is not None and layout.stride is not None:
            extra = _ints([EXTRA_STRUCTURED_STRIDE, layout.stride])
        return Node(tuple(ops + [extra]))

    def table(self, resources: list[Resource]) -> Node | None:
        """The `!{SRVs, UAVs, CBuffers, Samplers}` tuple, or None when there are no resources."""
        lists: list[Operand] = []
        for register_class in RESOURCE_CLASSES:
            members = [r for r in resources if r.register_class == register_class]
            lists.append(Node(tuple(self.entry(r, i) for i, r in enumerate(members))) if members else None)
        return Node(tuple(lists)) if any(lists) else None


DXIL_DATA_LAYOUT = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
"""The data layout of every DXIL module (DXC's `hlsl::DXIL::kNewLayoutString`)."""


def _unique_names(names: list[str]) -> list[str]:
    taken: set[str] = set()
    unique = []
    for name in names:
        while name in taken:  # never in a valid model; keep the view total anyway
            name += ".dup"
        taken.add(name)
        unique.append(name)
    return unique


def render_dxil(model: InspectModel, proposals: tuple[str, ...] = ()) -> str:
    """Render the inspect model as LLVM IR text with DXC-style node metadata, as llvm-dis prints
    DXC's output. `proposals`: the opt-ins of the compile (`driver.PROPOSALS`); a proposal's tags
    are shown only when it is opted in."""
    kind, major, minor = shader_model(model.profile)
    module = Module(triple="dxil-ms-dx", datalayout=DXIL_DATA_LAYOUT)
    build = _Builder(module, kind, major, minor, proposals)
    names = _unique_names([str(n.key or n.function) for n in model.nodes]   # unique: overloads are f, f.2
                          + [str(e.key) for e in model.entry_points])
    node_names, stage_names = names[:len(model.nodes)], names[len(model.nodes):]
    module.add_named("llvm.ident", node(f"wgc {model.wgc_version}".strip()))
    module.add_named("dx.version", _ints([1, minor]))
    module.add_named("dx.shaderModel", node(kind, _i32(major), _i32(minor)))
    resources = _Resources(module).table(list(model.resources))
    if resources is not None:
        module.add_named("dx.resources", resources)
    entries: list[tuple[str, Node | None, str]] = []   # (function, properties, SPIR-V entry point name)
    if build.library:
        for node_, name in zip(model.nodes, node_names):
            entries.append((name, build.properties(node_), str(node_.entry_point or node_.function)))
    for stage, name in zip(model.entry_points, stage_names):
        entries.append((name, build.stage_properties(stage), str(stage.entry_point)))
    # DXC (DxilModule::EmitDxilMetadata): a library lists itself first, then its entries sorted by
    # function name; any other target is its one entry (the -E function), with the module's resources
    if build.library:
        entries.sort(key=lambda entry: entry[0].encode())
        entry_points = [node(None, "", None, resources, None)]
        entry_points += [node(Function(name), name, None, None, props) for name, props, _ in entries]
    else:
        entries = entries[:1]
        entry_points = [node(Function(name), name, None, resources, props) for name, props, _ in entries]
    module.functions = [name for name, _, _ in entries]
    if entry_points:
        module.add_named("dx.entryPoints", *entry_points)
    if entries:
        module.add_named("wgc.spirv.entryPoints", *(node(Function(name), spirv) for name, _, spirv in entries))
    if build.loops:
        module.add_named("wgc.experimental.tags",
                         *(node(tag_name, _i32(number)) for tag_name, number in EXPERIMENTAL_TAGS))
    return module.render()


def parse_dxil(text: str) -> Any:
    """Parse and verify `render_dxil` output with llvmlite.binding; returns the ModuleRef."""
    from llvmlite import binding as llvm

    with warnings.catch_warnings():  # older llvmlite needs it; newer ones warn or raise
        warnings.simplefilter("ignore")
        try:
            llvm.initialize()
        except RuntimeError:
            pass
    module = llvm.parse_assembly(text)
    module.verify()
    return module
