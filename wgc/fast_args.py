"""Command line without click: `wgc compile` and `wgc inspect` command lines read by a table.

Stage: command line, before `wgc.cli` (`wgc.entry` calls `run` before importing click; `cli.main`
calls it too, for the compile server's workers, which run `cli.main`).
Input: the process arguments (after the compile cache and the server had their say).
Output: the exit code of the command, run by `wgc.compiling` with the keyword arguments click's
command would have been given; or None: then click reads the command line.

Invariants:
- Only command lines click would accept go this way, with the same values: a word is read as
  `cli._translate` reads it (dxc's spellings through `wgc.dxc_options.translate`, with the same
  tables of the commands' options), then as click's parser reads the result (an option of the
  command and its values, the last of a single-valued option winning, a multiple one collecting;
  everything after `--` and every other word a positional argument), values converted as click's
  types and callbacks convert them.
- Anything else falls back to click, before anything is read or written, so diagnostics and exit
  codes stay click's: help, `--version`, other commands, shell completion ($_WGC_COMPLETE), a usage problem of the translation, an
  option or a positional argument too many or too few, a value click's type or callback refuses,
  an INPUT click's `Path` refuses (a folder, unreadable) and a `compiling.UsageProblem`.
- `COMMAND_OPTIONS` and `PARAMETERS` must equal what click's commands declare
  (`tests/test_fast_args.py` compares them, and the parse of many command lines, with click's).
"""

from __future__ import annotations

import os
import stat
from typing import Any

FAST_COMMANDS = ("compile", "inspect")
COMMANDS = frozenset({"compile", "inspect", "run", "cache", "server", "samples", "man", "lsp"})
"""`wgc.cli`'s commands (a test checks): any other first word means `compile` (dxc-style)."""
HELP_OPTIONS = ("-h", "--help", "-help")
TOP_LEVEL = (*HELP_OPTIONS, "--version", "--help-warnings", "--help=warnings")

_COMMON = {
    "-T": 1, "-fmax-records-per-node": 0, "-fwork-graph-loops": 0, "-fwork-graph-proposals": 0,
    "--max-graph-depth": 1, "-E": 1, "-D": 1, "-U": 1, "-I": 1, "-HV": 1, "-enable-16bit-types": 0, "-Zpr": 0,
    "-Zpc": 0, "-fvk-use-dx-layout": 0, "-fvk-use-scalar-layout": 0, "-fvk-b-shift": 2, "-fvk-t-shift": 2,
    "-fvk-u-shift": 2, "-fvk-s-shift": 2, "-fvk-bind-register": 4, "-fspv-target-env": 1, "--target-env": 1,
    "-W": 1, "-WX": 0, "-w": 0, "-no-warnings": 0, "-ferror-limit": 1, "-fdiagnostics-format": 1,
    "-fcolor-diagnostics": 0, "-fno-color-diagnostics": 0, "-Fe": 1, "--ignored-dxc-option": 1, "--server": 0,
    "--no-server": 0,
}
COMMAND_OPTIONS: dict[str, dict[str, int]] = {
    "compile": {**dict.fromkeys(HELP_OPTIONS, 0), **_COMMON, "-o": 1, "-Fo": 1, "--emit": 1, "-S": 0, "-Fc": 1,
                "-P": 0, "-Fi": 1, "--split-nodes": 1, "-Fh": 1, "-Fre": 1, "-Vn": 1, "-Vd": 0, "-O": 0, "-O0": 0,
                "-Zi": 0, "--target": 1, "--loops": 1, "-spirv": 0, "-MD": 0, "-MF": 1, "-MT": 1, "-MP": 0, "-M": 0,
                "--cache": 0, "--no-cache": 0},
    "inspect": {**dict.fromkeys(HELP_OPTIONS, 0), **_COMMON, "-o": 1, "--format": 1, "--resources": 0},
    "run": {**dict.fromkeys(HELP_OPTIONS, 0), **_COMMON, "--dispatch": 1, "--dump": 1, "--loops": 1, "-o": 1,
            "--trace": 0, "--check": 0, "--trace-format": 1, "--device": 1, "--max-memory": 1, "--path": 1,
            "--node-name": 1, "--node-index": 1, "--dump-records": 1, "--dump-records-node": 1,
            "--stop-after-level": 1, "--stop-after-node": 1, "--schedule": 1, "--schedules": 1, "--image": 1,
            "--report": 1, "--time": 0, "--max-prints": 1},
}
"""Each compiling command's option names with the values each takes (`cli._own_options`)."""

