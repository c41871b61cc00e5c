"""The IR dump (`wgc.irdump`): exact text for hand-built modules covering every statement and
expression class, constant spelling, layouts, shadowed names, and renderer coverage."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from wgc import ir
from wgc import types as t
from wgc.irdump import _EXPRS, _STMTS, dump_ir
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.source import SourceFile, Span

SPAN = Span(SourceFile("<irdump-test>", ""), 0, 0)
F3 = t.vector(t.FLOAT, 3)
F2 = t.vector(t.FLOAT, 2)
U2 = t.vector(t.UINT, 2)
F4 = t.vector(t.FLOAT, 4)
F44 = t.matrix(t.FLOAT, 4, 4)
BOOL2 = t.vector(t.BOOL, 2)


def var(name: str, type_: t.Type, storage: ir.Storage = ir.Storage.LOCAL, **kw) -> ir.Variable:
    return ir.Variable(name, type_, storage, SPAN, **kw)


def ref(v: ir.Variable) -> ir.VarRef:
    return ir.VarRef(v.type, SPAN, variable=v)


def const(value: ir.ConstValue, type_: t.Type, literal: bool = False) -> ir.Constant:
    return ir.Constant(type_, SPAN, value=value, literal=literal)


def attr(name: str, *values: ir.ConstValue | None) -> ir.Attribute:
    return ir.Attribute(name, tuple(ir.AttributeArg(v, SPAN) for v in values), SPAN)


def block(*stmts: ir.Stmt) -> ir.Block:
    return ir.Block(SPAN, stmts=list(stmts))


def do(e: ir.Expr) -> ir.ExprStmt:
    return ir.ExprStmt(SPAN, expr=e)


def binary(op: str, left: ir.Expr, right: ir.Expr, type_: t.Type | None = None) -> ir.Binary:
    return ir.Binary(type_ or left.type, SPAN, op=op, left=left, right=right)


def function(name: str, params: list[ir.Variable], body: list[ir.Stmt], ret: t.Type = t.VOID,
             **kw) -> ir.Function:
    return ir.Function(name, params, ret, SPAN, body=block(*body), **kw)


def dump_body(*stmts: ir.Stmt, params: list[ir.Variable] | None = None) -> str:
    """The dump of `void f(params) { stmts }` without the module line and function header."""
    text = dump_ir(ir.Module(functions=[function("f", params or [], list(stmts))]))
    lines = text.splitlines()
    assert lines[:2] == ["module", ""]
    return "\n".join(lines[lines.index("{") + 1:-1]) + "\n"


# ---------------------------------------------------------------- module level


def test_module_structs_enums_globals_and_layouts() -> None:
    base = t.StructType("ItemBase", fields=[t.Field("id", t.UINT)])
    item = t.StructType("Item", base=base, fields=[t.Field("value", F3), t.Field("weights", t.array(t.FLOAT, 2))],
                        attributes=("nodetrackrwinputsharing",))
    vs_out = t.StructType("VsOut", fields=[t.Field("pos", F4, semantic="SV_Position"),
                                           t.Field("m", F44, row_major=True)])
    mode = t.EnumType("TourMode", t.INT, scoped=True, members={"Off": 0, "Sum": 3})
    cb_type = t.StructType("TourCB", fields=[t.Field("g_World", F44, row_major=True), t.Field("g_Scale", t.FLOAT)])
    n = var("N", t.UINT, ir.Storage.STATIC, const=True,
            init=binary("+", const(2, t.UINT), const(2, t.UINT)), constant=4)
    module = ir.Module(
        structs=[base, item, vs_out], enums=[mode, t.EnumType("Flags", t.UINT, scoped=False)],
        enable_16bit_types=True, default_row_major=True,
        globals=[
            n,
            var("s_mode", mode, ir.Storage.STATIC, init=const(3, mode)),
            var("gs_sum", t.array(t.UINT, 32), ir.Storage.GROUPSHARED),
            var("TourCB", cb_type, ir.Storage.UNIFORM, block_kind="cbuffer",
                binding=ir.Binding(0, 0, "register", "b0"), layout=layout_of(cb_type, LayoutRule.STD140)),
            var("g_Items", t.resource(t.ResourceKind.RW_STRUCTURED_BUFFER, item), ir.Storage.RESOURCE,
                binding=ir.Binding(1, 2, "vk::binding", "u3"), attributes=(attr("vk::binding", 2, 1),),
                modifiers=frozenset({"globallycoherent", "precise"}),
                layout=layout_of(item, LayoutRule.STD430)),
            var("pc", t.resource(t.ResourceKind.CONSTANT_BUFFER, vs_out), ir.Storage.UNIFORM,
                block_kind="ConstantBuffer", push_constant=True),
            var("g_Tex", t.resource(t.ResourceKind.TEXTURE_2D, F4), ir.Storage.RESOURCE,
                binding=ir.Binding(0, 5, "auto")),
        ])
    assert dump_ir(module) == """\
