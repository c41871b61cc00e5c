"""Semantic analysis, the results object: everything the later stages need that sema knows.

Stage: the last of sema. `analyze` fills it; the driver, both SPIR-V targets (`wgc.spirv`), the
metadata views and the reflection (`wgc.metadata`) only read it (besides the IR and `wgc.irtools`),
never call sema's rule modules (tests/test_layering.py checks the imports), as naga's back ends
read only the validator's `ModuleInfo`.

Input: the checked module, the nodes, the graph and the other stages' entry points (`analyze`).
Output: `Analysis`: those, the diagnostics, and the facts derived from them, each computed once
per analysis when first asked (`_memo`): the loops' stage plan, the unrolled depth, the functions
each entry reaches, the resources each reaches, entry-point names and module groups of a set of
nodes, mesh facts (DispatchMesh payloads, the semantics output per primitive, the stage
interfaces), atomics facts (the Interlocked* calls that stay plain), binding facts, and the
target's checks (`check_target`, the node selection and the warnings of composing modules).

Invariants: the products are only meant for later stages when no diagnostic is an error; a fact
is computed from the analysis's own fields (and the arguments asked), never from the options of a
compile, so asking twice gives the same object; nothing here reports beyond what the rule module
it calls reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wgc import ir
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic
from wgc.irtools.walk import reachable_functions
from wgc.sema import bindings, entry_stages, mesh
from wgc.sema.graph import GraphInfo, Loop
from wgc.sema.nodes import NodeInfo, spec_constant_arguments
from wgc.source import SourceFile

if TYPE_CHECKING:
    from wgc.sema.stages import StagePlan, UnrolledDepth
    from wgc.sema.usage import ResourceUse

# `stages`, `usage`, `modules` and `target` are imported where first used: only the later stages ask
# for what they compute, and a compile that stops after sema (`--emit=ir`, `-M`) need not load them.


@dataclass(frozen=True)
class Analysis:
    module: ir.Module
    diagnostics: tuple[Diagnostic, ...]
    nodes: tuple[NodeInfo, ...] = ()
    graph: GraphInfo | None = None
    stage_entries: tuple[NodeInfo, ...] = ()
    """The compute, pixel, mesh and amplification shaders beside the nodes (`entry_stages.py`; never in the graph)."""
    unsound: frozenset[ir.Function] = frozenset()
    """The functions whose declaration (body, attributes or parameters) holds an error: their IR may be
    incomplete (`wgc.ir_verify` skips them)."""
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """The derived facts computed so far, by what was asked (a fact is computed once)."""

    def _once(self, key: Any, compute: Any) -> Any:
        found = self._memo.get(key, _MISSING)
        if found is _MISSING:
            found = self._memo[key] = compute()
        return found

    # ------------------------------------------------------------ the graph

    def stage_plan(self) -> StagePlan:
        """The loops' stages in index space (`sema.stages.plan_stages`) of the graph."""
        from wgc.sema import stages

        assert self.graph is not None
        return self._once("stage_plan", lambda: stages.plan_stages(self.graph))

    def unrolled_depth(self) -> UnrolledDepth:
        """The depth of the unrolled graph (`sema.stages.unrolled_depth`)."""
        from wgc.sema import stages

        assert self.graph is not None
        return self._once("unrolled_depth", lambda: stages.unrolled_depth(self.graph))

    def loop_chain(self, node: NodeInfo) -> tuple[Loop, ...]:
        """The loops holding `node`, outermost first."""
        from wgc.sema import stages

        assert self.graph is not None
        return stages.loop_chain(node, self.graph)

    # ------------------------------------------------------------ what entry points reach

    def reachable(self, function: ir.Function) -> list[ir.Function]:
        """`function` and the user functions it calls, transitively, in first-call order (shared: never
        modify the list)."""
        return self._once(("reachable", function), lambda: reachable_functions(function))

    def resource_use(self, function: ir.Function) -> ResourceUse:
        """What an entry point reaches of the module's descriptors and push constants."""
        from wgc.sema import usage

        return self._once(("resource_use", function), lambda: usage.resource_use(function))

    # ------------------------------------------------------------ modules and entry points

    def entry_point_names(self, nodes: Sequence[NodeInfo]) -> dict[str, str]:
        """node key -> entry point name in the module holding `nodes` (`sema.modules.entry_point_names`)."""
        from wgc.sema import modules

        key = ("entry_point_names", tuple(id(n) for n in nodes))
        return self._once(key, lambda: modules.entry_point_names(nodes)[0])

    @staticmethod
    def module_groups(nodes: Sequence[NodeInfo], split: bool) -> list[tuple[str, list[NodeInfo]]]:
        """(key, nodes) of each module a compile of `nodes` makes."""
        from wgc.sema import modules

        return modules.module_groups(nodes, split)

    def needs_vulkan_memory_model(self, nodes: Sequence[NodeInfo]) -> bool:
        """Whether the module holding `nodes` uses the Vulkan memory model."""
        from wgc.sema import modules

        return modules.needs_vulkan_memory_model(nodes)

    def plain_record_atomics(self, nodes: Sequence[NodeInfo]) -> frozenset[ir.IntrinsicCall]:
        """The Interlocked* calls on node records that the back end lowers as load, operation, store."""
        from wgc.sema import target

        return target.plain_record_atomics(nodes)

    # ------------------------------------------------------------ stages beside the nodes

    def per_primitive_semantics(self) -> frozenset[str]:
        """The semantics the mesh entry points (mesh shaders, mesh nodes) output per primitive."""
        return self._once("per_primitive", lambda: mesh.per_primitive_semantics(
            [*self.nodes, *self.stage_entries]))

    def dispatch_mesh_calls(self, function: ir.Function) -> list[ir.IntrinsicCall]:
        """The DispatchMesh calls in the code `function` reaches, in source order."""
        return self._once(("dispatch_mesh", function), lambda: mesh.dispatch_mesh_calls(function))

    @staticmethod
    def task_payload(call: ir.IntrinsicCall) -> ir.Variable | None:
        """The groupshared variable a DispatchMesh call passes as its payload (None: another expression)."""
        return mesh.task_payload(call)

    @staticmethod
    def stage_interface(entry: NodeInfo) -> list[entry_stages.InterfaceValue]:
        """The stage inputs and outputs of a compute, pixel, mesh or amplification shader."""
        return entry_stages.stage_interface(entry)

    # ------------------------------------------------------------ bindings and attributes

    @staticmethod
    def descriptor_type(variable: ir.Variable) -> str | None:
        """The Vulkan descriptor type of a resource or uniform block."""
        return bindings.descriptor_type_of(variable)

    @staticmethod
    def register_class(variable: ir.Variable) -> str | None:
        """The register class ("b", "t", "u", "s") that suits `variable`; None if it is no resource."""
        return bindings.register_class_of(variable)

    @staticmethod
    def written_register(binding: ir.Binding) -> tuple[str, int, int] | None:
        """(class, number, space) of the `register(...)` written on a declaration, if any."""
        return bindings.written_register(binding)

    @staticmethod
    def spec_constant_arguments(node: NodeInfo) -> list[tuple[str | None, ir.Attribute, int, ir.AttributeArg]]:
        """The attribute arguments of `node` that are specialization constants."""
        return spec_constant_arguments(node)

    # ------------------------------------------------------------ the target (`sema.target`)

    def select_nodes(self, nodes: Sequence[NodeInfo], entry: str | None) -> tuple[list[NodeInfo], list[Diagnostic]]:
        """The nodes to compile among `nodes`: all, or the one `-E entry` selects (WG0603 otherwise)."""
        from wgc.sema import modules

        functions = [f.name for f in self.module.functions if f.method_of is None]
        return modules.select_nodes(nodes, entry, functions)

    def check_target(self, nodes: Sequence[NodeInfo], embedded_source: SourceFile | None = None,
                     target_name: str = "amdx", index_space: bool = False, split_nodes: bool = False,
                     target_env: str = "vulkan1.3") -> list[Diagnostic]:
        """The limits of the target broken by `nodes` (`sema.target.check_target`)."""
        from wgc.sema import target

        return target.check_target(self, nodes, embedded_source, target_name, index_space=index_space,
                                   split_nodes=split_nodes, target_env=target_env)

    @staticmethod
    def composition_warnings(nodes: Sequence[NodeInfo], split: bool, target_name: str) -> list[Diagnostic]:
        """WG0604/WG0605: what composing `nodes` into modules for the target warns of."""
        from wgc.sema import modules

        return modules.composition_warnings(nodes, split, target_name)

    def depth_warnings(self, max_graph_depth: int | None) -> list[Diagnostic]:
        """WG0513 (amdx): the unrolled graph deeper than maxExecutionGraphDepth."""
        from wgc.sema import target

        return target.depth_warnings(self.graph, max_graph_depth,
                                     self.unrolled_depth() if self.graph is not None and self.graph.nodes else None)

    @staticmethod
    def local_size_id_allowed(target_env: str) -> bool:
        """Whether the Vulkan version takes LocalSizeId without an extension."""
        from wgc.sema import target

        return target.local_size_id_allowed(target_env)


_MISSING = object()
