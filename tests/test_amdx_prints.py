"""printf on the AMDX path (issue 27): `wgc run --path amdx` and `wgc run A.spv` run modules whose
printf is NonSemantic.DebugPrintf; `wgc.spirv_in.translate` turns each call into a record of the
emulated print buffer, so the same graph prints the same lines on both paths.  Expected texts are
C's printf, written out by hand (as in test_runtime_prints, whose graphs this reuses).

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

import pytest
from test_runtime_prints import FORMATS, FORMATS_PRINTED, LOOP, PLACES

import wgc
from wgc.diagnostics import Renderer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.usefixtures("vulkan_device")


def run_both(tmp_path, source: str, dispatch: dict, **options):
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    compile_options = wgc.Options(input=str(path), enable_16bit_types=True)
    emulated = wgc.run(compile_options, dispatch, **options)
    amdx = wgc.run(compile_options, dispatch, path="amdx", **options)
    for result in (emulated, amdx):
        assert result.ok, Renderer().render(list(result.diagnostics))
    assert amdx.path == "amdx"
    return emulated, amdx


def test_every_format_prints_the_same_on_the_amdx_path(tmp_path) -> None:
    """`%d %i %u %x %X %o %f %e %g %c %s`, flags, widths, precision, `%%`, vectors, bools and 64-bit
    values: the words the translation makes from DebugPrintf's typed arguments are those the
    emulated target makes."""
    emulated, amdx = run_both(tmp_path, FORMATS, {"inputs": [{"entry": "Show", "records": [
        {"n": -42, "u": 3054, "f": 2.5, "big": 1234567.0}]}], "resources": {"u0": {"bytes": 4}}})
    assert [p.text for p in amdx.prints] == FORMATS_PRINTED
    assert [p.line() for p in amdx.prints] == [p.line() for p in emulated.prints]


NARROW = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { int16_t s; uint16_t u; half h; double d; };
[Shader("node")] [NodeLaunch("thread")]
void Narrow(ThreadNodeInputRecord<Item> r)
{
    printf("%d %u %.3f %.2f %s", r.Get().s, r.Get().u, r.Get().h, r.Get().d, "end");
    Out[0] = 1;
}
"""


def test_narrow_and_double_arguments(tmp_path) -> None:
    """16-bit integers widen by their sign, half becomes float, a double is two words."""
    emulated, amdx = run_both(tmp_path, NARROW, {"inputs": [{"entry": "Narrow", "records": [
        {"s": -7, "u": 65535, "h": 1.5, "d": -0.125}]}], "resources": {"u0": {"bytes": 4}}})
    assert [p.text for p in amdx.prints] == ["-7 65535 1.500 -0.12 end"]     # -0.125 to even: -0.12
    assert [p.line() for p in amdx.prints] == [p.line() for p in emulated.prints]


def test_prefixes_agree_in_broadcasting_coalescing_and_helper_code(tmp_path) -> None:
    """The record header (NodeContext, flat group, invocation, record) is the wrapper's, as the
    emulated prologue's: each print has the same node, level, group, thread and record."""
    dispatch = {"inputs": [{"entry": "Plain", "records": [{"base": 1}, {"base": 2}]}], "resources": {"u0": {"bytes": 4}}}
    emulated, amdx = run_both(tmp_path, PLACES, dispatch)
    expected = []
    for record, base in enumerate((1, 2)):
        for group in range(2):
            for thread in range(2):
                where = f"[Plain level 0 group {record * 2 + group} thread {thread} record {record}]"
                expected += [f"{where} plain {base + group * 10 + thread}", f"{where} helper got 7"]
    assert [p.line() for p in amdx.prints] == expected == [p.line() for p in emulated.prints]
    dispatch = {"inputs": [{"entry": "Grid", "records": [{"grid": [3, 1, 1], "base": 100},
                                                         {"grid": [1, 1, 1], "base": 200}]}],
                "resources": {"u0": {"bytes": 4}}}
    emulated, amdx = run_both(tmp_path, PLACES, dispatch)
    # which Batch thread gets which item depends on the order of the allocations: same multiset
    assert len(amdx.prints) == 8 + 8 * 3
    # (and which group and thread of Batch gets which item: compared without them)
    def unthreaded(result: Any) -> list[str]:
        return sorted(re.sub(r" (group|thread) \d+| records? \d+(-\d+)?", "", p.line()) for p in result.prints)

    assert unthreaded(amdx) == unthreaded(emulated)


def test_a_full_buffer_is_counted_on_the_amdx_path(tmp_path) -> None:
    """43 prints (3 + 40) into a buffer of 2: the first 2 in program order are kept, 41 lost (WG0830)."""
    _, amdx = run_both(tmp_path, LOOP, {"inputs": [{"entry": "Count", "records": [{"value": 3}, {"value": 40}]}],
                                        "resources": {"u0": {"bytes": 4}}}, max_prints=2)
    assert amdx.prints_lost == 41 and len(amdx.prints) == 2
    assert [d.code for d in amdx.diagnostics] == ["WG0830"]


def test_spv_modules_print_from_the_command_line(tmp_path) -> None:
    """`wgc run A.spv`: a module compiled for SPV_AMDX_shader_enqueue prints the lines `wgc run
    graph.hlsl` prints."""
    (tmp_path / "graph.hlsl").write_text(LOOP)
    (tmp_path / "d.json").write_text('{"inputs": [{"entry": "Count", "records": [{"value": 2}]}], '
                                     '"resources": {"Out": {"bytes": 4}}}')
    env = {**os.environ, "PYTHONPATH": ROOT}

    def wgc_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "wgc", *args], cwd=str(tmp_path), capture_output=True,
                              text=True, env=env, timeout=300)

    built = wgc_cli("compile", "-T", "lib_6_8", "graph.hlsl", "-Fo", "graph.spv")
    assert built.returncode == 0, built.stderr
    ran = wgc_cli("run", "graph.spv", "--dispatch", "d.json", "-o", "out.json")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.splitlines() == ["[Count level 0 record 0] 1 of 2", "[Count level 0 record 0] 2 of 2"]
