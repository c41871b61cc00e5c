"""Memos that make sema cheaper (issue 16): each answers what the computation it replaces answers.

- `types.scalar`/`vector`/`matrix` keep their types in a strong table (`_SHAPES`) besides the weak
  interning table: both give the same object for a key;
- `typeref.builtin_scalar_or_shape` keeps its answers that are types: every scalar keyword and its
  vector and matrix forms, with and without 16-bit types, resolve as the uncached function does;
- `methods._symbol` makes the node-object types of an object's record (`NodeOutput<R>`, ...) when it
  meets them, instead of `_environment` making (and dropping) them on every method call.
- `conversions.implicit_conversion` and `common_type` keep their answers for two scalars, vectors or
  matrices (and only for those: no compile's struct or enum is kept alive);
- `intrinsics.resolve_intrinsic` keeps its answers for arguments that are all such types;
- `calls.FunctionCalls` keeps `methods.resolve_method`'s answers for one compile;
- `expr._SWIZZLE_COMPONENTS` holds every valid vector swizzle, as `swizzle_components` computes it;
- the shortcuts (not memos) that skip general code: `consteval.fold` of a constant without a folder,
  `convert_value` between scalars without the splat, `declarations._find_word` without `re`, the
  checkers' dispatch tables (`context.node_handlers`), `to_scalar` of an int in range without wrapping,
  `constant_value` without a `Folded`, `_IntLiteral` of an unsuffixed int, `resolve_method` of a method
  of one declaration without the ranking (`_ranked`), and `layout_of`'s table read without `setdefault`.
The uniformity replay, the children kept with a body's walk and the path reports kept on a
function are tested in tests/test_uniformity.py.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import typing

import pytest

from wgc import ir
from wgc import types as t
from wgc.irtools import consteval
from wgc.sema import conversions, expr, intrinsics, methods, stmt, typeref
from wgc.sema.analyze import builtin_scope
from wgc.sema.context import Context, FunctionState, SemaOptions, node_handlers
from wgc.sema.declarations import DeclarationChecker, _find_word
from wgc.sema.scope import ScopeKind
from wgc.source import SourceFile, Span
from wgc.syntax import ast
from wgc.syntax.parse import parse_source
from wgc.types import NodeObjectKind as NK

SCALAR_KEYWORDS = ["bool", "int", "uint", "dword", "float", "double", "half", "min16float", "min10float",
                   "min16int", "min12int", "min16uint", "int16_t", "uint16_t", "float16_t", "int32_t",
                   "uint32_t", "float32_t", "int64_t", "uint64_t", "float64_t"]


def test_shapes_are_the_interned_types() -> None:
    """A strongly kept scalar, vector or matrix is the object the weak interning table holds for its key."""
    for kind, bits in [(t.ScalarKind.INT, 32), (t.ScalarKind.FLOAT, 16), (t.ScalarKind.UINT, 64)]:
        scalar = t.scalar(kind, bits)
        assert t._INTERNED[("scalar", kind, bits, scalar.spelling, False)] is scalar
        for count in range(1, 5):
            vector = t.vector(scalar, count)
            assert t._INTERNED[("vector", scalar, count)] is vector and t.vector(scalar, count) is vector
            assert (vector.element, vector.count) == (scalar, count)
        for rows, columns in itertools.product(range(1, 5), repeat=2):
            matrix = t.matrix(scalar, rows, columns)
            assert t._INTERNED[("matrix", scalar, rows, columns)] is matrix and t.matrix(scalar, rows, columns) is matrix
            assert (matrix.element, matrix.rows, matrix.columns) == (scalar, rows, columns)
    relaxed = t.scalar(t.ScalarKind.FLOAT, 32, "min16float", relaxed=True)
    assert relaxed is not t.FLOAT and relaxed.relaxed and t.scalar(t.ScalarKind.FLOAT, 32) is t.FLOAT


def test_builtin_shapes_equal_the_uncached_resolution() -> None:
    names = [f"{scalar}{shape}" for scalar in SCALAR_KEYWORDS
             for shape in ["", "1", "4", "2x3", "4x4"]] + ["float5", "floatx", "Rec", "int8_t4_packed", "vector"]
    resolved = 0
    for sixteen in (False, True):
        for name in names:
            expected = typeref._scalar_or_shape(name, sixteen)
            for _ in range(2):   # the first answer may be computed, the second is kept
                assert typeref.builtin_scalar_or_shape(name, sixteen) is expected, (name, sixteen)
            resolved += expected is not None
    assert resolved > 150
    assert typeref.builtin_scalar_or_shape("half", True) is t.scalar(t.ScalarKind.FLOAT, 16)
    assert typeref.builtin_scalar_or_shape("half", False) is t.scalar(t.ScalarKind.FLOAT, 32, "half")
    assert typeref.builtin_scalar_or_shape("min16uint3", False) is t.vector(
        t.scalar(t.ScalarKind.UINT, 32, "min16uint", relaxed=True), 3)


def test_record_node_objects_are_made_when_met() -> None:
    """For a node object with a record R, the symbols `ThreadNodeOutputRecords<R>`,
    `GroupNodeOutputRecords<R>` and `NodeOutput<R>` mean those node objects of R (what the eager
    environment held); without a record (or for a resource) they mean nothing."""
    record = t.StructType("Rec", [t.Field("x", t.UINT)])
    output = t.node_object(NK.NODE_OUTPUT, record)
    env = methods._environment(output)
    for kind in (NK.THREAD_NODE_OUTPUT_RECORDS, NK.GROUP_NODE_OUTPUT_RECORDS, NK.NODE_OUTPUT):
        assert methods._symbol(f"{kind.value}<R>", env) is t.node_object(kind, record)
    assert methods._symbol("R", env) is record and methods._symbol("uint", env) is t.UINT
    for other in (t.node_object(NK.EMPTY_NODE_OUTPUT, None), t.resource(t.ResourceKind.RW_BUFFER, t.UINT)):
        assert methods._symbol("NodeOutput<R>", methods._environment(other)) is None


# ---------------------------------------------------------------- sema's memos and shortcuts (issue 16, h-semad)

I16 = t.scalar(t.ScalarKind.INT, 16)
HALF = t.scalar(t.ScalarKind.FLOAT, 32, "half")
MIN16 = t.scalar(t.ScalarKind.FLOAT, 32, "min16float", relaxed=True)
SCALARS = [t.BOOL, t.INT, t.UINT, t.FLOAT, t.DOUBLE, t.INT64, t.UINT64, I16, HALF, MIN16]
SHAPES = SCALARS + [t.vector(s, n) for s in SCALARS for n in (1, 2, 4)] \
    + [t.matrix(s, r, c) for s in (t.FLOAT, t.INT, t.BOOL) for r, c in ((1, 1), (2, 3), (4, 4), (1, 4), (4, 1))]


def test_conversions_between_shapes_are_the_computed_ones() -> None:
    """Asked twice (the second answer may come from the memo), every pair of shapes converts and meets as
    the uncached functions say; the pairs are then in the memos."""
    for source, target in itertools.product(SHAPES, repeat=2):
        expected = conversions._implicit_conversion(source, target) if source is not target else conversions.EXACT
        common = conversions._common_type(source, target)
        for _ in range(2):
            assert conversions.implicit_conversion(source, target) == expected, (source, target)
            assert conversions.common_type(source, target) == common, (source, target)
        assert source is target or (source, target) in conversions._IMPLICIT
        assert (source, target) in conversions._COMMON
    # spot checks against HLSL's rules (independent of both): int -> float converts, float3 -> float2 truncates
    assert conversions.implicit_conversion(t.INT, t.FLOAT) == conversions.Conversion(
        conversions.ShapeChange.NONE, conversions.ComponentRank.CONVERSION)
    assert conversions.implicit_conversion(t.vector(t.FLOAT, 3), t.vector(t.FLOAT, 2)).truncates
    assert conversions.common_type(t.INT, t.vector(t.FLOAT, 3)) == (t.vector(t.FLOAT, 3), False)


def test_conversions_of_compile_types_are_not_kept() -> None:
    """A struct or an enum belongs to one compile: answers about it are computed, never kept."""
    enum = t.EnumType("E", t.UINT, scoped=False)
    struct = t.StructType("S", [t.Field("x", t.UINT)])
    for other in (t.UINT, t.vector(t.FLOAT, 2), struct, enum):
        for pair in ((enum, other), (other, enum), (struct, other), (other, struct)):
            if pair[0] is not pair[1]:
                assert conversions.implicit_conversion(*pair) == conversions._implicit_conversion(*pair)
            assert conversions.common_type(*pair) == conversions._common_type(*pair)
            assert pair not in conversions._IMPLICIT and pair not in conversions._COMMON
    assert conversions.implicit_conversion(enum, t.UINT) is not None   # an unscoped enum converts to its integer


INTRINSIC_CALLS = [("max", (t.FLOAT, t.FLOAT)), ("max", (t.INT, t.UINT)), ("lerp", (t.FLOAT, t.FLOAT, t.FLOAT)),
                   ("lerp", (t.vector(t.FLOAT, 3), t.FLOAT, t.FLOAT)), ("dot", (t.vector(t.INT, 2), t.vector(t.INT, 2))),
                   ("mul", (t.FLOAT, t.FLOAT)), ("abs", (t.BOOL,)), ("asuint", (t.FLOAT,)), ("max", (t.FLOAT,)),
                   ("clamp", (t.vector(t.FLOAT, 2), t.vector(t.FLOAT, 3), t.FLOAT))]


@pytest.mark.parametrize("name, args", INTRINSIC_CALLS, ids=[f"{n}{len(a)}" for n, a in INTRINSIC_CALLS])
def test_intrinsic_resolutions_are_the_computed_ones(name: str, args: tuple[t.Type, ...]) -> None:
    expected = intrinsics._resolve_intrinsic(name, args)
    for _ in range(2):
        assert intrinsics.resolve_intrinsic(name, list(args)) == expected
    assert intrinsics._RESOLVED[(name, args)] == expected


def test_intrinsic_resolutions_of_compile_types_are_not_kept() -> None:
    struct = t.StructType("S", [t.Field("x", t.UINT)])
    found = intrinsics.resolve_intrinsic("max", [struct, t.FLOAT])
    assert isinstance(found, intrinsics.NoMatch)
    assert ("max", (struct, t.FLOAT)) not in intrinsics._RESOLVED
    assert intrinsics.resolve_intrinsic("max", (t.FLOAT, t.FLOAT)).result is t.FLOAT   # type: ignore[union-attr]


METHOD_PROGRAM = """
struct Rec { uint3 grid : SV_DispatchGrid; float4 color; };
RWBuffer<float4> output;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Node(DispatchNodeInputRecord<Rec> input, uint gi : SV_GroupIndex)
{
    float4 a = input.Get().color;
    float4 b = input.Get().color;
    output[gi] = a + b + output.Load(gi) + output.Load(gi + 1);
}
"""


def test_method_resolutions_are_kept_per_compile() -> None:
    """Each object's method is resolved once per argument types in a compile, and the kept answer is
    what `methods.resolve_method` computes."""
    unit = parse_source(SourceFile("memo.hlsl", METHOD_PROGRAM)).unit
    ctx = Context(SemaOptions(), builtin_scope().child(ScopeKind.GLOBAL), frozenset())
    checker = DeclarationChecker(ctx)
    checker.declare_all(unit.decls)
    assert not ctx.diagnostics, ctx.diagnostics
    kept = checker.calls._methods
    assert sorted(name for _, name, _, _ in kept) == ["Get", "Load"]    # four calls, two resolutions
    for (object_type, name, arg_types, template_type), resolved in kept.items():
        assert resolved == methods.resolve_method(object_type, name, arg_types, template_type)
    get = next(r for (_, name, _, _), r in kept.items() if name == "Get")
    assert isinstance(get, methods.MethodResolved) and isinstance(get.result, t.StructType)
    assert get.result.name == "Rec"


def test_swizzle_table_is_the_computed_swizzles() -> None:
    names = ["".join(letters) for length in range(1, 6) for letters in itertools.product("xyzwrgbaq", repeat=length)]
    valid = {name: expr.swizzle_components(name) for name in names}
    assert {name: c for name, c in valid.items() if c is not None} == expr._SWIZZLE_COMPONENTS
    assert len(expr._SWIZZLE_COMPONENTS) == 2 * (4 + 4**2 + 4**3 + 4**4)
    # independent of both: HLSL's component numbering
    assert expr._SWIZZLE_COMPONENTS["wzyx"] == (3, 2, 1, 0) and expr._SWIZZLE_COMPONENTS["rgba"] == (0, 1, 2, 3)
    assert expr._SWIZZLE_COMPONENTS["xxy"] == (0, 0, 1)
    for invalid in ("xr", "xyzwx", "q", "rgbaa"):
        assert invalid not in expr._SWIZZLE_COMPONENTS and expr.swizzle_components(invalid) is None


def _constants() -> list[ir.Constant]:
    span = Span(SourceFile("c.hlsl", "0"), 0, 1)
    values: list[tuple[t.Type, ir.ConstValue]] = []
    for scalar in SCALARS:
        for value in (0, 1, -1, 2**31, 2**40 + 3, True, False, 0.5, -0.0, 1e300, math.inf, math.nan, 16777217):
            values.append((scalar, value))
    values += [(t.vector(t.FLOAT, 3), (1, 2.5, -3)), (t.vector(t.INT, 2), (2**33, -1.75)),
               (t.matrix(t.FLOAT, 2, 2), (1, 2, 3, 4)), (t.STRING, "text")]
    return [ir.Constant(type_, span, value, literal) for type_, value in values for literal in (False, True)]


def _same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN and -0.0 told from 0.0 (the values the folder computes)."""
    return repr(a) == repr(b) and type(a) is type(b)


