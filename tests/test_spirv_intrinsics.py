"""SPIR-V back end: every intrinsic lowers to the instructions dxc uses, in a module that validates.

Each case puts statements into a broadcasting node where `a`, `b`, `c` are values of the type
under test (loaded from a byte-address buffer, so any scalar, vector or matrix works), compiles
it (validated in process and again by `compile_hlsl`) and checks the instructions (GLSL.std.450
names or core opcodes), how many there are (a matrix is done row by row), their operands where
the order matters, and the capabilities. Integer mul is also checked for its values: spirv-opt
folds it with constant operands.
"""

from __future__ import annotations

import math
import re

import pytest

from spirv_util import Compiled, compile_errors, compile_hlsl
from wgc.sema.intrinsics import intrinsic_names
from wgc.spirv import intrinsics

TEMPLATE = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<int64_t> L : register(u2);
groupshared uint gs;
groupshared int gsi;
groupshared uint gsa[4];
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) {
    %(T)s a = B.Load<%(T)s>(0); %(T)s b = B.Load<%(T)s>(64); %(T)s c = B.Load<%(T)s>(128);
    %(body)s
}
"""


def build(tmp_path, type_: str, body: str, **options: object) -> Compiled:
    sixteen = "16" in type_ or "half" in type_
    return compile_hlsl(TEMPLATE % {"T": type_, "body": body}, tmp_path,
                        enable_16bit_types=sixteen, **options)


def ext(c: Compiled, op: str) -> list[str]:
    """The OpExtInst lines of GLSL.std.450 instruction `op`."""
    return [line for line in c.lines("OpExtInst") if re.search(rf"OpExtInst \S+ \S+ {op}\b", line)]


def rows(type_: str) -> int:
    """How many times a scalar/vector instruction runs for a value of `type_` (rows of a matrix)."""
    match = re.search(r"(\d)x(\d)$", type_)
    return int(match.group(1)) if match and match.group(1) != "1" and match.group(2) != "1" else 1


def loaded(c: Compiled, variable: str) -> set[str]:
    """The ids of the values loaded from a named local."""
    return {line.split()[0] for line in c.lines("OpLoad") if line.split()[-1] == f"%{variable}"}


def operands(line: str) -> list[str]:
    """The operands of `%id = OpX %type operands...`."""
    return line.split()[4:]


def capability(c: Compiled, name: str) -> bool:
    return f"OpCapability {name}\n" in c.asm


def test_every_intrinsic_of_the_sema_table_has_a_lowering():
    assert set(intrinsic_names()) <= set(intrinsics._HANDLERS)


# ---------------------------------------------------------------- float math

UNARY = {"sqrt": "Sqrt", "rsqrt": "InverseSqrt", "exp": "Exp", "exp2": "Exp2", "log": "Log", "log2": "Log2",
         "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh",
         "cosh": "Cosh", "tanh": "Tanh", "floor": "Floor", "ceil": "Ceil", "round": "RoundEven", "trunc": "Trunc",
         "frac": "Fract", "saturate": "FClamp"}
MULTI = {"pow(a, b)": "Pow", "atan2(a, b)": "Atan2", "step(a, b)": "Step", "lerp(a, b, c)": "FMix",
         "smoothstep(a, b, c)": "SmoothStep"}
FLOAT_SHAPES = ["float", "float3", "float2x3", "float4x4", "float1x3", "half3", "half2x2", "min16float2"]


@pytest.mark.parametrize("type_", FLOAT_SHAPES)
def test_float_functions_are_glsl_instructions_row_by_row(tmp_path, type_):
    calls = [f"{name}(a)" for name in UNARY] + list(MULTI)
    c = build(tmp_path, type_, f"B.Store(256, {' + '.join(calls)});")
    for call, op in [*((f"{n}(a)", o) for n, o in UNARY.items()), *MULTI.items()]:
        assert len(ext(c, op)) == rows(type_), (call, op)


@pytest.mark.parametrize("type_", FLOAT_SHAPES)
def test_log10_fmod_rcp(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, log10(a)); B.Store(512, fmod(a, b)); B.Store(768, rcp(a));")
    assert len(ext(c, "Log2")) == rows(type_)
    scale = "OpMatrixTimesScalar" if rows(type_) > 1 else "OpVectorTimesScalar" if re.search(r"\d", type_) \
        else "OpFMul"
    assert c.count(scale) == 1                                         # log10(x) = log2(x) / log2(10)
    assert "half" in type_ or "16" in type_ or "%float_0_30103" in c.lines(scale)[0]
    assert c.count("OpFRem") == rows(type_)                            # fmod keeps the sign of x
    assert c.count("OpFDiv") == rows(type_)                            # rcp(x) = 1 / x


def test_step_takes_the_edge_first(tmp_path):
    c = build(tmp_path, "float4", "B.Store(256, step(0.5, a));")
    [line] = ext(c, "Step")
    edge, x = operands(line)[2:]                            # HLSL step(y, x) = GLSL Step(edge = y, x)
    assert x in loaded(c, "a") and re.search(rf"{edge} = Op\w+ %v4float %float_0_5 %float_0_5", c.asm)


def test_saturate_clamps_to_zero_and_one(tmp_path):
    c = build(tmp_path, "double2", "B.Store(256, saturate(a));")
    [line] = ext(c, "FClamp")
    assert "%v2double" in line and capability(c, "Float64")


# ---------------------------------------------------------------- numeric functions per kind

KIND_OPS = {
    # element: (abs, min, max, clamp)
    "float": ("FAbs", "FMin", "FMax", "FClamp"), "double": ("FAbs", "FMin", "FMax", "FClamp"),
    "int": ("SAbs", "SMin", "SMax", "SClamp"), "int64_t": ("SAbs", "SMin", "SMax", "SClamp"),
    "uint": (None, "UMin", "UMax", "UClamp"), "uint16_t": (None, "UMin", "UMax", "UClamp"),
}


@pytest.mark.parametrize("shape", ["", "3", "2x2", "3x4"])
@pytest.mark.parametrize("element", list(KIND_OPS))
def test_abs_min_max_clamp_follow_the_scalar_kind(tmp_path, element, shape):
    type_ = element + shape
    c = build(tmp_path, type_, "B.Store(256, abs(a)); B.Store(512, min(a, b) + max(a, b) + clamp(a, b, c));")
    abs_op, *others = KIND_OPS[element]
    for op in others:
        assert len(ext(c, op)) == rows(type_), op
    if abs_op:
        assert len(ext(c, abs_op)) == rows(type_)
    else:                                                  # abs of an unsigned value is the value
        assert not ext(c, "SAbs") and not ext(c, "FAbs")


@pytest.mark.parametrize("type_", ["float", "float4", "float3x3", "half2"])
def test_mad_of_floats_is_fma_without_contraction(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, mad(a, b, c));")
    fmas = ext(c, "Fma")
    assert len(fmas) == rows(type_)
    for line in fmas:
        assert f"OpDecorate {line.split()[0]} NoContraction" in c.asm


@pytest.mark.parametrize("type_", ["int", "uint3", "int2x2"])
def test_mad_of_integers_multiplies_then_adds_without_contraction(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, mad(a, b, c));")
    assert not ext(c, "Fma")
    precise = set(re.findall(r"OpDecorate (%\S+) NoContraction", c.asm))
    multiplies = [line.split()[0] for line in c.lines("OpIMul")]
    adds = [line.split()[0] for line in c.lines("OpIAdd") if line.split()[0] in precise]
    assert len(multiplies) == len(adds) == rows(type_) and precise == {*multiplies, *adds}


def test_fma_of_doubles(tmp_path):
    c = build(tmp_path, "double2x2", "B.Store(256, fma(a, b, c));")
    assert len(ext(c, "Fma")) == 2 and "NoContraction" not in c.asm


@pytest.mark.parametrize("type_,op,convert", [
    ("float", "FSign", "OpConvertFToS"), ("float3", "FSign", "OpConvertFToS"), ("half3", "FSign", "OpConvertFToS"),
    ("float2x2", "FSign", "OpConvertFToS"), ("int4", "SSign", None), ("int2x3", "SSign", None),
    ("int64_t2", "SSign", "OpSConvert"), ("uint3", None, None),
])
def test_sign_is_an_int(tmp_path, type_, op, convert):
    c = build(tmp_path, type_, "B.Store(256, sign(a));")
    if op:
        assert len(ext(c, op)) == rows(type_)
    else:                                              # an unsigned value's sign is 0 or 1
        assert not ext(c, "SSign") and c.count("OpINotEqual") == 1 and c.count("OpSelect") == 1
    if convert:
        assert c.count(convert) == rows(type_)


@pytest.mark.parametrize("type_", ["float", "float4", "half2", "float3x2"])
def test_modf_and_frexp_write_their_out_argument(tmp_path, type_):
    c = build(tmp_path, type_, f"{type_} w, e; B.Store(256, modf(a, w) + frexp(b, e)); B.Store(512, w + e);")
    assert len(ext(c, "ModfStruct")) == len(ext(c, "FrexpStruct")) == rows(type_)
    components = math.prod(int(d) for d in re.findall(r"\d", type_))
    assert c.count("OpConvertSToF") == components          # frexp's int exponent, as the out type
    stored = {line.split()[1] for line in c.lines("OpStore")}
    assert {"%w", "%e"} <= stored


def test_frexp_exponent_is_an_int_converted_to_the_out_type(tmp_path):
    c = build(tmp_path, "float3", "int3 e; B.Store(256, frexp(a, e)); B.Store(512, e);")
    [line] = ext(c, "FrexpStruct")
    struct = line.split()[3]
    assert f"{struct} = OpTypeStruct %v3float %v3int" in c.asm and not c.count("OpConvertSToF")


@pytest.mark.parametrize("type_", ["float", "float4", "float2x3", "half3"])
def test_isnan_isinf_isfinite(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, (uint)all(isnan(a)) + (uint)all(isinf(a)) + (uint)all(isfinite(a)));")
    assert c.count("OpIsNan") == c.count("OpIsInf") == 2 * rows(type_)
    assert c.count("OpLogicalOr") == c.count("OpLogicalNot") == rows(type_)  # isfinite = !(nan || inf)


@pytest.mark.parametrize("type_,reductions,test", [
    ("bool", 0, None), ("float", 0, "OpFUnordNotEqual"), ("bool3", 1, None), ("int4", 1, "OpINotEqual"),
    ("float4", 1, "OpFUnordNotEqual"), ("uint2x3", 3, "OpINotEqual"), ("float3x3", 4, "OpFUnordNotEqual"),
])
def test_all_and_any_reduce_bools(tmp_path, type_, reductions, test):
    c = build(tmp_path, type_, "B.Store(256, uint2(all(a), any(a)));")
    assert c.count("OpAll") == c.count("OpAny") == reductions          # a matrix: rows, then the rows' results
    if test:
        assert c.count(test) == 2 * rows(type_)


# ---------------------------------------------------------------- vectors and matrices


@pytest.mark.parametrize("type_,op", [("float4", "OpDot"), ("half3", "OpDot"), ("double2", "OpDot"),
                                      ("int3", "OpIMul"), ("uint4", "OpIMul"), ("int64_t2", "OpIMul"),
                                      ("bool2", "OpIMul"), ("float", "OpFMul")])
def test_dot(tmp_path, type_, op):
    c = build(tmp_path, type_, "B.Store(256, dot(a, b));")
    assert c.count(op) == 1
    if op == "OpIMul":                                 # one vector multiply, then the parts added
        count = int(type_[-1])
        assert len([line for line in c.lines("OpIAdd") if "%uint_" not in line]) == count - 1


@pytest.mark.parametrize("type_", ["float3", "half3"])
def test_geometric_functions(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, cross(a, b) + normalize(a) + reflect(a, b) + refract(a, b, 1.5)"
                               " + faceforward(a, b, c)); B.Store(512, length(a) + distance(a, b));")
    for op in ("Cross", "Normalize", "Reflect", "Refract", "FaceForward", "Length", "Distance"):
        assert len(ext(c, op)) == 1, op


def test_geometric_functions_of_one_component_vectors(tmp_path):
    c = build(tmp_path, "float1", "B.Store(256, normalize(a) + length(a) + distance(a, b) + reflect(a, b));")
    for op in ("Normalize", "Length", "Distance", "Reflect"):
        assert len(ext(c, op)) == 1 and "%float " in ext(c, op)[0]


@pytest.mark.parametrize("type_,instructions", [("float2x2", 1), ("float4x4", 1), ("half3x3", 1), ("float1x1", 0)])
def test_determinant(tmp_path, type_, instructions):
    c = build(tmp_path, type_, "B.Store(256, determinant(a));")
    assert len(ext(c, "Determinant")) == instructions              # a 1x1 matrix is its own determinant


@pytest.mark.parametrize("type_,op", [("float2x3", "OpTranspose"), ("double4x4", "OpTranspose"),
                                      ("int2x3", None), ("bool3x2", None), ("float1x4", None)])
def test_transpose(tmp_path, type_, op):
    c = build(tmp_path, type_, "B.Store(256, transpose(a));")
    assert c.count("OpTranspose") == (1 if op else 0)


FLOAT_MUL = [
    # (left, right, instruction, operand order: which local comes first)
    ("float", "float", "OpFMul", "xy"), ("float", "float3", "OpVectorTimesScalar", "yx"),
    ("float3", "float", "OpVectorTimesScalar", "xy"), ("float", "float2x3", "OpMatrixTimesScalar", "yx"),
    ("float2x3", "float", "OpMatrixTimesScalar", "xy"), ("float3", "float3", "OpDot", "xy"),
    ("float2", "float2x3", "OpMatrixTimesVector", "yx"), ("float2x3", "float3", "OpVectorTimesMatrix", "yx"),
    ("float2x3", "float3x4", "OpMatrixTimesMatrix", "yx"), ("float3x1", "float1x2", "OpOuterProduct", "yx"),
    ("float1x3", "float3x1", "OpDot", "xy"), ("float1x3", "float3x2", "OpMatrixTimesVector", "yx"),
    ("float2x3", "float3x1", "OpVectorTimesMatrix", "yx"), ("double2x2", "double2", "OpVectorTimesMatrix", "yx"),
    ("half2", "half2x2", "OpMatrixTimesVector", "yx"),
]


@pytest.mark.parametrize("left,right,op,order", FLOAT_MUL, ids=[f"{f[0]}*{f[1]}" for f in FLOAT_MUL])
def test_float_mul_uses_the_transposed_representation(tmp_path, left, right, op, order):
    # HLSL rows are SPIR-V columns: mul(M, v) is v * M for SPIR-V, mul(A, B) is B * A
    c = build(tmp_path, "float", f"{left} x = B.Load<{left}>(0); {right} y = B.Load<{right}>(64);"
                                 " B.Store(256, mul(x, y));")
    [line] = c.lines(op)
    first, second = operands(line)
    assert first in loaded(c, order[0]) and second in loaded(c, order[1])


INT_MUL = [("S", "S"), ("S", "3"), ("S", "2x3"), ("3", "S"), ("2x3", "S"), ("3", "3"), ("3", "3x2"), ("2x3", "3"),
           ("2x3", "3x4"), ("3x1", "1x2"), ("1x3", "3x1"), ("1x3", "3x2"), ("2x3", "3x1"), ("4x2", "2x4")]


def _dims(shape: str, left: bool) -> tuple[int, int]:
    if shape == "S":
        return 1, 1
    if "x" in shape:
        r, c = shape.split("x")
        return int(r), int(c)
    return (1, int(shape)) if left else (int(shape), 1)


def _folded(c: Compiled, id_: str) -> list[int]:
    """The components of a folded constant (composites flattened in order)."""
    line = next(line.strip() for line in c.asm.splitlines() if line.strip().startswith(f"{id_} = "))
    if " OpConstantComposite " in line:
        return [v for part in line.split()[4:] for v in _folded(c, part)]
    assert " OpConstant " in line, line
    return [int(line.split()[-1])]


def _typed(element: str, shape: str) -> str:
    return element if shape == "S" else element + shape


@pytest.mark.parametrize("element", ["int", "uint"])
@pytest.mark.parametrize("left,right", INT_MUL, ids=[f"{f[0]}*{f[1]}" for f in INT_MUL])
def test_integer_mul_computes_the_matrix_product(tmp_path, element, left, right):
    (lr, lc), (rr, rc) = _dims(left, True), _dims(right, False)
    x = [[1 + r * lc + k for k in range(lc)] for r in range(lr)]
    y = [[2 + 3 * k + j * j for j in range(rc)] for k in range(rr)]
    if left == "S":
        product = [[x[0][0] * v for v in row] for row in y]
    elif right == "S":
        product = [[y[0][0] * v for v in row] for row in x]
    else:
        product = [[sum(x[r][k] * y[k][j] for k in range(lc)) for j in range(rc)] for r in range(lr)]
    if right == "S" or left == "S":
        result = _typed(element, right if left == "S" else left)
    elif "x" not in left and "x" not in right:
        result = element
    else:
        result = f"{element}{len(product)}x{len(product[0])}"
    lt, rt = _typed(element, left), _typed(element, right)
    source = f"""
