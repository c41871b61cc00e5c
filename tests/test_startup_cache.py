"""The start-up caches: `wgc.startup_cache` (files, keys, damage, concurrency, eviction) and the
parser it holds (`wgc.syntax.parse`: a parser loaded from the cache parses exactly as one built
from the grammar, and an edited grammar is never parsed with stale tables)."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wgc import startup_cache
from wgc.syntax import parse

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ the cache files


def test_a_payload_comes_back_only_for_its_name_and_key(tmp_path, monkeypatch):
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "made on first write"))
    assert startup_cache.read("thing", "key 1") is None
    assert startup_cache.write("thing", "key 1", b"payload \x00\xff")
    assert startup_cache.read("thing", "key 1") == b"payload \x00\xff"
    assert startup_cache.read("thing", "key 2") is None
    assert startup_cache.read("other", "key 1") is None
    assert [p.name for p in (tmp_path / "made on first write").iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "empty", "garbage", "other key"])
def test_a_damaged_file_reads_as_missing(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path))
    payload = bytes(range(256)) * 10
    startup_cache.write("thing", "the key", payload)
    path = Path(startup_cache.path("thing", "the key"))
    data = path.read_bytes()
    path.write_bytes({"truncated": data[:-1], "one byte changed": data[:-7] + b"\x00" + data[-6:],
                      "empty": b"", "garbage": b"\x80\x04 not a cache at all\n",
                      "other key": data.replace(b"the key", b"the kez")}[damage])
    assert startup_cache.read("thing", "the key") is None


def test_an_unusable_folder_means_no_cache_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("WGC_CACHE_DIR", str(blocker / "cache"))
    assert startup_cache.write("thing", "key", b"data") is False
    assert startup_cache.read("thing", "key") is None


def test_only_the_most_recently_used_caches_of_a_name_are_kept(tmp_path, monkeypatch):
    """Several wgc versions sharing the folder keep their own caches (each used one is marked as
    used); only those beyond the KEPT most recently used go, and other names are left alone."""
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path))
    kept = startup_cache.KEPT
    others = [tmp_path / f"thing-other{i:02d}.cache" for i in range(kept + 2)]
    for age, path in enumerate(others):          # others[0] is the most recently used
        path.write_bytes(b"x")
        os.utime(path, (1_000_000 - age, 1_000_000 - age))
    unrelated = tmp_path / "another-name-00000000.cache"
    unrelated.write_bytes(b"y")
    os.utime(unrelated, (1, 1))
    startup_cache.write("thing", "this version", b"data")
    mine = Path(startup_cache.path("thing", "this version"))
    survivors = sorted(p.name for p in tmp_path.iterdir())
    assert survivors == sorted([mine.name, unrelated.name, *(p.name for p in others[:kept - 1])])
    # reading a cache marks it as used: another version writing next keeps it
    os.utime(mine, (2, 2))
    assert startup_cache.read("thing", "this version") == b"data"
    startup_cache.write("thing", "another version", b"other")
    assert mine.exists()


# ------------------------------------------------------------------ the parser in the cache

_PARSE_ALL = r"""
import sys
sys.path.insert(0, sys.argv[1])
from wgc.diagnostics import Renderer
from wgc.source import SourceFile
from wgc.syntax import parse
from wgc.syntax.dump import dump_ast
origin = parse.load_grammar()
out = [origin]
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    result = parse.parse_source(SourceFile(path, text))
    out.append(dump_ast(result.unit) + Renderer().render(result.diagnostics) + repr(sorted(result.skipped_names)))
