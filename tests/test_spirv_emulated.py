"""The emulated SPIR-V target (`--target=emulated`): plain GLCompute modules that follow the
contract in wgc/emulation_abi.py.

Every sample and every SPIR-V test program compiles for it and validates (vulkan1.3); two samples
have goldens under tests/out/spv-emulated/. Each node operation is checked per launch mode on the
*meaning* of its instructions: `Symbols` evaluates the module's address arithmetic symbolically
(loads through physical pointers, u64 adds and multiplies, atomics), and the expected expressions
are built here from the ABI's tables (offsets, sizes, group size), not copied from the output.
"""

from __future__ import annotations

import struct

import re

import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from spirv_util import check_golden, compile_errors, compile_hlsl, words_of
from wgc import driver
from wgc import emulation_abi as abi
from wgc.diagnostics import Renderer
from wgc.spirv import tools

GOLDEN_DIR = ROOT / "tests" / "out" / "spv-emulated"
MESH_SAMPLES = {"mesh_draw", "mesh_materials"}
"""Graphs that draw (mesh nodes): MeshEXT entry points beside the compute ones (test_mesh_samples_...)."""
SAMPLE_PATHS = sorted(p for p in SAMPLES.glob("*.hlsl") if p.stem not in MESH_SAMPLES)
PROGRAM_PATHS = sorted((ROOT / "tests" / "spirv_programs").glob("*.hlsl"))
GOLDEN_SAMPLES = ("hello_work_graphs", "seed_loops_nested")
NODE_ARRAY_SAMPLES = {"material_dispatch", "seed_max_records_per_node"}


# ---------------------------------------------------------------- symbolic evaluation

def add(a: object, b: object) -> str:
    return f"({a}+{b})"


def mul(a: object, b: object) -> str:
    return f"({a}*{b})"


def load(bits: int, address: object) -> str:
    return f"load{bits}[{address}]"


def wide(value: object) -> str:
    return f"u64({value})"


def ctx(name: str) -> str:
    """The load of NodeContext field `name`, as the ABI places it."""
    offset, size = abi.NODE_CONTEXT[name]
    return load(size * 8, add("ctx", offset) if offset else "ctx")


def field(base: str, table: dict[str, tuple[int, int]], name: str) -> str:
    offset, size = table[name]
    return load(size * 8, add(base, offset) if offset else base)


def paired(base: str, table: dict[str, tuple[int, int]], name: str) -> str:
    """The u32 field `name` as wgc's emulation reads it together with its neighbour: one u64 load at
    the 8-aligned offset of the pair, the low half or the high half (`emulated._field_pair`)."""
    offset, size = table[name]
    assert size == 4
    both = load(64, add(base, offset & ~7) if offset & ~7 else base)
    return f"u32({both})" if offset % 8 == 0 else f"u32(({both}>>32))"


FLAT = add(ctx("group_offset"), add("wg.x", mul("nwg.x", add("wg.y", mul("nwg.y", "wg.z")))))
"""The ABI's flat group index: group_offset + x + nx * (y + ny * z)."""
STRIDE = wide(ctx("input_stride"))


class Symbols:
    """A symbolic reading of a module: each result id as an expression over `ctx` (the NodeContext
    address from push constants), built-ins (`wg`, `nwg`, `lii`, `lid`) and constants."""

    _BUILTINS = {"gl_WorkgroupId": "wg", "gl_NumWorkgroups": "nwg", "gl_LocalInvocationIndex": "lii",
                 "gl_LocalInvocationId": "lid"}
    _BINARY = {"OpIAdd": "+", "OpIMul": "*", "OpUDiv": "/", "OpUMod": "%", "OpISub": "-", "OpBitwiseAnd": "&",
               "OpShiftRightLogical": ">>"}

    def __init__(self, asm: str) -> None:
        self.asm = asm
        self.expr: dict[str, str] = {}
        self.bits: dict[str, int] = {}
        self.stored: dict[str, str] = {}
        self.ops: list[tuple[str, str, list[str]]] = []     # (result or "", opcode, operands)
        for line in asm.splitlines():
            words = line.split()
            if not words:
                continue
            if len(words) > 2 and words[1] == "=":
                result, op, operands = words[0], words[2], words[3:]
            else:
                result, op, operands = "", words[0], words[1:]
            self.ops.append((result, op, operands))
            self._read(result, op, operands)

    def of(self, id_: str) -> str:
        return self.expr.get(id_, id_)

    def _read(self, result: str, op: str, operands: list[str]) -> None:
        if op in ("OpTypeInt", "OpTypeFloat"):
            self.bits[result] = int(operands[0])
        elif op == "OpStore":          # a local: its last stored value (the tests' code is straight)
            self.stored[operands[0]] = self.of(operands[1])
        elif op == "OpConstant":
            self.expr[result] = operands[1]
        elif op == "OpAccessChain" and operands[1] == "%emulation":
            self.expr[result] = "pc" if operands[2] == "%uint_0" else f"pc.{self.of(operands[2])}"
        elif op == "OpAccessChain":
            self.expr[result] = self.of(operands[1]) + "".join(f".{self.of(i)}" for i in operands[2:])
        elif op == "OpLoad":
            pointer = self.of(operands[1])
            name = operands[1].lstrip("%")
            if pointer == "pc":
                self.expr[result] = "ctx"
            elif name in self._BUILTINS:
                self.expr[result] = self._BUILTINS[name]
            elif operands[2:3] and operands[2].startswith("Aligned"):
                self.expr[result] = load(self.bits[operands[0]], pointer)
            elif operands[1] in self.stored:
                self.expr[result] = self.stored[operands[1]]
        elif op == "OpConvertUToPtr":
            self.expr[result] = self.of(operands[1])
        elif op == "OpUConvert":
            self.expr[result] = f"u{self.bits[operands[0]]}({self.of(operands[1])})"
        elif op in self._BINARY:
            self.expr[result] = f"({self.of(operands[1])}{self._BINARY[op]}{self.of(operands[2])})"
        elif op == "OpCompositeExtract" and self.of(operands[1]) in ("wg", "nwg", "lid"):
            self.expr[result] = f"{self.of(operands[1])}.{'xyz'[int(operands[2])]}"
        elif op.startswith("OpAtomic"):
            name = op.removeprefix("OpAtomic").lower()
            self.expr[result] = f"atomic{name}({self.of(operands[1])},{self.of(operands[-1])})"
        elif op == "OpGroupNonUniformIAdd":       # operands: type, scope, group operation, value
            self.expr[result] = f"{operands[2].lower()}({self.of(operands[3])})"
        elif op == "OpGroupNonUniformBallot":      # of the active invocations (operand: true)
            self.expr[result] = "ballot"
        elif op == "OpGroupNonUniformBallotBitCount":    # type, scope, group operation, ballot
            self.expr[result] = f"bits_{operands[2].lower()}({self.of(operands[3])})"
        elif op == "OpGroupNonUniformBroadcastFirst":
            self.expr[result] = f"first({self.of(operands[2])})"
        elif op == "OpExtInst" and operands[2] == "UMin":
            self.expr[result] = f"umin({self.of(operands[3])},{self.of(operands[4])})"

    def values(self, op: str) -> list[str]:
        """The expressions of the results of every `op` instruction."""
        return [self.of(r) for r, o, _ in self.ops if o == op]

    def operands(self, op: str) -> list[list[str]]:
        return [[self.of(x) for x in operands[1:]] for _, o, operands in self.ops if o == op]

    def loads(self) -> set[str]:
        return {e for r, o, _ in self.ops if o == "OpLoad" and (e := self.of(r)).startswith("load")}

    def context_fields(self) -> dict[int, int]:
        """{offset: bits} of every NodeContext field the module reads."""
        found = {}
        for text in self.loads():
            m = re.fullmatch(r"load(\d+)\[(?:ctx|\(ctx\+(\d+)\))\]", text)
            if m:
                found[int(m.group(2) or 0)] = int(m.group(1))
        return found


