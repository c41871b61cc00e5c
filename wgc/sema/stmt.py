"""Semantic analysis, statements: from AST statements to structured IR statements.

Input: a function body (`ast.Block`) and the function being checked.
Output: an `ir.Block`; diagnostics for misplaced `break`/`continue` (WG0317),
switches (WG0318: non-integer selector, non-constant or duplicate case
values, two defaults), conditions (WG0329), `return` values (WG0309, WG0303)
and a non-void function whose end is reachable (WG0330). Attributes (of functions, parameters,
statements) with folded arguments (`_attributes`): a work-graph attribute's argument may be a
`[[vk::constant_id]]` specialization constant, folded to its default as DXC does; written alone where
SPIR-V AMDX takes an <id> (SPEC_OPERAND_ATTRIBUTES) it is kept (`ir.AttributeArg.spec`) for the
lowering, elsewhere warning WG0395 (`spec-constant-in-attribute`) says that its default is final.

Invariants: each block opens a scope (a `for` statement's init too); the IR
keeps the source's structure (no lowering of loops or switches here); local
declarations of types (struct, enum, typedef) are delegated to the
declaration checker so every type is built in one place.
"""

from __future__ import annotations

from collections.abc import Callable

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Label
from wgc.sema import node_attributes
from wgc.irtools import consteval
from wgc.irtools.walk import children
from wgc.sema.context import Context, node_handlers
from wgc.sema.expr import ExpressionChecker, describe
from wgc.sema.scope import ScopeKind
from wgc.syntax import ast

NAME_ARGUMENT_ATTRIBUTES = node_attributes.NAME_ARGUMENT_ATTRIBUTES
"""Attributes whose arguments name something (a parameter) instead of being constants."""
SPEC_OPERAND_ATTRIBUTES = node_attributes.SPEC_OPERAND_ATTRIBUTES
"""Attributes whose integer arguments SPIR-V AMDX takes as <id> operands (LocalSizeId for NumThreads,
OpExecutionModeId, OpDecorateId): a specialization constant written alone there stays specialisable."""
SPEC_DEFAULT_ATTRIBUTES = node_attributes.SPEC_DEFAULT_ATTRIBUTES
"""Work-graph attributes that take a specialization constant at its default value only (no SPIR-V operand
carries them, or wgc lays the graph out by them): WG0395 says that specialising it changes nothing."""

LocalTypeDecl = Callable[[ast.Decl], None]
LocalVarDecl = Callable[[ast.VarDecl], "list[ir.Stmt]"]

_SPEC_ATTRIBUTES = SPEC_OPERAND_ATTRIBUTES | SPEC_DEFAULT_ATTRIBUTES
_BLOCK = ScopeKind.BLOCK
"""A module constant: an enum member read through its class is a lookup at each use, dearer than a global's read,
and every block, loop and switch opens a scope."""


