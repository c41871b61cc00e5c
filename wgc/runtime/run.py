"""Runtime, the library API: compile a graph for the emulated target and run a dispatch of it.

Input: a source (a path, `driver.Options`, the `driver.Result` of a compile with its reflection, or
AMDX modules; AMDX is run through `wgc.runtime.amdx`) and a dispatch description (a path to
`dispatch.json`, its text as a `SourceFile`, or a JSON-shaped dict), plus what to dump and which
device to use.  Output: a `RunResult`: diagnostics (compile, dispatch description, device), the
dumped resources as typed arrays, and the trace of every step.

Invariants: never raises for bad input or a missing/failing Vulkan device: those are diagnostics
(WG0001, WG0021-WG0024, WG0800-WG0810, WG0820, WG0860-WG0863); every Vulkan object is destroyed before `run` returns; the
results depend only on the graph, the dispatch and the device's arithmetic (no addresses,
timings or ids), so a deterministic graph gives the same JSON on every run.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import replace
from typing import Any

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, Severity, has_errors
from wgc.source import SourceFile


@dataclass
class RunResult:
    diagnostics: tuple[Diagnostic, ...] = ()
    resources: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    """Dumped resources: key (as asked for) -> {array type: values}."""
    trace: list[Any] = field(default_factory=list)
    """`scheduler.TraceStep`s, one per level of every repeat."""
    device: str | None = None
    path: str = "emulated"
    """Which path ran: "emulated" (compiled for the emulated target) or "amdx" (AMDX modules,
    translated by `wgc.spirv_in`)."""
    schedule: str | None = None
    """Which schedule ran the graph: "gpu-driven" (one submit per pass), "host-driven" (one per
    level; a debugging run, or a shape the GPU-driven plan does not cover), or None (no run)."""
    passes: int = 1
    """Passes of the run (the most of any repeat): more than one where the entry records did not fit
    in the memory the run may use (`passes`)."""
    debug: Any = None
    """The `schedules.DebugRun` of a debugging run (records, stop, schedule), else None."""
    checks: list[Any] | None = None
    """`--check`: the `checks.CheckReport`s of the run (None: the run had no checks)."""
    checks_lost: int = 0
    """`--check`: reports that did not fit in the report buffer."""
    partial: dict[str, Any] | None = None
    """A run that failed after it started: {"code", "message", "level", "repeat"}; `resources` and
    `trace` then hold what the run had made when it stopped."""
    prints: list[Any] = field(default_factory=list)
    """`prints.Print`s of the graph's printf calls, in order (`wgc.runtime.prints`)."""
    prints_lost: int = 0
    """printf calls whose record did not fit in the print buffer (WG0830 says so too)."""
    attachments: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    """A graph that draws: each attachment of the render target as a typed array (row by row from the
    top), by its name."""
    images: dict[str, Any] = field(default_factory=dict)
    """A graph that draws: each colour attachment's `png_image.Picture` (`wgc run --image`)."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def results_json(self) -> str:
        """The dumped resources as JSON (what `wgc run -o` writes): one line per resource, keys in the
        order they were asked for."""
        lines = [f"    {json.dumps(key)}: {json.dumps(arrays)}" for key, arrays in self.resources.items()]
        body = ",\n".join(lines)
        extra = "".join(f',\n  {json.dumps(k)}: {json.dumps(v)}' for k, v in
                        (self.debug.result_json().items() if self.debug is not None else ()))
        more = extra
        if self.partial is not None:
            more += f',\n  "partial": {json.dumps(self.partial)}'
        if self.attachments:
            drawn = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in self.attachments.items())
            more += f',\n  "attachments": {{\n{drawn}\n  }}'
        if self.checks is not None:
            reports = ",\n".join(f"    {json.dumps(r.to_json())}" for r in self.checks)
            more += (f',\n  "checks_lost": {self.checks_lost},\n  "checks": [' +
                     ("\n" + reports + "\n  " if reports else "") + "]")
        if self.prints or self.prints_lost:
            printed = ",\n".join(f"    {json.dumps(p.to_json())}" for p in self.prints)
            more += ',\n  "prints": [\n' + printed + ("\n" if printed else "") + "  ]"
            more += f',\n  "prints_lost": {self.prints_lost}'
        times = self.gpu_time()
        if times is not None:
            more += f',\n  "gpu_time": {json.dumps(times)}'
        return '{\n  "resources": {\n' + body + ("\n" if lines else "") + "  }" + more + "\n}\n"

    def gpu_time(self) -> dict[str, Any] | None:
        """Timed runs (`wgc run --time`): GPU milliseconds in all, per level and per node; else None."""
        if not any(step.gpu_ns is not None for step in self.trace):
            return None
        levels = [(step.gpu_ns or 0) / 1e6 for step in self.trace]
        nodes: dict[str, float] = {}
        for step in self.trace:
            for d in step.dispatches:
                nodes[d.node] = nodes.get(d.node, 0.0) + (d.gpu_ns or 0) / 1e6
        return {"total_ms": round(sum(levels), 6), "levels_ms": [round(v, 6) for v in levels],
                "nodes_ms": {k: round(v, 6) for k, v in nodes.items()}}

    def prints_text(self) -> str:
        """Every print as a line with its prefix (node, level, group, thread, record)."""
        return "".join(p.line() + "\n" for p in self.prints)

    def trace_json(self) -> str:
        shape: dict[str, Any] = {"device": self.device, "path": self.path}
        if self.schedule is not None:
            shape["schedule"] = self.schedule
            shape["passes"] = self.passes
        shape["steps"] = [s.to_json() for s in self.trace]
        if self.partial is not None:
            shape["partial"] = self.partial
        if self.prints:
            shape["prints"] = [p.to_json() for p in self.prints]
        return json.dumps(shape, indent=2) + "\n"

    def trace_text(self) -> str:
        schedule = "" if self.schedule is None else f"schedule: {self.schedule}" + (
            f" in {self.passes} passes" if self.passes > 1 else "") + "; "
        lines = [f"device: {self.device}; {schedule}path: {self.path}"]
        for step in self.trace:
            head = (f"level {step.level}" + (f" (repeat {step.repeat})" if step.repeat else "")
                    + (f" (pass {step.pass_index})" if step.pass_index is not None else ""))
            lines.append(f"{head}: {len(step.dispatches)} dispatch{'es' if len(step.dispatches) != 1 else ''}"
                         + _time_text(step.gpu_ns))
            for d in step.dispatches:
                outs = ", ".join(f"{k}={v}" for k, v in d.records_out.items()) or "no outputs"
                extra = ""
                if d.remaining_recursion_levels:
                    extra += f" remaining-recursion={d.remaining_recursion_levels}"
                if d.loop_iteration:
                    extra += f" loop-iteration={d.loop_iteration}"
                if d.launch == "mesh":
                    drawn = f", primitives {d.primitives}" if d.primitives is not None else ""
                    lines.append(f"  {d.node} (mesh){extra}: records in {d.records_in}, groups {d.groups}{drawn}")
                    continue
                lines.append(f"  {d.node} ({d.launch}){extra}: records in {d.records_in}, groups {d.groups}, "
                             f"records out: {outs}" + _time_text(d.gpu_ns))
        if self.partial is not None:
            where = f" at level {self.partial['level']}" if self.partial.get("level") is not None else ""
            lines.append(f"the run failed{where} ({self.partial['code']}): the trace stops here")
        return "\n".join(lines) + "\n"


def _time_text(ns: int | None) -> str:
    """`; GPU 0.123 ms` after a trace line of a timed run."""
    return "" if ns is None else f"; GPU {ns / 1e6:.3f} ms"


def _compile(source: Any, stdin: bytes | None, check: bool = False) -> tuple[list[Diagnostic], bytes | None, Any]:
    """(diagnostics, emulated module, program) of `source`: a path, `driver.Options` (compiled here
    for the emulated target with its reflection), or the `driver.Result` of such a compile."""
    from wgc import driver
    from wgc.runtime.program import build_program

    if isinstance(source, driver.Result):
        result = source
        problem = _not_runnable(result)
        if problem is not None:
            return list(result.diagnostics) + [codes.RESULT_NOT_RUNNABLE(None, problem)], None, None
    else:
        options = source if isinstance(source, driver.Options) else driver.Options(input=os.fspath(source))
        result = driver.compile(replace(options, emit="spirv", target="emulated", split_nodes=False,
                                        reflection=True, checks=check, debug_info=options.debug_info or check),
                                stdin)
    diagnostics = list(result.diagnostics)
    if not result.ok:
        return diagnostics, None, None
    program = build_program(result.reflection)
    from wgc.runtime.pipelines import SpecConstantInfo

    # every [[vk::constant_id]] of the source, also those the module folded away (only attributes read them)
    declared = tuple(SpecConstantInfo(c.spec_id, c.name, c.type if c.type in ("bool", "int", "uint") else "float", 32)
                     for c in result.reflection.specialization_constants)
    program = replace(program, source_spec_constants=declared)
    if not isinstance(source, driver.Result):     # compiled here: it can be compiled again with other values
        program = replace(program, graph_specializable=True)
        # WG0645 (the emulated target fixes an attribute at a constant's default) is true of the
        # module, not of wgc run, which compiles the graph again with the dispatch's values
        diagnostics = [d for d in diagnostics if d.code != codes.SPEC_CONSTANT_FIXED_BY_TARGET.code]
    return diagnostics, result.outputs["spirv"], program


def _compile_specialized(source: Any, stdin: bytes | None, values: dict[int, int], check: bool = False
                         ) -> tuple[list[Diagnostic], bytes | None, Any]:
    """`_compile` of HLSL `source` with the dispatch's values of its specialization constants fixed as
    their defaults (`driver.Options.spec_values`): the emulated target lays the graph out by the
    attributes they set (grids, MaxRecords, array sizes), which then fold to those values."""
    from wgc import driver

    options = source if isinstance(source, driver.Options) else driver.Options(input=os.fspath(source))
    diagnostics, module, program = _compile(replace(options, spec_values=tuple(sorted(values.items()))), stdin,
                                          check)
    if module is None:     # say where the value that broke a rule came from
        given = ", ".join(f"constant_id {i} = {v}" for i, v in sorted(values.items()))
        note = f"wgc run compiled the graph with the dispatch's specialization values ({given})"
        diagnostics = [replace(d, notes=(*d.notes, note)) if d.severity is Severity.ERROR else d
                       for d in diagnostics]
    return diagnostics, module, program


def _not_runnable(result: Any) -> str | None:
    """Why a compile's `Result` cannot be run, or None."""
    if not result.ok:
        return None
    module = result.outputs.get("spirv")
    if module is None or result.reflection is None:
        return ("wgc.run needs the SPIR-V module and the reflection of one compile: compile with "
                "Options(target='emulated', reflection=True) and emit='spirv' (no --split-nodes)")
    return None