def test_folding_a_constant_is_the_folders_answer() -> None:
    for constant in _constants():
        expected = consteval._Folder().eval(constant)
        folded = consteval.fold(constant)
        assert isinstance(folded, consteval.Folded) and not folded.problems
        assert _same(folded.value, expected), (constant, folded.value, expected)


def test_scalar_conversions_are_the_splats() -> None:
    """Between two scalars, `convert_value` gives what its general route (a splat) gives."""
    for constant in _constants():
        if not isinstance(constant.type, t.ScalarType):
            continue
        for target in SCALARS:
            assert _same(consteval.convert_value(constant.value, constant.type, target),
                         constant.value if constant.type is target else consteval._splat(constant.value, target))
    # independent of both: wrapping and rounding as HLSL converts
    assert consteval.convert_value(2**32 + 5, t.INT64, t.INT) == 5
    assert consteval.convert_value(-1, t.INT, t.UINT) == 2**32 - 1
    assert consteval.convert_value(16777217, t.INT, t.FLOAT) == 16777216.0
    assert consteval.convert_value(2.75, t.FLOAT, t.INT) == 2 and consteval.convert_value(3, t.INT, t.BOOL) is True


def test_find_word_finds_what_the_regular_expression_finds() -> None:
    """`_find_word` without `re` against `\\bword\\b`, on texts of word and other characters (Unicode
    letters and digits are word characters for both)."""
    rng = random.Random(16)
    alphabet = "ab_1 .;(é١ß\u00a0\u0301"
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14)))
        word = "".join(rng.choice("ab_1é١") for _ in range(rng.randrange(1, 3)))
        start = rng.randrange(0, len(text) + 1)
        end = rng.randrange(start, len(text) + 1)
        match = re.search(rf"\b{re.escape(word)}\b", text[start:end])
        assert _find_word(text, word, start, end) == (start + match.start() if match else -1), (text, word, start, end)
    assert _find_word("uint count1; uint count;", "count", 0, 24) == 18


