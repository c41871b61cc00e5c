"""Every sample runs with the dispatch file beside it (`samples/<name>.dispatch.json`), as a pip user
runs it after `wgc samples`: `wgc run [-fwork-graph-proposals] -I include NAME.hlsl --dispatch
NAME.dispatch.json`. Each expected value is computed here, in a few lines of Python that follow the
sample's HLSL (float arithmetic rounded to 32 bits where the shader's rounding matters).
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest

from conftest import SAMPLES, sample_proposals



def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def hello(_dispatch: dict) -> dict:
    """Classify: item i (0..199) goes to bin (i * 2654435761 mod 2^32) >> 28."""
    bins = [0] * 16
    for item in range(200):
        bins[((item * 2654435761) & 0xFFFFFFFF) >> 28] += 1
    return {"u0": {"uint32": bins}}


def hello_work_graphs(dispatch: dict) -> dict:
    """firstNode: a group of 2 threads per grid cell, each sends incrementValue = tid * 2 + (tid % 2) + 1
    for its record; secondNode adds it to UAV[record]; thirdNode counts records: UAV[4 + record]."""
    uav = [0] * 8
    for record in dispatch["inputs"][0]["records"]:
        for tid in range(2 * record["gridSize"]):
            uav[record["recordIndex"]] += tid * 2 + tid % 2 + 1
            uav[4 + record["recordIndex"]] += 1
    return {"u0": {"uint32": uav}}


def seed_slang_hello(_dispatch: dict) -> dict:
    return {"u0": {"int32": [123456] * 64}}       # an 8x8 group writes myData to each cell


def seed_recursion(dispatch: dict) -> dict:
    """The range is split until leaves of at most 64; each leaf doubles its elements."""
    count = dispatch["inputs"][0]["records"][0]["count"]
    return {"u1": {"float": [2.0 * x for x in dispatch["resources"]["t0"]["float"][:count]]}}


def seed_max_records_per_node(_dispatch: dict) -> dict:
    """Only consumers 0, 1, 2 and 63 exist; thread i sends value i * i + 1 to consumer i."""
    results = [0] * 64
    results[0] = 0 * 0 + 1
    results[1] = (1 * 1 + 1) * 2
    results[2] = int(f"{2 * 2 + 1:032b}"[::-1], 2)            # reversebits
    results[63] = max(0, 63 * 63 + 1)                          # InterlockedMax into 0
    return {"u0": {"uint32": results}}


def seed_loops_simple(dispatch: dict) -> dict:
    """Newton's iteration x = (x + a / x) / 2 until |x*x - a| <= 1e-5 * a, at most 16 iterations."""
    results = [0.0] * 4
    for record in dispatch["inputs"][0]["records"]:
        a, x = f32(record["a"]), f32(record["x"])
        for iteration in range(16):
            x = f32(0.5 * f32(x + f32(a / max(x, f32(1e-5)))))
            if abs(f32(x * x) - a) <= f32(f32(1e-5) * a) or iteration + 1 >= 16:
                break
        results[record["id"]] = x
    return {"u0": {"float": results}}


def seed_loops_inner(dispatch: dict) -> dict:
    """32 steps of the logistic map v = r * v * (1 - v)."""
    values = [0.0] * 4
    for record in dispatch["inputs"][0]["records"]:
        r, v = record["rate"], record["value"]
        for _ in range(32):
            v = f32(f32(r * v) * f32(1.0 - v))
        values[record["id"]] = v
    return {"u0": {"float": values}}


def seed_loops_nested(dispatch: dict) -> dict:
    """Table t, row r < rows, column c < columns: cell (t * 8 + r) * 8 + c holds (r << 16) | c."""
    table = [0] * 128
    for record in dispatch["inputs"][0]["records"]:
        for row in range(min(record["rows"], 8)):
            for column in range(min(record["columns"], 8)):
                table[(record["table"] * 8 + row) * 8 + column] = (row << 16) | column
    return {"u0": {"uint32": table}}