module enable_16bit_types default_row_major
  struct ItemBase { uint id; }
  [nodetrackrwinputsharing] struct Item : ItemBase { float3 value; float weights[2]; }
  struct VsOut { float4 pos : SV_Position; row_major float4x4 m; }
  enum class TourMode : int { Off = 0, Sum = 3 }
  enum Flags : uint { }
  global static const uint N = (2u + 2u):uint => 4u
  global static TourMode s_mode = TourMode::Sum
  global groupshared uint gs_sum[32]
  global uniform cbuffer TourCB TourCB set 0 binding 0 by register(b0)
    layout size 80 align 16
      @0 float4x4 g_World  size 64 align 16 matrix_stride 16 row_major
      @64 float g_Scale  size 4 align 4
  global resource [vk::binding(2, 1)] globallycoherent precise RWStructuredBuffer<Item> g_Items \
set 1 binding 2 by vk::binding register(u3)
    layout size 32 align 16
      @0 uint id  size 4 align 4
      @4 float3 value  size 12 align 16
      @16 float weights[2]  size 8 align 4 array_stride 4
  global uniform ConstantBuffer ConstantBuffer<VsOut> pc push_constant
  global resource Texture2D<float4> g_Tex set 0 binding 5 by auto
"""


def test_layout_of_nested_struct_and_array_of_structs() -> None:
    inner = t.StructType("Inner", fields=[t.Field("a", t.FLOAT), t.Field("b", F2)])
    record = t.StructType("Rec", fields=[t.Field("inner", inner), t.Field("list", t.array(inner, 2))])
    out = var("outs", t.node_object(t.NodeObjectKind.NODE_OUTPUT, record), ir.Storage.PARAMETER,
              attributes=(attr("MaxRecords", 4),), layout=layout_of(record, LayoutRule.SCALAR))
    module = ir.Module(functions=[function("g", [out], [])])
    assert dump_ir(module) == """\
module