def _dispatch_source(dispatch: Any) -> tuple[SourceFile | None, list[Diagnostic]]:
    if isinstance(dispatch, SourceFile):
        return dispatch, []
    if isinstance(dispatch, dict):
        return SourceFile("<dispatch>", json.dumps(dispatch, indent=2)), []
    path = os.fspath(dispatch)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return None, [codes.INPUT_NOT_READABLE(None, f"cannot open dispatch file '{path}': "
                                                     f"{error.strerror or error}")]
    try:
        return SourceFile(path, data.decode("utf-8-sig")), []
    except UnicodeDecodeError as error:
        return None, [codes.DISPATCH_INVALID(None, f"dispatch file '{path}' is not UTF-8 (byte {error.start})")]


def run(source: Any, dispatch: Any, *, dump: tuple[str, ...] | list[str] = (), device: str | None = None,
        stdin: bytes | None = None, memory_limit: int | None = None, path: str = "emulated",
        names: dict[str, str] | None = None, indices: dict[str, list[int]] | None = None,
        debug: Any = None, check: bool = False, max_prints: int | None = None, timing: bool = False,
        progress: Any = None) -> RunResult:
    """Compile `source` for the emulated target and run `dispatch` on a Vulkan device.

    `dump`: resource keys to return (registers as written, "space1/u2", or names); empty: every
    writable resource the dispatch gives contents for, under the key it used.  `device`: an index
    or a name substring (`device.choose_device`).  `memory_limit`: the bytes the run may use for the
    dispatch's data and the record arenas of a level (default `scheduler.DEFAULT_MEMORY_LIMIT`; `wgc
    run --max-memory`): what will not fit is refused before anything is made (WG0811, WG0805).
    `path` "amdx": compile for AMDX and translate (`wgc.runtime.amdx`); `source` may also be AMDX modules (bytes or .spv paths, a list for several),
    whose entry points `names` renames (entry point -> node name) and `indices` creates at further
    indices (entry point -> indices: loop stages that only sparse spans or recursion reach).
    `debug`: a `schedules.DebugRun` (records to keep, where to stop, the schedule or schedules to run).
    `check`: compile with the run-time checks and line info and report mistakes (`wgc.runtime.checks`:
    `RunResult.checks`, and an error diagnostic per place, WG0840-WG0844); emulated path only.
    `max_prints`: the printf records the print buffer holds per submit (default
    `prints.DEFAULT_MAX_PRINTS`; `wgc run --max-prints`); more are counted in `prints_lost`.
    `timing`: time each level and dispatch on the GPU (timestamp queries, `wgc run --time`) where
    the device can.  `progress(repeat, level, records)`: called after each level (`progress.Progress`)."""
    from wgc import driver
    from wgc.runtime import amdx

    rebuild: Any = None
    if amdx.is_module(source):
        path = "amdx"
        rebuild = lambda spec: amdx.load_modules(source, names, indices, spec)     # noqa: E731
    elif isinstance(source, driver.Result) and amdx.is_amdx_result(source):
        path = "amdx"
        rebuild = lambda spec: amdx.result_program(source, "<compile>", spec)     # noqa: E731
    elif path == "amdx":
        rebuild = lambda spec: amdx.compile_amdx(source, stdin, spec)     # noqa: E731
    if check and (rebuild is not None or isinstance(source, driver.Result)):
        why = "AMDX modules" if rebuild is not None else "the result of a compile made without it"
        result = RunResult((codes.CHECK_NOT_AVAILABLE(None, "--check instruments the module wgc compiles for the "
                                                            f"emulated target; it cannot check {why}"),))
        result.path = path
        return result
    if not isinstance(source, driver.Result) and rebuild is None:
        rebuild = lambda spec: (_compile_specialized(source, stdin, spec, check) if spec is not None    # noqa: E731
                                else _compile(source, stdin, check))
    if rebuild is not None:
        diagnostics, module, program = rebuild(None)
    else:
        diagnostics, module, program = _compile(source, stdin)
    result = _run_program(diagnostics, module, program, dispatch, dump, device, memory_limit, rebuild, debug, check,
                          max_prints, {"timing": timing, "progress": progress})
    result.path = path
    return result


