"""Memory of the library API: a compile leaves nothing behind (issue 11, item 4).

`wgc.types` interns structural types in a table; struct types carry spans, and spans reference
the `SourceFile`, so a table that held its types strongly kept every compile's source alive (and
so did the layout cache and the parser's shared builder). These tests drop a compile's result and
check, with gc and weakref, that its SourceFile is collected, and that 200 compiles of a sample
leave the number of live objects, source files, struct types and interned types where they were.
"""

from __future__ import annotations

import gc
import weakref

from conftest import SAMPLES
from wgc import driver
from wgc import types as t
from wgc.source import SourceFile

SOURCE = b"""
struct Seed { uint2 origin; float3 tint; };
struct Tile { uint count; };
RWStructuredBuffer<Seed> Log : register(u0);
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(2, 1, 1)]
[NumThreads(64, 1, 1)]
void Start(DispatchNodeInputRecord<Seed> seed, [MaxRecords(4)] NodeOutput<Tile> Shade, uint gi : SV_GroupIndex)
{
    [loop] [unrol] for (uint i = 0; i < 2; i++)
        Log[gi + i] = seed.Get();
}
[Shader("node")]
[NodeLaunch("thread")]
void Shade(ThreadNodeInputRecord<Tile> tile) { }
"""


def test_a_compile_keeps_no_source_file_alive() -> None:
    result = driver.compile(driver.Options(input="-"), stdin=SOURCE)
    assert result.ok and "spirv" in result.outputs
    [warning] = result.diagnostics          # the unknown [unrol]: a span into the source
    assert warning.code == "WG0343"
    source = weakref.ref(warning.span.file)
    assert isinstance(source(), SourceFile)
    del result, warning
    gc.collect()
    assert source() is None


def _live() -> tuple[int, int, int, int]:
    gc.collect()
    objects = gc.get_objects()
    return (len(objects), sum(isinstance(o, SourceFile) for o in objects),
            sum(isinstance(o, t.StructType) for o in objects), len(t._INTERNED))


def test_memory_does_not_grow_over_200_compiles() -> None:
    options = driver.Options(input=str(SAMPLES / "hello_work_graphs.hlsl"))
    for _ in range(3):                      # warm: grammar, SPIR-V grammar tables, caches of constants
        assert driver.compile(options).ok
    objects, sources, structs, interned = _live()
    for _ in range(200):
        driver.compile(options)
    after = _live()
    assert after[1:] == (sources, structs, interned)
    assert after[0] - objects < 200         # a leak of one compile's IR alone is thousands of objects


def test_types_are_still_identical_while_in_use() -> None:
    record = t.StructType("R")
    array = t.array(record, 4)
    assert t.array(record, 4) is array and t.vector(t.FLOAT, 3) is t.vector(t.FLOAT, 3)
    assert t.node_object(t.NodeObjectKind.NODE_OUTPUT, record) is t.node_object(t.NodeObjectKind.NODE_OUTPUT, record)
    probe = weakref.ref(record)
    del record, array
    gc.collect()
    assert probe() is None                  # the table does not keep a struct (nor its span) alive


# ---------------------------------------------------------------- the cyclic collector during a compile

def test_the_collector_is_off_during_a_compile_and_back_on_after(monkeypatch) -> None:
    seen = []
    real = driver._compile

    def spy(*args):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(driver, "_compile", spy)
    assert gc.isenabled()
    assert driver.compile(driver.Options(input="-"), stdin=SOURCE).ok
    assert seen == [False] and gc.isenabled()


def test_the_collector_is_restored_when_a_compile_raises(monkeypatch) -> None:
    def broken(*args):  # type: ignore[no-untyped-def]
        assert not gc.isenabled()
        raise ZeroDivisionError("an internal bug")

    monkeypatch.setattr(driver, "_compile", broken)
    assert gc.isenabled()
    try:
        driver.compile(driver.Options(input="-"), stdin=SOURCE)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("the compile's exception was swallowed")
    assert gc.isenabled()


def test_a_caller_that_turned_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    try:
        assert driver.compile(driver.Options(input="-"), stdin=SOURCE).ok
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_compiles_restore_the_collector_after_the_last(monkeypatch) -> None:
    """Two compiles in two threads, the first ending while the second runs: the collector stays
    off until the second ends (a compile that restored "its" state would turn it back on under the
    other, or, ending second, restore the other's "off" for good)."""
    import threading

    first_inside, second_inside, first_may_end, second_may_end = (threading.Event() for _ in range(4))
    during: list[bool] = []

    def gate(options, stdin, on_file_read):  # type: ignore[no-untyped-def]
        if options.input == "first":
            first_inside.set()
            first_may_end.wait(10)
        else:
            second_inside.set()
            second_may_end.wait(10)
            during.append(gc.isenabled())
        return driver.Result()

    monkeypatch.setattr(driver, "_compile", gate)
    first = threading.Thread(target=driver.compile, args=(driver.Options(input="first"),))
    second = threading.Thread(target=driver.compile, args=(driver.Options(input="second"),))
    first.start()
    assert first_inside.wait(10)
    second.start()
    assert second_inside.wait(10)
    first_may_end.set()
    first.join(10)
    assert not gc.isenabled()               # the second compile still runs
    second_may_end.set()
    second.join(10)
    assert during == [False] and gc.isenabled()
