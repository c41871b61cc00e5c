"""Device limits that change results (`wgc run`): a loop budget, a [WaveSize] the device's
subgroup size does not meet, and `--time` on a device that cannot time. Mesa's llvmpipe up to 22.x
leaves every loop of an invocation after 65,535 iterations, one budget for all the loops of a shader
(gallivm's LP_MAX_TGSI_LOOP_ITERATIONS); Mesa 25's does not. The emulated module counts the
iterations (`wgc.emulation_abi`, "Loop budget") and `wgc run` warns once (WG0832) where an
invocation reached the budget on a device that a probe (wgc/runtime/loop_probe.py) shows to stop
loops early.

The loop-nest tests run on lavapipe (the numbers are llvmpipe's way of counting) and hold on both
Mesas: the expectation follows from the probe's verdict, which a test checks against the driver's
version. Skips, with the reason, where there is no Vulkan device, or the device is not lavapipe.
"""

from __future__ import annotations

import re
import struct
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

CAPPED_NEST = 217 * 300 + 1
"""300 x 300 on a device that stops loops: llvmpipe counts each run of a loop's header (the exiting
test too), so it stops after 217 outer iterations of 302 counted runs (65,534) and one more:
217 * 300 + 1 = 65,101 additions instead of 90,000."""


@pytest.fixture(scope="module")
def lavapipe(vulkan_device):
    """The probe's verdict on lavapipe: the iterations after which it leaves loops, or None."""
    from wgc.runtime.device import Device, list_devices
    from wgc.runtime.loop_probe import loop_cap

    names = [d.name for d in list_devices()]
    if not any("llvmpipe" in n for n in names):
        pytest.skip(f"the loop budget is lavapipe's; devices here: {names}")
    with Device("llvmpipe") as device:
        return SimpleNamespace(cap=loop_cap(device), driver=device.driver)


def test_the_probe_words_are_its_assembly():
    from wgc.runtime import loop_probe
    from wgc.spirv.tools import assemble, validate

    words = assemble(loop_probe.ASSEMBLY)
    assert struct.pack(f"<{len(words)}I", *words) == loop_probe.module()
    assert validate(loop_probe.module()) == []


def test_the_probe_agrees_with_the_mesa_version(lavapipe) -> None:
    """Mesa 22.x's llvmpipe leaves the probe's loop of 100,000 iterations after 65,535 of them
    (gallivm's loop limiter, LP_MAX_TGSI_LOOP_ITERATIONS = 65535); Mesa 25.x runs all 100,000."""
    from wgc.runtime.loop_probe import ITERATIONS

    assert ITERATIONS > 65535
    found = re.search(r"Mesa (\d+)\.", lavapipe.driver)
    assert found, f"no Mesa version in the driver's info: {lavapipe.driver!r}"
    major = int(found.group(1))
    if major <= 22:
        assert lavapipe.cap == 65535
    elif major >= 25:
        assert lavapipe.cap is None
    else:
        pytest.skip(f"{lavapipe.driver}: which of Mesa 23 and 24 stop loops is not known here")


def test_the_probe_runs_once_per_device(monkeypatch) -> None:
    """The verdict is kept on the device object: a second question does not run the probe again."""
    from wgc.runtime import loop_probe

    runs = []
    monkeypatch.setattr(loop_probe, "_probe", lambda device: runs.append(device) or 65535)
    device = SimpleNamespace(probes={})
    assert loop_probe.loop_cap(device) == 65535 and loop_probe.loop_cap(device) == 65535
    assert runs == [device]


def run_nest(tmp_path, n: int):
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST)
    return wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": n}]}],
                               "resources": {"u0": {"bytes": 4}}}, device="llvmpipe")