@pytest.mark.parametrize("checker, union", [(expr.ExpressionChecker, ast.Expr), (stmt.StatementChecker, ast.Stmt),
                                            (DeclarationChecker, ast.Decl)])
def test_dispatch_tables_cover_their_node_classes(checker: type, union: object) -> None:
    """Each checker handles every AST class of its union, through its method named after the class."""
    table = node_handlers(checker)
    assert set(table) == set(typing.get_args(union))
    for node, method in table.items():
        assert method is getattr(checker, "_" + node.__name__)


def test_entered_scope_is_left_on_an_exception() -> None:
    ctx = Context(SemaOptions(), builtin_scope().child(ScopeKind.GLOBAL), frozenset())
    outer = ctx.scope
    with pytest.raises(RuntimeError):
        with ctx.scope_of(ScopeKind.BLOCK) as block:
            assert ctx.scope is block and block.parent is outer
            with ctx.scope_of(ScopeKind.STRUCT, scope=outer) as given:
                assert given is outer and ctx.scope is outer
            assert ctx.scope is block
            raise RuntimeError
    assert ctx.scope is outer


def test_entered_function_is_left_on_an_exception() -> None:
    """`Context.in_function` restores the function being checked however its `with` ends (nested too)."""
    ctx = Context(SemaOptions(), builtin_scope().child(ScopeKind.GLOBAL), frozenset())
    span = Span(SourceFile("f.hlsl", "f"), 0, 1)
    outer = FunctionState(ir.Function("f", [], t.VOID, span, None, (), None, None))
    inner = FunctionState(ir.Function("g", [], t.VOID, span, None, (), None, None))
    with ctx.in_function(outer):
        assert ctx.function is outer
        with pytest.raises(RuntimeError):
            with ctx.in_function(inner):
                assert ctx.function is inner
                with ctx.in_function(None):
                    assert ctx.function is None
                assert ctx.function is inner
                raise RuntimeError
        assert ctx.function is outer
    assert ctx.function is None