def _run_program(diagnostics: list[Diagnostic], module: bytes | None, program: Any, dispatch: Any,
                 dump: tuple[str, ...] | list[str], device: str | None, memory_limit: int | None,
                 rebuild: Any = None, debug: Any = None, check: bool = False, max_prints: int | None = None,
                 watch: dict[str, Any] | None = None) -> RunResult:
    """`run` once the module and its program are there.  `rebuild(specialization)`: the
    (diagnostics, module, program) again with SpecId -> value for the graph (AMDX inputs read with
    them, HLSL compiled with them), used when the dispatch specialises a constant that sets the
    graph's shape."""
    from wgc.runtime.dispatch import find_resource, read_dispatch, read_specialization
    from wgc.runtime.scheduler import DEFAULT_MEMORY_LIMIT

    memory_limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit

    if module is None:
        return RunResult(tuple(diagnostics))
    dispatch_source, problems = _dispatch_source(dispatch)
    if dispatch_source is None:
        return RunResult(tuple(diagnostics + problems))
    from wgc.runtime.pipelines import module_spec_constants

    constants = module_spec_constants(module)
    constants += [c for c in program.source_spec_constants if c.spec_id not in {k.spec_id for k in constants}]
    specialization = read_specialization(dispatch_source, program, constants)
    if rebuild is not None and set(specialization) & set(program.graph_spec_ids):
        kinds = {c.spec_id: c.kind for c in constants}
        values = {i: int.from_bytes(raw, "little", signed=kinds.get(i) == "int")
                  for i, raw in specialization.items() if kinds.get(i) != "float"}
        more, module, program = rebuild(values)
        if module is None:
            return RunResult(tuple(diagnostics + more))
    described, problems = read_dispatch(dispatch_source, program, memory_limit, constants)
    if described is None:
        return RunResult(tuple(diagnostics + problems))
    dumps: dict[str, Any] = {}
    if dump:
        for key in dump:
            resource = find_resource(program, key)
            if resource is None:
                from wgc.runtime.dispatch import resource_hint

                problems.append(codes.DUMP_UNKNOWN(None, f"--dump {key}: the graph has no resource '{key}'",
                                                   notes=(resource_hint(program, key),)))
            else:
                dumps[key] = resource
    else:
        for data in described.resources.values():
            if data.resource.writable:
                dumps[data.key] = data.resource
    problems.extend(_binding_problems(module, program, described, dumps))
    problems.extend(_memory_problems(program, described, memory_limit))
    if debug is not None:
        problems.extend(codes.DEBUG_NAMES_NO_NODE(None, f"{wrong}: the graph has no such node",
                                                  notes=(f"its nodes: {', '.join(n.label for n in program.nodes)}",))
                        for wrong in debug.problems(program))
    from wgc.runtime.prints import DEFAULT_MAX_PRINTS, MAX_PRINTS, PrintBuffer, read_formats

    formats = read_formats(module)
    max_prints = DEFAULT_MAX_PRINTS if max_prints is None else max_prints
    print_bytes = PrintBuffer.bytes_needed(formats, max(0, max_prints)) if formats else 0
    if formats and not 0 <= max_prints <= MAX_PRINTS:
        problems.append(codes.PRINT_BUFFER_TOO_LARGE(
            None, f"max_prints {max_prints}: a print buffer holds 0 to {MAX_PRINTS} prints"))
    elif print_bytes and described.data_bytes + print_bytes > memory_limit:
        problems.append(codes.PRINT_BUFFER_TOO_LARGE(
            None, f"a print buffer of {max_prints} prints needs {print_bytes} bytes; with the dispatch's data that is "
                  f"more than the {memory_limit} bytes wgc run may use",
            notes=("lower --max-prints, or raise --max-memory",)))
    if problems:
        return RunResult(tuple(diagnostics + problems))
    limit = memory_limit - described.data_bytes - print_bytes
    prints = (formats, max_prints) if formats else None
    if debug is not None and debug.schedules:
        from wgc.runtime.schedules import explore

        return explore(lambda d: _execute(module, program, described, dumps, device, limit, diagnostics, d, check,
                                          prints, watch), debug, lambda message: codes.SCHEDULE_DEPENDENT(None, message))
    return _execute(module, program, described, dumps, device, limit, diagnostics, debug, check, prints, watch)


