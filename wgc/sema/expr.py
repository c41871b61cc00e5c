"""Semantic analysis, expressions: from AST expressions to typed IR expressions.

Input: an `ast.Expr` and the `Context` (scopes, the function being checked).
Output: an `ir.Expr` whose type is known and whose implicit conversions are
explicit `ir.Convert` nodes — or None after the problem was reported (callers
stop quietly on None, so one mistake gives one diagnostic).

What is checked here: name resolution (WG0301 with did-you-mean), operators
and their operand types (WG0320), HLSL's implicit conversions with truncation
warnings (WG0303, WG0313), literal typing (an unsuffixed literal takes the type
of the other operand, as dxc's "literal int/float"), swizzles (WG0306),
l-values (WG0307, WG0332), calls: user functions with overloads, default
arguments, out/inout copy-back, templates; intrinsics and resource/node-object
methods through their typed overload sets (WG0304/0305/0308), casts (WG0321),
constructors and initializer lists with HLSL's flattening (WG0322), constant
indices (WG0312) and constants where required (WG0311).

Invariants: never raises for bad input; every returned expression is typed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Label
from wgc.irtools import consteval
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.sema import intrinsics, methods, rayquery, strings
from wgc.sema.context import (BlockMember, Context, EnumeratorEntity, ErroneousVariable, FieldEntity, FunctionEntity,
                              NamespaceEntity, TypeEntity, node_handlers)
from wgc.sema.conversions import common_type, implicit_conversion
from wgc.sema.scope import SymbolKind
from wgc.sema.templates import StructTemplate
from wgc.sema.typeref import resolve_type
from wgc.source import Span
from wgc.suggest import closest
from wgc.syntax import ast

_ARITHMETIC = {"+", "-", "*", "/", "%"}
_BITWISE = {"&", "|", "^", "<<", ">>"}
_COMPARISON = {"<", ">", "<=", ">=", "==", "!="}
_LOGICAL = {"&&", "||"}
_SWIZZLE_SETS = ("xyzw", "rgba")
_INT_MAX = 2**31 - 1
_UINT_MAX = 2**32 - 1
_REPEATED_COMPONENT = "the swizzle repeats a component"
_BOOL, _FLOAT = t.ScalarKind.BOOL, t.ScalarKind.FLOAT
_INTEGER_KINDS = (t.ScalarKind.INT, t.ScalarKind.UINT)
_UNIFORM, _RESOURCE = ir.Storage.UNIFORM, ir.Storage.RESOURCE
"""Enum members and `ScalarType.is_integer`'s kinds as module constants, for the checks made at every
operator and assignment: an enum member read through its class (`t.ScalarKind.BOOL`) is a lookup at
each use, dearer than a global's read, and the property dearer still."""


def member_span(span: Span, name: str) -> Span:
    """The span of the member name at the end of a member expression `obj.name`."""
    start = max(span.start, span.end - len(name))
    return Span(span.file, start, span.end)


def bool_of(type_: t.Type) -> t.Type:
    """bool with the shape of `type_` (scalar, vector or matrix)."""
    return t.with_element(type_, t.BOOL)


def describe(type_: t.Type) -> str:
    return f"'{type_}'"


