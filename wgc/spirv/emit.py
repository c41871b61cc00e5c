"""SPIR-V generation for one compile: choose the modules, lower, validate, lint, optimize.

Input: the checked `Analysis` (`wgc.sema.results`: typed IR, nodes, graph and what sema derives
of them), `EmitOptions` (with the facts `wgc.sema.target` hands over: the Interlocked* calls on
thread-owned node records) and the nodes to compile (`Analysis.select_nodes`: all, or the one `-E`
selects; never none).
Output: `Emitted`: one module's words (`modules[""]`) or one per node (`--split-nodes`: keyed by
the node's key, `NodeInfo.key`).

Invariants:
- The analysis passed `wgc.sema.target.check_target` for the nodes compiled (nothing the target
  cannot express; loops in index space for the AMDX target and under `index_space_loops`): this
  module only lowers, and an internal error is raised otherwise.
- Every module is validated in process (spirv-val's rules for the target environment, scalar
  block layout for node records; a module of many entry points in parts: `validate_parts.py`
  says what exactly) and linted (`lint.py`: the AMDX rules spirv-val does not check)
  before anything is returned, unless `validate` is off (`-Vd`). A failure is an internal error:
  `InvalidModule` carries the validator's message.
- The one exception to validation: an atomic on a NodePayloadAMDX pointer, which the back end emits
  only where WG0620 (warning `amdx-record-atomics`) let it through, as dxc does, and which
  spirv-val refuses (VUID-StandaloneSpirv-None-04686). When such a module fails, it is validated
  again with each of those atomics replaced by an OpUndef of its result type (an OpAtomicStore
  removed): every other instruction is still checked (`without_record_atomics`).
- `-O` runs only the spirv-opt passes that keep AMDX modules valid (`optimize.py`), and the result
  is validated again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from wgc import ir
from wgc.cached_dataclass import dataclass, field

from .lower import LowerOptions
from .module import lower_module

if TYPE_CHECKING:
    from wgc.sema.nodes import NodeInfo
    from wgc.sema.results import Analysis


class InvalidModule(RuntimeError):
    """The back end produced a module the validator or the lint rejects (a wgc bug)."""


@dataclass(frozen=True)
class EmitOptions:
    target: str = "amdx"
    """`amdx` or `emulated` (`node_ops.TARGETS`)."""
    target_env: str = "vulkan1.3"
    split_nodes: bool = False
    validate: bool = True
    optimize: bool = False
    debug_info: bool = False
    source_name: str = ""
    source_text: str | None = None
    plain_atomics: frozenset[ir.IntrinsicCall] = frozenset()
    """Interlocked* calls on node records one invocation owns (`sema.target.plain_record_atomics`)."""
    index_space_loops: bool = True
    """Loops unrolled in index space (`sema.stages`): always for `amdx`; `emulated` either way."""
    checks: bool = False
    """The emulated target's run-time checks (`wgc run --check`, `emulated_checks.py`)."""


@dataclass
class Emitted:
    modules: dict[str, list[int]] = field(default_factory=dict)


def emit_spirv(analysis: Analysis, options: EmitOptions, nodes: Sequence[NodeInfo] | None = None) -> Emitted:
    """The SPIR-V modules of `nodes` (default: every node) of a checked analysis (see the module docstring)."""
    result = Emitted()
    nodes = list(analysis.nodes if nodes is None else nodes)
    assert options.index_space_loops or options.target == "emulated", "the AMDX target has no native loops"
    assert nodes, "sema.modules.select_nodes reports WG0603 when there is no node to compile"
    lower_options = LowerOptions(target=options.target, target_env=options.target_env, debug_info=options.debug_info,
                                 source_name=options.source_name, source_text=options.source_text,
                                 plain_atomics=options.plain_atomics, index_space_loops=options.index_space_loops,
                                 checks=options.checks,
                                 per_primitive_semantics=analysis.per_primitive_semantics())
    for key, group in analysis.module_groups(nodes, options.split_nodes):
        words = lower_module(analysis, group, lower_options)
        if options.optimize:
            from .optimize import optimize
            masked = without_record_atomics(words) is not None   # spirv-opt's own validation would refuse them
            if masked and options.validate:
                check(words, options.target_env, one_node_per_module=options.split_nodes)
            words = optimize(words, options.target_env, validated=masked)
        if options.validate:
            check(words, options.target_env, one_node_per_module=options.split_nodes)
        result.modules[key] = words
    return result


def check(words: list[int], target_env: str, *, one_node_per_module: bool = False) -> None:
    """Validate and lint a module; raise `InvalidModule` with every message if it fails."""
    from .lint import lint
    from .validate_parts import validate

    messages = validate(words, target_env, scalar_block_layout=True)
    if messages and (masked := without_record_atomics(words)) is not None:
        messages = validate(masked, target_env, scalar_block_layout=True)
    messages += lint(words, one_node_per_module=one_node_per_module)
    if messages:
        raise InvalidModule("the generated SPIR-V does not validate: " + "; ".join(messages))



_ATOMICS = ("OpAtomicLoad", "OpAtomicStore", "OpAtomicExchange", "OpAtomicCompareExchange", "OpAtomicIIncrement",
            "OpAtomicIDecrement", "OpAtomicIAdd", "OpAtomicISub", "OpAtomicSMin", "OpAtomicUMin", "OpAtomicSMax",
            "OpAtomicUMax", "OpAtomicAnd", "OpAtomicOr", "OpAtomicXor")
_POINTER_RESULTS = ("OpVariable", "OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCopyObject",
                    "OpFunctionParameter")


def without_record_atomics(words: list[int]) -> list[int] | None:
    """The module with each atomic on a NodePayloadAMDX pointer replaced by `OpUndef %type %result`
    (an OpAtomicStore dropped), or None if it has none (module docstring)."""
    from . import grammar

    op = grammar.opcode
    pointer_type, atomics = op("OpTypePointer"), {op(name) for name in _ATOMICS}
    pointer_results = {op(name) for name in _POINTER_RESULTS}
    store, undef = op("OpAtomicStore"), op("OpUndef")
    payload = grammar.enumerant("StorageClass", "NodePayloadAMDX")
    payload_types: set[int] = set()
    payload_pointers: set[int] = set()
    out = words[:5]
    found = False
    index = 5
    while index < len(words):
        count, code = words[index] >> 16, words[index] & 0xFFFF
        inst = words[index:index + max(count, 1)]
        index += max(count, 1)
        if code == pointer_type and inst[2] == payload:
            payload_types.add(inst[1])
        elif code in pointer_results and inst[1] in payload_types:
            payload_pointers.add(inst[2])
        elif code in atomics:
            pointer = inst[1] if code == store else inst[3]
            if pointer in payload_pointers:
                found = True
                if code != store:
                    out += [(3 << 16) | undef, inst[1], inst[2]]
                continue
        out += inst
    return out if found else None
