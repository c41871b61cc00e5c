"""The bodies of `wgc compile` and `wgc inspect`, and what `wgc run` shares with them, without click.

Stage: command line (below `wgc.cli`, which wraps these for click, and `wgc.fast_args`, which calls
them without click for the command lines it reads).
Input: the keyword arguments click would give a command's callback (every parameter by name, values
converted). Output: the exit code, files written by `wgc.outputs`, diagnostics on stderr (or -Fe).
Invariants: no click here. A usage mistake found after parsing (options that cannot be combined, a bad
-Vn name, -fvk-* values) raises `UsageProblem` before anything is read or written, so a caller may
still hand the command to click, which reports it as a usage error (exit code 2); `cli` turns it into
click's `UsageError`/`BadParameter`. The exit codes are `wgc.cli`'s (0, 1, 2, 3; see there).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Any

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

STDOUT_WRITE_ERRORS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT})
"""What a write to a full, closed or broken standard output raises (click's --help and --version)."""


class UsageProblem(Exception):
    """A usage error of a parsed command line: click's `UsageError`, or its `BadParameter` (with
    `param_hint`) where `is_bad_parameter`."""

    def __init__(self, message: str, is_bad_parameter: bool = False, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.is_bad_parameter = is_bad_parameter
        self.param_hint = param_hint

    @classmethod
    def bad_parameter(cls, message: str, param_hint: str | None = None) -> UsageProblem:
        return cls(message, True, param_hint)


def exit_code_of(exc: BaseException) -> int:
    """The exit code of a command that raised `exc` (other than click's own exceptions), after reporting
    it: an interrupt, `sys.exit`, standard output that cannot be written, SPIRV-Tools missing
    (WG0071), or an internal compiler error (3, the traceback in a file). Re-raises the others."""
    from wgc.outputs import Interrupted, silence_stdout

    if isinstance(exc, Interrupted):
        return 128 + exc.signum
    if isinstance(exc, SystemExit):
        return exc.code if isinstance(exc.code, int) else EXIT_ERRORS
    if isinstance(exc, KeyboardInterrupt):
        from wgc.portable import signals

        return 128 + signals.SIGINT
    if isinstance(exc, OSError):        # click writing --help or --version to a full or closed stdout
        if exc.errno not in STDOUT_WRITE_ERRORS:
            return _internal_error(exc)
        silence_stdout()
        sys.stderr.write(f"wgc: error: cannot write to standard output: {exc.strerror}\n")
        return EXIT_ERRORS
    if isinstance(exc, Exception):      # an internal compiler error: never a traceback on stderr
        from wgc import codes
        from wgc.spirv.grammar import GrammarNotFound
        from wgc.spirv.tools import ToolsUnavailable

        if isinstance(exc, (ToolsUnavailable, GrammarNotFound)):      # the environment, not wgc: WG0071
            sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"},
                                     [codes.SPIRV_TOOLS_UNAVAILABLE(None, str(exc))], to_terminal=sys.stderr.isatty()))
            return EXIT_ERRORS
        return _internal_error(exc)
    raise exc


def _parse_define(value: str) -> tuple[str, str | None]:
    name, sep, body = value.partition("=")
    return name, body if sep else None


def _options(kwargs: dict[str, Any], emit: str):
    from wgc.driver import Options

    flags = tuple(kwargs["warning_flags"]) + (("error",) if kwargs["warnings_as_errors"] else ())
    return Options(
        input=kwargs["input"],
        profile=kwargs["profile"],
        proposals=_proposals(kwargs),
        entry=kwargs["entry"],
        defines=tuple(_parse_define(d) for d in kwargs["defines"]),
        undefines=tuple(kwargs["undefines"]),
        include_dirs=tuple(kwargs["include_dirs"]),
        hlsl_version=int(kwargs["hlsl_version"]),
        enable_16bit_types=kwargs["enable_16bit_types"],
        target_env=kwargs["target_env"] or "vulkan1.3",
        emit=emit,
        warning_flags=flags,
        suppress_warnings=kwargs["suppress_warnings"],
        error_limit=kwargs["error_limit"],
        default_row_major=kwargs["matrix_order"] == "row",
        use_dx_layout=kwargs["use_dx_layout"],
        use_scalar_layout=kwargs["use_scalar_layout"],
        binding_shifts=tuple(_binding_shift(c, shift, space)
                             for c in "btus" for shift, space in kwargs[f"{c}_shifts"]),
        bound_registers=_bound_registers(kwargs),
        max_graph_depth=kwargs["max_graph_depth"],
        loop_lowering=kwargs.get("loop_lowering") or "native",
    )


