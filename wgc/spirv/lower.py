"""Lowering of function bodies from the typed IR to SPIR-V instructions (SPIR-V back end).

Input: checked `ir.Function`s (sema already checked everything: the back end never re-checks),
the node input/output handles `module.py` declared, and a `ModuleLowering` holding the builder.
Output: SPIR-V functions in the builder: each node's entry function and the helpers it calls;
module-scope variables (statics, groupshared, built-ins; resources via `resources.py`) on first use.

Invariants and decisions:
- Values have *logical* types (`TypeLowering.id(type)`); memory with an explicit layout (buffers,
  uniform blocks, node records) is accessed through `Place`s that carry the layout, and loads and
  stores convert between the two representations (bool <-> uint, laid-out aggregates).
- Every local is a Function variable; structured control flow only (OpSelectionMerge,
  OpLoopMerge, OpSwitch); statements after a terminator are not lowered.
- A RayQuery is a Function (local) or Private (static) variable of OpTypeRayQueryKHR, its methods
  lowered by `rayquery.py` on the variable's pointer; a function taking one is inlined with the
  parameter bound to the caller's variable (DXC passes RayQuery parameters by reference);
  `RayQuery<F>()` initialises nothing; a copy is OpLoad + OpStore, as DXC emits it.
- Node objects are never stored: a node input is its NodePayloadAMDX variable, an output is its
  decorated OpTypeNodePayloadArrayAMDX, output records are the pointer OpAllocateNodePayloadsAMDX
  returned, a null object (declared without initializer) is `NullHandle`. Assigning a node object
  (`a = b;`, an `out` node-object argument) rebinds the variable to the other handle at compile time:
  sema (`wgc.sema.target`, WG0453) guarantees every such rebinding happens in the control flow the
  variable was declared in, so the binding at each point is known statically.
- Functions marked `must_inline` (they take node objects or records, or unsized array parameters)
  and functions taking resources are inlined; a `return` inside them leaves a `do {} while (false)`
  wrapper loop (with a flag when it sits inside a loop of the inlined body). An unsized array
  parameter (`float a[]`) is a local of its argument's array type.
- Every global variable an entry point's code reaches is listed in its OpEntryPoint interface.
- Loads and stores take their Memory Operands from `ModuleLowering.memory_access` (the Vulkan
  memory model's NonPrivatePointer and coherent availability/visibility; nothing under GLSL450).
- Only lowers: every rule, including what this target cannot express, is checked by sema
  (`wgc.sema.target` for the target's limits); a broken assumption is an internal error
  (AssertionError), never a user diagnostic and never a bad module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from wgc import ir
from wgc import types as t
from wgc.sema.consteval import Folded, fold, to_scalar
from wgc.sema.graph import GraphInfo
from wgc.sema.layout import TypeLayout
from wgc.sema.nodes import NodeInfo, NodeOutput

from . import grammar
from .builder import VERSION_FOR_ENV, Builder
from .types import TypeLowering, dispatch_grid_vector

NK = t.NodeObjectKind
MEMORY = TypeLayout(size=4, alignment=4)
"""The layout marker of a scalar or vector in laid-out memory (only its presence matters)."""

BUILTINS = {
    "sv_dispatchthreadid": ("GlobalInvocationId", 3),
    "sv_groupid": ("WorkgroupId", 3),
    "sv_groupthreadid": ("LocalInvocationId", 3),
    "sv_groupindex": ("LocalInvocationIndex", 1),
}


@dataclass(frozen=True)
class LowerOptions:
    target_env: str = "vulkan1.3"
    debug_info: bool = False
    """-Zi: OpSource with the file name and text, OpLine per statement."""
    source_name: str = ""
    source_text: str | None = None
    names: bool = True


# ---------------------------------------------------------------- places and handles


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


@dataclass(frozen=True)
class SwizzlePlace:
    """Components of a vector in memory (`v.zx = ...`); `components` index the vector."""

    vector: Place | object
    """A Place, or a texel (`resources.ImagePlace`)."""
    components: tuple[int, ...]
    type: t.Type


@dataclass(frozen=True)
class InputHandle:
    """A node input object: its NodePayloadAMDX variable."""

    variable: int
    record: t.Type | None
    layout: TypeLayout | None


@dataclass(frozen=True)
class OutputHandle:
    """A node output (or one element of an output array): its payload-array type and node index."""

    output: NodeOutput
    array_type: int
    node_index: int | None = None
    """The subscript of an output array element (an id); None for index 0."""


@dataclass(frozen=True)
class RecordsHandle:
    """Output records: the pointer OpAllocateNodePayloadsAMDX returned."""

    pointer: int
    record: t.Type | None
    layout: TypeLayout | None


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


@dataclass
class _Breakable:
    merge: int
    continue_target: int | None          # None for a switch
    frame: _InlineFrame | None
    returns_inside: bool = False


@dataclass
class _InlineFrame:
    function: ir.Function
    return_place: Place | None
    exit: int | None                      # the wrapper loop's merge block
    flag: Place | None
    depth: int                            # len(breakables) at the wrapper
    result: object = None                 # a node-object handle returned by the function


# ---------------------------------------------------------------- the module


class ModuleLowering:
    """Owns the builder and everything shared by the functions of one module."""

    def __init__(self, module: ir.Module, graph: GraphInfo, options: LowerOptions) -> None:
        self.module = module
        self.graph = graph
        self.options = options
        self.b = Builder(VERSION_FOR_ENV[options.target_env], names=options.names)
        self.types = TypeLowering(self.b)
        self.b.capability("Shader", "ShaderEnqueueAMDX")
        self.b.extension("SPV_AMDX_shader_enqueue")
        self.vulkan_memory_model = False
        self.globals: dict[ir.Variable, object] = {}
        self.builtins: dict[str, int] = {}
        self.functions: dict[ir.Function, int] = {}
        self.function_globals: dict[int, set[int]] = {}
        self.function_calls: dict[int, set[int]] = {}
        self.pending: list[ir.Function] = []
        self.file_strings: dict[str, int] = {}
        self.dynamic_statics: list[ir.Variable] = []
        """Statics whose initialiser is not a constant: each entry point using one runs it."""

    # ------------------------------------------------------------ module-wide helpers

    def uint(self, value: int) -> int:
        return self.b.constant_uint(value)

    def file_string(self, path: str) -> int:
        """The OpString naming a source file (-Zi), created once per file."""
        found = self.file_strings.get(path)
        if found is None:
            found = self.file_strings[path] = self.b.string(path)
        return found

    def scope(self, name: str) -> int:
        """A Scope constant; Device is QueueFamily under the Vulkan memory model (as dxc emits)."""
        if name == "Device" and self.vulkan_memory_model:
            name = "QueueFamily"
        return self.uint(grammar.enumerant("Scope", name))

    def semantics(self, *names: str) -> int:
        return self.uint(grammar.mask("MemorySemantics", *names) if names else 0)

    def barrier_semantics(self, *storage_classes: str) -> int:
        """The semantics of a barrier ordering memory of `storage_classes` (none: Relaxed):
        AcquireRelease, plus MakeAvailable|MakeVisible under the Vulkan memory model, where a
        barrier alone makes no write available or visible."""
        if not storage_classes:
            return self.semantics()
        extra = ("MakeAvailable", "MakeVisible") if self.vulkan_memory_model else ()
        return self.semantics("AcquireRelease", *storage_classes, *extra)

    def memory_access(self, place: Place, *, store: bool) -> tuple:
        """The Memory Operands of an OpLoad/OpStore through `place`. Under the Vulkan memory
        model, storage-buffer and workgroup memory (what barriers order between invocations) is
        NonPrivatePointer, and `globallycoherent` memory is made available (stores) or visible
        (loads) at QueueFamily scope. NodePayloadAMDX memory gets nothing: spirv-val allows
        NonPrivatePointer on Uniform, Workgroup, CrossWorkgroup, Generic, Image and StorageBuffer
        pointers only. GLSL450 modules need no operands (Coherent decorates the variable)."""
        if not self.vulkan_memory_model or place.storage not in ("StorageBuffer", "Workgroup"):
            return ()
        if not place.coherent:
            return ("NonPrivatePointer",)
        return ("MakePointerAvailable|NonPrivatePointer" if store else
                "MakePointerVisible|NonPrivatePointer", self.scope("Device"))

    def texel_access(self, coherent: bool, *, store: bool) -> tuple:
        """The Image Operands of an OpImageRead/OpImageWrite of a storage image: as
        `memory_access`, NonPrivateTexel, plus MakeTexelVisible/Available for `globallycoherent`."""
        if not self.vulkan_memory_model:
            return ()
        if not coherent:
            return ("NonPrivateTexel",)
        return ("MakeTexelAvailable|NonPrivateTexel" if store else "MakeTexelVisible|NonPrivateTexel",
                self.scope("Device"))

    def builtin(self, name: str, type_: t.Type) -> int:
        """The Input variable decorated BuiltIn `name` (created once)."""
        found = self.builtins.get(name)
        if found is None:
            pointer = self.b.type_pointer("Input", self.types.id(type_))
            found = self.builtins[name] = self.b.variable(pointer, "Input")
            self.b.decorate(found, "BuiltIn", name)
            self.b.name(found, f"gl_{name}" if not name.endswith("AMDX") else name)
        return found

    def global_binding(self, variable: ir.Variable) -> object:
        """The Place or handle of a module-scope variable (declared on first use)."""
        found = self.globals.get(variable)
        if found is None:
            found = self.globals[variable] = self._declare_global(variable)
        return found

    def _declare_global(self, variable: ir.Variable) -> object:
        from . import resources
        if variable.storage is ir.Storage.STATIC:
            type_id = self.types.id(variable.type)
            init = self.constant_initializer(variable.init) if variable.init is not None else None
            var = self.b.variable(self.b.type_pointer("Private", type_id), "Private", init)
            self.b.name(var, variable.name)
            return Place(var, variable.type, "Private")
        if variable.storage is ir.Storage.GROUPSHARED:
            type_id = self.types.id(variable.type)
            var = self.b.variable(self.b.type_pointer("Workgroup", type_id), "Workgroup")
            self.b.name(var, variable.name)
            return Place(var, variable.type, "Workgroup")
        if variable.storage is ir.Storage.UNIFORM:
            return resources.declare_block(self, variable)
        if variable.storage is ir.Storage.RESOURCE:
            return resources.declare(self, variable)
        if variable.storage is ir.Storage.SPEC_CONSTANT:
            return self._spec_constant(variable)
        raise AssertionError(f"global '{variable.name}' cannot be lowered")

    def _spec_constant(self, variable: ir.Variable) -> int:
        """OpSpecConstant(True/False) with SpecId: its id is the value every use reads, as in dxc."""
        assert variable.spec_id is not None and variable.spec_default is not None
        type_id = self.types.id(variable.type)
        if variable.type is t.BOOL:
            spec = self.b.global_instruction("OpSpecConstantTrue" if variable.spec_default else "OpSpecConstantFalse",
                                             type_id)
        else:
            scalar = t.element_scalar(variable.type)
            assert scalar is not None
            spec = self.b.global_instruction("OpSpecConstant", type_id, to_scalar(variable.spec_default, scalar))
        assert spec is not None
        self.b.decorate(spec, "SpecId", variable.spec_id)
        self.b.name(spec, variable.name)
        return spec

    def constant_initializer(self, expr: ir.Expr) -> int | None:
        """A constant id for an initialiser made of constants only, else None."""
        if t.is_numeric(expr.type):
            folded = fold(expr)
            return self.constant(expr.type, folded.value) if isinstance(folded, Folded) else None
        if isinstance(expr, ir.Construct) and not _fresh_ray_query(expr):
            parts = [self.constant_initializer(a) for a in expr.args]
            if any(p is None for p in parts):
                return None
            return self._composite_constant(expr.type, parts)
        return None

    def _composite_constant(self, type_: t.Type, parts: list[int]) -> int:
        shape = self.types.shape(type_)
        if isinstance(shape, t.MatrixType):
            row = self.types.id(t.vector(shape.element, shape.columns))
            rows = [self.b.constant_composite(row, parts[i * shape.columns:(i + 1) * shape.columns])
                    for i in range(shape.rows)]
            return self.b.constant_composite(self.types.id(shape), rows)
        if isinstance(shape, t.ScalarType):
            return parts[0]
        return self.b.constant_composite(self.types.id(shape), parts)

    def constant(self, type_: t.Type, value: ir.ConstValue) -> int:
        """A constant of a numeric type (`value` a scalar, or a row-major tuple for vectors/matrices)."""
        shape = self.types.shape(type_)
        scalar = t.element_scalar(shape)
        if scalar is None:
            raise AssertionError(f"no constant of type '{type_}'")
        if isinstance(shape, t.ScalarType):
            if isinstance(value, tuple):
                value = value[0]
            return self._scalar_constant(scalar, value)
        values = value if isinstance(value, tuple) else (value,) * (t.component_count(shape) or 1)
        return self._composite_constant(shape, [self._scalar_constant(scalar, v) for v in values])

    def _scalar_constant(self, scalar: t.ScalarType, value: object) -> int:
        if scalar.kind is t.ScalarKind.BOOL:
            return self.b.constant_bool(bool(value))
        return self.b.constant(self.types.scalar(scalar), to_scalar(value, scalar))

    # ------------------------------------------------------------ functions

    def function_id(self, function: ir.Function) -> int:
        """The id of a called (not inlined) function; its body is emitted after the current one."""
        found = self.functions.get(function)
        if found is None:
            found = self.functions[function] = self.b.new_id()
            self.pending.append(function)
        return found

    def emit_pending(self) -> None:
        while self.pending:
            function = self.pending.pop(0)
            FunctionLowering(self, function).lower_helper(self.functions[function])

    def reached_globals(self, function_id: int) -> list[int]:
        """Global variables used by a function and everything it calls, in first-use order."""
        seen: dict[int, None] = {}
        visited: set[int] = set()
        stack = [function_id]
        while stack:
            current = stack.pop()
            if current in visited:
                continue
            visited.add(current)
            for var in sorted(self.function_globals.get(current, ())):
                seen.setdefault(var)
            stack.extend(sorted(self.function_calls.get(current, ()), reverse=True))
        return list(seen)


# ---------------------------------------------------------------- function bodies


class FunctionLowering:
    """Lowers one SPIR-V function: an entry point or a called helper, with inlined callees."""

    def __init__(self, ml: ModuleLowering, function: ir.Function) -> None:
        self.ml = ml
        self.b = ml.b
        self.types = ml.types
        self.function = function
        self.bindings: dict[ir.Variable, object] = {}
        self.breakables: list[_Breakable] = []
        self.frames: list[_InlineFrame] = []
        self.spirv_function = 0
        self.output_objects: dict[int, int] = {}
        """Payload-array type -> the Function variable standing for that output in IsValid."""

    # ------------------------------------------------------------ entry points and helpers

    def lower_entry(self, node: NodeInfo, input_handle: InputHandle | None,
                    outputs: dict[ir.Variable, OutputHandle], statics: list[tuple[ir.Variable, Place]]) -> int:
        """The entry point's function (its callees are emitted after it); returns its id."""
        self.input_handle, self.outputs = input_handle, outputs
        void = self.b.type_void()
        fn = self.b.begin_function(void, self.b.type_function(void))
        self.spirv_function = fn
        self.b.name(fn, node.key)        # the function name; `f.2` for a second node shader named f
        self.b.label()
        for param in self.function.params:
            self.bindings[param] = self._entry_parameter(node, param)
        for variable, place in statics:
            self.use_global(place.pointer)
            if not _fresh_ray_query(variable.init):
                self.store(place, self.value(variable.init))
        if input_handle is not None:
            self.use_global(input_handle.variable)   # listed even when the body never reads it
        self._finish_body()
        self.ml.emit_pending()
        return fn

    def lower_helper(self, fn: int) -> None:
        function = self.function
        ret = self.types.id(function.return_type)
        param_types = [self._param_type(p) for p in function.params]
        self.b.begin_function(ret, self.b.type_function(ret, param_types), result=fn)
        self.spirv_function = fn
        self.b.name(fn, function.name)
        params = [self.b.parameter(ty) for ty in param_types]
        self.b.label()
        for variable, param_id in zip(function.params, params):
            self.b.name(param_id, variable.name)
            if variable.direction is ir.Direction.IN:
                place = self.local(variable.type, variable.name)
                self.b.emit("OpStore", place.pointer, param_id)
                self.bindings[variable] = place
            else:
                self.bindings[variable] = Place(param_id, variable.type, "Function")
        self._finish_body()

    def _param_type(self, variable: ir.Variable) -> int:
        value = self.types.id(variable.type)
        if variable.direction is ir.Direction.IN:
            return value
        return self.b.type_pointer("Function", value)

    def _finish_body(self) -> None:
        assert self.function.body is not None
        self.block(self.function.body)
        if self.b.in_block:
            if self.function.return_type is t.VOID:
                self.b.emit("OpReturn")
            else:
                self.b.emit("OpUnreachable")
        self.b.end_function()

    def _entry_parameter(self, node: NodeInfo, param: ir.Variable) -> object:
        type_ = param.type
        if isinstance(type_, t.NodeObjectType):
            return self.input_handle if type_.kind.is_input else self.outputs[param]
        place = self.local(type_, param.name)
        self.store(place, self._system_value(param.semantic, type_, param))
        return place

    def _system_value(self, semantic: str | None, type_: t.Type, param: ir.Variable) -> int:
        if semantic is None and isinstance(type_, t.StructType):
            parts = [self._system_value(f.semantic, f.type, param) for f in type_.all_fields()]
            return self.b.emit("OpCompositeConstruct", self.types.id(type_), *parts)
        key = (semantic or "").lower()
        if key not in BUILTINS:
            raise AssertionError(f"parameter '{param.name}' with semantic '{semantic}' "
                                 "has no SPIR-V built-in in a node shader")
        name, count = BUILTINS[key]
        builtin_type = t.UINT if count == 1 else t.vector(t.UINT, count)
        var = self.ml.builtin(name, builtin_type)
        self.use_global(var)
        value = self.b.emit("OpLoad", self.types.id(builtin_type), var)
        return self.convert(value, builtin_type, type_)

    # ------------------------------------------------------------ small helpers

    def use_global(self, var: int) -> None:
        self.ml.function_globals.setdefault(self.spirv_function, set()).add(var)

    def uint(self, value: int) -> int:
        return self.ml.uint(value)

    def local(self, type_: t.Type, name: str | None = None) -> Place:
        var = self.b.local_variable(self.b.type_pointer("Function", self.types.id(type_)))
        if name:
            self.b.name(var, name)
        return Place(var, type_, "Function")

    def new_block(self, label: int) -> None:
        self.b.label(label)

    def branch(self, target: int) -> None:
        if self.b.in_block:
            self.b.emit("OpBranch", target)

    # ------------------------------------------------------------ places

    def pointer(self, place: Place) -> int:
        """The pointer of a place (emitting its access chain)."""
        if isinstance(place.pointer, int) and not place.indices:
            return place.pointer
        pointee = self.types.id(place.type, place.layout)
        pointer_type = self.b.type_pointer(place.storage, pointee)
        chain = self.b.emit("OpAccessChain", pointer_type, place.pointer, *place.indices)
        from .resources import decorate_non_uniform_place  # an element of an array of buffers
        return decorate_non_uniform_place(self, chain, place)

    def load(self, place: Place | SwizzlePlace) -> int:
        if not isinstance(place, (Place, SwizzlePlace)):          # a texel
            from .resources import image_load
            return image_load(self, place)
        if isinstance(place, SwizzlePlace):
            vector = self.load(place.vector)
            return self.swizzle(vector, place.vector.type, place.components, place.type)
        memory_type = self.types.id(place.type, place.layout)
        value = self.b.emit("OpLoad", memory_type, self.pointer(place), *self.ml.memory_access(place, store=False))
        if place.as_array is not None:
            return self._grid_as_array(value, place.type, place.as_array)
        return self.representation(value, place.type, place.layout, None)

    def store(self, place: Place | SwizzlePlace, value: int) -> None:
        if not isinstance(place, (Place, SwizzlePlace)):          # a texel
            from .resources import image_store
            image_store(self, place, value)
            return
        if isinstance(place, SwizzlePlace):
            vector_type = self.types.shape(place.vector.type)
            old = self.load(place.vector)
            count = t.component_count(vector_type) or 1
            if count == 1:
                self.store(place.vector, value if len(place.components) == 1 else
                           self.b.emit("OpCompositeExtract", self.types.id(vector_type), value, 0))
                return
            lanes = list(range(count))
            for i, c in enumerate(place.components):
                lanes[c] = count + i
            if len(place.components) == 1:
                new = self.b.emit("OpCompositeInsert", self.types.id(vector_type), value, old,
                                  place.components[0])
            else:
                new = self.b.emit("OpVectorShuffle", self.types.id(vector_type), old, value, *lanes)
            self.store(place.vector, new)
            return
        if place.as_array is not None:
            value = self._grid_as_vector(value, place.as_array, place.type)
        else:
            value = self.representation(value, place.type, None, place.layout)
        self.b.emit("OpStore", self.pointer(place), value, *self.ml.memory_access(place, store=True))

    def _grid_as_array(self, vector: int, vector_type: t.Type, array: t.ArrayType) -> int:
        """An SV_DispatchGrid vector (or scalar) loaded from memory as the array value sema typed."""
        parts = self.components(vector, vector_type)
        return self.b.emit("OpCompositeConstruct", self.types.id(array), *parts)

    def _grid_as_vector(self, value: int, array: t.ArrayType, vector_type: t.Type) -> int:
        assert array.length is not None
        parts = [self.b.emit("OpCompositeExtract", self.types.id(array.element), value, i)
                 for i in range(array.length)]
        return self.build(parts, vector_type)

    def field_place(self, place: Place, index: int) -> Place:
        struct = self.types.shape(place.type)
        assert isinstance(struct, t.StructType)
        layout = place.layout.members[index].layout if place.layout is not None else None
        field = struct.all_fields()[index]
        grid = dispatch_grid_vector(field) if layout is not None else None
        if grid is not None:
            assert isinstance(field.type, t.ArrayType)
            return replace(place, type=grid, layout=MEMORY, indices=place.indices + (self.uint(index),),
                           as_array=field.type)
        return replace(place, type=field.type, layout=layout, indices=place.indices + (self.uint(index),),
                       as_array=None)

    def element_place(self, place: Place, index: int) -> Place:
        shape = self.types.shape(place.type)
        if isinstance(shape, t.ArrayType):
            element, layout = shape.element, (place.layout.element if place.layout else None)
        elif isinstance(shape, t.MatrixType):
            element, layout = t.vector(shape.element, shape.columns), (MEMORY if place.layout else None)
        elif isinstance(shape, t.VectorType):
            element, layout = shape.element, (MEMORY if place.layout else None)
        else:
            raise AssertionError(f"cannot index a value of type '{place.type}'")
        if layout is None and place.layout is not None:
            layout = MEMORY
        return replace(place, type=element, layout=layout, indices=place.indices + (index,), as_array=None)

    def representation(self, value: int, type_: t.Type, source: TypeLayout | None,
                       target: TypeLayout | None) -> int:
        """Convert a value between a logical and a laid-out representation of `type_`."""
        from_id, to_id = self.types.id(type_, source), self.types.id(type_, target)
        if from_id == to_id:
            return value
        shape = self.types.shape(type_)
        if isinstance(shape, t.StructType):
            parts = []
            for i, f in enumerate(shape.all_fields()):
                src = source.members[i].layout if source is not None else None
                dst = target.members[i].layout if target is not None else None
                grid = dispatch_grid_vector(f)
                if grid is not None and (src is None) != (dst is None):      # vector in memory
                    assert isinstance(f.type, t.ArrayType)
                    part = self.b.emit("OpCompositeExtract", self.types.id(grid if src else f.type, src),
                                       value, i)
                    parts.append(self._grid_as_array(part, grid, f.type) if src else
                                 self._grid_as_vector(part, f.type, grid))
                    continue
                part = self.b.emit("OpCompositeExtract", self.types.id(f.type, src), value, i)
                parts.append(self.representation(part, f.type, src, dst))
            return self.b.emit("OpCompositeConstruct", to_id, *parts)
        if isinstance(shape, t.ArrayType):
            if shape.length is None:
                raise AssertionError("a runtime array cannot be copied")
            src = source.element if source is not None else None
            dst = target.element if target is not None else None
            parts = [self.representation(
                self.b.emit("OpCompositeExtract", self.types.id(shape.element, src), value, i),
                shape.element, src, dst) for i in range(shape.length)]
            return self.b.emit("OpCompositeConstruct", to_id, *parts)
        if isinstance(shape, t.MatrixType):              # a non-float matrix: rows
            row = t.vector(shape.element, shape.columns)
            src = MEMORY if source is not None else None
            dst = MEMORY if target is not None else None
            parts = [self.representation(
                self.b.emit("OpCompositeExtract", self.types.id(row, src), value, i), row, src, dst)
                for i in range(shape.rows)]
            return self.b.emit("OpCompositeConstruct", to_id, *parts)
        # bool (scalar or vector) <-> uint
        if target is not None:
            one = self.ml.constant(t.with_element(shape, t.UINT), 1)
            zero = self.ml.constant(t.with_element(shape, t.UINT), 0)
            return self.b.emit("OpSelect", to_id, value, one, zero)
        zero = self.ml.constant(t.with_element(shape, t.UINT), 0)
        return self.b.emit("OpINotEqual", to_id, value, zero)

    # ------------------------------------------------------------ statements

    def block(self, block: ir.Block) -> None:
        for stmt in block.stmts:
            if not self.b.in_block:
                return                      # unreachable code after a terminator
            self.statement(stmt)

    def statement(self, stmt: ir.Stmt) -> None:
        if self.ml.options.debug_info and stmt.span is not None:
            line, column = stmt.span.line_col
            self.b.emit("OpLine", self.ml.file_string(stmt.span.file.path), line, column)
        method = getattr(self, "stmt_" + type(stmt).__name__)
        method(stmt)

    def stmt_Block(self, stmt: ir.Block) -> None:
        self.block(stmt)

    def stmt_VarDecl(self, stmt: ir.VarDecl) -> None:
        variable = stmt.variable
        if _is_object(variable.type):
            self.bindings[variable] = self.value(stmt.init) if stmt.init is not None else NULL_HANDLE
            return
        if variable.storage is ir.Storage.STATIC:
            self.bindings[variable] = self.ml.global_binding(variable)
            self.use_global(self.bindings[variable].pointer)
            return
        place = self.local(variable.type, variable.name)
        self.bindings[variable] = place
        if stmt.init is not None and not _fresh_ray_query(stmt.init):
            self.store(place, self.value(stmt.init))

    def stmt_ExprStmt(self, stmt: ir.ExprStmt) -> None:
        self.value(stmt.expr)

    def stmt_If(self, stmt: ir.If) -> None:
        cond = self.value(stmt.cond)
        then_label, merge = self.b.new_id(), self.b.new_id()
        else_label = self.b.new_id() if stmt.else_ is not None else merge
        self.b.emit("OpSelectionMerge", merge, _selection_control(stmt.attributes))
        self.b.emit("OpBranchConditional", cond, then_label, else_label)
        self.new_block(then_label)
        self.block(stmt.then)
        self.branch(merge)
        if stmt.else_ is not None:
            self.new_block(else_label)
            self.block(stmt.else_)
            self.branch(merge)
        self.new_block(merge)

    def stmt_Loop(self, stmt: ir.Loop) -> None:
        for init in stmt.init:
            self.statement(init)
        header, body, continue_target, merge = (self.b.new_id() for _ in range(4))
        self.branch(header)
        self.new_block(header)
        self.b.emit("OpLoopMerge", merge, continue_target, _loop_control(stmt.attributes))
        breakable = _Breakable(merge, continue_target, self.frames[-1] if self.frames else None)
        self.breakables.append(breakable)
        if stmt.kind is ir.LoopKind.DO_WHILE or stmt.cond is None:
            self.b.emit("OpBranch", body)
        else:
            check = self.b.new_id()
            self.b.emit("OpBranch", check)
            self.new_block(check)
            self.b.emit("OpBranchConditional", self.value(stmt.cond), body, merge)
        self.new_block(body)
        self.block(stmt.body)
        self.branch(continue_target)
        self.new_block(continue_target)
        if stmt.step is not None:
            self.value(stmt.step)
        if stmt.kind is ir.LoopKind.DO_WHILE and stmt.cond is not None:
            self.b.emit("OpBranchConditional", self.value(stmt.cond), header, merge)
        else:
            self.b.emit("OpBranch", header)
        self.breakables.pop()
        self.new_block(merge)
        if breakable.returns_inside:
            self._propagate_return()

    def stmt_Switch(self, stmt: ir.Switch) -> None:
        selector = self.value(stmt.selector)
        merge = self.b.new_id()
        labels = [self.b.new_id() for _ in stmt.cases]
        default = next((label for case, label in zip(stmt.cases, labels) if case.is_default), merge)
        targets: list = []
        width = getattr(self.types.shape(stmt.selector.type), "bits", 32)
        for case, label in zip(stmt.cases, labels):
            for value in case.values:
                targets += [_switch_literal(value, width), label]
        self.b.emit("OpSelectionMerge", merge, "None")
        self.b.emit("OpSwitch", selector, default, *targets)
        self.breakables.append(_Breakable(merge, None, self.frames[-1] if self.frames else None))
        for i, (case, label) in enumerate(zip(stmt.cases, labels)):
            self.new_block(label)
            self.block(case.body)
            self.branch(labels[i + 1] if i + 1 < len(labels) else merge)
        breakable = self.breakables.pop()
        self.new_block(merge)
        if breakable.returns_inside:
            self._propagate_return()

    def stmt_Break(self, stmt: ir.Break) -> None:
        self.b.emit("OpBranch", self.breakables[-1].merge)

    def stmt_Continue(self, stmt: ir.Continue) -> None:
        loop = next(b for b in reversed(self.breakables) if b.continue_target is not None)
        self.b.emit("OpBranch", loop.continue_target)

    def stmt_Return(self, stmt: ir.Return) -> None:
        if not self.frames:
            if stmt.value is None:
                self.b.emit("OpReturn")
            else:
                self.b.emit("OpReturnValue", self.value(stmt.value))
            return
        frame = self.frames[-1]
        if stmt.value is not None:
            if _is_object(stmt.value.type):
                frame.result = self.value(stmt.value)
            else:
                assert frame.return_place is not None
                self.store(frame.return_place, self.value(stmt.value))
        if frame.exit is None:               # a return at the very end of the inlined body
            return
        self._leave_frame(frame)

    def _leave_frame(self, frame: _InlineFrame) -> None:
        """Branch out of the inlined body: to the wrapper's merge, or out of the innermost loop."""
        inner = self.breakables[frame.depth:]
        loops = [b for b in inner if b.continue_target is not None]
        if not loops:
            self.b.emit("OpBranch", frame.exit)
            return
        assert frame.flag is not None
        self.b.emit("OpStore", frame.flag.pointer, self.b.constant_bool(True))
        innermost = loops[-1]
        innermost.returns_inside = True
        for b in inner[inner.index(innermost) + 1:]:
            b.returns_inside = True          # switches inside that loop re-check after their merge
        self.b.emit("OpBranch", innermost.merge)

    def _propagate_return(self) -> None:
        """After a construct some inlined `return` left: leave further if the flag is set."""
        frame = self.frames[-1]
        assert frame.flag is not None
        leave, stay = self.b.new_id(), self.b.new_id()
        flag = self.b.emit("OpLoad", self.b.type_bool(), frame.flag.pointer)
        self.b.emit("OpSelectionMerge", stay, "None")
        self.b.emit("OpBranchConditional", flag, leave, stay)
        self.new_block(leave)
        inner = self.breakables[frame.depth:]
        if inner and inner[-1].continue_target is None:
            inner[-1].returns_inside = True
            self.b.emit("OpBranch", inner[-1].merge)
        else:
            self._leave_frame(frame)
        self.new_block(stay)

    def stmt_Discard(self, stmt: ir.Discard) -> None:
        raise AssertionError("sema rejects 'discard' in code a node reaches (WG0440)")

    # ------------------------------------------------------------ expressions

    def value(self, expr: ir.Expr) -> object:
        """The value of an expression: an id (None for void calls), or a handle for node objects
        and resources."""
        return getattr(self, "expr_" + type(expr).__name__)(expr)

    def place(self, expr: ir.Expr) -> Place | SwizzlePlace | None:
        """The memory location an expression denotes, or None for a pure value."""
        if isinstance(expr, ir.VarRef):
            binding = self.binding(expr.variable)
            return binding if isinstance(binding, Place) else None
        if isinstance(expr, ir.FieldAccess):
            base = self.place(expr.base)
            if isinstance(base, Place):
                return self.field_place(base, expr.index)
            return None
        if isinstance(expr, ir.Index):
            if _is_object(expr.base.type):
                return None
            base = self.place(expr.base)
            if isinstance(base, Place):
                return self.element_place(base, self.value(expr.index))
            return None
        if isinstance(expr, ir.Swizzle):
            base = self.place(expr.base)
            shape = self.types.shape(expr.base.type)
            if base is not None and not isinstance(base, (Place, SwizzlePlace)) \
                    and isinstance(shape, t.VectorType):      # texel components: read-modify-write
                return SwizzlePlace(base, tuple(expr.components), expr.type)
            if not isinstance(base, Place):
                return None
            if isinstance(shape, t.MatrixType):
                if len(expr.components) == 1:
                    row, column = expr.components[0]
                    return self.element_place(self.element_place(base, self.uint(row)),
                                              self.uint(column))
                return None
            if isinstance(shape, t.ScalarType):
                return base if len(expr.components) == 1 else None
            if len(expr.components) == 1:
                return self.element_place(base, self.uint(expr.components[0]))
            return SwizzlePlace(base, tuple(expr.components), expr.type)
        if isinstance(expr, ir.RecordAccess):
            return self.record_place(expr)
        if isinstance(expr, ir.ResourceIndex):
            from . import resources
            return resources.index_place(self, expr)
        return None

    def binding(self, variable: ir.Variable) -> object:
        found = self.bindings.get(variable)
        if found is None:
            if variable.storage in (ir.Storage.LOCAL, ir.Storage.PARAMETER):
                raise AssertionError(f"'{variable.name}' is used before it is bound")
            found = self.ml.global_binding(variable)
        pointer = getattr(found, "pointer", None) if isinstance(found, Place) else \
            getattr(found, "variable", None)
        if variable.storage not in (ir.Storage.LOCAL, ir.Storage.PARAMETER) and pointer:
            self.use_global(pointer)
        return found

    def expr_Constant(self, expr: ir.Constant) -> int:
        return self.ml.constant(expr.type, expr.value)

    def expr_VarRef(self, expr: ir.VarRef) -> object:
        variable = expr.variable
        if variable.constant is not None and variable.storage is ir.Storage.STATIC:
            return self.ml.constant(variable.type, variable.constant)
        binding = self.binding(variable)
        if isinstance(binding, (Place, SwizzlePlace)):
            return self.load(binding)
        return binding

    def _through_place(self, expr: ir.Expr) -> int | None:
        place = self.place(expr)
        return None if place is None else self.load(place)

    def expr_FieldAccess(self, expr: ir.FieldAccess) -> int:
        loaded = self._through_place(expr)
        if loaded is not None:
            return loaded
        base = self.value(expr.base)
        return self.b.emit("OpCompositeExtract", self.types.id(expr.type), base, expr.index)

    def expr_Index(self, expr: ir.Index) -> object:
        if isinstance(expr.base.type, t.NodeObjectType):         # outputs[i]
            return self._output_element(expr.base, expr.index)
        if _is_object(expr.type):                                 # resources[i]
            handle = self.value(expr.base)
            assert isinstance(handle, ResourceHandle)
            return replace(handle, indices=handle.indices + (self.value(expr.index),))
        loaded = self._through_place(expr)
        if loaded is not None:
            return loaded
        base_type = self.types.shape(expr.base.type)
        base = self.value(expr.base)
        if isinstance(expr.index, ir.Constant):
            return self.b.emit("OpCompositeExtract", self.types.id(expr.type), base,
                               int(expr.index.value))
        index = self.value(expr.index)
        if isinstance(base_type, t.VectorType):
            return self.b.emit("OpVectorExtractDynamic", self.types.id(expr.type), base, index)
        temp = self.local(expr.base.type)
        self.store(temp, base)
        return self.load(self.element_place(temp, index))

    def expr_Swizzle(self, expr: ir.Swizzle) -> int:
        base_shape = self.types.shape(expr.base.type)
        if isinstance(base_shape, t.MatrixType):
            base = self.value(expr.base)
            parts = [self.b.emit("OpCompositeExtract", self.types.scalar(base_shape.element), base, r, c)
                     for r, c in expr.components]
            return self._vector_of(parts, expr.type)
        return self.swizzle(self.value(expr.base), expr.base.type, tuple(expr.components), expr.type)

    def swizzle(self, vector: int, vector_type: t.Type, components: tuple[int, ...],
                result: t.Type) -> int:
        shape = self.types.shape(vector_type)
        if isinstance(shape, t.ScalarType):
            return self._vector_of([vector] * len(components), result)
        if len(components) == 1:
            return self.b.emit("OpCompositeExtract", self.types.id(result), vector, components[0])
        return self.b.emit("OpVectorShuffle", self.types.id(result), vector, vector, *components)

    def _vector_of(self, parts: list[int], type_: t.Type) -> int:
        if len(parts) == 1:
            return parts[0]
        return self.b.emit("OpCompositeConstruct", self.types.id(type_), *parts)

    def expr_ResourceIndex(self, expr: ir.ResourceIndex) -> object:
        if isinstance(expr.resource.type, t.NodeObjectType):       # outputs[i]
            return self._output_element(expr.resource, expr.index)
        from . import resources
        return resources.index_value(self, expr)

    def _output_element(self, outputs: ir.Expr, index: ir.Expr) -> OutputHandle | NullHandle:
        handle = self.value(outputs)
        if isinstance(handle, NullHandle):
            self.value(index)
            return handle
        assert isinstance(handle, OutputHandle)
        return replace(handle, node_index=self.value(index))

    def expr_RecordAccess(self, expr: ir.RecordAccess) -> int:
        return self.load(self.record_place(expr))

    def record_place(self, expr: ir.RecordAccess) -> Place:
        handle = self.value(expr.object)
        index = self.value(expr.index) if expr.index is not None else self.uint(0)
        if isinstance(handle, InputHandle):
            self.use_global(handle.variable)
            return Place(handle.variable, expr.type, "NodePayloadAMDX", handle.layout, (index,))
        if isinstance(handle, RecordsHandle):
            return Place(handle.pointer, expr.type, "NodePayloadAMDX", handle.layout, (index,))
        if isinstance(handle, NullHandle):
            return self.local(expr.type, "null_record")
        raise AssertionError("this node record cannot be accessed here")

    def expr_Unary(self, expr: ir.Unary) -> int:
        operand = self.value(expr.operand)
        type_id = self.types.id(expr.type)
        if expr.op == "+":
            return operand
        if expr.op == "!":
            return self.b.emit("OpLogicalNot", type_id, operand)
        if expr.op == "~":
            return self.b.emit("OpNot", type_id, operand)
        scalar = t.element_scalar(expr.type)
        if self.types.is_float_matrix(expr.type):
            return self._per_row(expr.type, lambda row_t, r: self.b.emit("OpFNegate", row_t, r), operand)
        return self.b.emit("OpFNegate" if scalar.is_float else "OpSNegate", type_id, operand)

    def _per_row(self, type_: t.Type, op, *operands: int) -> int:
        """Apply a component-wise operation to a matrix row by row."""
        shape = self.types.shape(type_)
        result_shape = shape
        row_type = self.types.id(t.vector(shape.element, shape.columns))
        rows = []
        for i in range(shape.rows):
            parts = [self.b.emit("OpCompositeExtract", row_type, o, i) for o in operands]
            rows.append(op(row_type, *parts))
        return self.b.emit("OpCompositeConstruct", self.types.id(result_shape), *rows)

    def expr_Binary(self, expr: ir.Binary) -> int:
        if expr.op in ("&&", "||") and isinstance(self.types.shape(expr.type), t.ScalarType):
            return self._short_circuit(expr)
        left, right = self.value(expr.left), self.value(expr.right)
        return self.binary(expr.op, expr.left.type, expr.type, left, right)

    def binary(self, op: str, operand_type: t.Type, result_type: t.Type, left: int, right: int) -> int:
        shape = self.types.shape(operand_type)
        scalar = t.element_scalar(shape)
        if scalar is None:
            raise AssertionError(f"operator '{op}' on '{operand_type}'")
        result_id = self.types.id(result_type)
        if isinstance(shape, t.MatrixType):
            result_shape = self.types.shape(result_type)
            row_result = self.types.id(t.vector(result_shape.element, shape.columns))
            rows = []
            row_type = self.types.id(t.vector(shape.element, shape.columns))
            for i in range(shape.rows):
                lr = self.b.emit("OpCompositeExtract", row_type, left, i)
                rr = self.b.emit("OpCompositeExtract", row_type, right, i)
                rows.append(self._binary_op(op, scalar, row_result, lr, rr,
                                            t.vector(shape.element, shape.columns)))
            return self.b.emit("OpCompositeConstruct", result_id, *rows)
        return self._binary_op(op, scalar, result_id, left, right, shape)

    def _binary_op(self, op: str, scalar: t.ScalarType, result_id: int, left: int, right: int,
                   shape: t.Type) -> int:
        kind = "f" if scalar.is_float else ("b" if scalar.kind is t.ScalarKind.BOOL else
                                           ("s" if scalar.kind is t.ScalarKind.INT else "u"))
        if op in ("<<", ">>"):
            mask = self.ml.constant(shape, scalar.bits - 1)
            right = self.b.emit("OpBitwiseAnd", self.types.id(shape), right, mask)
        name = _BINARY_OPS[op].get(kind) or _BINARY_OPS[op].get("i")
        if name is None:
            raise AssertionError(f"operator '{op}' on '{scalar}'")
        return self.b.emit(name, result_id, left, right)

    def _short_circuit(self, expr: ir.Binary) -> int:
        result = self.local(t.BOOL)
        left = self.value(expr.left)
        self.store(result, left)
        rhs, merge = self.b.new_id(), self.b.new_id()
        self.b.emit("OpSelectionMerge", merge, "None")
        if expr.op == "&&":
            self.b.emit("OpBranchConditional", left, rhs, merge)
        else:
            self.b.emit("OpBranchConditional", left, merge, rhs)
        self.new_block(rhs)
        self.store(result, self.value(expr.right))
        self.branch(merge)
        self.new_block(merge)
        return self.load(result)

    def expr_Select(self, expr: ir.Select) -> object:
        cond_shape = self.types.shape(expr.cond.type)
        if not isinstance(cond_shape, t.ScalarType):
            cond, a, b = self.value(expr.cond), self.value(expr.then), self.value(expr.else_)
            if isinstance(self.types.shape(expr.type), t.MatrixType):  # OpSelect takes vectors: row by row
                from .intrinsics import lanes
                return lanes(self, expr.type, [(cond, expr.cond.type), (a, expr.then.type), (b, expr.else_.type)],
                             lambda row, parts: self.b.emit("OpSelect", self.types.id(row), *parts))
            return self.b.emit("OpSelect", self.types.id(expr.type), cond, a, b)
        if _is_object(expr.type):
            raise AssertionError("sema.target rejects ?: between objects for this target (WG0623)")
        result = self.local(expr.type)
        cond = self.value(expr.cond)
        then_label, else_label, merge = self.b.new_id(), self.b.new_id(), self.b.new_id()
        self.b.emit("OpSelectionMerge", merge, "None")
        self.b.emit("OpBranchConditional", cond, then_label, else_label)
        self.new_block(then_label)
        self.store(result, self.value(expr.then))
        self.branch(merge)
        self.new_block(else_label)
        self.store(result, self.value(expr.else_))
        self.branch(merge)
        self.new_block(merge)
        return self.load(result)

    def expr_Comma(self, expr: ir.Comma) -> object:
        self.value(expr.left)
        return self.value(expr.right)

    def expr_Convert(self, expr: ir.Convert) -> object:
        operand = self.value(expr.operand)
        return self.convert(operand, expr.operand.type, expr.type)

    def expr_Construct(self, expr: ir.Construct) -> int:
        if _fresh_ray_query(expr):              # `RayQuery<F>()`: a new, uninitialised query
            return self.load(self.local(expr.type))
        parts = [self.value(a) for a in expr.args]
        shape = self.types.shape(expr.type)
        if t.is_numeric(shape):      # vectors and matrices: from the arguments' components
            scalars = [c for part, arg in zip(parts, expr.args) for c in self.components(part, arg.type)]
            return self.build(scalars, shape)
        return self.b.emit("OpCompositeConstruct", self.types.id(shape), *parts)

    def expr_Assign(self, expr: ir.Assign) -> object:
        if _is_object(expr.target.type):
            assert isinstance(expr.target, ir.VarRef)
            handle = self.value(expr.value)
            self.bindings[expr.target.variable] = handle
            return handle
        place = self.place(expr.target)
        if place is None:
            raise AssertionError("this assignment target cannot be lowered")
        value = self.value(expr.value)
        if expr.op:
            operation_type = expr.operation_type or expr.value.type
            current = self.convert(self.load(place), expr.target.type, operation_type)
            result_type = operation_type
            value = self.binary(expr.op, operation_type, result_type, current, value)
            value = self.convert(value, operation_type, expr.target.type)
        self.store(place, value)
        return value

    def expr_IncDec(self, expr: ir.IncDec) -> int:
        place = self.place(expr.target)
        if place is None:
            raise AssertionError("this increment target cannot be lowered")
        old = self.load(place)
        one = self.ml.constant(expr.target.type, 1)
        new = self.binary("+" if expr.op == "++" else "-", expr.target.type, expr.target.type, old, one)
        self.store(place, new)
        return new if expr.prefix else old

    # ------------------------------------------------------------ conversions

    def convert(self, value: object, source: t.Type, target: t.Type) -> object:
        """Convert a value between IR types (numeric shapes and scalars, struct base prefixes)."""
        if source is target or _is_object(target):
            return value
        src, dst = self.types.shape(source), self.types.shape(target)
        if src is dst:
            return value
        if isinstance(dst, t.StructType) or isinstance(dst, t.ArrayType):
            if isinstance(src, t.StructType) and isinstance(dst, t.StructType):
                parts = [self.b.emit("OpCompositeExtract", self.types.id(f.type), value, i)
                         for i, f in enumerate(dst.all_fields())]
                return self.b.emit("OpCompositeConstruct", self.types.id(dst), *parts)
            if t.is_numeric(src):                       # (S)0, (float[2])x: splat
                return self._splat_aggregate(value, src, dst)
            raise AssertionError(f"conversion from '{source}' to '{target}'")
        src_scalar, dst_scalar = t.element_scalar(src), t.element_scalar(dst)
        if src_scalar is None or dst_scalar is None:
            raise AssertionError(f"conversion from '{source}' to '{target}'")
        count = t.component_count(dst) or 1
        components = self.components(value, src, count)
        if len(components) == 1 and count > 1:
            components = components * count
        converted = [self.convert_scalar(c, src_scalar, dst_scalar) for c in components]
        return self.build(converted, dst)

    def _splat_aggregate(self, value: int, source: t.Type, target: t.Type) -> int:
        if isinstance(target, t.StructType):
            parts = [self.convert(value, source, f.type) for f in target.all_fields()]
        else:
            assert isinstance(target, t.ArrayType) and target.length is not None
            parts = [self.convert(value, source, target.element)] * target.length
        return self.b.emit("OpCompositeConstruct", self.types.id(target), *parts)

    def components(self, value: int, type_: t.Type, limit: int | None = None) -> list[int]:
        """The scalars of a scalar/vector/matrix value, row-major (the first `limit` of them)."""
        shape = self.types.shape(type_)
        scalar = t.element_scalar(shape)
        scalar_id = self.types.scalar(scalar)
        if isinstance(shape, t.ScalarType):
            return [value]
        if isinstance(shape, t.VectorType):
            indices = [(i,) for i in range(shape.count)]
        else:
            indices = [(r, c) for r in range(shape.rows) for c in range(shape.columns)]
        return [self.b.emit("OpCompositeExtract", scalar_id, value, *i) for i in indices[:limit]]

    def build(self, scalars: list[int], type_: t.Type) -> int:
        shape = self.types.shape(type_)
        if isinstance(shape, t.ScalarType):
            return scalars[0]
        if isinstance(shape, t.VectorType):
            return self.b.emit("OpCompositeConstruct", self.types.id(shape), *scalars)
        row = t.vector(shape.element, shape.columns)
        rows = [self.build(scalars[i * shape.columns:(i + 1) * shape.columns], row)
                for i in range(shape.rows)]
        return self.b.emit("OpCompositeConstruct", self.types.id(shape), *rows)

    def convert_scalar(self, value: int, source: t.ScalarType, target: t.ScalarType) -> int:
        if source is target:
            return value
        target_id = self.types.scalar(target)
        if source.kind is target.kind and source.bits == target.bits:
            return value                                   # spellings of one type
        if target.kind is t.ScalarKind.BOOL:
            if source.is_float:
                return self.b.emit("OpFUnordNotEqual", target_id, value,
                                   self.ml._scalar_constant(source, 0.0))
            return self.b.emit("OpINotEqual", target_id, value, self.ml._scalar_constant(source, 0))
        if source.kind is t.ScalarKind.BOOL:
            return self.b.emit("OpSelect", target_id, value, self.ml._scalar_constant(target, 1),
                               self.ml._scalar_constant(target, 0))
        if source.is_float and target.is_float:
            return self.b.emit("OpFConvert", target_id, value)
        if source.is_float:
            return self.b.emit("OpConvertFToS" if target.kind is t.ScalarKind.INT else "OpConvertFToU",
                               target_id, value)
        if target.is_float:
            return self.b.emit("OpConvertSToF" if source.kind is t.ScalarKind.INT else "OpConvertUToF",
                               target_id, value)
        if source.bits == target.bits:
            return self.b.emit("OpBitcast", target_id, value)
        widened = self.b.emit("OpSConvert" if source.kind is t.ScalarKind.INT else "OpUConvert",
                              self.types.scalar(t.scalar(source.kind, target.bits)), value)
        if source.kind is target.kind:
            return widened
        return self.b.emit("OpBitcast", target_id, widened)

    # ------------------------------------------------------------ calls

    def expr_Call(self, expr: ir.Call) -> object:
        function = expr.function
        if function.must_inline or _takes_objects(function):
            return self._inline(expr)
        fn = self.ml.function_id(function)
        self.ml.function_calls.setdefault(self.spirv_function, set()).add(fn)
        args, copy_back = [], []
        for param, arg in zip(function.params, expr.args):
            if param.direction is ir.Direction.IN:
                args.append(self.value(arg))
                continue
            temp, back = self._out_argument(param, arg)
            args.append(temp.pointer)
            copy_back.append(back)
        result = self.b.emit("OpFunctionCall", self.types.id(function.return_type), fn, *args)
        for back in copy_back:
            back()
        return result

    def _out_argument(self, param: ir.Variable, arg: ir.Expr,
                      param_type: t.Type | None = None) -> tuple[Place, Callable[[], None]]:
        """A temporary of the parameter's type (`param_type` when it differs from the declared one,
        for an unsized array) for an out/inout argument (copied in for inout), and the function that
        copies it back to the caller's l-value after the call. A derived struct passed as its base
        (`derived.baseMethod()`) gets the base's fields written back."""
        param_type = param_type or param.type
        temp = self.local(param_type, param.name)
        target, target_type = self.place(arg), arg.type
        base_cast = (target is None and isinstance(arg, ir.Convert)
                     and isinstance(arg.type, t.StructType) and isinstance(arg.operand.type, t.StructType))
        if base_cast:
            target, target_type = self.place(arg.operand), arg.operand.type
        if target is None:
            raise AssertionError("an out argument must be a variable or a location")
        if param.direction is ir.Direction.INOUT:
            self.store(temp, self.convert(self.load(target), target_type, param_type))

        def copy_back() -> None:
            value = self.convert(self.load(temp), param_type, arg.type)
            if not base_cast:
                self.store(target, self.convert(value, arg.type, target_type))
                return
            assert isinstance(target, Place) and isinstance(arg.type, t.StructType)
            for i, f in enumerate(arg.type.all_fields()):
                part = self.b.emit("OpCompositeExtract", self.types.id(f.type), value, i)
                self.store(self.field_place(target, i), part)
        return temp, copy_back

    def _inline(self, expr: ir.Call) -> object:
        function = expr.function
        assert function.body is not None
        copy_back = []
        objects_back: list[tuple[ir.Variable, ir.Variable]] = []
        for param, arg in zip(function.params, expr.args):
            if _is_object(param.type):
                if param.direction is ir.Direction.OUT:
                    self.bindings[param] = NULL_HANDLE
                else:
                    self.bindings[param] = self.value(arg)
                if param.direction is not ir.Direction.IN:
                    assert isinstance(arg, ir.VarRef), "sema passes node variables to out node-object parameters"
                    objects_back.append((param, arg.variable))
                continue
            if _is_ray_query(param.type):       # the caller's query itself (DXC passes it by reference)
                place = self.place(arg)
                if not isinstance(place, Place):
                    place = self.local(param.type, param.name)
                    self.store(place, self.value(arg))
                self.bindings[param] = place
                continue
            param_type = param.type
            if isinstance(param_type, t.ArrayType) and param_type.length is None:
                param_type = arg.type                   # `float a[]`: the argument's array type
            if param.direction is ir.Direction.IN:
                self.bindings[param] = temp = self.local(param_type, param.name)
                self.store(temp, self.value(arg))
                continue
            self.bindings[param], back = self._out_argument(param, arg, param_type)
            copy_back.append(back)
        returns_value = function.return_type is not t.VOID and not _is_object(function.return_type)
        return_place = self.local(function.return_type) if returns_value else None
        needs_exit = _returns_early(function.body)
        frame = _InlineFrame(function, return_place, None, None, len(self.breakables))
        if needs_exit:
            header, body, continue_target, merge = (self.b.new_id() for _ in range(4))
            if _returns_in_loop(function.body):
                frame.flag = self.local(t.BOOL)
                self.b.emit("OpStore", frame.flag.pointer, self.b.constant_bool(False))
            self.b.emit("OpBranch", header)
            self.new_block(header)
            self.b.emit("OpLoopMerge", merge, continue_target, "None")
            self.b.emit("OpBranch", body)
            self.new_block(body)
            frame.exit = merge
            frame.depth = len(self.breakables)
            self.frames.append(frame)
            self.block(function.body)
            self.frames.pop()
            self.branch(merge)
            self.new_block(continue_target)
            self.b.emit("OpBranch", header)
            self.new_block(merge)
        else:
            self.frames.append(frame)
            self.block(function.body)
            self.frames.pop()
        for back in copy_back:
            back()
        for param, variable in objects_back:
            self.bindings[variable] = self.bindings[param]
        if frame.result is not None:
            return frame.result
        if return_place is not None:
            return self.load(return_place)
        return None

    def expr_IntrinsicCall(self, expr: ir.IntrinsicCall) -> object:
        from . import intrinsics
        return intrinsics.lower(self, expr)

    def expr_MethodCall(self, expr: ir.MethodCall) -> object:
        if isinstance(expr.object.type, t.NodeObjectType):
            return self.node_method(expr)
        if isinstance(expr.object.type, t.RayQueryType):
            from . import rayquery
            return rayquery.method(self, expr)
        from . import resources
        return resources.method(self, expr)

    # ------------------------------------------------------------ node objects

    def node_method(self, expr: ir.MethodCall) -> object:
        handle = self.value(expr.object)
        name = expr.method
        if isinstance(handle, NullHandle):
            return self._null_method(expr)
        if name in ("GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords",
                    "ThreadIncrementOutputCount", "GroupIncrementOutputCount"):
            assert isinstance(handle, OutputHandle)
            scope = "Invocation" if name.startswith(("GetThread", "Thread")) else "Workgroup"
            pointer = self.allocate(handle, self.value(expr.args[0]), scope)
            if name.endswith("IncrementOutputCount"):
                self.b.emit("OpEnqueueNodePayloadsAMDX", pointer)
                return None
            output = handle.output
            return RecordsHandle(pointer, output.record, output.layout)
        if name == "OutputComplete":
            assert isinstance(handle, RecordsHandle)
            self.b.emit("OpEnqueueNodePayloadsAMDX", handle.pointer)
            return None
        if name == "Count":
            assert isinstance(handle, InputHandle)
            self.use_global(handle.variable)
            return self.b.emit("OpNodePayloadArrayLengthAMDX", self.b.type_int(32, False),
                               handle.variable)
        if name == "IsValid":
            assert isinstance(handle, OutputHandle)
            return self.b.emit("OpIsNodePayloadValidAMDX", self.b.type_bool(),
                               self._output_object(handle), handle.node_index or self.uint(0))
        if name == "FinishedCrossGroupSharing":
            assert isinstance(handle, InputHandle)
            self.use_global(handle.variable)
            return self.b.emit("OpFinishWritingNodePayloadAMDX", self.b.type_bool(), handle.variable)
        raise AssertionError(f"method '{name}' of '{expr.object.type}' has no SPIR-V lowering")

    def _null_method(self, expr: ir.MethodCall) -> object:
        """A method of a null node object (undefined behaviour): its arguments, then no effect."""
        for arg in expr.args:
            self.value(arg)
        if expr.method in ("GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords"):
            return NULL_HANDLE
        if expr.type is t.VOID:
            return None
        return self.ml.constant(expr.type, False if expr.type is t.BOOL else 0)

    def allocate(self, handle: OutputHandle, count: int, scope: str) -> int:
        pointer_type = self.b.type_pointer("NodePayloadAMDX", handle.array_type)
        return self.b.emit("OpAllocateNodePayloadsAMDX", pointer_type, self.ml.scope(scope), count,
                           handle.node_index or self.uint(0))

    def _output_object(self, handle: OutputHandle) -> int:
        """An id standing for the output in OpIsNodePayloadValidAMDX: a Function variable of its
        payload-array type (spirv-val rejects the type id the spec names; dxc passes such a
        variable, spirv-amdx.md §1.4)."""
        found = self.output_objects.get(handle.array_type)
        if found is None:
            found = self.b.local_variable(self.b.type_pointer("Function", handle.array_type))
            self.output_objects[handle.array_type] = found
        return found


