"""What a cold `wgc compile` process loads and does besides the compile (issue 31: cold compiles
cost at most 0.6 x Slang through a native driver, `benchmarks/vs_slang.py`).

The process is the `wgc` command's (`wgc.entry.main()`, as the script and `python -m wgc` run it),
observed at its end: `os._exit` (`posix._exit`, which a served command calls without `os`) is
wrapped to report `sys.modules` and the collector's state first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"

_OBSERVED = r"""
import atexit, gc, os, posix, sys
sys.argv = ["wgc", *sys.argv[1:]]
exit_now = os._exit

def observe(code=None):
    seen = {"code": code, "modules": sorted(sys.modules), "gc": gc.isenabled()}
    import json
    with open(os.environ["WGC_TEST_OBSERVED"], "w") as file:
        json.dump(seen, file)

def observed_exit(code):
    observe(code)
    exit_now(code)

os._exit = posix._exit = observed_exit
atexit.register(observe)       # a command that ends the normal way (`wgc run`)
from wgc.entry import main
main()
"""


def _observe(tmp_path: Path, *args: str, **extra: str) -> dict:
    """The exit code (None where the process ended the normal way), the modules loaded and whether
    the cyclic collector was on, at the end of a `wgc ARGS` process (in `tmp_path`, with a start-up cache of its own, filled by a first run)."""
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path / "cache"), WGC_TEST_OBSERVED=str(tmp_path / "observed.json"))
    for name in ("WGC_VERIFY_IR", "WGC_CACHE", "WGC_SERVER"):   # the tests' IR verifier, the caches, the server
        env.pop(name, None)
    env.update(extra)
    for _ in range(2):    # the first run fills the start-up caches, as an installed wgc has them
        (tmp_path / "observed.json").unlink(missing_ok=True)
        done = subprocess.run([sys.executable, "-c", _OBSERVED, *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
    assert (tmp_path / "observed.json").exists(), done.stderr
    return json.loads((tmp_path / "observed.json").read_text())


NOT_FOR_A_PLAIN_COMPILE = (
    "lark",            # the fast loop reads plain tables; lark's parser only for a syntax error
    "pickle",          # lark's parser is pickled; the plain tables are marshalled
    "hashlib",         # OpenSSL's hashes: the caches' keys use blake2b (`wgc.identity`)
    "json",            # only for a reflection (-Fre, --emit=reflection) or inspect's JSON
    "vulkan", "wgc.runtime", "wgc.lsp", "wgc.server", "wgc.metadata", "wgc.spirv_in", "llvmlite", "pygls",
    "wgc.spirv.optimize",   # spirv-opt only with -O
    "wgc.ir_verify",        # the tests' IR verifier
    "click", "wgc.cli",     # a plain compile's command line is read by `wgc.fast_args`
)


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]


def test_a_plain_compile_imports_only_what_it_compiles_with(tmp_path) -> None:
    """A compile of a sample that parses: neither lark nor the modules of other commands (the
    runtime, the language server, the compile server, the inspect views, SPIR-V input)."""
    seen = _observe(tmp_path, "compile", "-I", str(SAMPLES / "include"), str(SAMPLES / "hello_work_graphs.hlsl"),
                    "-o", "out.spv")
    assert seen["code"] == 0 and (tmp_path / "out.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    assert _loaded(seen["modules"], NOT_FOR_A_PLAIN_COMPILE) == []
    assert {"wgc.syntax.parse", "wgc.sema.analyze", "wgc.spirv.emit"} <= set(seen["modules"])


def test_a_syntax_error_loads_lark_for_its_diagnostic(tmp_path) -> None:
    """Where the text does not parse, lark's parser (from its own cache) parses it again for the
    error, as before: the diagnostic names what was expected."""
    (tmp_path / "broken.hlsl").write_text("float a = 1;\nfloat b = 1 +;\n")
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "wgc", "compile", "broken.hlsl", "-o", "out.spv"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "broken.hlsl:2:14: error: expected expression, found ';' [WG0201]" in done.stderr
    seen = _observe(tmp_path, "compile", "broken.hlsl", "-o", "out.spv")
    assert seen["code"] == 1 and "lark" in seen["modules"] and not (tmp_path / "out.spv").exists()


@pytest.mark.parametrize(("args", "collecting"), [
    (("compile", "{sample}", "-o", "out.spv"), False),
    (("inspect", "{sample}", "-o", "out.txt"), False),
    (("--version",), False),
    (("run", "--help"), True),
    (("server", "status"), True),
])
def test_the_cyclic_collector_is_off_only_in_processes_that_end_with_os_exit(tmp_path, args, collecting) -> None:
    """A compile, inspect or --version process ends with `os._exit` (its objects are never freed):
    the collector stays off (collections during the imports and after the compile walked some
    100,000 long-lived objects for nothing); `wgc run` and the other commands keep it."""
    args = tuple(a.format(sample=SAMPLES / "hello.hlsl") for a in args)
    seen = _observe(tmp_path, *args)
    assert seen["code"] == (None if collecting else 0)
    assert seen["gc"] is collecting


def test_the_spirv_grammar_makes_an_entry_on_its_first_lookup() -> None:
    """A compile looks up a few dozen of the grammar's instructions: the others are never made. An
    alias and its canonical name give the same entry; an unknown name's suggestions still come
    from every name of the grammar."""
    from wgc.spirv import grammar

    grammar._core.cache_clear()
    core = grammar._core()
    assert len(core.instructions) == 0 and len(core.raw["instructions"]) > 800
    assert grammar.instruction("OpDecorateStringGOOGLE") is grammar.instruction("OpDecorateString")
    assert grammar.opcode("OpDecorateString") == 5632 and len(core.instructions) == 2
    assert grammar.instruction_by_opcode(5632) is grammar.instruction("OpDecorateString")
    assert grammar.enumerant("StorageClass", "NodePayloadAMDX") == 5068 and list(core.kinds) == ["StorageClass"]
    with pytest.raises(KeyError, match="did you mean OpDecorate, OpDecorateId"):
        grammar.instruction("OpDecorat")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the compile server needs fork and Unix-domain sockets")
def test_a_client_that_finds_a_server_listening_imports_no_file_locks_nor_the_version(tmp_path) -> None:
    """Only a server takes file locks: a served command whose server listens already (the first run
    started it) does without `fcntl` (an extension module: a shared library loaded per client),
    and without `wgc.version` (`wgc.__version__` is read when asked)."""
    try:
        seen = _observe(tmp_path, "compile", str(SAMPLES / "hello.hlsl"), "-o", "out.spv", WGC_SERVER="1")
    finally:
        subprocess.run([sys.executable, "-m", "wgc", "server", "--stop"], cwd=tmp_path, capture_output=True,
                       env=dict(os.environ, WGC_CACHE_DIR=str(tmp_path / "cache")), timeout=300)
    assert seen["code"] == 0
    assert "wgc.server.client" in seen["modules"] and "wgc.sema.analyze" not in seen["modules"]
    assert "fcntl" not in seen["modules"] and "wgc.version" not in seen["modules"]
