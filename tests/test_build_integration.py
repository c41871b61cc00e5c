"""wgc inside real builds: CMake (Ninja and Makefiles), Meson, and the Ninja and Make rules of the
user guide (docs/guide.md), each driven with the real tool on a copy of the samples.

For each: the first build produces SPIR-V that validates; a second build does nothing; touching a
header that only one shader includes rebuilds that shader alone; touching the shared header
rebuilds both. The tools come with the test extras (`pip install '.[test]'`), `make` from the
system.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES
from wgc.spirv import tools

BIN = Path(sys.executable).parent
SHADERS = ("fanout.spv", "weigh.spv")


def tool(name: str) -> str:
    found = shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        pytest.fail(f"'{name}' is missing: it is installed by pip install '.[test]'")
    return found


def run(*command: str, cwd: Path) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the build samples (so touching headers does not touch the checkout)."""
    for name in ("cmake", "meson", "build-integration"):
        shutil.copytree(SAMPLES / name, tmp_path / "samples" / name)
    return tmp_path / "samples"


def stamps(folder: Path) -> dict[str, int]:
    return {name: (folder / name).stat().st_mtime_ns for name in SHADERS}


def touch(path: Path) -> None:
    later = time.time() + 5           # clearly newer than every output, whatever the clock resolution
    os.utime(path, (later, later))


def check_incremental(build, out: Path, headers: Path) -> None:  # type: ignore[no-untyped-def]
    build()
    for name in SHADERS:
        assert tools.validate((out / name).read_bytes(), "vulkan1.3") == []
    first = stamps(out)
    build()
    assert stamps(out) == first, "a build with no change rebuilt something"
    touch(headers / "weights.hlsli")
    build()
    second = stamps(out)
    assert second["weigh.spv"] != first["weigh.spv"] and second["fanout.spv"] == first["fanout.spv"]
    touch(headers / "records.hlsli")
    build()
    third = stamps(out)
    assert all(third[name] != second[name] for name in SHADERS)


@pytest.mark.parametrize("generator", ["Ninja", "Unix Makefiles"])
def test_cmake(tree: Path, tmp_path: Path, generator: str):
    if generator == "Unix Makefiles" and shutil.which("make") is None:
        pytest.skip("no make on this machine")
    cmake, build_dir = tool("cmake"), tmp_path / "build"
    extra = ["-DCMAKE_MAKE_PROGRAM=" + tool("ninja")] if generator == "Ninja" else []
    run(cmake, "-S", str(tree / "cmake"), "-B", str(build_dir), "-G", generator, *extra, cwd=tmp_path)
    check_incremental(lambda: run(cmake, "--build", str(build_dir), cwd=tmp_path), build_dir,
                      tree / "build-integration" / "shaders" / "include")


def test_meson(tree: Path, tmp_path: Path):
    meson, build_dir = tool("meson"), tmp_path / "build"
    tool("ninja")
    run(meson, "setup", str(build_dir), str(tree / "meson"), cwd=tmp_path)
    check_incremental(lambda: run(meson, "compile", "-C", str(build_dir), cwd=tmp_path), build_dir,
                      tree / "build-integration" / "shaders" / "include")


def readme_block(language: str) -> str:
    text = (ROOT / "docs" / "guide.md").read_text()
    match = re.search(rf"```{language}\n(.*?)```", text, flags=re.S)
    assert match, f"docs/guide.md has no {language} block"
    return match.group(1)


@pytest.mark.parametrize("language,build_file", [("ninja", "build.ninja"), ("make", "Makefile")])
def test_readme_rules(tree: Path, language: str, build_file: str):
    if language == "make" and shutil.which("make") is None:
        pytest.skip("no make on this machine")
    shaders = tree / "build-integration" / "shaders"
    (shaders / build_file).write_text(readme_block(language))
    program = tool("ninja") if language == "ninja" else "make"
    check_incremental(lambda: run(program, cwd=shaders), shaders, shaders / "include")