class StatementChecker:
    def __init__(self, ctx: Context, exprs: ExpressionChecker, local_type: LocalTypeDecl,
                 local_vars: LocalVarDecl) -> None:
        self.ctx = ctx
        self.exprs = exprs
        self.local_type = local_type
        self.local_vars = local_vars

    def body(self, block: ast.Block) -> ir.Block:
        """A function body; its outermost block shares the parameters' scope, so a local cannot
        redeclare a parameter (nested blocks may shadow it)."""
        state = self.ctx.function
        assert state is not None
        function = state.function
        returns_value = function.return_type is not t.VOID
        errors_before = _error_count(self.ctx) if returns_value else 0   # (counting walks every diagnostic)
        checked = ir.Block(block.span, self._stmts(block.stmts))
        # after an error, statements may be missing from the IR: reachability would be a guess
        if returns_value and can_complete(checked) and _error_count(self.ctx) == errors_before:
            self.ctx.report(codes.MISSING_RETURN, _closing_brace(block),
                            f"control reaches the end of non-void function '{function.name}'")
        return checked

    def block(self, block: ast.Block) -> ir.Block:
        with self.ctx.scope_of(_BLOCK):
            return ir.Block(block.span, self._stmts(block.stmts))

    def _stmts(self, stmts: tuple[ast.Stmt, ...]) -> list[ir.Stmt]:
        result: list[ir.Stmt] = []
        for stmt in stmts:
            result.extend(self.stmt(stmt))
        return result

    def _as_block(self, stmt: ast.Stmt) -> ir.Block:
        """A sub-statement (if/loop body) as a block with its own scope.

        Only a declaration needs the scope: a nested `if`/loop opens its own where it needs
        one, and giving every arm of an `else if` chain an empty scope would make each name
        lookup walk the whole chain (quadratic in the number of arms)."""
        if isinstance(stmt, ast.Block):
            return self.block(stmt)
        if not isinstance(stmt, ast.DeclStmt):
            return ir.Block(stmt.span, self.stmt(stmt))
        with self.ctx.scope_of(_BLOCK):
            return ir.Block(stmt.span, self.stmt(stmt))

    def stmt(self, stmt: ast.Stmt) -> list[ir.Stmt]:
        return _HANDLERS[type(stmt)](self, stmt)

    def _attributes(self, attributes: tuple[ast.Attribute, ...]) -> tuple[ir.Attribute, ...]:
        if not attributes:
            return ()
        result = []
        for attribute in attributes:
            args = []
            lowered = attribute.name.lower()
            for arg in attribute.args:
                if lowered in NAME_ARGUMENT_ATTRIBUTES and isinstance(arg, ast.NameExpr):
                    args.append(ir.AttributeArg(None, arg.span, "::".join(arg.name)))
                    continue
                if lowered in _SPEC_ATTRIBUTES:
                    args.append(self._spec_attribute_argument(attribute, arg))
                    continue
                args.append(ir.AttributeArg(self._constant_argument(attribute, arg), arg.span))
            result.append(ir.Attribute(attribute.name, tuple(args), attribute.span))
        return tuple(result)

    def _constant_argument(self, attribute: ast.Attribute, arg: ast.Expr) -> ir.ConstValue | None:
        """An attribute argument's constant value (None after an error, reported), as
        `ExpressionChecker.constant` gives it, without building its message unless it reports."""
        checked = self.exprs.check(arg)
        if checked is None:
            return None
        if type(checked) is ir.Constant:   # a literal (no problems to report)
            return consteval.constant_value(checked)
        folded = consteval.fold(checked)
        if isinstance(folded, consteval.Folded):
            self.exprs.report_problems(folded.problems)
            return folded.value
        self.exprs.fold_required(checked, f"argument of attribute '{attribute.name}'")   # reports why not
        return None

    def _spec_attribute_argument(self, attribute: ast.Attribute, arg: ast.Expr) -> ir.AttributeArg:
        """An argument of a work-graph attribute, where a specialization constant stands for its default
        (as DXC folds it): written alone in an attribute of SPEC_OPERAND_ATTRIBUTES, the argument keeps
        the constant (`spec`) for the AMDX lowering; anywhere else WG0395 warns that specialising it
        does not reach the attribute."""
        checked = self.exprs.check(arg)
        if checked is None:
            return ir.AttributeArg(None, arg.span)
        if type(checked) is ir.Constant:   # a literal, most arguments: its value, without the `Folded`
            return ir.AttributeArg(consteval.constant_value(checked), arg.span)
        plain = consteval.fold(checked)
        if isinstance(plain, consteval.Folded):
            self.exprs.report_problems(plain.problems)     # what fold_required reports, without folding again
            return ir.AttributeArg(plain.value, arg.span)
        spec = _spec_constant_in(checked)
        if spec is not None and (spec.spec_default is None or spec.spec_id is None):
            return ir.AttributeArg(None, arg.span)      # a broken specialization constant: reported (WG0366)
        folded = consteval.fold(checked, spec_defaults=True)
        if spec is None or not isinstance(folded, consteval.Folded):
            found = self.exprs.fold_required(checked, f"argument of attribute '{attribute.name}'")  # reports why not
            return ir.AttributeArg(found[1] if found else None, arg.span)
        alone = _strip_conversions(checked)
        if attribute.name.lower() in SPEC_OPERAND_ATTRIBUTES and isinstance(alone, ir.VarRef) \
                and alone.variable is spec and t.element_scalar(alone.type) in (t.INT, t.UINT):
            return ir.AttributeArg(folded.value, arg.span, spec=spec)
        how = "" if isinstance(alone, ir.VarRef) and alone.variable is spec else " in an expression"
        self.ctx.report(codes.SPEC_CONSTANT_FIXED_IN_ATTRIBUTE, checked.span,
                        f"attribute '{attribute.name}' takes specialization constant '{spec.name}' (constant_id "
                        f"{spec.spec_id}) at its default value {_shown(spec.spec_default)}{how}: specialising "
                        f"'{spec.name}' does not change the attribute")
        return ir.AttributeArg(folded.value, arg.span)

    # ------------------------------------------------------------ simple statements

    def _Block(self, stmt: ast.Block) -> list[ir.Stmt]:
        return [self.block(stmt)]

    def _EmptyStmt(self, stmt: ast.EmptyStmt) -> list[ir.Stmt]:
        return []

    def _DeclStmt(self, stmt: ast.DeclStmt) -> list[ir.Stmt]:
        if isinstance(stmt.decl, ast.VarDecl):
            return self.local_vars(stmt.decl)
        self.local_type(stmt.decl)
        return []

    def _ExprStmt(self, stmt: ast.ExprStmt) -> list[ir.Stmt]:
        expr = self.exprs.check(stmt.expr)
        if expr is None:
            return []
        if not has_effect(expr):
            self.ctx.report(codes.UNUSED_VALUE, expr.span, "expression result unused")
        return [ir.ExprStmt(stmt.span, expr)]

    def _DiscardStmt(self, stmt: ast.DiscardStmt) -> list[ir.Stmt]:
        return [ir.Discard(stmt.span)]

    def _ReturnStmt(self, stmt: ast.ReturnStmt) -> list[ir.Stmt]:
        state = self.ctx.function
        assert state is not None
        function = state.function
        expected = function.return_type
        if stmt.value is None:
            if expected is not t.VOID:
                self.ctx.report(codes.MISSING_RETURN_VALUE, stmt.span,
                                f"non-void function '{function.name}' should return a value of type {describe(expected)}")
                return []
            return [ir.Return(stmt.span)]
        value = self.exprs.check(stmt.value)
        if value is None:
            return []
        if expected is t.VOID:
            self.ctx.report(codes.MISSING_RETURN_VALUE, value.span,
                            f"void function '{function.name}' should not return a value")
            return []
        if isinstance(expected, (t.StructType, t.ArrayType, t.ResourceType, t.NodeObjectType)) and value.type is expected:
            return [ir.Return(stmt.span, value)]
        converted = self.exprs.convert(value, expected, f"return from '{function.name}'")
        return [ir.Return(stmt.span, converted)] if converted is not None else []

    def _BreakStmt(self, stmt: ast.BreakStmt) -> list[ir.Stmt]:
        state = self.ctx.function
        if state is None or not state.breakable:
            self.ctx.report(codes.MISPLACED_JUMP, stmt.span, "'break' statement not in a loop or switch statement")
            return []
        return [ir.Break(stmt.span)]

    def _ContinueStmt(self, stmt: ast.ContinueStmt) -> list[ir.Stmt]:
        state = self.ctx.function
        if state is None or "loop" not in state.breakable:
            self.ctx.report(codes.MISPLACED_JUMP, stmt.span, "'continue' statement not in a loop statement")
            return []
        return [ir.Continue(stmt.span)]

    # ------------------------------------------------------------ control flow

    def _IfStmt(self, stmt: ast.IfStmt) -> list[ir.Stmt]:
        attributes = self._attributes(stmt.attributes)
        cond = self.exprs.condition(stmt.cond, "'if' condition")
        then = self._as_block(stmt.then)
        else_ = self._as_block(stmt.else_) if stmt.else_ is not None else None
        if cond is None:
            return []
        return [ir.If(stmt.span, cond, then, else_, attributes)]

    def _loop_body(self, body: ast.Stmt) -> ir.Block:
        state = self.ctx.function
        assert state is not None
        state.breakable.append("loop")
        try:
            return self._as_block(body)
        finally:
            state.breakable.pop()

    def _ForStmt(self, stmt: ast.ForStmt) -> list[ir.Stmt]:
        attributes = self._attributes(stmt.attributes)
        with self.ctx.scope_of(_BLOCK):
            init = self.stmt(stmt.init)
            cond = self.exprs.condition(stmt.cond, "loop condition") if stmt.cond is not None else None
            step = self.exprs.check(stmt.step) if stmt.step is not None else None
            body = self._loop_body(stmt.body)
        if stmt.cond is not None and cond is None:
            return []
        return [ir.Loop(stmt.span, ir.LoopKind.FOR, init, cond, step, body, attributes)]

    def _WhileStmt(self, stmt: ast.WhileStmt) -> list[ir.Stmt]:
        attributes = self._attributes(stmt.attributes)
        cond = self.exprs.condition(stmt.cond, "loop condition")
        body = self._loop_body(stmt.body)
        if cond is None:
            return []
        return [ir.Loop(stmt.span, ir.LoopKind.WHILE, [], cond, None, body, attributes)]

    def _DoWhileStmt(self, stmt: ast.DoWhileStmt) -> list[ir.Stmt]:
        attributes = self._attributes(stmt.attributes)
        body = self._loop_body(stmt.body)
        cond = self.exprs.condition(stmt.cond, "loop condition")
        if cond is None:
            return []
        return [ir.Loop(stmt.span, ir.LoopKind.DO_WHILE, [], cond, None, body, attributes)]

    def _SwitchStmt(self, stmt: ast.SwitchStmt) -> list[ir.Stmt]:
        attributes = self._attributes(stmt.attributes)
        selector = self.exprs.check(stmt.expr)
        if selector is not None:
            selector = self._selector(selector)
        state = self.ctx.function
        assert state is not None
        seen: dict[int, ast.Expr] = {}
        default_seen: ast.SwitchCase | None = None
        cases: list[ir.SwitchCase] = []
        state.breakable.append("switch")
        try:
            with self.ctx.scope_of(_BLOCK):
                for case in stmt.cases:
                    values: list[int] = []
                    is_default = False
                    for label in case.labels:
                        if label is None:
                            if default_seen is not None:
                                self.ctx.report(codes.INVALID_SWITCH, case.span, "multiple default labels in one switch",
                                                labels=[Label(default_seen.span, "previous default label is here")])
                            default_seen = case
                            is_default = True
                            continue
                        value = self._case_value(label, selector)
                        if value is None:
                            continue
                        if value in seen:
                            self.ctx.report(codes.INVALID_SWITCH, label.span, f"duplicate case value '{value}'",
                                            labels=[Label(seen[value].span, "previous case is here")])
                            continue
                        seen[value] = label
                        values.append(value)
                    body = ir.Block(case.span, self._stmts(case.stmts))
                    cases.append(ir.SwitchCase(tuple(values), is_default, body, can_complete(body)))
        finally:
            state.breakable.pop()
        if selector is None:
            return []
        return [ir.Switch(stmt.span, selector, cases, attributes)]

    def _selector(self, selector: ir.Expr) -> ir.Expr | None:
        scalar = t.element_scalar(selector.type)
        if scalar is None or not scalar.is_integer or t.component_count(selector.type) != 1:
            self.ctx.report(codes.INVALID_SWITCH, selector.span,
                            f"switch condition must be a scalar integer, not {describe(selector.type)}")
            return None
        if isinstance(selector.type, (t.VectorType, t.EnumType)):
            return self.exprs.make_convert(selector, scalar)
        return selector

    def _case_value(self, label: ast.Expr, selector: ir.Expr | None) -> int | None:
        found = self.exprs.constant(label, "case value")
        if found is None:
            return None
        checked, value = found
        scalar = t.element_scalar(checked.type)
        if scalar is None or not scalar.is_integer or isinstance(value, bool) or not isinstance(value, int):
            self.ctx.report(codes.INVALID_SWITCH, checked.span,
                            f"case value must be an integer constant, not {describe(checked.type)}")
            return None
        if selector is not None and isinstance(selector.type, t.ScalarType):
            return int(consteval.convert_value(value, checked.type if isinstance(checked.type, t.ScalarType) else scalar,
                                     selector.type))  # type: ignore[arg-type]
        return value