def _proposals(kwargs: dict[str, Any]) -> tuple[str, ...]:
    """The proposals opted in to, in `driver.PROPOSALS` order; they need lib_6_9."""
    from wgc.driver import PROPOSALS

    chosen = {name for names in kwargs["proposals"] for name in names}
    if chosen and kwargs["profile"] != "lib_6_9":
        flags = ", ".join(f"-f{name}" for name in PROPOSALS if name in chosen)
        raise UsageProblem(f"{flags}: the work-graph proposals extend SM 6.9; use -T lib_6_9, "
                               f"not {kwargs['profile']}")
    return tuple(name for name in PROPOSALS if name in chosen)


def _bound_registers(kwargs: dict[str, Any]) -> tuple[tuple[str, int, int, int, int], ...]:
    """-fvk-bind-register's values as (class, number, space, binding, set); dxc's usage rules."""
    import re

    found = []
    for register, space, binding, set_ in kwargs["bound_registers"]:
        slot = re.fullmatch(r"([btusBTUS])([0-9]{1,9})", register)
        if slot is None or not (space.isdigit() and binding.isdigit() and set_.isdigit()):
            raise UsageProblem.bad_parameter(f"'{register} {space} {binding} {set_}': expected a register (b, t, u or s and "
                                     "a number, e.g. t3), then its space, the binding and the set (numbers)",
                                     param_hint="-fvk-bind-register")
        found.append((slot.group(1).lower(), int(slot.group(2)), int(space), int(binding), int(set_)))
    if found and any(kwargs[f"{c}_shifts"] for c in "btus"):
        raise UsageProblem("-fvk-*-shift cannot be used together with -fvk-bind-register (as in dxc)")
    return tuple(found)


def _binding_shift(register_class: str, shift: str, space: str) -> tuple[str, int, int | None]:
    if not shift.isdigit() or not (space.isdigit() or space == "all"):
        raise UsageProblem.bad_parameter(f"'-fvk-{register_class}-shift {shift} {space}': expected a shift and a space "
                                 "(non-negative numbers, or 'all' for the space)")
    return register_class, int(shift), None if space == "all" else int(space)


def _render(kwargs: dict[str, Any], diagnostics: list[Any], *, to_terminal: bool) -> str:
    from wgc.diagnostics import Renderer, RenderOptions, color_wanted

    renderer = Renderer(RenderOptions(format=kwargs["diagnostics_format"],
                                      color=color_wanted(kwargs["color"], to_terminal)))
    return renderer.render(diagnostics) if diagnostics else ""


def _run(kwargs: dict[str, Any], plan: Any, options: Any, produce: Callable[[Any, Any], None],
         module_names: Callable[[Any], tuple[str, ...]] = lambda result: (),
         on_errors: Callable[[Any], None] | None = None, recording: Any = None) -> int:
    """Compile, then write every output of `plan` (all or none) and the diagnostics; the exit code.

    `produce(result, transaction)` stages the outputs of a successful compile; `on_errors(result)`
    may show what a compile with errors still has to show (inspect's partial graph). The rules (what
    is refused, stale outputs, temporary files, interrupts) are `wgc.outputs`'s. `recording` (a
    `wgc.buildcache.Recording`, for `--cache`) sees what the compile read, staged and printed, and
    stores a successful result.
    """
    from wgc import driver, interrupts

    if kwargs["diagnostics_file"] is not None:
        plan.name("-Fe", kwargs["diagnostics_file"])
    cache_diagnostics, recording = _cache_problems(options, recording)
    cache_diagnostics = [*_ignored_option_warnings(kwargs, options), *cache_diagnostics]
    note_read = plan.note_read if recording is None else recording.also(plan.note_read)
    note_read(options.input, "input file")          # "-" (standard input): not an output's file, not cached
    transaction = plan.transaction() if recording is None else recording.watch(plan.transaction())
    try:
        with interrupts.raising():                  # a signal before this point is raised here
            refused = plan.refusals()
            if refused:                                 # nothing is written or removed
                return _conclude(kwargs, plan, transaction, refused, produce=None, clean=False)
            stdin, unreadable = _read_stdin(options.input)
            if unreadable is not None:
                return _conclude(kwargs, plan, transaction, [unreadable], produce=None, clean=True)
            result = driver.compile(options, stdin=stdin, on_file_read=note_read)
            for dependency in result.dependencies:
                note_read(dependency)
            if recording is not None:
                recording.absent = result.absent_includes
            refused = plan.refusals(module_names(result) if result.ok else ())
            diagnostics = [*cache_diagnostics, *result.diagnostics]
            if refused:
                return _conclude(kwargs, plan, transaction, [*diagnostics, *refused], produce=None, clean=False)
            code = _conclude(kwargs, plan, transaction, diagnostics,
                             produce=(lambda: produce(result, transaction)) if result.ok else None, clean=True,
                             recording=recording)
            if not result.ok and on_errors is not None:
                on_errors(result)
            if recording is not None:
                recording.store(plan, code)
            return code
    except BaseException:                           # an interrupt or an internal error: leave nothing behind
        transaction.abort()
        plan.remove_stale()
        raise