def _memory_problems(program: Any, described: Any, memory_limit: int) -> list[Diagnostic]:
    """WG0805 before any device memory is made: an entry record whose first level (the records its
    node may write, its launches) with the dispatch's data needs more than the bound, or entry
    records that need more than `passes.MAX_PASSES` passes (`passes`: the run splits the others)."""
    from wgc.runtime.passes import MAX_PASSES, largest_record_bytes
    from wgc.runtime.scheduler import entry_bytes

    used = described.data_bytes
    total = 0
    for item in described.inputs:
        where = item.where.span if item.where is not None else None
        note = ("the bound is wgc run's --max-memory (default 1G)",)
        one, words = largest_record_bytes(program, item.node, item.count, item.data, item.stride, memory_limit)
        if used + one > memory_limit:
            before = f" with the {used} bytes of the dispatch's data" if used else ""
            return [codes.RECORDS_OUT_OF_MEMORY(
                where, f"1 entry record of node '{item.node.label}' needs up to {one} bytes ({words});{before} that "
                       f"is more than the {memory_limit} bytes wgc run may use", notes=note)]
        need, words = entry_bytes(program, item.node, item.count, item.data, item.stride,
                                  (memory_limit - used) * MAX_PASSES // 2)
        total += need
        if total > (memory_limit - used) * (MAX_PASSES // 2):
            return [codes.RECORDS_OUT_OF_MEMORY(
                where, f"{item.count} entry record{'s' if item.count != 1 else ''} of node '{item.node.label}' "
                       f"need{'s' if item.count == 1 else ''} up to {need} bytes ({words}); even in {MAX_PASSES} "
                       f"passes of their records that is more than the {memory_limit} bytes wgc run may use",
                notes=note)]
    return []


def _binding_problems(module: bytes, program: Any, described: Any, dumps: dict[str, Any]) -> list[Diagnostic]:
    from wgc.runtime.pipelines import module_bindings

    interface = module_bindings(module)
    used = interface.bindings
    problems = _format_problems(interface.image_formats, program, described)
    sharing: dict[tuple[int, int], list[Any]] = {}
    for resource in program.resources:
        if (resource.set, resource.binding) not in used or resource.root_only:
            continue
        if resource.descriptor is not None:
            sharing.setdefault((resource.set, resource.binding), []).append(resource)
        if resource.descriptor is None:
            problems.append(codes.RESOURCE_NOT_SUPPORTED(None, f"'{resource.name}' is a '{resource.type}': "
                                                               f"{resource.unsupported}"))
        elif resource.name not in described.resources and resource.counter_of is None:
            where = resource.register or "no register"
            problems.append(codes.RESOURCE_MISSING(None, f"the graph uses '{resource.name}' ({where}) but the "
                                                         "dispatch gives it no contents",
                                                   notes=(f'add it to "resources", e.g. "{resource.register or resource.name}": '
                                                          f'{_example(resource)}',)))
    for (set_, binding), shared in sharing.items():
        kinds = {r.descriptor for r in shared}
        if len(kinds) > 1 and kinds != {"sampler", "sampled image"}:
            names = " and ".join(f"'{r.name}' ({r.descriptor})" for r in shared)
            problems.append(codes.BINDING_CONFLICT(
                None, f"{names} share descriptor set {set_}, binding {binding}: one descriptor cannot be both",
                notes=("give them separate bindings (registers of different numbers, [[vk::binding]], or "
                       "-fvk-t-shift/-fvk-s-shift/-fvk-u-shift/-fvk-b-shift)",)))
    for key, resource in dumps.items():
        if resource.name not in described.resources and resource.counter_of is None:
            problems.append(codes.DUMP_UNKNOWN(None, f"--dump {key}: the dispatch gives '{resource.name}' no contents"))
        elif resource.descriptor == "sampler":
            problems.append(codes.DUMP_UNKNOWN(None, f"--dump {key}: '{resource.name}' is a sampler, which holds no "
                                                     "data"))
    return problems + _local_root_argument_problems(program, described)


def _example(resource: Any) -> str:
    """A description of `resource` for a note: its kind's smallest contents."""
    if resource.descriptor == "sampler":
        example = "{}"
    elif resource.image is None:
        example = '{"bytes": 1024}'
    elif resource.image.dim == "Buffer":
        example = '{"width": 16}'
    else:
        example = '{"width": 1, "height": 1}'
    return example if resource.count == 1 else f"[{example}, ...]"


def _format_problems(formats: dict[tuple[int, int], int], program: Any, described: Any) -> list[Diagnostic]:
    """WG0808: a storage image or texel buffer the module declares with a format (`[[vk::image_format]]`
    or inferred from its element type) given in another one: Vulkan needs the view's format to match."""
    from wgc.runtime.formats import FORMATS
    from wgc.spirv import grammar

    problems = []
    for resource in program.resources:
        declared = formats.get((resource.set, resource.binding), 0)
        data = described.resources.get(resource.name)
        if not declared or data is None or resource.image is None:
            continue
        for element in data.descriptors:
            given = element.format
            if given.spirv is None or grammar.enumerant("ImageFormat", given.spirv) != declared:
                wanted = next((f for f in FORMATS.values()
                               if f.spirv and grammar.enumerant("ImageFormat", f.spirv) == declared), None)
                spirv = f"SPIR-V format {wanted.spirv}" if wanted else f"SPIR-V image format {declared}"
                problems.append(codes.TEXTURE_FORMAT(
                    None, f"'{resource.name}' ('{resource.type}') is declared with {spirv}; the dispatch gives "
                          f"{given.name}",
                    notes=(f"give it \"format\": \"{wanted.name}\", or declare the one you give with "
                           "[[vk::image_format(...)]]" if wanted else
                           "declare the format you give with [[vk::image_format(...)]]",)))
                break
    return problems


def _local_root_argument_problems(program: Any, described: Any) -> list[Diagnostic]:
    """WG0809: a node whose code reads a [[vk::shader_record_ext]] block needs a table index and a
    table entry holding the block."""
    problems = []
    for node in program.nodes:
        if node.local_root is None or not node.local_root.parameters:
            continue
        index = node.local_root_arguments_table_index
        if index is None or index < 0:
            problems.append(codes.LOCAL_ROOT_ARGUMENTS_MISSING(
                None, f"node '{node.label}' has local root signature '{node.local_root.name}' but no "
                      "[NodeLocalRootArgumentsTableIndex(N)]: wgc run does not assign table indices",
                notes=("give the node its index in the dispatch's local-root-argument table",)))
        elif described.local_root_arguments is None or \
                described.local_root_arguments[0] * index + node.local_root.size > len(described.local_root_arguments[1]):
            problems.append(codes.LOCAL_ROOT_ARGUMENTS_MISSING(
                None, f"node '{node.label}' reads its local root signature '{node.local_root.name}' from entry {index} "
                      "of the local-root-argument table, which the dispatch does not give",
                notes=(f'add "local_root_arguments": {{"entries": [...]}} with entry {index} giving its root '
                       "parameters",)))
    for resource in program.resources:
        if not resource.shader_record:
            continue
        for label in resource.used_by:
            node = next(n for n in program.nodes if n.label == label)
            index = node.local_root_arguments_table_index
            if index is None or index < 0:
                problems.append(codes.LOCAL_ROOT_ARGUMENTS_MISSING(
                    None, f"node '{label}' reads local root arguments ('{resource.name}') but has no "
                          "[NodeLocalRootArgumentsTableIndex(N)]: wgc run does not assign table indices",
                    notes=("give the node its index in the dispatch's local-root-argument table",)))
            elif described.local_root_arguments is None:
                problems.append(codes.LOCAL_ROOT_ARGUMENTS_MISSING(
                    None, f"node '{label}' reads local root arguments ('{resource.name}') but the dispatch has no "
                          "\"local_root_arguments\"",
                    notes=(f'add "local_root_arguments": {{"stride": N, "hex": "..."}} with entry {index} '
                           f"holding '{resource.name}' ({resource.size} bytes)",)))
            else:
                stride, table = described.local_root_arguments
                end = stride * index + resource.size
                if end > len(table):
                    problems.append(codes.LOCAL_ROOT_ARGUMENTS_MISSING(
                        None, f"node '{label}' reads '{resource.name}' ({resource.size} bytes) from entry {index} of "
                              f"the local-root-argument table (bytes {stride * index}..{end - 1} with stride "
                              f"{stride}); the table holds {len(table)} bytes"))
    return problems


class Session:
    """A graph loaded on a device with a dispatch's resources bound: `run_once` runs its entry records
    once (resources keep their contents), `dump` reads a resource back.  Raises the device module's
    exceptions and `scheduler.RecordsOutOfMemory`; `close` (or `with`) frees everything."""

    def __init__(self, device: Any, module: bytes, program: Any, described: Any, memory_limit: int | None = None,
                 *, gpu_driven: bool = True, debug: Any = None, check: bool = False,
                 prints: tuple[Any, int] | None = None, timing: bool = False, progress: Any = None) -> None:
        from wgc.runtime.device import DescriptorWrite
        from wgc.runtime.dispatch import SAMPLER_FILTERS, SamplerData
        from wgc.runtime.gpu_schedule import GpuScheduler
        from wgc.runtime.pipelines import GraphPipelines
        from wgc.runtime.scheduler import DEFAULT_MEMORY_LIMIT, Chunk

        self.device = device
        self.program = program
        self.pipelines = None
        self.graphics: Any = None
        """`graphics.Graphics` of a graph that draws (mesh nodes)."""
        self.scheduler: Any = None
        self.checks: Any = None
        """`checks.CheckReports` (`check`: a module compiled with checks)."""
        self.buffers: list[Any] = []
        self.prints: Any = None
        self.timing: Any = None
        """`timing.Timestamps` of a timed session (where the device can time), else None."""
        self.timing_asked = timing
        """The `prints.PrintBuffer` (`prints`: the module's formats and --max-prints), else None."""
        self.objects: list[Any] = []
        """Textures, texel buffers and samplers (`images.destroy` frees each)."""
        try:
            bound: dict[tuple[int, int], DescriptorWrite] = {}
            self.by_name: dict[str, Any] = {}
            linear = any(isinstance(d, SamplerData) and SAMPLER_FILTERS["linear"] in
                         (d.mag_filter, d.min_filter, d.mip_filter)
                         for r in described.resources.values() for d in r.descriptors)
            for resource in program.resources:
                if resource.descriptor is None:
                    continue
                data = described.resources.get(resource.name)
                kind = DESCRIPTOR_TYPES[resource.descriptor]
                if resource.descriptor in ("storage buffer", "uniform buffer"):
                    contents = data.data if data is not None else bytearray(4 if resource.counter_of else 0)
                    buffer = self._buffer(contents, uniform=resource.descriptor == "uniform buffer", host_access=False)
                    buffer.length = len(contents)     # the descriptor covers what the dispatch gives, no padding
                    self.by_name[resource.name] = (buffer, len(contents))
                    if resource.root_only:        # read through local root arguments: no descriptor
                        continue
                    items: list[Any] = [buffer]
                elif data is None:
                    continue                      # not used by the shaders (used ones were refused before)
                else:
                    items = [self._descriptor(resource, d, linear) for d in data.descriptors]
                    if resource.descriptor != "sampler":
                        self.by_name[resource.name] = self.objects[-len(items):]
                key = (resource.set, resource.binding)
                earlier = bound.get(key)
                if earlier is not None and {earlier.kind, kind} == {DESCRIPTOR_TYPES["sampler"],
                                                                     DESCRIPTOR_TYPES["sampled image"]}:
                    bound[key] = _combined(earlier, DescriptorWrite(resource.binding, kind, items))
                else:
                    bound[key] = DescriptorWrite(resource.binding, kind, items)
            table = None
            if described.local_root_arguments is not None:
                stride, raw = described.local_root_arguments
                if described.local_root_addresses:      # root descriptors: the buffers' device addresses
                    patched = bytearray(raw)
                    for offset, name in described.local_root_addresses:
                        struct.pack_into("<Q", patched, offset, self.by_name[name][0].address)
                    raw = bytes(patched)
                table = (stride, self._buffer(raw))
            self.pipelines = GraphPipelines(device, module, program, bound, program.push_constant_bytes,
                                            described.specialization)
            # the whole block is pushed: root constants the dispatch does not give are zero
            constants = described.root_constants.ljust(program.push_constant_bytes, b"\0")
            limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
            if check:
                from wgc.runtime.checks import CheckReports

                self.checks = CheckReports.create(device, module, program)
            if prints is not None:
                from wgc.runtime.prints import PrintBuffer

                self.prints = PrintBuffer(device, *prints)
            if timing:
                from wgc.runtime.timing import Timestamps

                self.timing = Timestamps.create(device)
            watching = {"checks": self.checks, "prints": self.prints, "timing": self.timing, "progress": progress}
            if debug is not None:       # a debugging run: host-driven, level by level (`schedules`)
                from wgc.runtime.schedules import DebugScheduler

                self.scheduler = DebugScheduler(device, program, self.pipelines, push_constants=constants,
                                                local_root_arguments=table, memory_limit=limit, debug=debug,
                                                **watching)
            else:
                self.scheduler = GpuScheduler(device, program, self.pipelines, push_constants=constants,
                                              local_root_arguments=table, memory_limit=limit,
                                              gpu_driven=gpu_driven,
                                              **watching)
            if described.render_target is not None:     # mesh nodes draw (`graphics.py`)
                from wgc.runtime.graphics import Graphics

                self.graphics = Graphics(device, module, program, self.pipelines, described.render_target,
                                         described.specialization)
                self.scheduler.graphics = self.graphics
            self.entries = []
            for item in described.inputs:
                buffer = self._buffer(item.data)
                self.entries.append((item.node, Chunk(buffer.address, item.count, item.stride, buffer, 0)))
        except BaseException:
            self.close()
            raise

    def _descriptor(self, resource: Any, data: Any, linear: bool) -> Any:
        """The descriptor item of one texture, typed buffer or sampler (`device.DescriptorWrite`)."""
        from wgc.runtime import images
        from wgc.runtime.dispatch import SamplerData

        if isinstance(data, SamplerData):
            sampler = images.create_sampler(self.device, data)
            self.objects.append(sampler)
            return (sampler, None)
        storage = resource.descriptor.startswith("storage")
        if resource.image.dim == "Buffer":
            texels = images.create_texel_buffer(self.device, resource.name, data, storage)
            self.objects.append(texels)
            return texels.view
        texture = images.create_texture(self.device, resource.name, data, resource.image, storage,
                                        linear and not storage and data.format.reads == "float")
        self.objects.append(texture)
        return (None, texture.view)

    def _buffer(self, contents: bytes | bytearray, uniform: bool = False, host_access: bool = True) -> Any:
        buffer = self.device.buffer(len(contents), uniform=uniform, host_access=host_access)
        self.buffers.append(buffer)
        buffer.write(0, contents)
        return buffer

    def run_once(self, repeat_index: int = 0) -> list[Any]:
        assert self.scheduler is not None
        return self.scheduler.run(self.entries, repeat_index)

    def dump(self, resource: Any) -> dict[str, list[Any]]:
        """A buffer as its element's typed array; textures and typed buffers as their format's typed
        array, texels in the order the dispatch gives them (arrays: element after element)."""
        from wgc.runtime import images
        from wgc.runtime.dispatch import decode_array

        found = self.by_name[resource.name]
        if isinstance(found, list):
            array = found[0].texture.format.array
            return {array: [v for item in found for v in decode_array(images.read(self.device, item), array)]}
        buffer, size = found
        return {resource.element: decode_array(buffer.read(0, size), resource.element)}

    def attachments(self) -> tuple[dict[str, dict[str, list[Any]]], dict[str, Any]]:
        """The render target's attachments as typed arrays, and the colour ones as pictures."""
        from wgc.runtime.dispatch import decode_array
        from wgc.runtime.png_image import Picture

        if self.graphics is None:
            return {}, {}
        target = self.graphics.target
        arrays: dict[str, dict[str, list[Any]]] = {}
        pictures: dict[str, Any] = {}
        for color in target.colors:
            data = self.graphics.read(color.name)
            arrays[color.name] = {color.format.array: decode_array(data, color.format.array)}
            pictures[color.name] = Picture(target.width, target.height, color.format, data)
        if target.depth is not None:
            kind = "float" if target.depth.format == "D32_FLOAT" else "uint16"
            arrays["depth"] = {kind: decode_array(self.graphics.read("depth"), kind)}
        return arrays, pictures

    def close(self) -> None:
        if getattr(self.device, "busy", False):       # a signal stopped the wait: see `Device.close`
            return
        if self.graphics is not None:
            self.graphics.close()
            self.graphics = None
        if self.scheduler is not None:
            self.scheduler.close()
            self.scheduler = None
        if self.pipelines is not None:
            self.pipelines.close()
            self.pipelines = None
        if self.checks is not None:
            self.checks.close()
            self.checks = None
        from wgc.runtime import images

        for item in self.objects:
            images.destroy(self.device, item)
        self.objects = []
        for buffer in self.buffers:
            self.device.free(buffer)
        self.buffers = []
        if self.prints is not None:
            self.prints.close()
            self.prints = None
        if self.timing is not None:
            self.timing.close()
            self.timing = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


DESCRIPTOR_TYPES = {"sampler": 0, "combined image sampler": 1, "sampled image": 2, "storage image": 3,
                    "uniform texel buffer": 4, "storage texel buffer": 5, "uniform buffer": 6, "storage buffer": 7}
"""VkDescriptorType by the reflection's words."""


def _combined(first: Any, second: Any) -> Any:
    """A sampler and a sampled image at one binding ([[vk::combinedImageSampler]]): one combined image
    sampler descriptor per element (one sampler serves every image of an array)."""
    from wgc.runtime.device import DescriptorWrite

    sampler, image = (first, second) if first.kind == DESCRIPTOR_TYPES["sampler"] else (second, first)
    samplers = sampler.items * len(image.items) if len(sampler.items) == 1 else sampler.items
    return DescriptorWrite(image.binding, DESCRIPTOR_TYPES["combined image sampler"],
                           [(s, v) for (s, _), (_, v) in zip(samplers, image.items)])


def _device_limits(gpu: Any, session: Session) -> list[Diagnostic]:
    """WG0833: `--time` where the device cannot time; WG0832, once: nodes an invocation of which
    reached the loop budget, on a device that the probe (`loop_probe`, run only then) shows to
    leave loops early."""
    from wgc.emulation_abi import LOOP_BUDGET
    from wgc.runtime.loop_probe import loop_cap

    problems = []
    if session.timing_asked and session.timing is None:
        problems.append(codes.TIMING_UNAVAILABLE(
            None, f"--time: {gpu.info.name} cannot time compute work (it lacks timestampComputeAndGraphics or "
                  "timestamp bits on its compute queue), so the run is not timed"))
    size = getattr(gpu, "subgroup_size", None)
    for node in session.program.nodes if size else ():
        wave = node.wave_size
        if wave and not wave[0] <= size <= (wave[1] if len(wave) > 1 else wave[0]):
            asked = ", ".join(str(v) for v in wave)
            problems.append(codes.WAVE_SIZE_NOT_MET(
                None, f"node '{node.label}' declares [WaveSize({asked})], but {gpu.info.name} runs it with subgroups "
                      f"of {size}: its wave operations (WaveActiveSum, WaveGetLaneCount, ...) may give other results "
                      "than on a device that honours the attribute"))
    nodes = session.scheduler.loop_budget if session.scheduler is not None else []
    if not nodes or loop_cap(gpu) is None:
        return problems
    named = ", ".join(f"'{n}'" for n in nodes)
    return problems + [codes.LOOP_BUDGET_REACHED(
        None, f"an invocation of {named} ran {LOOP_BUDGET:,} loop iterations: {gpu.info.name} leaves every loop of "
              "an invocation after that many (one budget for all its loops), so the results may be wrong",
        notes=("run on another Vulkan device (--device), or split the work over more invocations or records",))]


def _execute(module: bytes, program: Any, described: Any, dumps: dict[str, Any], selector: str | None,
             memory_limit: int | None, diagnostics: list[Diagnostic], debug: Any = None,
             check: bool = False, prints: tuple[Any, int] | None = None,
             watch: dict[str, Any] | None = None) -> RunResult:
    from wgc.runtime.device import Device, DeviceFailure, DeviceNotFound, VulkanUnavailable
    from wgc.runtime.scheduler import GridBeyondMax, RecordsOutOfMemory

    try:
        gpu = Device(selector, graphics=described.render_target is not None)
    except VulkanUnavailable as problem:
        return RunResult(tuple(diagnostics + [codes.VULKAN_UNAVAILABLE(None, f"cannot run the graph: {problem}")]))
    except DeviceNotFound as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_NOT_FOUND(None, str(problem))]))
    except DeviceFailure as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_FAILED(None, str(problem))]))
    try:
        with Session(gpu, module, program, described, memory_limit, debug=debug, check=check, prints=prints,
                     **(watch or {})) as session:
            trace: list[Any] = []
            failure: Diagnostic | None = None
            partial: dict[str, Any] | None = None
            repeat = 0
            schedule: str | None = None
            passes = 1
            try:
                for repeat in range(described.repeat):
                    ran = session.run_once(repeat)
                    driven = getattr(session.scheduler, "last_run_gpu_driven", False)
                    schedule = "gpu-driven" if driven and schedule != "host-driven" else "host-driven"
                    passes = max(passes, getattr(session.scheduler, "last_passes", 1))
                    trace.extend(ran)
                    if debug is not None and debug.stopped is not None:
                        break
            except (RecordsOutOfMemory, GridBeyondMax) as problem:
                schedule = "gpu-driven" if getattr(session.scheduler, "last_run_gpu_driven", False) else "host-driven"
                passes = max(passes, getattr(session.scheduler, "last_passes", 1))
                kind = codes.RECORDS_OUT_OF_MEMORY if isinstance(problem, RecordsOutOfMemory) else codes.GRID_BEYOND_MAX
                failure = kind(None, str(problem))
                trace.extend(problem.trace)
                partial = {"code": failure.code, "message": failure.message, "level": problem.level, "repeat": repeat}
            resources = {key: session.dump(resource) for key, resource in dumps.items()}
            printed, lost = session.prints.take() if session.prints is not None else ([], 0)
            more = (debug.diagnostics() if debug is not None else []) + _device_limits(gpu, session)
            if lost:
                assert prints is not None
                more.append(codes.PRINTS_LOST(
                    None, f"{lost} print{'s' if lost != 1 else ''} lost: the print buffer holds {prints[1]} prints per "
                          "submit (a level, or a whole run that the GPU schedules)",
                    notes=("raise wgc run --max-prints",)))
            result = RunResult(tuple(diagnostics + more), resources, trace, gpu.info.name, debug=debug,
                               partial=partial, prints=printed, prints_lost=lost, schedule=schedule, passes=passes)
            result.attachments, result.images = session.attachments()
            if session.checks is not None:
                from wgc.runtime.checks import diagnostics as check_diagnostics

                result.checks, result.checks_lost = list(session.checks.reports), session.checks.lost
                found = check_diagnostics(result.checks, result.checks_lost)
                result.diagnostics += tuple(found)
            if failure is not None:
                result.diagnostics += (failure,)
        return result
    except RecordsOutOfMemory as problem:
        return RunResult(tuple(diagnostics + [codes.RECORDS_OUT_OF_MEMORY(None, str(problem))]))
    except GridBeyondMax as problem:
        return RunResult(tuple(diagnostics + [codes.GRID_BEYOND_MAX(None, str(problem))]))
    except DeviceFailure as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_FAILED(None, str(problem))]))
    finally:
        gpu.close()