def expected_fields(*names: str) -> dict[int, int]:
    return {abi.NODE_CONTEXT[n][0]: abi.NODE_CONTEXT[n][1] * 8 for n in names}


PROLOGUE = ("group_offset", "input_records", "input_count", "input_stride")
"""The NodeContext fields every entry prologue reads."""


def node_code(asm: str) -> str:
    """`asm` without the level tail's functions (`X.tail`, the entry point that calls node X's
    function: wgc/spirv/emulated_tail.py, tested on its own below) and its Workgroup variables
    (`tail_last`, `tail_total`, and their pointer type where nothing else uses it), the entry point
    and its modes named after the node's function again: what the tests of node operations read."""
    kept, skipping = [], False
    for line in asm.splitlines():
        words = line.split()
        if len(words) > 2 and words[2] == "OpFunction" and words[0].endswith("_tail"):
            skipping = True
        if not skipping:
            if not re.match(r"\s*(%tail_(last|total)\w* = |OpName %tail_(last|total))", line):
                kept.append(re.sub(r" %tail_(last|total)\w*", "", line))
        elif words[:1] == ["OpFunctionEnd"]:
            skipping = False
    text = "\n".join(kept) + "\n"
    pointer = re.search(r"^\s*(%_ptr_Workgroup_uint) = OpTypePointer Workgroup %uint\n", text, re.M)
    if pointer and text.count(pointer.group(1)) == 1:
        text = text.replace(pointer.group(0), "")
    return re.sub(r"%(\w+)_tail\b", r"%\1", text)


def emulated(source: str, tmp_path, **options) -> tuple[Symbols, str]:  # type: ignore[no-untyped-def]
    compiled = compile_hlsl(source, tmp_path, target="emulated", **options)
    assert "AMDX" not in compiled.asm
    asm = node_code(compiled.asm)
    return Symbols(asm), asm


def grid_record_id(symbols: Symbols) -> str:
    """The id of a broadcasting group's record whose grid comes from the record: the one index
    the node's reads of its input record (`input_records + record * stride`) start from."""
    found = {m.group(1) for e in symbols.expr.values()
             for m in re.finditer(r"\(load64\[ctx\]\+\(u64\((%\w+)\)\*", e)}
    assert len(found) == 1, found
    return found.pop()


def slot(output_index: int, node_index: str | None = None, single: int | None = None) -> str:
    """The address of the OutputSlot of output `output_index` at node-array index `node_index` (None:
    a single output, the `single`-th that is not a node array (default `output_index`), whose slot
    follows the NodeContext: emulation ABI 8, "Outputs"); a node array's in the group's stripe,
    `((flat >> (stripe_mask >> 16)) & (stripe_mask & 0xFFFF)) * count` slots on (ABI 12, "Stripes")."""
    parameter = add(ctx("outputs"), output_index * abi.OUTPUT_PARAMETER_SIZE) if output_index else ctx("outputs")
    if node_index is None:
        return add("ctx", abi.NODE_CONTEXT_SIZE + abi.OUTPUT_SLOT_SIZE * (output_index if single is None else single))
    count = paired(parameter, abi.OUTPUT_PARAMETER, "count")     # the group's stripe first (ABI 9, "Stripes")
    word = paired(parameter, abi.OUTPUT_PARAMETER, "stripe_mask")
    stripe = mul(f"(({FLAT}>>({word}>>16))&({word}&65535))", count)
    return add(field(parameter, abi.OUTPUT_PARAMETER, "slots"), mul(wide(add(stripe, node_index)), abi.OUTPUT_SLOT_SIZE))


# ---------------------------------------------------------------- samples and programs

def _compile_sample(path, **options):  # type: ignore[no-untyped-def]
    return driver.compile(driver.Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                         proposals=sample_proposals(path), target="emulated", **options))


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_every_sample_compiles_for_the_emulated_target(path):
    """Loop graphs (WG0601 for AMDX) and atomics on records (WG0620 for AMDX) included."""
    result = _compile_sample(path)
    assert result.ok, Renderer().render(result.diagnostics)
    expected = ["WG0604"] if path.stem in NODE_ARRAY_SAMPLES else []
    if path.stem == "spec_constant_attributes":   # the emulated target fixes each spec constant at its default:
        # Classify's grid, threads, MaxRecords, NodeID index, NodeArraySize; Chunks' max grid, threads;
        # Material's NodeID index, threads, input MaxRecords
        expected = ["WG0645"] * 10
    assert [d.code for d in result.diagnostics] == expected, Renderer().render(result.diagnostics)
    words = words_of(result.outputs["spirv"])
    assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []
    text = tools.disassemble(words, header=False)
    assert "AMDX" not in text
    assert "OpMemoryModel PhysicalStorageBuffer64 Vulkan" in text
    amdx = driver.compile(driver.Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                         proposals=sample_proposals(path), emit="asm", validate=False))
    assert _entry_point_names(text)
    if amdx.ok:       # the same entry points as the AMDX module
        assert _entry_point_names(text) == _entry_point_names(amdx.outputs["asm"].decode())


@pytest.mark.parametrize("stem", sorted(MESH_SAMPLES))
def test_mesh_samples_compile_for_the_emulated_target(stem):
    """A mesh node is a MeshEXT entry point without AMDX, the library's pixel shader a Fragment one,
    and the compute nodes stay GLCompute (emulation_abi: "Mesh nodes")."""
    result = _compile_sample(SAMPLES / f"{stem}.hlsl")
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert {d.code for d in result.diagnostics} <= {"WG0604"}
    words = list(struct.unpack(f"<{len(result.outputs['spirv']) // 4}I", result.outputs["spirv"]))
    text = tools.disassemble(words, header=False)
    assert "AMDX" not in text
    models = sorted(line.split()[1] for line in text.splitlines() if line.strip().startswith("OpEntryPoint"))
    meshes = {"mesh_draw": 1, "mesh_materials": 3}[stem]
    assert models == sorted(["GLCompute"] + ["MeshEXT"] * meshes + ["Fragment"])


def _entry_point_names(asm: str) -> list[str]:
    return [line.split()[3] for line in asm.splitlines() if line.strip().startswith("OpEntryPoint GLCompute")]


@pytest.mark.parametrize("stem", GOLDEN_SAMPLES)
def test_emulated_sample_matches_golden(stem, update_goldens):
    result = _compile_sample(SAMPLES / f"{stem}.hlsl", emit="asm")
    assert result.ok, Renderer().render(result.diagnostics)
    text = result.outputs["asm"].decode()
    check_golden(text, GOLDEN_DIR / f"{stem}.spvasm", f"{stem}.hlsl", update_goldens)
    assert tools.validate(tools.assemble(text, "vulkan1.3"), "vulkan1.3", scalar_block_layout=True) == []


@pytest.mark.parametrize("path", PROGRAM_PATHS, ids=[p.stem for p in PROGRAM_PATHS])
def test_every_spirv_program_compiles_for_the_emulated_target(path):
    result = driver.compile(driver.Options(input=str(path), enable_16bit_types=True, target="emulated"))
    assert result.ok, Renderer().render(result.diagnostics)
    words = words_of(result.outputs["spirv"])
    assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []
    assert "AMDX" not in tools.disassemble(words, header=False)


