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
from wgc.runtime.dispatch import SamplerData, decode_array, find_resource, read_dispatch
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

IMAGES = """\
Texture1D<uint2> Strip : register(t0);
TextureCube<float4> Sky : register(t1);
Texture2D<float4> Tiles[2] : register(t2);
Texture2DMS<float4> Multi : register(t4);
Buffer<int> Typed : register(t5);
SamplerState Smooth : register(s0);
SamplerComparisonState Shadow : register(s1);
struct Args { uint scale; };
[[vk::shader_record_ext]] ConstantBuffer<Args> args;
RWStructuredBuffer<float4> Out : register(u6);
struct Item { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> input)
{
    uint x = input.Get().x;
    Out[x] = float4(Strip.Load(int2(x, 0)), Typed[x], args.scale) + Sky.SampleLevel(Smooth, float3(1, 0, 0), 0)
             + Tiles[x].Load(int3(0, 0, 0)) + Multi.Load(int2(0, 0), 0)
             + Tiles[0].SampleCmpLevelZero(Shadow, float2(0, 0), 0.5);
}
"""


@pytest.fixture(scope="module")
def program():
    result = driver.compile(driver.Options(input="-", emit="reflection", target="emulated", enable_16bit_types=True),
                            stdin=GRAPH.encode())
    assert result.ok, Renderer().render(list(result.diagnostics))
    return build_program(result.reflection)


@pytest.fixture(scope="module")
def images():
    result = driver.compile(driver.Options(input="-", emit="reflection", target="emulated"), stdin=IMAGES.encode())
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
local_root_arguments, repeat, specialization, render_target) [WG0800]
{"input": [], "repeat": 0}
 ^~~~~~~
