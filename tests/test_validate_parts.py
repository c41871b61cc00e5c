"""Validation of modules of many entry points in parts (`wgc.spirv.validate_parts`) and without
friendly names (`wgc.spirv.tools.validate`): same verdicts and messages as one whole-module run,
with a cost that grows linearly in the number of entry points."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from wgc.spirv import tools, validate_parts

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def many_entry_points(count: int, *, store: str = "%v", duplicate: int | None = None,
                      unused: bool = True) -> str:
    """SPIR-V assembly: `count` GLCompute entry points, each calling a shared helper and storing to
    a shared Private variable through its own constant; an unused global and function besides."""
    head = ["OpCapability Shader", "OpMemoryModel Logical GLSL450"]
    head += [f'OpEntryPoint GLCompute %main{i} "{"main0" if i == duplicate else f"main{i}"}" %g'
             for i in range(count)]
    head += [f"OpExecutionMode %main{i} LocalSize 1 1 1" for i in range(count)]
    head += ['OpName %helper "helper"', 'OpName %g "g"']
    head += [f'OpName %c{i} "c"' for i in range(count)]          # one name, repeated
    types = ["%void = OpTypeVoid", "%fn = OpTypeFunction %void", "%uint = OpTypeInt 32 0",
             "%float = OpTypeFloat 32", "%ptr = OpTypePointer Private %uint", "%g = OpVariable %ptr Private"]
    types += [f"%c{i} = OpConstant %uint {i}" for i in range(count)]
    if unused:
        types += ["%fptr = OpTypePointer Private %float", "%unused = OpVariable %fptr Private"]
    body = ["%helper = OpFunction %void None %fn", "%hl = OpLabel", "OpReturn", "OpFunctionEnd"]
    for i in range(count):
        value = store if i == count - 1 else "%v"
        body += [f"%main{i} = OpFunction %void None %fn", f"%l{i} = OpLabel",
                 f"%r{i} = OpFunctionCall %void %helper", f"%v{i} = OpIAdd %uint %c{i} %c{i}",
                 f"OpStore %g {value.replace('%v', f'%v{i}')}", "OpReturn", "OpFunctionEnd"]
    if unused:
        body += ["%lonely = OpFunction %void None %fn", "%ll = OpLabel", "OpReturn", "OpFunctionEnd"]
    return "\n".join(head + types + body) + "\n"


def instructions(words: list[int]) -> set[tuple[int, ...]]:
    found, at = set(), 5
    while at < len(words):
        count = words[at] >> 16
        found.add(tuple(words[at:at + count]))
        at += count
    return found


def test_parts_hold_every_instruction_and_each_validates() -> None:
    """Every instruction of the module is in a part (what no entry point reaches, in the last), a
    part holds at most PART_ENTRY_POINTS entry points, and each part is a valid module."""
    words = tools.assemble(many_entry_points(150))
    assert tools.validate(words) == []
    parts = validate_parts.split(words)
    assert parts is not None and len(parts) == 3                   # 64 + 64 + 22
    for part in parts:
        assert tools.validate(part) == []
        assert sum(1 for inst in instructions(part) if inst[0] & 0xFFFF == 15) <= validate_parts.PART_ENTRY_POINTS
    assert set().union(*map(instructions, parts)) == instructions(words)
    assert validate_parts.validate(words, "vulkan1.3") == []


def test_small_modules_are_validated_whole() -> None:
    """At most PART_ENTRY_POINTS entry points: one whole-module run, as before."""
    assert validate_parts.split(tools.assemble(many_entry_points(validate_parts.PART_ENTRY_POINTS))) is None


def test_a_small_module_is_not_decoded_to_be_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry points are counted from the instruction headers before the first OpFunction: a
    module of at most PART_ENTRY_POINTS never reaches `split` (its whole decode), one more does,
    and the verdicts are spirv-val's on the whole module either way."""
    limit = validate_parts.PART_ENTRY_POINTS
    small, large = (tools.assemble(many_entry_points(n)) for n in (limit, limit + 1))
    assert not validate_parts._more_entry_points(small, limit)
    assert validate_parts._more_entry_points(large, limit)
    assert validate_parts._more_entry_points(small, limit - 1)
    bad = tools.assemble(many_entry_points(3, store="%one").replace(
        "%c0 = OpConstant %uint 0", "%c0 = OpConstant %uint 0\n%one = OpConstant %float 1"))
    calls: list[int] = []
    real_split = validate_parts.split
    monkeypatch.setattr(validate_parts, "split", lambda words: calls.append(len(words)) or real_split(words))
    assert validate_parts.validate(small, "vulkan1.3") == [] and calls == []
    assert validate_parts.validate(bad, "vulkan1.3") == tools.validate(bad, "vulkan1.3") != [] and calls == []
    assert validate_parts.validate(large, "vulkan1.3") == [] and calls == [len(large)]
    zero_count = small[:5] + [small[5] & 0xFFFF] + small[6:]     # a header whose word count is 0
    assert validate_parts._more_entry_points(zero_count, limit)


