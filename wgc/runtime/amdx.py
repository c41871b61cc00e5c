"""Runtime, the AMDX path: run SPV_AMDX_shader_enqueue modules by translating them (`wgc.spirv_in`).

Input: AMDX modules (paths or bytes; several make one graph) and the node names the application
gives their entry points, or HLSL that is compiled here for the AMDX target first.
Output: `amdx_program(...) -> (diagnostics, emulated module, Program)`, what `run.py` executes on
the emulated path: the graph read from the modules alone (`spirv_in.graph`), the module translated
to the emulated contract (`spirv_in.translate`).
Invariants: nothing of wgc's reflection decides the graph; from HLSL, only what an application
knows beside the module is taken from the compile: the node names it gives entry points (pName),
the indices it creates loop stages at, and the resources as the HLSL declares them (registers,
names, component counts: SPIR-V has set and binding only), so that a dispatch file written for the
HLSL works on both paths. A module that cannot be read or
translated is a WG0820 diagnostic, never an exception.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from wgc import codes
from wgc.diagnostics import Diagnostic

PATHS = ("emulated", "amdx")
"""`wgc run --path`: compile for the emulated target, or for AMDX and translate."""


def is_module(source: Any) -> bool:
    """Whether `source` is SPIR-V (bytes, or a path ending in .spv) rather than HLSL."""
    if isinstance(source, (bytes, bytearray)):
        return True
    if isinstance(source, (list, tuple)):
        return bool(source) and all(is_module(s) for s in source)
    return isinstance(source, (str, os.PathLike)) and os.fspath(source).endswith(".spv")


def amdx_program(modules: list[tuple[str, bytes]], names: dict[str, str] | None = None,
                 registers: Any = None, indices: dict[str, list[int]] | None = None,
                 specialization: dict[int, int] | None = None) -> tuple[list[Diagnostic], bytes | None, Any]:
    """(diagnostics, translated module, program) of AMDX `modules` ((name, bytes) each);
    `specialization`: SpecId -> the value the graph and the translation read for it."""
    from wgc.runtime.program import build_program
    from wgc.spirv_in.graph import GraphError, read_graph
    from wgc.spirv_in.reader import ModuleError, read_module
    from wgc.spirv_in.merge import merge
    from wgc.spirv_in.translate import TranslateError, translate
    from wgc.spirv import tools

    try:
        read = [read_module(data, name) for name, data in modules]
        for module in read:
            module.specialization = dict(specialization or {})
        graph = read_graph(read, names, indices)
        nodes = list(graph.reflection.nodes)
        translated = []
        for module in read:
            mine = [i for i, c in enumerate(graph.code) if c.module is module]
            translated.append((module.name, translate(module, [graph.code[i] for i in mine], [nodes[i] for i in mine])))
        for name, words in translated:
            problems = tools.validate(words, "vulkan1.3", scalar_block_layout=True)
            if problems:
                return [codes.AMDX_NOT_RUNNABLE(None, f"{name}: the translated module is not valid SPIR-V "
                                                f"({'; '.join(problems)[:2000]}): a wgc bug")], None, None
        if len(translated) == 1:
            emulated = translated[0][1]
        else:
            emulated, renamed = merge(translated)
            order = {id(m): k for k, m in enumerate(read)}
            nodes = [replace(n, entry_point=renamed[(order[id(c.module)], n.entry_point)])
                     for n, c in zip(nodes, graph.code)]
    except (ModuleError, GraphError, TranslateError) as problem:
        return [codes.AMDX_NOT_RUNNABLE(None, str(problem))], None, None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as problem:   # never a traceback
        return [codes.AMDX_NOT_RUNNABLE(None, f"{', '.join(name for name, _ in modules)}: the module cannot be "
                                        f"translated ({type(problem).__name__}: {problem}; a wgc bug, or a "
                                        "module that breaks a rule spirv-val checks)")], None, None
    problems = tools.validate(emulated, "vulkan1.3", scalar_block_layout=True)
    if problems:
        return [codes.AMDX_NOT_RUNNABLE(None, f"the modules merged are not valid SPIR-V "
                                        f"({'; '.join(problems)[:2000]}): a wgc bug")], None, None
    program = build_program(replace(graph.reflection, nodes=tuple(nodes)), stripes=False)   # one slot per element
    if graph.pixel_shaders:
        if len(translated) > 1:
            return [codes.AMDX_NOT_RUNNABLE(None, "mesh nodes and pixel shaders split over several AMDX modules: "
                                            "the AMDX path draws from one module (compile without --split-nodes)")
                    ], None, None
        program = replace(program, pixel_shaders=graph.pixel_shaders)
    from wgc.runtime.pipelines import module_spec_constants

    program = replace(program, graph_spec_ids={i: n for module in read for i, n in _shaping_spec_ids(module).items()},
                      graph_specializable=True,
                      source_spec_constants=tuple(c for _, data in modules for c in module_spec_constants(data)))
    if registers is not None:
        program = _with_registers(program, registers)
    return [], emulated, program


def _shaping_spec_ids(module: Any) -> dict[int, str]:
    """SpecIds of the specialization constants an AMDX module's graph reads: `<id>` operands of
    `OpExecutionModeId` / `OpDecorateId` and array lengths, through `OpSpecConstantOp`s."""
    roots: list[int] = []
    for modes in module.execution_modes.values():
        roots.extend(i for inst in modes if inst.opname == "OpExecutionModeId" for i in inst.ids()[1:])
    for decorations in module.decorations.values():
        roots.extend(i for inst in decorations if inst.opname == "OpDecorateId" for i in inst.ids()[1:])
    roots.extend(inst.ids()[1] for inst in module.defs.values() if inst.opname == "OpTypeArray")
    found: dict[int, str] = {}
    seen: set[int] = set()
    while roots:
        id_ = roots.pop()
        inst = module.defs.get(id_)
        if id_ in seen or inst is None:
            continue
        seen.add(id_)
        if inst.opname.startswith("OpSpecConstant"):
            spec_id = module.spec_id(id_)
            if spec_id is not None:
                found[spec_id] = module.names.get(id_, "")
            roots.extend(inst.ids())
    return found


def _with_registers(program: Any, reflection: Any) -> Any:
    """The program's resources as the HLSL declares them (by set and binding): their registers and
    names, and what SPIR-V does not keep (a texture's component count, a typed buffer's element
    type, how a buffer is dumped). Which bindings the nodes use stays the module's."""
    from wgc.runtime.program import build_program

    hlsl: dict[tuple[int, int], list[Any]] = {}
    for r in build_program(reflection).resources:
        hlsl.setdefault((r.set, r.binding), []).append(r)
    resources: list[Any] = []
    for resource in program.resources:
        known = hlsl.pop((resource.set, resource.binding), None)
        if known is None:        # a second variable at a binding already described, or none in the HLSL
            if all((r.set, r.binding) != (resource.set, resource.binding) for r in resources):
                resources.append(resource)
            continue
        resources.extend(replace(k, used_by=resource.used_by) for k in known)   # a sampler and an image may share one
    return replace(program, resources=tuple(resources))


