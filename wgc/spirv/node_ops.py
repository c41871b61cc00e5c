"""The node operations of a SPIR-V target: the one interface the body lowering calls (SPIR-V back end).

Input: calls from `lower.py` (bodies), `intrinsics.py` (recursion level, loop iteration, barriers
on record memory), `resources.py` (push constants) and `module.py` (declarations, entry points).
Output: the instructions of each node operation, emitted through the `ModuleLowering` /
`FunctionLowering` passed in.

Two implementations: `amdx.AmdxNodes` (SPV_AMDX_shader_enqueue: NodePayloadAMDX records, the
product) and `emulated.EmulatedNodes` (plain GLCompute entry points reading records through
PhysicalStorageBuffer pointers, by the contract in `wgc.emulation_abi`). Everything else in a body
(expressions, statements, resources, intrinsics) is lowered once, by the shared code.

Invariants:
- A target only lowers: sema (`wgc.sema.target`, per target) has checked everything, and a
  broken assumption is an AssertionError.
- Node objects are handles (`places.py`), never SPIR-V values; a handle's ids are created where the
  object is bound, so they dominate every use (sema, WG0453).
- Per-module state lives on the target object (one per `ModuleLowering`); per-function state on
  the object `function_state()` returns (one per `FunctionLowering`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from wgc import ir
from wgc.sema.nodes import NodeInfo

from .places import InputHandle, OutputHandle, Place, RecordsHandle

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

TARGETS = ("amdx", "emulated")
"""The SPIR-V targets: `amdx` (the default product) and `emulated` (`wgc run`)."""


class NodeOperations(ABC):
    """What differs between the SPIR-V targets (module docstring)."""

    name: str
    record_memory: str
    """The MemorySemantics storage class that orders node-record memory in a barrier."""

    # ------------------------------------------------------------ module and entry points

    @abstractmethod
    def setup_module(self, ml: ModuleLowering, nodes: list[NodeInfo]) -> None:
        """Capabilities, extensions and the memory model of a module holding `nodes`."""

    @abstractmethod
    def declare_node(self, ml: ModuleLowering, node: NodeInfo
                     ) -> tuple[InputHandle | None, dict[ir.Variable, OutputHandle]]:
        """The input (None for an implied one) and outputs of `node`, declared at module scope."""

    def function_state(self) -> object:
        """Per-function state of this target (created with each FunctionLowering)."""
        return None

    @abstractmethod
    def begin_entry(self, fl: FunctionLowering, node: NodeInfo, input_handle: InputHandle | None) -> None:
        """Code at the start of a node's entry function, before its parameters are bound."""

    def entry_function(self, ml: ModuleLowering, fn: int, node: NodeInfo) -> int:
        """The function that becomes `node`'s entry point, given its lowered entry function `fn`
        (no function is open): `fn` itself, or a new function that calls it (the emulated target's
        level tail, `emulated_tail.py`)."""
        return fn

    @abstractmethod
    def declare_entry_point(self, ml: ModuleLowering, fn: int, node: NodeInfo, is_entry: bool, name: str) -> None:
        """OpEntryPoint and the execution modes of `node`, whose function is `fn`."""

    @abstractmethod
    def system_value(self, fl: FunctionLowering, semantic: str) -> tuple[int, int]:
        """The value of a node's SV_* parameter (`semantic` lower case) as (id, component count) of uint."""

    def push_constant_place(self, ml: ModuleLowering, variable: ir.Variable) -> Place | None:
        """The Place of a user `[[vk::push_constant]]` block, or None to declare it as usual."""
        return None

    def shader_record_place(self, fl: FunctionLowering, variable: ir.Variable) -> Place | None:
        """The Place of a `[[vk::shader_record_ext]]` block (the node's local root arguments) where
        `fl` uses it, or None to declare it as an ordinary uniform block (its binding)."""
        return None

    reads_local_root = False
    """Whether `local_root_binding` reads variables from local root arguments (the helpers naming them are
    then inlined into their nodes: the argument's place depends on the node's local root signature)."""

    def local_root_binding(self, fl: FunctionLowering, variable: ir.Variable) -> object:
        """The Place (uniform block) or ResourceHandle (buffer) of a module-scope variable where the local root
        signature of `fl`'s node binds it (`NodeInfo.local_root_bindings`), or None to use its descriptor."""
        return None

    def printf(self, fl: FunctionLowering, format_: str, args: list[ir.Expr]) -> bool:
        """Lower printf(format_, args...) the target's own way and say True, or say False for
        NonSemantic.DebugPrintf (the shared lowering, `intrinsics._printf`)."""
        return False

    def loop_iteration(self, fl: FunctionLowering, loop: ir.Loop) -> None:
        """Code each time a loop's header runs (first in the block after it): nothing by default."""
        return None

    def loop_exit(self, fl: FunctionLowering, loop: ir.Loop) -> None:
        """Code where a loop is left (first in its merge block): nothing by default."""
        return None

    # ------------------------------------------------------------ records

    @abstractmethod
    def record_place(self, fl: FunctionLowering, handle: InputHandle | RecordsHandle, index: int,
                     type_: object) -> Place:
        """The memory of record `index` (an id) of an input or of allocated output records."""

    @abstractmethod
    def input_count(self, fl: FunctionLowering, handle: InputHandle) -> int:
        """`Count()` of an input."""

    @abstractmethod
    def allocate(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> RecordsHandle:
        """Get{Thread,Group}NodeOutputRecords(count): `scope` is Invocation or Workgroup."""

    @abstractmethod
    def increment_output_count(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> None:
        """{Thread,Group}IncrementOutputCount(count) on an empty output."""

    @abstractmethod
    def output_complete(self, fl: FunctionLowering, records: RecordsHandle) -> None:
        """OutputComplete()."""

    @abstractmethod
    def is_valid(self, fl: FunctionLowering, handle: OutputHandle) -> int:
        """IsValid() of an output (array element)."""

    @abstractmethod
    def finished_cross_group_sharing(self, fl: FunctionLowering, handle: InputHandle) -> int:
        """FinishedCrossGroupSharing() of an RW input."""

    @abstractmethod
    def remaining_recursion_levels(self, fl: FunctionLowering) -> int:
        """GetRemainingRecursionLevels()."""

    @abstractmethod
    def loop_iteration_index(self, fl: FunctionLowering) -> int:
        """GetCurrentLoopIterationIndex()."""

    @abstractmethod
    def shader_index(self, fl: FunctionLowering) -> int:
        """The index of the running stage (ShaderIndexAMDX): loops in index space derive the iteration from it."""