def test_the_shape_helpers_classes_have_no_subclasses() -> None:
    """`element_scalar` and `component_count` test `type(x) is ScalarType` (and the vector,
    matrix and enum classes): a subclass of one of them would silently be no numeric type."""
    from wgc import types as t

    for cls in (t.ScalarType, t.VectorType, t.MatrixType, t.EnumType, t.StructType):
        assert not cls.__subclasses__(), cls


def test_the_ir_expression_classes_have_no_subclasses() -> None:
    """Sema tests `type(expr) is ir.VarRef` (and the other concrete expression and statement classes;
    `not_assignable_reason`, `consteval.fold`, `can_complete`): a subclass would silently be none of them."""
    for base in (ir.Expr, ir.Stmt):
        for cls in base.__subclasses__():
            assert not cls.__subclasses__(), cls
    assert ir.VarRef in ir.Expr.__subclasses__() and ir.Block in ir.Stmt.__subclasses__()


INTEGER_SCALARS = [t.scalar(kind, bits) for kind in (t.ScalarKind.INT, t.ScalarKind.UINT) for bits in (16, 32, 64)]


def test_integers_in_range_convert_as_wrapped() -> None:
    """`to_scalar`'s shortcut for an int in range of both signednesses gives what `_wrap_int` gives, at and
    around each width's bounds (an off-by-one in the range would change the values at 2^(bits-1))."""
    for target in INTEGER_SCALARS:
        half = 1 << (target.bits - 1)
        for value in (0, 1, 7, half - 2, half - 1, half, half + 1, 2 * half - 1, 2 * half, 2 * half + 1, -1, -half):
            assert consteval.to_scalar(value, target) == consteval._wrap_int(value, target), (target, value)
    # independent of both: two's complement at the width
    assert consteval.to_scalar(2**31, t.INT) == -2**31 and consteval.to_scalar(2**31, t.UINT) == 2**31
    assert consteval.to_scalar(2**15 - 1, t.scalar(t.ScalarKind.INT, 16)) == 2**15 - 1
    assert consteval.to_scalar(2**15, t.scalar(t.ScalarKind.INT, 16)) == -2**15