_HANDLERS = node_handlers(StatementChecker)


def _error_count(ctx: Context) -> int:
    """Errors so far, counting uses of erroneous declarations (dropped without a new error); the
    diagnostics counted before are not counted again (`Context.errors_counted`: a file of many
    functions with errors was quadratic)."""
    from wgc.diagnostics import Severity

    seen, errors = ctx.errors_counted
    diagnostics = ctx.diagnostics
    if len(diagnostics) < seen:   # never happens (diagnostics are only added), but then: count again
        seen, errors = 0, 0
    errors += sum(1 for d in diagnostics[seen:] if d.severity is Severity.ERROR)
    ctx.errors_counted = (len(diagnostics), errors)
    return errors + ctx.erroneous_uses


_EFFECTS = (ir.Assign, ir.IncDec, ir.Call, ir.IntrinsicCall, ir.MethodCall)
_ENDS = (ir.Return, ir.Break, ir.Continue, ir.Discard)


def has_effect(expr: ir.Expr) -> bool:
    """Whether evaluating `expr` does something besides computing a value (stores, calls)."""
    if isinstance(expr, _EFFECTS):
        return True
    if isinstance(expr, ir.Comma):
        return has_effect(expr.right) or has_effect(expr.left)
    children = [v for v in vars(expr).values() if isinstance(v, ir.Expr)]
    children += [a for v in vars(expr).values() if isinstance(v, tuple) for a in v if isinstance(a, ir.Expr)]
    return any(has_effect(c) for c in children)


