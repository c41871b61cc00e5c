"""The library API: run the pipeline for one input and return everything it produced.

Input: `Options` (what the command line says, as data).  Output: `Result`
with the produced outputs (bytes by kind), every diagnostic after the
warning policy, and the files the compile depended on.

Invariants:
- Never prints and never writes files; the CLI (or any caller) does that.
- Never raises for bad input: problems come back as diagnostics.  Any
  exception escaping `compile` is an internal compiler error.
- Stages run in order (read, preprocess, parse, ...); preprocessing errors stop the
  pipeline, syntax errors do not (sema checks the declarations that parsed, issue 12);
  outputs are produced only when there are no errors, except `Result.partial`: the
  inspect view (text, json, dot) of the sound nodes of a file with errors.
- SPIR-V outputs and the reflection first check that there is a node to compile (WG0603) and the
  target's limits (`wgc.sema.target`, WG06xx) for the nodes compiled, and hand the back end the
  facts that module computes for them (the Interlocked* calls on records one invocation owns); the
  other outputs (IR, inspect views) do not report them.

Deep input (how nesting depth is handled): the tree walks of every stage (AST builder,
printers, sema, uniformity, irdump, the SPIR-V lowering) recurse once per level of the
program's nesting, and a shader generator can nest thousands of levels (a 10,000-arm
`else if` chain is 10,000 nested `if` statements; `a+a+...+a` is a left-leaning tree as
deep as it is long).  Rather than rewriting each walk with explicit stacks, `compile`
runs the whole pipeline in a worker thread with a large stack (`COMPILE_STACK_BYTES`)
under a raised recursion limit (`COMPILE_RECURSION_LIMIT`, restored when the last
running compile ends), which carries nesting well beyond what people or generators
write and beyond the parser's own nesting limit (`parse.MAX_PARSE_DEPTH`: at least 1,000
levels of any construct, e.g. 1,365 `else if` arms, 8,192 parentheses; the tests in
tests/test_limits.py go just under and over it for every construct; `a+a+...+a` does not
nest in the parser, 20,000 operands compile).  Algorithms whose depth grows with
the *size* of the data rather than its nesting are iterative instead (the graph analysis
of `wgc.sema.graph` over 100,000-node chains, the expression walks of `uniformity`).
Nesting that SPIR-V itself cannot hold is a sema diagnostic (`wgc.sema.limits`).  As a
last resort a `RecursionError` anywhere becomes the located diagnostic WG0020, pointing
at the construct that was being processed, never an internal error.

Garbage collection: a compile allocates millions of small objects (tokens, AST and IR nodes,
types) that live until it ends, and almost none of them form reference cycles, so CPython's
cyclic collector, triggered every few hundred allocations, walks ever larger generations for
nothing (a large file parses markedly slower with it on).  `run_with_deep_stack` therefore turns
the cyclic collector off while a compile runs and restores the caller's setting when the last
running compile ends (like the recursion limit: both are process-wide and shared by compiles
running at once), also when the compile raises.  Reference counting still frees everything
that is not part of a cycle; the cycles a compile leaves behind are collected after it.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, WarningPolicy, apply_policy, has_errors, parse_warning_flags
from wgc.source import STDIN_NAME, SourceFile, decode_source, read_source

VERIFY_IR = os.environ.get("WGC_VERIFY_IR") == "1"
"""Tests only (tests/conftest.py sets it for the `wgc` processes they start): check the IR's invariants
after sema (`wgc.ir_verify`); an invariant broken is an internal error."""
if TYPE_CHECKING:
    from wgc.metadata.reflection import Reflection
    from wgc.sema.nodes import NodeInfo
    from wgc.sema.results import Analysis

COMPILE_STACK_BYTES = 1 << 30
"""The worker thread's stack: virtual memory, only the pages deep input touches are used."""
COMPILE_RECURSION_LIMIT = 250_000
"""Python frames a compile may nest; with COMPILE_STACK_BYTES, each may use 4 KiB of C stack."""

