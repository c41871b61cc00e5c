"""`wgc run` draws with mesh nodes: graphs that draw known pictures, each checked against a picture a
few lines of Python rasterize independently from the same triangles by Vulkan's rules (pixel
centres at half-integers, the top-left fill convention for edges through a centre, flat and
linearly interpolated attributes, a depth test), with D3D12's viewport (NDC y up, depth [0, 1]).

The tests that draw need a device with VK_EXT_mesh_shader (lavapipe from Mesa 23.2, or a GPU):
they skip with the reason where it is missing (Debian 12's own Mesa 22.3).  Each runs on both
schedules (the `gpu_driven` fixture): GPU-driven, where the mesh launches are indirect draws whose
group counts the indirect-setup shader writes from the record counters, and host-driven, level by
level with direct draws; both must draw the independently computed picture.  The render target's
diagnostics (WG0880, WG0881) come before any device and run everywhere.
"""

from __future__ import annotations

import json
import math
import struct

import pytest

import wgc
from wgc.diagnostics import Renderer


# ------------------------------------------------------------------ the independent rasterizer


def _edge(a, b, c) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _top_left(a, b) -> bool:
    """Of a clockwise triangle in framebuffer space (y down): a top edge runs right along a row, a
    left edge runs up."""
    return (a[1] == b[1] and b[0] > a[0]) or b[1] < a[1]


def rasterize(width, height, triangles, clear, depth_test=False):
    """The picture (rows of RGBA floats) and the uncertain pixels (centres within 1e-3 pixel of an
    edge but not on it, or of a discard boundary) of `triangles`: (three (x, y, z) NDC positions,
    shade(barycentrics) -> RGBA or None to discard), drawn in order."""
    image = [[list(clear) for _ in range(width)] for _ in range(height)]
    depth = [[1.0] * width for _ in range(height)]
    uncertain = set()
    for positions, shade in triangles:
        v = [((x + 1) / 2 * width, (1 - y) / 2 * height, z) for x, y, z in positions]
        order = [0, 1, 2]
        area = _edge(v[0], v[1], v[2])
        if area == 0:
            continue
        if area < 0:                          # make it clockwise on screen, keeping which vertex is which
            order = [0, 2, 1]
            area = -area
        p = [v[i] for i in order]
        edges = [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])]     # edge k is opposite vertex k
        for py in range(height):
            for px in range(width):
                c = (px + 0.5, py + 0.5)
                e = [_edge(a, b, c) for a, b in edges]
                lengths = [math.dist(a[:2], b[:2]) for a, b in edges]
                if any(0 < abs(ek) / n < 1e-3 for ek, n in zip(e, lengths)):
                    uncertain.add((px, py))
                if not all(ek > 0 or (ek == 0 and _top_left(a, b)) for ek, (a, b) in zip(e, edges)):
                    continue
                bary = [0.0, 0.0, 0.0]
                for k in range(3):
                    bary[order[k]] = e[k] / area
                z = sum(b * pos[2] for b, pos in zip(bary, positions))
                if depth_test and not z < depth[py][px]:
                    continue
                colour = shade(bary)
                if colour is None:
                    continue
                if colour == "uncertain":
                    uncertain.add((px, py))
                    continue
                image[py][px] = list(colour)
                depth[py][px] = z
    return image, uncertain, depth


def unorm8(image) -> list[int]:
    return [round(min(max(c, 0.0), 1.0) * 255) for row in image for texel in row for c in texel]