def test_split_nodes_for_the_emulated_target():
    result = _compile_sample(SAMPLES / "hello_work_graphs.hlsl", split_nodes=True)
    assert result.ok, Renderer().render(result.diagnostics)
    assert sorted(result.outputs) == ["spirv:firstNode", "spirv:secondNode", "spirv:thirdNode"]


# ---------------------------------------------------------------- launch modes

RECORDS = """
struct In { uint a; uint b; };
struct Out { uint v; };
RWStructuredBuffer<uint> buf : register(u0);
"""


def test_every_compute_entry_point_ends_with_the_level_tail(tmp_path):
    """Emulation ABI 8, "Level tail": "Every `GLCompute` entry point is a function that calls the
    node's own entry function ... and then runs the tail, in every invocation: a workgroup barrier
    (Workgroup execution, QueueFamily memory scope ...); then invocation 0, where NodeContext's
    `level` is not 0, adds 1 to the `done` word of the `LEVEL` block there"."""
    compiled = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input) { buf[input.Get().a] = 1; }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void C([MaxRecords(3)] GroupNodeInputRecords<In> input, uint gi : SV_GroupIndex) { buf[gi] = input.Count(); }
""", tmp_path, target="emulated")
    asm = compiled.asm
    assert re.findall(r'OpEntryPoint GLCompute %(\w+) "(\w+)"', asm) == [("T_tail", "T"), ("C_tail", "C")]
    for node in ("T", "C"):
        body = asm[asm.index(f"%{node}_tail = OpFunction"):]
        body = body[:body.index("OpFunctionEnd")]
        assert f"OpFunctionCall %void %{node}" in body
        assert body.index(f"OpFunctionCall %void %{node}") < body.index("OpControlBarrier %uint_2 %uint_5 ")
    done = abi.LEVEL["done"][0]
    assert done == 0
    symbols = Symbols(asm)
    assert symbols.values("OpAtomicIAdd").count(f"atomiciadd({ctx('level')},1)") == 2


def test_the_tail_reads_the_level_and_its_first_launch_before_its_barrier(tmp_path):
    """Emulation ABI, "Level tail": the LEVEL block's fields other than `done` and `expected`, and
    the LEVEL_LAUNCH entries, are written by the runtime before the run, so the tail loads them
    (and each invocation its first launch's fields) while its first barrier waits: on a GPU each
    load after it would be one more round trip before the next level's arguments are written."""
    compiled = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input) { buf[input.Get().a] = 1; }
""", tmp_path, target="emulated")
    tail = compiled.asm[compiled.asm.index("%T_tail = OpFunction"):]
    tail = tail[:tail.index("OpFunctionEnd")]
    before = tail[:tail.index("OpControlBarrier")]
    # `level`, the five LEVEL fields, the eleven LEVEL_LAUNCH fields a set-up reads
    assert before.count("Aligned|NonPrivatePointer") == 1 + 5 + 11
    assert "OpAtomicIAdd" not in before


def test_constant_node_array_subscripts_read_their_slots_in_the_prologue(tmp_path):
    """Each element that a constant subscript names has its OutputSlot read before the prologue can
    return, from the NodeContext's address where the subscript is not below the array's count (then
    not valid: no branch around the loads), and adds to it once per subgroup without a loop over
    distinct subscripts: one slot for the whole subgroup."""
    compiled = compile_hlsl("""
[Shader("node")] [NodeLaunch("thread")]
void T([MaxRecords(8)] [NodeArraySize(4)] EmptyNodeOutputArray e)
{
    e[0].ThreadIncrementOutputCount(2);
    e[3].ThreadIncrementOutputCount(1);
    e[2 + 5].ThreadIncrementOutputCount(4);
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("e", 0)] void E0() { }
""", tmp_path, target="emulated")
    asm = node_code(compiled.asm)
    body = asm[asm.index("%T = OpFunction"):]
    body = body[:body.index("OpFunctionEnd")]
    prologue = body[:body.index("OpReturn")]
    assert prologue.count("OpSelect %ulong") == 3               # slot or NodeContext, per element
    assert body.count("OpAtomicIAdd") == 3
    assert "OpGroupNonUniformBroadcastFirst" not in body and "OpLoopMerge" not in body
    after = body[body.index("OpReturn"):]
    assert "OpLoad %ulong" not in after and "OpLoad %uint" not in after.replace("OpLoad %uint %gl_", "")


def test_thread_launch_reads_one_record_per_invocation(tmp_path):
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input)
{
    buf[input.Get().b] = GetRemainingRecursionLevels();
}
""", tmp_path)
    assert f"OpExecutionMode %T LocalSize {abi.THREAD_GROUP_SIZE} 1 1" in asm
    record = add(mul(FLAT, abi.THREAD_GROUP_SIZE), "lii")
    # an invocation past the records returns at once
    assert [record, ctx("input_count")] in symbols.operands("OpUGreaterThanEqual")
    address = add(ctx("input_records"), mul(wide(record), STRIDE))
    assert load(32, f"{address}.1") in symbols.loads()              # input.Get().b: member 1
    assert symbols.context_fields() == expected_fields(*PROLOGUE, "remaining_recursion_levels")


def test_coalescing_groups_take_up_to_max_records(tmp_path):
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 2, 1)]
void C([MaxRecords(3)] GroupNodeInputRecords<In> input, uint gi : SV_GroupIndex)
{
    buf[gi] = input.Count() + input[gi].a;
}
""", tmp_path)
    assert "OpExecutionMode %C LocalSize 4 2 1" in asm
    first = mul(FLAT, 3)
    assert [first, ctx("input_count")] in symbols.operands("OpUGreaterThanEqual")
    count = f"umin({'(' + ctx('input_count') + '-' + first + ')'},3)"
    assert count in symbols.values("OpExtInst")
    assert load(32, add(ctx("input_records"), mul(wide(add(first, "lii")), STRIDE)) + ".0") in symbols.loads()


def test_broadcasting_fixed_grid(tmp_path):
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 3, 4)] [NumThreads(8, 1, 1)]
void B(DispatchNodeInputRecord<In> input, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID)
{
    buf[gid.x + gid.y * 2 + gid.z * 6] = dtid.x + input.Get().a;
}
""", tmp_path)
    assert "OpExecutionMode %B LocalSize 8 1 1" in asm
    record, local = f"({FLAT}/24)", f"({FLAT}%24)"
    assert [record, ctx("input_count")] in symbols.operands("OpUGreaterThanEqual")
    assert f"({local}%2)" in symbols.values("OpUMod")                    # SV_GroupID.x
    assert f"(({local}/2)%3)" in symbols.values("OpUMod")                # .y
    assert f"({local}/(2*3))" in symbols.values("OpUDiv")                # .z
    assert load(32, add(ctx("input_records"), mul(wide(record), STRIDE)) + ".0") in symbols.loads()
    assert symbols.context_fields() == expected_fields(*PROLOGUE)