def test_a_loop_nest_past_the_budget_is_reported(tmp_path, lavapipe) -> None:
    """300 x 300: where the probe shows that the device stops loops, 65,101 additions
    (`CAPPED_NEST`) and wgc says so; where it does not (Mesa 25), 90,000 and nothing is said."""
    result = run_nest(tmp_path, 300)
    assert result.ok
    if lavapipe.cap is None:
        assert result.resources == {"u0": {"uint32": [300 * 300]}}
        assert result.diagnostics == ()
        return
    assert result.resources == {"u0": {"uint32": [CAPPED_NEST]}}
    assert Renderer().render(list(result.diagnostics)) == (
        f"warning: an invocation of 'Nest' ran 65,535 loop iterations: {result.device} leaves every loop of an "
        "invocation after that many (one budget for all its loops), so the results may be wrong [WG0832] "
        "[-Wdevice-limits]\nnote: run on another Vulkan device (--device), or split the work over more "
        "invocations or records\n1 warning generated.\n")


def test_a_counted_loop_nest_past_the_budget_is_reported(tmp_path, lavapipe) -> None:
    """The same nest with constant bounds (counted at each loop's exit, `emulated_loops`): a device
    that stops loops still stops it at 65,101 additions, and wgc still says so; one that does not
    gives 90,000, silently."""
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST.replace("< size.Get().n", "< 300"))
    result = wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": 0}]}],
                                 "resources": {"u0": {"bytes": 4}}}, device="llvmpipe")
    capped = lavapipe.cap is not None
    assert result.resources == {"u0": {"uint32": [CAPPED_NEST if capped else 300 * 300]}}
    assert [d.code for d in result.diagnostics] == (["WG0832"] if capped else [])


def test_a_loop_nest_within_the_budget_is_silent(tmp_path, lavapipe) -> None:
    """200 x 200 is 200 * (1 + 201) = 40,400 header runs: the result is right and nothing is said."""
    result = run_nest(tmp_path, 200)
    assert result.ok and result.diagnostics == ()
    assert result.resources == {"u0": {"uint32": [40000]}}


def test_the_warning_follows_the_probe_not_the_name() -> None:
    """The budget flag means something only on a device whose probe shows a cap: no warning on
    one that runs the loop through, whatever its name (Mesa 25's llvmpipe, a GPU); a warning on one
    that stops it (Mesa 22's llvmpipe, or any other)."""
    from wgc.runtime.run import _device_limits

    session = SimpleNamespace(scheduler=SimpleNamespace(loop_budget=["Nest"]), timing_asked=False, timing=None,
                              program=SimpleNamespace(nodes=[]))

    def device(name: str, cap: int | None) -> SimpleNamespace:
        return SimpleNamespace(info=SimpleNamespace(name=name), probes={"loop_cap": cap})

    assert _device_limits(device("NVIDIA H200", None), session) == []
    assert _device_limits(device("llvmpipe (LLVM 15.0.6, 256 bits)", None), session) == []
    (warning,) = _device_limits(device("llvmpipe (LLVM 15.0.6, 256 bits)", 65535), session)
    assert warning.code == "WG0832"
    (warning,) = _device_limits(device("Some GPU", 65535), session)
    assert Renderer().render([warning]) == (
        "warning: an invocation of 'Nest' ran 65,535 loop iterations: Some GPU leaves every loop of an invocation "
        "after that many (one budget for all its loops), so the results may be wrong [WG0832] [-Wdevice-limits]\n"
        "note: run on another Vulkan device (--device), or split the work over more invocations or records\n"
        "1 warning generated.\n")


def test_a_run_within_the_budget_does_not_probe(tmp_path, vulkan_device, monkeypatch) -> None:
    """A plain run whose status never reports the budget pays nothing: the probe does not run."""
    from wgc.runtime import loop_probe

    monkeypatch.setattr(loop_probe, "_probe", lambda device: pytest.fail("the probe ran"))
    path = tmp_path / "nest.hlsl"
    path.write_text(NEST)
    result = wgc.run(str(path), {"inputs": [{"entry": "Nest", "records": [{"n": 3}]}],
                                 "resources": {"u0": {"bytes": 4}}})
    assert result.ok and result.resources == {"u0": {"uint32": [9]}}


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