PROFILES = ("lib_6_8", "lib_6_9")
"""The library profiles: every node shader and entry point of the file."""
STAGE_PROFILES = {"ps": "pixel", "cs": "compute", "ms": "mesh", "as": "amplification",
                  "vs": "vertex", "gs": "geometry", "hs": "hull", "ds": "domain"}
"""Non-library profiles (`-T ps_6_0 -E main`, shader model 6.0-6.9; ms/as 6.5-6.9): the stage of
the one entry point they compile (`-E`, default `main`), as DXC: without a [Shader] attribute it
is that stage, with another one it is WG0391; vs/gs/hs/ds are stages wgc does not compile (WG0640)."""


def profile_stage(profile: str) -> str | None:
    """The stage a non-library profile compiles; None for a library profile."""
    return STAGE_PROFILES.get(profile.split("_", 1)[0])


def profile_error(profile: str) -> str | None:
    """Why `-T profile` is not one wgc takes (None when it is)."""
    if profile in PROFILES:
        return None
    library = re.fullmatch(r"lib_6_(\d+)", profile)
    if library is not None and int(library.group(1)) >= 10:
        return f"'{profile}': work graphs are not available after shader model 6.9; use lib_6_8 or lib_6_9"
    stage = re.fullmatch(r"(ps|cs|ms|as|vs|gs|hs|ds)_6_(\d)", profile)
    if stage is None:
        return (f"'{profile}': use a work-graph library profile (lib_6_8, lib_6_9) or a shader profile "
                "(ps_6_x, cs_6_x, ms_6_x, as_6_x with -E)")
    if stage.group(1) in ("ms", "as") and int(stage.group(2)) < 5:
        return f"'{profile}': mesh and amplification shaders need shader model 6.5 or later"
    return None


def entry_name(options: Options) -> str | None:
    """The function `-E` selects: as given; under a non-library profile `main` when not given."""
    if options.entry is None and profile_stage(options.profile) is not None:
        return "main"
    return options.entry
PROPOSALS = ("max-records-per-node", "work-graph-loops")
"""The proposals one may opt in to (`-fmax-records-per-node`, `-fwork-graph-loops`, both:
`-fwork-graph-proposals`): hlsl-specs 0025 and Work Graph Loops (PR #770), under lib_6_9."""
TARGET_ENVS = ("vulkan1.2", "vulkan1.3", "vulkan1.4")
EMIT_KINDS = ("spirv", "asm", "ast", "hlsl", "preprocessed", "ir", "json", "text", "dot", "dxil", "svg", "png",
              "reflection", "dependencies")
"""`dependencies` stops after preprocessing: `Result.dependencies` is then the product (`-M`)."""
INSPECT_FORMATS = ("text", "json", "dot", "svg", "png", "dxil")
"""The views of the work graph (`wgc inspect --format`), all rendered from `metadata.model`."""
PARTIAL_INSPECT_FORMATS = ("text", "json", "dot")
"""The views `Result.partial` holds for a file with errors (no pictures: they go to files)."""