RWStructuredBuffer<{result}> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]
void Main() {{
    {lt} x = {lt}({', '.join(str(v) for row in x for v in row)});
    {rt} y = {rt}({', '.join(str(v) for row in y for v in row)});
    Out[0] = mul(x, y);
}}"""
    # spirv-opt folds the scalar multiply-adds of constant operands into the stored constant
    c = compile_hlsl(source, tmp_path, optimize=True, default_row_major=True)
    assert "OpMatrixTimes" not in c.asm and "OpDot" not in c.asm
    stored = c.lines("OpStore")[-1].split()[-1]
    assert _folded(c, stored) == [v for row in product for v in row]


def test_integer_mul_of_a_vector_and_a_matrix_is_scalar_arithmetic(tmp_path):
    c = build(tmp_path, "int", "int3 v = B.Load<int3>(0); int3x2 m = B.Load<int3x2>(64); B.Store(256, mul(v, m));")
    assert c.count("OpIMul") == 6 and c.count("OpMatrixTimesVector") == 0


def piece(type_: str) -> str:
    """The SPIR-V type name an instruction on `type_` works on (a matrix: its row vector)."""
    match = re.fullmatch(r"([a-z]+)(\d)?(?:x(\d))?", type_)
    element, first, second = match.groups()
    count = int(second if second and first != "1" else first or 1)
    return f"%v{count}{element}" if count > 1 else f"%{element}"


@pytest.mark.parametrize("type_", ["float", "int3", "float2x2", "uint3x2", "bool2x2", "half4"])
def test_select_chooses_component_by_component(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, select(a > b, a, b)); B.Store(512, select(gi > 1, a, b));")
    selects = [line for line in c.lines("OpSelect") if line.split()[3] == piece(type_)]
    assert len(selects) == 2 * rows(type_)
    conditions = {line.split()[4] for line in selects}
    assert all(re.search(rf"{re.escape(cond)} = \S+ %(v\d)?bool ", c.asm) for cond in conditions)


# ---------------------------------------------------------------- bits and reinterpretation


def _bit_lines(c: Compiled) -> list[str]:
    ops = ("OpBitCount", "OpBitReverse", "FindUMsb", "FindSMsb", "FindILsb")
    return [line for line in c.asm.splitlines() if any(op in line for op in ops)]


BIT_CASES = [
    # type, instructions per call (countbits, firstbithigh, firstbitlow, reversebits), msb instruction
    ("uint", 1, "FindUMsb"), ("int3", 1, "FindSMsb"), ("uint2x2", 2, "FindUMsb"), ("int3x3", 3, "FindSMsb"),
    ("uint16_t", 1, "FindUMsb"), ("int16_t2", 1, "FindSMsb"), ("uint64_t", 2, "FindUMsb"),
    ("int64_t2", 4, "FindSMsb"),
]


@pytest.mark.parametrize("type_,count,msb", BIT_CASES)
def test_bit_instructions_run_on_32_bit_integers(tmp_path, type_, count, msb):
    c = build(tmp_path, type_, "B.Store(256, countbits(a) + firstbithigh(a) + firstbitlow(a)); "
                               "B.Store(512, reversebits(a));")
    assert c.count("OpBitCount") == c.count("OpBitReverse") == count
    assert len(ext(c, "FindILsb")) == count
    if type_.startswith("int64"):               # the sign's half, then the other half unsigned
        assert len(ext(c, "FindSMsb")) == len(ext(c, "FindUMsb")) == count // 2
    else:
        assert len(ext(c, msb)) == count
    for line in _bit_lines(c):                  # Vulkan: bit instructions on 32-bit integers only
        assert re.search(r"(OpBitCount|OpBitReverse|OpExtInst) %(v\d)?u?int ", line), line
    if "16" in type_:
        assert c.count("OpUConvert") >= 1       # zero-extended (sign-extended for FindSMsb)
    if "64" in type_:                           # from the two 32-bit halves
        assert c.asm.count("OpBitcast %v2uint") >= 1


def test_firstbit_results_are_uint_without_conversion(tmp_path):
    c = build(tmp_path, "int3", "B.Store(256, firstbithigh(a) + firstbitlow(a) + countbits(a));")
    for line in _bit_lines(c):                  # FindSMsb/FindILsb/OpBitCount of an int give uints
        assert " %v3uint " in line
    assert not any("OpBitcast %v3uint" in line for line in c.lines("OpBitcast"))


@pytest.mark.parametrize("type_,call,result", [
    ("float", "asuint", "%uint"), ("float3", "asint", "%v3int"), ("int4", "asfloat", "%v4float"),
    ("uint", "asint", "%int"), ("float2x2", "asuint", "%v2uint"), ("int2x3", "asfloat", "%v3float"),
])
def test_reinterpretation_is_bitcast(tmp_path, type_, call, result):
    c = build(tmp_path, type_, f"B.Store(256, {call}(a));")
    assert any(f"OpBitcast {result} " in line for line in c.lines("OpBitcast"))


def test_reinterpreting_as_the_same_type_emits_nothing(tmp_path):
    plain = build(tmp_path, "uint4", "B.Store(256, a);")
    same = build(tmp_path, "uint4", "B.Store(256, asuint(a));")
    assert plain.count("OpBitcast") == same.count("OpBitcast")


def test_asuint_of_a_double_writes_the_two_halves(tmp_path):
    c = build(tmp_path, "double", "uint lo; float hi; asuint(a, lo, hi); B.Store(256, float2(lo, hi));")
    assert "OpBitcast %v2uint" in c.asm
    assert any(line.startswith("OpStore %lo ") for line in c.lines("OpStore"))
    assert c.count("OpConvertUToF") >= 1                            # the out argument's own type


@pytest.mark.parametrize("type_,count", [("float", 1), ("float3", 3), ("float2x2", 4)])
def test_half_packing_per_component(tmp_path, type_, count):
    c = build(tmp_path, type_, "B.Store(256, f32tof16(a)); B.Store(512, f16tof32(asuint(a)));")
    assert len(ext(c, "PackHalf2x16")) == len(ext(c, "UnpackHalf2x16")) == count
    pairs = [line for line in c.lines("OpCompositeConstruct") if "%v2float" in line and line.endswith(" %float_0")]
    assert len(pairs) == count                                        # (x, 0) packed
    extracts = [line for line in c.lines("OpCompositeExtract") if line.endswith(" 0")]
    assert len(extracts) >= count                                     # .x of the unpacked pair


# ---------------------------------------------------------------- atomics


ATOMICS = [("InterlockedAdd", "OpAtomicIAdd", "OpAtomicIAdd"), ("InterlockedAnd", "OpAtomicAnd", "OpAtomicAnd"),
           ("InterlockedOr", "OpAtomicOr", "OpAtomicOr"), ("InterlockedXor", "OpAtomicXor", "OpAtomicXor"),
           ("InterlockedMin", "OpAtomicUMin", "OpAtomicSMin"), ("InterlockedMax", "OpAtomicUMax", "OpAtomicSMax"),
           ("InterlockedExchange", "OpAtomicExchange", "OpAtomicExchange")]


@pytest.mark.parametrize("name,unsigned,signed", ATOMICS)
def test_atomics_pick_the_instruction_by_signedness(tmp_path, name, unsigned, signed):
    c = build(tmp_path, "uint", f"uint o; {name}(gs, a, o); {name}(gsi, 1); {name}(U[gi], 2u); "
                                "B.Store(256, o);")
    if unsigned == signed:
        assert c.count(unsigned) == 3
    else:
        assert c.count(unsigned) == 2 and c.count(signed) == 1
    assert any(line.startswith("OpStore %o ") for line in c.lines("OpStore"))   # the original value


def test_atomic_scopes_follow_the_memory_and_semantics_are_relaxed(tmp_path):
    c = build(tmp_path, "uint", "InterlockedAdd(gs, 1); InterlockedAdd(gsa[a], 1); InterlockedAdd(U[0], 1); "
                                "B.InterlockedAdd(0, 1);")
    scopes = [operands(line)[1:3] for line in c.lines("OpAtomicIAdd")]
    assert scopes == [["%uint_2", "%uint_0"]] * 2 + [["%uint_1", "%uint_0"]] * 2  # Workgroup, Device


def test_compare_exchange_passes_value_then_comparator(tmp_path):
    c = build(tmp_path, "uint", "uint o; InterlockedCompareExchange(gs, a, b, o); InterlockedCompareStore(U[0], b, a);"
                                " B.Store(256, o);")
    first, second = (operands(line)[4:] for line in c.lines("OpAtomicCompareExchange"))
    a, b = loaded(c, "a"), loaded(c, "b")
    assert first[0] in b and first[1] in a and second[0] in a and second[1] in b


def test_atomic_original_value_converts_to_the_out_argument(tmp_path):
    c = build(tmp_path, "uint", "float o; InterlockedAdd(gs, a, o); B.Store(256, o);")
    assert c.count("OpConvertUToF") == 1


def test_64_bit_atomics_declare_int64_atomics(tmp_path):
    c = build(tmp_path, "int64_t", "int64_t o; InterlockedMax(L[0], a, o); InterlockedCompareStore(L[1], a, b);"
                                   " B.Store(256, o);")
    assert capability(c, "Int64Atomics") and c.count("OpAtomicSMax") == 1
    assert "OpAtomicCompareExchange %long" in c.asm


def test_atomics_on_storage_image_texels(tmp_path):
    c = compile_hlsl("""
