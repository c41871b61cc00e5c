"""printf in `wgc run` (`wgc.spirv.emulated_prints`, `wgc.runtime.prints`): every conversion the
HLSL printf allows, formatted as C formats it (expected texts written by hand, or with Python's
`%`, which follows C for floats), the prefix of each print (node, level, group, thread, record) in
thread, broadcasting (both schedulers) and coalescing nodes and in a helper function, prints in a
loop, and a full buffer (counted, reported, never silent).

The device tests skip, with the reason, where there is no Vulkan device.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import pytest

import wgc
from wgc.diagnostics import Renderer
from wgc.runtime.prints import c_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RENDERED_HERE = {"WG0830", "WG0831"}
"""The runtime codes whose rendered text a test here checks (test_runtime_run gathers them)."""


def f32(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def u32(value: int) -> int:
    return value & 0xFFFFFFFF


# --------------------------------------------------------------------------- C's printf on the CPU

@pytest.mark.parametrize("format_, kinds, words, expected", [
    ("%d %i", ["i", "i"], [u32(-42), 7], "-42 7"),
    ("%u %x %X %o", ["u"] * 4, [3054] * 4, "3054 bee BEE 5756"),
    ("%x", ["i"], [u32(-1)], "ffffffff"),                 # the word's bits, as C's varargs
    ("[%5d] [%-5d] [%05d] [%+d] [% d]", ["i"] * 5, [42, 42, 42, 42, 42], "[   42] [42   ] [00042] [+42] [ 42]"),
    ("[%.4d] [%05.3d] [%.0d]", ["i"] * 3, [7, 7, 0], "[0007] [  007] []"),   # C: '0' is ignored with a precision
    ("%#x %#X %#o %#o %#x", ["u"] * 5, [255, 255, 8, 0, 0], "0xff 0XFF 010 0 0"),
    ("[%-+6d]", ["i"], [5], "[+5    ]"),
    ("%c%c", ["u", "i"], [72, 105], "Hi"),
    ("%s and %s", ["s", "s"], [], "one and two"),
    ("[%6s] [%-6s] [%.2s]", ["s", "s", "s"], [], "[    ab] [ab    ] [ab]"),
    ("100%% %d%%", ["i"], [5], "100% 5%"),
    ("[%*d] [%-*d]", ["i"] * 4, [4, 7, 3, 1], "[   7] [1  ]"),
    ("%lu %ld %lx", ["U", "I", "U"], [0, 1, u32(-2), 0xFFFFFFFF, 0xDEADBEEF, 0x12],
     "4294967296 -2 12deadbeef"),
    ("%v3u|%v2d", ["u3", "i2"], [1, 2, 3, u32(-4), 5], "1, 2, 3|-4, 5"),
])
def test_integer_string_and_vector_conversions(format_, kinds, words, expected) -> None:
    strings = {"%s and %s": ("one", "two"), "[%6s] [%-6s] [%.2s]": ("ab", "ab", "abc")}.get(format_, ())
    assert c_format(format_, kinds, strings, words) == expected


@pytest.mark.parametrize("format_, value", [
    ("%f", 2.5), ("%.2f", 2.5), ("%8.3f", -0.125), ("%-8.1f|", 2.5), ("%+f", 2.5), ("%e", 1234.5),
    ("%.3E", 1234.5), ("%g", 1234.5), ("%g", 1234567.0), ("%G", 0.0001), ("%#.0f", 3.0), ("%010.2f", -2.5),
    ("% .1e", 2.5), ("%F", float("inf")),
])
def test_float_conversions_follow_c(format_, value) -> None:
    """Python's `%` formats floats as C does (flags, width, precision; `%g` trims zeros)."""
    assert c_format(format_, ["f"], [], [f32(value)]) == format_ % value