@dataclass(frozen=True)
class Options:
    """One compile, as data. `input` is a path, or "-" for standard input."""

    input: str
    profile: str = "lib_6_9"
    proposals: tuple[str, ...] = ()
    """Opt-ins to work-graph proposals beyond released SM 6.9 (see PROPOSALS); lib_6_9 only."""
    entry: str | None = None
    """-E: the node shader or entry point to compile (its function name, or `name.N` for the N-th of
    several of one name); under a non-library profile the one entry point (default `main`)."""
    defines: tuple[tuple[str, str | None], ...] = ()
    undefines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    hlsl_version: int = 2021
    enable_16bit_types: bool = False
    target_env: str = "vulkan1.3"
    target: str = "amdx"
    """The SPIR-V target: "amdx" (SPV_AMDX_shader_enqueue) or "emulated" (plain compute shaders
    for `wgc run`, by the contract in `wgc.emulation_abi`)."""
    emit: str = "spirv"
    warning_flags: tuple[str, ...] = ()
    """Values given to -W (e.g. "no-foo", "error", "X", "no-error=bar")."""
    suppress_warnings: bool = False
    error_limit: int = 20
    default_row_major: bool = False
    """-Zpr (row-major) / -Zpc (column-major, the default) for matrices without an explicit orientation."""
    use_dx_layout: bool = False
    use_scalar_layout: bool = False
    binding_shifts: tuple[tuple[str, int, int | None], ...] = ()
    bound_registers: tuple[tuple[str, int, int, int, int], ...] = ()
    """-fvk-bind-register TYPE-NUMBER SPACE BINDING SET as (class, number, space, binding, set)."""
    """-fvk-{b,t,u,s}-shift N SPACE as (register class, shift, space or None for 'all')."""
    split_nodes: bool = False
    """One SPIR-V module per node (outputs "spirv:<key>" / "asm:<key>"; `NodeInfo.key`: the function name,
    `name.N` for the N-th node shader of one name)."""
    validate: bool = True
    """False: -Vd, skip the in-process spirv-val and lint of the produced modules."""
    optimize: bool = False
    """-O: run the spirv-opt passes that are safe for AMDX modules."""
    debug_info: bool = False
    """-Zi: OpSource with the file's name and text."""
    checks: bool = False
    """The emulated target's run-time checks (`wgc run --check`; `wgc.spirv.emulated_checks`)."""
    header_variable: str | None = None
    """-Fh with -Vn NAME: also produce "header", a C header holding the words as NAME[]."""
    pipeline_names: bool = False
    """-spirv (dxc's flag for a program written for Vulkan): the Vulkan pipeline names the nodes (pName), so a
    self-target by name is a warning (WG0535), not WG0511."""
    reflection: bool = False
    """-Fre FILE: also produce "reflection", the JSON an application needs to drive the compiled graph."""
    listing: bool = False
    """-Fc FILE: also produce "asm", the disassembly, beside "spirv"."""
    loop_lowering: str = "native"
    """How the emulated target lowers Work Graph Loops: "native" (the runtime keeps each record's
    iterations) or "index-space" (`--loops=index-space`: as the AMDX target always does, one stage
    per (node, iteration), `wgc.sema.stages`)."""
    show_resources: bool = False
    """`wgc inspect --resources`: the DOT, SVG and PNG pictures also draw the resources the nodes use."""
    max_graph_depth: int | None = None
    """--max-graph-depth N: the device's maxExecutionGraphDepth (WG0513; default: 32, the least Vulkan offers)."""
    spec_values: tuple[tuple[int, int], ...] = ()
    """No command-line option: (constant_id, value) pairs that replace the defaults of `[[vk::constant_id]]`
    constants (`SemaOptions.spec_values`); `wgc run` compiles with the values a dispatch specialises."""

    @property
    def index_space_loops(self) -> bool:
        return self.target == "amdx" or self.loop_lowering == "index-space"


@dataclass(frozen=True)
class Result:
    """What a compile produced. `outputs` maps an output kind (see EMIT_KINDS) to its bytes."""

    outputs: dict[str, bytes] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    dependencies: tuple[str, ...] = ()
    partial: dict[str, bytes] = field(default_factory=dict)
    """With errors, for `emit` text/json/dot: the inspect view of the nodes that were checked
    without errors (what `wgc inspect` shows on standard output beside the errors)."""
    reflection: Any = None
    """With `emit="reflection"` or `Options.reflection`, after a successful compile: the
    `wgc.metadata.reflection.Reflection` whose JSON is `outputs["reflection"]`."""
    absent_includes: tuple[str, ...] = ()
    """The #include candidates searched and not found (a file created at one of them would be
    included instead of a dependency: the compile cache checks that they are still absent)."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


@dataclass(frozen=True)
class FrontEnd:
    """The front end's products for one input (any of them may be missing after errors)."""

    source: SourceFile | None
    expanded_text: str | None
    unit: object | None
    analysis: Analysis | None
    """What sema knows (`wgc.sema.results`): the only thing the later stages read of the analysis."""
    dependencies: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    absent: tuple[str, ...] = ()
    """`Preprocessed.absent`: the #include candidates searched and not found."""


