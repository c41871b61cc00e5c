"""The SPIR-V back end's memos give what the computation they skip gives.

Each test compiles samples with one memo on (as wgc runs) and off (the memoised function replaced
by its uncached body) and compares every output byte and diagnostic.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wgc import driver
from wgc.spirv import types as spirv_types

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
COMPILED = ["material_dispatch.hlsl", "recursive_tree.hlsl", "mesh_materials.hlsl", "mesh_draw.hlsl",
            "hello.hlsl", "seed_max_records_per_node.hlsl"]
VARIANTS = [{}, {"target": "emulated"}, {"split_nodes": True, "debug_info": True}]


def outputs(sample: str, options: dict) -> tuple[dict[str, bytes], list[str]]:
    result = driver.compile(driver.Options(input=str(SAMPLES / sample), include_dirs=(str(SAMPLES / "include"),),
                                           **options))
    return result.outputs, [str(d) for d in result.diagnostics]


@pytest.mark.parametrize("sample", COMPILED)
@pytest.mark.parametrize("options", VARIANTS)
def test_type_ids_memo(sample, options, monkeypatch):
    """`TypeLowering.id` memoised per (type, layout object) == `TypeLowering._lower` every time."""
    memoised = outputs(sample, options)
    lowered = []
    real = spirv_types.TypeLowering._lower

    def uncached(self, type_, layout=None):
        lowered.append(type_)
        return real(self, type_, layout)

    monkeypatch.setattr(spirv_types.TypeLowering, "id", uncached)
    assert outputs(sample, options) == memoised
    assert memoised[0] or options.get("target") == "emulated"     # (the emulator runs no mesh nodes)
    assert len(lowered) > 20 or not memoised[0]


def test_enum_memos_match_the_grammar():
    """`builder._enum_number` (cached `Builder._enum_lookup`) and `builder._id_operand_form` answer
    what the grammar answers, for every enumerant of the kinds the builder looks up, by name and value."""
    from wgc.spirv import builder, grammar

    for kind in ("StorageClass", "Capability", "Decoration", "ExecutionMode", "MemoryAccess", "LoopControl"):
        for name, enumerant in grammar.operand_kind(kind).enumerants.items():
            assert builder._enum_number(kind, name) == builder.Builder._enum_lookup(kind, name) == enumerant.value
            assert builder._enum_number(kind, enumerant.value) == enumerant.value
            if kind in ("Decoration", "ExecutionMode"):
                takes_ids = any(grammar.operand_kind(p.kind).category == "Id" for p in enumerant.parameters)
                assert builder._id_operand_form(kind, name) == (name, takes_ids)
                assert builder._id_operand_form(kind, enumerant.value)[1] == takes_ids
    assert builder._enum_number("LoopControl", "Unroll|DontUnroll") == 3
    with pytest.raises(KeyError, match="Privat"):
        builder._enum_number("StorageClass", "Privat")
    with pytest.raises(KeyError):
        builder._enum_number("StorageClass", 999999)


@pytest.mark.parametrize("sample", COMPILED)
@pytest.mark.parametrize("options", VARIANTS)
def test_constant_memos(sample, options, monkeypatch):
    """`ModuleLowering.constant` (int and bool values remembered per type) and `Builder.constant`
    (int values remembered per type id) == their uncached bodies every time."""
    from wgc.spirv import builder as spirv_builder
    from wgc.spirv import lower as spirv_lower

    memoised = outputs(sample, options)
    asked = []
    real = spirv_lower.ModuleLowering._constant

    def uncached(self, type_, value):
        asked.append(value)
        return real(self, type_, value)

    monkeypatch.setattr(spirv_lower.ModuleLowering, "constant", uncached)
    monkeypatch.setattr(spirv_builder.Builder, "constant", spirv_builder.Builder._new_constant)
    assert outputs(sample, options) == memoised
    assert asked or not memoised[0]

