"""Places and handles: what the SPIR-V back end binds IR variables and expressions to (SPIR-V back end).

Input: none (data types only). Output: the frozen values `lower.FunctionLowering` and the node
targets (`amdx.py`, `emulated.py`) pass around: a `Place` is memory (a pointer with its layout and
pending access-chain indices), the handles stand for node objects and resources, which are never
values in SPIR-V.

Also the predicates that say what is bound to a handle rather than held in a place
(`is_object`, `is_ray_query`, `takes_objects`, `fresh_ray_query`).

Invariants: immutable; no behaviour beyond construction; no import of the rest of the back end
(every module of it may import this one).
"""

from __future__ import annotations


from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.irtools.layout import TypeLayout
from wgc.sema.nodes import NodeOutput

MEMORY = TypeLayout(size=4, alignment=4)
"""The layout marker of a scalar or vector in laid-out memory (only its presence matters)."""


@dataclass(frozen=True)
class Place:
    """A memory location: a pointer (plus access-chain indices not yet emitted)."""

    pointer: int
    type: t.Type
    storage: str
    layout: TypeLayout | None = None
    indices: tuple[int, ...] = ()
    coherent: bool = False
    as_array: t.ArrayType | None = None
    """An SV_DispatchGrid array stored as a vector (`types.dispatch_grid_vector`): `type` is the
    vector, values are this array type."""
    stage_bool: bool = False
    """A `bool` stage input or output (not a built-in): `type` is the bool type the code sees, the
    variable holds `uint` of the same shape (`stage_uint_type`), converted at every load and store,
    as DXC stores them (SPIR-V has no bool Input/Output variables)."""

    def step(self, type_: t.Type, layout: TypeLayout | None, index: int,
             as_array: t.ArrayType | None = None) -> Place:
        """The place one access-chain index (`index`, an <id>) further in: of `type_`, laid out by
        `layout`; the rest as here. What `dataclasses.replace` made, built directly (the lowering
        steps into every field and element it reaches, and `replace` reads the fields each time)."""
        return Place(self.pointer, type_, self.storage, layout, self.indices + (index,), self.coherent, as_array,
                     self.stage_bool)


def stage_uint_type(type_: t.Type) -> t.Type:
    """The `uint` type of the same shape as a bool scalar, vector or array of them."""
    if isinstance(type_, t.ArrayType):
        return t.array(stage_uint_type(type_.element), type_.length)
    return t.with_element(type_, t.UINT)


def is_bool_value(type_: t.Type) -> bool:
    """A bool scalar or vector, or an array of them."""
    while isinstance(type_, t.ArrayType):
        type_ = type_.element
    scalar = t.element_scalar(type_)
    return scalar is not None and scalar.kind is t.ScalarKind.BOOL and not isinstance(type_, t.MatrixType)


@dataclass(frozen=True)
class SplitPlace:
    """A struct (or array of structs) held in one variable per field: graphics stage outputs
    (`stageio.py`: a mesh shader's `out vertices` / `out primitives`). `fields[i]` is field i's
    location, with the indices applied so far (an element of the array indexes every field)."""

    type: t.Type
    fields: tuple[Place | SplitPlace, ...]


@dataclass(frozen=True)
class ImagePlace:
    """A texel of a typed buffer or texture (`tex[uint2(x, y)]`): read with OpImageFetch/Read,
    written with OpImageWrite (`resources.py`)."""

    handle: ResourceHandle
    coordinate: int
    type: t.Type
    slice: int | None = None
    """The mip level (`.mips[l][pos]`) or sample (`.sample[s][pos]`, and every access to a
    multisampled texture); None: level or sample 0."""
    coordinate_type: t.Type | None = None
    """The coordinate's type where it may be signed (`wgc run --check` compares it); None: unsigned."""


@dataclass(frozen=True)
class SwizzlePlace:
    """Components of a vector in memory (`v.zx = ...`); `components` index the vector."""

    vector: Place | ImagePlace
    """A Place, or a texel."""
    components: tuple[int, ...]
    type: t.Type


@dataclass(frozen=True)
class InputHandle:
    """A node input object. AMDX: `variable` is its NodePayloadAMDX variable; emulated: 0 (the
    records are found through the node context)."""

    variable: int
    record: t.Type | None
    layout: TypeLayout | None
    coherent: bool = False
    """`globallycoherent` (the emulated target makes its accesses device-coherent)."""


@dataclass(frozen=True)
class OutputHandle:
    """A node output (or one element of an output array) and its node index."""

    output: NodeOutput
    array_type: int
    """AMDX: its OpTypeNodePayloadArrayAMDX; emulated: the output's position among the node's
    outputs (`NodeOutput.index`)."""
    node_index: int | None = None
    """The subscript of an output array element (an id); None for index 0."""


@dataclass(frozen=True)
class RecordsHandle:
    """Output records. AMDX: `pointer` is the pointer OpAllocateNodePayloadsAMDX returned;
    emulated: the u64 address of the first record, and `stride` the u64 bytes between records."""

    pointer: int
    record: t.Type | None
    layout: TypeLayout | None
    stride: int | None = None


@dataclass(frozen=True)
class ResourceHandle:
    """A resource: its variable (and indices into a resource array); `info` is resources.py's."""

    variable: int
    type: t.ResourceType
    storage: str
    pointee: int
    layout: TypeLayout | None = None
    indices: tuple[int, ...] = ()
    coherent: bool = False
    """`globallycoherent`: accesses are device-coherent."""


@dataclass(frozen=True)
class NullHandle:
    """A node object that holds nothing: a local declared without an initializer (HLSL node objects
    start null), or an `out` node-object parameter before the callee binds it. Using it is undefined
    behaviour (sema warns where it can prove it, WG0452); it lowers to what has no effect: records read
    from a scratch Function variable, writes go there, OutputComplete and output counts do nothing,
    Count() is 0 and IsValid()/FinishedCrossGroupSharing() are false."""


NULL_HANDLE = NullHandle()

Handle = InputHandle | OutputHandle | RecordsHandle | ResourceHandle | NullHandle


def is_object(type_: t.Type) -> bool:
    return isinstance(type_, (t.NodeObjectType, t.ResourceType)) or (
        isinstance(type_, t.ArrayType) and is_object(type_.element))


def is_ray_query(type_: t.Type) -> bool:
    return isinstance(type_, t.RayQueryType) or (isinstance(type_, t.ArrayType) and is_ray_query(type_.element))


def fresh_ray_query(expr: ir.Expr) -> bool:
    """`RayQuery<F>()`: DXC does not initialise a variable with it (no OpStore)."""
    return isinstance(expr, ir.Construct) and isinstance(expr.type, t.RayQueryType)


def takes_objects(function: ir.Function) -> bool:
    return any(is_object(p.type) or is_ray_query(p.type) for p in function.params) or \
        is_object(function.return_type) or is_ray_query(function.return_type)