@pytest.mark.parametrize("declaration, components, bits", [
    ("uint grid : SV_DispatchGrid;", 1, 32),
    ("uint2 grid : SV_DispatchGrid;", 2, 32),
    ("uint3 grid : SV_DispatchGrid;", 3, 32),
    ("uint16_t grid : SV_DispatchGrid;", 1, 16),
    ("uint16_t2 grid : SV_DispatchGrid;", 2, 16),
    ("uint16_t3 grid : SV_DispatchGrid;", 3, 16),
    ("uint grid[3] : SV_DispatchGrid;", 3, 32),
    ("uint16_t grid[2] : SV_DispatchGrid;", 2, 16),
])
def test_broadcasting_grid_from_the_record(tmp_path, declaration, components, bits):
    symbols, _ = emulated(f"""
RWStructuredBuffer<uint> buf : register(u0);
struct R {{ uint16_t pad; {declaration} uint value; }};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(64, 64, 64)] [NumThreads(1, 1, 1)]
void G(DispatchNodeInputRecord<R> input, uint3 gid : SV_GroupID)
{{
    buf[gid.x + gid.y + gid.z] = input.Get().value;
}}
""", tmp_path, enable_16bit_types=True)
    grid_offset = 4 if bits == 32 else 2            # after the uint16_t, in scalar layout
    # one dispatch holds every record (emulation ABI 5): the group's record (`emulated_grid`: the
    # table's entry or the search's result, a phi), whose address the input's reads start from
    record = grid_record_id(symbols)
    parts = []
    for i in range(3):
        if i >= components:
            parts.append("1")
            continue
        base = add(ctx("input_records"), mul(wide(record), STRIDE))
        value = load(bits, add(base, grid_offset + i * bits // 8))
        parts.append(value if bits == 32 else f"u32({value})")
    # no record, or a group past the last record's groups (the last prefix sum), leaves
    assert [ctx("input_count"), "0"] in symbols.operands("OpIEqual")
    assert any(a == FLAT and b.startswith(f"load32[({ctx('grid_prefix')}+(u64(({ctx('input_count')}-")
               for a, b in symbols.operands("OpUGreaterThanEqual"))
    # SV_GroupID from the group l within the grid: (l % gx, (l / gx) % gy, l / (gx gy)), as
    # l - (l / gx) gx, then (l / gx) / gy (the same quotient as l / (gx gy)); a 1-D grid divides nothing
    divisions = symbols.values("OpUDiv") + symbols.values("OpUMod")
    assert sorted(d[d.rindex("/") + 1:-1] for d in divisions) == sorted(parts[:components - 1])



@pytest.mark.parametrize("most, read, divisors", [
    ((64, 1, 1), [], []),               # 1-D: SV_GroupID = (l, 0, 0)
    ((64, 64, 1), [0], [0]),            # z is 1: y = l / gx, x = l - y gx
    ((1, 64, 64), [1], [1]),            # x is 1: l over gy alone
    ((64, 1, 64), [0], [0]),            # y is 1: z = l / gx
    ((64, 64, 64), [0, 1], [0, 1]),
])
def test_a_grid_component_bounded_by_one_is_neither_read_nor_divided_by(tmp_path, most, read, divisors):
    """The spec: "The node's dispatch grid size comes from the input record ... The grid size must
    not exceed [NodeMaxDispatchGrid]" (a record beyond it never runs: the runtime refuses it), and a
    record with a 0 component has no group, so in every group that runs a component bounded by 1
    is 1: the prologue reads from the record only the components SV_GroupID's formula (l % gx,
    (l / gx) % gy, l / (gx gy)) needs, and divides only by those (`emulated_grid.group_id`)."""
    symbols, _ = emulated(f"""
RWStructuredBuffer<uint> buf : register(u0);
struct R {{ uint3 grid : SV_DispatchGrid; uint value; }};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid{most}] [NumThreads(1, 1, 1)]
void G(DispatchNodeInputRecord<R> input, uint3 gid : SV_GroupID)
{{
    buf[gid.x + 3 * gid.y + 7 * gid.z] = input.Get().value;
}}
""", tmp_path)
    record = grid_record_id(symbols)
    component = [load(32, add(add(ctx("input_records"), mul(wide(record), STRIDE)), 4 * i)) if i else
                 load(32, add(ctx("input_records"), mul(wide(record), STRIDE))) for i in range(3)]
    assert [i for i in range(3) if component[i] in symbols.loads()] == read
    divisions = symbols.values("OpUDiv") + symbols.values("OpUMod")
    assert sorted(d[d.rindex("/") + 1:-1] for d in divisions) == sorted(component[i] for i in divisors)


def test_the_group_reads_its_record_before_any_return(tmp_path):
    """llvmpipe loads a value at an address uniform in the group once per 8 lanes only outside
    branches (a load after a return is a gather of 8): the group's lookup (`emulated_grid`: the
    total, then the table's entry or prefix[guess], then the groups before that record) comes
    before the prologue's first return, whose condition (no record, or past the total) follows
    them, at addresses every group may read (indices clamped to the last record and group)."""
    symbols, asm = emulated("""
RWStructuredBuffer<uint> buf : register(u0);
struct R { uint grid : SV_DispatchGrid; uint value; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(64, 1, 1)] [NumThreads(1, 1, 1)]
void G(DispatchNodeInputRecord<R> input, uint3 gid : SV_GroupID) { buf[gid.x] = input.Get().value; }
""", tmp_path)
    lines = asm.splitlines()
    begin = next(i for i, line in enumerate(lines) if re.match(r"\s*%G = OpFunction", line))
    first_return = next(i for i in range(begin, len(lines)) if lines[i].split()[:1] == ["OpReturn"])
    context = re.compile(r"load\d+\[(ctx|\(ctx\+\d+\))\]")
    early = [symbols.of(line.split()[0]) for line in lines[begin:first_return] if " OpLoad " in line]
    lookup = [e for e in early if e.startswith("load") and not context.fullmatch(e)]
    assert len(lookup) == 3, lookup
    assert lookup[0].startswith(f"load32[({ctx('grid_prefix')}+(u64(({ctx('input_count')}-")   # the total


def test_the_grid_search_guesses_first(tmp_path):
    """A group whose grid comes from the record finds "the first r with grid_prefix[r] > flat"
    (emulation ABI) from a guess, (2 flat + 1) * count / (2 total) in f32 capped at count - 1 (no
    integer division), checked with two loads of the prefix sums, and a search loop for a missed guess (`emulated_grid`): four loads of
    `grid_prefix` in all (the total, the guess's two, which read the table's entry and the groups
    before its record where there is a table, the loop's one; the guess's first from the table's
    or the prefix sums' address), not one per bit of a 32-step search."""
    symbols, asm = emulated("""
RWStructuredBuffer<uint> buf : register(u0);
struct R { uint grid : SV_DispatchGrid; uint value; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(64, 1, 1)] [NumThreads(1, 1, 1)]
void G(DispatchNodeInputRecord<R> input, uint3 gid : SV_GroupID) { buf[gid.x] = input.Get().value; }
""", tmp_path)
    prefix = [e for e in symbols.loads() if e.startswith(f"load32[({ctx('grid_prefix')}+")]
    assert len(prefix) == 3, prefix         # and the guess's first, through a select of the address
    assert asm.count("OpLoopMerge") == 1
    assert asm.count("OpFDiv") == 1 and asm.count("OpConvertFToU") == 1       # the guess, in f32
    assert "OpUDiv" not in [op for _, op, operands in symbols.ops
                            if any(ctx("grid_prefix") in symbols.of(x) for x in operands[1:])]


# ---------------------------------------------------------------- outputs

def test_thread_scope_allocation_and_overflow(tmp_path):
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input, [MaxRecords(2)] NodeOutput<Out> first,
       [MaxRecords(1)] NodeOutput<Out> second)
{
    if (input.Get().b == 7) return;                  // not every invocation allocates: the counter's path
    ThreadNodeOutputRecords<Out> o = second.GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().a;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void first(ThreadNodeInputRecord<Out> r) { }
[Shader("node")] [NodeLaunch("thread")] void second(ThreadNodeInputRecord<Out> r) { }
""", tmp_path)
    the_slot = slot(1)                               # the second output parameter
    # "a single output has one" slot (emulation_abi, "Outputs"): no count to check; valid where the
    # slot says so
    parameter = add(ctx("outputs"), abi.OUTPUT_PARAMETER_SIZE)
    assert field(parameter, abi.OUTPUT_PARAMETER, "count") not in symbols.loads()
    assert load(64, add(parameter, abi.OUTPUT_PARAMETER["count"][0])) not in symbols.loads()
    assert field(the_slot, abi.OUTPUT_SLOT, "valid") in symbols.loads()
    # one atomic per subgroup on the slot's counter: the elected invocation adds the subgroup's sum
    # of the counts; each invocation's base is that old value plus its exclusive prefix sum; the
    # count is the constant 1, so the sums are bit counts of a ballot of the active invocations
    counter = field(the_slot, abi.OUTPUT_SLOT, "counter")
    atomic = f"atomiciadd({counter},bits_reduce(ballot))"
    assert symbols.values("OpAtomicIAdd") == [atomic]
    assert f"(first({atomic})+bits_exclusivescan(ballot))" in symbols.values("OpIAdd")
    elect = asm.index("OpGroupNonUniformElect")
    assert elect < asm.index("OpBranchConditional", elect) < asm.index("OpAtomicIAdd") < asm.index(
        "OpGroupNonUniformBroadcastFirst")
    assert "OpControlBarrier" not in asm
    # capacity check, then the records at records + base * stride, else the status bit
    assert field(the_slot, abi.OUTPUT_SLOT, "capacity") in symbols.loads()
    assert field(the_slot, abi.OUTPUT_SLOT, "records") in symbols.loads()
    assert field(the_slot, abi.OUTPUT_SLOT, "stride") in symbols.loads()
    assert symbols.values("OpAtomicOr") == [f"atomicor({ctx('status')},{abi.STATUS_OUT_OF_RECORDS})"]
    assert ctx("scratch") in symbols.loads()


def test_group_scope_allocation_once_per_group(tmp_path):
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void B(DispatchNodeInputRecord<In> input, uint gi : SV_GroupIndex, [MaxRecords(8)] NodeOutput<Out> next)
{
    GroupNodeOutputRecords<Out> o = next.GetGroupNodeOutputRecords(input.Get().a > 3 ? 8 : 4);
    o[gi].v = gi;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void next(ThreadNodeInputRecord<Out> r) { }
""", tmp_path)
    counter = field(slot(0), abi.OUTPUT_SLOT, "counter")
    assert len(symbols.values("OpAtomicIAdd")) == 1 and symbols.values("OpAtomicIAdd")[0].startswith(
        f"atomiciadd({counter},")
    # invocation 0 adds (and only where the slot is valid); the base goes through Workgroup memory
    assert ["lii", "0"] in symbols.operands("OpIEqual")
    assert re.search(r"%group_result = OpVariable %_ptr_Workgroup_uint Workgroup", asm)
    assert asm.count("OpControlBarrier %uint_2 %uint_2") == 2
    atomic = asm.index("OpAtomicIAdd")
    assert asm.index("OpStore %group_result", atomic) < asm.index("OpControlBarrier", atomic)


STATIC = RECORDS + """
[Shader("node")] [NodeLaunch("LAUNCH")] ATTRIBUTES
void P(INPUT input, uint gi : SV_GroupIndex, [MaxRecords(MAX)] NodeOutput<Out> next)
{
    buf[0] = 1;
    CALL
    o[0].v = gi;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void next(ThreadNodeInputRecord<Out> r) { }
"""


@pytest.mark.parametrize("launch, attributes, scope, count, size", [
    ("broadcasting", "[NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 2, 1)]", "Thread", 3, 3 * 16),
    ("broadcasting", "[NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 2, 1)]", "Group", 5, 5),
    ("coalescing", "[NumThreads(4, 1, 1)]", "Thread", 2, 2 * 4),
    ("thread", "", "Thread", 2, 2),
], ids=["broadcasting-thread-scope", "broadcasting-group-scope", "coalescing", "thread-launch"])
def test_a_call_every_invocation_makes_once_is_placed_by_group(tmp_path, launch, attributes, scope, count, size):
    """emulation_abi, "Outputs": a constant-count allocation at the top level of the entry function
    places group g = flat - first_group's records at g * K (+ LocalInvocationIndex * c for thread
    scope); invocation 0 adds the group's total; no subgroup operation, barrier or Workgroup memory."""
    inputs = {"broadcasting": "DispatchNodeInputRecord<In>", "coalescing": "[MaxRecords(4)] GroupNodeInputRecords<In>",
              "thread": "ThreadNodeInputRecord<In>"}
    source = (STATIC.replace("LAUNCH", launch).replace("ATTRIBUTES", attributes).replace("INPUT", inputs[launch])
              .replace("MAX", str(size)).replace("CALL", f"{scope}NodeOutputRecords<Out> o = "
                                                        f"next.Get{scope}NodeOutputRecords({count});"))
    if launch == "thread":
        source = source.replace(", uint gi : SV_GroupIndex", "").replace("o[0].v = gi;", "o[0].v = 1;")
    symbols, asm = emulated(source, tmp_path)
    if launch == "thread":       # MaxRecords is per thread there; a group holds THREAD_GROUP_SIZE
        size *= abi.THREAD_GROUP_SIZE
    assert "OpGroupNonUniform" not in asm and "OpControlBarrier" not in asm and "Workgroup uint" not in asm
    the_slot = slot(0)
    group = f"({FLAT}-{field(the_slot, abi.OUTPUT_SLOT, 'first_group')})"
    first = mul(wide(group), size)
    base = add(first, f"u64({mul('lii', count)})") if scope == "Thread" or launch == "thread" else first
    assert base in symbols.stored.values()
    counter = field(the_slot, abi.OUTPUT_SLOT, "counter")
    if launch == "thread":       # c times the group's invocations whose record is below input_count
        past = f"({ctx('input_count')}-{mul(FLAT, abi.THREAD_GROUP_SIZE)})"
        total = mul(f"umin({past},{abi.THREAD_GROUP_SIZE})", count)
    else:
        total = str(size)
    assert symbols.values("OpAtomicIAdd") == [f"atomiciadd({counter},{total})"]
    assert ["lii", "0"] in symbols.operands("OpIEqual")
    assert asm.index("OpAtomicIAdd") < asm.index("OpAtomicOr")     # the capacity check follows


@pytest.mark.parametrize("body", [
    "if (input.Get().a == 0) return; CALL",                            # a return before it
    "if (input.Get().a == 0) { CALL o.OutputComplete(); return; } CALL",  # a second call
    "bool ok = next.IsValid(); CALL",                                  # the output named elsewhere
    "CALL_N",                                                          # a count known at run time
], ids=["return-before", "two-calls", "named-elsewhere", "run-time-count"])
def test_other_allocations_keep_the_counter(tmp_path, body):
    """Only a call every invocation makes exactly once is placed statically (emulated_placement)."""
    call = "ThreadNodeOutputRecords<Out> o = next.GetThreadNodeOutputRecords(1);"
    source = RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void P(ThreadNodeInputRecord<In> input, [MaxRecords(2)] NodeOutput<Out> next)
{
    BODY
    o.Get().v = 1;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void next(ThreadNodeInputRecord<Out> r) { }
""".replace("BODY", body.replace("CALL_N", call.replace("(1)", "(input.Get().a & 1)")).replace("CALL", call))
    _, asm = emulated(source, tmp_path)
    assert "OpGroupNonUniformElect" in asm and "static_base" not in asm


def test_thread_launch_group_scope_is_per_invocation(tmp_path):
    """A thread-launch group is one thread: no barrier, no Workgroup broadcast."""
    _, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input, [MaxRecords(2)] NodeOutput<Out> next)
{
    GroupNodeOutputRecords<Out> o = next.GetGroupNodeOutputRecords(2);
    o[1].v = 1;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void next(ThreadNodeInputRecord<Out> r) { }
""", tmp_path)
    assert "OpControlBarrier" not in asm and "%_ptr_Workgroup" not in asm


def test_node_array_index_is_valid_and_empty_outputs(tmp_path):
    symbols, _ = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(2, 1, 1)]