def material_dispatch(dispatch: dict) -> dict:
    """16x8 pixels, two 8x8 tiles: the left one all sky (material 0: no shading, one sky tile), the
    right one material 1 (opaque Lambert) in columns 8-11 and material 7 (no node: the magenta
    fallback) in 12-15. Normal (0, 1, 0) = the sun's direction, intensity 1, no ambient: Lambert
    gives the albedo itself. DebugMode 1 names DebugCountTiles: each of the 2 groups counts 1."""
    resources = dispatch["resources"]
    width, height = resources["t0"]["width"], resources["t0"]["height"]
    ids, albedo = resources["t0"]["uint32"], resources["t1"]["float"]
    color = [0.0] * (width * height * 4)
    for pixel, material in enumerate(ids):
        if material == 1:
            color[pixel * 4:pixel * 4 + 4] = [*albedo[pixel * 4:pixel * 4 + 3], 1.0]
        elif material != 0:
            color[pixel * 4:pixel * 4 + 4] = [1.0, 0.0, 1.0, 1.0]
    sky_tiles = sum(all(ids[y * width + x] == 0 for y in range(8) for x in range(tx, tx + 8))
                    for tx in range(0, width, 8))
    return {"u3": {"float": color}, "u4": {"uint32": [sky_tiles, width // 8]}}


def recursive_tree(dispatch: dict) -> dict:
    """The quadtree walk of the sample in Python: a visible tile is split while its centre is
    closer to the camera than tile size * LOD factor and levels remain (8 below the roots); every
    tile not split is a leaf (VisibleTiles in any order, VisibleCount, the histogram of levels)."""
    values = struct.unpack("<24f3f3f2f", bytes.fromhex(dispatch["resources"]["b0"]["hex"]))
    planes = [values[i:i + 4] for i in range(0, 24, 4)]
    camera, (terrain, max_height, lod) = values[24:27], values[27:30]
    leaves = []

    def visible(level: int, x: int, y: int) -> bool:
        size = terrain / (4 << level)
        low, high = (x * size, 0.0, y * size), (x * size + size, max_height, y * size + size)
        return all(sum(p[i] * (high[i] if p[i] >= 0 else low[i]) for i in range(3)) + p[3] >= 0 for p in planes)

    def visit(level: int, x: int, y: int, remaining: int) -> None:
        size = terrain / (4 << level)
        distance = math.dist(((x + 0.5) * size, 0.5 * max_height, (y + 0.5) * size), camera)
        if remaining > 0 and distance < size * lod:
            for c in range(4):
                if visible(level + 1, x * 2 + (c & 1), y * 2 + (c >> 1)):
                    visit(level + 1, x * 2 + (c & 1), y * 2 + (c >> 1), remaining - 1)
        else:
            leaves.append((level, x, y, 0))

    for y in range(4):
        for x in range(4):
            if visible(0, x, y):
                visit(0, x, y, 8)
    slots = dispatch["resources"]["u1"]["bytes"] // 16
    histogram = [sum(leaf[0] == level for leaf in leaves) for level in range(16)]
    return {"u1": {"uint32": [v for leaf in sorted(leaves + [(0, 0, 0, 0)] * (slots - len(leaves))) for v in leaf]},
            "u2": {"uint32": [len(leaves)]}, "u3": {"uint32": histogram}}


def loop_particles(dispatch: dict) -> dict:
    """Semi-implicit Euler sub-steps of at most 1/240 s (gravity, drag, no turbulence) until the frame's
    time is used up (< 1e-5 s left), each followed by the collision with the floor plane y >= 0
    (pushed back, the normal velocity reflected with restitution); the other planes (normal 0, offset
    1) never collide. In float32, step by step as the shader rounds."""
    constants = struct.unpack("<16f4f", bytes.fromhex(dispatch["resources"]["b0"]["hex"]))
    drag, restitution = f32(constants[16]), f32(constants[17])
    record = dispatch["inputs"][0]["records"][0]
    floats = dispatch["resources"]["t1"]["float"]
    states, substeps = [], [0] * 16
    for index in range(record["particleCount"]):
        p, v = [f32(x) for x in floats[index * 8:index * 8 + 3]], [f32(x) for x in floats[index * 8 + 4:index * 8 + 7]]
        time_left = f32(record["frameTime"])
        for substep in range(16):
            dt = time_left if substep + 1 >= 16 else min(time_left, f32(1.0 / 240.0))
            gravity = (0.0, f32(-9.81), 0.0)
            v = [f32(v[i] + f32(f32(gravity[i] - f32(drag * v[i])) * dt)) for i in range(3)]
            p = [f32(p[i] + f32(v[i] * dt)) for i in range(3)]
            time_left = f32(time_left - dt)
            if p[1] < 0.0:                                   # the floor: depth = y
                p[1] = 0.0
                if v[1] < 0.0:
                    v[1] = f32(v[1] - f32(f32(1.0 + restitution) * v[1]))
            substeps[substep] += 1
            if not (time_left > f32(1e-5) and substep + 1 < 16):
                break
        states += [*p, 0.0, *v, 0.0]
    return {"u2": {"float": states}, "u3": {"uint32": substeps}}


FLOAT_VIEW = {("loop_particles", "u2")}
"""Resources of structs of floats that `wgc run` dumps as uint32 words: compared as float32."""
UNORDERED = {("recursive_tree", "u1"): 4}
"""Resources written in an order the device chooses: compared as sorted groups of N values."""

EXPECTED = {f.__name__: f for f in (hello, hello_work_graphs, seed_slang_hello, seed_recursion,
                                    seed_max_records_per_node, seed_loops_simple, seed_loops_inner,
                                    seed_loops_nested, material_dispatch, recursive_tree, loop_particles)}
CHECKED_APART = {"spec_constant_attributes", "syntax_tour", "mesh_draw", "mesh_materials"}
"""Samples with a dispatch file whose result a test of its own checks (below; the pictures of the
graphs that draw: tests/test_runtime_mesh.py)."""
SAMPLE_NAMES = sorted(p.stem for p in SAMPLES.glob("*.hlsl"))


def test_every_sample_has_a_dispatch_file():
    have = {p.name.removesuffix(".dispatch.json") for p in SAMPLES.glob("*.dispatch.json")}
    assert sorted(set(SAMPLE_NAMES) - have) == []
    assert have == set(EXPECTED) | CHECKED_APART


def close(got: dict, expected: dict) -> bool:
    if set(got) != set(expected):
        return False
    for name, typed in expected.items():
        (kind, values), = typed.items()
        if list(got[name]) != [kind] or len(got[name][kind]) != len(values):
            return False
        if kind == "float":
            if not all(math.isclose(g, e, rel_tol=1e-5, abs_tol=1e-6) for g, e in zip(got[name][kind], values)):
                return False
        elif got[name][kind] != values:
            return False
    return True


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_sample_runs_with_its_dispatch_file(name, run_wgc, vulkan_device):
    dispatch_path = SAMPLES / f"{name}.dispatch.json"
    dispatch = json.loads(dispatch_path.read_text())
    flags = ("-fwork-graph-proposals",) if sample_proposals(Path(f"{name}.hlsl")) else ()
    done = run_wgc("run", *flags, "-I", "include", f"{name}.hlsl",
                   "--dispatch", dispatch_path.name, cwd=SAMPLES)
    assert done.returncode == 0, done.stderr.decode()
    got = json.loads(done.stdout)["resources"]
    for sample, resource in FLOAT_VIEW:
        if sample == name:
            words = got[resource]["uint32"]
            got[resource] = {"float": list(struct.unpack(f"<{len(words)}f", struct.pack(f"<{len(words)}I", *words)))}
    for (sample, resource), size in UNORDERED.items():
        if sample == name:
            (kind, values), = got[resource].items()
            got[resource] = {kind: [v for group in sorted(zip(*[iter(values)] * size)) for v in group]}
    expected = EXPECTED[name](dispatch)
    assert close(got, expected), (got, expected)


def test_spec_constant_attributes_runs_with_its_specialization(run_wgc, vulkan_device):
    """The dispatch specializes MaxDrawsPerGroup to 64, the records a 64-thread Classify group sends
    (the default 32 is WG0805). 8 groups x 64 threads send 512 draws, all to material 0: drawCounts[1]
    = 512. Each group's Chunks record (grid 2: 128 threads) gets `first` from whichever of its threads
    wrote last, 64 g + k with k in 0..63: drawCounts[0] = sum over g of (128 first_g + 0 + 1 + ... + 127)
    = 294400 + 128 * (k_0 + ... + k_7)."""
    done = run_wgc("run", "-I", "include", "spec_constant_attributes.hlsl", "--dispatch",
                   "spec_constant_attributes.dispatch.json", cwd=SAMPLES)
    assert done.returncode == 0, done.stderr.decode()
    total, draws = json.loads(done.stdout)["resources"]["u0"]["uint32"]
    assert draws == 512
    base = sum(128 * 64 * g + sum(range(128)) for g in range(8))
    assert base == 294400
    assert (total - base) % 128 == 0 and 0 <= (total - base) // 128 <= 8 * 63


def test_syntax_tour_runs_and_counts_its_groups(run_wgc, vulkan_device):
    """One TourEntry record: 2 groups of 32 threads, 40 items. g_TourCounters: [1] the active
    threads, 32 + 8 = 40; [2] TourEmpty's records, 2 per entry group = 4; [5] TourShared's groups,
    TOUR_SHARED_GROUPS = 4 per entry group = 8; [4] the odd dispatch thread IDs of TourShared's
    4 x 64 threads, 128 per entry group = 256; [0] the last TourShared group of a dispatch writes
    the record's total (0) plus [4] as it then is: at least its own dispatch's 128, at most 256."""
    done = run_wgc("run", "-I", "include", "syntax_tour.hlsl", "--dispatch", "syntax_tour.dispatch.json",
                   "--dump", "g_TourCounters", cwd=SAMPLES)
    assert done.returncode == 0, done.stderr.decode()
    counters = json.loads(done.stdout)["resources"]["g_TourCounters"]["uint32"]
    assert counters[1:3] == [40, 4] and counters[4:6] == [256, 8] and counters[6:] == [0, 0]
    assert 128 <= counters[0] <= 256