def shader_model(profile: str) -> tuple[int, int]:
    major, minor = profile.split("_")[1:3]
    return int(major), int(minor)


_REFUSED_NOTES = ("wgc reads sources of at most 64 MiB of text",)


def read_input(path: str, stdin: bytes | None = None) -> tuple[SourceFile | None, list[Diagnostic]]:
    """Read and decode the main input; "-" reads `stdin` (bytes)."""
    if path == "-":
        data = stdin if stdin is not None else b""
        name = STDIN_NAME
    else:
        name = path
        try:
            with open(path, "rb") as handle:
                read, refused = read_source(handle)
        except OSError as err:
            reason = err.strerror or str(err)
            return None, [codes.INPUT_NOT_READABLE(None, f"cannot open input file '{path}': {reason}")]
        if read is None:
            return None, [codes.INCLUDE_NOT_REGULAR(None, f"cannot read input file '{path}': {refused}",
                                               notes=_REFUSED_NOTES)]
        data = read
    text, _ = decode_source(data)   # bytes that are not UTF-8 are U+FFFD: silent in comments, WG0202 in code
    return SourceFile(name, text), []


def run_front_end(options: Options, stdin: bytes | None = None,
                  on_file_read: Callable[[str], None] | None = None,
                  overlay: Mapping[str, str] | None = None) -> FrontEnd:
    """Read, preprocess and parse; diagnostics are raw (before the warning policy).

    `overlay` maps absolute paths to texts used in place of those files, the input's too (the
    unsaved buffers of an editor, `wgc lsp`)."""
    from wgc.preprocess import PreprocessOptions, preprocess

    held = overlay.get(os.path.abspath(options.input)) if overlay and options.input != "-" else None
    source: SourceFile | None
    diagnostics: list[Diagnostic]
    if held is not None:
        source, diagnostics = SourceFile(options.input, held), []
    else:
        source, diagnostics = read_input(options.input, stdin)
    if source is None or diagnostics:
        deps = () if source is None or options.input == "-" else (options.input,)
        return FrontEnd(source, None, None, None, deps, tuple(diagnostics))
    pre = preprocess(source, PreprocessOptions(
        defines=options.defines,
        undefines=options.undefines,
        include_dirs=options.include_dirs,
        hlsl_version=options.hlsl_version,
        shader_model=shader_model(options.profile),
        stage=profile_stage(options.profile),
        enable_16bit_types=options.enable_16bit_types,
    ), on_file_read, overlay)
    diagnostics.extend(pre.diagnostics)
    if has_errors(diagnostics) or options.emit == "dependencies":
        return FrontEnd(source, pre.text, None, None, pre.files, tuple(diagnostics), pre.absent)
    from wgc.syntax.parse import parse

    parsed = parse(pre.text, pre.locations)
    diagnostics.extend(parsed.diagnostics)
    if options.emit in ("ast", "hlsl", "preprocessed"):
        return FrontEnd(source, pre.text, parsed.unit, None, pre.files, tuple(diagnostics), pre.absent)
    from wgc.sema.analyze import analyze

    # after syntax errors the declarations that did parse are still checked (issue 12: recovery)
    analysis = analyze(parsed.unit, sema_options(options), skipped_names=parsed.skipped_names)
    if VERIFY_IR:
        from wgc.ir_verify import check

        check(analysis)
    diagnostics.extend(analysis.diagnostics)
    return FrontEnd(source, pre.text, parsed.unit, analysis, pre.files, tuple(diagnostics), pre.absent)