print("\x00".join(out))
"""

# syntax errors of several kinds: the error messages come from lark's interactive parser
_BROKEN = ["void f()\n{\n    x = 1\n    y = 2;\n}\n", "struct S { float a; }\nvoid f() {}\n",
           "void f() { foo(1, 2; }\n", "float4 g(; \nstruct T { uint a; };\n", "void h() { return 1 $ 2; }\n",
           "template<typename T> T id(T x) { return x; }\nvoid k() { id<float>(1.0) }\n"]


def _inputs(tmp_path: Path) -> list[str]:
    paths = [str(p) for p in sorted((ROOT / "samples").glob("*.hlsl"))]
    for i, text in enumerate(_BROKEN):
        broken = tmp_path / f"broken{i}.hlsl"
        broken.write_text(text)
        paths.append(str(broken))
    return paths


def _parse_all(tree: Path, cache: Path, inputs: list[str]) -> tuple[str, list[str]]:
    """(where the parser came from, the AST dump + diagnostics of each input) in a fresh process."""
    env = dict(os.environ, WGC_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", _PARSE_ALL, str(tree), *inputs], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    origin, *dumps = done.stdout.rstrip("\n").split("\x00")
    return origin, dumps


def test_a_parser_from_the_cache_parses_as_one_built_from_the_grammar(tmp_path):
    """Every sample and several syntax errors: the same AST (with locations), diagnostics and
    skipped names from the freshly built parser and from the one the next process loads."""
    inputs = _inputs(tmp_path)
    cache = tmp_path / "cache"
    built_origin, built = _parse_all(ROOT, cache, inputs)
    cached_origin, cached = _parse_all(ROOT, cache, inputs)
    assert (built_origin, cached_origin) == ("built", "cache")
    assert len(built) == len(inputs) and all("error" in dump for dump in built[-len(_BROKEN):])
    assert cached == built


@pytest.mark.parametrize("which", ["both", "lark's parser"])
@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "unloadable payload"])
def test_a_damaged_parser_cache_is_rebuilt(tmp_path, monkeypatch, damage, which):
    """Both caches damaged: the parser is built again; only lark's parser (which a syntax error
    needs; the inputs hold one): the fast loop's tables still come from their cache. Either way
    everything parses as before, and the next process loads what was rewritten."""
    inputs = _inputs(tmp_path)[:1] + _inputs(tmp_path)[-1:]
    cache = tmp_path / "cache"
    _, expected = _parse_all(ROOT, cache, inputs)
    keys = {parse.PARSER_CACHE: parse._parser_cache_key, parse.TABLES_CACHE: parse._tables_cache_key}
    for name in [parse.PARSER_CACHE, *([parse.TABLES_CACHE] if which == "both" else [])]:
        (path,) = cache.glob(f"{name}-*.cache")
        data = path.read_bytes()
        if damage == "truncated":
            path.write_bytes(data[: len(data) // 3])
        elif damage == "one byte changed":
            path.write_bytes(data[:-100] + bytes([data[-100] ^ 1]) + data[-99:])
        else:  # a well-formed cache file (right key and checksum) whose payload is not what it should hold
            monkeypatch.setenv("WGC_CACHE_DIR", str(cache))
            startup_cache.write(name, keys[name](parse.grammar_text()), b"\x80\x05not a pickle")
    assert _parse_all(ROOT, cache, inputs) == ("built" if which == "both" else "cache", expected)
    assert _parse_all(ROOT, cache, inputs) == ("cache", expected)


def test_processes_starting_together_all_get_a_parser_and_leave_one_whole_cache(tmp_path):
    inputs = _inputs(tmp_path)[-3:]
    cache = tmp_path / "cache"
    env = dict(os.environ, WGC_CACHE_DIR=str(cache))
    started = [subprocess.Popen([sys.executable, "-c", _PARSE_ALL, str(ROOT), *inputs], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [process.communicate() for process in started]
    assert [process.returncode for process in started] == [0, 0, 0, 0], [err for _, err in outputs]
    dumps = {out.split("\x00", 1)[1] for out, _ in outputs}
    assert len(dumps) == 1
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []
    origin, cached = _parse_all(ROOT, cache, inputs)
    assert origin == "cache" and "\x00".join(cached) + "\n" == dumps.pop()


def test_an_edited_grammar_is_never_parsed_with_the_old_tables(tmp_path):
    """A checkout whose grammar changed (here the keyword `discard` spelled `discard_all`) shares the
    cache folder with the original: each parses by its own grammar."""
    edited = tmp_path / "edited"
    shutil.copytree(ROOT / "wgc", edited / "wgc", ignore=shutil.ignore_patterns("__pycache__", "grammar"))
    (edited / "grammar").mkdir()
    grammar = (ROOT / "grammar" / "hlsl.lark").read_text(encoding="utf-8")
    assert grammar.count('"discard"') == 1
    (edited / "grammar" / "hlsl.lark").write_text(grammar.replace('"discard"', '"discard_all"'), encoding="utf-8")
    program = tmp_path / "discards.hlsl"
    program.write_text("void f() { discard_all; }\n")
    cache = tmp_path / "cache"
    assert _parse_all(ROOT, cache, [str(program)])[0] == "built"
    assert _parse_all(ROOT, cache, [str(program)])[0] == "cache"
    original = _parse_all(ROOT, cache, [str(program)])[1][0]
    assert "NameExpr name=discard_all" in original and "DiscardStmt" not in original
    for expected_origin in ("built", "cache"):
        origin, (dump,) = _parse_all(edited, cache, [str(program)])
        assert origin == expected_origin and "DiscardStmt" in dump and "discard_all" not in dump
    assert _parse_all(ROOT, cache, [str(program)]) == ("cache", [original])


def test_patterns_without_reusable_code_are_stored_as_text(tmp_path, monkeypatch):
    """Where this Python's `re` internals differ, the cache holds the patterns' text (compiled again on
    load): slower, still correct."""
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parse, "_pattern_code", lambda pattern: None)
    grammar = parse.grammar_text()
    built = parse._built_parser(grammar, parse.TypeNamePostLexer())
    loaded = parse._cached_parser(grammar, parse.TypeNamePostLexer())
    assert loaded is not None
    expected = [pattern.pattern for lexer in built.parser.lexer.lexer.lexers.values()
                for pattern in lexer.scanner._mres]
    assert [pattern.pattern for lexer in loaded.parser.lexer.lexer.lexers.values()
            for pattern in lexer._scanner._mres] == expected
    tables = parse._plain_tables(built)
    specs = [spec for lexer in tables["lexers"] for spec in marshal.loads(lexer)[0]]
    assert {spec[0] for spec in specs} == {"text"}
    distinct = {id(lexer): lexer for lexer in built.parser.lexer.lexer.lexers.values()}.values()
    assert [parse._compiled(spec).pattern for spec in specs] == [pattern.pattern for lexer in distinct
                                                                 for pattern in lexer.scanner._mres]


def test_pattern_code_rebuilds_the_same_pattern():
    import re

    import _sre

    for pattern in (re.compile(r"(?P<A>[a-z]+)|(?P<B>\d+(?:\.\d*)?)"), re.compile(r"\s+", re.M)):
        args = parse._pattern_code(pattern)
        assert args is not None and _sre.compile(*args) == pattern


# ------------------------------------------------------------------ the command's fast exit

_AS_COMMAND = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("interpreter teardown ran\\n"))
sys.argv = ["wgc", *sys.argv[1:]]
from wgc.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("args, code", [
    (["compile", str(ROOT / "samples" / "hello.hlsl"), "-o", "-", "-S"], 0),
    (["inspect", str(ROOT / "samples" / "hello.hlsl"), "--format", "json"], 0),
    (["compile", "-"], 1),
])
def test_the_command_ends_without_teardown_after_writing_everything(tmp_path, args, code):
    """`wgc compile` / `inspect` end with os._exit: the same output, exit code and diagnostics as a
    normal exit (the in-process `main(argv)` gives the expected ones), no interpreter teardown
    (an atexit handler does not run), and the start-up caches are still written."""
    from wgc import cli

    stdin = b"void f() { x = 1 }\n"
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", _AS_COMMAND, *args], input=stdin, env=env, capture_output=True)
    assert done.returncode == code, done.stderr
    assert b"interpreter teardown ran" not in done.stderr
    expected = subprocess.run([sys.executable, "-c", "import sys; from wgc.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", *args], input=stdin, env=env, capture_output=True)
    assert (done.stdout, done.stderr, done.returncode) == (expected.stdout, expected.stderr, expected.returncode)
    assert len(done.stdout) > 1000 or code == 1
    assert any(tmp_path.joinpath("cache").glob("dataclass-code-*.cache"))
    assert cli.FAST_EXIT_COMMANDS >= {args[0]}


def test_other_commands_and_callers_keep_the_normal_exit(tmp_path):
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", _AS_COMMAND, "--help"], env=env, capture_output=True)
    assert done.returncode == 0 and b"interpreter teardown ran" in done.stderr
    done = subprocess.run([sys.executable, "-c", "import atexit, sys; from wgc.cli import main; "
                           "atexit.register(lambda: sys.stderr.write('teardown\\n')); "
                           f"main(['compile', {str(ROOT / 'samples' / 'hello.hlsl')!r}, '-o', '-'])"],
                          env=env, capture_output=True)
    assert done.returncode == 0 and done.stderr.endswith(b"teardown\n")