def test_the_value_of_a_constant_is_its_folded_value() -> None:
    """`consteval.constant_value` (what attribute arguments and subscripts read) is `fold`'s value."""
    for constant in _constants():
        folded = consteval.fold(constant)
        assert isinstance(folded, consteval.Folded)
        assert _same(consteval.constant_value(constant), folded.value), constant


@pytest.mark.parametrize("text, value, suffix, expected", [
    ("0", 0, "", t.INT), ("2147483647", 2**31 - 1, "", t.INT), ("2147483648", 2**31, "", t.INT64),
    ("0x7fffffff", 2**31 - 1, "", t.INT), ("0x80000000", 2**31, "", t.UINT), ("4u", 4, "u", t.UINT),
    ("4l", 4, "l", t.INT64), ("9223372036854775808", 2**63, "", t.UINT64)])
def test_integer_literal_types(text: str, value: int, suffix: str, expected: t.Type) -> None:
    """An unsuffixed literal up to INT_MAX is an int without the suffix tests (`_IntLiteral`'s shortcut);
    the rest as dxc types them (a decimal one above INT_MAX is int64, a hexadecimal one uint)."""
    ctx = Context(SemaOptions(), builtin_scope().child(ScopeKind.GLOBAL), frozenset())
    span = Span(SourceFile("l.hlsl", text), 0, len(text))
    constant = DeclarationChecker(ctx).exprs.check(ast.IntLiteral(span, value, suffix, text))
    assert isinstance(constant, ir.Constant)
    assert (constant.type, constant.value, constant.literal) == (expected, value, not suffix)


