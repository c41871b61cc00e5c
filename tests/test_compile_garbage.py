"""A compile leaves (next to) no reference cycles: reference counting frees what it made.

A served compile runs in a reused worker with the cyclic garbage collector on; every object a
compile leaves in a reference cycle is found and freed by a collection the worker pays for (the
cost of the served command, issue 31). The stages break the cycles they make once they are done
with them (sema's scopes and checkers, uniformity's flows, the lowering's helpers, closures that
call themselves). What is left are two small cycles made by libraries (a class pcpp's
`parsegen` makes per preprocessed file, the ctypes array type of spirv-val's words).
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from wgc import driver

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
LEFT_BY_LIBRARIES = 100
"""At most this many unreachable objects per compile, all the libraries' (a pcpp class is some 6);
a compile of `mesh_materials.hlsl` left some 3,500 before the stages broke their cycles."""


def _wgcs(found: object) -> bool:
    """Whether an object is one of wgc's (an instance of a wgc class, a wgc function or method)."""
    kind = type(found)
    if kind.__module__.startswith("wgc"):
        return True
    function = getattr(found, "__func__", found)
    return kind.__name__ in ("function", "method") and str(getattr(function, "__module__", "")).startswith("wgc")


def _garbage_of_one_compile(options: driver.Options) -> list[object]:
    """What the collector finds unreachable after one compile (outputs made and dropped)."""
    driver.compile(options)          # caches that live across compiles are filled by the first one
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = driver.compile(options)
        assert result.outputs, result.diagnostics
        del result
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


@pytest.mark.parametrize(("sample", "target"), [
    ("mesh_materials.hlsl", "amdx"), ("mesh_materials.hlsl", "emulated"), ("material_dispatch.hlsl", "amdx"),
    ("recursive_tree.hlsl", "amdx"), ("syntax_tour.hlsl", "emulated"), ("seed_recursion.hlsl", "emulated"),
    ("mesh_draw.hlsl", "emulated"), ("spec_constant_attributes.hlsl", "amdx"),
])
def test_a_compile_leaves_no_reference_cycles(sample: str, target: str) -> None:
    """After one compile a collection finds only the libraries' cycles: none of wgc's objects."""
    garbage = _garbage_of_one_compile(driver.Options(
        input=str(SAMPLES / sample), include_dirs=(str(SAMPLES / "include"),), target=target))
    assert not [found for found in garbage if _wgcs(found)][:5]
    assert len(garbage) <= LEFT_BY_LIBRARIES


def test_many_compiles_keep_the_collector_idle() -> None:
    """Ten compiles in a row with the collector off leave no more unreachable objects than ten times
    the libraries' share: nothing accumulates from one compile to the next."""
    options = driver.Options(input=str(SAMPLES / "material_dispatch.hlsl"))
    driver.compile(options)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(10):
            driver.compile(options)
        assert gc.collect() <= 10 * LEFT_BY_LIBRARIES
    finally:
        if enabled:
            gc.enable()
