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

NOT_RUNNABLE = {
    "mesh_draw": "a graph that draws (mesh nodes): wgc run refuses it (WG0641)",
    "mesh_materials": "a graph that draws (mesh nodes): wgc run refuses it (WG0641)",
    "inline_raytracing": "needs an acceleration structure, which a dispatch cannot describe (WG0803)",
}


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


EXPECTED = {f.__name__: f for f in (hello, hello_work_graphs, seed_slang_hello, seed_recursion,
                                    seed_max_records_per_node, seed_loops_simple, seed_loops_inner,
                                    seed_loops_nested)}
SAMPLE_NAMES = sorted(p.stem for p in SAMPLES.glob("*.hlsl"))


def test_every_sample_has_a_dispatch_file_or_a_reason():
    have = {p.name.removesuffix(".dispatch.json") for p in SAMPLES.glob("*.dispatch.json")}
    assert sorted(set(SAMPLE_NAMES) - have - set(NOT_RUNNABLE)) == sorted(set(SAMPLE_NAMES) - set(EXPECTED)
                                                                        - set(NOT_RUNNABLE))
    assert have == set(EXPECTED)


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
    expected = EXPECTED[name](dispatch)
    assert close(got, expected), (got, expected)