def _object_types() -> list[t.Type]:
    span = Span(SourceFile("r.hlsl", "R"), 0, 1)
    record = t.StructType("R", span=span)
    record.fields.append(t.Field("x", t.UINT, None, None, span))
    objects: list[t.Type] = [t.node_object(kind, None if kind.is_empty else record) for kind in t.NodeObjectKind]
    for kind in t.ResourceKind:
        element = record if kind.value.endswith(("StructuredBuffer", "ConstantBuffer", "TextureBuffer")) \
            else t.vector(t.FLOAT, 4)
        objects.append(t.resource(kind, element if kind.has_element_type else None))
    return [*objects, t.ray_query(0, 0)]


ARGUMENT_TYPES = [(), (t.UINT,), (t.INT,), (t.FLOAT,), (t.vector(t.INT, 2),), (t.UINT, t.UINT), (t.INT, t.FLOAT),
                  (t.vector(t.INT, 3),), (t.vector(t.FLOAT, 2),), (t.UINT, t.UINT, t.UINT), (t.INT, t.INT, t.INT, t.INT)]


def test_single_declaration_methods_resolve_as_ranked() -> None:
    """`resolve_method`'s shortcut for a method of one declaration gives what the ranking (`_ranked`) gives,
    for every object's methods and several argument lists; binding leaves the object's environment as it was."""
    shortcuts = 0
    for object_type in _object_types():
        kind = methods._kind(object_type)
        assert kind is not None
        for name, decls in methods._declarations(kind).items():
            for args in ARGUMENT_TYPES:
                for template_type in (None, t.UINT):
                    env = methods._environment(object_type)
                    before = dict(env)
                    expected = methods._ranked(object_type, decls, env, args, template_type)
                    assert methods.resolve_method(object_type, name, args, template_type) == expected
                    assert env == before, (object_type, name)
                    shortcuts += len(decls) == 1 and isinstance(expected, methods.MethodResolved)
    assert shortcuts > 20   # the shortcut was taken (Get, OutputComplete, Count, IncrementCounter, ...)


def test_layouts_are_kept_weakly_per_type() -> None:
    """`layout_of` answers from its tables what it computes; a struct's entry goes with the struct, a
    scalar's, vector's or matrix's is kept in a plain table (as `wgc.types` keeps those types)."""
    import gc

    from wgc.irtools import layout

    span = Span(SourceFile("s.hlsl", "S"), 0, 1)
    struct = t.StructType("S", span=span)
    struct.fields += [t.Field("a", t.FLOAT, None, None, span), t.Field("b", t.vector(t.FLOAT, 4), None, None, span)]
    for rule in layout.LayoutRule:
        first = layout.layout_of(struct, rule)
        assert layout.layout_of(struct, rule) is first
        assert first == layout._compute_layout(struct, rule, False, False)
    assert layout.layout_of(struct, layout.LayoutRule.STD140).size == 32   # the float4 at 16 (its alignment)
    assert layout.layout_of(struct, layout.LayoutRule.SCALAR).size == 20   # the float4 at 4
    assert struct in layout._LAYOUTS and struct not in layout._SHAPE_LAYOUTS
    for shape in (t.FLOAT, t.vector(t.FLOAT, 4), t.matrix(t.FLOAT, 3, 4), t.scalar(t.ScalarKind.INT, 16)):
        for rule in layout.LayoutRule:
            for row_major in (False, True):
                assert layout._layout(shape, rule, row_major, False) == \
                    layout._compute_layout(shape, rule, row_major, False)
        assert shape in layout._SHAPE_LAYOUTS and shape not in layout._LAYOUTS   # kept for good, as the shape
    gc.collect()   # earlier tests' garbage first: only this struct's entry may go below
    count = len(layout._LAYOUTS)
    del struct, first
    gc.collect()
    assert len(layout._LAYOUTS) == count - 1