note: did you mean 'inputs'?
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
note: did you mean 'Arr[2]'?
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
    ("unknown resource, texels written as bytes, bad data form", '{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, '
     '"u0": {"uint33": []}}}', """\
dispatch.json:1:16: error: the graph has no resource 'u7' [WG0801]
{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, "u0": {"uint33": []}}}
               ^~~~
note: its resources: Out (u0), Raw (space2/u1), Weights (t0), Picture (t1), Params (b0)
dispatch.json:1:43: error: texels of format R32G32B32A32_FLOAT are written as "float" or "hex", not 'bytes' [WG0800]
{"resources": {"u7": {"bytes": 4}, "t1": {"bytes": 4}, "u0": {"uint33": []}}}
                                          ^~~~~~~
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


RENDERED_HERE = {"WG0800", "WG0801", "WG0802", "WG0803", "WG0807", "WG0808"}
"""The runtime codes the cases above render; test_runtime_run.py renders the others."""


IMAGE_ERRORS = [
    ('unknown format and a format of other values', '{"resources": {"t1": {"format": "RGBA32F"}, "t0": {"format": "R32G32_FLOAT", "width": 2}}}', """\
dispatch.json:1:33: error: unknown texel format 'RGBA32F' [WG0808]
{"resources": {"t1": {"format": "RGBA32F"}, "t0": {"format": "R32G32_FLOAT", "width": 2}}}
                                ^~~~~~~~~
note: the formats: R32G32B32A32_FLOAT, R32G32B32A32_UINT, R32G32B32A32_SINT, R32G32B32_FLOAT, R32G32B32_UINT, R32G32B32_SINT, R32G32_FLOAT, R32G32_UINT, R32G32_SINT, R32_FLOAT, R32_UINT, R32_SINT, R16G16B16A16_FLOAT, R16G16B16A16_UINT, R16G16B16A16_SINT, R16G16B16A16_UNORM, R16G16B16A16_SNORM, R16G16_FLOAT, R16G16_UINT, R16G16_UNORM, R16_FLOAT, R16_UINT, R16_SINT, R16_UNORM, R8G8B8A8_UNORM, R8G8B8A8_SNORM, R8G8B8A8_UINT, R8G8B8A8_SINT, B8G8R8A8_UNORM, R8G8_UNORM, R8G8_UINT, R8_UNORM, R8_SNORM, R8_UINT, R8_SINT
dispatch.json:1:62: error: format R32G32_FLOAT holds float values; 'Strip' ('Texture1D<uint2>') reads uint values [WG0808]
{"resources": {"t1": {"format": "RGBA32F"}, "t0": {"format": "R32G32_FLOAT", "width": 2}}}
                                                             ^~~~~~~~~~~~~~
2 errors generated.
"""),
    ('extent a dimension lacks and cube faces not square', '{"resources": {"t0": {"width": 4, "height": 2}, "t1": {"width": 4, "height": 2}}}', """\
dispatch.json:1:45: error: 'Strip' is a 'Texture1D<uint2>': its "height" is 1 [WG0800]
{"resources": {"t0": {"width": 4, "height": 2}, "t1": {"width": 4, "height": 2}}}
                                            ^
dispatch.json:1:55: error: the faces of cube texture 'Sky' are square: width 4 and height 2 differ [WG0800]
{"resources": {"t0": {"width": 4, "height": 2}, "t1": {"width": 4, "height": 2}}}
                                                      ^~~~~~~~~~~~~~~~~~~~~~~~~
2 errors generated.
"""),
    ('cube layers and too many mips', '{"resources": {"t1": {"width": 2, "height": 2, "layers": 12}, "t2": [{"width": 4, "height": 4, "mips": 4}, {}]}}', """\
dispatch.json:1:58: error: cube texture 'Sky' has 6 faces per cube: "layers" is 6 [WG0800]
{"resources": {"t1": {"width": 2, "height": 2, "layers": 12}, "t2": [{"width": 4, "height": 4, "mips": 4}, {}]}}
                                                         ^~
dispatch.json:1:104: error: a 4-texel texture has at most 3 mip levels [WG0800]
{"resources": {"t1": {"width": 2, "height": 2, "layers": 12}, "t2": [{"width": 4, "height": 4, "mips": 4}, {}]}}
                                                                                                       ^
2 errors generated.
"""),
    ('array counts and a single texture given a list', '{"resources": {"t2": [{}], "t0": [{}]}}', """\
dispatch.json:1:22: error: 'Tiles' has 2 elements; the list describes 1 [WG0800]
{"resources": {"t2": [{}], "t0": [{}]}}
                     ^~~~
dispatch.json:1:34: error: 'Strip' is a single 'Texture1D<uint2>': describe it with one object, not a list [WG0800]
{"resources": {"t2": [{}], "t0": [{}]}}
                                 ^~~~
2 errors generated.
"""),
    ('texel data: form, length, two members', '{"resources": {"t0": {"width": 2, "float": [1, 2, 3, 4]}, "t5": {"width": 3, "int32": [1, 2]}, "t1": {"width": 1, "height": 1, "hex": "", "float": []}}}', """\
dispatch.json:1:35: error: texels of format R32G32_UINT are written as "uint32" or "hex", not 'float' [WG0800]
{"resources": {"t0": {"width": 2, "float": [1, 2, 3, 4]}, "t5": {"width": 3, "int32": [1, 2]}, "t1": {"width": 1, "height": 1, "hex": "", "float": []}}}
                                  ^~~~~~~
dispatch.json:1:87: error: 'Typed' holds 3 texels of R32_SINT (12 bytes, 3 "int32" values); this gives 8 bytes [WG0800]
{"resources": {"t0": {"width": 2, "float": [1, 2, 3, 4]}, "t5": {"width": 3, "int32": [1, 2]}, "t1": {"width": 1, "height": 1, "hex": "", "float": []}}}
                                                                                      ^~~~~~
dispatch.json:1:139: error: a second data member 'float' (a texture's texels are one typed array or one "hex" string) [WG0800]
{"resources": {"t0": {"width": 2, "float": [1, 2, 3, 4]}, "t5": {"width": 3, "int32": [1, 2]}, "t1": {"width": 1, "height": 1, "hex": "", "float": []}}}
                                                                                                                                          ^~~~~~~
3 errors generated.
"""),
    ('samplers', '{"resources": {"s0": {"filter": "bilinear", "comparison": "less"}, "s1": {"min_lod": 2, "max_lod": 1}, "Smooth": {"border": 1}}}', """\
dispatch.json:1:33: error: "filter" is one of 'point', 'linear' [WG0800]
{"resources": {"s0": {"filter": "bilinear", "comparison": "less"}, "s1": {"min_lod": 2, "max_lod": 1}, "Smooth": {"border": 1}}}
                                ^~~~~~~~~~
dispatch.json:1:100: error: "max_lod" (1.0) is below "min_lod" (2.0) [WG0800]
{"resources": {"s0": {"filter": "bilinear", "comparison": "less"}, "s1": {"min_lod": 2, "max_lod": 1}, "Smooth": {"border": 1}}}
                                                                                                   ^
dispatch.json:1:115: error: unknown member 'border' of a sampler (expected one of filter, min_filter, mag_filter, mip_filter, address, address_u, address_v, address_w, comparison, border_color, mip_lod_bias, min_lod, max_lod) [WG0800]
{"resources": {"s0": {"filter": "bilinear", "comparison": "less"}, "s1": {"min_lod": 2, "max_lod": 1}, "Smooth": {"border": 1}}}
                                                                                                                  ^~~~~~~~
3 errors generated.
"""),
    ('comparison on a sampler that does not compare', '{"resources": {"s0": {"comparison": "less"}}}', """\
dispatch.json:1:37: error: 'Smooth' is a 'SamplerState', which does not compare: only a SamplerComparisonState takes "comparison" [WG0800]
{"resources": {"s0": {"comparison": "less"}}}
                                    ^~~~~~
1 error generated.
"""),
    ('multisampled texture, shader record, table stride', '{"resources": {"t4": {}, "args": {"bytes": 4}}, "local_root_arguments": {"stride": 20, "hex": ""}}', """\
dispatch.json:1:16: error: 'Multi' is a 'Texture2DMS<float4>': wgc run cannot fill multisampled textures (Vulkan copies no buffer into a multisampled image) [WG0803]
{"resources": {"t4": {}, "args": {"bytes": 4}}, "local_root_arguments": {"stride": 20, "hex": ""}}
               ^~~~
dispatch.json:1:26: error: 'args' is a 'ConstantBuffer<Args>': it is a [[vk::shader_record_ext]] block, which each node reads from its entry of the local root argument table ("local_root_arguments"), not a descriptor [WG0803]
{"resources": {"t4": {}, "args": {"bytes": 4}}, "local_root_arguments": {"stride": 20, "hex": ""}}
                         ^~~~~~
dispatch.json:1:84: error: stride 20 is not a multiple of 16, the alignment of the graph's [[vk::shader_record_ext]] blocks [WG0800]
{"resources": {"t4": {}, "args": {"bytes": 4}}, "local_root_arguments": {"stride": 20, "hex": ""}}
                                                                                   ^~
3 errors generated.
"""),
]


@pytest.mark.parametrize("text, expected", [pytest.param(t, e, id=i) for i, t, e in IMAGE_ERRORS])
def test_texture_sampler_and_table_errors_are_located(images, text: str, expected: str) -> None:
    dispatch, rendered = check(images, text)
    assert dispatch is None
    assert rendered == expected


def test_textures_samplers_and_arrays_are_read(images) -> None:
    text = ('{"resources": {"t0": {"width": 2, "mips": 2, "uint32": [1, 2, 3, 4, 5, 6]}, "s1": {}, '
            '"Smooth": {"filter": "point", "mip_filter": "linear", "address": "wrap", "address_w": "border", '
            '"border_color": "opaque_white", "mip_lod_bias": 0.5, "max_lod": 3}, '
            '"t2": [{"format": "R8G8B8A8_UNORM", "width": 1, "height": 1, "uint8": [1, 2, 3, 4]}, '
            '{"width": 1, "height": 1, "hex": "0000803f000000400000404000008040"}], "t1": {"width": 1, "height": 1}}}')
    dispatch, rendered = check(images, text)
    assert rendered == ""
    strip = dispatch.resources["Strip"].descriptors[0]
    assert (strip.format.name, strip.width, strip.mips, strip.size) == ("R32G32_UINT", 2, 2, 8 * 2 + 8)
    assert strip.data == struct.pack("<6I", 1, 2, 3, 4, 5, 6)
    # Vulkan enum values: VK_FILTER_NEAREST 0 / LINEAR 1, REPEAT 0, CLAMP_TO_BORDER 3, CLAMP_TO_EDGE 2,
    # FLOAT_OPAQUE_WHITE 4, FLOAT_TRANSPARENT_BLACK 0, VK_COMPARE_OP_LESS 1
    assert dispatch.resources["Smooth"].descriptors == [SamplerData(0, 0, 1, (0, 0, 3), None, 4, 0.5, 0.0, 3.0)]
    assert dispatch.resources["Shadow"].descriptors == [SamplerData(1, 1, 1, (2, 2, 2), 1, 0, 0.0, 0.0, 1000.0)]
    tiles = dispatch.resources["Tiles"].descriptors
    assert [(d.format.name, bytes(d.data)) for d in tiles] == [
        ("R8G8B8A8_UNORM", bytes([1, 2, 3, 4])), ("R32G32B32A32_FLOAT", struct.pack("<4f", 1, 2, 3, 4))]
    sky = dispatch.resources["Sky"].descriptors[0]
    assert (sky.layers, sky.data) == (6, bytearray(6 * 16))       # a cube's six faces, zero-filled



# --------------------------------------------------------------------------- hostile dispatch files

HOSTILE = [
    ("deep-arrays", "[" * 100_000, "dispatch.json:1:257: error: invalid JSON: values nested more than 256 deep"),
    ("deep-objects", '{"a":' * 100_000, "dispatch.json:1:1281: error: invalid JSON: values nested more than 256 deep"),
    ("bytes-float", '{"resources": {"u0": {"bytes": 1e12}}}',
     "dispatch.json:1:32: error: a byte count is a non-negative integer"),
    ("bytes-huge", '{"resources": {"u0": {"bytes": 1000000000000}}}',
     "dispatch.json:1:32: error: the contents of 'u0' takes 1000000000000 bytes; that is more than the "
     "1073741824 bytes wgc run may use [WG0811]"),
    ("bytes-11-digits", '{"resources": {"u0": {"bytes": 99999999999}}}',
     "dispatch.json:1:32: error: the contents of 'u0' takes 99999999999 bytes;"),
    ("power", '{"resources": {"u0": {"bytes": 2^64}}}',
     "dispatch.json:1:33: error: invalid JSON: expected ',' or '}' after the member"),
    ("digits", '{"resources": {"u0": {"bytes": 1' + "0" * 5000 + '}}}',
     "dispatch.json:1:32: error: invalid JSON: an integer of 5001 digits (at most 100)"),
    ("negative-count", '{"inputs": [{"entry": "Leaf", "records": {"hex": "", "stride": 0, "count": -1}}]}',
     "dispatch.json:1:76: error: a record count is a non-negative integer"),
    ("float-count", '{"inputs": [{"entry": "Leaf", "records": {"hex": "", "stride": 0, "count": 2.5}}]}',
     "dispatch.json:1:76: error: a record count is a non-negative integer"),
    ("nan", '{"resources": {"u0": {"float": [NaN]}}}', "dispatch.json:1:33: error: invalid JSON: expected a JSON value"),
    ("infinity", '{"repeat": Infinity}', "dispatch.json:1:12: error: invalid JSON: expected a JSON value"),
    ("surrogate", '{"resources": {"\\udc00": {"bytes": 4}}}',
     "dispatch.json:1:16: error: invalid JSON: a string holding a lone surrogate (\\udc00), which is not Unicode text"),
    ("duplicate", '{"repeat": 1, "repeat": 2}', "dispatch.json:1:15: error: invalid JSON: member 'repeat' is written twice"),
    ("huge-hex", '{"resources": {"b0": {"hex": "' + "00" * 1_200_000 + '"}}}',
     "dispatch.json:1:30: error: the \"hex\" string takes 1200000 bytes; that is more than the 1000000 bytes"),
    ("huge-array", '{"resources": {"u0": {"uint32": [' + ",".join(["1"] * 300_000) + ']}}}',
     "dispatch.json:1:33: error: the contents of 'u0' takes 1200000 bytes; that is more than the 1000000 bytes"),
    ("two-resources", '{"resources": {"u0": {"bytes": 600000}, "space2/u1": {"bytes": 600000}}}',
     "dispatch.json:1:64: error: the contents of 'space2/u1' takes 600000 bytes; with the 600000 bytes given before it that "
     "is more than the 1000000 bytes wgc run may use [WG0811]"),
    ("texture", '{"resources": {"t1": {"width": 100000, "height": 100000}}}',
     "dispatch.json:1:22: error: 'Picture' (100000×100000×1, 1 layers, 1 mips) takes 160000000000 bytes;"),
]


@pytest.mark.parametrize("text, expected", [pytest.param(t, e, id=i) for i, t, e in HOSTILE])
def test_hostile_dispatch_files_are_located_diagnostics(program, text: str, expected: str) -> None:
    """Hostile dispatch files (nesting 100,000 deep, sizes of 1e12 bytes, 2^64, 5000-digit numbers,
    NaN, lone surrogates, ...) are located diagnostics: never an exception, never an allocation of
    what the bound refuses (the last ones with a bound of 1,000,000 bytes, as --max-memory 1000000)."""
    limit = 1_000_000 if "1000000 bytes" in expected else None
    dispatch, diagnostics = read_dispatch(SourceFile("dispatch.json", text), program, limit)
    assert dispatch is None
    assert all(d.span is not None for d in diagnostics)
    assert Renderer().render(diagnostics).startswith(expected)


def test_too_large_data_is_rendered_with_the_bound(program) -> None:
    _, rendered = check(program, '{"resources": {"u0": {"bytes": 99999999999}}}')
    assert rendered == (
        "dispatch.json:1:32: error: the contents of 'u0' takes 99999999999 bytes; that is more than the 1073741824 "
        "bytes wgc run may use [WG0811]\n"
        '{"resources": {"u0": {"bytes": 99999999999}}}\n'
        "                               ^~~~~~~~~~~\n"
        "note: the bound is wgc run's --max-memory (default 1G)\n"
        "1 error generated.\n")


RENDERED_HERE.add("WG0811")

VALID = {"inputs": [{"entry": "Entry", "records": [{"grid": [1, 1], "value": 7, "where": [1, 2, 3], "delta": [1, 2]}]},
                    {"entry": "Leaf", "records": {"hex": "00" * 32, "stride": 0, "count": 3}}],
         "resources": {"u0": {"uint32": [1, 2]}, "u1": {"bytes": 16}, "t0": {"float": [1, 2, 3, 4]},
                       "t1": {"width": 2, "height": 1}, "b0": {"hex": "01000000"}},
         "root_constants": {"uint32": [1, 2]}, "repeat": 2}
HOSTILE_VALUES = [1e12, 10 ** 12, 99999999999, 2 ** 64, -1, 2.5, -0.0, 1e308, "x" * 10_000, None, True, [], {},
                  [[[[[]]]]], {"bytes": 10 ** 12}, {"hex": "zz"}, {"uint32": [2 ** 32]}, {"float": [1e39]},
                  "\u00e9\u4e2d", {"hex": "00", "stride": 0, "count": 10 ** 12}, {"width": 10 ** 9, "height": 10 ** 9}]


def hostile_texts(valid: dict | None = None):
    """JSON texts of dispatch descriptions: `valid` (default `VALID`) with a member replaced by a
    hostile value, or its text cut, spliced or nested deep."""
    from hypothesis import strategies as st

    import json

    def paths(value, prefix=()):
        yield prefix
        if isinstance(value, dict):
            for key, item in value.items():
                yield from paths(item, (*prefix, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from paths(item, (*prefix, index))

    valid = VALID if valid is None else valid
    all_paths = list(paths(valid))[1:]

    def replaced(path, new):
        copy = json.loads(json.dumps(valid))
        place = copy
        for step in path[:-1]:
            place = place[step]
        place[path[-1]] = new
        return json.dumps(copy)

    leaves = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                          | st.text(max_size=20), lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
    value = st.sampled_from(HOSTILE_VALUES) | leaves
    text = json.dumps(valid)
    by_value = st.builds(replaced, st.sampled_from(all_paths), value)
    by_text = st.builds(lambda cut, junk, at: text[:at] + junk + text[at + cut:], st.integers(0, 5),
                        st.text(max_size=6), st.integers(0, len(text)))
    nested = st.builds(lambda depth, opener: opener * depth, st.integers(200, 20_000), st.sampled_from(["[", '{"a":']))
    return by_value | by_text | nested


def test_fuzzed_dispatch_files_never_raise(program) -> None:
    """A bounded hypothesis campaign over hostile dispatch files (benchmarks/fuzz_dispatch.py runs it
    longer, through `wgc.run`): each is read into a dispatch or into located diagnostics, with a
    bound of 1 MB never exceeded by what it makes."""
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(hostile_texts())
    def one(text: str) -> None:
        dispatch, diagnostics = read_dispatch(SourceFile("dispatch.json", text), program, 1 << 20)
        if dispatch is None:
            assert diagnostics and all(d.span is not None for d in diagnostics), Renderer().render(diagnostics)
            Renderer().render(diagnostics).encode("utf-8")
        else:
            assert dispatch.data_bytes <= 1 << 20

    one()