def _ignored_option_warnings(kwargs: dict[str, Any], options: Any) -> list[Any]:
    """Warning WG0039 for each dxc option accepted without effect (`wgc.dxc_options`), after the warning policy."""
    ignored = kwargs.get("ignored_dxc_options") or ()
    if not ignored:
        return []
    from wgc import codes
    from wgc.diagnostics import apply_policy
    from wgc.driver import warning_policy

    found = []
    for item in ignored:
        written, _, why = item.partition("\n")
        found.append(codes.DXC_OPTION_IGNORED(None, f"dxc option '{written}' ignored: {why}"))
    return apply_policy(found, warning_policy(options)[0])


def _cache_problems(options: Any, recording: Any) -> tuple[list[Any], Any]:
    """The compile cache's configuration diagnostics (WG0035, WG0036, WG0037, WG0060; after the warning
    policy), and the recording to use: none when the cache cannot be used (WG0060 does not stop it)."""
    if recording is None:
        return [], None
    from wgc import buildcache
    from wgc.diagnostics import apply_policy
    from wgc.driver import warning_policy

    problems = [p for p in (buildcache.size_problem(), buildcache.folder_problem()) if p is not None]
    notes = [p for p in (buildcache.basedir_problem(),) if p is not None]
    if not problems and not notes:
        return [], recording
    return apply_policy([*notes, *problems], warning_policy(options)[0]), None if problems else recording


def _conclude(kwargs: dict[str, Any], plan: Any, transaction: Any, diagnostics: list[Any],
              produce: Callable[[], None] | None, clean: bool, recording: Any = None, keep: bool = False) -> int:
    """Stage the outputs (`produce`) and the -Fe report, commit them, or clean up; the exit code.

    `clean`: after a failure, remove the outputs of an earlier run (False when the command was
    refused: then nothing is written or removed, and the diagnostics go to stderr). `keep`: write
    the outputs even with errors (`wgc run` that failed after it started writes what it made,
    marked partial); the exit code still says the errors.
    """
    from wgc.diagnostics import has_errors
    from wgc.outputs import OutputError

    ok = produce is not None and (keep or not has_errors(diagnostics))

    def fail(problem: OutputError | None) -> None:
        nonlocal ok
        if problem is not None:
            diagnostics.append(problem.diagnostic)
        transaction.abort()
        if clean:
            diagnostics.extend(plan.remove_stale())
        ok = False

    if ok:
        try:
            produce()  # type: ignore[misc]
        except OutputError as problem:
            fail(problem)
    else:
        fail(None)
    report = kwargs["diagnostics_file"] if clean else None
    if report is not None:
        try:
            transaction.stage(report, _render(kwargs, diagnostics, to_terminal=False).encode())
        except OutputError as problem:
            report = None
            fail(problem)
    try:
        transaction.commit()
    except OutputError as problem:
        report = None
        fail(problem)
    if report is None and diagnostics:
        text = _render(kwargs, diagnostics, to_terminal=sys.stderr.isatty())
        sys.stderr.write(text)
        sys.stderr.flush()
        if recording is not None:
            recording.stderr = text
    return EXIT_OK if ok and not has_errors(diagnostics) else EXIT_ERRORS