# ---------------------------------------------------------------- helpers


_BINARY_OPS: dict[str, dict[str, str]] = {
    "+": {"f": "OpFAdd", "i": "OpIAdd"},
    "-": {"f": "OpFSub", "i": "OpISub"},
    "*": {"f": "OpFMul", "i": "OpIMul"},
    "/": {"f": "OpFDiv", "s": "OpSDiv", "u": "OpUDiv"},
    "%": {"f": "OpFRem", "s": "OpSRem", "u": "OpUMod"},
    "<<": {"s": "OpShiftLeftLogical", "u": "OpShiftLeftLogical"},
    ">>": {"s": "OpShiftRightArithmetic", "u": "OpShiftRightLogical"},
    "&": {"b": "OpLogicalAnd", "s": "OpBitwiseAnd", "u": "OpBitwiseAnd"},
    "|": {"b": "OpLogicalOr", "s": "OpBitwiseOr", "u": "OpBitwiseOr"},
    "^": {"b": "OpLogicalNotEqual", "s": "OpBitwiseXor", "u": "OpBitwiseXor"},
    "&&": {"b": "OpLogicalAnd"},
    "||": {"b": "OpLogicalOr"},
    "<": {"f": "OpFOrdLessThan", "s": "OpSLessThan", "u": "OpULessThan"},
    "<=": {"f": "OpFOrdLessThanEqual", "s": "OpSLessThanEqual", "u": "OpULessThanEqual"},
    ">": {"f": "OpFOrdGreaterThan", "s": "OpSGreaterThan", "u": "OpUGreaterThan"},
    ">=": {"f": "OpFOrdGreaterThanEqual", "s": "OpSGreaterThanEqual", "u": "OpUGreaterThanEqual"},
    "==": {"f": "OpFOrdEqual", "b": "OpLogicalEqual", "s": "OpIEqual", "u": "OpIEqual"},
    "!=": {"f": "OpFUnordNotEqual", "b": "OpLogicalNotEqual", "s": "OpINotEqual", "u": "OpINotEqual"},
}


