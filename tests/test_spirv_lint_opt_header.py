"""The SPIR-V back end's checks and outputs around the lowering: wgc's AMDX lint (the rules spirv-val
does not check), the safe spirv-opt pass list, and C headers.

The lint cases mutate the validated reference module of spirv-amdx.md §2.2; each mutant is one that
spirv-val accepts, which is why the lint exists.
"""

from __future__ import annotations

import subprocess

import pytest

from test_spirv_builder import REFERENCE_AMDX
from wgc.spirv import tools
from wgc.spirv.header import c_header
from wgc.spirv.lint import lint
from wgc.spirv.optimize import BANNED, PASSES, optimize, run_spirv_opt


NAMES = "".join(f'OpName %{n} "{n}"\n' for n in ("out_arr", "InRec", "LeafRec", "outs", "main", "leaf",
                                                 "main_in", "n"))
NAMED_AMDX = REFERENCE_AMDX.replace("OpMemberDecorate %InRec 0 Offset 0", NAMES + "OpMemberDecorate %InRec 0 Offset 0", 1)


def reference(*replacements: tuple[str, str]) -> list[int]:
    text = NAMED_AMDX
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return tools.assemble(text, "vulkan1.3")


def test_reference_module_is_clean():
    assert lint(reference()) == []


LINT_CASES = [
    ("missing NodeMaxPayloadsAMDX",
     [("OpDecorateId %out_arr NodeMaxPayloadsAMDX %uint_4\n", "")],
     "%out_arr: OpTypeNodePayloadArrayAMDX without NodeMaxPayloadsAMDX"),
    ("name on a non-payload type",
     [("OpDecorateId %out_arr PayloadNodeNameAMDX %str_leaf", "OpDecorateId %InRec PayloadNodeNameAMDX %str_leaf")],
     "%InRec: PayloadNodeNameAMDX on something that is not a payload array type\n"
     "%out_arr: output payload array without PayloadNodeNameAMDX"),
    ("name is not a string",
     [("OpDecorateId %out_arr PayloadNodeNameAMDX %str_leaf", "OpDecorateId %out_arr PayloadNodeNameAMDX %uint_1")],
     "%out_arr: PayloadNodeNameAMDX does not name a string constant"),
    ("bad visibility",
     [("OpAllocateNodePayloadsAMDX %p_out_arr %uint_2", "OpAllocateNodePayloadsAMDX %p_out_arr %uint_1")],
     "%outs: OpAllocateNodePayloadsAMDX visibility is not a constant Invocation or Workgroup scope"),
    ("IsApiEntryAMDX not a bool",
     [("IsApiEntryAMDX %true", "IsApiEntryAMDX %uint_1")],
     "%main: IsApiEntryAMDX is not a bool constant"),
    ("coalescing with a grid",
     [("OpExecutionMode %leaf CoalescingAMDX", "OpExecutionMode %leaf CoalescingAMDX\n"
       "OpExecutionModeId %leaf StaticNumWorkgroupsAMDX %uint_1 %uint_1 %uint_1")],
     "%leaf: CoalescingAMDX together with a workgroup-count mode"),
    ("enqueue of a non-allocation",
     [("OpEnqueueNodePayloadsAMDX %outs", "OpEnqueueNodePayloadsAMDX %main_in")],
     "OpEnqueueNodePayloadsAMDX of %main_in, which is not an allocation"),
    ("signed length",
     [("%n = OpNodePayloadArrayLengthAMDX %uint %leaf_in", "%int = OpTypeInt 32 1\n"
       "%n = OpNodePayloadArrayLengthAMDX %int %leaf_in")],
     "%n: OpNodePayloadArrayLengthAMDX does not yield a 32-bit uint"),
    ("payload without offsets",
     [("OpMemberDecorate %LeafRec 0 Offset 0\n", "")],
     "%LeafRec: payload struct member 0 has no Offset"),
]


@pytest.mark.parametrize("what,replacements,message", LINT_CASES, ids=[c[0] for c in LINT_CASES])
def test_lint_finds_what_spirv_val_accepts(what, replacements, message):
    if what == "signed length":   # an OpTypeInt cannot sit in a function body: move it to the types
        text = NAMED_AMDX.replace("%uint = OpTypeInt 32 0", "%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1")
        text = text.replace("%n = OpNodePayloadArrayLengthAMDX %uint %leaf_in",
                            "%n = OpNodePayloadArrayLengthAMDX %int %leaf_in")
        words = tools.assemble(text, "vulkan1.3")
    else:
        words = reference(*replacements)
    assert tools.validate(words, "vulkan1.3") == []
    assert lint(words) == message.split("\n")


def test_lint_one_node_per_module():
    assert lint(reference(), one_node_per_module=True) == [
        "2 entry points in a module meant to hold one node"]


def test_safe_passes_exclude_the_ones_that_break_amdx_modules():
    assert not set(BANNED) & set(PASSES)
    words = optimize(reference())
    assert tools.validate(words, "vulkan1.3") == []
    text = tools.disassemble(words)
    for kept in ("OpAllocateNodePayloadsAMDX", "OpEnqueueNodePayloadsAMDX", "OpConstantStringAMDX",
                 "PayloadNodeNameAMDX", "NodeMaxPayloadsAMDX"):
        assert kept in text


def test_eliminate_dead_const_still_breaks_amdx_modules():
    """If SPIRV-Tools fixes the pass, this fails and the pass can join the list."""
    try:
        words = run_spirv_opt(reference(), "vulkan1.3", ["--eliminate-dead-const"])
    except tools.SpirvToolsError as problem:
        assert "OpConstantStringAMDX" in str(problem) or "forward referenced" in str(problem)
        return
    assert tools.validate(words, "vulkan1.3") != []


def test_c_header_is_deterministic_and_compiles(tmp_path):
    words = reference()
    text = c_header(words, "g_graph", source_name="/abs/path/graph.hlsl")
    assert text == c_header(words, "g_graph", source_name="/abs/path/graph.hlsl")
    assert "/abs/path" not in text and "graph.hlsl" in text
    assert "static const uint32_t g_graph[] = {" in text and "0x07230203" in text
    with pytest.raises(ValueError, match="not a C identifier"):
        c_header(words, "1bad")
    header = tmp_path / "graph.h"
    header.write_text(text)
    program = tmp_path / "main.c"
    program.write_text('#include "graph.h"\nint main(void) { return g_graph[0] == 0x07230203u && '
                       f'g_graph_size == {4 * len(words)}u ? 0 : 1; }}\n')
    try:
        built = subprocess.run(["cc", "-Wall", "-Werror", str(program), "-o", str(tmp_path / "main")],
                               capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no C compiler")
    assert built.returncode == 0, built.stderr
    assert subprocess.run([str(tmp_path / "main")]).returncode == 0
