"""wgc lsp, project settings: the compile options of a file open in an editor.

Stage: command line (`wgc lsp`), before each check of a document.
Input: the absolute path of a file. Output: `Settings`: the `driver.Options` to check it with
(emit "ir": the front end and sema), the file the settings came from, and the problems found in
that file (WG0080, WG0081), reported on the document as warnings.

Where the settings come from: from the file's folder upward, the first folder holding a `wgc.toml`,
or a `compile_commands.json` (in the folder or its `build/`) with an entry for the file, gives
them; none: wgc's defaults. `wgc.toml` holds (all optional; relative folders are relative to the
`wgc.toml`):

    include = ["include", "../shared"]     # -I, searched in order
    defines = ["USE_LOOPS", "N=4"]         # -D
    profile = "lib_6_9"                    # -T
    proposals = ["work-graph-loops"]       # -fmax-records-per-node, -fwork-graph-loops
    flags = ["-Wall", "-enable-16bit-types"]   # any other flag of `wgc compile`

A compile_commands.json entry (`arguments`, or `command` split as a shell does) is a dxc or wgc
command line: the compiler's name, `compile` after `wgc`, the input, output and dependency options
are dropped, and the rest is read by `wgc compile`'s own option parser (`wgc.cli`), so a flag means
what it means on the command line; relative `-I` folders are relative to the entry's `directory`.

Invariants: never raises for a bad settings file (a problem is a message, and the file is checked
with wgc's defaults); reads only the settings files, never the sources.
"""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.driver import Options

TOML_NAME = "wgc.toml"
COMPILE_COMMANDS = "compile_commands.json"
_TOML_KEYS = ("include", "defines", "profile", "proposals", "flags")
_DROPPED_WITH_VALUE = frozenset({"-o", "-Fo", "-Fh", "-Fre", "-Fe", "-MF", "-MT", "-MQ", "--split-nodes", "-Vn",
                                 "--emit", "-Fc", "-Fd"})
_DROPPED = frozenset({"-MD", "-MMD", "-M", "-MP", "-S", "-spirv", "-c", "--cache", "--no-cache", "--server",
                      "--no-server", "-Vd", "-O", "-Zi", "-nologo"})


@dataclass(frozen=True)
class Settings:
    options: Options
    origin: str | None = None
    """The wgc.toml or compile_commands.json they came from (None: wgc's defaults)."""
    problem: str | None = None
    """Why the settings file was not used (the file is then checked with wgc's defaults)."""
    problem_code: str = ""
    """"WG0080" (wgc.toml) or "WG0081" (compile_commands.json)."""


def settings_for(path: str) -> Settings:
    """The settings of the file at absolute `path` (see the module docstring)."""
    folder = os.path.dirname(path)
    while True:
        toml_path = os.path.join(folder, TOML_NAME)
        if os.path.isfile(toml_path):
            return _from_toml(path, toml_path)
        for candidate in (os.path.join(folder, COMPILE_COMMANDS), os.path.join(folder, "build", COMPILE_COMMANDS)):
            if os.path.isfile(candidate):
                found = _from_compile_commands(path, candidate)
                if found is not None:
                    return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return Settings(_default(path))
        folder = parent


def _default(path: str) -> Options:
    return Options(input=path, emit="ir")


def _from_toml(path: str, toml_path: str) -> Settings:
    try:
        with open(toml_path, "rb") as handle:
            table = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        return _refused(path, toml_path, "WG0080", f"cannot read '{toml_path}': {err}")
    unknown = sorted(set(table) - set(_TOML_KEYS))
    if unknown:
        return _refused(path, toml_path, "WG0080", f"'{toml_path}': unknown key '{unknown[0]}' (wgc.toml takes "
                        + ", ".join(_TOML_KEYS) + ")")
    args: list[str] = []
    base = os.path.dirname(toml_path)
    try:
        for folder in _strings(table, "include"):
            args += ["-I", os.path.join(base, folder)]
        for define in _strings(table, "defines"):
            args += ["-D", define]
        if "profile" in table:
            profile = table["profile"]
            if not isinstance(profile, str):
                raise ValueError("'profile' must be a string")
            args += ["-T", profile]
        args += [f"-f{name}" for name in _strings(table, "proposals")]
        args += _strings(table, "flags")
    except ValueError as err:
        return _refused(path, toml_path, "WG0080", f"'{toml_path}': {err}")
    return _parsed(path, toml_path, "WG0080", args)


def _strings(table: dict[str, Any], key: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{key}' must be a list of strings")
    return value


def _from_compile_commands(path: str, database: str) -> Settings | None:
    """The settings of `path`'s entry in `database`; None when it has none (the search goes on)."""
    try:
        with open(database, encoding="utf-8") as handle:
            entries = json.load(handle)
    except (OSError, ValueError) as err:
        return _refused(path, database, "WG0081", f"cannot read '{database}': {err}")
    if not isinstance(entries, list):
        return _refused(path, database, "WG0081", f"'{database}' is not a list of entries")
    wanted = os.path.normcase(os.path.normpath(path))
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        written = entry.get("directory")
        directory = written if isinstance(written, str) else os.path.dirname(database)
        file = os.path.join(directory, entry["file"])
        if os.path.normcase(os.path.normpath(file)) != wanted:
            continue
        try:
            if isinstance(entry.get("arguments"), list):
                argv = [str(a) for a in entry["arguments"]]
            else:
                argv = shlex.split(str(entry.get("command", "")))
        except ValueError as err:
            return _refused(path, database, "WG0081", f"'{database}': the command for '{entry['file']}': {err}")
        args = _compiler_flags(argv, entry["file"], file)
        settings = _parsed(path, database, "WG0081", args)
        if settings.problem is None:
            options = settings.options
            settings = replace(settings, options=replace(options, include_dirs=tuple(
                os.path.join(directory, d) for d in options.include_dirs)))
        return settings
    return None


def _compiler_flags(argv: Sequence[str], written: str, file: str) -> list[str]:
    """The flags of a compile command: without the compiler, `compile`, the input and the outputs."""
    args = list(argv)
    if args and not args[0].startswith("-"):
        args = args[1:]
    if args and args[0] == "compile":
        args = args[1:]
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _DROPPED_WITH_VALUE:
            skip = True
        elif arg in _DROPPED or arg in (written, file) or any(
                arg.startswith(p) and len(arg) > len(p) for p in ("-Fo", "-Fh", "-MF", "-MT", "--emit=")):
            continue
        else:
            kept.append(arg)
    return kept


def parse_flags(args: Sequence[str], path: str) -> Options:
    """The options `wgc compile ARGS PATH` would check `path` with (emit "ir"); raises ValueError with
    the option parser's message."""
    import click

    from wgc.cli import _options, cli

    command = cli.commands["compile"]
    try:
        with command.make_context("compile", [*args, "--", path]) as ctx:
            return replace(_options(ctx.params, "ir"), input=path)
    except click.NoSuchOption as err:   # click names the first letter of `-no-such-flag`: name the flag
        flag = next((a for a in args if a.startswith(err.option_name)), err.option_name)
        raise ValueError(f"'{flag}' is not a flag of wgc compile") from None
    except click.ClickException as err:
        raise ValueError(err.format_message()) from None


def _parsed(path: str, origin: str, code: str, args: list[str]) -> Settings:
    try:
        return Settings(parse_flags(args, path), origin)
    except ValueError as err:
        return _refused(path, origin, code, f"'{origin}': {err}")


def _refused(path: str, origin: str, code: str, problem: str) -> Settings:
    return Settings(_default(path), origin, problem, code)