def test_object_names_are_no_shapes() -> None:
    """`typeref._builtin` recognises resources and node objects before the scalar shapes: that order
    changes nothing only while no object's name is a scalar, vector or matrix name."""
    for name in [*typeref._RESOURCES, *typeref._NODE_OBJECTS]:
        for sixteen in (False, True):
            assert typeref._scalar_or_shape(name, sixteen) is None, name
    assert set(typeref._EMPTY_NODE_OBJECTS) == {kind for kind in t.NodeObjectKind if kind.is_empty}
    assert typeref._scalar_or_shape("uint3", False) is t.vector(t.UINT, 3)   # the test can tell a shape


INDEX_PROGRAM = """\
struct Rec { uint3 grid : SV_DispatchGrid; float4 color; };
struct Out { float4 color; uint index; };
RWBuffer<float4> output;
StructuredBuffer<float4> input_buffer;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Node(DispatchNodeInputRecord<Rec> input, [MaxRecords(1)] NodeOutput<Out> next, uint gi : SV_GroupIndex)
{
    GroupNodeOutputRecords<Out> outs = next.GetGroupNodeOutputRecords(1);
    outs[0].color = output[gi] + input_buffer[gi];
    outs[0].index = gi;
    output[gi + 1] = outs[0].color;
    outs.OutputComplete();
}
"""


def test_index_accesses_are_kept_per_compile() -> None:
    """`object[i]` is resolved once per object type in a compile (`ExpressionChecker.index`), and the kept
    answer is what `methods.index_access` computes."""
    unit = parse_source(SourceFile("index.hlsl", INDEX_PROGRAM)).unit
    ctx = Context(SemaOptions(), builtin_scope().child(ScopeKind.GLOBAL), frozenset())
    checker = DeclarationChecker(ctx)
    checker.declare_all(unit.decls)
    assert not ctx.diagnostics, ctx.diagnostics
    kept = checker.exprs._index_accesses
    assert sorted(str(type_) for type_ in kept) == ["GroupNodeOutputRecords<Out>", "RWBuffer<float4>",
                                                    "StructuredBuffer<float4>"]   # six subscripts, three types
    for object_type, access in kept.items():
        assert access == methods.index_access(object_type)
    records = next(access for type_, access in kept.items() if isinstance(type_, t.NodeObjectType))
    assert records is not None and records.record_access and records.writable and records.index_type is t.UINT


def test_argument_types_without_literals_are_the_adopted_ones() -> None:
    """`calls._adopted_types` skips the adoption when no argument is an unsuffixed literal: what the
    adoption (`_adopting`) gives those arguments, and the adoption's answer otherwise."""
    from wgc.sema import calls

    span = Span(SourceFile("a.hlsl", "a"), 0, 1)
    variable = ir.Variable("v", t.FLOAT, ir.Storage.LOCAL, span)
    pieces = [ir.Constant(t.INT, span, 1, True), ir.Constant(t.FLOAT, span, 0.5, True),
              ir.Constant(t.UINT, span, 2, False), ir.Constant(t.FLOAT, span, 0.5, False),
              ir.VarRef(t.FLOAT, span, variable), ir.VarRef(t.vector(t.UINT, 3), span, variable),
              ir.VarRef(t.BOOL, span, variable), ir.VarRef(t.STRING, span, variable)]
    literals = 0
    for count in range(4):
        for args in itertools.product(pieces, repeat=count):
            adopted = calls._adopted_types(args)
            assert adopted == calls._adopting(args), args
            literals += any(isinstance(a, ir.Constant) and a.literal for a in args)
    assert literals > 100
    # independent of both: a literal int next to a float3 is a float, next to a uint a uint
    int_literal = pieces[0]
    assert calls._adopted_types([pieces[4], int_literal]) == [t.FLOAT, t.FLOAT]
    assert calls._adopted_types([int_literal, pieces[2]]) == [t.UINT, t.UINT]
    assert calls._adopted_types([pieces[2], pieces[3]]) == [t.UINT, t.FLOAT]