def compile_command(command_line: list[str], output: str | None, emit: str, assembly: bool, listing_file: str | None, preprocess: bool,
                    preprocess_file: str | None, split_dir: str | None,
                    header_file: str | None, reflection_file: str | None, header_variable: str | None,
                    skip_validation: bool, optimize: str, debug_info: bool, target: str, spirv_flag: bool,
                    write_deps: bool,
                    deps_file: str | None, deps_target: str | None, deps_phony: bool, deps_only: bool,
                    cache: bool | None, **kwargs: Any) -> int:
    """`wgc compile`: the exit code (`command_line`, the arguments as given, keys the compile cache)."""
    from dataclasses import replace

    if assembly:
        emit = "asm"
    if preprocess_file is not None and not preprocess:
        raise UsageProblem("-Fi names the file -P writes: give -P too")
    if preprocess:
        if output is not None:
            raise UsageProblem("-P writes the preprocessed text to -Fi FILE (default: INPUT.i): it cannot be "
                                   "combined with -o")
        emit, output = "preprocessed", preprocess_file or _preprocessed_name(kwargs["input"])
    if deps_only:
        emit = "dependencies"
    if listing_file is not None and (split_dir is not None or emit not in ("spirv", "asm", "dependencies")):
        raise UsageProblem("-Fc writes the disassembly of the one SPIR-V module: it cannot be combined with "
                               + ("--split-nodes" if split_dir is not None else f"--emit={emit}"))
    if split_dir is not None and (output is not None or header_file is not None):
        raise UsageProblem("--split-nodes writes one file per node into its folder: "
                               "it cannot be combined with -o or -Fh")
    if header_file is not None and emit not in ("spirv", "dependencies"):
        raise UsageProblem("-Fh writes the SPIR-V binary as a C header: it cannot be combined "
                               f"with --emit={emit}")
    if reflection_file is not None and emit not in ("spirv", "asm", "dependencies"):
        raise UsageProblem("-Fre writes the reflection beside the SPIR-V: it cannot be combined "
                               f"with --emit={emit}" + (" (use -o)" if emit == "reflection" else ""))
    if split_dir is not None and emit in ("ir", "ast", "hlsl", "preprocessed"):
        raise UsageProblem(f"--emit={emit} writes one document for the whole file: it cannot be combined with "
                               "--split-nodes (which writes one SPIR-V module per node: --emit=spirv or -S)")
    if emit == "reflection" and (split_dir is not None or header_file is not None):
        raise UsageProblem("--emit=reflection writes one JSON document: it cannot be combined with "
                               + ("--split-nodes" if split_dir is not None else "-Fh")
                               + " (write the reflection beside the modules with -Fre FILE)")
    if header_file is not None and header_variable is None:
        header_variable = _default_header_variable(kwargs["input"])
    if header_variable is not None:
        from wgc.spirv.header import variable_problem

        problem = variable_problem(header_variable)
        if problem is not None:
            raise UsageProblem.bad_parameter(problem, param_hint="-Vn")
    main_output = split_dir or output or header_file or listing_file or ("a.spv" if emit == "spirv" else "-")
    depfile = deps_file if deps_file is not None else (f"{main_output}.d" if write_deps else None)
    if write_deps and depfile == "-.d":
        raise UsageProblem("-MD with output to standard output needs -MF FILE to name the dependency file")
    if kwargs.get("loop_lowering") == "native" and target == "amdx":
        raise UsageProblem("--loops=native needs --target=emulated: SPV_AMDX_shader_enqueue has no loops, so the "
                               "AMDX target always unrolls them in index space")
    options = replace(_options(kwargs, emit), split_nodes=split_dir is not None,
                      validate=not skip_validation, optimize=optimize == "on", debug_info=debug_info,
                      header_variable=header_variable, target=target, listing=listing_file is not None,
                      reflection=reflection_file is not None and not deps_only, pipeline_names=spirv_flag)
    from wgc.outputs import OutputPlan

    plan = OutputPlan()
    extension = ".spvasm" if emit == "asm" else ".spv"
    if deps_only:
        plan.name("-MF" if deps_file is not None else "-M", deps_file or "-")
    elif split_dir is not None:
        plan.name_split_dir("--split-nodes", split_dir)
    else:
        if header_file is not None:
            plan.name("-Fh", header_file)
        if output is not None or (header_file is None and listing_file is None):
            plan.name("-o", output or ("a.spv" if emit == "spirv" else "-"))
    if reflection_file is not None and not deps_only:
        plan.name("-Fre", reflection_file)
    if listing_file is not None and not deps_only:
        plan.name("-Fc", listing_file)
    if depfile is not None and not deps_only:
        plan.name("-MF", depfile)

    def split_modules(result: Any) -> dict[str, bytes]:
        """The per-node modules of --split-nodes by file name: only the outputs of the emitted kind
        ("spirv:Name" or "asm:Name"); the reflection (-Fre) and headers (-Vn) are not modules."""
        kind = "asm:" if emit == "asm" else "spirv:"
        return {key[len(kind):] + extension: data for key, data in result.outputs.items() if key.startswith(kind)}

    def module_names(result: Any) -> tuple[str, ...]:
        return tuple(split_modules(result)) if split_dir else ()

    def produce(result: Any, transaction: Any) -> None:
        from wgc.depfile import make_rule

        dependencies = result.dependencies
        headers = dependencies if options.input == "-" else dependencies[1:]
        rule = make_rule(deps_target or main_output, dependencies, phony=headers if deps_phony else ())
        if deps_only:
            transaction.stage(deps_file or "-", rule.encode())
            return
        if split_dir is not None:
            transaction.stage_split(split_modules(result))
        else:
            if header_file is not None:
                transaction.stage(header_file, result.outputs["header"])
            if output is not None or (header_file is None and listing_file is None):
                transaction.stage(output or ("a.spv" if emit == "spirv" else "-"), result.outputs.get(emit, b""))
        if reflection_file is not None:
            transaction.stage(reflection_file, result.outputs["reflection"])
        if listing_file is not None:
            transaction.stage(listing_file, result.outputs["asm"])
        if depfile is not None:
            transaction.stage(depfile, rule.encode())      # committed after the outputs it describes

    recording = None
    if cache if cache is not None else _cache_switched_on():
        from wgc.buildcache import Recording

        recording = Recording(command_line)
    return _run(kwargs, plan, options, produce, module_names, recording=recording)