# What each option of compile and inspect does: (parameter, action, argument). Actions: "value" (the
# argument: a converter), "const" (store the argument), "append" (a multiple option's values: a tuple
# for two or more), "append_const", "ignore" (an option whose value the command is not given).
_COMMON_PARAMETERS: dict[str, tuple[str, str, Any]] = {
    "-T": ("profile", "value", "profile"),
    "-fmax-records-per-node": ("proposals", "append_const", ("max-records-per-node",)),
    "-fwork-graph-loops": ("proposals", "append_const", ("work-graph-loops",)),
    "-fwork-graph-proposals": ("proposals", "append_const", ("max-records-per-node", "work-graph-loops")),
    "--max-graph-depth": ("max_graph_depth", "value", (1, 0xFFFFFFFF)),
    "-E": ("entry", "value", None),
    "-D": ("defines", "append", None),
    "-U": ("undefines", "append", None),
    "-I": ("include_dirs", "append", None),
    "-HV": ("hlsl_version", "value", ("2016", "2017", "2018", "2021")),
    "-enable-16bit-types": ("enable_16bit_types", "const", True),
    "-Zpr": ("matrix_order", "const", "row"),
    "-Zpc": ("matrix_order", "const", "column"),
    "-fvk-use-dx-layout": ("use_dx_layout", "const", True),
    "-fvk-use-scalar-layout": ("use_scalar_layout", "const", True),
    **{f"-fvk-{c}-shift": (f"{c}_shifts", "append", None) for c in "btus"},
    "-fvk-bind-register": ("bound_registers", "append", None),
    "-fspv-target-env": ("target_env", "value", "target_env"),
    "--target-env": ("target_env", "value", "target_env"),
    "-W": ("warning_flags", "append", None),
    "-WX": ("warnings_as_errors", "const", True),
    "-w": ("suppress_warnings", "const", True),
    "-no-warnings": ("suppress_warnings", "const", True),
    "-ferror-limit": ("error_limit", "value", (0, None)),
    "-fdiagnostics-format": ("diagnostics_format", "value", ("clang", "msvc")),
    "-fcolor-diagnostics": ("color", "const", "always"),
    "-fno-color-diagnostics": ("color", "const", "never"),
    "-Fe": ("diagnostics_file", "value", None),
    "--ignored-dxc-option": ("ignored_dxc_options", "append", None),
    "--server": ("server", "ignore", None),
    "--no-server": ("server", "ignore", None),
}
PARAMETERS: dict[str, dict[str, tuple[str, str, Any]]] = {
    "compile": {
        **_COMMON_PARAMETERS,
        "-o": ("output", "value", None),
        "-Fo": ("output", "value", None),
        "--emit": ("emit", "value", ("spirv", "asm", "reflection", "ir", "ast", "hlsl", "preprocessed")),
        "-S": ("assembly", "const", True),
        "-Fc": ("listing_file", "value", None),
        "-P": ("preprocess", "const", True),
        "-Fi": ("preprocess_file", "value", None),
        "--split-nodes": ("split_dir", "value", None),
        "-Fh": ("header_file", "value", None),
        "-Fre": ("reflection_file", "value", None),
        "-Vn": ("header_variable", "value", None),
        "-Vd": ("skip_validation", "const", True),
        "-O": ("optimize", "const", "on"),
        "-O0": ("optimize", "const", "off"),
        "-Zi": ("debug_info", "const", True),
        "--target": ("target", "value", ("amdx", "emulated")),
        "--loops": ("loop_lowering", "value", ("native", "index-space")),
        "-spirv": ("spirv_flag", "const", True),
        "-MD": ("write_deps", "const", True),
        "-MF": ("deps_file", "value", None),
        "-MT": ("deps_target", "value", None),
        "-MP": ("deps_phony", "const", True),
        "-M": ("deps_only", "const", True),
        "--cache": ("cache", "const", True),
        "--no-cache": ("cache", "const", False),
    },
    "inspect": {
        **_COMMON_PARAMETERS,
        "-o": ("output", "value", None),
        "--format": ("report_format", "value", ("text", "json", "dot", "svg", "png", "dxil")),
        "--resources": ("show_resources", "const", True),
    },
}
"""Each option of compile and inspect: the parameter it sets, how, and its converter."""

_COMMON_DEFAULTS: dict[str, Any] = {
    "profile": "lib_6_9", "proposals": (), "max_graph_depth": None, "entry": None, "defines": (), "undefines": (),
    "include_dirs": (), "hlsl_version": "2021", "enable_16bit_types": False, "matrix_order": "column",
    "use_dx_layout": False, "use_scalar_layout": False, "b_shifts": (), "t_shifts": (), "u_shifts": (),
    "s_shifts": (), "bound_registers": (), "target_env": None, "warning_flags": (), "warnings_as_errors": False,
    "suppress_warnings": False, "error_limit": 20, "diagnostics_format": "clang", "color": "auto",
    "diagnostics_file": None, "ignored_dxc_options": (),
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "compile": {**_COMMON_DEFAULTS, "output": None, "emit": "spirv", "assembly": False, "listing_file": None,
                "preprocess": False, "preprocess_file": None, "split_dir": None, "header_file": None,
                "reflection_file": None, "header_variable": None, "skip_validation": False, "optimize": "off",
                "debug_info": False, "target": "amdx", "loop_lowering": None, "spirv_flag": False,
                "write_deps": False, "deps_file": None, "deps_target": None, "deps_phony": False,
                "deps_only": False, "cache": None},
    "inspect": {**_COMMON_DEFAULTS, "output": None, "report_format": "text", "show_resources": False},
}
"""The keyword arguments of a command line that gives only INPUT (`input` aside)."""