def _is_object(type_: t.Type) -> bool:
    return isinstance(type_, (t.NodeObjectType, t.ResourceType)) or (
        isinstance(type_, t.ArrayType) and _is_object(type_.element))


def _is_ray_query(type_: t.Type) -> bool:
    return isinstance(type_, t.RayQueryType) or (isinstance(type_, t.ArrayType) and _is_ray_query(type_.element))


def _fresh_ray_query(expr: ir.Expr) -> bool:
    """`RayQuery<F>()`: DXC does not initialise a variable with it (no OpStore)."""
    return isinstance(expr, ir.Construct) and isinstance(expr.type, t.RayQueryType)


def _takes_objects(function: ir.Function) -> bool:
    return any(_is_object(p.type) or _is_ray_query(p.type) for p in function.params) or \
        _is_object(function.return_type) or _is_ray_query(function.return_type)


def _selection_control(attributes: tuple[ir.Attribute, ...]) -> str:
    keys = {a.key for a in attributes}
    if "flatten" in keys:
        return "Flatten"
    if "branch" in keys:
        return "DontFlatten"
    return "None"


def _loop_control(attributes: tuple[ir.Attribute, ...]) -> str:
    keys = {a.key for a in attributes}
    if "unroll" in keys:
        return "Unroll"
    if "loop" in keys:
        return "DontUnroll"
    return "None"


