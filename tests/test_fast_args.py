"""`wgc.fast_args`: `wgc compile` and `wgc inspect` command lines read without click give what click's
path gives (the same keyword arguments, or the fall-back to click for everything click refuses),
and a plain compile does not import click (issue 31: a cold compile's start-up)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import click
import pytest

from conftest import SAMPLES
from wgc import cli, fast_args
from wgc.dxc_options import DXC_OPTIONS, FLAG, JOINED, JOINED_OR_SEPARATE, COMMA_JOINED

GOOD_VALUES = {
    "-T": "lib_6_8", "--max-graph-depth": "40", "-E": "Main", "-D": "X=1", "-U": "Y", "-I": "inc", "-HV": "2018",
    "-fspv-target-env": "vulkan1.2", "--target-env": "vulkan1.4", "-W": "no-unused", "-ferror-limit": "5",
    "-fdiagnostics-format": "msvc", "-Fe": "diag.txt", "--ignored-dxc-option": "x\ny", "-o": "out.spv",
    "-Fo": "o.spv", "--emit": "asm", "-Fc": "l.txt", "-Fi": "p.i", "--split-nodes": "split", "-Fh": "h.h",
    "-Fre": "r.json", "-Vn": "g_name", "--target": "emulated", "--loops": "index-space", "-MF": "d.d",
    "-MT": "target", "--format": "json",
}
BAD_VALUES = {
    "-T": "lib_6_1", "--max-graph-depth": "0", "-HV": "2015", "-fspv-target-env": "vulkan1.0",
    "-ferror-limit": "-1", "-fdiagnostics-format": "gcc", "--emit": "dxil", "--target": "x", "--loops": "y",
    "--format": "html",
}
MULTI_VALUES = {2: [["1", "0"], ["4", "all"], ["x", "0"]], 4: [["t3", "0", "5", "1"], ["q", "0", "1", "1"]]}


def click_reading(argv: list[str]) -> tuple[str, dict] | str:
    """What `wgc.cli` makes of `argv`: (the command, its callback's keyword arguments), or "refused"
    (a usage problem, help) or "other" (another command)."""
    args, problems = cli._translate(argv)
    if problems:
        return "refused"
    if not args or args[0] not in fast_args.FAST_COMMANDS:
        return "other"
    command = cli.cli.commands[args[0]]
    try:
        context = command.make_context(args[0], args[1:])
    except (click.exceptions.Exit, click.ClickException):
        return "refused"
    return args[0], context.params


def option_chunks(command: str) -> list[list[str]]:
    """Each option of the command alone, with good and bad values, `=` forms and a missing value."""
    chunks: list[list[str]] = []
    for word, count in fast_args.COMMAND_OPTIONS[command].items():
        if count == 0:
            chunks.append([word])
            chunks.append([word + "=1"])
        elif count == 1:
            value = GOOD_VALUES.get(word, "value")
            chunks += [[word, value], [word + "=" + value], [word + value], [word]]
            if word in BAD_VALUES:
                chunks.append([word, BAD_VALUES[word]])
        else:
            chunks += [[word, *values] for values in MULTI_VALUES[count]]
            chunks.append([word, "1"])
    return chunks


def dxc_chunks() -> list[list[str]]:
    """Each dxc option in each of its prefixes, with a value as its kind takes it."""
    chunks = []
    for option in DXC_OPTIONS:
        for prefix in option.prefixes:
            name = prefix + option.name
            if option.kind == FLAG:
                chunks.append([name])
            elif option.kind in (JOINED, COMMA_JOINED):
                chunks.append([name + ("decl" if "order" in name else "utf8" if "encoding" in name else "v,w")])
            elif option.kind == JOINED_OR_SEPARATE:
                chunks += [[name + "lib_6_8"], [name, "lib_6_8"]]
            else:
                chunks.append([name, *["0"] * option.nargs])
    return chunks


MISTAKES = [
    ["-Tlib_6_8", "-Fo"], ["--emitt=asm"], ["-Fx", "y"], ["--", "-o"], ["-o", "-S"], ["-S", "-S"], ["-SP"],
    ["/Fo", "x.spv", "/T", "lib_6_8"], ["/tmp/other.hlsl"], ["-Zpr", "-Zpc", "-Zpr"], ["-O3", "-O0"],
    ["-fwork-graph-loops", "-fmax-records-per-node", "-fwork-graph-loops"], ["-Qunused-arguments", "-bogus"],
    ["-Dfoo", "-D", "-x"], ["-ofile.spv"], ["-UX", "-IDIR"], ["--help"], ["-h"], ["-help"], ["-?"], ["--version"],
    ["-Fc", "l.s", "--format", "json"], ["--dispatch", "d.json"], ["-"], ["--no-server", "--server"],
    ["-ferror-limit", " 7 "], ["-ferror-limit", "1_0"], ["--max-graph-depth", "4294967296"], [""],
]


def command_lines(command: str, count: int) -> list[list[str]]:
    """The input with one chunk each, then random mixes of several chunks (seeded)."""
    chunks = option_chunks(command) + dxc_chunks() + MISTAKES
    lines = [[command, "in.hlsl", *chunk] for chunk in chunks]
    lines += [["in.hlsl", *chunk] for chunk in option_chunks("compile")[:40]]       # dxc-style: compile
    pick = random.Random(31)
    for _ in range(count):
        words = [word for chunk in pick.sample(chunks, pick.randint(1, 4)) for word in chunk]
        words.insert(pick.randint(0, len(words)), "in.hlsl")
        if pick.random() < 0.1:
            words.insert(pick.randint(0, len(words)), "second.hlsl")
        if pick.random() < 0.1:
            words.remove("in.hlsl")
        lines.append([command, *words])
    return lines


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.hlsl").write_text("[numthreads(1, 1, 1)] void main() {}\n")
    (tmp_path / "folder.hlsl").mkdir()
    return tmp_path


def test_the_tables_are_clicks():
    """The option tables, parameters and defaults equal what click's commands declare."""
    assert fast_args.COMMANDS == set(cli.cli.commands)
    for command in ("compile", "inspect", "run"):
        assert fast_args.COMMAND_OPTIONS[command] == cli._own_options(cli.cli.commands[command]), command
    for command in fast_args.FAST_COMMANDS:
        table = fast_args.PARAMETERS[command]
        declared = {}
        for param in cli.cli.commands[command].params:
            if isinstance(param, click.Option):
                for word in param.opts:
                    declared[word] = param.name
                    if param.is_flag and not param.multiple and not param.secondary_opts:
                        value = param.flag_value if isinstance(param.flag_value, str) else True   # UNSET: True
                        assert table[word][1:] == ("const", value), word
                for word in param.secondary_opts:
                    declared[word] = param.name
        assert {word: entry[0] for word, entry in table.items()} == declared
        given = click_reading([command, "x.hlsl"])
        assert given != "refused" and given[1] == {"input": "x.hlsl", **fast_args.DEFAULTS[command]}


@pytest.mark.parametrize("command", fast_args.FAST_COMMANDS)
def test_command_lines_read_as_click_reads_them(folder, command):
    """Every option of the command (good and bad values, `=` and joined forms, values missing), every
    dxc option in each prefix, and mistakes, alone and in 400 random mixes: where click's path
    accepts the command line, the fast path gives the same keyword arguments; where it refuses
    it (a usage error, help, a value its type refuses), the fast path leaves it to click."""
    accepted = 0
    for argv in command_lines(command, 400):
        expected = click_reading(argv)
        found = fast_args.parse(argv)
        if isinstance(expected, str):
            assert found is None, (argv, found)
        else:
            assert found == expected, argv
            accepted += 1
    assert accepted > 300


@pytest.mark.parametrize("argv", [
    ["compile", "folder.hlsl"], ["inspect", "folder.hlsl"], ["folder.hlsl", "-o", "x.spv"],
    ["compile", "in.hlsl", "second.hlsl"], ["compile"], ["compile", "--", "a", "b"], ["nothing"], ["run", "in.hlsl"],
])
def test_what_click_refuses_is_left_to_click(folder, argv):
    """A folder as INPUT, two inputs or none, an unknown command, another command."""
    assert click_reading(argv) in ("refused", "other")
    assert fast_args.parse(argv) is None


END_TO_END = [
    ["compile", "hello.hlsl", "-o", "out.spv"],
    ["hello.hlsl", "-T", "lib_6_8", "/Fo", "o2.spv", "-Fc", "l.s", "-O3", "-Zi", "-Qstrip_reflect"],
    ["compile", "hello.hlsl", "-P", "-o", "x"],
    ["compile", "hello.hlsl", "-Fi", "x.i"],
    ["compile", "hello.hlsl", "--emit", "ir", "--split-nodes", "d"],
    ["compile", "hello.hlsl", "-Fh", "x.h", "--emit", "asm"],
    ["compile", "hello.hlsl", "-Vn", "1bad", "-Fh", "x.h"],
    ["compile", "hello.hlsl", "-fvk-b-shift", "x", "0"],
    ["compile", "hello.hlsl", "-fvk-bind-register", "q", "0", "1", "1"],
    ["compile", "hello.hlsl", "-fvk-bind-register", "t0", "0", "1", "1", "-fvk-t-shift", "1", "0"],
    ["compile", "hello.hlsl", "-fwork-graph-loops", "-T", "lib_6_8"],
    ["compile", "hello.hlsl", "--loops", "native"],
    ["compile", "hello.hlsl", "-MD", "-o", "-"],
    ["compile", "hello.hlsl", "-Fre", "r.json", "--emit", "reflection"],
    ["compile", "missing.hlsl", "-o", "m.spv"],
    ["compile", "hello.hlsl", "--bogus"],
    ["compile", "hello.hlsl", "-Fo"],
    ["compile", "hello.hlsl", "-HV", "2015"],
    ["inspect", "hello.hlsl"],
    ["inspect", "hello.hlsl", "--format", "json", "-o", "i.json", "-Wno-everything"],
    ["inspect", "hello.hlsl", "-Fc", "x"],
]


@pytest.mark.parametrize("argv", END_TO_END)
def test_both_paths_print_write_and_exit_alike(tmp_path, monkeypatch, capsys, argv):
    """The whole command, through `cli.main` with and without the fast path, in two fresh folders:
    the same exit code, standard output and error, and files."""
    seen = []
    for fast in (True, False):
        where = tmp_path / str(fast)
        where.mkdir()
        shutil.copy(SAMPLES / "hello.hlsl", where / "hello.hlsl")
        monkeypatch.chdir(where)
        capsys.readouterr()
        code = cli.main(list(argv), consult_cache=False, read_fast=fast)
        out, err = capsys.readouterr()
        files = {str(p.relative_to(where)): p.read_bytes() for p in sorted(where.rglob("*")) if p.is_file()}
        seen.append((code, out, err, files))
    assert seen[0] == seen[1]


def test_a_plain_compile_and_inspect_do_not_import_click(tmp_path):
    """The fast path runs a plain compile and inspect; a usage mistake still goes through click."""
    from test_cold_start import _observe

    hello = str(SAMPLES / "hello.hlsl")
    for args in (("compile", hello, "-o", "out.spv"), ("-T", "lib_6_8", "/Fo", "o.spv", hello),
                 ("inspect", hello, "-o", "out.txt")):
        seen = _observe(tmp_path, *args)
        assert seen["code"] == 0
        assert not [m for m in seen["modules"] if m == "click" or m.startswith("click.") or m == "wgc.cli"], args
    seen = _observe(tmp_path, "compile", hello, "-P", "-o", "x")
    assert seen["code"] == 2 and "click" in seen["modules"]


def test_shell_completion_is_left_to_click(folder, monkeypatch):
    """click completes words where $_WGC_COMPLETE is set, whatever the arguments."""
    assert fast_args.parse(["compile", "in.hlsl"]) is not None
    monkeypatch.setenv("_WGC_COMPLETE", "bash_complete")
    assert fast_args.parse(["compile", "in.hlsl"]) is None


def test_unknown_options_still_get_their_suggestion(run_wgc):
    done = run_wgc("compile", str(SAMPLES / "hello.hlsl"), "--emitt=asm")
    assert done.returncode == 2 and b"did you mean '--emit'" in done.stderr


def test_the_server_client_knows_the_same_commands():
    from wgc.server import client

    assert client.COMMANDS == fast_args.COMMANDS
    assert Path(fast_args.__file__).name == "fast_args.py"