def compile_amdx(source: Any, stdin: bytes | None, specialization: dict[int, int] | None = None
                 ) -> tuple[list[Diagnostic], bytes | None, Any]:
    """HLSL (a path or `driver.Options`) compiled for AMDX (one module per node with the options'
    `split_nodes`), then `amdx_program`."""
    from wgc import driver

    options = source if isinstance(source, driver.Options) else driver.Options(input=os.fspath(source))
    # the translation moves records to PhysicalStorageBuffer memory, where DXC's atomics on shared records
    # (WG0620, which spirv-val refuses in the AMDX module) are valid
    flags = (*options.warning_flags, "no-amdx-record-atomics")
    result = driver.compile(replace(options, emit="spirv", target="amdx", reflection=True, warning_flags=flags), stdin)
    return result_program(result, options.input, specialization)


def is_amdx_result(result: Any) -> bool:
    """Whether a compile's `Result` holds AMDX modules (one, or one per node) and its reflection."""
    modules = [data for key, data in result.outputs.items() if key.split(":")[0] == "spirv"]
    return result.reflection is not None and bool(modules) and all(b"SPV_AMDX_shader_enqueue" in m for m in modules)


def result_program(result: Any, input_name: str, specialization: dict[int, int] | None = None
                   ) -> tuple[list[Diagnostic], bytes | None, Any]:
    """`amdx_program` of a compile's AMDX modules, with what the compile knows that an application
    knows beside the modules (module docstring)."""
    diagnostics = list(result.diagnostics)
    if not result.ok:
        return diagnostics, None, None
    names: dict[str, str] = {}
    indices: dict[str, list[int]] = {}
    for n in result.reflection.nodes:
        if n.launch not in ("thread", "coalescing", "broadcasting", "mesh"):    # a pixel shader: no node
            continue
        key = f"{n.module}:{n.entry_point}" if n.module else n.entry_point
        if n.entry_point != n.id.name:
            names[key] = n.id.name
        indices.setdefault(key, []).extend(s.index for s in n.stages)
    modules = [(f"{key[6:]}.spv" if ":" in key else input_name, data)
               for key, data in sorted(result.outputs.items()) if key.startswith("spirv")]
    more, module, program = amdx_program(modules, names, result.reflection, indices, specialization)
    return diagnostics + more, module, program


def load_modules(source: Any, names: dict[str, str] | None, indices: dict[str, list[int]] | None = None,
                 specialization: dict[int, int] | None = None) -> tuple[list[Diagnostic], bytes | None, Any]:
    """AMDX modules given as paths or bytes."""
    items = list(source) if isinstance(source, (list, tuple)) else [source]
    modules = []
    for i, item in enumerate(items):
        if isinstance(item, (bytes, bytearray)):
            modules.append((f"<module {i}>", bytes(item)))
            continue
        path = os.fspath(item)
        try:
            with open(path, "rb") as handle:
                modules.append((path, handle.read()))
        except OSError as error:
            return [codes.INPUT_NOT_READABLE(None, f"cannot open '{path}': {error.strerror or error}")], None, None
    return amdx_program(modules, names, indices=indices, specialization=specialization)