void C([MaxRecords(2)] GroupNodeInputRecords<In> input, uint gi : SV_GroupIndex,
       [MaxRecords(4)] [NodeArraySize(3)] [AllowSparseNodes] EmptyNodeOutputArray pick,
       [MaxRecords(5)] EmptyNodeOutput ping)
{
    if (pick[input[0].a].IsValid())
        pick[input[0].a].ThreadIncrementOutputCount(0);
    ping.GroupIncrementOutputCount(5);
    ping.ThreadIncrementOutputCount(gi);
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("pick", 1)] void pick1() { }
[Shader("node")] [NodeLaunch("thread")] void ping() { }
""", tmp_path)
    record0 = load(32, add(ctx("input_records"), mul(wide(add(mul(FLAT, 2), "0")), STRIDE)) + ".0")
    pick_slot = slot(0, record0)
    assert field(pick_slot, abi.OUTPUT_SLOT, "valid") in symbols.loads()
    assert [record0, paired(ctx("outputs"), abi.OUTPUT_PARAMETER, "count")] in symbols.operands("OpULessThan")
    ping = field(slot(1, single=0), abi.OUTPUT_SLOT, "counter")
    atomics = symbols.values("OpAtomicIAdd")
    # the subscripted array may add to a different slot per invocation: on subgroups of
    # PER_KEY_MIN_SUBGROUP or more, once per distinct index of the subgroup (the invocations whose
    # index is the first one's add their count, constant: c times their ballot's bits, then leave
    # the loop), else once per invocation; the single output's thread-scope count is added once per
    # subgroup (its sum)
    pick = field(pick_slot, abi.OUTPUT_SLOT, "counter")
    assert f"atomiciadd({pick},0)" in atomics and f"atomiciadd({pick},(bits_reduce(ballot)*0))" in atomics
    assert [record0, f"first({record0})"] in symbols.operands("OpIEqual")
    assert f"atomiciadd({ping},5)" in atomics and f"atomiciadd({ping},reduce(lii))" in atomics
    assert len(atomics) == 4


def test_node_array_parameters_are_read_once_before_the_prologue_returns(tmp_path):
    """Issue 31 (lavapipe, h-lvparr): a node-array output's OutputParameter fields (`slots`, `count`,
    `stripe_mask`: the same for the whole dispatch, emulation ABI "Outputs" and "Stripes") are read
    once, in the entry function's first block, before the prologue's `return`, however many calls
    use the array; on llvmpipe a load after the `return` is a gather of 8 lanes.  An array the body
    does not name is not read (`unused`, the second OutputParameter)."""
    symbols, _ = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void B(DispatchNodeInputRecord<In> input, uint gi : SV_GroupIndex,
       [MaxRecords(16)] [NodeArraySize(2)] NodeOutputArray<Out> arr,
       [MaxRecords(8)] [NodeArraySize(2)] NodeOutputArray<Out> unused)
{
    ThreadNodeOutputRecords<Out> o = arr[gi % 2].GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().a + gi;
    o.OutputComplete();
    if (arr[input.Get().a].IsValid())
        arr[input.Get().a].GetThreadNodeOutputRecords(1).OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("arr", 0)] void a0(ThreadNodeInputRecord<Out> r) { }
[Shader("node")] [NodeLaunch("thread")] [NodeID("unused", 0)] void u0(ThreadNodeInputRecord<Out> r) { }
""", tmp_path)
    parameter = ctx("outputs")
    # `count` and `stripe_mask` by one u64 load (`emulated._field_pair`)
    wanted = [field(parameter, abi.OUTPUT_PARAMETER, "slots"), load(64, add(parameter, abi.OUTPUT_PARAMETER["count"][0]))]
    first_return = next(i for i, (_, op, _) in enumerate(symbols.ops) if op == "OpReturn")
    loads = [symbols.of(r) for r, op, _ in symbols.ops if op == "OpLoad"]
    before = [symbols.of(r) for r, op, _ in symbols.ops[:first_return] if op == "OpLoad"]
    for name in wanted:
        assert name in before and loads.count(name) == 1, name
    assert loads.count(ctx("outputs")) == 1
    other = add(ctx("outputs"), abi.OUTPUT_PARAMETER_SIZE)
    assert not any(other in load for load in loads)
    # the slots of both calls are found from those values
    assert field(slot(0, "(lii%2)"), abi.OUTPUT_SLOT, "counter") in symbols.loads()