def _cache_switched_on() -> bool:
    from wgc.buildcache import switched_on

    return switched_on()


def _preprocessed_name(input_path: str) -> str:
    """dxc's -P default: the input's path with its extension replaced by .i (standard output for stdin)."""
    return "-" if input_path == "-" else os.path.splitext(input_path)[0] + ".i"


def _default_header_variable(input_path: str) -> str:
    """dxc's -Fh default names the array after the entry; wgc names it after the input file."""
    import re

    stem = "stdin" if input_path == "-" else os.path.splitext(os.path.basename(input_path))[0]
    name = re.sub(r"\W", "_", stem)
    return f"g_{name}"


def inspect_command(output: str | None, report_format: str, show_resources: bool, **kwargs: Any) -> int:
    """`wgc inspect`: the exit code."""
    if report_format == "png" and output in (None, "-") and sys.stdout.isatty():
        raise UsageProblem("--format png writes an image: name the file with -o FILE, or redirect the output")
    from dataclasses import replace

    options = replace(_options(kwargs, report_format), show_resources=show_resources)
    from wgc.outputs import OutputPlan

    plan = OutputPlan()
    plan.name("-o", output or "-")

    def produce(result: Any, transaction: Any) -> None:
        transaction.stage(output or "-", result.outputs[report_format])

    def show_partial(result: Any) -> None:
        """With errors, the graph of the nodes checked without errors goes to standard output (never
        to a file: a file is written only by a successful run)."""
        view = result.partial.get(report_format)
        if view is not None and output in (None, "-"):
            sys.stdout.buffer.write(view)
            sys.stdout.flush()

    return _run(kwargs, plan, options, produce, on_errors=show_partial)


def _read_stdin(path: str) -> tuple[bytes | None, Any]:
    """Standard input's bytes when the input is "-" (else None), or a diagnostic when it cannot be read."""
    if path != "-":
        return None, None
    from wgc import codes
    from wgc.source import read_source

    try:
        data, refused = read_source(sys.stdin.buffer)
    except (OSError, ValueError, AttributeError) as err:      # closed (sys.stdin is None), a directory, ...
        reason = getattr(err, "strerror", None) or ("it is closed" if sys.stdin is None else str(err))
        return None, codes.INPUT_NOT_READABLE(None, f"cannot read standard input: {reason}")
    if data is None:
        return None, codes.INCLUDE_NOT_REGULAR(None, f"cannot read standard input: {refused}",
                                          notes=("wgc reads sources of at most 64 MiB of text",))
    return data, None


def _internal_error(exc: BaseException) -> int:
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="wgc-crash-", suffix=".txt")
        with os.fdopen(fd, "w") as handle:
            handle.write(f"wgc internal compiler error\nargv: {sys.argv!r}\n\n")
            handle.write("".join(traceback.format_exception(exc)))
        where = f"the details in {path}"
    except OSError as err:                # no writable temporary folder: still no traceback
        where = f"the command line (the details could not be saved: {err.strerror or err})"
    sys.stderr.write(f"wgc: internal compiler error: {type(exc).__name__}: {exc}\n"
                     f"wgc: this is a bug in wgc; please report it with the input and {where}\n")
    return EXIT_INTERNAL