def test_float_conversions_by_hand() -> None:
    words = [f32(2.5), f32(-0.125), f32(1234567.0), f32(1234.5)]
    assert c_format("%f %.2f %g %e", ["f"] * 4, [], words) == "2.500000 -0.12 1.23457e+06 1.234500e+03"
    double = struct.unpack("<2I", struct.pack("<d", 0.1))
    assert c_format("%.17f", ["F"], [], list(double)) == "0.10000000000000001"
    assert c_format("%.1v2f", ["f2"], [], [f32(1.0), f32(-2.25)]) == "1.0, -2.2"   # round-half-even, as glibc


def test_missing_arguments_stay_as_written() -> None:
    assert c_format("%d and %u", ["i"], [], [3]) == "3 and %u"


# --------------------------------------------------------------------------- on the device

def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


on_device = pytest.mark.usefixtures("vulkan_device")


def run_graph(tmp_path, source: str, dispatch: dict, **options):
    result = wgc.run(write(tmp_path, "graph.hlsl", source), dispatch, **options)
    assert result.ok, Renderer().render(list(result.diagnostics))
    return result


FORMATS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Values { int n; uint u; float f; float big; };
[Shader("node")] [NodeLaunch("thread")]
void Show(ThreadNodeInputRecord<Values> r)
{
    Values v = r.Get();
    printf("d=%d i=%i u=%u x=%x X=%X o=%o", v.n, v.n, v.u, v.u, v.u, v.u);
    printf("[%5d] [%-5d] [%05d] [%+d] [% d] [%.4d]", v.n, v.n, v.n, v.n, v.n, v.n);
    printf("f=%f %.2f %8.3f %-8.1f| e=%e %.3E g=%g %G", v.f, v.f, v.f, v.f, v.big, v.big, v.big, v.f);
    printf("c=%c s=%s %% [%6s] [%-6s]", 65, "hi", "right", "left");
    printf("%#x %#o %#X", v.u, v.u, v.u);
    printf("v=%v3f %v2d b=%d", float3(v.f, 1.0, -0.5), int2(v.n, 3), v.n < 0);
    printf("64: %lu %ld %lx", (uint64_t)v.u << 32, (int64_t)v.n, (uint64_t)v.u << 8);
    Out[0] = 1;
}
"""


FORMATS_PRINTED = [
    "d=-42 i=-42 u=3054 x=bee X=BEE o=5756",
    "[  -42] [-42  ] [-0042] [-42] [-42] [-0042]",
    "f=2.500000 2.50    2.500 2.5     | e=1.234567e+06 1.235E+06 g=1.23457e+06 2.5",
    "c=A s=hi % [ right] [left  ]",
    "0xbee 05756 0XBEE",
    "v=2.500000, 1.000000, -0.500000 -42, 3 b=1",
    f"64: {3054 << 32} -42 {3054 << 8:x}",
]
"""What FORMATS prints for the record {"n": -42, "u": 3054, "f": 2.5, "big": 1234567.0}: C's texts,
written out by hand."""


@on_device
def test_every_format_on_the_device(tmp_path) -> None:
    """HLSL's printf (as DebugPrintf): `%d %i %u %x %X %o %f %e %g %c %s`, flags, widths, precision,
    `%%`, vectors `%v3f`, 64-bit `%l`; the expected texts are C's, written out by hand."""
    result = run_graph(tmp_path, FORMATS, {"inputs": [{"entry": "Show", "records": [
        {"n": -42, "u": 3054, "f": 2.5, "big": 1234567.0}]}], "resources": {"u0": {"bytes": 4}}})
    assert [p.text for p in result.prints] == FORMATS_PRINTED
    assert {(p.node, p.level, p.record, p.launch) for p in result.prints} == {("Show", 0, 0, "thread")}
    assert result.prints_lost == 0


