"""The IR verifier: the invariants `wgc.ir` states in prose, checked on a built IR.

Stage: an IR helper, below sema (imports only `wgc.ir`, `wgc.types`, `wgc.source` and the standard
library).  It runs after sema in every compile the tests make (tests/conftest.py wraps
`wgc.sema.analyze.analyze`; `wgc` processes the tests start check when `WGC_VERIFY_IR=1`, read in
`wgc.driver`), never in production.

Input: an `Analysis` (anything with a `.module`; its `unsound` functions, whose declaration holds an
error sema reported, are skipped, and so are the globals when it has an error), an `ir.Module`, or
functions.  Output: `verify` lists the
violations, each naming the IR node class, the field and the source span; `check` raises
AssertionError with all of them.

What is checked (each point is a sentence of `wgc.ir`'s docstrings):
- every expression, variable and function has an interned type (the factory of `wgc.types` gives
  back the same object; structs and enums are nominal) and a span;
- implicit conversions are explicit: an operator's operands have the type it computes in (`Unary`,
  `Binary`, `Select`, `Comma`), an assignment's value has the target's type (or the operation's, for
  a compound one), a declaration's initialiser and a return value have the declared type, a `Call`'s
  `in` arguments have the parameters' types, a `Construct`'s parts have the element types;
- names are resolved: a `VarRef` points at a `Variable` in scope (a global, a parameter, a local
  declared in the function), a `Call` at a `Function` of the module (or a prototype never defined);
  an `IntrinsicCall` or `MethodCall` names its callee (a method on a resource, node object or ray
  query), and its `out_params` index its arguments; a function's `callees` are the functions its
  body calls, in first-call order;
- accesses fit their base: a `FieldAccess` names a field of its struct and has its type, `Swizzle`
  components index the base's, an `Index` is an integer on an array, vector, matrix or node output
  array, a `ResourceIndex` indexes a resource, a `RecordAccess` a node object;
- control flow is structured: `Break` only in a loop or switch, `Continue` only in a loop;
  conditions are bool scalars; `Switch` selects on an int or uint scalar, its case values are ints,
  unique, with one `default` at most;
- folded constants (`Constant.value`, `Variable.constant`/`settled`/`spec_default`, attribute
  arguments) are `ConstValue`s of their type's shape;
- storage and layouts: globals are not locals or parameters, declared locals are local, static or
  groupshared; uniform blocks, structured buffers (globals) and node object parameters with a
  struct record carry `layout` and `layout_rule`.

The walk is iterative (bodies may nest thousands deep) and generic over the dataclass fields of the
IR classes: a field holding an `Expr`, a `Stmt`, a `SwitchCase` or a sequence of them is a child.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from wgc import ir
from wgc import types as t
from wgc.source import Span

_NODES = (ir.Expr, ir.Stmt, ir.SwitchCase)

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
"""IR class -> the names of its fields that may hold child nodes (found once per class)."""

_REFERENCE_FIELDS = frozenset({"type", "span", "variable", "function", "operation_type", "template_type",
                               "attributes"})
"""Fields that refer to something outside the body (or are checked on their own): never children."""


def check(target: Any) -> None:
    """Raise AssertionError listing every violation of the IR's invariants in `target` (see `verify`)."""
    violations = verify(target)
    if violations:
        raise AssertionError(f"{len(violations)} IR invariant violation(s):\n" + "\n".join(violations))


def verify(target: Any) -> list[str]:
    """The violations of the IR's invariants in an `Analysis` (its sound functions), an `ir.Module`,
    or an iterable of `ir.Function`s; empty when the IR is well formed."""
    module = getattr(target, "module", target)
    skip: frozenset[ir.Function] = frozenset(getattr(target, "unsound", ()))
    # a global whose declaration holds an error stays in the module (uses of it are no new errors), in
    # whatever state the error left it: the globals are checked when sema reported no error at all
    errors = any(getattr(d.default, "name", None) == "ERROR" for d in getattr(target, "diagnostics", ()))
    verifier = _Verifier()
    if isinstance(module, ir.Module):
        functions = [f for f in module.functions if f not in skip]
        verifier.defined = set(module.functions)
        verifier.globals = set(module.globals)
        if not errors:
            for variable in module.globals:
                verifier.global_variable(variable)
    else:
        functions = list(module)
        verifier.defined = None   # functions alone: their callees may be anywhere
        verifier.globals = None
    for function in functions:
        verifier.function(function)
    return verifier.violations