def sema_options(options: Options):
    from wgc.sema.bindings import BindingShift
    from wgc.sema.context import SemaOptions

    return SemaOptions(
        profile=options.profile,
        entry_stage=profile_stage(options.profile),
        entry=entry_name(options) or "main",
        max_records_per_node="max-records-per-node" in options.proposals,
        work_graph_loops="work-graph-loops" in options.proposals,
        enable_16bit_types=options.enable_16bit_types,
        default_row_major=options.default_row_major,
        use_dx_layout=options.use_dx_layout,
        use_scalar_layout=options.use_scalar_layout,
        binding_shifts=tuple(BindingShift(c, shift, space) for c, shift, space in options.binding_shifts),
        spec_values=options.spec_values,
        bound_registers=options.bound_registers,
        pipeline_names=options.pipeline_names,
    )


def warning_policy(options: Options) -> tuple[WarningPolicy, list[Diagnostic]]:
    """The policy for `options`, plus warnings about -W options naming unknown groups."""
    policy, unknown = parse_warning_flags(options.warning_flags, codes.WARNING_GROUPS)
    policy = WarningPolicy(**{**policy.__dict__, "suppress_warnings": options.suppress_warnings,
                              "error_limit": options.error_limit})
    warnings = [codes.UNKNOWN_WARNING_OPTION(None, f"unknown warning option '-W{value}'{_group_suggestion(value)}")
                for value in unknown]
    return policy, warnings


def _group_suggestion(value: str) -> str:
    """"; did you mean '-Wno-foo'?" for a -W value whose group is close to a known one (clang's wording), else ""."""
    from wgc.suggest import closest

    prefix = next((p for p in ("no-error=", "error=", "no-") if value.startswith(p)), "")
    near = closest(value[len(prefix):], sorted(codes.WARNING_GROUPS))
    return f"; did you mean '-W{prefix}{near[0]}'?" if near else ""


def compile(options: Options, stdin: bytes | None = None, *,  # noqa: A001 - the API's name
            on_file_read: Callable[[str], None] | None = None) -> Result:
    """Run the pipeline for `options` and return outputs, diagnostics and dependencies.

    `on_file_read(path)` is told of each included file as soon as it was read (the dependencies
    known so far, for a caller that must clean up after an interrupt); it is called from the
    worker thread.

    The work happens in a worker thread with a deep stack (see the module docstring); an
    exception other than RecursionError is re-raised here, in the caller's thread.
    """
    policy, _ = warning_policy(options)
    try:
        return run_with_deep_stack(_compile, options, stdin, on_file_read)
    except RecursionError as error:
        diagnostic = codes.NESTING_TOO_DEEP(
            _innermost_span(error), "the program is nested too deeply for wgc to process "
            "(statements, expressions, types or calls)")
        return Result(diagnostics=tuple(apply_policy([diagnostic], policy)))


_deep_lock = threading.Lock()
_deep_users = 0
_saved_recursion_limit = 0
_saved_gc_enabled = True


def run_with_deep_stack(function, *args):
    """`function(*args)` in a thread with COMPILE_STACK_BYTES of stack, the raised recursion limit
    and the cyclic garbage collector off.

    Returns its result or raises its exception.  The recursion limit and the collector (both
    process-wide settings) are changed while at least one such call runs and restored, to what
    they were before the first, after the last (see the module docstring).
    """
    global _deep_users, _saved_recursion_limit, _saved_gc_enabled
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # handed to the calling thread
            outcome["error"] = error

    with _deep_lock:
        if _deep_users == 0:
            _saved_recursion_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(COMPILE_RECURSION_LIMIT)
            _saved_gc_enabled = gc.isenabled()
            gc.disable()
        _deep_users += 1
    try:
        with _deep_lock:
            previous_size = threading.stack_size(COMPILE_STACK_BYTES)
            try:
                worker = threading.Thread(target=work, name="wgc-compile", daemon=True)
                worker.start()
            finally:
                threading.stack_size(previous_size)
        worker.join()
    finally:
        with _deep_lock:
            _deep_users -= 1
            if _deep_users == 0:
                sys.setrecursionlimit(_saved_recursion_limit)
                if _saved_gc_enabled:
                    gc.enable()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _innermost_span(error: BaseException):
    """The span of the innermost construct a frame of `error`'s traceback was working on, if any."""
    from wgc.source import Span

    found = None
    trace = error.__traceback__
    while trace is not None:
        for value in trace.tb_frame.f_locals.values():
            span = getattr(value, "span", None) if not isinstance(value, Span) else value
            if isinstance(span, Span):
                found = span
                break
        trace = trace.tb_next
    return found


