"""Interlocked* on a node record several invocations share (WG0620, warning `amdx-record-atomics`).

The Vulkan spec (VUID-StandaloneSpirv-None-04686, cited by spirv-val's Vulkan check) limits the Pointer
operand of every atomic instruction to Uniform, Workgroup, Image, StorageBuffer,
PhysicalStorageBuffer or TaskPayloadWorkgroupEXT storage; SPV_AMDX_shader_enqueue adds no
NodePayloadAMDX (and SPIRV-Tools' universal rules, validate_atomics.cpp, refuse it before that
check). The D3D spec (Work Graphs, RWDispatchNodeInputRecord): "Shaders are allowed read +
write access (including atomics) to their input record." DXC accepts the code and emits the atomic
on the NodePayloadAMDX pointer; so does wgc, with a warning on by default (the module is not valid
Vulkan SPIR-V; `-Werror=amdx-record-atomics` refuses it), and `wgc run` runs the graph (the emulated target, and the AMDX path's translation, keep
records in PhysicalStorageBuffer memory). The pattern is the Work Graph Playground's tutorial 5: a
bounding box reduced by InterlockedMin/Max on the dispatch record, read by the last group
(FinishedCrossGroupSharing). Expected values are computed here from what the shader computes.
"""

from __future__ import annotations

import pytest

import wgc
from amdx_paths import assert_amdx_agrees
from wgc import driver
from wgc.diagnostics import Renderer
from wgc.spirv.emit import without_record_atomics
from wgc.spirv.tools import assemble, validate

GROUP = 8
BOX = """\
struct [NodeTrackRWInputSharing] Box { uint3 grid : SV_DispatchGrid; int2 lo; int2 hi; uint slot; };
RWStructuredBuffer<int> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(16, 1, 1)] [NumThreads(8, 1, 1)]
void Bounds(globallycoherent RWDispatchNodeInputRecord<Box> box, uint dtid : SV_DispatchThreadID,
            uint gtid : SV_GroupThreadID)
{
    int x = int((dtid * 37u) % 101u) - 50;
    int y = int((dtid * 13u) % 29u) - 7;
    InterlockedMin(box.Get().lo.x, x);
    InterlockedMin(box.Get().lo.y, y);
    InterlockedMax(box.Get().hi.x, x);
    InterlockedMax(box.Get().hi.y, y);
    Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE | GROUP_SYNC);
    if (!box.FinishedCrossGroupSharing()) return;
    if (gtid == 0) {
        uint at = box.Get().slot * 4;
        Out[at] = box.Get().lo.x; Out[at + 1] = box.Get().lo.y;
        Out[at + 2] = box.Get().hi.x; Out[at + 3] = box.Get().hi.y;
    }
}
"""


def compile_box(*flags: str) -> driver.Result:
    return driver.compile(driver.Options(input="-", emit="asm", warning_flags=flags), stdin=BOX.encode())


def expected_box(groups: int) -> list[int]:
    xs = [(d * 37 % 101) - 50 for d in range(groups * GROUP)]
    ys = [(d * 13 % 29) - 7 for d in range(groups * GROUP)]
    return [min(xs), min(ys), max(xs), max(ys)]


def test_by_default_a_warning_in_a_named_group_that_cites_the_vulkan_rule() -> None:
    """DXC accepts the program (the D3D spec allows atomics on the input record), so wgc does too,
    and warns where the module it writes breaks a Vulkan rule; -Werror refuses it."""
    result = compile_box()
    assert result.ok, Renderer().render(list(result.diagnostics))
    atomics = [d for d in result.diagnostics if d.code == "WG0620"]
    assert len(atomics) == 4 and all(d.severity.name == "WARNING" and d.group == "amdx-record-atomics"
                                     for d in atomics)
    text = Renderer().render(atomics[:1])
    assert "[-Wamdx-record-atomics]" in text and "VUID-StandaloneSpirv-None-04686" in text
    assert "-Werror=amdx-record-atomics" in text and "spirv-val refuses" in text
    strict = compile_box("error=amdx-record-atomics")
    assert not strict.ok and [d.severity.name for d in strict.diagnostics if d.code == "WG0620"] == ["ERROR"] * 4
    assert "asm" not in strict.outputs