DIVERGENT_ARRAY_OUTPUT = """
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input, [MaxRecords(2)] [NodeArraySize(4)] NodeOutputArray<Out> work)
{
    ThreadNodeOutputRecords<Out> o = work[input.Get().a % 4].GetThreadNodeOutputRecords(input.Get().b);
    o.Get().v = input.Get().a;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("work", 0)] void w0(ThreadNodeInputRecord<Out> r) { }
"""
"""A thread node that sends each record to the element of a node array its input names (`a % 4`)."""


def test_output_array_allocation_adds_once_per_index_and_subgroup(tmp_path):
    """Issue 31: `Work[i % 4].GetThreadNodeOutputRecords(1)` did one atomic per invocation on one
    of four counters.  Now a loop runs once per distinct index among the subgroup's invocations:
    those whose index equals the first active invocation's (BroadcastFirst) add their sum once, by
    the elected invocation, take its old value plus their exclusive prefix sum, and leave."""
    symbols, asm = emulated(RECORDS + DIVERGENT_ARRAY_OUTPUT, tmp_path)
    record = add(ctx("input_records"), mul(wide(add(mul(FLAT, abi.THREAD_GROUP_SIZE), "lii")), STRIDE))
    index, count = f"(load32[{record}.0]%4)", f"load32[{record}.1]"
    counter = field(slot(0, index), abi.OUTPUT_SLOT, "counter")
    atomic = f"atomiciadd({counter},reduce({count}))"
    # on subgroups smaller than PER_KEY_MIN_SUBGROUP (llvmpipe's 8) each invocation adds its count;
    # the choice is a constant of the pipeline (SubgroupSize)
    assert symbols.values("OpAtomicIAdd") == [f"atomiciadd({counter},{count})", atomic]
    assert re.search(rf"%\w+ = OpUGreaterThanEqual %bool %\w+ %uint_{abi.PER_KEY_MIN_SUBGROUP}\b", asm)
    assert "BuiltIn SubgroupSize" in asm
    assert f"(first({atomic})+exclusivescan({count}))" in symbols.values("OpIAdd")
    assert [index, f"first({index})"] in symbols.operands("OpIEqual")
    # the key's broadcast heads a loop; the atomic is the elected invocation's, inside it
    loop = asm.index("OpLoopMerge")
    key = asm.index("OpGroupNonUniformBroadcastFirst", loop)
    elect = asm.index("OpGroupNonUniformElect", key)
    assert loop < key < elect < asm.index("OpAtomicIAdd", elect)
    assert "OpControlBarrier" not in asm