function void g(in [MaxRecords(4)] NodeOutput<Rec> outs)
  layout of outs size 36 align 4
    @0 Inner inner  size 12 align 4
      @0 float a  size 4 align 4
      @4 float2 b  size 8 align 4
    @12 Inner list[2]  size 24 align 4 array_stride 12
      @0 float a  size 4 align 4
      @4 float2 b  size 8 align 4
{
}
"""


# ---------------------------------------------------------------- functions and statements


def test_function_header_and_every_statement() -> None:
    s = t.StructType("S", fields=[t.Field("x", t.UINT)])
    this = var("this", s, ir.Storage.PARAMETER, direction=ir.Direction.INOUT)
    get = function("S::get", [this], [ir.Return(SPAN, value=ir.FieldAccess(t.UINT, SPAN, base=ref(this),
                                                                            index=0, name="x"))],
                   ret=t.UINT, method_of=s, must_inline=True)
    tid = var("tid", t.UINT, ir.Storage.PARAMETER, semantic="SV_GroupIndex")
    col = var("color", F4, ir.Storage.PARAMETER, direction=ir.Direction.OUT, modifiers=frozenset({"precise"}))
    i = var("i", t.INT)
    k = var("k", t.UINT, ir.Storage.STATIC)
    cond = binary("<", ref(i), const(4, t.INT, literal=True), t.BOOL)
    main = function("main", [tid, col], [
        ir.VarDecl(SPAN, variable=k, init=const(0, t.UINT)),
        ir.Loop(SPAN, kind=ir.LoopKind.FOR, init=[ir.VarDecl(SPAN, variable=i, init=const(0, t.INT))], cond=cond,
                step=ir.IncDec(t.INT, SPAN, target=ref(i), op="++", prefix=False),
                attributes=(attr("unroll", 4),), body=block(
                    ir.If(SPAN, cond=binary("==", ref(i), const(2, t.INT), t.BOOL), then=block(ir.Continue(SPAN))),
                    ir.If(SPAN, cond=binary("==", ref(i), const(3, t.INT), t.BOOL), then=block(ir.Break(SPAN)),
                          else_=block(ir.If(SPAN, cond=const(False, t.BOOL), then=block(ir.Discard(SPAN)),
                                            else_=block(do(ir.IncDec(t.UINT, SPAN, target=ref(k))))),
                                      ), attributes=(attr("branch"),)))),
        ir.Loop(SPAN, kind=ir.LoopKind.FOR, body=block()),
        ir.Loop(SPAN, kind=ir.LoopKind.WHILE, cond=const(True, t.BOOL), body=block(ir.Break(SPAN))),
        ir.Loop(SPAN, kind=ir.LoopKind.DO_WHILE, cond=const(False, t.BOOL), body=block(block())),
        ir.Switch(SPAN, selector=ref(tid), attributes=(attr("flatten"),), cases=[
            ir.SwitchCase((0, 1), False, block(do(ir.IncDec(t.UINT, SPAN, target=ref(k), op="--"))), True),
            ir.SwitchCase((7,), True, block(ir.Break(SPAN)), False),
        ]),
        do(ir.Assign(F4, SPAN, target=ref(col), value=ir.Convert(F4, SPAN, operand=const(0, t.INT, literal=True)))),
        ir.Return(SPAN),
    ], attributes=(attr("Shader", "node"), attr("NumThreads", 32, 1, 1), attr("NodeIsProgramEntry")),
        return_semantic="SV_Target1", callees=[get])
    assert dump_ir(ir.Module(functions=[get, main])) == """\
module

function uint S::get(inout S this)
  method_of S
  must_inline
{
  return this.x:uint
}

[Shader("node")] [NumThreads(32, 1, 1)] [NodeIsProgramEntry]
function void main(in uint tid : SV_GroupIndex, out precise float4 color) : SV_Target1
  calls S::get
{
  var static uint k = 0u
  [unroll(4)] for (var int i = 0; (i:int < 4:int):bool; i++:int) {
    if ((i:int == 2):bool) {
      continue
    }
    [branch] if ((i:int == 3):bool) {
      break
    } else if (false) {
      discard
    } else {
      ++k:uint
    }
  }
  for (; ; ) {
  }
  while (true) {
    break
  }
  do {
    {
    }
  } while (false)
  [flatten] switch (tid:uint) {
    case 0u: case 1u: {
      --k:uint
    } fallthrough
    case 7u: default: {
      break
    }
  }
  color:float4 = convert<float4>(0:int)
  return
}
"""


def test_shadowed_names_are_numbered_in_declaration_order() -> None:
    g = var("x", t.FLOAT, ir.Storage.STATIC)
    p = var("x", t.INT, ir.Storage.PARAMETER)
    inner = var("x", t.UINT)
    fn = function("f", [p], [block(ir.VarDecl(SPAN, variable=inner, init=const(1, t.UINT)),
                                   do(ir.Assign(t.UINT, SPAN, target=ref(inner), value=ref(inner)))),
                             do(ir.Assign(t.FLOAT, SPAN, target=ref(g),
                                          value=ir.Convert(t.FLOAT, SPAN, operand=ref(p))))])
    other = function("h", [var("x", t.BOOL, ir.Storage.PARAMETER)], [])
    assert dump_ir(ir.Module(globals=[g], functions=[fn, other])) == """\