def _compile(options: Options, stdin: bytes | None, on_file_read: Callable[[str], None] | None) -> Result:
    policy, option_warnings = warning_policy(options)
    front = run_front_end(options, stdin, on_file_read)
    raw = list(option_warnings) + list(front.diagnostics)
    outputs: dict[str, bytes] = {}
    reflection = None
    if not has_errors(apply_policy(raw, policy)):
        outputs, more, reflection = _emit(options, front)
        raw.extend(more)
    diagnostics = tuple(apply_policy(raw, policy))
    partial: dict[str, bytes] = {}
    if has_errors(diagnostics):
        outputs, reflection = {}, None
        analysis = front.analysis
        if options.emit in PARTIAL_INSPECT_FORMATS and analysis is not None and analysis.graph is not None:
            partial, _ = _inspect(options, front, sound_only=True)
    return Result(outputs=outputs, diagnostics=diagnostics, dependencies=front.dependencies, partial=partial,
                  reflection=reflection, absent_includes=front.absent)


def wgc_version() -> str:
    """This wgc's version (`wgc.version`, which the package metadata also takes)."""
    from wgc.version import __version__

    return __version__


def _inspect(options: Options, front: FrontEnd, sound_only: bool = False) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """The inspect model of the graph, rendered in `options.emit`'s format (`sound_only`: of the
    nodes in the graph, i.e. those checked without errors)."""
    from wgc.metadata.model import build_model

    analysis = front.analysis
    assert analysis is not None and analysis.graph is not None
    nodes = analysis.graph.nodes if sound_only else analysis.nodes
    model = build_model(analysis, nodes, wgc_version(), options.max_graph_depth)
    kind = options.emit
    if kind == "json":
        import json

        return {kind: (json.dumps(model.to_json(), indent=2) + "\n").encode()}, []
    if kind == "text":
        from wgc.metadata.text import render_text

        return {kind: render_text(model).encode()}, []
    if kind == "dxil":
        from wgc.metadata.dxil import render_dxil

        return {kind: render_dxil(model, options.proposals).encode()}, []
    from wgc.metadata.dot import GraphvizError, GraphvizMissing, render_dot, render_image

    dot = render_dot(model, options.show_resources)
    if kind == "dot":
        return {kind: dot.encode()}, []
    try:
        return {kind: render_image(dot, kind)}, []
    except (GraphvizMissing, GraphvizError) as problem:
        return {}, [codes.GRAPHVIZ_UNAVAILABLE(None, str(problem))]


def _emit(options: Options, front: FrontEnd) -> tuple[dict[str, bytes], list[Diagnostic], Any]:
    """The outputs of `options.emit`, their diagnostics, and the `Reflection` when one was made."""
    if options.emit == "preprocessed":
        return {"preprocessed": (front.expanded_text or "").encode()}, [], None
    if options.emit == "dependencies":
        return {"dependencies": "".join(f"{d}\n" for d in front.dependencies).encode()}, [], None
    if options.emit == "ast":
        from wgc.syntax.dump import dump_ast

        return {"ast": dump_ast(front.unit).encode()}, [], None  # type: ignore[arg-type]
    if options.emit == "hlsl":
        from wgc.syntax.printer import print_hlsl

        return {"hlsl": print_hlsl(front.unit).encode()}, [], None  # type: ignore[arg-type]
    if options.emit == "ir":
        from wgc.irdump import dump_ir

        return {"ir": dump_ir(front.analysis.module).encode()}, [], None  # type: ignore[union-attr]
    if options.emit in INSPECT_FORMATS:
        return (*_inspect(options, front), None)
    return _spirv(options, front)