def test_an_element_slot_is_read_with_its_valid_flag(tmp_path):
    """Issue 31 (lavapipe, h-lvparr2): the OutputSlot of a node-array element whose subscript is not
    a constant is a per-invocation address (on llvmpipe each load from it is a gather of 8 lanes).
    Its `counter`, `records` and `capacity`/`stride` are loaded in the block that reads its
    `valid`, before any atomic (none after it); `capacity` and `stride` (adjacent u32s) by one
    u64 load."""
    symbols, asm = emulated(RECORDS + DIVERGENT_ARRAY_OUTPUT, tmp_path)
    record = add(ctx("input_records"), mul(wide(add(mul(FLAT, abi.THREAD_GROUP_SIZE), "lii")), STRIDE))
    the_slot = slot(0, f"(load32[{record}.0]%4)")
    wanted = [field(the_slot, abi.OUTPUT_SLOT, name) for name in ("valid", "counter", "records")] + [
        load(64, add(the_slot, abi.OUTPUT_SLOT["capacity"][0]))]
    first_atomic = next(i for i, (_, op, _) in enumerate(symbols.ops) if op == "OpAtomicIAdd")
    loads = [symbols.of(r) for r, op, _ in symbols.ops if op == "OpLoad"]
    before = [symbols.of(r) for r, op, _ in symbols.ops[:first_atomic] if op == "OpLoad"]
    for name in wanted:
        assert name in before and loads.count(name) == before.count(name), name
    for name in ("capacity", "stride"):
        assert field(the_slot, abi.OUTPUT_SLOT, name) not in loads
    assert paired(the_slot, abi.OUTPUT_SLOT, "capacity") in symbols.operands("OpULessThanEqual")[0] + \
        [value for pair in symbols.operands("OpISub") for value in pair]


def test_finished_cross_group_sharing_counts_down_per_record(tmp_path):
    symbols, asm = emulated("""
struct [NodeTrackRWInputSharing] S { uint sum; };
RWStructuredBuffer<uint> buf : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(4, 1, 1)]
void B(globallycoherent RWDispatchNodeInputRecord<S> input)
{
    InterlockedAdd(input.Get().sum, 1);
    Barrier(input, GROUP_SCOPE | GROUP_SYNC);
    if (input.FinishedCrossGroupSharing())
        buf[0] = input.Get().sum;
}
""", tmp_path)
    record = f"({FLAT}/3)"
    counters = add(ctx("shared_counters"), mul(wide(record), 4))
    assert symbols.values("OpAtomicISub") == [f"atomicisub({counters},1)"]
    assert ["lii", "0"] in symbols.operands("OpIEqual")
    # atomics on an RW record are PhysicalStorageBuffer atomics here (WG0620 for AMDX)
    input_address = add(ctx("input_records"), mul(wide(record), STRIDE))
    assert symbols.values("OpAtomicIAdd") == [f"atomiciadd({input_address}.0,1)"]
    # globallycoherent: the record is read visible at QueueFamily scope
    assert re.search(r"OpLoad %uint %\w+ Aligned\|MakePointerVisible\|NonPrivatePointer 4 %uint_5", asm)
    # Barrier(record, ...) orders PhysicalStorageBuffer memory: UniformMemory, never OutputMemory
    uniform = 0x40 | 0x8 | 0x2000 | 0x4000       # UniformMemory | AcquireRelease | MakeAvailable | MakeVisible
    assert f"OpControlBarrier %uint_2 %uint_2 %uint_{uniform}" in asm


def test_recursion_level_and_loop_iteration_come_from_the_context(tmp_path):
    symbols, _ = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(3)]
void R(ThreadNodeInputRecord<In> input, [MaxRecords(1)] NodeOutput<In> R)
{
    buf[0] = GetRemainingRecursionLevels() * 100 + GetCurrentLoopIterationIndex();
}
""", tmp_path)
    assert symbols.context_fields() == expected_fields(*PROLOGUE, "remaining_recursion_levels", "loop_iteration")


def test_a_helper_reads_the_context_again(tmp_path):
    """A function that is not inlined has no prologue: it reads the push constant itself."""
    symbols, asm = emulated(RECORDS + """
uint level() { return GetRemainingRecursionLevels(); }
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input) { buf[0] = level(); }
""", tmp_path)
    assert asm.count("OpAccessChain %_ptr_PushConstant_ulong %emulation %uint_0") == 2
    assert ctx("remaining_recursion_levels") in symbols.loads()


def test_loops_compile_for_the_emulated_target(tmp_path):
    source = """
struct P { uint n; };
RWStructuredBuffer<uint> buf : register(u0);
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Start(ThreadNodeInputRecord<P> input, [MaxRecords(1)] NodeOutput<P> Step)
{
    ThreadNodeOutputRecords<P> o = Step.GetThreadNodeOutputRecords(1);
    o.Get().n = input.Get().n;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]
void Step(ThreadNodeInputRecord<P> input, [MaxRecords(1)] [NodeID("Step")] NodeOutput<P> Again)
{
    buf[GetCurrentLoopIterationIndex()] = input.Get().n;
    ThreadNodeOutputRecords<P> o = Again.GetThreadNodeOutputRecords(1);
    o.Get().n = input.Get().n + 1;
    o.OutputComplete();
}
"""
    symbols, _ = emulated(source, tmp_path, proposals=("work-graph-loops",))
    assert ctx("loop_iteration") in symbols.loads()             # native: the runtime passes the iteration
    # in index space the self-feeding entry recurses: its iteration is 4 - the remaining levels
    staged, staged_asm = emulated(source, tmp_path, proposals=("work-graph-loops",), loop_lowering="index-space")
    assert ctx("loop_iteration") not in staged.loads() and ctx("remaining_recursion_levels") in staged.loads()
    amdx = compile_hlsl(source, tmp_path, proposals=("work-graph-loops",))     # Start, Step x 4, the terminator
    assert [line.split()[-1] for line in amdx.lines("OpExecutionModeId") if "MaxNodeRecursionAMDX" in line] \
        == ["%uint_4"]
    assert "OpDecorate %RemainingRecursionLevelsAMDX BuiltIn RemainingRecursionLevelsAMDX" in amdx.asm


def test_user_push_constants_move_to_their_abi_offset(tmp_path):
    _, asm = emulated("""
struct Constants { uint scale; float4 tint; };
[[vk::push_constant]] Constants pc;
RWStructuredBuffer<float> buf : register(u0);
struct In { uint a; };
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input) { buf[input.Get().a] = pc.tint.y * pc.scale; }
""", tmp_path)
    assert f"OpMemberDecorate %EmulationPushConstants 1 Offset {abi.USER_PUSH_CONSTANT_OFFSET}" in asm
    assert "OpMemberDecorate %EmulationPushConstants 0 Offset 0" in asm
    assert re.search(r"OpAccessChain %_ptr_PushConstant_\w+ %emulation %uint_1 %uint_1", asm)   # pc.tint
    assert asm.count("OpVariable %_ptr_PushConstant") == 1


def test_record_alignment_is_the_largest_scalar(tmp_path):
    _, asm = emulated("""