module
  global static float x

function void f(in int x#2)
{
  {
    var uint x#3 = 1u
    x#3:uint = x#3:uint
  }
  x:float = convert<float>(x#2:int)
}

function void h(in bool x#2)
{
}
"""


# ---------------------------------------------------------------- expressions


def test_every_expression_form() -> None:
    item = t.StructType("Item", fields=[t.Field("v", F3), t.Field("n", t.UINT)])
    a, b, i = var("a", t.UINT), var("b", t.UINT), var("i", t.UINT)
    f3, m, arr, s = var("f3", F3), var("m", F44), var("arr", t.array(t.FLOAT, 4)), var("s", item)
    out = var("g_Out", t.resource(t.ResourceKind.RW_STRUCTURED_BUFFER, F4), ir.Storage.RESOURCE)
    raw = var("g_Raw", t.resource(t.ResourceKind.BYTE_ADDRESS_BUFFER, None), ir.Storage.RESOURCE)
    recs = var("recs", t.node_object(t.NodeObjectKind.GROUP_NODE_INPUT_RECORDS, item), ir.Storage.PARAMETER)
    inp = var("input", t.node_object(t.NodeObjectKind.DISPATCH_NODE_INPUT_RECORD, item), ir.Storage.PARAMETER)
    lp = var("r", t.FLOAT, ir.Storage.PARAMETER, direction=ir.Direction.INOUT)
    helper = function("tour::scale", [var("x", F3, ir.Storage.PARAMETER), lp], [], ret=item)
    orig = var("orig", t.UINT)
    swz = ir.Swizzle(F2, SPAN, base=ref(f3), components=(2, 0))
    call = ir.Call(item, SPAN, function=helper, args=(ref(f3), ir.Index(t.FLOAT, SPAN, base=ref(arr), index=ref(i))))
    exprs = [
        ir.Assign(F2, SPAN, target=swz, value=ir.Convert(F2, SPAN, operand=ir.Convert(t.FLOAT, SPAN, operand=ref(a)))),
        ir.Assign(t.UINT, SPAN, target=ref(b), op="+", operation_type=t.UINT, value=const(1, t.UINT)),
        ir.Assign(t.UINT, SPAN, target=ref(b), op="*", operation_type=t.FLOAT, value=const(1.5, t.FLOAT)),
        ir.Assign(t.UINT, SPAN, target=ref(a), value=ir.Assign(t.UINT, SPAN, target=ref(b), value=ref(i))),
        ir.Unary(t.INT, SPAN, op="-", operand=ir.Convert(t.INT, SPAN, operand=ref(a), explicit=True)),
        ir.Unary(t.BOOL, SPAN, op="!", operand=binary("&&", const(True, t.BOOL), const(False, t.BOOL))),
        ir.Select(t.UINT, SPAN, cond=binary(">", ref(a), ref(b), t.BOOL), then=ref(a), else_=const(0, t.UINT)),
        ir.Comma(t.UINT, SPAN, left=ir.IncDec(t.UINT, SPAN, target=ref(a)), right=ref(b)),
        ir.Construct(F3, SPAN, args=(const(1.0, t.FLOAT), const(0.5, t.FLOAT, literal=True), const(2.0, t.FLOAT))),
        ir.Construct(item, SPAN, args=(ref(f3), ref(a))),
        ir.Construct(t.array(t.UINT, 2), SPAN, args=(ref(a), ref(b))),
        ir.Swizzle(t.FLOAT, SPAN, base=ir.FieldAccess(F3, SPAN, base=ref(s), index=0, name="v"), components=(1,)),
        ir.Swizzle(F2, SPAN, base=ref(m), components=((0, 1), (1, 0))),
        ir.Index(t.FLOAT, SPAN, base=ir.Index(F4, SPAN, base=ref(m), index=const(1, t.INT)), index=const(2, t.INT)),
        ir.Assign(F4, SPAN, target=ir.ResourceIndex(F4, SPAN, resource=ref(out), index=ref(i)),
                  value=ir.Construct(F4, SPAN, args=(ref(f3), const(1.0, t.FLOAT)))),
        ir.MethodCall(U2, SPAN, object=ref(raw), method="Load", args=(const(0, t.UINT),), template_type=U2),
        ir.MethodCall(t.VOID, SPAN, object=ref(out), method="GetDimensions", args=(ref(a), ref(b)), out_params=(0, 1)),
        ir.FieldAccess(F3, SPAN, base=ir.RecordAccess(item, SPAN, object=ref(inp)), index=0, name="v"),
        ir.RecordAccess(item, SPAN, object=ref(recs), index=ref(i)),
        ir.FieldAccess(t.UINT, SPAN, base=call, index=1, name="n"),
        ir.Call(item, SPAN, function=helper, args=(ref(f3), ir.Index(t.FLOAT, SPAN, base=ref(arr), index=ref(i)))),
        ir.IntrinsicCall(t.FLOAT, SPAN, name="dot", args=(ref(f3), ref(f3))),
        ir.IntrinsicCall(t.VOID, SPAN, name="InterlockedAdd",
                         args=(ir.Index(t.UINT, SPAN, base=ref(var("gs", t.array(t.UINT, 8), ir.Storage.GROUPSHARED)),
                                        index=ref(i)), ref(a), ref(orig)), out_params=(0, 2)),
        ir.IntrinsicCall(t.VOID, SPAN, name="Barrier", args=(const(3, t.UINT), const(4, t.UINT))),
        ir.IncDec(t.UINT, SPAN, target=ir.Index(t.UINT, SPAN, base=ref(var("gs", t.array(t.UINT, 8))), index=ref(i)),
                  op="--", prefix=False),
        const(t.ScalarType.__name__, t.STRING),
    ]
    assert dump_body(*map(do, exprs)) == """\
  f3.zx:float2 = convert<float2>(convert<float>(a:uint))
  b:uint += 1u
  b:uint *=[float] 1.5f
  a:uint = (b:uint = i:uint)
  (-cast<int>(a:uint)):int
  (!(true && false):bool):bool
  ((a:uint > b:uint):bool ? a:uint : 0u):uint
  (++a:uint, b:uint):uint
  float3(1.0f, 0.5:float, 2.0f)
  Item{f3:float3, a:uint}
  uint[2]{a:uint, b:uint}
  s.v.y:float
  m._m01_m10:float2
  m[1][2]:float
  g_Out[i:uint]:float4 = float4(f3:float3, 1.0f)
  g_Raw.Load<uint2>(0u):uint2
  g_Out.GetDimensions(out a:uint, out b:uint)
  input.Get().v:float3
  recs.Get(i:uint):Item
  (call tour::scale(f3:float3, inout arr[i:uint]:float):Item).n:uint
  call tour::scale(f3:float3, inout arr[i:uint]:float):Item
  dot(f3:float3, f3:float3):float
  InterlockedAdd(out gs[i:uint]:uint, a:uint, out orig:uint)
  Barrier(3u, 4u)
  gs[i:uint]--:uint
  "ScalarType"
"""


@pytest.mark.parametrize(("value", "type_", "literal", "text"), [
    (7, t.INT, False, "7"), (-7, t.INT, False, "-7"), (7, t.UINT, False, "7u"), (7, t.INT64, False, "7ll"),
    (7, t.UINT64, False, "7ull"), (7, t.INT, True, "7:int"), (7, t.UINT, True, "7:uint"),
    (0.5, t.FLOAT, False, "0.5f"), (1, t.FLOAT, False, "1.0f"), (0.1, t.DOUBLE, False, "0.1l"),
    (3.1415927410125732, t.FLOAT, False, "3.1415927410125732f"), (1e-05, t.FLOAT, False, "1e-05f"),
    (1.5, t.FLOAT, True, "1.5:float"), (0.5, t.scalar(t.ScalarKind.FLOAT, 16), False, "0.5h"),
    (0.5, t.scalar(t.ScalarKind.FLOAT, 32, "half"), False, "0.5h"),
    (2, t.scalar(t.ScalarKind.INT, 16), False, "(int16_t)2"),
    (2, t.scalar(t.ScalarKind.INT, 32, "min16int", relaxed=True), False, "(min16int)2"),
    (float("inf"), t.FLOAT, False, "(float)inf"), (float("-inf"), t.FLOAT, True, "(float)-inf"),
    (True, t.BOOL, False, "true"), (False, t.BOOL, True, "false"),
    ((1, 2), U2, False, "const<uint2>(1u, 2u)"), ((True, False), BOOL2, False, "const<bool2>(true, false)"),
    ((1.0, 0.0, 0.0, 1.0), t.matrix(t.FLOAT, 2, 2), False, "const<float2x2>(1.0f, 0.0f, 0.0f, 1.0f)"),
    ('say "hi"\n', t.STRING, False, '"say \\"hi\\"\\n"'),
    (4, t.EnumType("E", t.INT, scoped=False, members={"A": 1, "B": 4, "C": 4}), False, "E::B"),
    (9, t.EnumType("E", t.INT, scoped=False, members={"A": 1}), False, "(E)9"),
])
def test_constant_spelling(value: ir.ConstValue, type_: t.Type, literal: bool, text: str) -> None:
    assert dump_body(do(const(value, type_, literal))) == f"  {text}\n"


def test_folded_vector_constant_of_a_variable_and_attribute_values() -> None:
    v = var("K", F2, ir.Storage.STATIC, const=True, constant=(0.5, 2.0))
    fn = ir.Function("f", [], t.VOID, SPAN, body=None,
                     attributes=(attr("A", "x", 1.5, True, None, (1, 2)), attr("NoArgs")))
    n = var("N", t.UINT, ir.Storage.STATIC, const=True, constant=4, modifiers=frozenset({"precise"}))
    assert dump_body(ir.VarDecl(SPAN, variable=n, init=binary("+", const(2, t.UINT), const(2, t.UINT))),
                     ir.VarDecl(SPAN, variable=var("y", t.array(F2, 3)))) == """\
  var static precise const uint N = (2u + 2u):uint => 4u
  var float2 y[3]
"""
    assert dump_ir(ir.Module(globals=[v], functions=[fn])) == """\
module
  global static const float2 K => const<float2>(0.5f, 2.0f)

[A("x", 1.5, true, ?, (1, 2))] [NoArgs]
function void f()
(no body)
"""


# ---------------------------------------------------------------- coverage and determinism


def _concrete(base: type) -> set[type]:
    return {cls for _, cls in inspect.getmembers(ir, inspect.isclass)
            if issubclass(cls, base) and cls is not base and cls.__module__ == ir.__name__}


def test_every_ir_class_has_a_renderer() -> None:
    assert _concrete(ir.Expr) == set(_EXPRS)
    assert _concrete(ir.Stmt) == set(_STMTS)


def test_unknown_node_classes_are_rejected() -> None:
    @dataclasses.dataclass(eq=False)
    class Strange(ir.Expr):
        pass

    @dataclasses.dataclass(eq=False)
    class Odd(ir.Stmt):
        pass

    with pytest.raises(TypeError, match="Strange"):
        dump_body(do(Strange(t.INT, SPAN)))
    with pytest.raises(TypeError, match="Odd"):
        dump_body(Odd(SPAN))


def test_dump_does_not_depend_on_spans_or_identity() -> None:
    def build(path: str) -> ir.Module:
        span = Span(SourceFile(path, "x" * 10), 3, 7)
        x = ir.Variable("x", t.UINT, ir.Storage.LOCAL, span)
        body = ir.Block(span, [ir.VarDecl(span, variable=x, init=ir.Constant(t.UINT, span, value=1)),
                               ir.ExprStmt(span, expr=ir.IncDec(t.UINT, span,
                                                                target=ir.VarRef(t.UINT, span, variable=x)))])
        return ir.Module(functions=[ir.Function("f", [], t.VOID, span, body=body)])

    assert dump_ir(build("/abs/one.hlsl")) == dump_ir(build("other/two.hlsl"))
    assert "hlsl" not in dump_ir(build("/abs/one.hlsl"))