def _spirv(options: Options, front: FrontEnd) -> tuple[dict[str, bytes], list[Diagnostic], Any]:
    """The SPIR-V outputs: "spirv" (binary) or "asm" (disassembly), per node with --split-nodes, and
    "reflection" (with `options.reflection`, or alone for emit "reflection")."""
    import struct

    from wgc.spirv.emit import EmitOptions, emit_spirv

    analysis = front.analysis
    assert analysis is not None
    # the compute, pixel, mesh and amplification shaders beside the nodes: the AMDX target compiles them too; the
    # emulated one (what `wgc run` executes) runs the graph only, and the pixel shaders where mesh nodes draw
    if options.target == "amdx":
        stage_entries = list(analysis.stage_entries)
    elif any(n.launch == "mesh" for n in analysis.nodes):
        stage_entries = [e for e in analysis.stage_entries if e.stage == "pixel"]
    else:
        stage_entries = []
    nodes, unselectable = analysis.select_nodes(list(analysis.nodes) + stage_entries, entry_name(options))
    if unselectable:   # an entry of a stage wgc does not compile (-T vs_6_0) says so, not "no entry point"
        stages = [d for d in analysis.check_target([], None, options.target)
                  if d.code == codes.STAGE_NOT_SUPPORTED.code]
        return {}, stages or unselectable, None
    limits = analysis.check_target(nodes, front.source if options.debug_info else None, options.target,
                                   index_space=options.index_space_loops, split_nodes=options.split_nodes,
                                   target_env=options.target_env)
    if has_errors(apply_policy(limits, warning_policy(options)[0])):   # -Werror=amdx-record-atomics (WG0620) stops here
        return {}, limits, None
    warnings = limits + analysis.composition_warnings(nodes, options.split_nodes, options.target)   # WG0450 warns
    if options.target == "amdx":
        warnings += analysis.depth_warnings(options.max_graph_depth)
    outputs: dict[str, bytes] = {}
    reflection = None
    if options.reflection or options.emit == "reflection":
        import json

        reflection = _reflection(options, front, nodes)
        outputs["reflection"] = (json.dumps(reflection.to_json(), indent=2) + "\n").encode()
    if options.emit == "reflection":
        return outputs, warnings, reflection
    source = front.source
    emitted = emit_spirv(analysis, EmitOptions(
        target=options.target, target_env=options.target_env, split_nodes=options.split_nodes,
        validate=options.validate, optimize=options.optimize, debug_info=options.debug_info,
        index_space_loops=options.index_space_loops, plain_atomics=analysis.plain_record_atomics(nodes),
        checks=options.checks and options.target == "emulated",
        source_name=source.path if source is not None else "",
        source_text=source.text if source is not None and options.debug_info else None), nodes)
    for key, words in emitted.modules.items():
        suffix = f":{key}" if key else ""
        if options.emit == "asm" or options.listing:
            from wgc.spirv.tools import disassemble

            outputs["asm" + suffix] = disassemble(words).encode()
        if options.emit != "asm":
            outputs["spirv" + suffix] = struct.pack(f"<{len(words)}I", *words)
        if options.header_variable is not None:
            from wgc.spirv.header import c_header

            outputs["header" + suffix] = c_header(words, options.header_variable,
                                                  source_name=source.path if source else None).encode()
    return outputs, warnings, reflection


def _reflection(options: Options, front: FrontEnd, nodes: list[NodeInfo]) -> Reflection:
    """The `Reflection` of the SPIR-V that `nodes` compile to (`wgc.metadata.reflection`)."""
    from wgc.metadata.reflection import build_reflection

    assert front.analysis is not None
    return build_reflection(front.analysis, nodes,
                            version=wgc_version(), target_env=options.target_env,
                            split_nodes=options.split_nodes, index_space_loops=options.index_space_loops)
