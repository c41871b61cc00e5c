"""Runtime, the library API: compile a graph for the emulated target and run a dispatch of it.

Input: a source (a path, `driver.Options`, or the `driver.Result` of a compile for the emulated
target with its reflection) and a dispatch description (a path to
`dispatch.json`, its text as a `SourceFile`, or a JSON-shaped dict), plus what to dump and which
device to use.  Output: a `RunResult`: diagnostics (compile, dispatch description, device), the
dumped resources as typed arrays, and the trace of every step.

Invariants: never raises for bad input or a missing/failing Vulkan device: those are diagnostics
(WG0001, WG0021-WG0024, WG0800-WG0807); every Vulkan object is destroyed before `run` returns; the
results depend only on the graph, the dispatch and the device's arithmetic (no addresses,
timings or ids), so a deterministic graph gives the same JSON on every run.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, has_errors
from wgc.source import SourceFile


@dataclass
class RunResult:
    diagnostics: tuple[Diagnostic, ...] = ()
    resources: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    """Dumped resources: key (as asked for) -> {array type: values}."""
    trace: list[Any] = field(default_factory=list)
    """`scheduler.TraceStep`s, one per level of every repeat."""
    device: str | None = None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def results_json(self) -> str:
        """The dumped resources as JSON (what `wgc run -o` writes): one line per resource, keys in the
        order they were asked for."""
        lines = [f"    {json.dumps(key)}: {json.dumps(arrays)}" for key, arrays in self.resources.items()]
        body = ",\n".join(lines)
        return '{\n  "resources": {\n' + body + ("\n" if lines else "") + "  }\n}\n"

    def trace_json(self) -> str:
        return json.dumps({"device": self.device, "steps": [s.to_json() for s in self.trace]}, indent=2) + "\n"

    def trace_text(self) -> str:
        lines = [f"device: {self.device}"]
        for step in self.trace:
            head = f"level {step.level}" + (f" (repeat {step.repeat})" if step.repeat else "")
            lines.append(f"{head}: {len(step.dispatches)} dispatch{'es' if len(step.dispatches) != 1 else ''}")
            for d in step.dispatches:
                outs = ", ".join(f"{k}={v}" for k, v in d.records_out.items()) or "no outputs"
                extra = ""
                if d.remaining_recursion_levels:
                    extra += f" remaining-recursion={d.remaining_recursion_levels}"
                if d.loop_iteration:
                    extra += f" loop-iteration={d.loop_iteration}"
                lines.append(f"  {d.node} ({d.launch}){extra}: records in {d.records_in}, groups {d.groups}, "
                             f"records out: {outs}")
        return "\n".join(lines) + "\n"


def _compile(source: Any, stdin: bytes | None) -> tuple[list[Diagnostic], bytes | None, Any]:
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
                                        reflection=True), stdin)
    diagnostics = list(result.diagnostics)
    if not result.ok:
        return diagnostics, None, None
    return diagnostics, result.outputs["spirv"], build_program(result.reflection)


def _not_runnable(result: Any) -> str | None:
    """Why a compile's `Result` cannot be run, or None."""
    if not result.ok:
        return None
    module = result.outputs.get("spirv")
    if module is None or result.reflection is None:
        return ("wgc.run needs the SPIR-V module and the reflection of one compile: compile with "
                "Options(target='emulated', reflection=True) and emit='spirv' (no --split-nodes)")
    if b"SPV_AMDX_shader_enqueue" in module:
        return ("this module is for the AMDX target, which no Vulkan driver wgc can use runs: compile with "
                "Options(target='emulated', reflection=True)")
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
        stdin: bytes | None = None, memory_limit: int | None = None) -> RunResult:
    """Compile `source` for the emulated target and run `dispatch` on a Vulkan device.

    `dump`: resource keys to return (registers as written, "space1/u2", or names); empty: every
    writable resource the dispatch gives contents for, under the key it used.  `device`: an index
    or a name substring (`device.choose_device`).  `memory_limit`: bytes of record arenas a level may
    use (default `scheduler.DEFAULT_MEMORY_LIMIT`)."""
    from wgc.runtime.dispatch import find_resource, read_dispatch

    diagnostics, module, program = _compile(source, stdin)
    if module is None:
        return RunResult(tuple(diagnostics))
    dispatch_source, problems = _dispatch_source(dispatch)
    if dispatch_source is None:
        return RunResult(tuple(diagnostics + problems))
    described, problems = read_dispatch(dispatch_source, program)
    if described is None:
        return RunResult(tuple(diagnostics + problems))
    dumps: dict[str, Any] = {}
    if dump:
        for key in dump:
            resource = find_resource(program, key)
            if resource is None:
                from wgc.runtime.dispatch import known_resources

                problems.append(codes.DUMP_UNKNOWN(None, f"--dump {key}: the graph has no resource '{key}'",
                                                   notes=(f"its resources: {known_resources(program)}",)))
            else:
                dumps[key] = resource
    else:
        for data in described.resources.values():
            if data.resource.writable:
                dumps[data.key] = data.resource
    problems.extend(_binding_problems(module, program, described, dumps))
    if problems:
        return RunResult(tuple(diagnostics + problems))
    return _execute(module, program, described, dumps, device, memory_limit, diagnostics)


