"""`wgc run` with textures, typed buffers, samplers, descriptor arrays and local root arguments,
end to end on a Vulkan device (lavapipe here).  Every expected value is computed here from the
texel data and the sampling rules of Vulkan (texel centres at i + 0.5, linear weights, cube face
selection, comparison `ref OP texel`), never from an earlier run; then the diagnostics of these
resources (WG0808-WG0810, WG0023 for a missing device feature) as rendered text.

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import struct

import pytest

import test_runtime_run
import wgc
from wgc.diagnostics import Renderer

pytestmark = pytest.mark.usefixtures("vulkan_device")   # every test here runs a graph (conftest)
write = test_runtime_run.write
run_graph_with_warnings = test_runtime_run.run_graph

RENDERED_HERE = {"WG0808", "WG0809", "WG0810"}
"""The runtime codes rendered here (test_runtime_run.py checks that every one has a case)."""


def run_graph(tmp_path, source: str, dispatch: dict, **options):
    """`test_runtime_run.run_graph`, and no diagnostic at all."""
    result = run_graph_with_warnings(tmp_path, source, dispatch, **options)
    assert not result.diagnostics, Renderer().render(list(result.diagnostics))
    return result


def rendered(result) -> str:
    return Renderer().render(list(result.diagnostics))


def lerp(a, b, w):
    return [x + (y - x) * w for x, y in zip(a, b)]


# --------------------------------------------------------------------------- textures and samplers

SAMPLING = """\
Texture2D<float4> Picture : register(t0);
SamplerState Nearest : register(s1);
SamplerState Smooth : register(s2);
RWStructuredBuffer<float4> Out : register(u3);
struct ProbeAt { float2 uv; uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Probe(ThreadNodeInputRecord<ProbeAt> probe)
{
    float2 uv = probe.Get().uv;
    uint slot = probe.Get().slot;
    Out[slot * 3 + 0] = Picture.Load(int3(slot % 4, slot / 4, 0));
    Out[slot * 3 + 1] = Picture.SampleLevel(Nearest, uv, 0);
    Out[slot * 3 + 2] = Picture.SampleLevel(Smooth, uv, 0);
}
"""


def test_texture_load_and_point_and_linear_sampling(tmp_path) -> None:
    width, height = 4, 2
    texels = [[float(10 * (y * width + x) + c) for c in range(4)] for y in range(height) for x in range(width)]
    # coordinates chosen so that the linear weights are exact binary fractions
    probes = [((0.125, 0.25), 0), ((0.25, 0.5), 1), ((0.5, 0.75), 2), ((0.9375, 0.25), 3), ((0.0, 0.0), 4)]
    records = [{"uv": list(uv), "slot": slot} for uv, slot in probes]
    result = run_graph(tmp_path, SAMPLING, {
        "inputs": [{"entry": "Probe", "records": records}],
        "resources": {"t0": {"format": "R32G32B32A32_FLOAT", "width": width, "height": height,
                             "float": [v for t in texels for v in t]},
                      "s1": {"filter": "point"}, "s2": {"filter": "linear", "address": "clamp"},
                      "u3": {"bytes": 16 * 3 * len(probes)}}})

    def texel(x: int, y: int):
        return texels[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]   # clamp to edge

    def nearest(u: float, v: float):
        return texel(int(u * width), int(v * height))

    def linear(u: float, v: float):
        x, y = u * width - 0.5, v * height - 0.5
        x0, y0 = int(x // 1), int(y // 1)
        a, b = x - x0, y - y0
        top = lerp(texel(x0, y0), texel(x0 + 1, y0), a)
        bottom = lerp(texel(x0, y0 + 1), texel(x0 + 1, y0 + 1), a)
        return lerp(top, bottom, b)

    expected = []
    for (u, v), slot in probes:
        expected += texel(slot % 4, slot // 4) + nearest(u, v) + linear(u, v)
    assert result.resources["u3"] == {"float": expected}


WRITES = """\
RWTexture2D<float4> Canvas : register(u0);
RWTexture2D<uint> Marks : register(u1);
Buffer<float4> Table : register(t2);
RWBuffer<uint> Counts : register(u3);
struct Dot { uint2 at; uint entry; };
[Shader("node")] [NodeLaunch("thread")]
void Paint(ThreadNodeInputRecord<Dot> dot)
{
    uint2 at = dot.Get().at;
    Canvas[at] = Table[dot.Get().entry] * 2;
    Marks[at] = Marks[at] + 100 + dot.Get().entry;
    Counts[dot.Get().entry] = Counts[dot.Get().entry] * 3 + 1;
}
"""


def test_storage_texture_writes_and_typed_buffers_are_dumped_row_major(tmp_path) -> None:
    width, height = 3, 2
    table = [[1.5, 2.0, -3.0, 4.0], [0.25, 8.0, 16.0, 32.0]]
    dots = [((2, 0), 1), ((0, 1), 0)]          # one thread per Counts entry: no two threads race
    marks = [7 * i for i in range(width * height)]
    counts = [5, 9]
    result = run_graph(tmp_path, WRITES, {
        "inputs": [{"entry": "Paint", "records": [{"at": list(at), "entry": e} for at, e in dots]}],
        "resources": {"u0": {"width": width, "height": height}, "u1": {"width": width, "height": height,
                                                                       "uint32": marks},
                      "t2": {"width": 2, "float": [v for row in table for v in row]},
                      "u3": {"width": 2, "uint32": counts}}})
    canvas = [[0.0] * 4 for _ in range(width * height)]
    for (x, y), e in dots:
        canvas[y * width + x] = [2 * v for v in table[e]]
        marks[y * width + x] += 100 + e
        counts[e] = counts[e] * 3 + 1
    assert result.resources == {"u0": {"float": [v for t in canvas for v in t]}, "u1": {"uint32": marks},
                                "u3": {"uint32": counts}}      # the read-only Table is not dumped by default


SHAPES = """\
Texture2D<float4> Pictures[3] : register(t0);
TextureCube<float4> Sky : register(t4);
Texture3D<float> Volume : register(t5);
Texture1D<uint2> Line : register(t6);
Texture2DArray<float> Layers : register(t7);
Texture2D<float> Depth : register(t8);
SamplerComparisonState Compare : register(s9);
SamplerState Nearest : register(s10);
[[vk::combinedImageSampler]] [[vk::binding(20)]] Texture2D<float4> Combined;
[[vk::combinedImageSampler]] [[vk::binding(20)]] SamplerState CombinedSampler;
RWTexture2DArray<uint> Stamps : register(u11);
RWStructuredBuffer<float4> Out : register(u12);
struct Job { uint which; float reference; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Shapes(DispatchNodeInputRecord<Job> job)
{
    uint i = job.Get().which;
    Out[i * 5 + 0] = Pictures[i].Load(int3(0, 0, 0));
    Out[i * 5 + 1] = Sky.SampleLevel(Nearest, float3(1, 0, 0), 0) + 10 * Sky.SampleLevel(Nearest, float3(0, 0, -1), 0)
                     + 100 * Sky.SampleLevel(Nearest, float3(0, -2, 0.5), 0);
    Out[i * 5 + 2] = float4(Volume.Load(int4(1, 1, 1, 0)), Layers.Load(int4(0, 0, 2, 0)),
                            Depth.SampleCmpLevelZero(Compare, float2(0.25, 0.25), job.Get().reference),
                            Depth.SampleCmpLevelZero(Compare, float2(0.75, 0.75), job.Get().reference));
    Out[i * 5 + 3] = float4(Line.Load(int2(2, 0)) + Line.Load(int2(1, 1)), 0, 0);
    Out[i * 5 + 4] = Combined.SampleLevel(CombinedSampler, float2(0.5, 0.5), 1);
    Stamps[uint3(i, 0, 1)] = i + 7;
}
"""


def test_descriptor_array_per_record_cube_3d_1d_mips_array_layers_comparison_and_combined(tmp_path) -> None:
    depth = [0.25, 0.75, 0.75, 0.75]         # 2x2; (0.25, 0.25) is texel (0, 0), (0.75, 0.75) texel (1, 1)
    jobs = [{"which": 2, "reference": 0.5}, {"which": 0, "reference": 0.8}, {"which": 1, "reference": 0.1}]
    line = [[1, 2], [3, 4], [5, 6], [7, 8], [50, 60], [70, 80]]   # 4 texels at mip 0, 2 at mip 1
    combined = [[9.0] * 4] * 4 + [[1.0, 2.0, 3.0, 4.0]]           # mip 0 (2x2), mip 1 (1x1)
    result = run_graph(tmp_path, SHAPES, {
        "inputs": [{"entry": "Shapes", "records": jobs}],
        "resources": {
            "t0": [{"width": 1, "height": 1, "float": [10 * j + c for c in range(1, 5)]} for j in range(3)],
            "t4": {"width": 1, "height": 1, "float": [face for face in range(6) for _ in range(4)]},
            "t5": {"width": 2, "height": 2, "depth": 2, "float": list(range(8))},
            "t6": {"width": 4, "mips": 2, "uint32": [v for t in line for v in t]},
            "t7": {"width": 1, "height": 1, "layers": 3, "float": [0.5, 1.5, 2.5]},
            "t8": {"format": "R32_FLOAT", "width": 2, "height": 2, "float": depth},
            "s9": {"comparison": "less", "filter": "point"}, "s10": {"filter": "point"},
            "Combined": {"width": 2, "height": 2, "mips": 2, "float": [v for t in combined for v in t]},
            "CombinedSampler": {"filter": "point"},
            "u11": {"width": 3, "height": 1, "layers": 2},
            "u12": {"bytes": 16 * 5 * 3}}})
    # Vulkan cube faces: +X 0, -X 1, +Y 2, -Y 3, +Z 4, -Z 5 (the major axis of the direction)
    sky = 0 + 10 * 5 + 100 * 3
    expected = [0.0] * (4 * 5 * 3)
    for job in jobs:
        i, ref = job["which"], job["reference"]
        rows = [[10 * i + c for c in range(1, 5)], [sky] * 4,
                [7.0, 2.5, float(ref < depth[0]), float(ref < depth[3])],   # Volume (1,1,1): 1 + 2 + 4
                [line[2][0] + line[5][0], line[2][1] + line[5][1], 0, 0], combined[4]]
        expected[i * 20:(i + 1) * 20] = [float(v) for row in rows for v in row]
    assert result.resources["u12"] == {"float": expected}
    # Stamps: 3x1 texels, 2 layers, layer after layer
    assert result.resources["u11"] == {"uint32": [0, 0, 0] + [7, 8, 9]}


UNORM = """\
[[vk::image_format("rgba8")]] RWTexture2D<float4> Colours : register(u0);
struct Brush { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void Paint(ThreadNodeInputRecord<Brush> p) { Colours[uint2(p.Get().x, 0)] = Colours[uint2(p.Get().x, 0)] * 0.5; }
"""


def test_a_unorm_storage_texture_is_written_and_dumped_as_bytes(tmp_path) -> None:
    texels = [200, 100, 50, 255, 10, 20, 30, 40]
    result = run_graph(tmp_path, UNORM, {
        "inputs": [{"entry": "Paint", "records": [{"x": 1}]}],
        "resources": {"u0": {"format": "R8G8B8A8_UNORM", "width": 2, "height": 1, "uint8": texels}}})
    # UNORM: v / 255, halved, stored as round(v / 2) (exact halves round to even in Vulkan's RTNE
    # conversion; 10 / 2 etc. are exact)
    assert result.resources["u0"] == {"uint8": texels[:4] + [5, 10, 15, 20]}


# --------------------------------------------------------------------------- local root arguments

LOCAL_ROOT = """\
struct Args { uint scale; uint bias; };
[[vk::shader_record_ext]] ConstantBuffer<Args> args;
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeLocalRootArgumentsTableIndex(1)]
void First(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Second)
{
    Out[item.Get().v] = item.Get().v * args.scale + args.bias;
    ThreadNodeOutputRecords<Item> next = Second.GetThreadNodeOutputRecords(1);
    next.Get().v = item.Get().v + 4;
    next.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeLocalRootArgumentsTableIndex(0)]
void Second(ThreadNodeInputRecord<Item> item) { Out[item.Get().v] = item.Get().v * args.scale + args.bias; }
"""

TABLE = struct.pack("<4I", 100, 7, 0, 0) + struct.pack("<4I", 10, 3, 0, 0)   # entries 0 and 1, stride 16


def test_local_root_arguments_from_two_table_entries(tmp_path) -> None:
    result = run_graph(tmp_path, LOCAL_ROOT, {
        "inputs": [{"entry": "First", "records": [{"v": v} for v in range(4)]}],
        "resources": {"u0": {"bytes": 32}},
        "local_root_arguments": {"stride": 16, "hex": TABLE.hex()}})
    first, second = (10, 3), (100, 7)          # First reads entry 1, Second entry 0
    expected = [v * first[0] + first[1] for v in range(4)] + [v * second[0] + second[1] for v in range(4, 8)]
    assert result.resources["u0"] == {"uint32": expected}


def test_local_root_arguments_missing_table_short_table_and_no_index(tmp_path) -> None:
    path = write(tmp_path, "graph.hlsl", LOCAL_ROOT)
    base = {"inputs": [], "resources": {"u0": {"bytes": 32}}}
    assert rendered(wgc.run(path, base)) == (
        "error: node 'First' reads local root arguments ('args') but the dispatch has no \"local_root_arguments\" "
        "[WG0809]\n"
        "note: add \"local_root_arguments\": {\"stride\": N, \"hex\": \"...\"} with entry 1 holding 'args' (16 bytes)\n"
        "error: node 'Second' reads local root arguments ('args') but the dispatch has no \"local_root_arguments\" "
        "[WG0809]\n"
        "note: add \"local_root_arguments\": {\"stride\": N, \"hex\": \"...\"} with entry 0 holding 'args' (16 bytes)\n"
        "2 errors generated.\n")
    short = dict(base, local_root_arguments={"stride": 16, "hex": TABLE[:24].hex()})
    assert rendered(wgc.run(path, short)) == (
        "error: node 'First' reads 'args' (16 bytes) from entry 1 of the local-root-argument table (bytes 16..31 "
        "with stride 16); the table holds 24 bytes [WG0809]\n"
        "1 error generated.\n")
    unindexed = write(tmp_path, "unindexed.hlsl", LOCAL_ROOT.replace("[NodeLocalRootArgumentsTableIndex(0)]", ""))
    assert rendered(wgc.run(unindexed, dict(base, local_root_arguments={"stride": 16, "hex": TABLE.hex()}))) == (
        "error: node 'Second' reads local root arguments ('args') but has no [NodeLocalRootArgumentsTableIndex(N)]: "
        "wgc run does not assign table indices [WG0809]\n"
        "note: give the node its index in the dispatch's local-root-argument table\n"
        "1 error generated.\n")


def test_a_shader_record_block_is_no_descriptor(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", LOCAL_ROOT), {
        "resources": {"u0": {"bytes": 32}, "args": {"uint32": [1, 2]}},
        "local_root_arguments": {"stride": 16, "hex": TABLE.hex()}})
    assert rendered(result) == SHADER_RECORD_REFUSED


# --------------------------------------------------------------------------- diagnostics

def test_a_storage_texture_given_another_format(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", WRITES), {
        "resources": {"u0": {"format": "R8G8B8A8_UNORM", "width": 1, "height": 1},
                      "u1": {"width": 1, "height": 1}, "t2": {"width": 1}, "u3": {"width": 1}}})
    assert rendered(result) == (
        "error: 'Canvas' ('RWTexture2D<float4>') is declared with SPIR-V format Rgba32f; the dispatch gives "
        "R8G8B8A8_UNORM [WG0808]\n"
        "note: give it \"format\": \"R32G32B32A32_FLOAT\", or declare the one you give with [[vk::image_format(...)]]\n"
        "1 error generated.\n")


def test_resources_sharing_a_binding_with_different_descriptor_types(tmp_path) -> None:
    path = write(tmp_path, "graph.hlsl", SAMPLING.replace("register(u3)", "register(u0)"))  # u0, t0: binding 0
    result = wgc.run(path, {"resources": {"t0": {"width": 1, "height": 1}, "s1": {}, "s2": {}, "u0": {"bytes": 16}}})
    assert rendered(result).replace(path, "graph.hlsl") == BINDING_CONFLICT


SHADER_RECORD_REFUSED = """\
<dispatch>:6:5: error: 'args' is a 'ConstantBuffer<Args>': it is a [[vk::shader_record_ext]] block, which each node \
reads from its entry of the local root argument table ("local_root_arguments"), not a descriptor [WG0803]
    "args": {
    ^~~~~~
1 error generated.
"""
BINDING_CONFLICT = """\
graph.hlsl:4:28: warning: 'Out' and 'Picture' are both bound to descriptor set 0, binding 0 [WG0360] \
[-Wvk-binding-overlap]
RWStructuredBuffer<float4> Out : register(u0);
                           ^~~
graph.hlsl:1:19: note: 'Picture' is bound here
Texture2D<float4> Picture : register(t0);
                  ^~~~~~~
note: b, t, u and s registers share one Vulkan binding space: separate them with \
-fvk-b-shift/-fvk-t-shift/-fvk-u-shift/-fvk-s-shift or [[vk::binding]]
error: 'Picture' (sampled image) and 'Out' (storage buffer) share descriptor set 0, binding 0: one descriptor \
cannot be both [WG0810]
note: give them separate bindings (registers of different numbers, [[vk::binding]], or \
-fvk-t-shift/-fvk-s-shift/-fvk-u-shift/-fvk-b-shift)
1 warning and 1 error generated.
"""


UNBOUNDED = """\
Texture2D<float4> Many[] : register(t0, space1);
RWStructuredBuffer<float4> Out : register(u0);
struct Index { uint index; };
[Shader("node")] [NodeLaunch("thread")]
void Pick(ThreadNodeInputRecord<Index> pick)
{
    uint i = pick.Get().index;
    Out[i] = Many[NonUniformResourceIndex(i)].Load(int3(0, 0, 0));
}
"""


def device_features() -> tuple[dict[str, bool], str]:
    from wgc.runtime.device import Device

    with Device() as device:
        return dict(device.features), device.info.name


def test_an_unbounded_array_needs_descriptor_indexing(tmp_path) -> None:
    """Runs where the device has runtimeDescriptorArray and non-uniform indexing of sampled images;
    elsewhere (lavapipe) the run is refused, naming the capabilities and features."""
    features, name = device_features()
    dispatch = {"inputs": [{"entry": "Pick", "records": [{"index": 2}, {"index": 0}]}],
                "resources": {"space1/t0": [{"width": 1, "height": 1, "float": [k, k + 1, k + 2, k + 3]}
                                            for k in (10, 20, 30)],
                              "u0": {"bytes": 16 * 3}}}
    result = wgc.run(write(tmp_path, "graph.hlsl", UNBOUNDED), dispatch)
    if features["runtimeDescriptorArray"] and features["shaderSampledImageArrayNonUniformIndexing"]:
        assert result.ok, rendered(result)
        assert result.resources["u0"] == {"float": [10.0, 11, 12, 13, 0, 0, 0, 0, 30, 31, 32, 33]}
    else:
        lacking = [f"{capability} ({feature})" for capability, feature in (
            ("RuntimeDescriptorArray", "runtimeDescriptorArray"),
            ("SampledImageArrayNonUniformIndexing", "shaderSampledImageArrayNonUniformIndexing"))
            if not features[feature]]
        assert rendered(result) == (f"error: the graph's shaders need {', '.join(lacking)}, which '{name}' lacks "
                                    "[WG0023]\n1 error generated.\n")


def test_a_sampler_is_not_dumped(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", SAMPLING), {
        "resources": {"t0": {"width": 1, "height": 1}, "s1": {}, "s2": {}, "u3": {"bytes": 16}}}, dump=("s1",))
    assert rendered(result) == ("error: --dump s1: 'Nearest' is a sampler, which holds no data [WG0806]\n"
                                "1 error generated.\n")


OTHER_SHAPES = """\
struct Pair { float4 k; };
TextureBuffer<Pair> Constants : register(t0);
tbuffer More : register(t1) { float4 extra; };
RWTexture3D<float2> Volume : register(u2);
RWTexture1DArray<int> Rows : register(u3);
RWTexture1D<float> Line : register(u4);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Fill(ThreadNodeInputRecord<Item> item)
{
    uint i = item.Get().v;
    Volume[uint3(i, 1, 1)] = Constants.k.xy + extra.zw;
    Rows[uint2(i, 1)] = -(int)i - 1;
    Line[i] = Line[i] + 0.5;
}
"""


def test_storage_images_of_every_dimension_and_texture_buffers(tmp_path) -> None:
    result = run_graph(tmp_path, OTHER_SHAPES, {
        "inputs": [{"entry": "Fill", "records": [{"v": 0}, {"v": 1}]}],
        "resources": {"t0": {"float": [1, 2, 3, 4]}, "t1": {"float": [5, 6, 7, 8]},
                      "u2": {"width": 2, "height": 2, "depth": 2}, "u3": {"width": 2, "layers": 2},
                      "u4": {"width": 2, "float": [1, 2]}}})
    volume = [[0.0, 0.0] for _ in range(8)]
    rows = [0] * 4
    for i in (0, 1):
        volume[i + 2 * 1 + 4 * 1] = [1 + 7, 2 + 8]   # x + width * (y + height * z)
        rows[1 * 2 + i] = -i - 1                   # layer 1
    assert result.resources == {"u2": {"float": [v for t in volume for v in t]}, "u3": {"int32": rows},
                                "u4": {"float": [1.5, 2.5]}}


def test_used_textures_and_samplers_without_contents(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", SHAPES), {"resources": {"u12": {"bytes": 16}}})
    missing = [("Pictures", "t0", '[{"width": 1, "height": 1}, ...]'), ("Sky", "t4", '{"width": 1, "height": 1}'),
               ("Volume", "t5", '{"width": 1, "height": 1}'), ("Line", "t6", '{"width": 1, "height": 1}'),
               ("Layers", "t7", '{"width": 1, "height": 1}'), ("Depth", "t8", '{"width": 1, "height": 1}'),
               ("Compare", "s9", "{}"), ("Nearest", "s10", "{}"), ("Combined", "Combined", '{"width": 1, "height": 1}'),
               ("CombinedSampler", "CombinedSampler", "{}"), ("Stamps", "u11", '{"width": 1, "height": 1}')]
    expected = "".join(f"error: the graph uses '{name}' ({register if register != name else 'no register'}) but the "
                       f"dispatch gives it no contents [WG0804]\nnote: add it to \"resources\", e.g. \"{register}\": "
                       f"{example}\n" for name, register, example in missing)
    assert rendered(result) == expected + f"{len(missing)} errors generated.\n"


FORMATLESS = """\
[[vk::image_format("unknown")]] RWTexture2D<float4> Image : register(u1);
struct Texel { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void Double(ThreadNodeInputRecord<Texel> texel) { Image[uint2(texel.Get().x, 0)] = Image[uint2(texel.Get().x, 0)] * 2; }
"""


def test_reading_a_storage_image_without_format_needs_the_feature(tmp_path) -> None:
    """A format-less storage image that is read needs shaderStorageImageReadWithoutFormat, which
    lavapipe lacks: the run is refused there, naming it; elsewhere it runs."""
    features, name = device_features()
    result = wgc.run(write(tmp_path, "graph.hlsl", FORMATLESS), {
        "inputs": [{"entry": "Double", "records": [{"x": 1}]}],
        "resources": {"u1": {"width": 2, "height": 1, "float": [1, 2, 3, 4, 5, 6, 7, 8]}}})
    if features["shaderStorageImageReadWithoutFormat"]:
        assert result.ok, rendered(result)
        assert result.resources["u1"] == {"float": [1.0, 2, 3, 4, 10, 12, 14, 16]}
    else:
        assert rendered(result) == ("error: the graph's shaders need StorageImageReadWithoutFormat "
                                    f"(shaderStorageImageReadWithoutFormat), which '{name}' lacks [WG0023]\n"
                                    "1 error generated.\n")


def test_an_acceleration_structure_is_refused(tmp_path) -> None:
    source = """\
RaytracingAccelerationStructure Scene : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
struct Ray { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Trace(ThreadNodeInputRecord<Ray> ray)
{
    RayQuery<0> query;
    RayDesc desc = (RayDesc)0;
    desc.TMax = 1;
    query.TraceRayInline(Scene, 0, 0xff, desc);
    Out[ray.Get().v] = query.Proceed();
}
"""
    result = wgc.run(write(tmp_path, "graph.hlsl", source), {"resources": {"u1": {"bytes": 4}}})
    assert rendered(result) == ("error: 'Scene' is a 'RaytracingAccelerationStructure': wgc run cannot bind an "
                                "acceleration structure descriptor [WG0803]\n1 error generated.\n")