def assert_picture(got: list[int], image, uncertain, width: int, tolerance: int = 0) -> None:
    want = unorm8(image)
    wrong = []
    for i, (g, w) in enumerate(zip(got, want)):
        pixel = ((i // 4) % width, (i // 4) // width)
        if pixel not in uncertain and abs(g - w) > tolerance:
            wrong.append((pixel, "RGBA"[i % 4], g, w))
    assert len(got) == len(want)
    assert not wrong, f"{len(wrong)} components differ (pixel, component, got, want): {wrong[:8]}"


def flat(colour):
    return lambda bary: colour


def quad(lo, hi, z, shade0, shade1=None):
    """The two triangles the test graphs draw for a quad (vertex t at uv (t & 1, t >> 1); triangles
    (0, 1, 2) and (2, 1, 3))."""
    corners = [(lo[0] + (hi[0] - lo[0]) * (t & 1), lo[1] + (hi[1] - lo[1]) * (t >> 1), z) for t in range(4)]
    return [([corners[0], corners[1], corners[2]], shade0),
            ([corners[2], corners[1], corners[3]], shade1 or shade0)]


@pytest.fixture(params=[True, False], ids=["gpu-driven", "host-driven"])
def gpu_driven(request, monkeypatch):
    """The schedule the test's runs take: True, a plain run (`wgc.run`: GPU-driven where the plan
    covers the graph); False, the host-driven scheduler forced (as `Session(gpu_driven=False)`)."""
    if not request.param:
        _force_host_driven(monkeypatch)
    return request.param


def _force_host_driven(monkeypatch) -> None:
    from wgc.runtime.gpu_schedule import GpuScheduler

    init = GpuScheduler.__init__

    def host_driven(self, *args, **kwargs):
        init(self, *args, **{**kwargs, "gpu_driven": False})

    monkeypatch.setattr(GpuScheduler, "__init__", host_driven)


def schedule_of(gpu_driven: bool) -> str:
    return "gpu-driven" if gpu_driven else "host-driven"


def draw(tmp_path, source: str, dispatch: dict, gpu_driven: bool):
    """Run on the emulated path, and again on the AMDX path (the AMDX module translated): both must
    draw the same picture, on the schedule the `gpu_driven` fixture asks for."""
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = wgc.run(str(path), dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.schedule == schedule_of(gpu_driven)
    amdx = wgc.run(str(path), dispatch, path="amdx")
    assert amdx.ok and amdx.path == "amdx", Renderer().render(list(amdx.diagnostics))
    assert amdx.schedule == schedule_of(gpu_driven)
    assert amdx.attachments == result.attachments
    return result


QUAD_NODE = """
struct Quad { float2 lo; float2 hi; float z; float4 color; };
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void DrawQuad(DispatchNodeInputRecord<Quad> q, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    float2 uv = float2(t & 1, t >> 1);
    v[t].pos = float4(lerp(q.Get().lo, q.Get().hi, uv), q.Get().z, 1);
    v[t].color = q.Get().color;
    if (t < 2)
        tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""

RED, GREEN, BLUE, BLACK = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0), (0.0, 0.0, 0.0, 1.0)


@pytest.mark.usefixtures("mesh_device")
def test_fixed_grid_mesh_node_draws_a_quad_per_record(tmp_path, gpu_driven):
    """A mesh node with [NodeDispatchGrid(1,1,1)]: one group per record, each drawing its quad."""
    records = [{"lo": [-1.0, -1.0], "hi": [0.0, 0.5], "z": 0.5, "color": list(RED)},
               {"lo": [0.25, -0.75], "hi": [0.75, 1.0], "z": 0.5, "color": list(GREEN)}]
    result = draw(tmp_path, QUAD_NODE, {"inputs": [{"entry": "DrawQuad", "records": records}],
                                        "render_target": {"width": 16, "height": 16}}, gpu_driven)
    triangles = [t for r in records for t in quad(r["lo"], r["hi"], r["z"], flat(r["color"]))]
    image, uncertain, _ = rasterize(16, 16, triangles, BLACK)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 16)
    dispatch, = [d for step in result.trace for d in step.dispatches]
    assert (dispatch.node, dispatch.launch, dispatch.records_in, dispatch.groups) == ("DrawQuad", "mesh", 2, 2)
    assert dispatch.primitives in (None, 4)


@pytest.mark.usefixtures("mesh_device")
def test_record_given_grid_draws_a_quad_per_group(tmp_path, gpu_driven):
    """SV_DispatchGrid sizes the mesh node's launch; SV_GroupID places each group's quad."""
    source = """
struct R { uint3 grid : SV_DispatchGrid; float4 color; };
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeMaxDispatchGrid(8, 8, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Tiles(DispatchNodeInputRecord<R> r, uint t : SV_GroupThreadID, uint2 g : SV_GroupID,
           out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    float2 uv = float2(t & 1, t >> 1);
    v[t].pos = float4(-1 + (g + uv * 0.75) * 0.5, 0, 1);
    v[t].color = r.Get().color * (1 - 0.2 * g.x);
    if (t < 2)
        tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""
    result = draw(tmp_path, source, {"inputs": [{"entry": "Tiles", "records": [{"grid": [3, 2, 1],
                                                                                  "color": [1, 1, 1, 1]}]}],
                                     "render_target": {"width": 16, "height": 16}}, gpu_driven)
    triangles = []
    for gy in range(2):
        for gx in range(3):
            lo = (-1 + gx * 0.5, -1 + gy * 0.5)
            hi = (lo[0] + 0.375, lo[1] + 0.375)
            shade = 1 - 0.2 * gx
            triangles += quad(lo, hi, 0.0, flat((shade, shade, shade, shade)))
    image, uncertain, _ = rasterize(16, 16, triangles, BLACK)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 16)
    dispatch, = [d for step in result.trace for d in step.dispatches]
    assert dispatch.groups == 6


@pytest.mark.usefixtures("mesh_device")
def test_mesh_node_array_selected_per_record(tmp_path, gpu_driven):
    """Material binning: a thread node sends each record to NodeOutputArray index `material`; every
    member of the mesh-node array (one pipeline each) draws with its own colour."""
    source = """
struct In { uint material; float2 lo; };
struct Draw { float2 lo; };
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Bin(ThreadNodeInputRecord<In> i, [MaxRecords(1)] [NodeArraySize(2)] [NodeID("Material")] NodeOutputArray<Draw> out)
{
    ThreadNodeOutputRecords<Draw> d = out[i.Get().material].GetThreadNodeOutputRecords(1);
    d.Get().lo = i.Get().lo;
    d.OutputComplete();
}
void Emit(float2 lo, float4 color, uint t, out V v)
{
    v.pos = float4(lo + float2(t & 1, t >> 1) * 0.5, 0, 1);
    v.color = color;
}
[Shader("node")] [NodeLaunch("mesh")] [NodeID("Material", 0)] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Red(DispatchNodeInputRecord<Draw> d, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    Emit(d.Get().lo, float4(1, 0, 0, 1), t, v[t]);
    if (t < 2) tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("node")] [NodeLaunch("mesh")] [NodeID("Material", 1)] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Blue(DispatchNodeInputRecord<Draw> d, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    Emit(d.Get().lo, float4(0, 0, 1, 1), t, v[t]);
    if (t < 2) tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""
    records = [{"material": 0, "lo": [-1.0, -1.0]}, {"material": 1, "lo": [0.0, 0.0]},
               {"material": 1, "lo": [-1.0, 0.5]}, {"material": 0, "lo": [0.5, -0.5]}]
    result = draw(tmp_path, source, {"inputs": [{"entry": "Bin", "records": records}],
                                     "render_target": {"width": 16, "height": 16}}, gpu_driven)
    triangles = []
    for r in records:
        lo = r["lo"]
        triangles += quad(lo, (lo[0] + 0.5, lo[1] + 0.5), 0.0, flat(RED if r["material"] == 0 else BLUE))
    image, uncertain, _ = rasterize(16, 16, triangles, BLACK)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 16)
    drawn = {d.node: d.records_in for step in result.trace for d in step.dispatches if d.launch == "mesh"}
    assert drawn == {"Material": 2, "Material[1]": 2}


PER_PRIMITIVE = """
struct V { float4 pos : SV_Position; };
struct P { float4 color : COLOR1; bool cull : SV_CullPrimitive; };
struct R { uint cull; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Split(DispatchNodeInputRecord<R> r, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2],
           out primitives P prim[2])
{
    SetMeshOutputCounts(4, 2);
    v[t].pos = float4(float2(t & 1, t >> 1) * 1.5 - 0.75, 0, 1);
    if (t < 2) {
        tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
        prim[t].color = t == 0 ? float4(1, 0, 0, 1) : float4(0, 0, 1, 1);
        prim[t].cull = (r.Get().cull >> t) & 1;
    }
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, float4 c : COLOR1) : SV_Target0 { return c; }
"""


@pytest.mark.usefixtures("mesh_device")
def test_per_primitive_colour_splits_the_diagonal_by_the_top_left_rule(tmp_path, gpu_driven):
    """Per-primitive attributes reach the pixel shader (PerPrimitiveEXT, matched by Location); the
    diagonal through pixel centres belongs to one triangle only (Vulkan, "Polygon Rasterization":
    a sample on a shared edge is covered by exactly one of the polygons sharing it)."""
    result = draw(tmp_path, PER_PRIMITIVE, {"inputs": [{"entry": "Split", "records": [{"cull": 0}]}],
                                            "render_target": {"width": 16, "height": 16}}, gpu_driven)
    image, uncertain, _ = rasterize(16, 16, quad((-0.75, -0.75), (0.75, 0.75), 0.0, flat(RED), flat(BLUE)), BLACK)
    assert not uncertain
    got = result.attachments["SV_Target0"]["uint8"]
    assert_picture(got, image, uncertain, 16)
    assert got[(4 * 16 + 4) * 4:(4 * 16 + 4) * 4 + 4] == [0, 0, 255, 255]   # a centre on the diagonal: blue's


@pytest.mark.usefixtures("mesh_device")
def test_culled_primitives_are_not_drawn(tmp_path, gpu_driven):
    """SV_CullPrimitive (CullPrimitiveEXT) true: the primitive is not rasterized."""
    result = draw(tmp_path, PER_PRIMITIVE, {"inputs": [{"entry": "Split", "records": [{"cull": 2}]}],
                                            "render_target": {"width": 16, "height": 16}}, gpu_driven)
    image, uncertain, _ = rasterize(16, 16, quad((-0.75, -0.75), (0.75, 0.75), 0.0, flat(RED), lambda b: None),
                                    BLACK)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 16)
    both = draw(tmp_path, PER_PRIMITIVE, {"inputs": [{"entry": "Split", "records": [{"cull": 3}]}],
                                          "render_target": {"width": 8, "height": 8}}, gpu_driven)
    assert both.attachments["SV_Target0"]["uint8"] == [0, 0, 0, 255] * 64


@pytest.mark.usefixtures("mesh_device")
def test_set_mesh_output_counts_zero_draws_nothing(tmp_path, gpu_driven):
    """SetMeshOutputCounts(0, 0): the group outputs no primitive (the picture stays the clear colour)."""
    source = QUAD_NODE.replace("SetMeshOutputCounts(4, 2);", "SetMeshOutputCounts(0, 0); return;")
    result = draw(tmp_path, source, {
        "inputs": [{"entry": "DrawQuad", "records": [{"lo": [-1, -1], "hi": [1, 1], "color": [1, 1, 1, 1]}]}],
        "render_target": {"width": 8, "height": 8, "colors": [{"clear": [0, 0.2, 0.6, 1]}]}}, gpu_driven)
    assert result.attachments["SV_Target0"]["uint8"] == [0, 51, 153, 255] * 64
    dispatch, = [d for step in result.trace for d in step.dispatches]
    assert dispatch.primitives in (None, 0)


@pytest.mark.usefixtures("mesh_device")
def test_depth_test_between_two_records(tmp_path, gpu_driven):
    """A depth attachment (D32_FLOAT, cleared to 1, test "less"): of two overlapping quads the nearer
    one is seen whatever the order; the depth attachment holds the nearer z."""
    records = [{"lo": [-1.0, -1.0], "hi": [0.5, 0.5], "z": 0.25, "color": list(RED)},
               {"lo": [-0.5, -0.5], "hi": [1.0, 1.0], "z": 0.75, "color": list(GREEN)},
               {"lo": [0.0, -1.0], "hi": [1.0, 0.0], "z": 0.125, "color": list(BLUE)}]
    result = draw(tmp_path, QUAD_NODE, {"inputs": [{"entry": "DrawQuad", "records": records}],
                                        "render_target": {"width": 16, "height": 16, "depth": {}}}, gpu_driven)
    triangles = [t for r in records for t in quad(r["lo"], r["hi"], r["z"], flat(r["color"]))]
    image, uncertain, depth = rasterize(16, 16, triangles, BLACK, depth_test=True)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 16)
    assert result.attachments["depth"]["float"] == pytest.approx([z for row in depth for z in row], abs=1e-6)


@pytest.mark.usefixtures("mesh_device")
def test_interpolated_attributes_and_png(tmp_path, run_wgc):
    """A colour interpolated across the quad (barycentric, at pixel centres; w = 1); `--image`
    writes the same texels as an RGBA PNG."""
    source = """
struct V { float4 pos : SV_Position; float4 color : COLOR0; };
struct G { uint unused; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Gradient(DispatchNodeInputRecord<G> r, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    float2 uv = float2(t & 1, t >> 1);
    v[t].pos = float4(uv * 2 - 1, 0, 1);
    v[t].color = float4(uv, 1 - uv.x, 1);
    if (t < 2) tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, float4 c : COLOR0) : SV_Target0 { return c; }
"""
    path = tmp_path / "gradient.hlsl"
    path.write_text(source)
    dispatch = {"inputs": [{"entry": "Gradient", "records": [{}]}], "render_target": {"width": 16, "height": 8}}
    (tmp_path / "d.json").write_text(json.dumps(dispatch))
    colours = [(u, v, 1 - u, 1.0) for u, v in ((0, 0), (1, 0), (0, 1), (1, 1))]

    def shade(indices):
        return lambda b: tuple(sum(w * colours[i][c] for w, i in zip(b, indices)) for c in range(4))

    corners = [(-1 + 2 * (t & 1), -1 + 2 * (t >> 1), 0.0) for t in range(4)]
    triangles = [([corners[0], corners[1], corners[2]], shade((0, 1, 2))),
                 ([corners[2], corners[1], corners[3]], shade((2, 1, 3)))]
    image, uncertain, _ = rasterize(16, 8, triangles, BLACK)
    done = run_wgc("run", str(path), "--dispatch", str(tmp_path / "d.json"), "--image", str(tmp_path / "g.png"),
                   "-o", str(tmp_path / "out.json"))
    assert done.returncode == 0, done.stderr.decode()
    got = json.loads((tmp_path / "out.json").read_text())["attachments"]["SV_Target0"]["uint8"]
    assert_picture(got, image, uncertain, 16, tolerance=1)
    import png

    width, height, rows, info = png.Reader(filename=str(tmp_path / "g.png")).read()
    assert (width, height, info["alpha"], info["bitdepth"]) == (16, 8, True, 8)
    assert [v for row in rows for v in row] == got


# ------------------------------------------------------------------ the two schedules


ROW = """
struct R { uint3 grid : SV_DispatchGrid; };
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Row(DispatchNodeInputRecord<R> r, uint t : SV_GroupThreadID, uint g : SV_GroupID,
         out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    float2 uv = float2(t & 1, t >> 1);
    v[t].pos = float4(-1 + g * 0.25 + uv.x * 0.125, uv.y - 0.5, 0, 1);
    v[t].color = float4(1, g / 8.0, 0, 1);
    if (t < 2)
        tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""


def _mesh_limits(monkeypatch, max_x: int, max_y: int) -> None:
    """Make every `Graphics` keep its draws within max_x by max_y groups (as a device with those
    mesh-shader limits would)."""
    from wgc.runtime.graphics import Graphics

    init = Graphics.__init__

    def limited(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.max_x, self.max_y = max_x, max_y

    monkeypatch.setattr(Graphics, "__init__", limited)


def _row_picture(groups: int):
    triangles = []
    for g in range(groups):
        lo = (-1 + g * 0.25, -0.5)
        triangles += quad(lo, (lo[0] + 0.125, 0.5), 0.0, flat((1.0, g / 8, 0.0, 1.0)))
    return rasterize(32, 8, triangles, BLACK)


@pytest.mark.usefixtures("mesh_device")
@pytest.mark.parametrize(("max_x", "max_y", "schedule"), [(2, 4, "gpu-driven"), (2, 2, "host-driven")])
def test_draws_within_the_mesh_shader_limits(tmp_path, monkeypatch, max_x, max_y, schedule):
    """VK_EXT_mesh_shader: "groupCountX must be less than or equal to
    VkPhysicalDeviceMeshShaderPropertiesEXT::maxMeshWorkGroupCount[0]" (and the same for Y, Z and
    the product against maxMeshWorkGroupTotalCount).  With limits of 2 x 4 groups, the record's grid
    of 5 (at most [NodeMaxDispatchGrid(8, 1, 1)]) is one indirect draw of (2, 3, 1) groups whose
    sixth group draws nothing; with 2 x 2, the 8 groups the node may ask for do not fit in one draw,
    so the run is host-driven (draws of (2, 2, 1) and (1, 1, 1) groups).  The picture is the same."""
    _mesh_limits(monkeypatch, max_x, max_y)
    result = draw(tmp_path, ROW, {"inputs": [{"entry": "Row", "records": [{"grid": [5, 1, 1]}]}],
                                  "render_target": {"width": 32, "height": 8}}, schedule == "gpu-driven")
    image, uncertain, _ = _row_picture(5)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 32)
    dispatch, = [d for step in result.trace for d in step.dispatches]
    assert (dispatch.groups, dispatch.primitives in (None, 10)) == (5, True)


@pytest.mark.usefixtures("mesh_device")
@pytest.mark.parametrize("name", ["mesh_draw", "mesh_materials"])
def test_drawing_graphs_run_gpu_driven_with_the_host_driven_picture(name, monkeypatch):
    """A graph that draws runs GPU-driven (one submit: the mesh launches are indirect draws from the
    record counters) and draws exactly the picture, and reports exactly the trace (records, groups,
    primitives), of the host-driven schedule."""
    gpu = wgc.run(_sample(f"{name}.hlsl"), _sample(f"{name}.dispatch.json"))
    with monkeypatch.context() as patched:
        _force_host_driven(patched)
        host = wgc.run(_sample(f"{name}.hlsl"), _sample(f"{name}.dispatch.json"))
    assert gpu.ok and host.ok, Renderer().render(list(gpu.diagnostics + host.diagnostics))
    assert (gpu.schedule, host.schedule) == ("gpu-driven", "host-driven")
    assert gpu.attachments == host.attachments
    assert [[d.to_json() for d in step.dispatches] for step in gpu.trace] == \
        [[d.to_json() for d in step.dispatches] for step in host.trace]
    assert any(d.launch == "mesh" for step in gpu.trace for d in step.dispatches)


@pytest.mark.usefixtures("mesh_device")
def test_trace_json_of_a_drawing_graph_says_gpu_driven(tmp_path, run_wgc):
    """`wgc run --trace --trace-format json` of a graph that draws: "schedule": "gpu-driven", and the
    mesh launch's primitives where the device counts them (3 records x 2 triangles)."""
    (tmp_path / "q.hlsl").write_text(QUAD_NODE)
    records = [{"lo": [-1, -1], "hi": [0, 0], "color": list(RED)}] * 3
    (tmp_path / "d.json").write_text(json.dumps({"inputs": [{"entry": "DrawQuad", "records": records}],
                                                 "render_target": {"width": 4, "height": 4}}))
    done = run_wgc("run", "q.hlsl", "--dispatch", "d.json", "--trace", "--trace-format", "json", "-o", "out.json",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    trace = json.loads(done.stderr)
    assert (trace["schedule"], trace["passes"]) == ("gpu-driven", 1)
    dispatch, = [d for step in trace["steps"] for d in step["dispatches"]]
    assert (dispatch["node"], dispatch["records_in"], dispatch["groups"]) == ("DrawQuad", 3, 3)
    assert dispatch.get("primitives", 6) == 6


# ------------------------------------------------------------------ the shipped samples


def _sample(name: str) -> str:
    import os

    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", name)


@pytest.mark.usefixtures("mesh_device")
def test_sample_mesh_draw(tmp_path, gpu_driven):
    """samples/mesh_draw.hlsl with samples/mesh_draw.dispatch.json: Classify sends a batch to
    DrawSprites (grid from the record), which draws a quad per sprite; ShadeSprite discards outside
    the inscribed circle and unpacks the RGBA8 colour."""
    with open(_sample("mesh_draw.dispatch.json")) as f:
        dispatch = json.load(f)
    result = wgc.run(_sample("mesh_draw.hlsl"), _sample("mesh_draw.dispatch.json"))
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.schedule == schedule_of(gpu_driven)
    raw = bytes.fromhex(dispatch["resources"]["t0"]["hex"])
    target = dispatch["render_target"]
    width, height = target["width"], target["height"]
    triangles = []
    for batch in dispatch["inputs"][0]["records"]:
        for s in range(batch["first"], batch["first"] + batch["count"]):
            cx, cy, size, rgba = struct.unpack_from("<fffI", raw, 16 * s)
            colour = tuple(((rgba >> (8 * i)) & 0xFF) / 255 for i in range(4))
            uvs = [(t & 1, t >> 1) for t in range(4)]
            pos = [(cx + (u * 2 - 1) * size * 0.5, cy + (v * 2 - 1) * size * 0.5, 0.0) for u, v in uvs]

            def shade(indices, colour=colour, uvs=uvs):
                def at(b):
                    u = sum(w * uvs[i][0] for w, i in zip(b, indices)) * 2 - 1
                    v = sum(w * uvs[i][1] for w, i in zip(b, indices)) * 2 - 1
                    if abs(u * u + v * v - 1) < 1e-3:
                        return "uncertain"
                    return None if u * u + v * v > 1 else colour
                return at

            triangles += [([pos[0], pos[1], pos[2]], shade((0, 1, 2))), ([pos[2], pos[1], pos[3]], shade((2, 1, 3)))]
    image, uncertain, _ = rasterize(width, height, triangles, tuple(target["colors"][0]["clear"]))
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, width)
    dispatches = [d for step in result.trace for d in step.dispatches]
    assert [(d.node, d.launch) for d in dispatches] == [("Classify", "thread"), ("DrawSprites", "mesh")]


@pytest.mark.usefixtures("mesh_device")
def test_sample_mesh_materials(tmp_path, gpu_driven):
    """samples/mesh_materials.hlsl with samples/mesh_materials.dispatch.json: SortByMaterial bins
    objects into DrawMaterial[0..2] (flat, striped, star fans), shaded by ShadeMaterial."""
    with open(_sample("mesh_materials.dispatch.json")) as f:
        dispatch = json.load(f)
    result = wgc.run(_sample("mesh_materials.hlsl"), _sample("mesh_materials.dispatch.json"))
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.schedule == schedule_of(gpu_driven)
    raw = bytes.fromhex(dispatch["resources"]["t0"]["hex"])
    target = dispatch["render_target"]
    width, height = target["width"], target["height"]
    tints = [(0.9, 0.5, 0.2), (0.2, 0.6, 0.9), (1.0, 1.0, 1.0)]
    triangles = []
    objects = [r["object"] for r in dispatch["inputs"][0]["records"]]
    for material in range(3):        # the levels draw DrawMaterial[0], [1], [2] in that order
        for index in objects:
            columns = struct.unpack_from("<16f", raw, 80 * index)     # float4x4, column-major (HLSL's default)
            m = [[columns[c * 4 + r] for c in range(4)] for r in range(4)]
            kind, sides = struct.unpack_from("<II", raw, 80 * index + 64)
            if min(kind, 2) != material:
                continue
            sides = min(max(sides, 3), 64)

            def transform(p):
                return [sum(m[r][c] * p[c] for c in range(4)) for r in range(4)]

            corners = []
            for k in range(sides):
                angle = 6.2831853 * k / sides
                uv = (math.cos(angle), math.sin(angle))
                pos = transform((uv[0], uv[1], 0, 1))
                if material == 2 and k & 1:
                    centre = transform((0, 0, 0, 1))
                    pos = [(a + b) / 2 for a, b in zip(pos, centre)]
                grey = 0.2 if material == 1 and k & 1 else 1.0
                corners.append(((pos[0], pos[1], pos[2]), (uv[0] * 0.5 + 0.5, uv[1] * 0.5 + 0.5), grey))
            for k in range(sides - 2):
                fan = (corners[0], corners[k + 1], corners[k + 2])

                def shade(b, fan=fan, tint=tints[material]):
                    grey = sum(w * c[2] for w, c in zip(b, fan))
                    v = sum(w * c[1][1] for w, c in zip(b, fan))
                    return tuple(grey * t * (0.75 + 0.25 * v) for t in tint) + (1.0,)

                triangles.append(([c[0] for c in fan], shade))
    image, uncertain, _ = rasterize(width, height, triangles, tuple(target["colors"][0]["clear"]))
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, width, tolerance=2)
    drawn = sorted(d.node for step in result.trace for d in step.dispatches if d.launch == "mesh")
    assert drawn == ["DrawMaterial", "DrawMaterial[1]", "DrawMaterial[2]"]


# ------------------------------------------------------------------ diagnostics (no device needed)


def _diagnostics(tmp_path, source: str, dispatch: dict) -> str:
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = wgc.run(str(path), dispatch)
    assert not result.ok
    return "\n".join(f"{d.code}: {d.message}" for d in result.diagnostics)


@pytest.mark.parametrize(("target", "expected"), [
    ({"width": 0}, "WG0880: \"width\" is a whole number from 1 to 16384"),
    ({"colors": []}, "WG0880: \"colors\" is a list of 1 to 8 colour attachments"),
    ({"colors": [{"format": "R9G9"}]}, "WG0880: unknown colour format 'R9G9'"),
    ({"cull": "sideways"}, "WG0880: \"cull\" is one of 'none', 'front', 'back'"),
    ({"depth": {"test": "maybe"}}, "WG0880: \"test\" is one of 'never', 'less'"),
    ({"colour": []}, "WG0880: unknown member 'colour' of \"render_target\""),
    ({"pixel_shader": "Nope"}, "WG0881: the library has no pixel shader 'Nope'"),
])
def test_render_target_diagnostics(tmp_path, target, expected):
    """A malformed "render_target" is a located diagnostic before any device is opened."""
    text = _diagnostics(tmp_path, QUAD_NODE, {"inputs": [{"entry": "DrawQuad", "records": []}],
                                              "render_target": target})
    assert expected in text


def test_mesh_nodes_without_a_pixel_shader(tmp_path):
    """Mesh nodes draw only with a pixel shader of the library (WG0881)."""
    source = QUAD_NODE[:QUAD_NODE.index('[Shader("pixel")]')]
    text = _diagnostics(tmp_path, source, {"inputs": [{"entry": "DrawQuad", "records": []}]})
    assert "WG0881: the mesh nodes draw, but the library has no pixel shader" in text
    two = QUAD_NODE + QUAD_NODE[QUAD_NODE.index('[Shader("pixel")]'):].replace("Shade(", "Other(")
    text = _diagnostics(tmp_path, two, {"inputs": [{"entry": "DrawQuad", "records": []}]})
    assert "WG0881: the mesh nodes draw, and the library has 2 pixel shaders: name the one to shade with" in text


def test_render_target_without_mesh_nodes(tmp_path):
    source = """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Nothing() {}
"""
    text = _diagnostics(tmp_path, source, {"inputs": [{"entry": "Nothing", "records": [{}]}], "render_target": {}})
    assert "WG0880: the graph has no mesh node, so it draws nothing" in text


def test_image_option_on_a_graph_that_draws_nothing(tmp_path, run_wgc, vulkan_device):
    """--image where the graph has no mesh node: WG0882, exit status 1, no picture."""
    source = tmp_path / "g.hlsl"
    source.write_text("""
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Nothing() {}
""")
    (tmp_path / "d.json").write_text(json.dumps({"inputs": [{"entry": "Nothing", "records": [{}]}]}))
    done = run_wgc("run", str(source), "--dispatch", str(tmp_path / "d.json"), "--image", str(tmp_path / "x.png"))
    assert done.returncode == 1
    assert b"the graph draws nothing" in done.stderr and b"WG0882" in done.stderr
    assert not (tmp_path / "x.png").exists()


def test_png_conversion():
    """Float formats clamp to [0, 1] and round to 8 bits; missing components are G, B 0 and A 1."""
    from wgc.runtime.formats import FORMATS
    from wgc.runtime.png_image import Picture, to_rgba8

    data = struct.pack("<4f", 0.5, -1.0, 2.0, 0.2)
    assert to_rgba8(Picture(1, 1, FORMATS["R32G32B32A32_FLOAT"], data)) == [bytearray([128, 0, 255, 51])]
    assert to_rgba8(Picture(2, 1, FORMATS["R32_UINT"], struct.pack("<2I", 7, 999))) == \
        [bytearray([7, 0, 0, 255, 255, 0, 0, 255])]


CHECKED = """
struct In { uint n; };
struct D { uint n; };
StructuredBuffer<float> B : register(t0);
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Start(ThreadNodeInputRecord<In> e, [MaxRecords(1)] NodeOutput<D> Draw)
{
    ThreadNodeOutputRecords<D> d = Draw.GetThreadNodeOutputRecords(1);
    d.Get().n = e.Get().n;
    d.OutputComplete();
}
[Shader("node")] [NodeLaunch("mesh")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)] [OutputTopology("triangle")]
void Draw(DispatchNodeInputRecord<D> d, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2])
{
    SetMeshOutputCounts(4, 2);
    v[t].pos = float4(float2(t & 1, t >> 1) - 0.5, 0, 1);
    v[t].color = float4(1, 1, B[d.Get().n], 1);
    if (t < 2) tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""


@pytest.mark.usefixtures("mesh_device")
def test_check_and_record_dumps_in_mesh_nodes(tmp_path, gpu_driven):
    """The debugger features of `wgc run` work in mesh nodes as in compute nodes: `--check` reports
    a buffer read past the end inside the mesh node (each of its 4 threads; on either schedule), and
    `--dump-records` (host-driven always) keeps the record the mesh node read at level 1."""
    from wgc.runtime.records import RecordLog
    from wgc.runtime.schedules import DEFAULT_SCHEDULE, DebugRun

    path = tmp_path / "checked.hlsl"
    path.write_text(CHECKED)
    dispatch = {"inputs": [{"entry": "Start", "records": [{"n": 7}]}], "resources": {"t0": {"float": [1, 2]}},
                "render_target": {"width": 4, "height": 4}}
    checked = wgc.run(str(path), dispatch, check=True)
    assert checked.schedule == schedule_of(gpu_driven)
    assert [(r.node, r.level, r.line, r.value, r.limit) for r in checked.checks] == [("Draw", 1, 18, 7, 2)] * 4
    debug = DebugRun(RecordLog(()), None, None, DEFAULT_SCHEDULE, 0)
    dumped = wgc.run(str(path), {**dispatch, "resources": {"t0": {"float": [1, 2, 3, 4, 5, 6, 7, 0.2]}}}, debug=debug)
    assert dumped.ok, Renderer().render(list(dumped.diagnostics))
    levels = json.loads(debug.records.text())["levels"]
    assert [(d["node"], d["records"]) for level in levels for d in level["dispatches"]] == \
        [("Start", [{"n": 7}]), ("Draw", [{"n": 7}])]
    assert dumped.attachments["SV_Target0"]["uint8"][5 * 4:6 * 4] == [255, 255, 51, 255]


@pytest.mark.usefixtures("mesh_device")
@pytest.mark.parametrize("name", ["mesh_draw", "mesh_materials"])
def test_samples_draw_the_same_on_the_amdx_path(name, gpu_driven):
    """The AMDX module of each sample, translated (MeshEXT wrappers reading the record as a
    broadcasting node, the pixel shader kept), draws the emulated path's picture."""
    emulated = wgc.run(_sample(f"{name}.hlsl"), _sample(f"{name}.dispatch.json"))
    amdx = wgc.run(_sample(f"{name}.hlsl"), _sample(f"{name}.dispatch.json"), path="amdx")
    assert amdx.ok and amdx.path == "amdx", Renderer().render(list(amdx.diagnostics))
    assert amdx.schedule == emulated.schedule == schedule_of(gpu_driven)
    assert amdx.attachments == emulated.attachments
    assert [(d.node, d.primitives) for s in amdx.trace for d in s.dispatches] == \
        [(d.node, d.primitives) for s in emulated.trace for d in s.dispatches]


@pytest.mark.usefixtures("mesh_device")
def test_cull_mode_and_front_face(tmp_path, gpu_driven):
    """"cull": "back" with D3D12's default front face (clockwise on screen) drops the quad, whose two
    triangles wind counter-clockwise on screen; "front_face": "counter_clockwise" keeps it."""
    dispatch = {"inputs": [{"entry": "DrawQuad", "records": [{"lo": [-1, -1], "hi": [1, 1], "color": list(RED)}]}],
                "render_target": {"width": 4, "height": 4, "cull": "back"}}
    culled = draw(tmp_path, QUAD_NODE, dispatch, gpu_driven)
    assert culled.attachments["SV_Target0"]["uint8"] == [0, 0, 0, 255] * 16
    dispatch["render_target"]["front_face"] = "counter_clockwise"
    kept = draw(tmp_path, QUAD_NODE, dispatch, gpu_driven)
    assert kept.attachments["SV_Target0"]["uint8"] == [255, 0, 0, 255] * 16


@pytest.mark.usefixtures("mesh_device")
def test_alpha_blend(tmp_path, gpu_driven):
    """"blend": "alpha": colour = src.rgb * src.a + dst.rgb * (1 - src.a), alpha = src.a + dst.a (1 - src.a)."""
    dispatch = {"inputs": [{"entry": "DrawQuad", "records": [{"lo": [-1, -1], "hi": [1, 1],
                                                              "color": [1, 0, 0, 0.6]}]}],
                "render_target": {"width": 2, "height": 2, "blend": "alpha", "colors": [{"clear": [0, 0, 1, 1]}]}}
    result = draw(tmp_path, QUAD_NODE, dispatch, gpu_driven)
    want = unorm8([[(0.6, 0.0, 0.4, 0.6 + 1 * 0.4)] * 2] * 2)
    assert result.attachments["SV_Target0"]["uint8"] == want


@pytest.mark.usefixtures("mesh_device")
def test_pixel_shader_resources_and_two_attachments(tmp_path, gpu_driven):
    """The pixel shader reads a buffer bound like the nodes' resources (by its register), and writes
    two attachments: SV_Target0 (R8G8B8A8_UNORM) and SV_Target1 (R32_UINT, named "ids")."""
    source = """
StructuredBuffer<float4> Palette : register(t1);
struct V { float4 pos : SV_Position; };
struct P { uint id : ID; };
struct R { uint id; };
[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
[OutputTopology("triangle")]
void Ids(DispatchNodeInputRecord<R> r, uint t : SV_GroupThreadID, out vertices V v[4], out indices uint3 tri[2],
         out primitives P prim[2])
{
    SetMeshOutputCounts(4, 2);
    v[t].pos = float4(float2(t & 1, t >> 1) * 2 - 1, 0, 1);
    if (t < 2) {
        tri[t] = t == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);
        prim[t].id = r.Get().id + t;
    }
}
struct Out { float4 color : SV_Target0; uint id : SV_Target1; };
[Shader("pixel")] Out Shade(float4 p : SV_Position, uint id : ID)
{
    Out o;
    o.color = Palette[id];
    o.id = id * 10;
    return o;
}
"""
    dispatch = {"inputs": [{"entry": "Ids", "records": [{"id": 1}]}],
                "resources": {"t1": {"float": [0, 0, 0, 1, 0.2, 0.4, 0.6, 1, 1, 0.8, 0, 1]}},
                "render_target": {"width": 4, "height": 4, "colors": [
                    {}, {"name": "ids", "format": "R32_UINT", "clear": [7, 0, 0, 0]}]}}
    result = draw(tmp_path, source, dispatch, gpu_driven)
    palette = {1: (0.2, 0.4, 0.6, 1.0), 2: (1.0, 0.8, 0.0, 1.0)}
    image, uncertain, _ = rasterize(4, 4, quad((-1, -1), (1, 1), 0.0, flat(palette[1]), flat(palette[2])), BLACK)
    assert_picture(result.attachments["SV_Target0"]["uint8"], image, uncertain, 4)
    ids = [10 if texel[0] == 0.2 else 20 for row in image for texel in row]
    assert result.attachments["ids"] == {"uint32": ids}


RENDERED_HERE = {"WG0880", "WG0881", "WG0882"}
"""The render target's codes, rendered whole below (test_runtime_run's list of every runtime code)."""


def test_render_target_diagnostics_rendered(tmp_path, run_wgc):
    """WG0880 at the JSON value at fault, WG0881 without a place (the library lacks something), WG0882
    for an --image that names no attachment; exit status 1 each."""
    source = tmp_path / "q.hlsl"
    source.write_text(QUAD_NODE)
    (tmp_path / "d.json").write_text('{"inputs": [], "render_target": {"cull": "sideways"}}\n')
    done = run_wgc("run", "q.hlsl", "--dispatch", "d.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "d.json:1:42: error: \"cull\" is one of 'none', 'front', 'back' [WG0880]\n"
        '{"inputs": [], "render_target": {"cull": "sideways"}}\n'
        "                                         ^~~~~~~~~~\n"
        "1 error generated.\n")
    source.write_text(QUAD_NODE[:QUAD_NODE.index('[Shader("pixel")]')])
    (tmp_path / "d.json").write_text('{"inputs": []}\n')
    done = run_wgc("run", "q.hlsl", "--dispatch", "d.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: the mesh nodes draw, but the library has no pixel shader ([Shader(\"pixel\")]) to shade their "
        "primitives [WG0881]\n1 error generated.\n")


@pytest.mark.usefixtures("mesh_device")
def test_image_naming_no_attachment_rendered(tmp_path, run_wgc):
    (tmp_path / "q.hlsl").write_text(QUAD_NODE)
    (tmp_path / "d.json").write_text('{"inputs": [], "render_target": {"width": 2, "height": 2}}\n')
    done = run_wgc("run", "q.hlsl", "--dispatch", "d.json", "--image", "albedo=a.png", "-o", "out.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: --image albedo=a.png: the render target has no colour attachment 'albedo' [WG0882]\n"
        "note: its colour attachments: SV_Target0\n1 error generated.\n")
    assert not (tmp_path / "a.png").exists() and not (tmp_path / "out.json").exists()


def test_prints_in_mesh_nodes(tmp_path, gpu_driven):
    """printf in a mesh node reaches the user as in compute nodes: one line per thread of the one
    group, with the node, level, group, thread and record (values by hand: t = 0..3, n = 1)."""
    path = tmp_path / "printing.hlsl"
    path.write_text(CHECKED.replace("    SetMeshOutputCounts(4, 2);",
                                    '    SetMeshOutputCounts(4, 2);\n    printf("vertex %u of record %u", t, d.Get().n);'))
    dispatch = {"inputs": [{"entry": "Start", "records": [{"n": 1}]}], "resources": {"t0": {"float": [1, 2]}},
                "render_target": {"width": 4, "height": 4}}
    result = wgc.run(str(path), dispatch)
    assert result.ok and result.schedule == schedule_of(gpu_driven), Renderer().render(list(result.diagnostics))
    assert result.prints_text().splitlines() == [
        f"[Draw level 1 group 0 thread {t} record 0] vertex {t} of record 1" for t in range(4)]