def _binding_problems(module: bytes, program: Any, described: Any, dumps: dict[str, Any]) -> list[Diagnostic]:
    from wgc.runtime.pipelines import module_bindings

    used = module_bindings(module).bindings
    problems = []
    for resource in program.resources:
        if (resource.set, resource.binding) not in used:
            continue
        if resource.descriptor is None:
            problems.append(codes.RESOURCE_NOT_SUPPORTED(None, f"'{resource.name}' is a '{resource.type}': wgc run "
                                                               "binds storage and constant buffers only"))
        elif resource.name not in described.resources and resource.counter_of is None:
            where = resource.register or "no register"
            problems.append(codes.RESOURCE_MISSING(None, f"the graph uses '{resource.name}' ({where}) but the "
                                                         "dispatch gives it no contents",
                                                   notes=(f'add it to "resources", e.g. "{resource.register or resource.name}": '
                                                          '{"bytes": 1024}',)))
    for key, resource in dumps.items():
        if resource.name not in described.resources and resource.counter_of is None:
            problems.append(codes.DUMP_UNKNOWN(None, f"--dump {key}: the dispatch gives '{resource.name}' no contents"))
    return problems


class Session:
    """A graph loaded on a device with a dispatch's resources bound: `run_once` runs its entry records
    once (resources keep their contents), `dump` reads a resource back.  Raises the device module's
    exceptions and `scheduler.RecordsOutOfMemory`; `close` (or `with`) frees everything."""

    def __init__(self, device: Any, module: bytes, program: Any, described: Any, memory_limit: int | None = None) -> None:
        from wgc.runtime.pipelines import GraphPipelines
        from wgc.runtime.scheduler import DEFAULT_MEMORY_LIMIT, Chunk, Scheduler

        self.device = device
        self.pipelines = None
        self.scheduler = None
        self.buffers: list[Any] = []
        try:
            bound: dict[tuple[int, int], tuple[Any, Any]] = {}
            self.by_name: dict[str, tuple[Any, int]] = {}
            for resource in program.resources:
                data = described.resources.get(resource.name)
                contents = data.data if data is not None else bytearray(4 if resource.counter_of else 0)
                buffer = self._buffer(contents, uniform=resource.descriptor == "uniform")
                bound[(resource.set, resource.binding)] = (resource, buffer)
                self.by_name[resource.name] = (buffer, len(contents))
            table = None
            if described.local_root_arguments is not None:
                stride, raw = described.local_root_arguments
                table = (stride, self._buffer(raw))
            self.pipelines = GraphPipelines(device, module, program, bound, program.push_constant_bytes)
            # the whole block is pushed: root constants the dispatch does not give are zero
            constants = described.root_constants.ljust(program.push_constant_bytes, b"\0")
            self.scheduler = Scheduler(device, program, self.pipelines, push_constants=constants,
                                       local_root_arguments=table,
                                       memory_limit=memory_limit or DEFAULT_MEMORY_LIMIT)
            self.entries = []
            for item in described.inputs:
                buffer = self._buffer(item.data)
                self.entries.append((item.node, Chunk(buffer.address, item.count, item.stride, buffer, 0)))
        except BaseException:
            self.close()
            raise

    def _buffer(self, contents: bytes | bytearray, uniform: bool = False) -> Any:
        buffer = self.device.buffer(len(contents), uniform=uniform)
        self.buffers.append(buffer)
        buffer.write(0, contents)
        return buffer

    def run_once(self, repeat_index: int = 0) -> list[Any]:
        assert self.scheduler is not None
        return self.scheduler.run(self.entries, repeat_index)

    def dump(self, resource: Any) -> dict[str, list[Any]]:
        from wgc.runtime.dispatch import decode_array

        buffer, size = self.by_name[resource.name]
        return {resource.element: decode_array(buffer.read(0, size), resource.element)}

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
            self.scheduler = None
        if self.pipelines is not None:
            self.pipelines.close()
            self.pipelines = None
        for buffer in self.buffers:
            self.device.free(buffer)
        self.buffers = []

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _execute(module: bytes, program: Any, described: Any, dumps: dict[str, Any], selector: str | None,
             memory_limit: int | None, diagnostics: list[Diagnostic]) -> RunResult:
    from wgc.runtime.device import Device, DeviceFailure, DeviceNotFound, VulkanUnavailable
    from wgc.runtime.scheduler import GridBeyondMax, RecordsOutOfMemory

    try:
        gpu = Device(selector)
    except VulkanUnavailable as problem:
        return RunResult(tuple(diagnostics + [codes.VULKAN_UNAVAILABLE(None, f"cannot run the graph: {problem}")]))
    except DeviceNotFound as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_NOT_FOUND(None, str(problem))]))
    except DeviceFailure as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_FAILED(None, str(problem))]))
    try:
        with Session(gpu, module, program, described, memory_limit) as session:
            trace = []
            for repeat in range(described.repeat):
                trace.extend(session.run_once(repeat))
            resources = {key: session.dump(resource) for key, resource in dumps.items()}
        return RunResult(tuple(diagnostics), resources, trace, gpu.info.name)
    except RecordsOutOfMemory as problem:
        return RunResult(tuple(diagnostics + [codes.RECORDS_OUT_OF_MEMORY(None, str(problem))]))
    except GridBeyondMax as problem:
        return RunResult(tuple(diagnostics + [codes.GRID_BEYOND_MAX(None, str(problem))]))
    except DeviceFailure as problem:
        return RunResult(tuple(diagnostics + [codes.DEVICE_FAILED(None, str(problem))]))
    finally:
        gpu.close()
