"""The IR verifier (`wgc.ir_verify`): the corpus verifies clean, every test compile is verified (the
conftest's wrapper, the driver's WGC_VERIFY_IR for `wgc` processes), and each invariant `wgc.ir`
states catches a hand-broken IR (a valid IR, mutated: one test per invariant)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import wgc.sema.analyze
from conftest import ROOT, SAMPLE_INCLUDE, hlsl_corpus, sample_proposals
from wgc import driver, ir
from wgc import types as t
from wgc.ir_verify import check, verify
from wgc.sema.context import SemaOptions
from wgc.source import SourceFile, Span
from wgc.syntax.parse import parse_source

PROGRAM = """\
cbuffer Params : register(b0) { float scale; uint count; };
RWStructuredBuffer<float4> Out : register(u0);
struct Pair { float a; int b; };
static const int Table[2] = { 1, 2 };
float twice(float x) { return x * 2; }
float half_of(float x) { return x / 2; }
[Shader("compute")] [NumThreads(8, 1, 1)]
void Main(uint3 id : SV_DispatchThreadID)
{
    int i = id.x;
    float f = i;
    f = f + i;
    f = i;
    Pair p = { f, i };
    float4 v = float4(f, p.a, 0, Table[1]);
    for (uint k = 0; k < count; ++k) {
        if (k == 3)
            break;
        if (k == 1)
            continue;
        v.x += twice(half_of(scale));
    }
    switch (i) {
    case 0: v.y = 1; break;
    case 1:
    default: v.z = -v.z; break;
    }
    uint n, stride;
    Out.GetDimensions(n, stride);
    float3 w = v.xyz;
    Out[id.x] = v * (f > 0 ? 1.0 : 2.0) + w.x + (float)n;
}
"""


def analysis_of(src: str = PROGRAM) -> wgc.sema.analyze.Analysis:
    parsed = parse_source(SourceFile("<test>", src))
    assert not parsed.diagnostics
    result = wgc.sema.analyze.analyze(parsed.unit, SemaOptions())
    assert not [d for d in result.diagnostics if d.default.name == "ERROR"], result.diagnostics
    return result


@pytest.fixture
def program() -> wgc.sema.analyze.Analysis:
    """A fresh analysis of `PROGRAM` (each test mutates its own), verified clean."""
    result = analysis_of()
    assert verify(result) == []
    return result


def function(analysis, name: str) -> ir.Function:
    return next(f for f in analysis.module.functions if f.name == name)


def nodes(root, cls: type) -> list:
    """Every node of class `cls` under `root` (pre-order)."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cls):
            found.append(node)
        for value in vars(node).values() if isinstance(node, (ir.Expr, ir.Stmt, ir.SwitchCase)) else ():
            items = value if isinstance(value, (list, tuple)) else [value]
            stack.extend(reversed([v for v in items if isinstance(v, (ir.Expr, ir.Stmt, ir.SwitchCase))]))
    return found


def main_body(analysis) -> ir.Block:
    return function(analysis, "Main").body


def decl(analysis, name: str) -> ir.VarDecl:
    return next(d for d in nodes(main_body(analysis), ir.VarDecl) if d.variable.name == name)


def violated(analysis, *fragments: str) -> list[str]:
    """The violations, which must include one holding every fragment."""
    found = verify(analysis)
    assert any(all(f in v for f in fragments) for v in found), found
    return found


# ---------------------------------------------------------------- the corpus and the hooks