struct In { uint a; uint64_t big; float16_t h; };
RWStructuredBuffer<uint64_t> buf : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<In> input) { buf[0] = input.Get().big + (uint64_t)input.Get().h; }
""", tmp_path, enable_16bit_types=True)
    assert re.search(r"OpLoad %ulong %\w+ Aligned\|NonPrivatePointer 8\n", asm)
    assert re.search(r"OpLoad %half %\w+ Aligned\|NonPrivatePointer 2\n", asm)


# ---------------------------------------------------------------- the command line

def test_cli_target_option(tmp_path, run_wgc):
    out = tmp_path / "g.spv"
    result = run_wgc("compile", "--target=emulated", str(SAMPLES / "hello_work_graphs.hlsl"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    words = words_of(out.read_bytes())
    assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []
    assert "AMDX" not in tools.disassemble(words)
    default = run_wgc("compile", str(SAMPLES / "hello_work_graphs.hlsl"), "-S", "-o", "-")
    assert default.returncode == 0 and b"OpCapability ShaderEnqueueAMDX" in default.stdout
    bad = run_wgc("compile", "--target=dxil", str(SAMPLES / "hello_work_graphs.hlsl"), "-o", str(tmp_path / "x.spv"))
    assert bad.returncode == 2 and "'dxil' is not one of 'amdx', 'emulated'" in bad.stderr.decode()
    assert not (tmp_path / "x.spv").exists()


# ---------------------------------------------------------------- target limits

def _rendered(source: str, **options) -> str:  # type: ignore[no-untyped-def]
    result = driver.compile(driver.Options(input="-", **options), stdin=source.encode())
    return Renderer().render(result.diagnostics)


def test_the_emulated_target_names_itself_in_its_limits():
    """The limits both targets share are reported with a note naming the target compiled for."""
    source = "\n".join([
        "struct R { uint x; };",
        'StructuredBuffer<R> A : register(t0);', 'StructuredBuffer<R> B : register(t1);',
        "RWStructuredBuffer<uint> Out : register(u2);",
        '[Shader("node")] [NodeLaunch("thread")]',
        "void T(ThreadNodeInputRecord<R> r) { StructuredBuffer<R> C = r.Get().x > 1 ? A : B; Out[0] = C[0].x; }",
        ""])
    assert _rendered(source, target="emulated") == "\n".join([
        "<stdin>:6:62: error: a conditional expression cannot choose between objects of type "
        "'StructuredBuffer<R>' in SPIR-V [WG0623]",
        "void T(ThreadNodeInputRecord<R> r) { StructuredBuffer<R> C = r.Get().x > 1 ? A : B; Out[0] = C[0].x; }",
        " " * 61 + "^" + "~" * 20,
        "<stdin>:6:62: note: choose with if/else and use each object on its own branch",
        "void T(ThreadNodeInputRecord<R> r) { StructuredBuffer<R> C = r.Get().x > 1 ? A : B; Out[0] = C[0].x; }",
        " " * 61 + "^" + "~" * 12,
        "note: a limit of the emulated SPIR-V target (--target=emulated); 'wgc inspect' still shows the program",
        "1 error generated.",
        ""])


def test_atomics_on_records_are_an_amdx_limit_only(tmp_path):
    source = """
struct [NodeTrackRWInputSharing] R { uint total; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Sum(RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }
"""
    assert [m.split(":")[0] for m in compile_errors(source, tmp_path, warning_flags=("error=amdx-record-atomics",))] \
        == ["WG0620"]
    symbols, _ = emulated(source, tmp_path)
    record = f"({FLAT}/2)"
    assert symbols.values("OpAtomicIAdd") == [
        f"atomiciadd({add(ctx('input_records'), mul(wide(record), STRIDE))}.0,1)"]


def test_node_array_members_keep_function_names_with_a_note_for_this_target(tmp_path):
    """WG0604 holds for both targets; its note names no AMDX pipeline structure here."""
    source = """struct Rec { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Root([MaxRecords(1)] [MaxRecordsPerNode(1)] [NodeArraySize(2)] NodeOutputArray<Rec> Mat) {
    Mat[1].GetThreadNodeOutputRecords(1).OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)]
void Metal(ThreadNodeInputRecord<Rec> input) { }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 1)]
void Glass(ThreadNodeInputRecord<Rec> input) { }
"""
    assert _rendered(source, target="emulated") == (
        "<stdin>:9:6: warning: nodes 'Metal', 'Glass' are members of node array 'Mat' in one module: "
        "their entry points keep the function names, because one module cannot hold two GLCompute entry "
        "points of one name [WG0604] [-Wnode-array-entry-point-name]\n"
        "void Glass(ThreadNodeInputRecord<Rec> input) { }\n"
        "     ^~~~~\n"
        "note: select each of them by its function name ('wgc inspect' shows the node of each), or compile "
        "with --split-nodes (one module per node, entry points named by NodeID)\n"
        "1 warning generated.\n")
    _, asm = emulated(source, tmp_path)
    assert [line.split('"')[1] for line in asm.splitlines() if "OpEntryPoint" in line] == ["Root", "Metal", "Glass"]


def test_single_output_slots_are_read_after_the_context_before_the_prologue_returns(tmp_path):
    """Issue 31 (lavapipe): emulation ABI 8 puts the OutputSlot of each output that is not a node
    array after the NodeContext ("the j-th such parameter's at `context + NODE_CONTEXT_SIZE + j *
    OUTPUT_SLOT_SIZE`"), and the entry function reads the fields of the outputs it names (and
    `scratch`, `status`) in its first block, before the prologue's `return`: on llvmpipe a load at
    the push constant's address plus a constant, outside any branch, is one scalar load, where a
    field reached through `outputs` and `slots`, or read after the `return`, is a gather of 8
    lanes.  `Unused` (not named in the body) and the node array read nothing there."""
    symbols, asm = emulated(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void B(DispatchNodeInputRecord<In> input, uint gi : SV_GroupIndex,
       [MaxRecords(8)] [NodeArraySize(2)] NodeOutputArray<Out> arr,
       [MaxRecords(8)] NodeOutput<Out> Unused,
       [MaxRecords(8)] NodeOutput<Out> used)
{
    ThreadNodeOutputRecords<Out> o = used.GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().a + gi;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void used(ThreadNodeInputRecord<Out> r) { }
[Shader("node")] [NodeLaunch("thread")] void Unused(ThreadNodeInputRecord<Out> r) { }
[Shader("node")] [NodeLaunch("thread")] [NodeID("arr", 0)] void a0(ThreadNodeInputRecord<Out> r) { }
""", tmp_path)
    used = add("ctx", abi.NODE_CONTEXT_SIZE + abi.OUTPUT_SLOT_SIZE)        # the second single output
    names = ("valid", "first_group", "counter", "capacity", "stride", "records")
    wanted = {field(used, abi.OUTPUT_SLOT, name) for name in names} | {ctx("scratch"), ctx("status")}
    first_return = next(i for i, (_, op, _) in enumerate(symbols.ops) if op == "OpReturn")
    before = {symbols.of(r) for r, op, _ in symbols.ops[:first_return] if op == "OpLoad"}
    assert wanted <= before
    unused = add("ctx", abi.NODE_CONTEXT_SIZE)
    assert not any(load.startswith(f"load32[({unused}+") or load == f"load64[{unused}]" for load in symbols.loads())
    assert ctx("outputs") not in symbols.loads()        # neither OutputParameter is read
    # the static placement's counter add is on the slot after the context
    assert symbols.values("OpAtomicIAdd") == [f"atomiciadd({field(used, abi.OUTPUT_SLOT, 'counter')},8)"]
