"""Node-array OutputParameters read once, before the entry prologue returns (wgc/spirv/emulated.py
`_hoist_arrays`, issue 31 on lavapipe): a producer with a single output, a node array of one
element, one of six, an empty-record array and, one level down, a thread-launch producer on an
array of two, so that each array's `slots`, `count` and stripe come from its own OutputParameter.

Each buffer is computed by a few lines of Python from the graph's meaning; the graph runs under
both schedules, with stripes forced (each element split in four: the stripe read in the prologue),
against the AMDX path (which reads its parameters its own way), and on 16-lane subgroups (the
per-group counts and the subgroup loop, where 8 lanes add per invocation).  Skips, with the reason
printed, where there is no Vulkan device.
"""

from __future__ import annotations

import pytest
from runtime_util import all_paths_on_sixteen_lanes

from amdx_paths import assert_amdx_agrees
from test_runtime_placement import run, session_run

device = pytest.mark.usefixtures("vulkan_device")

SEVERAL = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(16, 1, 1)]
void Fan(DispatchNodeInputRecord<Item> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
         [MaxRecords(16)] NodeOutput<Item> Solo,
         [MaxRecords(16)] [NodeArraySize(1)] NodeOutputArray<Item> One,
         [MaxRecords(32)] [NodeArraySize(6)] NodeOutputArray<Item> Many,
         [MaxRecords(16)] [NodeArraySize(3)] EmptyNodeOutputArray Ticks)
{
    uint i = seed.Get().v + gid.x * 16 + gi;
    ThreadNodeOutputRecords<Item> m = Many[(i * 5) % 6].GetThreadNodeOutputRecords(2);
    m[0].v = 2 * i;
    m[1].v = 2 * i + 1;
    m.OutputComplete();
    ThreadNodeOutputRecords<Item> o = One[0].GetThreadNodeOutputRecords(i % 2);
    if (i % 2 == 1)
        o.Get().v = i;
    o.OutputComplete();
    Ticks[i % 3].ThreadIncrementOutputCount(1);
    ThreadNodeOutputRecords<Item> s = Solo.GetThreadNodeOutputRecords(1);
    s.Get().v = i;
    s.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Solo(ThreadNodeInputRecord<Item> r, [MaxRecords(1)] [NodeArraySize(2)] NodeOutputArray<Item> Pair)
{
    ThreadNodeOutputRecords<Item> p = Pair[r.Get().v % 2].GetThreadNodeOutputRecords(1);
    p.Get().v = r.Get().v;
    p.OutputComplete();
}
""" + "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Many", {k})]
void Many{k}(ThreadNodeInputRecord<Item> r) {{ InterlockedAdd(Out[r.Get().v], {k + 1}); }}
""" for k in range(6)) + """[Shader("node")] [NodeLaunch("thread")] [NodeID("One", 0)]
void One0(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[192 + r.Get().v], 100); }
""" + "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Pair", {k})]
void Pair{k}(ThreadNodeInputRecord<Item> r) {{ InterlockedAdd(Out[288 + r.Get().v], {(k + 1) * 1000}); }}
""" for k in range(2)) + "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Ticks", {k})]
void Tick{k}() {{ InterlockedAdd(Out[384 + {k}], 1); }}
""" for k in range(3))

DISPATCH = {"inputs": [{"entry": "Fan", "records": [{"v": 0}, {"v": 48}]}], "resources": {"u0": {"bytes": 4 * 387}}}


def expected() -> list[int]:
    """Invocation i (0..95: two seeds x 3 groups x 16) sends 2i and 2i + 1 to Many[5i % 6], which adds
    k + 1; odd i sends i to One[0] (+100 at 192 + i); i goes to Solo, which sends it to Pair[i % 2]
    (+1000 (k + 1) at 288 + i); each i ticks Ticks[i % 3] once (+1 at 384 + k)."""
    out = [0] * 387
    for i in range(96):
        k = (5 * i) % 6
        out[2 * i] += k + 1
        out[2 * i + 1] += k + 1
        if i % 2:
            out[192 + i] += 100
        out[288 + i] += (i % 2 + 1) * 1000
        out[384 + i % 3] += 1
    return out


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_several_arrays_read_their_own_parameters(tmp_path, gpu_driven):
    out, steps = session_run(tmp_path, SEVERAL, DISPATCH, gpu_driven)
    assert out == expected()
    made = steps[0].dispatches[0].records_out
    assert {k: v for k, v in made.items() if k.startswith("Many[")} == {f"Many[{k}]": 32 for k in range(6)}
    assert made["One[0]"] == 48 and made["Solo"] == 96


@device
def test_several_arrays_in_stripes(tmp_path, monkeypatch):
    """Stripes forced on lavapipe (`gpu_schedule.STRIPE_GROUPS` 1, 4 stripes): each group reads its
    stripe `(flat & stripe_mask) * count` in the prologue."""
    from wgc.runtime import gpu_schedule

    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setattr(gpu_schedule, "STRIPES", 4)
    monkeypatch.setattr(gpu_schedule, "UNSTRIPED_KINDS", frozenset())
    out, _ = session_run(tmp_path, SEVERAL, DISPATCH, True)
    assert out == expected()


@device
def test_several_arrays_agree_with_amdx(tmp_path):
    emulated = run(tmp_path, SEVERAL, DISPATCH)
    assert emulated.resources["u0"]["uint32"] == expected()
    assert assert_amdx_agrees(str(tmp_path / "graph.hlsl"), DISPATCH, emulated) is not None


@device
def test_several_arrays_on_sixteen_lanes(tmp_path):
    """16-lane subgroups (`LP_NATIVE_VECTOR_WIDTH=512`): Many is counted per group in Workgroup
    memory, Pair by the subgroup loop; both schedules and the AMDX path give the same buffer."""
    found = all_paths_on_sixteen_lanes(tmp_path, SEVERAL, DISPATCH)
    assert found["gpu"] == expected() and found["host"] == expected() and found["amdx"] == expected()