class ExpressionChecker:
    """Checks expressions in the context's current scope and function."""

    def __init__(self, ctx: Context, function_caller) -> None:
        self.ctx = ctx
        self.functions = function_caller
        """Resolves calls of user functions (`calls.FunctionCalls`): overloads, templates, methods."""
        self._index_accesses: dict[t.Type, methods.IndexAccess | None] = {}
        """`methods.index_access`'s answers in this compile, by object type (a pure function of it): a
        program indexes the same objects again (`outs[0].a = ...; outs[0].b = ...`); kept per compile,
        as the object types hold the compile's record structs."""
        self._flattened: dict[int, list[ir.Expr] | None] = {}
        """Initializer lists already checked to size an unsized array (by id of the list), for `initializer`."""

    # ------------------------------------------------------------ entry points

    def check(self, expr: ast.Expr) -> ir.Expr | None:
        return _HANDLERS[type(expr)](self, expr)

    def check_type(self, ref: ast.TypeRef) -> t.Type | None:
        return resolve_type(self.ctx, ref, self.constant_int)

    def value(self, expr: ast.Expr) -> ir.Expr | None:
        """An expression used as a value (not a bare function or type name)."""
        return self.check(expr)

    def converted(self, expr: ast.Expr, target: t.Type, what: str) -> ir.Expr | None:
        """Check `expr` and convert it implicitly to `target` (`what` names the context in messages)."""
        checked = self.check(expr)
        if checked is None:
            return None
        return self.convert(checked, target, what)

    def convert(self, expr: ir.Expr, target: t.Type, what: str) -> ir.Expr | None:
        """Implicitly convert a checked expression, reporting a mismatch or a truncation."""
        if expr.type is target:
            return expr
        conversion = implicit_conversion(expr.type, target)
        if conversion is None:
            self.ctx.report(codes.TYPE_MISMATCH, expr.span,
                            f"cannot convert from {describe(expr.type)} to {describe(target)} in {what}")
            return None
        if conversion.truncates:
            self.ctx.report(codes.IMPLICIT_TRUNCATION, expr.span,
                            f"implicit truncation of {describe(expr.type)} to {describe(target)} in {what}")
        return self.make_convert(expr, target)

    @staticmethod
    def make_convert(expr: ir.Expr, target: t.Type, explicit: bool = False) -> ir.Expr:
        if expr.type is target and not explicit:
            return expr
        if not explicit and type(expr) is ir.Constant and type(expr.type) is t.ScalarType:
            element = t.element_scalar(target)
            if element is not None and type(target) is not t.EnumType:
                value = consteval.convert_value(expr.value, expr.type, element)
                expr = ir.Constant(element, expr.span, value)
                if target is element:
                    return expr
        return ir.Convert(target, expr.span, expr, explicit)

    def condition(self, expr: ast.Expr, what: str) -> ir.Expr | None:
        """A condition: a scalar convertible to bool."""
        checked = self.check(expr)
        if checked is None:
            return None
        scalar = t.element_scalar(checked.type)
        if scalar is None or t.component_count(checked.type) != 1:
            self.ctx.report(codes.INVALID_CONDITION, checked.span,
                            f"{what} must be a scalar, not {describe(checked.type)}")
            return None
        if isinstance(checked.type, (t.VectorType, t.MatrixType)):
            checked = self.make_convert(checked, scalar)
        return self.make_convert(checked, t.BOOL)

    def constant(self, expr: ast.Expr, what: str) -> tuple[ir.Expr, ir.ConstValue] | None:
        """Check and fold an expression that must be a constant."""
        checked = self.check(expr)
        if checked is None:
            return None
        return self.fold_required(checked, what)

    def fold_required(self, checked: ir.Expr, what: str) -> tuple[ir.Expr, ir.ConstValue] | None:
        if type(checked) is ir.Constant:   # (a constant has no problems to report)
            return checked, consteval.constant_value(checked)
        folded = consteval.fold(checked)
        if isinstance(folded, consteval.NotConstant):
            self.ctx.report(codes.NOT_CONSTANT, checked.span, f"{what} must be a constant expression",
                            labels=[Label(folded.span, folded.reason)] if folded.span != checked.span else [],
                            notes=[] if folded.span != checked.span else [folded.reason])
            return None
        self.report_problems(folded.problems)
        return checked, folded.value

    def report_problems(self, problems: Sequence[consteval.Problem]) -> None:
        """Report what folding a constant met (an overflow, a division by zero)."""
        for problem in problems:
            if problem.kind == "division-by-zero":
                self.ctx.report(codes.DIVISION_BY_ZERO, problem.span, problem.message)
            else:
                self.ctx.report(codes.CONSTANT_OVERFLOW, problem.span, problem.message)

    def constant_int(self, expr: ast.Expr, what: str) -> int | None:
        found = self.constant(expr, what)
        if found is None:
            return None
        checked, value = found
        scalar = t.element_scalar(checked.type)
        if isinstance(value, bool) or scalar is None or not scalar.is_integer and not isinstance(checked.type, t.EnumType):
            if isinstance(value, bool) or not isinstance(value, int):
                self.ctx.report(codes.NOT_CONSTANT, checked.span,
                                f"{what} must be an integer constant, not {describe(checked.type)}")
                return None
        return int(value)  # type: ignore[arg-type]

    def fold_quietly(self, expr: ir.Expr) -> ir.ConstValue | None:
        """The value of an expression when it happens to be constant (problems are reported)."""
        if type(expr) is ir.Constant:   # (a constant has no problems to report)
            return consteval.constant_value(expr)
        folded = consteval.fold(expr)
        if isinstance(folded, consteval.NotConstant):
            return None
        self.report_problems(folded.problems)
        return folded.value

    # ------------------------------------------------------------ l-values

    def assignable(self, expr: ir.Expr, what: str) -> bool:
        """Whether `expr` is a modifiable l-value; reports why not (WG0307)."""
        reason = self.not_assignable_reason(expr)
        if reason is None:
            return True
        if reason == _REPEATED_COMPONENT:
            assert isinstance(expr, ir.Swizzle)
            name, repeated = _swizzle_text(expr)
            self.ctx.report(codes.INVALID_SWIZZLE, expr.span, f"invalid swizzle '{name}' on {describe(expr.base.type)}: "
                            f"component '{repeated}' is repeated in an assigned swizzle")
            return False
        self.ctx.report(codes.NOT_ASSIGNABLE, expr.span, f"cannot {what}: {reason}")
        return False

    def not_assignable_reason(self, expr: ir.Expr) -> str | None:
        # (identity tests: the IR expression classes have no subclasses; cheaper than isinstance)
        if type(expr) is ir.VarRef:
            var = expr.variable
            if var.const:
                return f"'{var.name}' is const"
            if var.storage is _UNIFORM:
                return f"'{var.name}' is a constant buffer"
            if var.storage is _RESOURCE:
                return f"'{var.name}' is a resource"
            return None
        if type(expr) is ir.FieldAccess:
            if type(expr.base) is ir.VarRef and expr.base.variable.storage is _UNIFORM:
                block = expr.base.variable.name
                if block == "$Globals":
                    return (f"'{expr.name}' is a uniform global (a member of the implicit $Globals constant "
                            "buffer); declare it 'static' to make it a modifiable variable")
                return f"'{expr.name}' is a member of constant buffer '{block}'"
            return self.not_assignable_reason(expr.base)
        if type(expr) is ir.Swizzle:
            if len(set(expr.components)) != len(expr.components):
                return _REPEATED_COMPONENT
            return self.not_assignable_reason(expr.base)
        if type(expr) is ir.Index:
            if isinstance(expr.base.type, t.NodeObjectType):
                return "a node output is not assignable"
            return self.not_assignable_reason(expr.base)
        if type(expr) is ir.ResourceIndex:
            if isinstance(expr.resource.type, t.ResourceType) and not expr.resource.type.kind.writable:
                return f"{describe(expr.resource.type)} is read-only"
            return None
        if type(expr) is ir.RecordAccess:
            object_kind = expr.object.type.kind  # type: ignore[attr-defined]
            if not object_kind.writable:
                hint = f" (use RW{object_kind.value} to modify the input)" if object_kind.is_input else ""
                return f"records of {describe(expr.object.type)} are read-only{hint}"
            if type(expr.object) is ir.VarRef and expr.object.variable.const:  # DXC: Get() returns const
                return f"'{expr.object.variable.name}' is const, so its records are read-only"
            return None
        if strings.is_literal(expr):
            return "a string literal is a constant array"
        return "the expression is not an l-value"

    # ------------------------------------------------------------ leaves

    def _IntLiteral(self, e: ast.IntLiteral) -> ir.Expr:
        suffix, value = e.suffix, e.value
        if not suffix and value <= _INT_MAX:   # most literals: what the tests below give them, sooner
            return ir.Constant(t.INT, e.span, value, True)
        if "l" in suffix:
            type_ = t.UINT64 if "u" in suffix else t.INT64
        elif "u" in suffix:
            type_ = t.UINT if value <= _UINT_MAX else t.UINT64
        elif value <= _INT_MAX:
            type_ = t.INT
        elif value <= _UINT_MAX and _hex_or_octal(e.text):
            type_ = t.UINT
        else:
            type_ = t.INT64 if value <= 2**63 - 1 else t.UINT64
        return ir.Constant(type_, e.span, value, not suffix)

    def _FloatLiteral(self, e: ast.FloatLiteral) -> ir.Expr:
        if e.suffix == "h":
            type_ = t.scalar_named("half", self.ctx.options.enable_16bit_types)
        elif e.suffix == "l":
            type_ = t.DOUBLE
        else:
            type_ = t.FLOAT
        assert type_ is not None
        value = consteval.convert_value(e.value, t.DOUBLE, type_)
        return ir.Constant(type_, e.span, value, literal=not e.suffix)

    def _BoolLiteral(self, e: ast.BoolLiteral) -> ir.Expr:
        return ir.Constant(t.BOOL, e.span, e.value)

    def _StringLiteral(self, e: ast.StringLiteral) -> ir.Expr:
        return ir.Constant(t.STRING, e.span, e.value)

    def _NameExpr(self, e: ast.NameExpr) -> ir.Expr | None:
        name = e.name
        # a plain name is what lookup_scoped looks up first, without its call
        found = self.ctx.scope.lookup(name[0]) if len(name) == 1 else \
            self.ctx.templates.lookup_scoped(name, e.scope_args, e.span)
        if found is None:
            return None
        if found and type(found[0].entity) is ir.Variable:   # the common case, before the display name
            variable = found[0].entity
            return ir.VarRef(variable.type, e.span, variable)
        symbols = found
        display = "::".join(name)
        this = self.ctx.function.this if self.ctx.function else None
        if name == ("this",) and this is not None and not symbols:
            return ir.VarRef(this.type, e.span, this)
        if not symbols:
            if len(name) == 1 and intrinsics.is_intrinsic(name[0]):
                self.ctx.report(codes.INVALID_OPERANDS, e.span, f"intrinsic function '{display}' must be called")
                return None
            self._undeclared(e.span, display, name[-1])
            return None
        symbol = symbols[0]
        entity = symbol.entity
        if isinstance(entity, ir.Variable):
            return ir.VarRef(entity.type, e.span, entity)
        if isinstance(entity, ErroneousVariable):
            self.ctx.erroneous_use(e.span)
            return None  # its declaration's error is reported
        if isinstance(entity, BlockMember):
            block = ir.VarRef(entity.block.type, e.span, entity.block)
            field_ = entity.block.type.all_fields()[entity.index]  # type: ignore[attr-defined]
            return ir.FieldAccess(field_.type, e.span, block, entity.index, field_.name)
        if isinstance(entity, FieldEntity):
            this = self.ctx.function.this if self.ctx.function else None
            if this is None:
                self.ctx.report(codes.INVALID_OPERANDS, e.span,
                                f"invalid use of member '{display}' outside a member function")
                return None
            base = self._this_as(this, entity.struct, e.span)
            field_ = entity.struct.all_fields()[entity.index]
            return ir.FieldAccess(field_.type, e.span, base, entity.index, field_.name)
        if isinstance(entity, EnumeratorEntity):
            if symbol.span is None:             # a built-in constant
                rayquery.check_constant_use(self.ctx, display, e.span)
            return ir.Constant(entity.type, e.span, entity.value)
        if isinstance(entity, FunctionEntity):
            self.ctx.report(codes.INVALID_OPERANDS, e.span, f"function '{display}' must be called")
            return None
        if isinstance(entity, (TypeEntity, StructTemplate)):
            self.ctx.report(codes.INVALID_OPERANDS, e.span, f"'{display}' is a type, not a value")
            return None
        assert isinstance(entity, NamespaceEntity)
        self.ctx.report(codes.INVALID_OPERANDS, e.span, f"'{display}' is a namespace, not a value")
        return None

    def _this_as(self, this: ir.Variable, struct: t.StructType, span: Span) -> ir.Expr:
        base: ir.Expr = ir.VarRef(this.type, span, this)
        return base if this.type is struct else ir.Convert(struct, span, base)

    def _undeclared(self, span: Span, display: str, last: str) -> None:
        if self.ctx.use_of_skipped(display.split("::")[0], span):
            return
        suggestion = self.ctx.suggest(last, extra=intrinsics.intrinsic_names())
        notes = [f"did you mean '{suggestion}'?"] if suggestion and suggestion != last else []
        self.ctx.report(codes.UNDECLARED_IDENTIFIER, span, f"use of undeclared identifier '{display}'", notes=notes)

    # ------------------------------------------------------------ operators

    def _UnaryExpr(self, e: ast.UnaryExpr) -> ir.Expr | None:
        operand = self.check(e.operand)
        if operand is None:
            return None
        if e.op in ("++", "--"):
            return self._incdec(e.span, operand, e.op, prefix=True)
        scalar = t.element_scalar(operand.type)
        if scalar is None:
            self.ctx.report(codes.INVALID_OPERANDS, e.span,
                            f"invalid operand to unary '{e.op}': {describe(operand.type)}")
            return None
        if e.op == "!":
            converted = self.make_convert(operand, bool_of(operand.type))
            return ir.Unary(bool_of(operand.type), e.span, "!", converted)
        if isinstance(operand.type, t.EnumType):
            operand = self.make_convert(operand, scalar)
        if e.op == "~" and not scalar.is_integer and scalar.kind is not t.ScalarKind.BOOL:
            self.ctx.report(codes.INVALID_OPERANDS, e.span,
                            f"invalid operand to unary '~': {describe(operand.type)} is not an integer type")
            return None
        if scalar.kind is t.ScalarKind.BOOL:
            operand = self.make_convert(operand, t.with_element(operand.type, t.INT))
        result = ir.Unary(operand.type, e.span, e.op, operand)
        if isinstance(operand, ir.Constant) and operand.literal and e.op in "-+":
            value = consteval.fold(result)
            if isinstance(value, consteval.Folded) and not value.problems:
                return ir.Constant(operand.type, e.span, value.value, literal=True)
        return result

    def _PostfixExpr(self, e: ast.PostfixExpr) -> ir.Expr | None:
        operand = self.check(e.operand)
        if operand is None:
            return None
        return self._incdec(e.span, operand, e.op, prefix=False)

    def _incdec(self, span: Span, target: ir.Expr, op: str, prefix: bool) -> ir.Expr | None:
        scalar = t.element_scalar(target.type)
        if scalar is None or scalar.kind is t.ScalarKind.BOOL or isinstance(target.type, t.EnumType):
            self.ctx.report(codes.INVALID_OPERANDS, span, f"cannot apply '{op}' to {describe(target.type)}")
            return None
        if not self.assignable(target, f"apply '{op}'"):
            return None
        return ir.IncDec(target.type, span, target, op, prefix)

    def _BinaryExpr(self, e: ast.BinaryExpr) -> ir.Expr | None:
        left = self.check(e.left)
        right = self.check(e.right)
        if left is None or right is None:
            return None
        if e.op == ",":
            return ir.Comma(right.type, e.span, left, right)
        return self.binary(e.op, left, right, e.span)

    def binary(self, op: str, left: ir.Expr, right: ir.Expr, span: Span) -> ir.Expr | None:
        """`left op right` for every binary operator except the comma."""
        if t.element_scalar(left.type) is None or t.element_scalar(right.type) is None:
            self.ctx.report(codes.INVALID_OPERANDS, span,
                            f"invalid operands to binary '{op}': {describe(left.type)} and {describe(right.type)}")
            return None
        if op in _LOGICAL:
            return self._logical(op, left, right, span)
        if type(left.type) is t.EnumType or type(right.type) is t.EnumType:
            if (_scoped_enum(left.type) or _scoped_enum(right.type)) \
                    and (op not in _COMPARISON or left.type is not right.type):
                self.ctx.report(codes.INVALID_OPERANDS, span,
                                f"invalid operands to binary '{op}': {describe(left.type)} and {describe(right.type)} "
                                f"(a scoped enum only compares with its own type; cast it to use its value)")
                return None
            left, right = self._drop_enums(left), self._drop_enums(right)
        common = self._common(left, right)
        if common is None:
            self.ctx.report(codes.INVALID_OPERANDS, span,
                            f"invalid operands to binary '{op}': cannot combine {describe(left.type)} "
                            f"and {describe(right.type)}")
            return None
        operand_type, truncated = common
        if truncated:
            self.ctx.report(codes.IMPLICIT_TRUNCATION, span,
                            f"implicit truncation of vector type: {describe(left.type)} and "
                            f"{describe(right.type)} meet at {describe(operand_type)}")
        scalar = t.element_scalar(operand_type)
        assert scalar is not None
        kind = scalar.kind
        if op in _BITWISE:
            if kind is _BOOL:
                operand_type = t.with_element(operand_type, t.INT)
            elif kind not in _INTEGER_KINDS:
                self.ctx.report(codes.INVALID_OPERANDS, span,
                                f"invalid operands to binary '{op}': bitwise operators need integer operands, "
                                f"not {describe(left.type)} and {describe(right.type)}")
                return None
            if op in ("<<", ">>"):
                # the result has the left operand's type; the shift amount converts to it
                operand_type = self._shift_type(left.type, operand_type)
        elif op in _ARITHMETIC and kind is _BOOL:
            operand_type = t.with_element(operand_type, t.INT)
        # (an operand of the common type already is itself: no call)
        left_c = left if left.type is operand_type else self.make_convert(left, operand_type)
        right_c = right if right.type is operand_type else self.make_convert(right, operand_type)
        result_type = bool_of(operand_type) if op in _COMPARISON else operand_type
        result = ir.Binary(result_type, span, op, left_c, right_c)
        if op in ("/", "%") and kind in _INTEGER_KINDS:
            divisor = self.fold_quietly(right_c)
            if divisor == 0 or isinstance(divisor, tuple) and 0 in divisor:
                self.ctx.report(codes.DIVISION_BY_ZERO, right.span,
                                f"{'division' if op == '/' else 'remainder'} by zero")
                return None
        if _is_literal(left) and _is_literal(right):
            folded = consteval.fold(result)
            if isinstance(folded, consteval.Folded) and isinstance(result_type, t.ScalarType):
                self.report_problems(folded.problems)
                return ir.Constant(result_type, span, folded.value, literal=result_type is not t.BOOL)
        return result

    @staticmethod
    def _shift_type(left: t.Type, common_: t.Type) -> t.Type:
        scalar = t.element_scalar(left)
        assert scalar is not None
        if scalar.kind is t.ScalarKind.BOOL:
            scalar = t.INT
        return t.with_element(common_, scalar)

    def _drop_enums(self, expr: ir.Expr) -> ir.Expr:
        if isinstance(expr.type, t.EnumType):
            return self.make_convert(expr, expr.type.underlying)
        return expr

    def _common(self, left: ir.Expr, right: ir.Expr) -> tuple[t.Type, bool] | None:
        """The operands' common type, letting an unsuffixed literal adopt the other side's component."""
        left_type, right_type = left.type, right.type
        left_literal = type(left) is ir.Constant and left.literal
        right_literal = type(right) is ir.Constant and right.literal
        if left_literal != right_literal:
            literal, other = (left, right) if left_literal else (right, left)
            adopted = self._adopt(literal.type, other.type)  # type: ignore[arg-type]
            if left_literal:
                left_type = adopted
            else:
                right_type = adopted
        return common_type(left_type, right_type)

    @staticmethod
    def _adopt(literal: t.ScalarType, other: t.Type) -> t.Type:
        """The type an unsuffixed literal takes next to `other` (dxc's literal rules)."""
        other_scalar = t.element_scalar(other)
        if other_scalar is None or other_scalar.kind is _BOOL:
            return literal
        if other_scalar.kind is _FLOAT or literal.kind in _INTEGER_KINDS:
            return other_scalar
        return literal

    def _logical(self, op: str, left: ir.Expr, right: ir.Expr, span: Span) -> ir.Expr | None:
        for side in (left, right):
            if t.component_count(side.type) != 1:
                self.ctx.report(codes.INVALID_OPERANDS, side.span,
                                f"operands of '{op}' must be scalars in HLSL 2021, not {describe(side.type)} "
                                f"(use {'and' if op == '&&' else 'or'}() for vectors)")
                return None
        left_b = self.make_convert(self._scalar(left), t.BOOL)
        right_b = self.make_convert(self._scalar(right), t.BOOL)
        return ir.Binary(t.BOOL, span, op, left_b, right_b)

    def _scalar(self, expr: ir.Expr) -> ir.Expr:
        scalar = t.element_scalar(expr.type)
        assert scalar is not None
        if isinstance(expr.type, (t.VectorType, t.MatrixType)):
            return self.make_convert(expr, scalar)
        return expr

    def _AssignExpr(self, e: ast.AssignExpr) -> ir.Expr | None:
        target = self.check(e.target)
        value = self.check(e.value)
        if target is None or value is None:
            return None
        if not self.assignable(target, "assign"):
            return None
        if e.op == "=":
            if isinstance(target.type, (t.ResourceType, t.NodeObjectType)) and value.type is target.type:
                return ir.Assign(target.type, e.span, target, value)
            converted = self.convert(value, target.type, "assignment")
            if converted is None:
                return None
            return ir.Assign(target.type, e.span, target, converted)
        op = e.op[:-1]
        operation = self.binary(op, target, value, e.span)
        if operation is None:
            return None
        assert isinstance(operation, ir.Binary)
        back = implicit_conversion(operation.type, target.type)
        if back is None:
            self.ctx.report(codes.TYPE_MISMATCH, e.span,
                            f"cannot convert from {describe(operation.type)} to {describe(target.type)} in "
                            f"compound assignment '{e.op}'")
            return None
        if back.truncates:
            self.ctx.report(codes.IMPLICIT_TRUNCATION, e.span,
                            f"implicit truncation of {describe(operation.type)} to {describe(target.type)} in "
                            f"compound assignment '{e.op}'")
        return ir.Assign(target.type, e.span, target, operation.right, op, operation.type)

    def _ConditionalExpr(self, e: ast.ConditionalExpr) -> ir.Expr | None:
        cond = self.check(e.cond)
        then = self.check(e.then)
        else_ = self.check(e.else_)
        if cond is None or then is None or else_ is None:
            return None
        if then.type is else_.type and not t.is_numeric(then.type):
            result_type = then.type
        else:
            common = self._common(then, else_) if t.is_numeric(then.type) and t.is_numeric(else_.type) else None
            if common is None:
                self.ctx.report(codes.INVALID_OPERANDS, e.span,
                                f"incompatible operand types {describe(then.type)} and {describe(else_.type)} "
                                "in conditional expression")
                return None
            result_type = common[0]
        if t.element_scalar(cond.type) is None:
            self.ctx.report(codes.INVALID_CONDITION, cond.span,
                            f"condition must be a scalar or vector, not {describe(cond.type)}")
            return None
        if t.component_count(cond.type) == 1:
            cond = self.make_convert(self._scalar(cond), t.BOOL)
        else:
            cond_type = bool_of(cond.type)
            if t.component_count(result_type) == 1 and isinstance(cond.type, t.VectorType):
                result_type = t.with_element(cond.type, t.element_scalar(result_type))  # type: ignore[arg-type]
            cond = self.make_convert(cond, cond_type)
        then_c = self.make_convert(then, result_type)
        else_c = self.make_convert(else_, result_type)
        return ir.Select(result_type, e.span, cond, then_c, else_c)

    # ------------------------------------------------------------ member access and indexing

    def _MemberExpr(self, e: ast.MemberExpr) -> ir.Expr | None:
        base = self.check(e.object)
        if base is None:
            return None
        return self.member(base, e.member, e.span)

    def member(self, base: ir.Expr, name: str, span: Span) -> ir.Expr | None:
        type_ = base.type
        kind = type(type_)   # (identity tests: the type classes have no subclasses)
        if kind is t.VectorType or kind is t.ScalarType:
            return self._swizzle(base, name, span)
        if kind is t.StructType:
            found = _field_access(base, type_, name, span)  # type: ignore[arg-type]
            if found is not None:
                return found
        name_span = member_span(span, name)   # for the diagnostics below
        if isinstance(type_, t.StructType):
            if type_ in self.ctx.too_deep_structs or \
                    any(name in self.ctx.erroneous_fields.get(s, ()) for s in _struct_and_bases(type_)):
                self.ctx.erroneous_use(span)
                return None  # the field's declaration had an error, reported there
            scope = self.ctx.struct_scopes.get(type_)
            if scope is not None and scope.lookup(name) and scope.lookup(name)[0].kind is SymbolKind.FUNCTION:
                self.ctx.report(codes.INVALID_OPERANDS, name_span, f"member function '{name}' must be called")
                return None
            names = [f.name for f in type_.all_fields()]
            self._no_member(name_span, type_, name, names)
            return None
        if isinstance(type_, t.MatrixType):
            return self._matrix_swizzle(base, name, span, name_span)
        if isinstance(type_, (t.ResourceType, t.NodeObjectType)):
            if methods.slice_access(type_, name) is not None:
                self.ctx.report(codes.INVALID_OPERANDS, name_span,
                                f"'{name}' of {describe(type_)} must be indexed twice: .{name}[{'sample' if name == 'sample' else 'level'}][position]")
                return None
            if name in methods.method_names(type_):
                self.ctx.report(codes.INVALID_OPERANDS, name_span,
                                f"method '{name}' of {describe(type_)} must be called")
                return None
            self._no_member(name_span, type_, name, list(methods.method_names(type_)))
            return None
        self.ctx.report(codes.NO_SUCH_MEMBER, name_span,
                        f"member reference base type {describe(type_)} is not a structure")
        return None

    def _no_member(self, span: Span, type_: t.Type, name: str, candidates: list[str]) -> None:
        close = closest(name, sorted(candidates))
        notes = [f"did you mean '{close[0]}'?"] if close else []
        self.ctx.report(codes.NO_SUCH_MEMBER, span, f"no member named '{name}' in {describe(type_)}", notes=notes)

    def _swizzle(self, base: ir.Expr, name: str, span: Span) -> ir.Expr | None:
        count = base.type.count if type(base.type) is t.VectorType else 1
        scalar = t.element_scalar(base.type)
        assert scalar is not None
        components = _SWIZZLE_COMPONENTS.get(name)
        if components is None:
            components = swizzle_components(name)
            if components is None:
                reason = "more than four components" if len(name) > 4 else "components must all come from xyzw or rgba"
                self.ctx.report(codes.INVALID_SWIZZLE, member_span(span, name),
                                f"invalid swizzle '{name}' on {describe(base.type)}: {reason}")
                return None
        if max(components) >= count:
            missing = [name[i] for i, c in enumerate(components) if c >= count]
            self.ctx.report(codes.INVALID_SWIZZLE, member_span(span, name),
                            f"invalid swizzle '{name}': {describe(base.type)} has no component '{missing[0]}'")
            return None
        result = scalar if len(components) == 1 else t.vector(scalar, len(components))
        return ir.Swizzle(result, span, base, components)

    def _matrix_swizzle(self, base: ir.Expr, name: str, span: Span, name_span: Span) -> ir.Expr | None:
        import re

        matrix_type = base.type
        assert isinstance(matrix_type, t.MatrixType)
        zero = re.fullmatch(r"(?:_m\d\d)+", name)
        one = re.fullmatch(r"(?:_\d\d)+", name)
        if not zero and not one:
            self.ctx.report(codes.INVALID_SWIZZLE, name_span,
                            f"invalid matrix swizzle '{name}' on {describe(matrix_type)} (use _m<r><c> or _<r><c>)")
            return None
        texts = re.findall(r"_m?\d\d", name)
        offset = 0 if zero else 1
        components = tuple((int(text[-2]) - offset, int(text[-1]) - offset) for text in texts)
        if len(components) > 4:
            self.ctx.report(codes.INVALID_SWIZZLE, name_span,
                            f"invalid matrix swizzle '{name}': more than four components")
            return None
        for (row, column), text in zip(components, texts):
            if not (0 <= row < matrix_type.rows and 0 <= column < matrix_type.columns):
                self.ctx.report(codes.INVALID_SWIZZLE, name_span,
                                f"invalid matrix swizzle '{name}': {describe(matrix_type)} has no element '{text}'")
                return None
        scalar = matrix_type.element
        result = scalar if len(components) == 1 else t.vector(scalar, len(components))
        return ir.Swizzle(result, span, base, components)

    def _IndexExpr(self, e: ast.IndexExpr) -> ir.Expr | None:
        inner = e.object
        if isinstance(inner, ast.IndexExpr) and isinstance(inner.object, ast.MemberExpr) \
                and inner.object.member in methods.SLICE_MEMBERS:
            return self._double_index(e, inner, inner.object)
        base = self.check(e.object)
        index = self.check(e.index)
        if base is None or index is None:
            return None
        return self.index(base, index, e.span)

    def _double_index(self, e: ast.IndexExpr, inner: ast.IndexExpr, member: ast.MemberExpr) -> ir.Expr | None:
        """`x.mips[a][b]` / `x.sample[a][b]`: a texel of another mip level or sample of a texture,
        or plain member accesses and subscripts on anything else."""
        owner = self.check(member.object)
        if owner is None:
            return None
        access = methods.slice_access(owner.type, member.member)
        if access is None:
            base = self.member(owner, member.member, member.span)
            first = self.check(inner.index)
            base = self.index(base, first, inner.span) if base is not None and first is not None else None
            index = self.check(e.index)
            return self.index(base, index, e.span) if base is not None and index is not None else None
        slice_, index = self.check(inner.index), self.check(e.index)
        if slice_ is None or index is None:
            return None
        what = "a sample index" if member.member == "sample" else "a mip level"
        slice_ = self.convert(slice_, t.UINT, what)
        converted = self.convert(index, access.index_type, "an index")
        if slice_ is None or converted is None:
            return None
        return ir.ResourceIndex(access.element, e.span, owner, converted, slice_)

    def index(self, base: ir.Expr, index: ir.Expr, span: Span) -> ir.Expr | None:
        if type(base) is ir.Constant and base.type is t.STRING:
            base = strings.as_array(base)   # `"abc"[i]`: a literal is an array of characters
        type_ = base.type
        if isinstance(type_, (t.ResourceType, t.NodeObjectType)):
            known = self._index_accesses
            access = known[type_] if type_ in known else known.setdefault(type_, methods.index_access(type_))
            if access is None:
                self.ctx.report(codes.INVALID_OPERANDS, span, f"{describe(type_)} cannot be indexed")
                return None
            converted = self.convert(index, access.index_type, "an index")
            if converted is None:
                return None
            if access.record_access:
                return ir.RecordAccess(access.element, span, base, converted)
            if isinstance(type_, t.NodeObjectType):
                return ir.Index(access.element, span, base, converted)
            return ir.ResourceIndex(access.element, span, base, converted)
        if isinstance(type_, t.ArrayType):
            element, length = type_.element, type_.length
        elif isinstance(type_, t.VectorType):
            element, length = type_.element, type_.count
        elif isinstance(type_, t.MatrixType):
            element = t.vector(type_.element, type_.columns) if type_.columns > 1 else type_.element
            length = type_.rows
        else:
            self.ctx.report(codes.INVALID_OPERANDS, span, f"subscripted value of type {describe(type_)} is not an "
                            "array, vector, matrix or indexable object")
            return None
        scalar = t.element_scalar(index.type)
        if scalar is None or t.component_count(index.type) != 1:
            self.ctx.report(codes.TYPE_MISMATCH, index.span, f"array subscript must be an integer, not {describe(index.type)}")
            return None
        # a floating-point subscript converts to uint, as in DXC (SemaExpr.cpp, CK_FloatingToIntegral)
        wanted = t.UINT if scalar.kind is _BOOL or scalar.kind is _FLOAT else scalar
        index = self.make_convert(self._scalar(self._drop_enums(index)), wanted)
        value = self.fold_quietly(index)
        if isinstance(value, int) and length is not None and not 0 <= value < length:
            what = "array" if isinstance(type_, t.ArrayType) else ("vector" if isinstance(type_, t.VectorType) else "matrix")
            unit = "rows" if what == "matrix" else ("components" if what == "vector" else "elements")
            self.ctx.report(codes.INDEX_OUT_OF_RANGE, index.span,
                            f"index {value} is out of range for {what} {describe(type_)} ({length} {unit})")
            return None
        return ir.Index(element, span, base, index)

    # ------------------------------------------------------------ casts, constructors, initializers

    def _CastExpr(self, e: ast.CastExpr) -> ir.Expr | None:
        target = self.check_type(e.type)
        operand = self.check(e.operand)
        if target is None or operand is None:
            return None
        for dim in reversed(e.array_dims):
            size = self.constant_int(dim, "array size")
            if size is None:
                return None
            target = t.array(target, size)
        return self.cast(operand, target, e.span)

    def cast(self, operand: ir.Expr, target: t.Type, span: Span) -> ir.Expr | None:
        source = operand.type
        if source is target:
            return ir.Convert(target, span, operand, explicit=True)
        if t.is_numeric(source) and t.is_numeric(target):
            src_count, dst_count = t.component_count(source), t.component_count(target)
            assert src_count is not None and dst_count is not None
            if src_count == 1 or dst_count <= src_count or implicit_conversion(source, target) is not None:
                if isinstance(operand, ir.Constant) and isinstance(target, t.ScalarType):
                    return ir.Constant(target, span, consteval.convert_value(operand.value, source, target))
                return ir.Convert(target, span, operand, explicit=True)
        if isinstance(source, t.StructType) and isinstance(target, t.StructType):
            base = source.base
            while base is not None and base is not target:
                base = base.base
            if base is target:
                return ir.Convert(target, span, operand, explicit=True)
        if isinstance(target, (t.StructType, t.ArrayType)) and t.component_count(source) == 1:
            splat = self._splat(operand, target, span)
            if splat is not None:
                return splat
        self.ctx.report(codes.INVALID_CAST, span, f"cannot cast from {describe(source)} to {describe(target)}")
        return None

    def _splat(self, scalar: ir.Expr, target: t.Type, span: Span) -> ir.Expr | None:
        """`(S)0`: every leaf of a struct or array gets the scalar, converted."""
        if isinstance(target, t.StructType):
            parts = [self._splat(scalar, f.type, span) for f in target.all_fields()]
        elif isinstance(target, t.ArrayType) and target.length is not None:
            parts = [self._splat(scalar, target.element, span)] * target.length
        elif t.is_numeric(target):
            leaf = self._scalar(scalar)
            return self.make_convert(leaf, target, explicit=True) if leaf.type is not target else leaf
        else:
            return None
        if any(p is None for p in parts):
            return None
        return ir.Construct(target, span, tuple(parts))  # type: ignore[arg-type]

    def _ConstructExpr(self, e: ast.ConstructExpr) -> ir.Expr | None:
        target = self.check_type(e.type)
        args = [self.check(a) for a in e.args]
        if target is None or None in args:   # (IR expressions compare by identity)
            return None
        if isinstance(target, t.RayQueryType) and not args:
            return ir.Construct(target, e.span, ())      # a new query (DXC's implicit constructor)
        if not isinstance(target, (t.ScalarType, t.VectorType, t.MatrixType)):
            self.ctx.report(codes.INVALID_CAST, e.span,
                            f"{describe(target)} has no constructor; use an initializer list or a cast")
            return None
        if len(args) == 1 and isinstance(target, t.ScalarType):
            return self.cast(args[0], target, e.span)  # type: ignore[arg-type]
        return self.build(target, list(args), e.span, "constructor")  # type: ignore[arg-type]

    def _InitList(self, e: ast.InitList) -> ir.Expr | None:
        self.ctx.report(codes.INVALID_OPERANDS, e.span, "an initializer list can only initialize a variable")
        return None

    def initializer(self, init: ast.Expr, target: t.Type) -> ir.Expr | None:
        """A variable's initializer: an expression converted to `target`, or a flattened `{...}` list."""
        if not isinstance(init, ast.InitList):
            value = self.check(init)
            if value is None:
                return None
            if isinstance(target, (t.ResourceType, t.NodeObjectType, t.StructType, t.ArrayType)) and value.type is target:
                return value
            return self.convert(value, target, "initialization")
        pieces = self._flattened.pop(id(init)) if id(init) in self._flattened else self.flatten(init)
        if pieces is None:
            return None
        return self.build(target, pieces, init.span, "initializer list")

    def flatten(self, init: ast.InitList) -> list[ir.Expr] | None:
        """The checked items of an initializer list, nested braces flattened (None after an error)."""
        pieces: list[ir.Expr] = []
        return pieces if self._flatten_items(init, pieces) else None

    def unsized_length(self, init: ast.InitList, element: t.Type) -> int | None:
        """The length of `T a[] = {...}`: the list's scalars over the element's (checks the list once)."""
        pieces = self.flatten(init)
        self._flattened[id(init)] = pieces
        if pieces is None:
            return None
        per_element = _leaf_count(element) or 1
        leaves = sum(_leaf_count(p.type) or 0 for p in pieces)
        return max(1, -(-leaves // per_element))

    def _flatten_items(self, init: ast.InitList, pieces: list[ir.Expr]) -> bool:
        ok = True
        for item in init.items:
            if isinstance(item, ast.InitList):
                ok = self._flatten_items(item, pieces) and ok
            else:
                checked = self.check(item)
                if checked is None:
                    ok = False
                else:
                    pieces.append(checked)
        return ok

    def build(self, target: t.Type, pieces: list[ir.Expr], span: Span, what: str) -> ir.Expr | None:
        """Build a `target` value from pieces, flattening them as HLSL does; all pieces must be used."""
        queue = list(pieces)
        string = next((p for p in pieces if p.type is t.STRING), None)
        if string is not None:
            # DXC counts a string as one element of the list, which converts to no element type
            self.ctx.report(codes.TYPE_MISMATCH, string.span,
                            f"cannot convert from 'string' to an element of {describe(target)} in {what}")
            return None
        needed = _leaf_count(target)
        counts = [_leaf_count(p.type) for p in pieces]
        given = sum(count or 0 for count in counts)
        if needed is None or given != needed or None in counts:
            detail = f"{needed} components expected, {given} given" if needed is not None else "it cannot be built"
            self.ctx.report(codes.INITIALIZER_MISMATCH, span, f"{what} does not match {describe(target)}: {detail}")
            return None
        return self._take(target, queue, span)

    def _take(self, target: t.Type, queue: list[ir.Expr], span: Span) -> ir.Expr | None:
        front = queue[0]
        if front.type is target:
            return queue.pop(0)
        if isinstance(target, t.ArrayType):
            assert target.length is not None
            parts = [self._take(target.element, queue, span) for _ in range(target.length)]
        elif isinstance(target, t.StructType):
            parts = [self._take(f.type, queue, span) for f in target.all_fields()]
        else:
            scalar = t.element_scalar(target)
            assert scalar is not None
            if isinstance(target, t.EnumType):
                scalar = target.underlying
            count = t.component_count(target) or 1
            parts = []
            while count > 0:
                piece = queue.pop(0)
                piece_count = _leaf_count(piece.type) or 0
                if t.is_numeric(piece.type) and not isinstance(piece.type, t.MatrixType) and piece_count <= count:
                    parts.append(self.make_convert(self._drop_enums(piece),
                                                   t.with_element(piece.type, scalar) if piece_count > 1 else scalar))
                    count -= piece_count
                else:
                    queue[0:0] = _split(piece)
            if isinstance(target, (t.ScalarType, t.EnumType)):
                return self.make_convert(parts[0], target) if parts[0] is not None else None
        if any(p is None for p in parts):
            return None
        return ir.Construct(target, span, tuple(parts))  # type: ignore[arg-type]

    # ------------------------------------------------------------ sizeof

    def _SizeofExpr(self, e: ast.SizeofExpr) -> ir.Expr | None:
        if isinstance(e.operand, ast.TypeRef):
            type_ = self.check_type(e.operand)
        else:
            operand = self.check(e.operand)
            type_ = operand.type if operand is not None else None
        if type_ is None:
            return None
        if not (t.is_numeric(type_) or isinstance(type_, (t.StructType, t.ArrayType))):
            self.ctx.report(codes.INVALID_OPERANDS, e.span, f"sizeof cannot be applied to {describe(type_)}")
            return None
        return ir.Constant(t.UINT, e.span, layout_of(type_, LayoutRule.SCALAR).size)

    # ------------------------------------------------------------ calls

    def _CallExpr(self, e: ast.CallExpr) -> ir.Expr | None:
        return self.functions.call(self, e)


_HANDLERS = node_handlers(ExpressionChecker)


def swizzle_components(name: str) -> tuple[int, ...] | None:
    """The component indices of a vector swizzle (`xzy` -> (0, 2, 1)); None for a name that is no
    swizzle (letters of neither or of both sets, or more than four)."""
    letters = next((s for s in _SWIZZLE_SETS if all(c in s for c in name)), None)
    if letters is None or len(name) > 4:
        return None
    return tuple(letters.index(c) for c in name)


_SWIZZLE_COMPONENTS = {name: components for length in range(1, 5) for letters in _SWIZZLE_SETS
                       for name, components in (("".join(letters[i] for i in chosen), chosen)
                                                for chosen in itertools.product(range(4), repeat=length))}
"""Every valid vector swizzle's components, by name (680 names), computed once instead of at every
member access (`_swizzle` runs at every member access)."""


def _swizzle_text(swizzle: ir.Swizzle) -> tuple[str, str]:
    """A swizzle as written (`xx`, `_m00_m00`) and its first repeated component."""
    if isinstance(swizzle.base.type, t.MatrixType):
        parts = [f"_m{r}{c}" for r, c in swizzle.components]
    else:
        parts = ["xyzw"[i] for i in swizzle.components]
    repeated = next(p for i, p in enumerate(parts) if p in parts[:i])
    return "".join(parts), repeated


def _scoped_enum(type_: t.Type) -> bool:
    return type(type_) is t.EnumType and type_.scoped


def _hex_or_octal(text: str) -> bool:
    """Whether an integer literal is written in hexadecimal or octal (dxc types such a literal
    above INT_MAX as uint, a decimal one as int64)."""
    return text.lower().startswith(("0x", "0")) and text != "0" and not text.startswith("0.")


def _is_literal(expr: ir.Expr) -> bool:
    return type(expr) is ir.Constant and expr.literal


def _leaf_count(type_: t.Type) -> int | None:
    """Scalars in a value, for initializer flattening (None: cannot be flattened)."""
    count = t.component_count(type_)
    if count is not None:
        return count
    if isinstance(type_, t.ArrayType):
        inner = _leaf_count(type_.element)
        return None if inner is None or type_.length is None else inner * type_.length
    if isinstance(type_, t.StructType):
        total = 0
        for field_ in type_.all_fields():
            inner = _leaf_count(field_.type)
            if inner is None:
                return None
            total += inner
        return total
    return None


def _split(piece: ir.Expr) -> list[ir.Expr]:
    """A value's immediate parts: components of a vector, rows of a matrix, elements, fields."""
    type_ = piece.type
    span = piece.span
    if isinstance(type_, t.VectorType):
        return [ir.Swizzle(type_.element, span, piece, (i,)) for i in range(type_.count)]
    if isinstance(type_, t.MatrixType):
        return [ir.Swizzle(type_.element, span, piece, ((r, c),))
                for r in range(type_.rows) for c in range(type_.columns)]
    if isinstance(type_, t.ArrayType):
        assert type_.length is not None
        return [ir.Index(type_.element, span, piece, ir.Constant(t.UINT, span, i)) for i in range(type_.length)]
    if isinstance(type_, t.StructType):
        return [ir.FieldAccess(f.type, span, piece, i, f.name) for i, f in enumerate(type_.all_fields())]
    raise AssertionError(f"cannot split {type_}")


def _struct_and_bases(struct: t.StructType) -> list[t.StructType]:
    found = [struct]
    while found[-1].base is not None:
        found.append(found[-1].base)
    return found


def _field_access(base: ir.Expr, struct: t.StructType, name: str, span: Span) -> ir.Expr | None:
    """`base.name` for a field of `struct`, also one inside an anonymous struct member; None if none."""
    fields = struct.fields if struct.base is None else struct.all_fields()   # (read only: no copy needed)
    for index in reversed(range(len(fields))):   # a derived struct's member hides its base's
        if fields[index].name == name:
            return ir.FieldAccess(fields[index].type, span, base, index, name)
    for index, field_ in enumerate(fields):
        if field_.name == "" and isinstance(field_.type, t.StructType):
            inner = _field_access(ir.FieldAccess(field_.type, span, base, index, ""), field_.type, name, span)
            if inner is not None:
                return inner
    return None