def _switch_literal(value: int, width: int) -> object:
    if width == 64:
        bits = value & 0xFFFFFFFFFFFFFFFF
        return (bits & 0xFFFFFFFF, bits >> 32)
    return value


def _returns_early(body: ir.Block) -> bool:
    """Whether a body has a `return` anywhere but as its last top-level statement."""
    def walk(stmt: ir.Stmt, top_last: bool) -> bool:
        if isinstance(stmt, ir.Return):
            return not top_last
        return any(walk(s, False) for s in _children(stmt))
    stmts = body.stmts
    return any(walk(s, i == len(stmts) - 1) for i, s in enumerate(stmts))


def _returns_in_loop(body: ir.Block) -> bool:
    def walk(stmt: ir.Stmt, in_loop: bool) -> bool:
        if isinstance(stmt, ir.Return):
            return in_loop
        inside = in_loop or isinstance(stmt, ir.Loop)
        return any(walk(s, inside) for s in _children(stmt))
    return walk(body, False)


def _children(stmt: ir.Stmt) -> list[ir.Stmt]:
    if isinstance(stmt, ir.Block):
        return list(stmt.stmts)
    if isinstance(stmt, ir.If):
        return [stmt.then] + ([stmt.else_] if stmt.else_ is not None else [])
    if isinstance(stmt, ir.Loop):
        return [*stmt.init, stmt.body]
    if isinstance(stmt, ir.Switch):
        return [case.body for case in stmt.cases]
    return []
