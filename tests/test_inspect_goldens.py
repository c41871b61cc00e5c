"""Golden inspect views: for every sample, the JSON model, the text summary, the DOT graph and the
DXIL-style metadata match tests/out/meta/.

A difference fails the test; `pytest --update-goldens` rewrites the files so the change can be
reviewed in the commit.  The DXIL text must also parse back with llvmlite.
"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from wgc import driver
from wgc.diagnostics import Renderer

GOLDEN_DIR = ROOT / "tests" / "out" / "meta"
SAMPLE_PATHS = sorted(SAMPLES.glob("*.hlsl"))
VIEWS = {"json": "json", "text": "txt", "dot": "dot", "dxil": "ll"}


def render(path, view: str) -> str:
    options = driver.Options(input=str(path), emit=view, include_dirs=(str(SAMPLE_INCLUDE),),
                             proposals=sample_proposals(path))
    result = driver.compile(options)
    assert result.ok and not result.diagnostics, Renderer().render(result.diagnostics)
    return result.outputs[view].decode()


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_sample_view_matches_golden(path, view, update_goldens):
    text = render(path, view)
    golden = GOLDEN_DIR / f"{path.stem}.{VIEWS[view]}"
    if update_goldens:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden for {path.name} ({view}): run pytest --update-goldens"
    assert text == golden.read_text(), f"{view} view of {path.name} differs from {golden}"


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_dxil_view_parses_with_llvmlite(path):
    from wgc.metadata.dxil import parse_dxil

    module = parse_dxil(render(path, "dxil"))
    assert "dx.entryPoints" in str(module)


def test_every_golden_has_a_sample():
    stems = {p.stem for p in SAMPLE_PATHS}
    orphans = sorted(g.name for g in GOLDEN_DIR.iterdir() if g.stem not in stems)
    assert not orphans, f"goldens without a sample: {orphans}"


@pytest.mark.parametrize("name", ["seed_loops_simple", "seed_loops_inner", "seed_loops_nested"])
def test_the_loop_proposal_examples_have_depth_3(name):
    model = json.loads(render(SAMPLES / f"{name}.hlsl", "json"))
    assert model["graph"]["depth"] == 3
    assert model["graph"]["depth_limit"] == 48
    assert model["graph"]["loops"], "each example has a loop"


def test_nested_loops_have_an_inner_loop_inside_the_outer_one():
    model = json.loads(render(SAMPLES / "seed_loops_nested.hlsl", "json"))
    loops = {loop["entry"]: loop for loop in model["graph"]["loops"]}
    assert loops["MyInnerLoopEntry"]["parent"] == "MyOuterLoopEntry"
    assert loops["MyInnerLoopEntry"]["members"] == ["MyInnerLoopEntry", "MyLoopTerminal"]
    assert sorted(loops["MyOuterLoopEntry"]["members"]) == ["MyInnerLoopEntry", "MyLoopTerminal", "MyOuterLoopEntry"]
    node_loop = {n["function"]: n["loop"] for n in model["nodes"]}
    assert node_loop["MyLoopTerminal"] == "MyInnerLoopEntry"  # the innermost loop


def test_max_records_per_node_saves_backing_memory():
    model = json.loads(render(SAMPLES / "seed_max_records_per_node.hlsl", "json"))
    graph = model["graph"]
    assert graph["backing_bytes"] < graph["backing_bytes_without_max_records_per_node"]
