"""The dispatch description of `wgc run` (wgc/runtime/dispatch.py): records by field name through
wgc's record layout, raw records, resources, root constants, and every schema error as the full
rendered diagnostic (location in the JSON text, caret line, notes).

No Vulkan is needed here: the description is checked against the program model built from the
reflection of a graph compiled for the emulated target.  Expected record bytes are packed by hand with `struct` from the record's HLSL
declaration (scalar layout: each member at the next multiple of its own alignment).
"""

from __future__ import annotations

import struct

import pytest

from wgc import driver
from wgc.diagnostics import Renderer
from wgc.runtime.dispatch import decode_array, find_resource, read_dispatch
from wgc.runtime.program import build_program
from wgc.source import SourceFile

GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Raw : register(u1, space2);
StructuredBuffer<float4> Weights : register(t0);
Texture2D<float4> Picture : register(t1);
cbuffer Params : register(b0) { uint scale; };
struct Push { uint bias; uint pad; };
[[vk::push_constant]] ConstantBuffer<Push> push;
struct Seed { uint16_t2 grid : SV_DispatchGrid; uint value; float3 where; int delta[2]; };
struct Inner { half h; uint64_t big; };
struct Item { bool flag; Inner inner; float2x2 m; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(16, 16, 1)] [NumThreads(4, 1, 1)]
void Entry(DispatchNodeInputRecord<Seed> input, [MaxRecords(4)] NodeOutput<Item> Leaf) { }
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> input)
{
    Out[0] = push.bias + scale + Raw.Load(0) + (uint)Weights[0].x + (uint)Picture.Load(int3(0, 0, 0)).x;
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Arr", 2)]
void Second(ThreadNodeInputRecord<Item> input) { }
"""


@pytest.fixture(scope="module")
def program():
    result = driver.compile(driver.Options(input="-", emit="reflection", target="emulated", enable_16bit_types=True),
                            stdin=GRAPH.encode())
    assert result.ok, Renderer().render(list(result.diagnostics))
    return build_program(result.reflection)


def check(program, text: str):
    source = SourceFile("dispatch.json", text)
    dispatch, diagnostics = read_dispatch(source, program)
    return dispatch, Renderer().render(diagnostics)


def test_records_by_field_name_use_the_record_layout(program) -> None:
    text = ('{"inputs": [{"entry": "Entry", "records": [{"grid": [3, 2], "value": 7, "where": [1.5, -2, 0.25], '
            '"delta": [-1, 5]}, {"value": 9}]}]}')
    dispatch, rendered = check(program, text)
    assert rendered == ""
    (entry,) = dispatch.inputs
    # Seed in scalar layout: uint16_t2 at 0, uint at 4, float3 at 8, int[2] at 20: 28 bytes, alignment 4
    first = struct.pack("<2HI3f2i", 3, 2, 7, 1.5, -2.0, 0.25, -1, 5)
    second = struct.pack("<2HI3f2i", 0, 0, 9, 0.0, 0.0, 0.0, 0, 0)
    assert (entry.node.name, entry.count, entry.stride) == ("Entry", 2, 28)
    assert entry.data == first + second
    assert (entry.node.grid_field.offset, entry.node.grid_field.components, entry.node.grid_field.bits) == (0, 2, 16)


def test_nested_structs_bools_half_64_bit_and_matrices(program) -> None:
    text = '{"inputs": [{"entry": "Leaf", "records": [{"flag": true, "inner": {"h": 0.5, "big": 4294967297}, ' \
           '"m": [[1, 2], [3, 4]]}]}]}'
    dispatch, rendered = check(program, text)
    assert rendered == ""
    # Item: bool (4 bytes) at 0, Inner at 8 (alignment 8: half at 8, uint64 at 16), float2x2 at 24
    # (column-major by default: m[r][c] at 24 + c*8 + r*4); size 40, stride 40
    expected = bytearray(40)
    struct.pack_into("<I", expected, 0, 1)
    struct.pack_into("<e", expected, 8, 0.5)
    struct.pack_into("<Q", expected, 16, 4294967297)
    struct.pack_into("<4f", expected, 24, 1, 3, 2, 4)
    assert dispatch.inputs[0].data == bytes(expected)


def test_raw_records_node_array_index_zero_records_and_repeat(program) -> None:
    text = ('{"inputs": [{"entry": {"name": "Arr", "index": 2}, "records": {"hex": "' + "ab" * 40
            + '", "stride": 0, "count": 5}}, {"entry": "Leaf", "records": []}], "repeat": 3}')
    dispatch, rendered = check(program, text)
    assert rendered == ""
    arr, leaf = dispatch.inputs
    assert (arr.node.function, arr.count, arr.stride, arr.data) == ("Second", 5, 0, b"\xab" * 40)
    assert (leaf.count, leaf.data) == (0, b"")
    assert dispatch.repeat == 3


def test_resources_by_register_space_and_name_and_root_constants(program) -> None:
    text = ('{"resources": {"u0": {"uint32": [1, 4294967295]}, "space2/u1": {"hex": "0102"}, '
            '"Weights": {"float": [0.5, -1]}, "b0": {"bytes": 16}}, "root_constants": {"uint32": [7, 8]}}')
    dispatch, rendered = check(program, text)
    assert rendered == ""
    assert dispatch.resources["Out"].data == struct.pack("<2I", 1, 0xFFFFFFFF)
    assert dispatch.resources["Raw"].data == b"\x01\x02"
    assert dispatch.resources["Weights"].data == struct.pack("<2f", 0.5, -1)
    assert dispatch.resources["Params"].data == bytes(16)
    assert dispatch.root_constants == struct.pack("<2I", 7, 8)
    assert find_resource(program, "space2/u1").name == "Raw"
    assert find_resource(program, "u1") is None            # u1 is in space 2
    assert (find_resource(program, "Out").element, find_resource(program, "Weights").element) == ("uint32", "float")


def test_typed_arrays_decode_as_written() -> None:
    assert decode_array(struct.pack("<3i", -1, 0, 7), "int32") == [-1, 0, 7]
    assert decode_array(struct.pack("<2e", 0.5, float("inf")), "float16") == [0.5, "inf"]
    assert decode_array(b"\x01\x02\x03", "uint16") == [0x0201]


ERRORS = [
    ("syntax", '{"inputs": [1, 2,]}', """\
dispatch.json:1:18: error: invalid JSON: expected a JSON value [WG0800]
{"inputs": [1, 2,]}
                 ^
1 error generated.
"""),
    ("duplicate key", '{"repeat": 1, "repeat": 2}', """\
dispatch.json:1:15: error: invalid JSON: member 'repeat' is written twice [WG0800]
{"repeat": 1, "repeat": 2}
              ^~~~~~~~
1 error generated.
"""),
    ("not an object", '[]', """\
dispatch.json:1:1: error: a dispatch description is a JSON object (with "inputs", "resources", ...) [WG0800]
[]
^~
1 error generated.
"""),
    ("unknown top-level member and bad repeat", '{"input": [], "repeat": 0}', """\
dispatch.json:1:2: error: unknown member 'input' (expected one of inputs, resources, root_constants, \
local_root_arguments, repeat) [WG0800]
{"input": [], "repeat": 0}
 ^~~~~~~
dispatch.json:1:25: error: 'repeat' is between 1 and 1048576 [WG0800]
{"input": [], "repeat": 0}
                        ^
2 errors generated.
"""),
    ("unknown node, each input reported", '{"inputs": [{"entry": "Entyr", "records": []}, '
     '{"entry": {"name": "Arr", "index": 1}, "records": []}]}', """\
dispatch.json:1:23: error: the graph has no node 'Entyr' [WG0801]
{"inputs": [{"entry": "Entyr", "records": []}, {"entry": {"name": "Arr", "index": 1}, "records": []}]}
                      ^~~~~~~
note: its nodes: Arr[2], Entry, Leaf
dispatch.json:1:58: error: the graph has no node 'Arr[1]' [WG0801]
{"inputs": [{"entry": "Entyr", "records": []}, {"entry": {"name": "Arr", "index": 1}, "records": []}]}
                                                         ^~~~~~~~~~~~~~~~~~~~~~~~~~~
note: its nodes: Arr[2], Entry, Leaf
2 errors generated.
"""),
    ("unknown field", '{"inputs": [{"entry": "Entry", "records": [{"vaule": 1}]}]}', """\
dispatch.json:1:45: error: 'Seed' has no field 'vaule' [WG0802]
{"inputs": [{"entry": "Entry", "records": [{"vaule": 1}]}]}
                                            ^~~~~~~
note: its fields: grid, value, where, delta
1 error generated.
"""),
    ("value out of range", '{"inputs": [{"entry": "Entry", "records": [{"grid": [65536, 1]}]}]}', """\
dispatch.json:1:54: error: 65536 is outside the range of a 'uint16_t' (0..65535) [WG0800]
{"inputs": [{"entry": "Entry", "records": [{"grid": [65536, 1]}]}]}
                                                     ^~~~~
1 error generated.
"""),
    ("vector of the wrong length", '{"inputs": [{"entry": "Entry", "records": [{"where": [1, 2]}]}]}', """\
dispatch.json:1:54: error: field 'where' is a 'float3': write a list of 3 numbers [WG0800]
{"inputs": [{"entry": "Entry", "records": [{"where": [1, 2]}]}]}
                                                     ^~~~~~
1 error generated.
"""),
    ("raw records too short", '{"inputs": [{"entry": "Leaf", "records": {"hex": "00", "stride": 40, "count": 2}}]}', """\
dispatch.json:1:50: error: 2 records of 40 bytes with stride 40 need 80 bytes; the hex string holds 1 [WG0800]
{"inputs": [{"entry": "Leaf", "records": {"hex": "00", "stride": 40, "count": 2}}]}
                                                 ^~~~
1 error generated.
"""),
    ("entry grid beyond NodeMaxDispatchGrid", '{"inputs": [{"entry": "Entry", "records": [{"value": 1}, '
     '{"grid": [17, 1]}]}]}', """\
dispatch.json:1:58: error: a record asks node 'Entry' for a grid of 17x1x1 groups, beyond its \
[NodeMaxDispatchGrid(16, 16, 1)] [WG0807]
{"inputs": [{"entry": "Entry", "records": [{"value": 1}, {"grid": [17, 1]}]}]}
                                                         ^~~~~~~~~~~~~~~~~
1 error generated.
"""),
    ("raw stride misaligned", '{"inputs": [{"entry": "Leaf", "records": {"hex": "", "stride": 44, "count": 0}}]}', """\
dispatch.json:1:64: error: stride 44 is not a multiple of 8, the alignment of a 'Item' record of node 'Leaf' [WG0800]
{"inputs": [{"entry": "Leaf", "records": {"hex": "", "stride": 44, "count": 0}}]}
                                                               ^~
1 error generated.
"""),
    ("unknown and unsupported resources, bad data form", '{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, '
     '"u0": {"uint33": []}}}', """\
dispatch.json:1:16: error: the graph has no resource 'u7' [WG0801]
{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, "u0": {"uint33": []}}}
               ^~~~