def command_of(argv: list[str]) -> tuple[str, list[str]] | None:
    """(the command, its arguments) where `argv` is a command this module reads, else None (as
    `cli._translate` decides: a first word that is no command and no option means `compile`, unless
    it names an unknown command)."""
    if not argv or argv[0] in TOP_LEVEL or "_WGC_COMPLETE" in os.environ:   # (click's shell completion)
        return None
    first = argv[0]
    if first in COMMANDS:
        return (first, argv[1:]) if first in FAST_COMMANDS else None
    if (not first.startswith(("-", "/")) and "." not in first and os.sep not in first
            and not os.path.exists(first)):
        return None       # an unknown command: click's path reports it
    return "compile", argv


def parse(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(the command, the keyword arguments click would give its callback), or None: click reads it."""
    found = command_of(argv)
    if found is None:
        return None
    command, rest = found
    from wgc import dxc_options

    own = COMMAND_OPTIONS[command]
    others = {name: other for other in ("compile", "inspect", "run") for name in COMMAND_OPTIONS[other]
              if name not in own}
    done = dxc_options.translate(rest, own, command, others)
    if done.problems:
        return None
    words = [word for written, why in done.ignored for word in ("--ignored-dxc-option", f"{written}\n{why}")]
    return _read(command, [*words, *done.args])


def _read(command: str, args: list[str]) -> tuple[str, dict[str, Any]] | None:
    table = PARAMETERS[command]
    values: dict[str, Any] = {}
    appended: dict[str, list[Any]] = {}
    positional: list[str] = []
    converters: dict[str, Any] = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            positional.extend(args[i + 1:])
            break
        entry = table.get(word)
        if entry is None:
            if word.startswith("-") and word != "-":
                return None          # no option of the command (e.g. help): click decides
            positional.append(word)
            i += 1
            continue
        name, action, argument = entry
        count = COMMAND_OPTIONS[command][word]
        if i + count >= len(args):
            return None
        given = args[i + 1:i + 1 + count]
        i += 1 + count
        if action == "const":
            values[name] = argument
        elif action == "append_const":
            appended.setdefault(name, []).append(argument)
        elif action == "append":
            appended.setdefault(name, []).append(given[0] if count == 1 else tuple(given))
        elif action == "value":
            values[name] = given[0]
            if argument is not None:
                converters[name] = argument
    if len(positional) != 1 or not _input_accepted(positional[0]):
        return None
    kwargs = {"input": positional[0], **DEFAULTS[command], **values,
              **{name: tuple(items) for name, items in appended.items()}}
    for name, argument in converters.items():       # the defaults need no conversion
        converted = _convert(kwargs[name], argument)
        if converted is None:
            return None
        kwargs[name] = converted[0]
    return command, kwargs


def _convert(value: Any, argument: Any) -> tuple[Any] | None:
    """(the value as click's type or callback gives it), or None where it refuses it."""
    if value is None:
        return (value,)
    if argument == "profile":
        from wgc.driver import profile_error

        return None if profile_error(value) is not None else (value,)
    if argument == "target_env":
        from wgc.driver import TARGET_ENVS

        return (value,) if value in TARGET_ENVS else None
    if isinstance(argument[0], str):                 # a choice
        return (value,) if value in argument else None
    try:                                             # an integer range
        number = int(value)
    except ValueError:
        return None
    low, high = argument
    return None if number < low or (high is not None and number > high) else (number,)


def _input_accepted(path: str) -> bool:
    """Whether click's `Path(dir_okay=False, allow_dash=True)` takes INPUT: a missing path or a
    readable one that is no folder."""
    if path == "-":
        return True
    try:
        status = os.stat(path)
    except OSError:
        return True
    return not stat.S_ISDIR(status.st_mode) and os.access(path, os.R_OK)


def run(argv: list[str]) -> int | None:
    """The exit code of `argv` run without click, or None: `wgc.cli` runs it."""
    parsed = parse(argv)
    if parsed is None:
        return None
    command, kwargs = parsed
    from wgc import compiling

    try:
        try:
            if command == "compile":
                return compiling.compile_command(argv, **kwargs)
            return compiling.inspect_command(**kwargs)
        except compiling.UsageProblem:
            return None       # raised before anything was read or written: click reports it
    except BaseException as exc:   # noqa: BLE001 - reported as `wgc.cli.main` reports it
        return compiling.exit_code_of(exc)