def test_it_emits_dxcs_atomic_on_the_payload_pointer() -> None:
    """DXC lowers InterlockedMin on a record field to OpAtomicSMin on the field's NodePayloadAMDX pointer."""
    result = compile_box()
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert [d.severity.name for d in result.diagnostics if d.code == "WG0620"] == ["WARNING"] * 4
    asm = result.outputs["asm"].decode()
    pointers = {line.split(" = ")[0].strip() for line in asm.splitlines()
                if "OpAccessChain %_ptr_NodePayloadAMDX_int " in line}
    atomics = [line.split() for line in asm.splitlines() if " = OpAtomicS" in line]
    assert sorted(a[2] for a in atomics) == ["OpAtomicSMax", "OpAtomicSMax", "OpAtomicSMin", "OpAtomicSMin"]
    assert all(a[3] == "%int" and a[4] in pointers for a in atomics)


def test_spirv_val_refuses_the_module_and_wgc_validates_the_rest() -> None:
    """The output fails spirv-val on the atomic alone: with each atomic on a NodePayloadAMDX pointer
    replaced by an OpUndef of its type, spirv-val accepts it."""
    words = assemble(compile_box("no-amdx-record-atomics").outputs["asm"].decode(), "vulkan1.3")
    refused = validate(words, "vulkan1.3", scalar_block_layout=True)
    assert len(refused) == 1 and "storage class forbidden" in refused[0] and "OpAtomicS" in refused[0]
    masked = without_record_atomics(words)
    assert masked is not None and validate(masked, "vulkan1.3", scalar_block_layout=True) == []
    assert len(masked) == len(words) - 4 * (7 - 3)   # four 7-word atomics became 3-word OpUndefs


def test_optimized_and_split_the_atomics_stay() -> None:
    """-O: spirv-opt validates its input itself, so wgc validates the module (masked) and lets spirv-opt skip it."""
    for options, key in (({"optimize": True}, "asm"), ({"split_nodes": True}, "asm:Bounds")):
        result = driver.compile(driver.Options(input="-", emit="asm", warning_flags=("no-amdx-record-atomics",),
                                               **options), stdin=BOX.encode())  # type: ignore[arg-type]
        assert result.ok, Renderer().render(list(result.diagnostics))
        asm = result.outputs[key].decode()
        assert asm.count("OpAtomicSMin") == 2 and asm.count("OpAtomicSMax") == 2


def test_a_module_without_such_atomics_is_validated_as_it_is() -> None:
    result = driver.compile(driver.Options(input="-", emit="asm"), stdin=BOX.replace("Interlocked", "//").encode())
    assert result.ok
    assert without_record_atomics(assemble(result.outputs["asm"].decode(), "vulkan1.3")) is None


def test_a_float_compare_exchange_on_a_shared_record_stays_an_error() -> None:
    """OpAtomicCompareExchange takes integers only (WG0627), whatever WG0620's severity."""
    source = """\
struct R { uint3 grid : SV_DispatchGrid; float f; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(2, 1, 1)]
void Main(RWDispatchNodeInputRecord<R> r) { InterlockedCompareStoreFloatBitwise(r.Get().f, 0.0, 1.0); }
"""
    result = driver.compile(driver.Options(input="-", emit="spirv", warning_flags=("no-error=amdx-record-atomics",)),
                            stdin=source.encode())
    assert [(d.code, d.severity.name) for d in result.diagnostics] == [("WG0627", "ERROR")]


@pytest.mark.usefixtures("vulkan_device")
def test_wgc_run_reduces_the_box_on_both_paths(tmp_path) -> None:
    path = tmp_path / "box.hlsl"
    path.write_text(BOX)
    grids = [5, 16, 1]
    far = {"lo": [1 << 20, 1 << 20], "hi": [-(1 << 20), -(1 << 20)]}
    dispatch = {"inputs": [{"entry": "Bounds", "records": [{"grid": [g, 1, 1], **far, "slot": i}
                                                           for i, g in enumerate(grids)]}],
                "resources": {"u0": {"bytes": 16 * len(grids)}}}
    result = wgc.run(str(path), dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources == {"u0": {"int32": [v for g in grids for v in expected_box(g)]}}
    assert assert_amdx_agrees(str(path), dispatch, result) is not None    # the AMDX path ran, and agrees