PLACES = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Start { uint3 grid : SV_DispatchGrid; uint base; };
struct Fixed { uint base; };
struct Item { uint value; };
void note(uint value) { printf("helper got %u", value); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(2, 1, 1)]
void Grid(DispatchNodeInputRecord<Start> start, uint3 group : SV_GroupID, uint thread : SV_GroupIndex,
          [MaxRecords(2)] NodeOutput<Item> Batch)
{
    printf("grid group %u thread %u", group.x, thread);
    ThreadNodeOutputRecords<Item> made = Batch.GetThreadNodeOutputRecords(1);
    made.Get().value = start.Get().base + group.x * 2 + thread;
    made.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Batch([MaxRecords(4)] GroupNodeInputRecords<Item> items, uint thread : SV_GroupIndex)
{
    if (thread < items.Count()) {
        for (uint i = 0; i < 2; i++)
            printf("item %u pass %u", items[thread].value, i);
        note(items[thread].value);
    }
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(2, 1, 1)]
void Plain(DispatchNodeInputRecord<Fixed> start, uint3 group : SV_GroupID, uint thread : SV_GroupIndex)
{
    printf("plain %u", start.Get().base + group.x * 10 + thread);
    note(7);
    Out[0] = 1;
}
"""


@on_device
def test_prefixes_in_broadcasting_coalescing_and_helper_code(tmp_path) -> None:
    """Grid takes its grid from the record (both records in one dispatch: record 1's group is flat
    group 3, as a fixed grid's groups are numbered across records); Plain has a fixed grid: both
    report every print with its node, level, group, thread and record; a coalescing batch says its
    records' range."""
    result = run_graph(tmp_path, PLACES, {"inputs": [
        {"entry": "Grid", "records": [{"grid": [3, 1, 1], "base": 100}, {"grid": [1, 1, 1], "base": 200}]}],
        "resources": {"u0": {"bytes": 4}}})
    lines = [p.line() for p in result.prints]
    grid = [f"[Grid level 0 group {g} thread {t} record 0] grid group {g} thread {t}"
            for g in range(3) for t in range(2)]
    grid += [f"[Grid level 0 group 3 thread {t} record 1] grid group 0 thread {t}" for t in range(2)]
    assert lines[:8] == grid
    # level 1: one Batch dispatch of the 8 items of the one Grid dispatch, in batches of 4 (records
    # 0-3 and 4-7); each thread prints three lines
    expected_where = []
    for first, last in ((0, 3), (4, 7)):
        for thread in range(last - first + 1):
            expected_where.append(f"[Batch level 1 group {first // 4} thread {thread} records {first}-{last}]")
    got = lines[8:]
    assert [line.split("] ")[0] + "]" for line in got] == [w for w in expected_where for _ in range(3)]
    seen = []
    for i in range(0, len(got), 3):
        texts = [line.split("] ", 1)[1] for line in got[i:i + 3]]
        value = int(texts[0].split()[1])      # which item a thread gets depends on the allocations' order
        assert texts == [f"item {value} pass 0", f"item {value} pass 1", f"helper got {value}"]
        seen.append(value)
    assert sorted(seen) == [*range(100, 106), 200, 201]

    plain = run_graph(tmp_path, PLACES, {"inputs": [{"entry": "Plain", "records": [{"base": 1}, {"base": 2}]}],
                                         "resources": {"u0": {"bytes": 4}}})
    expected = []
    for record, base in enumerate((1, 2)):
        for group in range(2):
            for thread in range(2):
                where = f"[Plain level 0 group {record * 2 + group} thread {thread} record {record}]"
                expected += [f"{where} plain {base + group * 10 + thread}", f"{where} helper got 7"]
    assert [p.line() for p in plain.prints] == expected


LOOP = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Count(ThreadNodeInputRecord<Item> item)
{
    for (uint i = 0; i < item.Get().value; i++)
        printf("%u of %u", i + 1, item.Get().value);
    Out[0] = 1;
}
"""


@on_device
def test_prints_in_a_loop_keep_program_order(tmp_path) -> None:
    result = run_graph(tmp_path, LOOP, {"inputs": [{"entry": "Count", "records": [{"value": 3}, {"value": 40}]}],
                                        "resources": {"u0": {"bytes": 4}}})
    expected = [f"[Count level 0 record 0] {i} of 3" for i in range(1, 4)]
    expected += [f"[Count level 0 record 1] {i} of 40" for i in range(1, 41)]
    assert [p.line() for p in result.prints] == expected


@on_device
def test_a_full_buffer_is_counted_and_reported(tmp_path) -> None:
    """43 prints into a buffer of 10: 10 are kept, 33 counted as lost, and WG0830 says so."""
    result = run_graph(tmp_path, LOOP, {"inputs": [{"entry": "Count", "records": [{"value": 3}, {"value": 40}]}],
                                        "resources": {"u0": {"bytes": 4}}}, max_prints=10)
    assert len(result.prints) == 10
    assert result.prints_lost == 33
    assert Renderer().render(list(result.diagnostics)) == (
        "warning: 33 prints lost: the print buffer holds 10 prints per submit (a level, or a whole run that the GPU "
        "schedules) [WG0830] [-Wprints-lost]\nnote: raise wgc run --max-prints\n1 warning generated.\n")
    assert result.resources == {"u0": {"uint32": [1]}}


@on_device
def test_no_printf_no_buffer(tmp_path) -> None:
    """A module without printf describes no format, declares no Private copies of the group and
    record and reads no NodeContext.prints: a plain run costs what it did."""
    from wgc import driver

    path = write(tmp_path, "plain.hlsl", LOOP.replace('printf("%u of %u", i + 1, item.Get().value);', "Out[0] += i;"))
    compiled = driver.compile(driver.Options(input=path, emit="asm", target="emulated"))
    text = compiled.outputs["asm"].decode()
    assert "wgc.printf" not in text and "print_group" not in text and "print_record" not in text
    result = run_graph(tmp_path, open(path).read(), {"inputs": [{"entry": "Count", "records": [{"value": 3}]}],
                                                     "resources": {"u0": {"bytes": 4}}})
    assert result.prints == [] and result.prints_lost == 0
    assert "prints" not in result.results_json()


@on_device
def test_cli_prints_on_stderr_and_in_the_results(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", LOOP)
    dispatch = write(tmp_path, "dispatch.json", json.dumps(
        {"inputs": [{"entry": "Count", "records": [{"value": 2}]}], "resources": {"u0": {"bytes": 4}}}))
    done = subprocess.run([sys.executable, "-m", "wgc", "run", graph, "--dispatch", dispatch], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "[Count level 0 record 0] 1 of 2\n[Count level 0 record 0] 2 of 2\n"
    assert json.loads(done.stdout) == {
        "resources": {"u0": {"uint32": [1]}},
        "prints": [{"node": "Count", "level": 0, "record": 0, "text": "1 of 2"},
                   {"node": "Count", "level": 0, "record": 0, "text": "2 of 2"}],
        "prints_lost": 0}
    done = subprocess.run([sys.executable, "-m", "wgc", "run", graph, "--dispatch", dispatch, "--max-prints", "1"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "[Count level 0 record 0] 1 of 2\n" in done.stderr
    assert "warning: 1 print lost" in done.stderr and "[WG0830]" in done.stderr
    done = subprocess.run([sys.executable, "-m", "wgc", "run", graph, "--dispatch", dispatch, "--max-prints",
                           "1000000", "--max-memory", "1M"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "error: a print buffer of 1000000 prints needs 36000016 bytes; with the dispatch's data that is more than "
        "the 1048576 bytes wgc run may use [WG0831]\nnote: lower --max-prints, or raise --max-memory\n"
        "1 error generated.\n")


@on_device
def test_a_bad_max_prints_is_a_diagnostic(tmp_path) -> None:
    path = write(tmp_path, "graph.hlsl", LOOP)
    result = wgc.run(path, {"inputs": [{"entry": "Count", "records": [{"value": 1}]}],
                            "resources": {"u0": {"bytes": 4}}}, max_prints=-1)
    assert Renderer().render(list(result.diagnostics)) == (
        "error: max_prints -1: a print buffer holds 0 to 16777216 prints [WG0831]\n1 error generated.\n")
    result = wgc.run(path, {"inputs": [{"entry": "Count", "records": [{"value": 2}]}],
                            "resources": {"u0": {"bytes": 4}}}, max_prints=0)
    assert result.ok and result.prints == [] and result.prints_lost == 2