def test_the_corpus_verifies_clean():
    """Every sample and every HLSL file of the tests (tests/spirv_programs included): no violation."""
    checked = 0
    for path in hlsl_corpus():
        options = driver.Options(str(path), proposals=sample_proposals(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                 emit="ir")
        front = driver.run_with_deep_stack(driver.run_front_end, options)
        if front.analysis is None:
            continue
        assert verify(front.analysis) == [], path
        checked += 1
    assert checked >= 20


def test_in_process_compiles_are_verified():
    """The conftest wraps `analyze`, so every compile a test makes (the driver's too) is checked."""
    assert wgc.sema.analyze.analyze.__wrapped__ is not None
    assert os.environ.get("WGC_VERIFY_IR") == "1" and driver.VERIFY_IR is False   # no second check


def _run_python(code: str, verify_ir: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "WGC_VERIFY_IR"}
    if verify_ir:
        env["WGC_VERIFY_IR"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


_COUNT_CHECKS = """
import wgc.ir_verify
from wgc import driver
calls = []
check = wgc.ir_verify.check
wgc.ir_verify.check = lambda analysis: (calls.append(1), check(analysis))
result = driver.compile(driver.Options(%r, emit="ir"))
print(driver.VERIFY_IR, len(calls), result.ok)
"""


def test_wgc_processes_verify_when_the_variable_is_set():
    sample = str(ROOT / "samples" / "material_dispatch.hlsl")
    assert _run_python(_COUNT_CHECKS % sample, verify_ir=True).split() == ["True", "1", "True"]


def test_production_does_not_verify():
    """Without WGC_VERIFY_IR the driver never imports the verifier."""
    sample = str(ROOT / "samples" / "material_dispatch.hlsl")
    code = ("import sys\nfrom wgc import driver\n"
            f"result = driver.compile(driver.Options({sample!r}, proposals={sample_proposals(Path(sample))!r}))\n"
            "print(driver.VERIFY_IR, 'wgc.ir_verify' in sys.modules, result.ok)")
    assert _run_python(code, verify_ir=False).split() == ["False", "False", "True"]


def test_check_raises_with_every_violation(program):
    decl(program, "f").init = decl(program, "f").init.operand
    decl(program, "w").init = decl(program, "w").init.base     # float4 for a float3
    with pytest.raises(AssertionError, match=r"2 IR invariant violation\(s\):\nVarDecl.init .*\nVarDecl.init"):
        check(program)


def test_unsound_functions_are_skipped():
    """A function whose declaration holds an error is not verified (its IR may be incomplete); the
    others are."""
    parsed = parse_source(SourceFile("<test>", "float ok(int i) { float f = i; return f; }\n"
                                               "float bad() { return missing; }\n"))
    analysis = wgc.sema.analyze.analyze(parsed.unit, SemaOptions())
    bad = next(f for f in analysis.module.functions if f.name == "bad")
    assert analysis.unsound == {bad}
    bad.body.stmts.append(ir.Break(bad.span))
    assert verify(analysis) == []
    assert any("Break" in v for v in verify(analysis.module))   # the module alone: every function


def test_globals_are_skipped_when_sema_reported_an_error():
    """A global whose declaration failed stays in the module as the error left it (a specialization
    constant without a default here), so globals are checked only when sema reported no error."""
    analysis = wgc.sema.analyze.analyze(parse_source(SourceFile("<test>", "[[vk::constant_id(1)]] const int C;\n"
                                                                          "int f() { return C; }\n")).unit)
    assert analysis.module.globals[0].spec_default is None and verify(analysis) == []
    assert any("spec_id" in v for v in verify(analysis.module))


# ---------------------------------------------------------------- types and spans


def test_every_expression_has_an_interned_type(program):
    """ir.py: "Every expression carries its type (`wgc.types`, interned: compare with `is`)"."""
    ref = nodes(main_body(program), ir.VarRef)[0]
    ref.type = t.VectorType(t.UINT, 3)          # equal in structure, but not the interned object
    violated(program, "VarRef.type", "uint3 is not the interned object")
    ref.type = "uint3"
    violated(program, "VarRef.type", "not a type")


def test_interned_types_inside_types_are_checked_too(program):
    variable = decl(program, "p").variable
    variable.type = t.ArrayType(t.ScalarType(t.ScalarKind.INT, 32, "int"), 2)
    violated(program, "Variable.type", "int[2] is not the interned object")


def test_every_expression_has_a_span(program):
    """ir.py: every expression carries "the span of the source it came from"."""
    nodes(main_body(program), ir.Binary)[0].span = None
    violated(program, "Binary.span", "not a span")


# ---------------------------------------------------------------- implicit conversions are explicit


def test_a_declaration_initialiser_has_the_variables_type(program):
    """ir.py: "every implicit conversion is an explicit `Convert` node" (`VarDecl`: "with its converted
    initialiser")."""
    d = decl(program, "f")
    assert isinstance(d.init, ir.Convert)
    d.init = d.init.operand
    violated(program, "VarDecl.init", "has type int, not the variable's type float", "a missing Convert")


def test_operands_have_the_type_the_operator_computes_in(program):
    """ir.py `Binary`: "Both operands have `operand_type` (the common type)"."""
    add = next(b for b in nodes(main_body(program), ir.Binary) if b.op == "+" and b.type is t.FLOAT)
    assert isinstance(add.right, ir.Convert)    # f + i
    add.right = add.right.operand
    violated(program, "Binary.right", "operands of '+' have types float and int", "a missing Convert")


def test_a_comparison_gives_bool_of_its_shape(program):
    cmp = next(b for b in nodes(main_body(program), ir.Binary) if b.op == ">")
    cmp.type = t.FLOAT
    violated(program, "Binary.type", "'>' on float gives float, not bool of its shape")


def test_a_unary_operand_has_the_operators_type(program):
    """ir.py `Unary`: "the operand already has the operator's type"."""
    neg = nodes(main_body(program), ir.Unary)[0]
    neg.operand = ir.Constant(t.INT, neg.span, 1)
    violated(program, "Unary.operand", "has type int, not the operator's type float")


def test_an_assignment_value_has_the_targets_type(program):
    """ir.py: "an assignment's value has the target's type"."""
    plain = next(a for a in nodes(main_body(program), ir.Assign) if not a.op and isinstance(a.value, ir.Convert))
    plain.value = plain.value.operand
    violated(program, "Assign.value", "not the target's type")


def test_a_compound_assignment_value_has_the_operations_type(program):
    """ir.py `Assign`: "For a compound assignment, `value` has the operation's type"."""
    compound = next(a for a in nodes(main_body(program), ir.Assign) if a.op)
    compound.value = ir.Constant(t.INT, compound.span, 1)
    violated(program, "Assign.value", "not the operation's type float")
    compound.operation_type = None
    violated(program, "Assign.operation_type", "without an operation type")


def test_call_arguments_have_the_parameters_types(program):
    """ir.py: "a call's arguments have the parameters' types"."""
    call = next(c for c in nodes(main_body(program), ir.Call) if c.function.name == "twice")
    call.args = (ir.Constant(t.INT, call.span, 2),)
    violated(program, "Call.args", "not parameter 'x''s type float")
    call.args = ()
    violated(program, "Call.args", "0 arguments for 1 parameters of 'twice'")


def test_a_return_value_has_the_return_type(program):
    """ir.py `Return`: "Already of the function's return type"."""
    ret = nodes(function(program, "twice").body, ir.Return)[0]
    ret.value = ir.Constant(t.INT, ret.span, 2)
    violated(program, "Return.value", "not the return type float")
    ret.value = None
    violated(program, "Return.value", "no value returned from a float function")


def test_select_branches_have_its_type(program):
    """ir.py `Select`: "`a` and `b` have this expression's type"."""
    select = nodes(main_body(program), ir.Select)[0]
    select.then = ir.Constant(t.INT, select.span, 1)
    violated(program, "Select.then", "not the selection's type float")


def test_construct_parts_have_the_element_types(program):
    """ir.py `Construct`: "`args` are the value's immediate elements in order, each already of that
    element's type"."""
    build = next(c for c in nodes(main_body(program), ir.Construct) if isinstance(c.type, t.VectorType))
    build.args = (ir.Constant(t.INT, build.span, 1), *build.args[1:])
    violated(program, "Construct.args", "is not float or a vector of it")
    build.args = build.args[1:]
    violated(program, "Construct.args", "parts with 3 components for float4")
    pair = next(c for c in nodes(main_body(program), ir.Construct) if isinstance(c.type, t.StructType))
    pair.args = pair.args[:1]
    violated(program, "Construct.args", "1 parts for Pair, which has 2")


# ---------------------------------------------------------------- names are resolved


def test_a_varref_points_at_a_variable_in_scope(program):
    """ir.py: "a `VarRef` points at its `Variable`"."""
    ref = next(r for r in nodes(main_body(program), ir.VarRef) if r.variable.name == "i")
    ref.variable = ir.Variable("i", ref.variable.type, ir.Storage.LOCAL, ref.span)   # never declared
    violated(program, "VarRef.variable", "'i' is neither a global, a parameter nor a local")
    ref.variable = None
    violated(program, "VarRef.variable", "unresolved")


def test_a_call_points_at_a_function_of_the_module(program):
    """ir.py: "a `Call` at its `Function`"."""
    call = next(c for c in nodes(main_body(program), ir.Call) if c.function.name == "twice")
    stray = ir.Function("twice", call.function.params, t.FLOAT, call.span, body=ir.Block(call.span))
    call.function = stray
    violated(program, "Call.function", "'twice' is not a function of the module")
    call.function = None
    violated(program, "Call.function", "unresolved")


def test_callees_are_the_called_functions_in_first_call_order(program):
    """ir.py `Function.callees`: "User functions called from the body, in first-call order"."""
    main = function(program, "Main")
    assert [f.name for f in main.callees] == ["half_of", "twice"]     # the argument's call first
    main.callees.reverse()
    violated(program, "Function.callees", "not the functions the body calls in first-call order")


def test_intrinsic_and_method_calls_name_their_callee(program):
    """ir.py: "an `IntrinsicCall` names a global intrinsic ..., a `MethodCall` names a resource or
    node-object method"; `out_params` list arguments."""
    method = nodes(main_body(program), ir.MethodCall)[0]
    method.out_params = (0, 2)
    violated(program, "MethodCall.out_params", "(0, 2) are not indices of its 2 arguments")
    method.method = ""
    violated(program, "MethodCall.method", "no method named")
    method.object = ir.Constant(t.INT, method.span, 0)
    violated(program, "MethodCall.object", "of a int")


# ---------------------------------------------------------------- structured control flow


def test_break_only_in_a_loop_or_switch(program):
    """ir.py: "`Break`/`Continue` appear only where they are legal"."""
    main_body(program).stmts.append(ir.Break(main_body(program).span))
    violated(program, "Break.", "break outside a loop or switch")


def test_continue_only_in_a_loop(program):
    switch = nodes(main_body(program), ir.Switch)[0]
    switch.cases[0].body.stmts.insert(0, ir.Continue(switch.span))   # in a switch, no loop around
    violated(program, "Continue.", "continue outside a loop")


def test_break_in_a_switch_and_continue_in_a_switch_in_a_loop_are_legal(program):
    loop = nodes(main_body(program), ir.Loop)[0]
    inner = ir.Switch(loop.span, selector=ir.Constant(t.INT, loop.span, 0),
                      cases=[ir.SwitchCase((0,), True, ir.Block(loop.span, [ir.Continue(loop.span)]), False)])
    loop.body.stmts.append(inner)
    assert verify(program) == []


def test_conditions_are_bool_scalars(program):
    """ir.py `If.cond`, `Loop.cond`: "A scalar bool"."""
    branch = nodes(main_body(program), ir.If)[0]
    branch.cond = ir.Constant(t.INT, branch.span, 1)
    violated(program, "If.cond", "condition is not a bool scalar: int")


def test_switch_case_values_are_unique(program):
    """ir.py: "`Switch` cases carry constant values that are unique"."""
    switch = nodes(main_body(program), ir.Switch)[0]
    switch.cases[1].values = (1, 0)
    violated(program, "SwitchCase.values", "case value 0 repeated")


def test_switch_case_values_are_constant_ints(program):
    switch = nodes(main_body(program), ir.Switch)[0]
    switch.cases[0].values = (ir.Constant(t.INT, switch.span, 0),)
    violated(program, "SwitchCase.values", "is not a folded int")


def test_a_switch_has_one_default_at_most(program):
    switch = nodes(main_body(program), ir.Switch)[0]
    switch.cases[0].is_default = True
    violated(program, "Switch.cases", "2 default cases")


def test_a_switch_selects_on_an_integer(program):
    """ir.py `Switch.selector`: "A scalar int or uint"."""
    switch = nodes(main_body(program), ir.Switch)[0]
    switch.selector = ir.Constant(t.FLOAT, switch.span, 0.0)
    violated(program, "Switch.selector", "not an int or uint scalar: float")


# ---------------------------------------------------------------- folded constants


def test_constants_are_folded_values_of_their_type(program):
    """ir.py: "those values are Python ints/floats/bools/strings, or tuples of them" (`ConstValue`)."""
    constant = next(c for c in nodes(main_body(program), ir.Constant) if c.type is t.INT)
    constant.value = ir.Constant(t.INT, constant.span, 1)
    violated(program, "Constant.value", "is not a folded constant of type int")
    constant.value = 1.5
    violated(program, "Constant.value", "1.5 is not a folded constant of type int")


def test_a_const_variables_value_has_its_types_shape(program):
    """`Variable.constant`: the folded value of a const variable (a tuple of elements for an array)."""
    table = next(g for g in program.module.globals if g.name == "Table")
    assert table.constant == (1, 2)
    table.constant = (1, 2, 3)
    violated(program, "Variable.constant", "(1, 2, 3) is not a folded constant of type int[2]")


def test_attribute_arguments_are_folded(program):
    """ir.py: constants are folded in "attribute arguments"."""
    main = function(program, "Main")
    threads = ir.find_attribute(main.attributes, "numthreads")
    main.attributes = (ir.Attribute(threads.name, (ir.AttributeArg([8], threads.span),), threads.span),)
    violated(program, "Attribute.args", "argument of [NumThreads] is not a folded constant")


# ---------------------------------------------------------------- layouts and storage


def test_uniform_blocks_and_structured_buffers_have_layouts(program):
    """ir.py `Variable.layout`: "Uniform blocks: the block's layout; structured buffers (globals): the
    element's"."""
    block = next(g for g in program.module.globals if g.storage is ir.Storage.UNIFORM)
    block.layout = None
    violated(program, "Variable.layout", "'Params'", "has no layout")
    buffer = next(g for g in program.module.globals if g.name == "Out")
    buffer.layout_rule = None
    violated(program, "Variable.layout", "'Out' of type RWStructuredBuffer<float4> has no layout")


def test_node_object_parameters_have_the_records_layout():
    """`Variable.layout`: "node object parameters: the record's"."""
    analysis = analysis_of('struct R { uint x; };\n'
                           '[Shader("node")] [NodeLaunch("thread")] void N(ThreadNodeInputRecord<R> r) { }\n')
    assert verify(analysis) == []
    function(analysis, "N").params[0].layout = None
    violated(analysis, "Variable.layout", "'r' of type ThreadNodeInputRecord<R> has no layout")


def test_globals_and_locals_have_their_storage(program):
    table = next(g for g in program.module.globals if g.name == "Table")
    table.storage = ir.Storage.LOCAL
    violated(program, "Variable.storage", "global 'Table' has local storage")
    decl(program, "i").variable.storage = ir.Storage.UNIFORM
    violated(program, "VarDecl.variable", "local 'i' has uniform storage")


def test_resources_and_uniform_blocks_have_bindings(program):
    """`Variable.binding`: "every one has a binding except a push-constant block"."""
    buffer = next(g for g in program.module.globals if g.name == "Out")
    buffer.binding = None
    violated(program, "Variable.binding", "resource 'Out' has no binding")


def test_specialization_constants_have_an_id_and_a_default():
    """`Variable.spec_default`: "Specialization constants: the SpecId and the default value"."""
    analysis = analysis_of("[[vk::constant_id(3)]] const uint C = 4;\nuint f() { return C; }\n")
    assert verify(analysis) == []
    analysis.module.globals[0].spec_id = None
    violated(analysis, "Variable.spec_id", "specialization constant 'C' without its id or default")


def test_functions_taking_node_objects_are_marked_must_inline():
    """ir.py: "Functions that take or return node objects or node records are marked `must_inline`"."""
    analysis = analysis_of('struct R { uint x; };\n'
                           'void emit(NodeOutput<R> o) { o.GetThreadNodeOutputRecords(1).OutputComplete(); }\n'
                           '[Shader("node")] [NodeLaunch("thread")] void N([MaxRecords(1)] NodeOutput<R> o) '
                           '{ emit(o); }\n')
    assert verify(analysis) == []
    function(analysis, "emit").must_inline = False
    violated(analysis, "Function.must_inline", "'emit' takes or returns a node object")


def test_if_branches_are_blocks(program):
    """ir.py: "Control flow is structured (blocks of statements, `If`, `Loop`, `Switch`)"."""
    branch = nodes(main_body(program), ir.If)[0]
    branch.then = ir.Break(branch.span)
    violated(program, "If.then", "branches are not Blocks")


# ---------------------------------------------------------------- accesses


def test_field_accesses_name_a_field_of_the_struct(program):
    """ir.py `FieldAccess`: "`index` counts base fields first (`all_fields()`)"."""
    access = next(a for a in nodes(main_body(program), ir.FieldAccess) if a.name == "a")
    access.index = 1
    violated(program, "FieldAccess.index", "field 1 ('a') is not a field of Pair")


def test_swizzles_index_the_bases_components(program):
    """ir.py `Swizzle`: "`components` index the base's components"."""
    swizzle = next(s for s in nodes(main_body(program), ir.Swizzle) if len(s.components) == 3)
    swizzle.components = (0, 1, 4)
    violated(program, "Swizzle.components", "(0, 1, 4) out of float4")


def test_indices_are_integers_on_indexable_values(program):
    """ir.py `Index`: "`a[i]` on an array, vector (a component), matrix (a row) or node output array"."""
    index = nodes(main_body(program), ir.Index)[0]
    index.index = ir.Constant(t.FLOAT, index.span, 1.0)
    violated(program, "Index.index", "not an integer: float")
    index.base = ir.Constant(t.INT, index.span, 1)
    violated(program, "Index.base", "indexes a int")


def test_a_violation_names_class_field_and_span(program):
    d = decl(program, "f")
    d.init = d.init.operand
    line, column = d.span.line_col
    [message] = verify(program)
    assert message.startswith(f"VarDecl.init at <test>:{line}:{column} (in Main): ")
    assert isinstance(d.span, Span)


def test_the_verifier_sits_below_sema():
    """`wgc.ir_verify` is an IR helper: of wgc it imports only the IR, the types and the sources."""
    import ast

    tree = ast.parse((ROOT / "wgc" / "ir_verify.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {f"{node.module}.{alias.name}" if node.module == "wgc" else node.module
                 for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert {name for name in imported if name.startswith("wgc")} == {"wgc.ir", "wgc.types", "wgc.source"}


def test_a_function_using_a_broken_global_is_unsound() -> None:
    """A use of a global whose declaration holds an error is dropped from the body after the calls in
    it were noted in `callees` (found by test_fuzz: `struct` deleted before a push-constant record
    type): the using function is unsound, like a use of a name the parser skipped, and the verifier
    (which conftest runs on every compile) skips it."""
    source = """
    TourPush { uint frame; };
    [[vk::push_constant]] ConstantBuffer<TourPush> g_push;
    RWStructuredBuffer<uint> u0 : register(u0);
    uint hash(uint x) { return x * 3u; }
    uint other(uint x) { return x + 1u; }
    [Shader("compute")][NumThreads(1, 1, 1)]
    void main() { u0[0] = g_push.frame + hash(2u); u0[1] = other(1u); }
    """
    from wgc import driver

    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"]   # an error, not a crash