def can_complete(stmt: ir.Stmt) -> bool:
    """Whether control can reach the end of `stmt` (a conservative structural analysis)."""
    # (identity tests: the IR statement classes have no subclasses; cheaper than isinstance)
    if type(stmt) is ir.Block:
        for inner in stmt.stmts:
            if not can_complete(inner):
                return False
        return True
    if type(stmt) in _ENDS:
        return False
    if type(stmt) is ir.If:
        return stmt.else_ is None or can_complete(stmt.then) or can_complete(stmt.else_)
    if isinstance(stmt, ir.Loop):
        endless = stmt.cond is None or isinstance(stmt.cond, ir.Constant) and stmt.cond.value is True
        return not endless or _breaks(stmt.body)
    if isinstance(stmt, ir.Switch):
        if not any(c.is_default for c in stmt.cases):
            return True
        return any(_breaks(c.body) for c in stmt.cases) or (not stmt.cases or stmt.cases[-1].falls_through)
    return True


def _breaks(stmt: ir.Stmt) -> bool:
    """Whether a `break` in `stmt` leaves the enclosing loop or switch (not a nested one)."""
    if isinstance(stmt, ir.Break):
        return True
    if isinstance(stmt, ir.Block):
        return any(_breaks(s) for s in stmt.stmts)
    if isinstance(stmt, ir.If):
        return _breaks(stmt.then) or (stmt.else_ is not None and _breaks(stmt.else_))
    return False


def _closing_brace(block: ast.Block):
    from wgc.source import Span

    span = block.span
    return Span(span.file, max(span.start, span.end - 1), span.end)


def _strip_conversions(expr: ir.Expr) -> ir.Expr:
    while isinstance(expr, ir.Convert) and not expr.explicit:
        expr = expr.operand
    return expr


def _spec_constant_in(expr: ir.Expr) -> ir.Variable | None:
    """The first specialization constant an expression reads (pre-order), if any, through the initialisers
    of the `static const` variables it reads."""
    stack: list = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.VarRef) and node.variable.storage is ir.Storage.SPEC_CONSTANT:
            return node.variable
        if isinstance(node, ir.VarRef) and node.variable.storage is ir.Storage.STATIC and node.variable.const \
                and node.variable.constant is None and node.variable.init is not None:
            stack.append(node.variable.init)           # a static const initialised from a spec constant
        stack.extend(reversed(children(node)))
    return None


def _shown(value: ir.ConstValue | None) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