def _where(span: Any) -> str:
    if not isinstance(span, Span):
        return "<no span>"
    line, column = span.line_col
    return f"{span.file.path}:{line}:{column}"


def _is_const_value(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, tuple) and all(_is_const_value(v) and not isinstance(v, str) for v in value)


def _scalar_value(value: Any, scalar: t.ScalarType) -> bool:
    if scalar.kind is t.ScalarKind.BOOL:
        return isinstance(value, bool)
    if scalar.is_integer:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, float)


def _fits(value: Any, type_: Any) -> bool:
    """Whether a folded constant has the shape of its type (`wgc.irtools.consteval`'s values): a scalar,
    a tuple of components for vectors and matrices (row-major), of elements for arrays, of fields for
    structs; a string for a string."""
    kind = type(type_)
    if kind is t.ScalarType:
        return _scalar_value(value, type_)
    if kind is t.EnumType:
        return _scalar_value(value, type_.underlying)
    if kind is t.VectorType or kind is t.MatrixType:
        return (isinstance(value, tuple) and len(value) == t.component_count(type_)
                and all(_scalar_value(v, type_.element) for v in value))
    if kind is t.ArrayType:
        return (isinstance(value, tuple) and (type_.length is None or len(value) == type_.length)
                and all(_fits(v, type_.element) for v in value))
    if kind is t.StructType:
        fields = type_.all_fields()
        return isinstance(value, tuple) and len(value) == len(fields) and all(
            _fits(v, f.type) for v, f in zip(value, fields))
    if kind is t.StringType:
        return isinstance(value, str)
    return False


def _is_bool_scalar(type_: Any) -> bool:
    return isinstance(type_, t.ScalarType) and type_.kind is t.ScalarKind.BOOL


def _is_bool(type_: Any) -> bool:
    """A bool scalar, vector or matrix."""
    return _is_bool_scalar(t.element_scalar(type_)) and not isinstance(type_, t.EnumType)


def _interned(type_: Any) -> bool:
    """Whether `type_` (and every type in it) is the object the `wgc.types` factory gives for its
    structure; structs and enums are nominal (one object per declaration)."""
    kind = type(type_)
    if kind is t.StructType or kind is t.EnumType:
        return True
    if kind is t.ScalarType:
        return t.scalar(type_.kind, type_.bits, type_.spelling, type_.relaxed) is type_
    if kind is t.VectorType:
        return _interned(type_.element) and t.vector(type_.element, type_.count) is type_
    if kind is t.MatrixType:
        return _interned(type_.element) and t.matrix(type_.element, type_.rows, type_.columns) is type_
    if kind is t.ArrayType:
        return _interned(type_.element) and t.array(type_.element, type_.length) is type_
    if kind is t.ResourceType:
        return ((type_.element is None or _interned(type_.element))
                and t.resource(type_.kind, type_.element, type_.element_modifier, type_.sample_count) is type_)
    if kind is t.NodeObjectType:
        return (type_.record is None or _interned(type_.record)) and t.node_object(type_.kind, type_.record) is type_
    if kind is t.RayQueryType:
        return t.ray_query(type_.flags, type_.query_flags) is type_
    if kind is t.VoidType:
        return type_ is t.VOID
    if kind is t.StringType:
        return type_ is t.STRING
    return False


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                           if f.name not in _REFERENCE_FIELDS)
    return names


def _children(node: Any) -> list[Any]:
    """The sub-expressions, sub-statements and switch cases of an IR node, in field order."""
    found: list[Any] = []
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, _NODES):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, _NODES))
    return found