def test_an_invalid_module_gets_the_whole_modules_message() -> None:
    """A failing part is not the verdict: the whole module is validated and spirv-val's message on
    it, with friendly names, is returned."""
    words = tools.assemble(many_entry_points(150, store="%float_store").replace(
        "%c0 = OpConstant %uint 0", "%c0 = OpConstant %uint 0\n%one = OpConstant %float 1").replace(
        "%float_store", "%one"))
    whole = tools.validate(words)
    assert whole and "OpStore" in whole[0]
    assert validate_parts.validate(words, "vulkan1.3") == whole


def test_entry_points_sharing_a_name_in_different_parts() -> None:
    """The SPIR-V specification, OpEntryPoint: "A module must not have two OpEntryPoint instructions with the same Execution
    Model and the same Name string." Two such entry points in different parts are seen anyway."""
    words = tools.assemble(many_entry_points(150, duplicate=149))
    assert validate_parts.split(words) is None
    messages = validate_parts.validate(words, "vulkan1.3")
    assert messages and "cannot share the same name" in messages[0]


def test_an_execution_mode_of_no_entry_point_is_seen() -> None:
    """The SPIR-V specification, OpExecutionMode: "Entry Point must be the Entry Point <id> operand of an
    OpEntryPoint instruction." No part would hold such a mode: the whole module is validated."""
    words = tools.assemble(many_entry_points(150).replace("OpName %helper", "OpExecutionMode %helper LocalSize 1 1 1\n"
                                                                             "OpName %helper"))
    assert validate_parts.split(words) is None
    messages = validate_parts.validate(words, "vulkan1.3")
    assert messages and messages == tools.validate(words)


def test_friendly_names_only_in_messages() -> None:
    """The verdict is computed without friendly names; a failure's message still names ids as
    spirv-val does by default (here %g, named by OpName)."""
    words = tools.assemble(many_entry_points(2, store="%one").replace(
        "%c0 = OpConstant %uint 0", "%c0 = OpConstant %uint 0\n%one = OpConstant %float 1"))
    messages = tools.validate(words)
    assert messages and "%g" in messages[0]


def scan_cost(words: list[int]) -> int:
    """What spirv-val's per-entry-point scan costs on `words`: entry points times the instructions
    before the first OpFunction."""
    entries = before = 0
    at = 5
    while at < len(words) and words[at] & 0xFFFF != 54:
        entries += words[at] & 0xFFFF == 15
        before += 1
        at += words[at] >> 16
    return entries * before


def test_validation_cost_grows_linearly_with_entry_points() -> None:
    """N against 4N entry points: the scans spirv-val makes over all parts grow about 4 times
    (linear), not 16 (one whole-module run); checked by counting, not by time."""
    small, large = (tools.assemble(many_entry_points(n, unused=False)) for n in (200, 800))
    cost = [sum(scan_cost(part) for part in validate_parts.split(words) or [words]) for words in (small, large)]
    assert cost[1] / cost[0] < 4.6, cost


def test_repeated_names_cost_linear_validation_time() -> None:
    """One name given to N and to 4N ids: spirv-val's friendly names make the k-th repeat try k
    suffixes (quadratic); the verdict is computed without them. CPU time, best of 5, with slack:
    linear is about 4, quadratic about 16."""
    def best(words: list[int]) -> float:
        times = []
        for _ in range(5):
            start = time.process_time()
            assert tools.validate(words) == []
            times.append(time.process_time() - start)
        return min(times)

    small, large = (tools.assemble(many_entry_points(2, unused=False).replace(
        '%c0 = OpConstant %uint 0', "%c0 = OpConstant %uint 0\n" + "\n".join(
            f"%x{i} = OpConstant %uint {i + 1000}" for i in range(n))).replace(
        'OpName %g "g"', 'OpName %g "g"\n' + "\n".join(f'OpName %x{i} "x"' for i in range(n))))
        for n in (1500, 6000))
    ratio = best(large) / max(best(small), 1e-4)
    assert ratio < 9, ratio


@pytest.mark.parametrize("nodes", [301])
def test_generated_graph_is_validated_in_parts(nodes: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled graph of many nodes is split (no fallback to the whole module) and compiles."""
    from graph import generate

    from wgc import driver

    runs: list[int] = []
    real = tools.validate

    def counted(words: list[int], *args: object, **kwargs: object) -> list[str]:
        runs.append(len(words))
        return real(words, *args, **kwargs)       # type: ignore[arg-type]

    monkeypatch.setattr(tools, "validate", counted)
    source = tmp_path / "graph.hlsl"
    source.write_text(generate(nodes))
    result = driver.compile(driver.Options(input=str(source)))
    assert result.ok
    assert len(runs) == -(-nodes // validate_parts.PART_ENTRY_POINTS), runs   # one run per part