note: its resources: Out (u0), Raw (space2/u1), Weights (t0), Picture (t1), Params (b0)
dispatch.json:1:36: error: 'Picture' is a 'Texture2D<float4>': wgc run binds storage and constant buffers only [WG0803]
{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, "u0": {"uint33": []}}}
                                   ^~~~
dispatch.json:1:63: error: unknown data form 'uint33' (expected one of "uint8", "uint16", "uint32", "uint64", \
"int8", "int16", "int32", "int64", "float16", "float", "float32", "float64", "bytes", "hex") [WG0800]
{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, "u0": {"uint33": []}}}
                                                              ^~~~~~~~
3 errors generated.
"""),
    ("root constants larger than the block", '{"root_constants": {"uint32": [1, 2, 3]}}', """\
dispatch.json:1:20: error: 12 bytes of root constants; the push-constant block holds 8 [WG0800]
{"root_constants": {"uint32": [1, 2, 3]}}
                   ^~~~~~~~~~~~~~~~~~~~~
1 error generated.
"""),
]


@pytest.mark.parametrize("text, expected", [pytest.param(t, e, id=i) for i, t, e in ERRORS])
def test_dispatch_errors_are_located(program, text: str, expected: str) -> None:
    dispatch, rendered = check(program, text)
    assert dispatch is None
    assert rendered == expected


RENDERED_HERE = {"WG0800", "WG0801", "WG0802", "WG0803", "WG0807"}
"""The runtime codes the cases above render; test_runtime_run.py renders the others."""