_STRUCTURED_BUFFERS = frozenset({t.ResourceKind.STRUCTURED_BUFFER, t.ResourceKind.RW_STRUCTURED_BUFFER,
                                 t.ResourceKind.APPEND_STRUCTURED_BUFFER, t.ResourceKind.CONSUME_STRUCTURED_BUFFER})


class _Verifier:
    def __init__(self) -> None:
        self.violations: list[str] = []
        self.defined: set[ir.Function] | None = None
        self.globals: set[ir.Variable] | None = None
        self.function_now: ir.Function | None = None
        self.locals: set[ir.Variable] = set()

    def report(self, node: Any, field: str, problem: str, span: Any = None) -> None:
        where = _where(span if span is not None else getattr(node, "span", None))
        inside = f" (in {self.function_now.name})" if self.function_now is not None else ""
        self.violations.append(f"{type(node).__name__}.{field} at {where}{inside}: {problem}")

    # ------------------------------------------------------------ shared pieces

    def typed(self, node: Any, field: str, type_: Any) -> bool:
        """Check that `type_` is an interned type; False (reported) when it is not a type at all."""
        if not isinstance(type_, t.Type):
            self.report(node, field, f"not a type: {type_!r}")
            return False
        if not _interned(type_):
            self.report(node, field, f"type {type_} is not the interned object of its structure")
        return True

    def spanned(self, node: Any) -> None:
        if not isinstance(node.span, Span):
            self.report(node, "span", f"not a span: {node.span!r}")

    def same_type(self, node: Any, field: str, value: Any, expected: Any, what: str) -> None:
        if isinstance(value, ir.Expr) and value.type is not expected:
            self.report(node, field, f"has type {value.type}, not {what} {expected} (a missing Convert)")

    def attributes(self, node: Any, attributes: Any) -> None:
        for attribute in attributes:
            for arg in attribute.args:
                if arg.value is not None and not _is_const_value(arg.value):
                    self.report(attribute, "args", f"argument of [{attribute.name}] is not a folded constant: "
                                f"{arg.value!r}", arg.span)

    def constant_fields(self, variable: ir.Variable) -> None:
        for name in ("constant", "settled", "spec_default"):
            value = getattr(variable, name)
            if value is not None and not _fits(value, variable.type):
                self.report(variable, name, f"{value!r} is not a folded constant of type {variable.type}")

    def variable(self, variable: ir.Variable) -> None:
        """What every variable carries: an interned type, a span, folded constants, its layout."""
        self.typed(variable, "type", variable.type)
        self.spanned(variable)
        self.constant_fields(variable)
        self.attributes(variable, variable.attributes)
        inner = t.innermost_element(variable.type)
        needs_layout = (variable.storage is ir.Storage.UNIFORM
                        or variable.storage is ir.Storage.RESOURCE and isinstance(inner, t.ResourceType)
                        and inner.kind in _STRUCTURED_BUFFERS
                        or variable.storage is ir.Storage.PARAMETER and isinstance(variable.type, t.NodeObjectType)
                        and isinstance(variable.type.record, t.StructType))
        if needs_layout and (variable.layout is None or variable.layout_rule is None):
            self.report(variable, "layout", f"'{variable.name}' of type {variable.type} has no layout")
        if variable.layout is not None and not isinstance(variable.layout, ir.TypeLayout):
            self.report(variable, "layout", f"not a TypeLayout: {variable.layout!r}")

    def global_variable(self, variable: ir.Variable) -> None:
        self.function_now = None
        storage = variable.storage
        if storage in (ir.Storage.LOCAL, ir.Storage.PARAMETER):
            self.report(variable, "storage", f"global '{variable.name}' has {storage.value} storage")
        self.variable(variable)
        if storage in (ir.Storage.RESOURCE, ir.Storage.UNIFORM) and not variable.push_constant \
                and not isinstance(variable.binding, ir.Binding):
            self.report(variable, "binding", f"{storage.value} '{variable.name}' has no binding")
        if storage is ir.Storage.SPEC_CONSTANT and (type(variable.spec_id) is not int or variable.spec_default is None):
            self.report(variable, "spec_id", f"specialization constant '{variable.name}' without its id or default")
        if variable.init is not None:
            self.locals = set()
            self.same_type(variable, "init", variable.init, variable.type, "the variable's type")
            self.body(variable.init)

    # ------------------------------------------------------------ functions

    def function(self, function: ir.Function) -> None:
        self.function_now = function
        self.typed(function, "return_type", function.return_type)
        self.spanned(function)
        self.attributes(function, function.attributes)
        for param in function.params:
            if not isinstance(param, ir.Variable) or param.storage is not ir.Storage.PARAMETER:
                self.report(function, "params", f"not a parameter variable: {param!r}")
                continue
            self.variable(param)
        if function.method_of is not None:
            this = function.params[0] if function.params else None
            if this is None or this.type is not function.method_of:
                self.report(function, "params", f"member function of {function.method_of} without `this` first")
        if function.shader_kind is None and not function.must_inline and any(
                isinstance(t.innermost_element(type_), t.NodeObjectType)
                for type_ in (function.return_type, *(p.type for p in function.params))):
            self.report(function, "must_inline", f"'{function.name}' takes or returns a node object but is not "
                        "marked must_inline")
        if function.body is None:
            self.report(function, "body", "a function in the IR without a body")
            return
        self.locals = set(function.params)
        seen = list(dict.fromkeys(self.body(function.body)))   # first calls, in order
        if function.callees != seen:
            self.report(function, "callees", f"{[f.name for f in function.callees]} are not the functions the "
                        f"body calls in first-call order ({[f.name for f in seen]})")

    def body(self, root: Any) -> list[ir.Function]:
        """Check a body (a statement or an expression) and everything under it; the functions it
        calls, in the order the calls are made (a call's arguments before the call)."""
        calls: list[ir.Function] = []
        # post-order (children in field order before their parent), each node with whether a loop is
        # around it and whether a switch is around it nearer than the nearest loop
        order: list[tuple[Any, bool, bool]] = []
        stack: list[tuple[Any, bool, bool, bool]] = [(root, False, False, False)]
        while stack:
            node, in_loop, in_switch, expanded = stack.pop()
            if expanded:
                order.append((node, in_loop, in_switch))
                continue
            stack.append((node, in_loop, in_switch, True))
            if isinstance(node, ir.VarDecl) and isinstance(node.variable, ir.Variable):
                # in scope in the whole function for the verifier (declaration before use is sema's
                # scoping, not an IR invariant)
                self.locals.add(node.variable)
            if isinstance(node, ir.Loop):
                in_loop, in_switch = True, False
            elif isinstance(node, ir.Switch):
                in_switch = True
            for child in reversed(_children(node)):
                stack.append((child, in_loop, in_switch, False))
        for node, in_loop, in_switch in order:
            if isinstance(node, ir.Expr):
                self.expr(node, calls)
            elif isinstance(node, ir.Stmt):
                self.stmt(node, in_loop, in_switch)
        return calls

    # ------------------------------------------------------------ statements

    def stmt(self, node: ir.Stmt, in_loop: bool, in_switch: bool) -> None:
        self.spanned(node)
        if type(node) is ir.Break:
            if not (in_loop or in_switch):
                self.report(node, "", "break outside a loop or switch")
        elif type(node) is ir.Continue:
            if not in_loop:
                self.report(node, "", "continue outside a loop")
        elif type(node) is ir.VarDecl:
            variable = node.variable
            if not isinstance(variable, ir.Variable):
                self.report(node, "variable", f"not a Variable: {variable!r}")
                return
            if variable.storage not in (ir.Storage.LOCAL, ir.Storage.STATIC, ir.Storage.GROUPSHARED):
                self.report(node, "variable", f"local '{variable.name}' has {variable.storage.value} storage")
            self.variable(variable)
            self.same_type(node, "init", node.init, variable.type, "the variable's type")
        elif type(node) is ir.If:
            self.condition(node, "cond", node.cond)
            if not isinstance(node.then, ir.Block) or not isinstance(node.else_, (ir.Block, type(None))):
                self.report(node, "then", "branches are not Blocks")
            self.attributes(node, node.attributes)
        elif type(node) is ir.Loop:
            if node.cond is not None:
                self.condition(node, "cond", node.cond)
            if not isinstance(node.body, ir.Block):
                self.report(node, "body", f"not a Block: {node.body!r}")
            self.attributes(node, node.attributes)
        elif type(node) is ir.Switch:
            self.switch(node)
        elif type(node) is ir.Return:
            function = self.function_now
            if function is not None:
                if node.value is None and function.return_type is not t.VOID:
                    self.report(node, "value", f"no value returned from a {function.return_type} function")
                elif node.value is not None and function.return_type is not t.VOID:
                    self.same_type(node, "value", node.value, function.return_type, "the return type")
        elif type(node) is ir.ExprStmt:
            if not isinstance(node.expr, ir.Expr):
                self.report(node, "expr", f"not an expression: {node.expr!r}")

    def condition(self, node: Any, field: str, cond: Any) -> None:
        if not isinstance(cond, ir.Expr) or not _is_bool_scalar(cond.type):
            self.report(node, field, f"condition is not a bool scalar: {getattr(cond, 'type', cond)}")

    def switch(self, node: ir.Switch) -> None:
        selector = node.selector
        scalar = getattr(selector, "type", None)
        if not (isinstance(scalar, (t.ScalarType, t.EnumType))
                and (element := t.element_scalar(scalar)) is not None and element.is_integer):
            self.report(node, "selector", f"selector is not an int or uint scalar: {scalar}")
        seen: set[int] = set()
        defaults = 0
        for case in node.cases:
            if not isinstance(case.body, ir.Block):
                self.report(case, "body", f"not a Block: {case.body!r}", node.span)
            defaults += case.is_default
            for value in case.values:
                if type(value) is not int:
                    self.report(case, "values", f"case value {value!r} is not a folded int", node.span)
                elif value in seen:
                    self.report(case, "values", f"case value {value} repeated", node.span)
                seen.add(value)
            if not case.values and not case.is_default:
                self.report(case, "values", "a case without a value that is not default", node.span)
        if defaults > 1:
            self.report(node, "cases", f"{defaults} default cases")
        self.attributes(node, node.attributes)

    # ------------------------------------------------------------ expressions

    def expr(self, node: ir.Expr, calls: list[ir.Function]) -> None:
        self.spanned(node)
        if not self.typed(node, "type", node.type):
            return
        kind = type(node)
        check = _EXPRESSION_CHECKS.get(kind)
        if check is not None:
            check(self, node, calls)

    def _constant(self, node: ir.Constant, calls: list[ir.Function]) -> None:
        if not _fits(node.value, node.type):
            self.report(node, "value", f"{node.value!r} is not a folded constant of type {node.type}")

    def _var_ref(self, node: ir.VarRef, calls: list[ir.Function]) -> None:
        variable = node.variable
        if not isinstance(variable, ir.Variable):
            self.report(node, "variable", f"unresolved: {variable!r}")
        elif variable not in self.locals and self.globals is not None and variable not in self.globals:
            self.report(node, "variable", f"'{variable.name}' is neither a global, a parameter nor a local "
                        "declared in the function")

    def _field_access(self, node: ir.FieldAccess, calls: list[ir.Function]) -> None:
        base_type = getattr(node.base, "type", None)
        if isinstance(base_type, t.StructType):
            fields = base_type.all_fields()
            if not 0 <= node.index < len(fields) or fields[node.index].name != node.name:
                self.report(node, "index", f"field {node.index} ('{node.name}') is not a field of {base_type}")
            elif fields[node.index].type is not node.type:
                self.report(node, "type", f"{node.type} is not the type of {base_type}.{node.name} "
                            f"({fields[node.index].type})")

    def _swizzle(self, node: ir.Swizzle, calls: list[ir.Function]) -> None:
        base_type = getattr(node.base, "type", None)
        if isinstance(base_type, t.MatrixType):
            if not all(isinstance(c, tuple) and 0 <= c[0] < base_type.rows and 0 <= c[1] < base_type.columns
                       for c in node.components):
                self.report(node, "components", f"{node.components} out of {base_type}")
        else:
            count = t.component_count(base_type) if base_type is not None else None
            if count is None or not all(isinstance(c, int) and 0 <= c < count for c in node.components):
                self.report(node, "components", f"{node.components} out of {base_type}")

    def _index(self, node: ir.Index, calls: list[ir.Function]) -> None:
        base_type = getattr(node.base, "type", None)
        if not (isinstance(base_type, (t.ArrayType, t.VectorType, t.MatrixType))
                or isinstance(base_type, t.NodeObjectType) and base_type.kind.is_array):
            self.report(node, "base", f"indexes a {getattr(node.base, 'type', node.base)}")
        self.integer(node, "index", node.index)

    def _resource_index(self, node: ir.ResourceIndex, calls: list[ir.Function]) -> None:
        if not isinstance(getattr(node.resource, "type", None), t.ResourceType):
            self.report(node, "resource", f"indexes a {getattr(node.resource, 'type', node.resource)}")
        self.integer(node, "index", node.index)
        if node.slice is not None:
            self.integer(node, "slice", node.slice)

    def _record_access(self, node: ir.RecordAccess, calls: list[ir.Function]) -> None:
        if not isinstance(getattr(node.object, "type", None), t.NodeObjectType):
            self.report(node, "object", f"a record of a {getattr(node.object, 'type', node.object)}")
        if node.index is not None:
            self.integer(node, "index", node.index)

    def _unary(self, node: ir.Unary, calls: list[ir.Function]) -> None:
        self.same_type(node, "operand", node.operand, node.type, "the operator's type")

    def _binary(self, node: ir.Binary, calls: list[ir.Function]) -> None:
        left, right = node.left, node.right
        if not isinstance(left, ir.Expr) or not isinstance(right, ir.Expr):
            self.report(node, "left" if not isinstance(left, ir.Expr) else "right", "missing operand")
            return
        if left.type is not right.type:
            self.report(node, "right", f"operands of '{node.op}' have types {left.type} and {right.type} "
                        "(a missing Convert)")
        elif node.op in _BOOL_RESULT:
            if not _is_bool(node.type) or t.component_count(node.type) != t.component_count(left.type):
                self.report(node, "type", f"'{node.op}' on {left.type} gives {node.type}, not bool of its shape")
        elif node.type is not left.type:
            self.report(node, "type", f"'{node.op}' on {left.type} gives {node.type}")

    def _select(self, node: ir.Select, calls: list[ir.Function]) -> None:
        if not _is_bool(getattr(node.cond, "type", None)):
            self.report(node, "cond", f"condition is not bool: {getattr(node.cond, 'type', node.cond)}")
        self.same_type(node, "then", node.then, node.type, "the selection's type")
        self.same_type(node, "else_", node.else_, node.type, "the selection's type")

    def _comma(self, node: ir.Comma, calls: list[ir.Function]) -> None:
        self.same_type(node, "right", node.right, node.type, "the expression's type")

    def _convert(self, node: ir.Convert, calls: list[ir.Function]) -> None:
        if not isinstance(node.operand, ir.Expr):
            self.report(node, "operand", f"not an expression: {node.operand!r}")

    def _construct(self, node: ir.Construct, calls: list[ir.Function]) -> None:
        type_ = node.type
        if isinstance(type_, (t.VectorType, t.MatrixType)):
            # components, row-major: scalars or vectors of the element scalar, in order
            count = 0
            for arg in node.args:
                part = getattr(arg, "type", None)
                if part is type_.element:
                    count += 1
                elif isinstance(part, t.VectorType) and part.element is type_.element:
                    count += part.count
                else:
                    self.report(node, "args", f"part of type {part} is not {type_.element} or a vector of it "
                                "(a missing Convert)", getattr(arg, "span", None))
                    return
            if count != t.component_count(type_):
                self.report(node, "args", f"parts with {count} components for {type_}")
            return
        if isinstance(type_, t.ArrayType):
            elements = [type_.element] * (type_.length or 0)
        elif isinstance(type_, t.StructType):
            elements = [f.type for f in type_.all_fields()]
        else:
            return
        if len(node.args) != len(elements):
            self.report(node, "args", f"{len(node.args)} parts for {type_}, which has {len(elements)}")
            return
        for arg, element in zip(node.args, elements):
            self.same_type(node, "args", arg, element, "the element type")

    def _assign(self, node: ir.Assign, calls: list[ir.Function]) -> None:
        target_type = getattr(node.target, "type", None)
        if node.op:
            if node.operation_type is None:
                self.report(node, "operation_type", f"compound '{node.op}=' without an operation type")
            else:
                self.same_type(node, "value", node.value, node.operation_type, "the operation's type")
        else:
            self.same_type(node, "value", node.value, target_type, "the target's type")

    def _call(self, node: ir.Call, calls: list[ir.Function]) -> None:
        function = node.function
        if not isinstance(function, ir.Function):
            self.report(node, "function", f"unresolved: {function!r}")
            return
        calls.append(function)
        if self.defined is not None and function not in self.defined and function.body is not None:
            self.report(node, "function", f"'{function.name}' is not a function of the module")
        if len(node.args) != len(function.params):
            self.report(node, "args", f"{len(node.args)} arguments for {len(function.params)} parameters of "
                        f"'{function.name}'")
            return
        for arg, param in zip(node.args, function.params):
            if param.direction is not ir.Direction.IN:
                continue
            param_type, arg_type = param.type, getattr(arg, "type", None)
            if isinstance(param_type, t.ArrayType) and param_type.length is None and \
                    isinstance(arg_type, t.ArrayType) and arg_type.element is param_type.element:
                continue   # `float a[]`: the function is inlined, the parameter takes its argument's size
            self.same_type(node, "args", arg, param_type, f"parameter '{param.name}''s type")

    def _intrinsic_call(self, node: ir.IntrinsicCall, calls: list[ir.Function]) -> None:
        if not node.name or not isinstance(node.name, str):
            self.report(node, "name", "no intrinsic named")
        self.out_params(node)

    def _method_call(self, node: ir.MethodCall, calls: list[ir.Function]) -> None:
        if not node.method or not isinstance(node.method, str):
            self.report(node, "method", "no method named")
        object_type = getattr(node.object, "type", None)
        if not isinstance(object_type, (t.ResourceType, t.NodeObjectType, t.RayQueryType)):
            self.report(node, "object", f"method '{node.method}' of a {object_type}")
        if node.template_type is not None:
            self.typed(node, "template_type", node.template_type)
        self.out_params(node)

    def out_params(self, node: ir.IntrinsicCall | ir.MethodCall) -> None:
        if not all(isinstance(i, int) and 0 <= i < len(node.args) for i in node.out_params):
            self.report(node, "out_params", f"{node.out_params} are not indices of its {len(node.args)} arguments")

    def integer(self, node: Any, field: str, value: Any) -> None:
        scalar = t.element_scalar(value.type) if isinstance(value, ir.Expr) else None
        if scalar is None or not scalar.is_integer:
            self.report(node, field, f"not an integer: {getattr(value, 'type', value)}")


_BOOL_RESULT = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})
"""Binary operators whose result is bool of the operands' shape."""

_EXPRESSION_CHECKS: dict[type, Any] = {
    ir.Constant: _Verifier._constant, ir.VarRef: _Verifier._var_ref, ir.FieldAccess: _Verifier._field_access,
    ir.Swizzle: _Verifier._swizzle, ir.Index: _Verifier._index, ir.ResourceIndex: _Verifier._resource_index,
    ir.RecordAccess: _Verifier._record_access, ir.Unary: _Verifier._unary, ir.Binary: _Verifier._binary,
    ir.Select: _Verifier._select, ir.Comma: _Verifier._comma, ir.Convert: _Verifier._convert,
    ir.Construct: _Verifier._construct, ir.Assign: _Verifier._assign, ir.Call: _Verifier._call,
    ir.IntrinsicCall: _Verifier._intrinsic_call, ir.MethodCall: _Verifier._method_call,
}

