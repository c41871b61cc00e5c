"""The level tail's specialization constant (emulation ABI 11, "Specialization constant", "Level
tail"): a compute pipeline is made with the tail folded away, except where the GPU-driven schedule
asks for one with it: for the levels whose tails set up the next one (`_Plan.fused`); each is made
when first bound.

The graph is test_runtime_level_tail.py's mixed graph; its expected buffer is that file's hand
count. Skips, with the reason printed, where there is no Vulkan device.
"""

from __future__ import annotations

import struct

import pytest

from runtime_util import assert_schedule, load
from test_runtime_level_tail import MIXED, MIXED_DISPATCH, mixed_expected

from wgc import emulation_abi as abi

pytestmark = pytest.mark.usefixtures("gpu_fusion")     # lavapipe fuses levels as a GPU does

_OP_DECORATE, _OP_SPEC_CONSTANT_TRUE, _SPEC_ID = 71, 48, 1


def switches(words: bytes) -> list[int]:
    """The SpecIds of the module's `OpSpecConstantTrue`s."""
    code = struct.unpack(f"<{len(words) // 4}I", words)
    at, trues, ids = 5, set(), {}
    while at < len(code):
        count, opcode = code[at] >> 16, code[at] & 0xFFFF
        if opcode == _OP_SPEC_CONSTANT_TRUE:
            trues.add(code[at + 2])
        elif opcode == _OP_DECORATE and code[at + 2] == _SPEC_ID:
            ids[code[at + 1]] = code[at + 3]
        at += count
    return sorted(ids[t] for t in trues if t in ids)


@pytest.fixture
def made(monkeypatch):
    """Every compute pipeline of the emulated modules made meanwhile: (entry point, the tail switch's
    value or None where the runtime gave none, the module's own switches)."""
    from wgc.runtime.device import Device

    found: list[tuple[str, int | None, list[int]]] = []
    original = Device.pipelines

    def recording(self, words, entry_points, layout, specialization=None):
        given = (specialization or {}).get(abi.LEVEL_TAIL_SPEC_ID)
        for name in entry_points:
            found.append((name, None if given is None else int.from_bytes(given, "little"), switches(words)))
        return original(self, words, entry_points, layout, specialization)

    monkeypatch.setattr(Device, "pipelines", recording)
    return found


def graph_pipelines(made: list) -> list[tuple[str, int | None]]:
    """(entry point, switch) of the graph's pipelines (those of a module declaring the switch: not the
    runtime's own meta shaders)."""
    return sorted((name, value) for name, value, declared in made if declared == [abi.LEVEL_TAIL_SPEC_ID])


WITHOUT = [("Even", 0), ("Leaf", 0), ("Odd", 0), ("Root", 0), ("Share", 0)]
"""Every compute entry point of the mixed graph, made with the tail folded away."""
FUSED = [("Even", 1), ("Leaf", 0), ("Odd", 1), ("Root", 1), ("Share", 1)]
"""The mixed graph's GPU-driven run: levels 0 (Root) and 1 (Even, Odd, Share) with the tail, level 2
(Leaf) without."""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_only_levels_whose_tails_set_up_the_next_get_a_tail(device, tmp_path, made, gpu_driven):
    """"A `level` of 0 (host-driven runs, and levels whose next level the runtime sets up itself)
    makes the tail nothing, and so does the specialization constant `LEVEL_TAIL_SPEC_ID` false."
    The mixed graph's levels 0 (Root) and 1 (Even, Odd, Share) set up the next level through their
    tails (fused [True, True, False]), level 2 (Leaf) ends the run: GPU-driven, those four entry
    points get a pipeline with the switch true and Leaf one with it false; host-driven, every entry
    point one with it false. None before the first run; two runs (the second replays the recorded
    commands, making nothing more); the hand count."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    assert switches(module) == [abi.LEVEL_TAIL_SPEC_ID]
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        assert graph_pipelines(made) == []
        session.run_once()
        session.run_once(1)
        assert_schedule(session, gpu_driven, [True, True, False])
        assert session.dump(program.resources[0]) == {"uint32": mixed_expected(2)}
    assert graph_pipelines(made) == (FUSED if gpu_driven else WITHOUT)


def test_the_switch_false_leaves_the_next_levels_unset(device, tmp_path, monkeypatch):
    """The constant does gate the tail: with every pipeline made with it false (the runtime asked for
    no tail), Root's group never sets up level 1, whose launches keep no group, so nothing after
    level 0 runs and the buffer stays zero (Root writes none of it)."""
    from wgc.runtime.pipelines import GraphPipelines
    from wgc.runtime.run import Session

    original = GraphPipelines.pipeline
    monkeypatch.setattr(GraphPipelines, "pipeline", lambda self, entry_point, tail=False: original(self, entry_point))
    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    with Session(device, module, program, described) as session:
        session.run_once()
        assert_schedule(session, True, [True, True, False])
        assert session.dump(program.resources[0]) == {"uint32": [0] * 100}


def test_the_amdx_path_declares_the_switch_and_gets_the_same_pipelines(tmp_path, made):
    """The translation of the AMDX module (wgc/spirv_in/translate.py) declares the same constant,
    and its run makes the same pipelines as the emulated module's: the tail only for the fused
    levels' entry points; the hand count."""
    import json

    import wgc
    from wgc.diagnostics import Renderer

    path = tmp_path / "graph.hlsl"
    path.write_text(MIXED)
    result = wgc.run(str(path), json.loads(MIXED_DISPATCH), path="amdx")
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.schedule == "gpu-driven"
    assert result.resources == {"u0": {"uint32": mixed_expected(1)}}
    assert graph_pipelines(made) == FUSED
