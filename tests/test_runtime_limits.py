"""Device limits that change results (`wgc run`): lavapipe's loop budget, a [WaveSize] the
device's subgroup size does not meet, and `--time` on a device that cannot time. Mesa's llvmpipe leaves
every loop of an invocation after 65,535 iterations, one budget for all the loops of a shader
(gallivm's LP_MAX_TGSI_LOOP_ITERATIONS); the emulated module counts the iterations
(`wgc.emulation_abi`, "Loop budget") and `wgc run` warns once (WG0832) where a device that stops
there ran a node whose invocation reached the budget.

Skips, with the reason, where there is no Vulkan device, or the device is not lavapipe.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import wgc
from wgc.diagnostics import Renderer

RENDERED_HERE = {"WG0832", "WG0833", "WG0834"}
"""The runtime codes whose rendered text a test here checks (test_runtime_run gathers them)."""

NEST = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Size { uint n; };
[Shader("node")] [NodeLaunch("thread")]
void Nest(ThreadNodeInputRecord<Size> size)
{
    uint total = 0;
    for (uint i = 0; i < size.Get().n; i++)
        for (uint j = 0; j < size.Get().n; j++)
            total += 1;
    Out[0] = total;
}
"""


@pytest.fixture(scope="module")
def lavapipe(vulkan_device):
    from wgc.runtime.device import list_devices

    names = [d.name for d in list_devices()]
    if not any("llvmpipe" in n for n in names):
        pytest.skip(f"the loop budget is lavapipe's; devices here: {names}")


def run_nest(tmp_path, n: int):
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST)
    return wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": n}]}],
                               "resources": {"u0": {"bytes": 4}}}, device="llvmpipe")


@pytest.mark.usefixtures("lavapipe")
def test_a_loop_nest_past_the_budget_is_reported(tmp_path) -> None:
    """300 x 300: llvmpipe counts each run of a loop's header (the exiting test too), so it stops
    after 217 outer iterations of 302 counted runs (65,534) and one more: 217 * 300 + 1 = 65,101
    additions instead of 90,000; wgc says so."""
    result = run_nest(tmp_path, 300)
    assert result.ok
    assert result.resources == {"u0": {"uint32": [217 * 300 + 1]}}
    assert Renderer().render(list(result.diagnostics)) == (
        f"warning: an invocation of 'Nest' ran 65,535 loop iterations: {result.device} leaves every loop of an "
        "invocation after that many (one budget for all its loops), so the results may be wrong [WG0832] "
        "[-Wdevice-limits]\nnote: run on another Vulkan device (--device), or split the work over more "
        "invocations or records\n1 warning generated.\n")


@pytest.mark.usefixtures("lavapipe")
def test_a_counted_loop_nest_past_the_budget_is_reported(tmp_path) -> None:
    """The same nest with constant bounds (counted at each loop's exit, `emulated_loops`): llvmpipe
    still stops it at 65,101 additions, and wgc still says so."""
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST.replace("< size.Get().n", "< 300"))
    result = wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": 0}]}],
                                 "resources": {"u0": {"bytes": 4}}}, device="llvmpipe")
    assert result.resources == {"u0": {"uint32": [217 * 300 + 1]}}
    assert [d.code for d in result.diagnostics] == ["WG0832"]


@pytest.mark.usefixtures("lavapipe")
def test_a_loop_nest_within_the_budget_is_silent(tmp_path) -> None:
    """200 x 200 is 200 * (1 + 201) = 40,400 header runs: the result is right and nothing is said."""
    result = run_nest(tmp_path, 200)
    assert result.ok and result.diagnostics == ()
    assert result.resources == {"u0": {"uint32": [40000]}}


def test_other_devices_ignore_the_budget() -> None:
    """The flag means nothing on a device that does not stop loops (a GPU): no warning."""
    from wgc.runtime.run import _device_limits

    session = SimpleNamespace(scheduler=SimpleNamespace(loop_budget=["Nest"]), timing_asked=False, timing=None)
    assert _device_limits(SimpleNamespace(info=SimpleNamespace(name="NVIDIA H200")), session) == []
    (warning,) = _device_limits(SimpleNamespace(info=SimpleNamespace(name="llvmpipe (LLVM 15)")), session)
    assert warning.code == "WG0832"


@pytest.mark.usefixtures("vulkan_device")
def test_time_on_a_device_without_timestamps_says_so(tmp_path, monkeypatch) -> None:
    """A device without timestampComputeAndGraphics (or timestamp bits on its compute queue)
    cannot time: the run goes on untimed and WG0833 says why, once."""
    from wgc.runtime import timing

    monkeypatch.setattr(timing.Timestamps, "create", staticmethod(lambda device: None))
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST)
    result = wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": 3}]}],
                                 "resources": {"u0": {"bytes": 4}}}, timing=True)
    assert result.ok and result.resources == {"u0": {"uint32": [9]}}
    assert result.gpu_time() is None
    assert Renderer().render(list(result.diagnostics)) == (
        f"warning: --time: {result.device} cannot time compute work (it lacks timestampComputeAndGraphics or "
        "timestamp bits on its compute queue), so the run is not timed [WG0833] [-Wdevice-limits]\n"
        "1 warning generated.\n")


WAVE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Start { uint unused; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(128, 1, 1)] WAVE_SIZE
void Lanes(DispatchNodeInputRecord<Start> start, uint thread : SV_GroupIndex)
{
    if (thread == 0) Out[0] = WaveGetLaneCount();
}
"""


@pytest.mark.usefixtures("vulkan_device")
def test_a_wave_size_the_device_does_not_run_is_reported(tmp_path) -> None:
    """D3D12 runs a [WaveSize(N)] shader with waves of N lanes (or refuses it); wgc run requires no
    subgroup size, so where the device's differs, WaveGetLaneCount() is the device's and WG0834 says
    so; a range that holds it is silent."""
    from wgc.runtime.device import Device

    with Device() as device:
        size, name = device.subgroup_size, device.info.name
    other = 128 if size != 128 else 4
    path = tmp_path / "wave.hlsl"
    path.write_text(WAVE.replace("WAVE_SIZE", f"[WaveSize({other})]"))
    dispatch = {"inputs": [{"entry": "Lanes", "records": [{"unused": 0}]}], "resources": {"u0": {"bytes": 4}}}
    result = wgc.run(str(path), dispatch)
    assert result.ok and result.resources == {"u0": {"uint32": [size]}}
    assert Renderer().render(list(result.diagnostics)) == (
        f"warning: node 'Lanes' declares [WaveSize({other})], but {name} runs it with subgroups of {size}: its wave "
        "operations (WaveActiveSum, WaveGetLaneCount, ...) may give other results than on a device that honours "
        "the attribute [WG0834] [-Wdevice-limits]\n1 warning generated.\n")
    path.write_text(WAVE.replace("WAVE_SIZE", "[WaveSize(4, 128)]"))
    result = wgc.run(str(path), dispatch)
    assert result.ok and result.diagnostics == ()
