"""Lowering of function bodies from the typed IR to SPIR-V instructions (SPIR-V back end).

Input: checked `ir.Function`s (sema already checked everything: the back end never re-checks),
the node input/output handles the target declared (`module.py`), and a `ModuleLowering` holding
the builder, the target's node operations (`node_ops.py`) and the per-module state.
Output: SPIR-V functions in the builder: each node's entry function and the helpers it calls;
module-scope variables (statics, groupshared, built-ins; resources via `resources.py`) on first use.

The work is split by concern: `FunctionLowering` (here) evaluates expressions and places;
`control.py` lowers statements, control flow and calls (inlining); `conversions.py` converts
values between IR types; `intrinsics.py`, `resources.py` and `rayquery.py` lower intrinsic calls,
resource accesses and ray queries; the node operations are the target's (`amdx.py`,
`emulated.py`), and `loop_stages.py` lowers loops in index space. Those modules see this one only
for annotations (no import cycle).

Invariants and decisions:
- Values have *logical* types (`TypeLowering.id(type)`); memory with an explicit layout (buffers,
  uniform blocks, node records) is accessed through `Place`s that carry the layout, and loads and
  stores convert between the two representations (bool <-> uint, laid-out aggregates).
- Every local is a Function variable.
- A RayQuery is a Function (local) or Private (static) variable of OpTypeRayQueryKHR, its methods
  lowered by `rayquery.py` on the variable's pointer; `RayQuery<F>()` initialises nothing; a copy
  is OpLoad + OpStore, as DXC emits it.
- Node objects are never stored: they are handles (`places.py`) the target made; a null object
  (declared without initializer) is `NullHandle`. Assigning a node object (`a = b;`, an `out`
  node-object argument) rebinds the variable to the other handle at compile time: sema
  (`wgc.sema.target`, WG0453) guarantees every such rebinding happens in the control flow the
  variable was declared in, so the binding at each point is known statically.
- Every global variable an entry point's code reaches is listed in its OpEntryPoint interface.
- An attribute argument that is a specialization constant (`ir.AttributeArg.spec`) is given as its
  id (`attribute_operand`, `local_size`): as a uint (an `int` one through OpSpecConstantOp IAdd 0),
  scaled by OpSpecConstantOp IMul for a loop's stages; LocalSizeId only where the Vulkan version
  allows it (`Analysis.local_size_id_allowed`), else LocalSize with the default (WG0645).
- Loads and stores take their Memory Operands from `ModuleLowering.memory_access` (the Vulkan
  memory model's NonPrivatePointer and coherent availability/visibility; nothing under GLSL450;
  `Aligned` on PhysicalStorageBuffer memory).
- Work Graph Loops unrolled in index space (always for the AMDX target, `--loops=index-space` for
  the emulated one): `ModuleLowering.stages` is `sema.stages`' plan, the entry function starts
  with the terminator guard and the iteration and output stage indices are `loop_stages.py`'s;
  helpers that read GetCurrentLoopIterationIndex() are inlined into their node.
- Per-compile state lives in the `ModuleLowering` (and the objects it owns) and the
  `FunctionLowering`s it creates; no module keeps state between compiles.
- Only lowers: every rule, including what the target cannot express, is checked by sema
  (`wgc.sema.target` for the target's limits); a broken assumption is an internal error
  (AssertionError), never a user diagnostic and never a bad module.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.irtools.consteval import Folded, fold, to_scalar
from wgc.irtools.layout import TypeLayout
from wgc.irtools.stageio import MESH_QUALIFIERS, mesh_qualifier
from wgc.irtools.walk import reachable_functions, walk_body
from wgc.sema.nodes import NodeInfo

from . import emulated_checks, grammar, intrinsics, loop_stages, rayquery, resources
from .builder import VERSION_FOR_ENV, Builder
from .control import ControlFlow
from .conversions import Conversions
from .places import (MEMORY, NULL_HANDLE, ImagePlace, InputHandle, NullHandle, OutputHandle, Place, RecordsHandle,
                     ResourceHandle, SplitPlace, SwizzlePlace, fresh_ray_query, is_object, stage_uint_type)

Location = Place | SwizzlePlace | ImagePlace | SplitPlace
"""Memory an l-value denotes: a place, components of a vector in memory, or a texel."""
from .types import TypeLowering, dispatch_grid_vector
from .stageio import StageIO, mesh_counts, stage_bool, task_payloads

if TYPE_CHECKING:
    from wgc.sema.results import Analysis
    from wgc.source import Span

    from .node_ops import NodeOperations

__all__ = ["MEMORY", "NULL_HANDLE", "FunctionLowering", "InputHandle", "LowerOptions", "ModuleLowering",
           "NullHandle", "OutputHandle", "Place", "RecordsHandle", "ResourceHandle", "SwizzlePlace"]

@dataclass(frozen=True)
class LowerOptions:
    target: str = "amdx"
    """The SPIR-V target (`node_ops.TARGETS`)."""
    target_env: str = "vulkan1.3"
    debug_info: bool = False
    """-Zi: OpSource with the file name and text, OpLine per statement."""
    source_name: str = ""
    source_text: str | None = None
    names: bool = True
    plain_atomics: frozenset[ir.IntrinsicCall] = frozenset()
    """Interlocked* calls on node records one invocation owns: a load, the operation and a store
    (`sema.target.plain_record_atomics`; spirv-val allows no atomics on NodePayloadAMDX)."""
    index_space_loops: bool = True
    """Work Graph Loops unrolled in index space (`loop_stages.py`); False: the emulated target's
    native form (the runtime passes each dispatch's iteration)."""
    checks: bool = False
    """`wgc run --check`: the emulated target tests accesses and reports mistakes at run time
    (`emulated_checks.py`)."""
    per_primitive_semantics: frozenset[str] = frozenset()
    """The user semantics the file's mesh entry points output per primitive (`sema.mesh.
    per_primitive_semantics`): pixel inputs of these semantics are PerPrimitiveEXT, in whatever
    module the pixel shader is (`--split-nodes`, `-E`)."""


# ---------------------------------------------------------------- the module


class ModuleLowering:
    """Owns the builder and everything shared by the functions of one module."""

    def __init__(self, results: Analysis, options: LowerOptions,
                 nodes: NodeOperations, node_infos: list[NodeInfo]) -> None:
        self.results = results
        """What sema knows of the program (`wgc.sema.results`): the back end's only view of sema."""
        self.module = results.module
        assert results.graph is not None
        self.graph = graph = results.graph
        self.options = options
        self.nodes = nodes
        """The target's node operations (`node_ops.py`)."""
        self.b = Builder(VERSION_FOR_ENV[options.target_env], names=options.names)
        self.types = TypeLowering(self.b)
        self.vulkan_memory_model = False
        self.conversions = Conversions(self)
        """Conversions between IR types (`conversions.py`)."""
        self.resources = resources.ResourceState()
        """Resource declarations and what `resources.py` remembers of them."""
        nodes.setup_module(self, node_infos)
        self.globals: dict[ir.Variable, object] = {}
        self.builtins: dict[str, int] = {}
        self.functions: dict[ir.Function, int] = {}
        self.function_globals: dict[int, set[int]] = {}
        self.function_calls: dict[int, set[int]] = {}
        self.pending: list[ir.Function] = []
        self.file_strings: dict[str, int] = {}
        self.int_constants: dict[tuple[t.Type, type, int], int] = {}
        """`constant`'s memo: (type, int or bool, value) -> the constant's <id>."""
        self.spec_uints: dict[tuple[ir.Variable, int], int] = {}
        """(specialization constant, scale) -> its uint <id> times scale (0: an `int` one as uint, `spec_uint`;
        2 and more: `attribute_operand`)."""
        self.mesh_counts = mesh_counts(node_infos)
        """The OutputVertices and OutputPrimitivesEXT of every MeshEXT entry point (`stageio.py`)."""
        self.task_payloads = task_payloads(results, node_infos)
        """Groupshared variables an amplification shader dispatches its mesh shaders with."""
        self.task_payload_copies: dict[ir.Variable, int] = {}
        """Under the Vulkan memory model: the TaskPayloadWorkgroupEXT variable each task payload
        (then a Workgroup variable) is copied to at DispatchMesh (`stageio.dispatch_mesh`)."""
        self.dynamic_statics: list[ir.Variable] = []
        """Statics whose initialiser is not a constant: each entry point using one runs it."""
        self.stages = results.stage_plan() if options.index_space_loops and graph.loops else None
        """The loops' stages when they are unrolled in index space (`loop_stages.py`), else None."""
        self.reads_loop_iteration = _reading_loop_iteration(node_infos) if self.stages is not None else frozenset()
        """Helpers inlined into their node because their code depends on it: those calling
        GetCurrentLoopIterationIndex() or GetRemainingRecursionLevels() (the node's stages), and on a target
        that reads local root arguments (`NodeOperations.reads_local_root`) those naming a variable a node's
        local root signature binds (the node's table entry holds it)."""
        if nodes.reads_local_root:
            self.reads_loop_iteration |= _reading_local_root(node_infos)

    # ------------------------------------------------------------ module-wide helpers

    def uint(self, value: int) -> int:
        return self.b.constant_uint(value)

    def attribute_operand(self, attributes: tuple[ir.Attribute, ...], key: str, position: int, value: int,
                          scale: int = 1) -> int:
        """The <id> operand for `value` x `scale`, `value` taken from argument `position` of attribute
        `key`: the specialization constant written there (`ir.AttributeArg.spec`, whose default `value`
        is; times `scale` by an OpSpecConstantOp IMul: a loop's stages in index space), so that the
        pipeline can specialise it, else the constant `value` x `scale`."""
        attribute = ir.find_attribute(attributes, key)
        arg = attribute.args[position] if attribute is not None and position < len(attribute.args) else None
        if arg is None or arg.spec is None or arg.value != value:
            return self.uint(value * scale)
        spec = self.spec_uint(arg.spec)
        if scale == 1:
            return spec
        found = self.spec_uints.get((arg.spec, scale))
        if found is None:
            found = self.spec_uints[(arg.spec, scale)] = self.b.global_instruction(
                "OpSpecConstantOp", self.types.id(t.UINT), "OpIMul", spec, self.uint(scale))
        return found

    def spec_uint(self, variable: ir.Variable) -> int:
        """A specialization constant as a uint <id>: itself, or for an `int` one an OpSpecConstantOp IAdd
        of it and 0 (same bits; SPIR-V's conversions need another width)."""
        spec = self.global_binding(variable)
        assert isinstance(spec, int)
        if variable.type is t.UINT:
            return spec
        assert variable.type is t.INT
        found = self.spec_uints.get((variable, 0))
        if found is None:
            found = self.spec_uints[(variable, 0)] = self.b.global_instruction(
                "OpSpecConstantOp", self.types.id(t.UINT), "OpIAdd", spec, self.uint(0))
        return found

    def local_size(self, fn: int, attributes: tuple[ir.Attribute, ...], size: tuple[int, int, int]) -> None:
        """LocalSize, or LocalSizeId where [NumThreads] names a specialization constant (`attribute_operand`)
        and the Vulkan version takes it (else the default: WG0645, `sema.target`)."""
        attribute = ir.find_attribute(attributes, "numthreads")
        if attribute is not None and any(arg.spec is not None for arg in attribute.args) \
                and self.results.local_size_id_allowed(self.options.target_env) \
                and tuple(attribute.values()) == tuple(size):
            self.b.execution_mode(fn, "LocalSizeId", *(self.attribute_operand(attributes, "numthreads", i, v)
                                                       for i, v in enumerate(size)))
        else:
            self.b.execution_mode(fn, "LocalSize", *size)

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
        pointers only. GLSL450 modules need no operands (Coherent decorates the variable).
        PhysicalStorageBuffer memory (the emulated target's records; always the Vulkan model) is
        also `Aligned` to the largest scalar of the accessed type (scalar layout)."""
        if place.storage == "PhysicalStorageBuffer":       # the emulated target's records
            aligned = ("Aligned|", scalar_alignment(self.types, place.type))
        elif not self.vulkan_memory_model or place.storage not in ("StorageBuffer", "Workgroup"):
            return ()
        else:
            aligned = ("", 0)
        prefix, alignment = aligned
        extra = (alignment,) if prefix else ()
        if not place.coherent:
            return (prefix + "NonPrivatePointer", *extra)
        return (prefix + ("MakePointerAvailable|NonPrivatePointer" if store else
                          "MakePointerVisible|NonPrivatePointer"), *extra, self.scope("Device"))

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
        if variable.storage is ir.Storage.STATIC:
            type_id = self.types.id(variable.type)
            init = self.constant_initializer(variable.init) if variable.init is not None else None
            var = self.b.variable(self.b.type_pointer("Private", type_id), "Private", init)
            self.b.name(var, variable.name)
            return Place(var, variable.type, "Private")
        if variable.storage is ir.Storage.GROUPSHARED:
            type_id = self.types.id(variable.type)
            # a task payload is TaskPayloadWorkgroupEXT memory, except under the Vulkan memory model:
            # there its accesses could not be NonPrivatePointer (spirv-val), so they would be private
            # and no barrier would order them between invocations; it stays Workgroup memory and is
            # copied to the task payload at DispatchMesh (`stageio.dispatch_mesh`)
            payload = variable in self.task_payloads
            storage = "TaskPayloadWorkgroupEXT" if payload and not self.vulkan_memory_model else "Workgroup"
            var = self.b.variable(self.b.type_pointer(storage, type_id), storage)
            self.b.name(var, variable.name)
            if payload and self.vulkan_memory_model:
                payload_pointer = self.b.type_pointer("TaskPayloadWorkgroupEXT", type_id)
                copy = self.b.variable(payload_pointer, "TaskPayloadWorkgroupEXT")
                self.b.name(copy, f"{variable.name}.payload")
                self.task_payload_copies[variable] = copy
            return Place(var, variable.type, storage)
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
            default = variable.spec_default
            assert scalar is not None and isinstance(default, (bool, int, float))
            spec = self.b.global_instruction("OpSpecConstant", type_id, to_scalar(default, scalar))
        assert spec is not None
        self.b.decorate(spec, "SpecId", variable.spec_id)
        self.b.name(spec, variable.name)
        return spec

    def constant_initializer(self, expr: ir.Expr) -> int | None:
        """A constant id for an initialiser made of constants only, else None."""
        if t.is_numeric(expr.type):
            folded = fold(expr)
            return self.constant(expr.type, folded.value) if isinstance(folded, Folded) else None
        if isinstance(expr, ir.Construct) and not fresh_ray_query(expr):
            parts = [self.constant_initializer(a) for a in expr.args]
            known = [p for p in parts if p is not None]
            if len(known) != len(parts):
                return None
            return self._composite_constant(expr.type, known)
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
        """A constant of a numeric type (`value` a scalar, or a row-major tuple for vectors/matrices).
        An int or bool value's constant is remembered per type (a float's is not: -0.0 == 0.0)."""
        if type(value) is int or type(value) is bool:
            key = (type_, type(value), value)
            found = self.int_constants.get(key)
            if found is None:
                found = self.int_constants[key] = self._constant(type_, value)
            return found
        return self._constant(type_, value)

    def _constant(self, type_: t.Type, value: ir.ConstValue) -> int:
        """`constant` without its memo."""
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
        assert isinstance(value, (bool, int, float)), f"'{value!r}' is no {scalar} constant"
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
            helper = FunctionLowering(self, function)
            helper.lower_helper(self.functions[function])
            release_function(helper)

    def release(self) -> None:
        """Drop the module's helpers that point back at it (`conversions`), once its words are made:
        reference counting then frees the lowering's objects when the compile drops them, and no
        collection of the cyclic garbage collector has to find them."""
        del self.conversions

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


def release_function(lowering: FunctionLowering) -> None:
    """Drop the lowering's `control` (which points back at it) once the function is lowered:
    reference counting then frees both (see `ModuleLowering.release`)."""
    del lowering.control


class FunctionLowering:
    """Lowers one SPIR-V function: an entry point or a called helper, with inlined callees."""

    def __init__(self, ml: ModuleLowering, function: ir.Function) -> None:
        self.ml = ml
        self.b = ml.b
        self.types = ml.types
        self.function = function
        self.bindings: dict[ir.Variable, object] = {}
        self.control = ControlFlow(self)
        """Statements, control flow and calls (`control.py`)."""
        conversions = ml.conversions
        self.convert = conversions.convert
        self.convert_scalar = conversions.convert_scalar
        self.components = conversions.components
        self.build = conversions.build
        self.spirv_function = 0
        self.entry_result: Place | SplitPlace | None = None
        """A pixel shader's result: `return value;` stores it here (`stageio.py`)."""
        self.node_state = ml.nodes.function_state()
        """The node target's per-function state (`NodeOperations.function_state`)."""
        self.node: NodeInfo | None = None
        """The node whose entry function this is (None for a called helper)."""
        self.current_span: Span | None = None
        """The innermost statement being lowered (where `emulated_checks` reports point)."""
        self.node_call: ir.MethodCall | None = None
        """The node-object method call being lowered (`emulated_placement` asks which call allocates)."""
        self.mesh_outputs: set[ir.Variable] = set()
        """The entry's `out vertices/indices/primitives` parameters and the parameters of inlined
        helpers bound to (part of) them (`control.py` passes mesh outputs by reference)."""

    # ------------------------------------------------------------ entry points and helpers

    def lower_entry(self, node: NodeInfo, input_handle: InputHandle | None,
                    outputs: dict[ir.Variable, OutputHandle], statics: list[tuple[ir.Variable, Place]],
                    io: StageIO | None = None) -> int:
        """The entry point's function (its callees are emitted after it); returns its id.
        `io`: the stage inputs and outputs (`stageio.py`: mesh outputs, pixel inputs and outputs),
        whose variables are all listed in the interface."""
        self.input_handle, self.outputs = input_handle, outputs
        self.node = node
        self.entry_result = io.result if io is not None else None
        void = self.b.type_void()
        fn = self.b.begin_function(void, self.b.type_function(void))
        self.spirv_function = fn
        self.b.name(fn, node.key)        # the function name; `f.2` for a second node shader named f
        self.b.label()
        self.ml.nodes.begin_entry(self, node, input_handle)
        for var in io.variables if io is not None else ():
            self.use_global(var)
        loop_stages.terminator_guard(self, node)
        for param in self.function.params:
            found = io.places.get(param) if io is not None else None
            copied = io.inputs.get(param) if io is not None else None
            if copied is not None:                       # pixel inputs: the function may write its copy
                local = self.local(param.type, param.name)
                self.store(local, self.load(copied))
                found = local
            self.bindings[param] = found if found is not None else self._entry_parameter(node, param)
            if found is not None and mesh_qualifier(param) in MESH_QUALIFIERS:
                self.mesh_outputs.add(param)
        for variable, place in statics:
            self.use_global(place.pointer)
            assert variable.init is not None
            if not fresh_ray_query(variable.init):
                self.store(place, self.value(variable.init))
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
        if self.b.in_block and self.ml.options.checks:     # wgc run --check: allocations not completed
            emulated_checks.before_return(self)
        if self.b.in_block:
            if self.function.return_type is t.VOID or self.entry_result is not None:
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
        value, count = self.ml.nodes.system_value(self, (semantic or "").lower())
        builtin_type = t.UINT if count == 1 else t.vector(t.UINT, count)
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
        pointee = self._memory_type_id(place)
        pointer_type = self.b.type_pointer(place.storage, pointee)
        chain = self.b.emit("OpAccessChain", pointer_type, place.pointer, *place.indices)
        return resources.decorate_non_uniform_place(self, chain, place)  # an element of an array of buffers

    def load(self, place: Location) -> int:
        if isinstance(place, SplitPlace):
            parts = [self.load(part) for part in self._split_parts(place)]
            return self.b.emit("OpCompositeConstruct", self.types.id(place.type), *parts)
        if isinstance(place, ImagePlace):
            return resources.image_load(self, place)
        if isinstance(place, SwizzlePlace):
            vector = self.load(place.vector)
            return self.swizzle(vector, place.vector.type, place.components, place.type)
        memory_type = self._memory_type_id(place)
        value = self.b.emit("OpLoad", memory_type, self.pointer(place), *self.ml.memory_access(place, store=False))
        if self.ml.options.checks and place.storage == "PhysicalStorageBuffer":   # wgc run --check
            emulated_checks.record_load(self, place, value)
        if place.stage_bool:
            return stage_bool(self, value, place.type, to_bool=True)
        if place.as_array is not None:
            return self._grid_as_array(value, place.type, place.as_array)
        return self.representation(value, place.type, place.layout, None)

    def store(self, place: Location, value: int) -> None:
        if isinstance(place, SplitPlace):
            for i, part in enumerate(self._split_parts(place)):
                self.store(part, self.b.emit("OpCompositeExtract", self.types.id(part.type), value, i))
            return
        if isinstance(place, ImagePlace):
            resources.image_store(self, place, value)
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
        if place.stage_bool:
            value = stage_bool(self, value, place.type, to_bool=False)
        elif place.as_array is not None:
            value = self._grid_as_vector(value, place.as_array, place.type)
        else:
            value = self.representation(value, place.type, None, place.layout)
        self.b.emit("OpStore", self.pointer(place), value, *self.ml.memory_access(place, store=True))

    def _memory_type_id(self, place: Place) -> int:
        """The type id of what `place` points at (a bool stage variable holds uint)."""
        if place.stage_bool:
            return self.types.id(stage_uint_type(place.type))
        return self.types.id(place.type, place.layout)

    def _grid_as_array(self, vector: int, vector_type: t.Type, array: t.ArrayType) -> int:
        """An SV_DispatchGrid vector (or scalar) loaded from memory as the array value sema typed."""
        parts = self.components(vector, vector_type)
        return self.b.emit("OpCompositeConstruct", self.types.id(array), *parts)

    def _grid_as_vector(self, value: int, array: t.ArrayType, vector_type: t.Type) -> int:
        assert array.length is not None
        parts = [self.b.emit("OpCompositeExtract", self.types.id(array.element), value, i)
                 for i in range(array.length)]
        return self.build(parts, vector_type)

    def _split_parts(self, place: SplitPlace) -> list[Place | SplitPlace]:
        """The members of a split struct, or the elements of a split array (constant indices)."""
        if isinstance(place.type, t.ArrayType):
            assert place.type.length is not None
            return [self.split_element(place, self.uint(i)) for i in range(place.type.length)]
        return list(place.fields)

    def field_place(self, place: Place, index: int) -> Place:
        struct = self.types.shape(place.type)
        assert isinstance(struct, t.StructType)
        layout = place.layout.members[index].layout if place.layout is not None else None
        field = struct.all_fields()[index]
        grid = dispatch_grid_vector(field) if layout is not None else None
        if grid is not None:
            assert isinstance(field.type, t.ArrayType)
            return place.step(grid, MEMORY, self.uint(index), field.type)
        return place.step(field.type, layout, self.uint(index))

    def split_element(self, place: Place | SplitPlace, index: int) -> Place | SplitPlace:
        """Element `index` of an array, split (each field indexed) or not."""
        if isinstance(place, Place):
            return self.element_place(place, index)
        assert isinstance(place.type, t.ArrayType)
        return SplitPlace(place.type.element, tuple(self.split_element(f, index) for f in place.fields))

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
        return place.step(element, layout, index)

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

    # ------------------------------------------------------------ statements and calls (control.py)

    def block(self, block: ir.Block) -> None:
        self.control.block(block)

    def expr_Call(self, expr: ir.Call) -> object:
        return self.control.call(expr)

    # ------------------------------------------------------------ expressions

    def evaluate(self, expr: ir.Expr) -> object:
        """What an expression lowers to: an id, None for a void call, or a handle for node objects
        and resources."""
        result: object = getattr(self, "expr_" + type(expr).__name__)(expr)
        return result

    def value(self, expr: ir.Expr) -> int:
        """The id of the value of an expression that is neither void nor an object."""
        result = self.evaluate(expr)
        assert isinstance(result, int) and not isinstance(result, bool), \
            f"'{type(expr).__name__}' of type '{expr.type}' has no SPIR-V value"
        return result

    def handle(self, expr: ir.Expr) -> object:
        """The handle of an object-valued expression (node object, resource; `places.py`)."""
        return self.evaluate(expr)

    def place(self, expr: ir.Expr) -> Location | None:
        """The memory location an expression denotes, or None for a pure value."""
        if isinstance(expr, ir.VarRef):
            binding = self.binding(expr.variable)
            return binding if isinstance(binding, (Place, SplitPlace)) else None
        if isinstance(expr, ir.FieldAccess):
            base = self.place(expr.base)
            if isinstance(base, SplitPlace):
                return base.fields[expr.index]
            if isinstance(base, Place):
                return self.field_place(base, expr.index)
            return None
        if isinstance(expr, ir.Index):
            if is_object(expr.base.type):
                return None
            base = self.place(expr.base)
            if isinstance(base, (Place, SplitPlace)):
                return self.split_element(base, self.value(expr.index))
            return None
        if isinstance(expr, ir.Swizzle):
            base = self.place(expr.base)
            shape = self.types.shape(expr.base.type)
            if isinstance(base, ImagePlace) and isinstance(shape, t.VectorType):   # texel components:
                # read-modify-write
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
            return resources.index_place(self, expr)
        return None

    def binding(self, variable: ir.Variable) -> object:
        found = self.bindings.get(variable)
        if found is None:
            if variable.storage in (ir.Storage.LOCAL, ir.Storage.PARAMETER):
                raise AssertionError(f"'{variable.name}' is used before it is bound")
            record = self.ml.nodes.shader_record_place(self, variable) if variable.shader_record else \
                self.ml.nodes.local_root_binding(self, variable)
            if record is not None:
                return record
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
        if isinstance(binding, (Place, SwizzlePlace, SplitPlace)):
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
        if is_object(expr.type):                                 # resources[i]
            handle = self.handle(expr.base)
            assert isinstance(handle, ResourceHandle)
            return replace(handle, indices=handle.indices + (self.value(expr.index),))
        loaded = self._through_place(expr)
        if loaded is not None:
            return loaded
        base_type = self.types.shape(expr.base.type)
        base = self.value(expr.base)
        if isinstance(expr.index, ir.Constant):
            index_value = expr.index.value
            assert isinstance(index_value, int)
            return self.b.emit("OpCompositeExtract", self.types.id(expr.type), base, index_value)
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
        return resources.index_value(self, expr)

    def _output_element(self, outputs: ir.Expr, index: ir.Expr) -> OutputHandle | NullHandle:
        handle = self.handle(outputs)
        if isinstance(handle, NullHandle):
            self.value(index)
            return handle
        assert isinstance(handle, OutputHandle)
        return replace(handle, node_index=self.value(index))

    def expr_RecordAccess(self, expr: ir.RecordAccess) -> int:
        return self.load(self.record_place(expr))

    def record_place(self, expr: ir.RecordAccess) -> Place:
        handle = self.handle(expr.object)
        index = self.value(expr.index) if expr.index is not None else self.uint(0)
        if isinstance(handle, (InputHandle, RecordsHandle)):
            return self.ml.nodes.record_place(self, handle, index, expr.type)
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
        assert scalar is not None
        if self.types.is_float_matrix(expr.type):
            return self._per_row(expr.type, lambda row_t, r: self.b.emit("OpFNegate", row_t, r), operand)
        return self.b.emit("OpFNegate" if scalar.is_float else "OpSNegate", type_id, operand)

    def _per_row(self, type_: t.Type, op, *operands: int) -> int:
        """Apply a component-wise operation to a matrix row by row."""
        shape = self.types.shape(type_)
        assert isinstance(shape, t.MatrixType)
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
            assert isinstance(result_shape, t.MatrixType)
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
                return intrinsics.lanes(self, expr.type, [(cond, expr.cond.type), (a, expr.then.type), (b, expr.else_.type)],
                             lambda row, parts: self.b.emit("OpSelect", self.types.id(row), *parts))
            return self.b.emit("OpSelect", self.types.id(expr.type), cond, a, b)
        if is_object(expr.type):
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
        self.evaluate(expr.left)
        return self.evaluate(expr.right)

    def expr_Convert(self, expr: ir.Convert) -> object:
        if is_object(expr.type):                 # an object is its handle, whatever its spelling
            return self.handle(expr.operand)
        return self.convert(self.value(expr.operand), expr.operand.type, expr.type)

    def expr_Construct(self, expr: ir.Construct) -> int:
        if fresh_ray_query(expr):              # `RayQuery<F>()`: a new, uninitialised query
            return self.load(self.local(expr.type))
        parts = [self.value(a) for a in expr.args]
        shape = self.types.shape(expr.type)
        if t.is_numeric(shape):      # vectors and matrices: from the arguments' components
            scalars = [c for part, arg in zip(parts, expr.args) for c in self.components(part, arg.type)]
            return self.build(scalars, shape)
        return self.b.emit("OpCompositeConstruct", self.types.id(shape), *parts)

    def expr_Assign(self, expr: ir.Assign) -> object:
        if is_object(expr.target.type):
            assert isinstance(expr.target, ir.VarRef)
            handle = self.handle(expr.value)
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

    def expr_IntrinsicCall(self, expr: ir.IntrinsicCall) -> object:
        return intrinsics.lower(self, expr)

    def expr_MethodCall(self, expr: ir.MethodCall) -> object:
        if isinstance(expr.object.type, t.NodeObjectType):
            return self.node_method(expr)
        if isinstance(expr.object.type, t.RayQueryType):
            return rayquery.method(self, expr)
        return resources.method(self, expr)

    # ------------------------------------------------------------ node objects

    def node_method(self, expr: ir.MethodCall) -> object:
        handle = self.handle(expr.object)
        name = expr.method
        nodes = self.ml.nodes
        if isinstance(handle, NullHandle):
            return self._null_method(expr)
        if name in ("GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords",
                    "ThreadIncrementOutputCount", "GroupIncrementOutputCount"):
            assert isinstance(handle, OutputHandle)
            scope = "Invocation" if name.startswith(("GetThread", "Thread")) else "Workgroup"
            count = self.value(expr.args[0])
            self.node_call = expr
            if name.endswith("IncrementOutputCount"):
                nodes.increment_output_count(self, handle, count, scope)
                return None
            return nodes.allocate(self, handle, count, scope)
        if name == "OutputComplete":
            assert isinstance(handle, RecordsHandle)
            nodes.output_complete(self, handle)
            return None
        if name == "Count":
            assert isinstance(handle, InputHandle)
            return nodes.input_count(self, handle)
        if name == "IsValid":
            assert isinstance(handle, OutputHandle)
            return nodes.is_valid(self, handle)
        if name == "FinishedCrossGroupSharing":
            assert isinstance(handle, InputHandle)
            return nodes.finished_cross_group_sharing(self, handle)
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


# ---------------------------------------------------------------- helpers


_NODE_DEPENDENT_INTRINSICS = frozenset({"GetCurrentLoopIterationIndex", "GetRemainingRecursionLevels"})


def _reading_loop_iteration(nodes: list[NodeInfo]) -> frozenset[ir.Function]:
    """The helper functions (not node functions) whose own code calls GetCurrentLoopIterationIndex()
    or GetRemainingRecursionLevels() (both depend on the node: `loop_stages.iteration`,
    `loop_stages.remaining_recursion_levels`), and those that call them."""
    reading: set[ir.Function] = set()
    for node in nodes:
        functions = reachable_functions(node.function)
        direct = {f for f in functions if any(isinstance(item, ir.IntrinsicCall)
                                              and item.name in _NODE_DEPENDENT_INTRINSICS
                                              for item in walk_body(f))}
        reading |= _with_callers(functions, direct)
    return frozenset(reading)


def _with_callers(functions: list[ir.Function], direct: set[ir.Function]) -> set[ir.Function]:
    """`direct` with every function of `functions` that calls one of them, directly or through others."""
    changed = True
    while changed:
        changed = False
        for function in functions:
            if function not in direct and any(isinstance(item, ir.Call) and item.function in direct
                                              for item in walk_body(function)):
                direct.add(function)
                changed = True
    return direct


def _reading_local_root(nodes: list[NodeInfo]) -> frozenset[ir.Function]:
    """The helper functions (not node functions) that name a variable some node's local root signature
    binds (`NodeInfo.local_root_bindings`: read from the node's table entry), and those that call them."""
    bound = {variable for node in nodes for variable in node.local_root_bindings}
    if not bound:
        return frozenset()
    reading: set[ir.Function] = set()
    for node in nodes:
        functions = [f for f in reachable_functions(node.function) if f is not node.function]
        direct = {f for f in functions if any(isinstance(item, ir.VarRef) and item.variable in bound
                                              for item in walk_body(f))}
        reading |= _with_callers(functions, direct)
    return frozenset(reading)


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


def scalar_alignment(types: TypeLowering, type_: t.Type) -> int:
    """The alignment of `type_` in scalar layout: its largest scalar's size (a bool is a uint)."""
    shape = types.shape(type_)
    if isinstance(shape, t.StructType):
        return max((scalar_alignment(types, f.type) for f in shape.all_fields()), default=4)
    if isinstance(shape, t.ArrayType):
        return scalar_alignment(types, shape.element)
    scalar = t.element_scalar(shape)
    assert scalar is not None, f"'{type_}' is not laid out in memory"
    return 4 if scalar.kind is t.ScalarKind.BOOL else scalar.bits // 8