RWTexture2D<uint> T : register(u0);
RWTexture1D<int> S : register(u1);
RWStructuredBuffer<uint> U : register(u2);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) {
    uint o; InterlockedAdd(T[uint2(gi, 0)], 1, o); InterlockedMin(S[gi], -1);
    InterlockedCompareExchange(T[uint2(0, gi)], 1, 2, o); U[0] = o;
}""", tmp_path)
    pointers = {line.split()[0] for line in c.lines("OpImageTexelPointer")}
    atomics = c.lines("OpAtomicIAdd") + c.lines("OpAtomicSMin") + c.lines("OpAtomicCompareExchange")
    assert len(pointers) == len(atomics) == 3
    assert all(operands(line)[0] in pointers and operands(line)[1] == "%uint_1" for line in atomics)


# ---------------------------------------------------------------- barriers


LEGACY_BARRIERS = [
    # call, instruction, scope operands, semantics (AcquireRelease | memory kinds)
    ("GroupMemoryBarrier", "OpMemoryBarrier", ["%uint_2"], 0x8 | 0x100),
    ("GroupMemoryBarrierWithGroupSync", "OpControlBarrier", ["%uint_2", "%uint_2"], 0x8 | 0x100),
    ("DeviceMemoryBarrier", "OpMemoryBarrier", ["%uint_1"], 0x8 | 0x40 | 0x800),
    ("DeviceMemoryBarrierWithGroupSync", "OpControlBarrier", ["%uint_2", "%uint_1"], 0x8 | 0x40 | 0x800),
    ("AllMemoryBarrier", "OpMemoryBarrier", ["%uint_1"], 0x8 | 0x40 | 0x100 | 0x800),
    ("AllMemoryBarrierWithGroupSync", "OpControlBarrier", ["%uint_2", "%uint_1"], 0x8 | 0x40 | 0x100 | 0x800),
]


@pytest.mark.parametrize("call,op,scopes,semantics", LEGACY_BARRIERS)
def test_legacy_barriers_match_dxc(tmp_path, call, op, scopes, semantics):
    c = build(tmp_path, "uint", f"{call}();")
    [line] = c.lines(op)
    assert line.split()[1:] == [*scopes, f"%uint_{semantics}"]


BARRIERS = [
    # memory flags, semantic flags, expected instruction line (None: no instruction)
    ("0", "0", None),
    # UAV memory is buffers and images: AcqRel|Uniform|Image = 0x8|0x40|0x800 = 2120
    ("UAV_MEMORY", "DEVICE_SCOPE", "OpMemoryBarrier %uint_1 %uint_2120"),
    ("GROUP_SHARED_MEMORY", "GROUP_SCOPE | GROUP_SYNC", "OpControlBarrier %uint_2 %uint_2 %uint_264"),
    ("UAV_MEMORY | GROUP_SHARED_MEMORY", "GROUP_SCOPE", "OpMemoryBarrier %uint_2 %uint_2376"),
    ("UAV_MEMORY", "DEVICE_SCOPE | GROUP_SYNC", "OpControlBarrier %uint_2 %uint_1 %uint_2120"),
    ("0", "GROUP_SYNC", "OpControlBarrier %uint_2 %uint_4 %uint_0"),
    # Invocation scope: Vulkan wants Relaxed semantics; ordering one's own accesses needs nothing
    ("UAV_MEMORY", "0", None),
    ("UAV_MEMORY | GROUP_SHARED_MEMORY", "GROUP_SYNC", "OpControlBarrier %uint_2 %uint_4 %uint_0"),
]


@pytest.mark.parametrize("memory,flags,expected", BARRIERS)
def test_barrier_flags(tmp_path, memory, flags, expected):
    c = build(tmp_path, "uint", f"Barrier({memory}, {flags});")
    found = c.lines("OpMemoryBarrier") + c.lines("OpControlBarrier")
    assert found == ([expected] if expected else [])


def test_node_output_memory_barrier_uses_the_vulkan_memory_model(tmp_path):
    c = build(tmp_path, "uint", "Barrier(NODE_OUTPUT_MEMORY | UAV_MEMORY, DEVICE_SCOPE | GROUP_SYNC);")
    assert capability(c, "VulkanMemoryModel")
    [line] = c.lines("OpControlBarrier")
    assert line.split()[1:3] == ["%uint_2", "%uint_5"]             # Device is QueueFamily there
    # AcqRel|Uniform|Image|Output, and MakeAvailable|MakeVisible (the Vulkan model's barriers)
    assert line.split()[3] == f"%uint_{0x8 | 0x40 | 0x800 | 0x1000 | 0x2000 | 0x4000}"


MEMORY_FLAGS = {"UAV_MEMORY": 0x1, "GROUP_SHARED_MEMORY": 0x2, "NODE_INPUT_MEMORY": 0x4, "NODE_OUTPUT_MEMORY": 0x8}


def _expected_semantics(memory: int) -> int:
    """dxc.md's Barrier table, with UAV memory including images (as DeviceMemoryBarrier) and node
    input memory lowered like node output memory (both are NodePayloadAMDX records):
    AcquireRelease 0x8, UniformMemory 0x40, WorkgroupMemory 0x100, ImageMemory 0x800,
    OutputMemory 0x1000; the Vulkan memory model (node memory) adds MakeAvailable 0x2000 and
    MakeVisible 0x4000."""
    bits = 0x8
    if memory & 0x1:
        bits |= 0x40 | 0x800
    if memory & 0x2:
        bits |= 0x100
    if memory & 0xC:
        bits |= 0x1000 | 0x2000 | 0x4000
    return bits


@pytest.mark.parametrize("memory", range(1, 16))
def test_every_barrier_memory_flag_combination(tmp_path, memory):
    spelled = " | ".join(name for name, bit in MEMORY_FLAGS.items() if memory & bit)
    c = build(tmp_path, "uint", f"Barrier({spelled}, GROUP_SCOPE | GROUP_SYNC);")
    vulkan = bool(memory & 0xC)
    assert ("OpMemoryModel Logical Vulkan" in c.asm) is vulkan
    assert c.lines("OpControlBarrier") == [f"OpControlBarrier %uint_2 %uint_2 %uint_{_expected_semantics(memory)}"]
    if not memory & 0x5:           # DEVICE_SCOPE needs UAV or node input memory (sema's rule)
        return
    c = build(tmp_path, "uint", f"Barrier({spelled}, DEVICE_SCOPE);")
    assert c.lines("OpMemoryBarrier") == [f"OpMemoryBarrier %uint_{5 if vulkan else 1} "
                                          f"%uint_{_expected_semantics(memory)}"]


# ---------------------------------------------------------------- wave and quad operations


WAVE_ARITHMETIC = [
    # call, element: instruction per element kind, group operation
    ("WaveActiveSum", {"float": "OpGroupNonUniformFAdd", "int": "OpGroupNonUniformIAdd",
                       "uint": "OpGroupNonUniformIAdd"}, "Reduce"),
    ("WaveActiveProduct", {"float": "OpGroupNonUniformFMul", "int": "OpGroupNonUniformIMul",
                           "uint": "OpGroupNonUniformIMul"}, "Reduce"),
    ("WaveActiveMin", {"float": "OpGroupNonUniformFMin", "int": "OpGroupNonUniformSMin",
                       "uint": "OpGroupNonUniformUMin"}, "Reduce"),
    ("WaveActiveMax", {"float": "OpGroupNonUniformFMax", "int": "OpGroupNonUniformSMax",
                       "uint": "OpGroupNonUniformUMax"}, "Reduce"),
    ("WavePrefixSum", {"float": "OpGroupNonUniformFAdd", "int": "OpGroupNonUniformIAdd",
                       "uint": "OpGroupNonUniformIAdd"}, "ExclusiveScan"),
    ("WavePrefixProduct", {"float": "OpGroupNonUniformFMul", "int": "OpGroupNonUniformIMul",
                           "uint": "OpGroupNonUniformIMul"}, "ExclusiveScan"),
    ("WaveActiveBitAnd", {"int": "OpGroupNonUniformBitwiseAnd", "uint": "OpGroupNonUniformBitwiseAnd"}, "Reduce"),
    ("WaveActiveBitOr", {"int": "OpGroupNonUniformBitwiseOr", "uint": "OpGroupNonUniformBitwiseOr"}, "Reduce"),
    ("WaveActiveBitXor", {"int": "OpGroupNonUniformBitwiseXor", "uint": "OpGroupNonUniformBitwiseXor"}, "Reduce"),
]


@pytest.mark.parametrize("shape", ["", "3"])
@pytest.mark.parametrize("call,ops,operation", WAVE_ARITHMETIC, ids=[w[0] for w in WAVE_ARITHMETIC])
def test_wave_arithmetic(tmp_path, call, ops, operation, shape):
    for element, op in ops.items():
        c = build(tmp_path, element + shape, f"B.Store(256, {call}(a));")
        [line] = c.lines(op)
        assert operands(line)[:2] == ["%uint_3", operation]            # Subgroup scope
        assert capability(c, "GroupNonUniform") and capability(c, "GroupNonUniformArithmetic")


def test_wave_arithmetic_of_wider_and_narrower_types(tmp_path):
    c = build(tmp_path, "int64_t2", "B.Store(256, WaveActiveSum(a) + WavePrefixProduct(a));")
    assert "OpGroupNonUniformIAdd %v2long" in c.asm and "OpGroupNonUniformIMul %v2long" in c.asm
    c = build(tmp_path, "half3", "B.Store(256, WaveActiveMax(a));")
    assert "OpGroupNonUniformFMax %v3half" in c.asm


def test_wave_votes_and_ballots(tmp_path):
    c = build(tmp_path, "float", "bool p = a > 0; B.Store(256, uint4(WaveActiveAllTrue(p), WaveActiveAnyTrue(p), "
                                 "WaveActiveCountBits(p), WavePrefixCountBits(p))); B.Store(512, WaveActiveBallot(p));")
    assert c.count("OpGroupNonUniformAll") == c.count("OpGroupNonUniformAny") == 1
    assert c.count("OpGroupNonUniformBallot") == 3
    reduce_, scan = c.lines("OpGroupNonUniformBallotBitCount")
    assert operands(reduce_)[1] == "Reduce" and operands(scan)[1] == "ExclusiveScan"
    assert "OpGroupNonUniformBallot %v4uint %uint_3" in c.asm
    assert capability(c, "GroupNonUniformVote") and capability(c, "GroupNonUniformBallot")


@pytest.mark.parametrize("type_,count", [("float", 1), ("int3", 3), ("bool2", 2), ("double4", 4)])
def test_wave_all_equal_compares_each_component(tmp_path, type_, count):
    c = build(tmp_path, type_, "B.Store(256, WaveActiveAllEqual(a));")
    assert c.count("OpGroupNonUniformAllEqual") == count and capability(c, "GroupNonUniformVote")


@pytest.mark.parametrize("type_", ["float", "uint3", "bool", "half2"])
def test_wave_reads_and_quad_swaps(tmp_path, type_):
    c = build(tmp_path, type_, "B.Store(256, WaveReadLaneAt(a, gi + 1)); B.Store(512, WaveReadLaneFirst(a));"
                               " B.Store(768, QuadReadAcrossX(a)); B.Store(800, QuadReadAcrossY(a));"
                               " B.Store(900, QuadReadAcrossDiagonal(a));")
    assert c.count("OpGroupNonUniformShuffle") == 1 and capability(c, "GroupNonUniformShuffle")
    assert c.count("OpGroupNonUniformBroadcastFirst") == 1 and capability(c, "GroupNonUniformBallot")
    directions = [operands(line)[-1] for line in c.lines("OpGroupNonUniformQuadSwap")]
    assert directions == ["%uint_0", "%uint_1", "%uint_2"] and capability(c, "GroupNonUniformQuad")


def test_lane_index_count_and_first_lane(tmp_path):
    c = build(tmp_path, "uint", "B.Store(256, uint3(WaveGetLaneIndex(), WaveGetLaneCount(), WaveIsFirstLane()));")
    assert "BuiltIn SubgroupLocalInvocationId" in c.asm and "BuiltIn SubgroupSize" in c.asm
    [entry] = c.lines("OpEntryPoint")
    assert "%gl_SubgroupLocalInvocationId" in entry and "%gl_SubgroupSize" in entry
    assert c.count("OpGroupNonUniformElect") == 1 and capability(c, "GroupNonUniform")


# ---------------------------------------------------------------- work graphs and refusals


def test_remaining_recursion_levels_is_a_built_in(tmp_path):
    c = compile_hlsl("""
struct Rec { uint depth; };
RWStructuredBuffer<uint> U : register(u0);
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(3)]
void Walk(ThreadNodeInputRecord<Rec> input) { U[0] = GetRemainingRecursionLevels(); }
""", tmp_path)
    assert "BuiltIn RemainingRecursionLevelsAMDX" in c.asm
    assert "%RemainingRecursionLevelsAMDX" in c.lines("OpEntryPoint")[0]


def test_atomics_on_node_records_are_refused_under_werror(tmp_path):
    errors = compile_errors("""
struct R { uint3 grid : SV_DispatchGrid; uint total; };
struct Seed { uint x; };
[Shader("node")] [NodeLaunch("thread")] void Start(ThreadNodeInputRecord<Seed> i, [MaxRecords(1)] NodeOutput<R> Sum) { }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,1,1)] [NumThreads(4,1,1)]
void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }
""", tmp_path, warning_flags=("error=amdx-record-atomics",))
    assert errors == ["WG0620: 'InterlockedAdd' on a record of 'RWDispatchNodeInputRecord<R>' is not valid Vulkan "
                      "SPIR-V: the record is shared by every thread group of the dispatch, and Vulkan allows no atomic "
                      "operations on NodePayloadAMDX memory"]
