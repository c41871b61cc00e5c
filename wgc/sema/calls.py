"""Semantic analysis, calls: user functions (overloads, default arguments, templates,
member functions), global intrinsics and resource/node-object methods.

Input: an `ast.CallExpr` and the `ExpressionChecker` that checks its parts.
Output: an `ir.Call`, `ir.IntrinsicCall`, `ir.MethodCall` or `ir.RecordAccess`
(for `Get()`/`Get(i)` on node records), or None after a diagnostic:
WG0301 unknown function (did you mean), WG0304 no matching overload (the
candidates listed as notes), WG0305 ambiguous call, WG0308 wrong argument
count, WG0332 an out/inout argument that is not a modifiable l-value (or an
atomic whose destination is not shared memory), WG0319 no such method.

Overload ranking of user functions is dxc's: the candidate with the lowest sum
of per-argument scores wins (`conversions.cast_score`: splat < promotion < integer
cast < other cast < truncation), equal lowest sums are ambiguous. Intrinsic
overloads are ranked per argument (exact < promotion < conversion; then splat,
truncation): a candidate wins when it is no worse for every argument and better
for one. Unsuffixed literal arguments first adopt the component type of the
call's other numeric arguments, as dxc types literals, so `min(u, 1)` is
`min(uint, uint)`.

Invariants: every call of a user function is recorded in the context's call
graph (caller → callee, with the call's span) for the recursion check (a call
of a function without a body is the target limit WG0628, `target`). A method's
resolution is kept for the rest of the compile (`FunctionCalls`, by object type, name
and argument types); it is a pure function of those.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Severity
from wgc.sema import intrinsics, methods, rayquery, strings
from wgc.sema.context import Context, FunctionEntity
from wgc.sema.conversions import EXACT, Conversion, cast_score, implicit_conversion
from wgc.sema.expr import ExpressionChecker, describe, member_span
from wgc.sema.scope import SymbolKind
from wgc.sema.templates import own_params
from wgc.source import Span
from wgc.syntax import ast

Instantiate = Callable[[FunctionEntity, Sequence[ast.TemplateArg], Sequence[t.Type], Span], "FunctionEntity | None"]
MethodResolution = Union[methods.MethodResolved, intrinsics.NoMatch, intrinsics.Ambiguous, None]
_ATOMICS = frozenset(f"Interlocked{op}" for op in
                     ("Add", "And", "Or", "Xor", "Min", "Max", "Exchange", "CompareExchange", "CompareStore",
                      "CompareStoreFloatBitwise", "CompareExchangeFloatBitwise"))
_FUNCTION = SymbolKind.FUNCTION
_BOOL, _FLOAT, _INTEGER_KINDS = t.ScalarKind.BOOL, t.ScalarKind.FLOAT, (t.ScalarKind.INT, t.ScalarKind.UINT)
"""Enum members (and `ScalarType.is_integer`'s kinds) as module constants, for what every call checks: an
enum member read through its class is a lookup at each use, dearer than a global's read."""


class FunctionCalls:
    def __init__(self, ctx: Context, instantiate: Instantiate) -> None:
        self.ctx = ctx
        self.instantiate = instantiate
        """The instance of a function template for a call: explicit template arguments, argument types
        (`templates.Templates.function_instance`); None when the template is not viable."""
        self._methods: dict[tuple[t.Type, str, tuple[t.Type, ...], t.Type | None], MethodResolution] = {}
        """`methods.resolve_method`'s answers in this compile, by object type, method name, argument
        types and template argument: a program calls the same methods on the same objects again
        (`input.Get()`); kept per compile, as the object types hold the compile's record structs."""

    def call(self, checker: ExpressionChecker, e: ast.CallExpr) -> ir.Expr | None:
        callee = e.callee
        if isinstance(callee, ast.MemberExpr):
            obj = checker.check(callee.object)
            args = [checker.check(a) for a in e.args]
            if obj is None or None in args:   # (IR expressions compare by identity)
                return None
            return self._member_call(checker, obj, callee.member, e, args)  # type: ignore[arg-type]
        if not isinstance(callee, ast.NameExpr):
            self.ctx.report(codes.INVALID_OPERANDS, callee.span, "called object is not a function")
            return None
        name = callee.name
        # a plain name is what lookup_scoped looks up first, without its call
        found = self.ctx.scope.lookup(name[0]) if len(name) == 1 else \
            self.ctx.templates.lookup_scoped(name, callee.scope_args, callee.span)
        if found is None:
            return None
        symbols = found
        display = "::".join(name)
        functions = [s.entity for s in symbols if s.kind is _FUNCTION]
        args = [checker.check(a) for a in e.args]
        if None in args:
            return None
        if functions:
            this = self.ctx.function.this if self.ctx.function else None
            return self._user_call(checker, functions, display, args, e.span, e.template_args or (),  # type: ignore[arg-type]
                                   this)
        if symbols:
            kind = symbols[0].kind
            self.ctx.report(codes.INVALID_OPERANDS, callee.span,
                            f"called object '{display}' is a {kind.value}, not a function")
            return None
        if len(name) == 1 and intrinsics.is_intrinsic(name[0]):
            return self._intrinsic_call(checker, name[0], args, e.span)  # type: ignore[arg-type]
        checker._undeclared(callee.span, display, name[-1])
        return None

    def _template_args(self, checker: ExpressionChecker, e: ast.CallExpr) -> tuple[t.Type, ...] | None:
        result = []
        for arg in e.template_args or ():
            if not isinstance(arg, ast.TypeRef):
                self.ctx.report(codes.INVALID_TEMPLATE, arg.span, "only type template arguments are supported")
                return None
            type_ = checker.check_type(arg)
            if type_ is None:
                return None
            result.append(type_)
        return tuple(result)

    # ------------------------------------------------------------ user functions

    def _user_call(self, checker: ExpressionChecker, entities: Sequence[FunctionEntity], display: str,
                   args: list[ir.Expr], span: Span, template_args: Sequence[ast.TemplateArg],
                   this: ir.Variable | None, obj: ir.Expr | None = None) -> ir.Expr | None:
        if any(e.function is None and not e.is_template for e in entities):
            return None  # an overload whose declaration had errors: its calls cannot be judged
        most = max(len(e.decl.template_params or ()) for e in entities)
        if len(template_args) > most:
            expected = f"{most} expected" if most else "it is not a template"
            self.ctx.report(codes.INVALID_TEMPLATE, span,
                            f"too many template arguments for '{display}' ({len(template_args)} given, {expected})")
            return None
        viable: list[tuple[FunctionEntity, tuple[Conversion, ...]]] = []
        counts_fit = False
        # a string literal deduces as the array of characters it is (`strings`)
        arg_types = [strings.array_type(a) if strings.is_literal(a) else a.type for a in args]  # type: ignore[arg-type]
        ignored: dict[FunctionEntity, str] = {}
        """Why each template whose arguments could not be deduced was ignored (clang's note)."""
        for entity in entities:
            if entity.is_template:
                declared = own_params(entity.decl)
                if not sum(1 for p in declared if p.default is None) <= len(args) <= len(declared):
                    continue
                counts_fit = True
                reported = len(self.ctx.diagnostics)
                deduced = self.instantiate(entity, template_args, arg_types, span)
                if deduced is None and any(d.severity >= Severity.ERROR for d in self.ctx.diagnostics[reported:]):
                    return None  # a written template argument was wrong (reported): the call cannot be judged
                if deduced is None:
                    assert self.ctx.templates is not None
                    ignored[entity] = self.ctx.templates.deduction_failure or "substitution failure"
                    continue
                entity = deduced
            elif template_args:
                continue
            function = entity.function
            if function is None:
                continue
            params = function.own_params
            required = sum(1 for i, _ in enumerate(params) if entity_default(entity, i) is None)
            if not required <= len(args) <= len(params):
                continue
            counts_fit = True
            conversions = self._match(params, args)
            if conversions is not None:
                viable.append((entity, conversions))
        if not viable:
            candidates = [f"{_signature(e)}" for e in entities]
            if not counts_fit:
                self.ctx.report(codes.WRONG_ARGUMENT_COUNT, span,
                                f"no overload of '{display}' takes {len(args)} argument{'s' if len(args) != 1 else ''}",
                                notes=[f"candidate: {c}" for c in candidates])
            else:
                types = ", ".join(_shown_type(a) for a in args)
                self.ctx.report(codes.NO_MATCHING_OVERLOAD, span,
                                f"no matching function for call to '{display}({types})'",
                                notes=[f"candidate template ignored: {ignored[e]}: {c}" if e in ignored
                                       else f"candidate: {c}" for e, c in zip(entities, candidates)])
            return None
        scores = [_overload_score(e.function.own_params, args)  # type: ignore[union-attr]
                  for e, _ in viable]
        best = [each for each, score in zip(viable, scores) if score == min(scores)]
        if len(best) > 1:
            types = ", ".join(_shown_type(a) for a in args)
            self.ctx.report(codes.AMBIGUOUS_CALL, span, f"call to '{display}({types})' is ambiguous",
                            notes=[f"candidate: {_signature(e)}" for e, _ in best])
            return None
        entity = best[0][0]
        function = entity.function
        assert function is not None
        params = function.own_params
        if entity.template_args and any(strings.is_literal(a) and _deduced_whole(entity, i) for i, a in enumerate(args)):
            # dxc: `template<typename T> void f(T s)` given "toto" takes a `string` (a char pointer)
            self.ctx.report(codes.STRING_LITERAL_PARAMETER, span, "string literals parameters are not supported in HLSL")
            return None
        built: list[ir.Expr] = []
        if function.method_of is not None:
            if obj is None:
                if this is None:
                    self.ctx.report(codes.INVALID_OPERANDS, span,
                                    f"call to member function '{display}' needs an object")
                    return None
                obj = ir.VarRef(this.type, span, this)
            if obj.type is not function.method_of:
                obj = ir.Convert(function.method_of, obj.span, obj)
            built.append(obj)
        for index, param in enumerate(params):
            if index >= len(args):
                default = entity_default(entity, index)
                assert default is not None
                built.append(default)
                continue
            arg = args[index]
            what = f"argument {index + 1} of '{display}'"
            if param.direction is ir.Direction.IN and strings.is_literal(arg) and param.type is not t.STRING:
                assert isinstance(arg, ir.Constant) and isinstance(param.type, t.ArrayType)
                built.append(strings.as_array(arg, param.type.element))
            elif param.direction is ir.Direction.IN:
                converted = arg if _unsized_array_of(param.type, arg.type) else \
                    _pass_object(arg, param.type) or checker.convert(arg, param.type, what)
                if converted is None:
                    return None
                built.append(converted)
            else:
                reason = None if _passes_handle(arg, param) else checker.not_assignable_reason(arg)
                if reason is not None:
                    self.ctx.report(codes.INVALID_OUT_ARGUMENT, arg.span,
                                    f"{what} is '{param.direction.value}' and needs a modifiable l-value: {reason}")
                    return None
                built.append(arg)
        self._record_call(function, span)
        return ir.Call(function.return_type, span, function, tuple(built))

    def _match(self, params: Sequence[ir.Variable], args: Sequence[ir.Expr]) -> tuple[Conversion, ...] | None:
        conversions = []
        for param, arg in zip(params, args):
            if isinstance(param.type, (t.ResourceType, t.NodeObjectType)) or isinstance(
                    arg.type, (t.ResourceType, t.NodeObjectType)):
                conversion = EXACT if param.type is arg.type else None
            elif _unsized_array_of(param.type, arg.type):
                conversion = EXACT
            elif strings.is_literal(arg):
                conversion = strings.conversion(arg, param.type)  # type: ignore[arg-type]  # (out: not assignable, below)
            elif param.direction is ir.Direction.IN:
                conversion = implicit_conversion(arg.type, param.type)
            else:
                back = implicit_conversion(param.type, arg.type)
                forth = implicit_conversion(arg.type, param.type) if param.direction is ir.Direction.INOUT else back
                conversion = None if back is None or forth is None else max(back, forth)
            if conversion is None:
                return None
            conversions.append(conversion)
        return tuple(conversions)

    def _record_call(self, function: ir.Function, span: Span) -> None:
        state = self.ctx.function
        if state is None:
            return
        caller = state.function
        edges = self.ctx.call_graph.setdefault(caller, [])
        edges.append((function, span))
        if function not in caller.callees:
            caller.callees.append(function)

    # ------------------------------------------------------------ member calls

    def _member_call(self, checker: ExpressionChecker, obj: ir.Expr, name: str, e: ast.CallExpr,
                     args: list[ir.Expr]) -> ir.Expr | None:
        type_ = obj.type
        if isinstance(type_, t.StructType):
            scope = self.ctx.struct_scopes.get(type_)
            symbols = scope.lookup(name) if scope is not None else []
            functions = [s.entity for s in symbols if s.kind is SymbolKind.FUNCTION
                         and isinstance(s.entity, FunctionEntity) and s.entity.method_of is not None]
            if not functions:
                checker._no_member(member_span(e.callee.span, name), type_, name, _member_names(type_, scope))
                return None
            return self._user_call(checker, functions, f"{type_}::{name}", args, e.span, e.template_args or (), None,
                                   obj)
        if isinstance(type_, (t.ResourceType, t.NodeObjectType, t.RayQueryType)):
            return self._method_call(checker, obj, name, e, args)
        self.ctx.report(codes.NO_SUCH_MEMBER, member_span(e.callee.span, name), f"{describe(type_)} has no member functions")
        return None

    def _method_call(self, checker: ExpressionChecker, obj: ir.Expr, name: str, e: ast.CallExpr,
                     args: list[ir.Expr]) -> ir.Expr | None:
        type_ = obj.type
        template_args = self._template_args(checker, e) if e.template_args else ()
        if template_args is None:
            return None
        if len(template_args) > 1:
            self.ctx.report(codes.INVALID_TEMPLATE, e.span, f"'{name}' takes at most one template argument")
            return None
        template_type = template_args[0] if template_args else None
        arg_types = _adopted_types(args)
        key = (type_, name, tuple(arg_types), template_type)
        if key in self._methods:
            resolved = self._methods[key]
        else:
            resolved = self._methods[key] = methods.resolve_method(type_, name, arg_types, template_type)
        if resolved is None:
            checker._no_member(member_span(e.callee.span, name), type_, name, list(methods.method_names(type_)))
            return None
        if isinstance(resolved, (intrinsics.NoMatch, intrinsics.Ambiguous)):
            self._no_overload(resolved, f"{type_}::{name}", args, e.span, methods.arity(type_, name))
            return None
        # (without arguments nothing converts, and the name, which spells out the object's type, is not needed)
        built = self._convert_args(checker, resolved.params, resolved.out_params, args, f"{type_}::{name}",
                                   atomic_dest=None) if args else []
        if built is None:
            return None
        if resolved.record_access:
            return ir.RecordAccess(resolved.result, e.span, obj, built[0] if built else None)
        if isinstance(type_, t.RayQueryType) and name == "TraceRayInline":
            flags = checker.fold_quietly(built[1])
            if isinstance(flags, int) and not isinstance(flags, bool):
                declared = obj.variable.span if isinstance(obj, ir.VarRef) else None
                rayquery.check_trace_flags(self.ctx, type_, flags, e.span, declared)
        return ir.MethodCall(resolved.result, e.span, obj, name, tuple(built), resolved.template_type,
                             resolved.out_params)

    # ------------------------------------------------------------ intrinsics

    def _intrinsic_call(self, checker: ExpressionChecker, name: str, args: list[ir.Expr], span: Span) -> ir.Expr | None:
        resolved = intrinsics.resolve_intrinsic(name, _adopted_types(args))
        if isinstance(resolved, (intrinsics.NoMatch, intrinsics.Ambiguous)):
            self._no_overload(resolved, name, args, span, intrinsics.arity(name, len(args)))
            return None
        built = self._convert_args(checker, resolved.params, resolved.out_params, args, f"'{name}'",
                                   atomic_dest=0 if name in _ATOMICS else None)
        if built is None:
            return None
        return ir.IntrinsicCall(resolved.result, span, name, tuple(built), resolved.out_params)

    def _no_overload(self, failure: intrinsics.NoMatch | intrinsics.Ambiguous, display: str,
                     args: Sequence[ir.Expr], span: Span, arities: Sequence[int]) -> None:
        types = ", ".join(str(a.type) for a in args)
        notes = [f"candidate: {c}" for c in failure.candidates]
        if isinstance(failure, intrinsics.Ambiguous):
            self.ctx.report(codes.AMBIGUOUS_CALL, span, f"call to '{display}({types})' is ambiguous", notes=notes)
        elif len(args) not in arities:
            expected = " or ".join(str(n) for n in sorted(set(arities)))
            self.ctx.report(codes.WRONG_ARGUMENT_COUNT, span,
                            f"'{display}' takes {expected} argument{'s' if expected != '1' else ''}, "
                            f"{len(args)} given", notes=notes)
        else:
            self.ctx.report(codes.NO_MATCHING_OVERLOAD, span,
                            f"no matching overload for call to '{display}({types})'", notes=notes)
        return None

    def _convert_args(self, checker: ExpressionChecker, params: Sequence[t.Type], out_params: Sequence[int],
                      args: Sequence[ir.Expr], display: str, atomic_dest: int | None) -> list[ir.Expr] | None:
        built = []
        for index, (param, arg) in enumerate(zip(params, args)):
            if arg.type is param and index not in out_params:
                built.append(arg)   # what `convert` gives it, without the message text (the common case)
                continue
            what = f"argument {index + 1} of {display}"
            if index in out_params:
                reason = checker.not_assignable_reason(arg)
                if reason is None and index == atomic_dest and not _shared_memory(arg):
                    self.ctx.report(codes.INVALID_OUT_ARGUMENT, arg.span,
                                    f"{what} must be groupshared memory, an element of a writable resource or a "
                                    "field of a writable node record: atomic operations need shared memory")
                    return None
                if reason is not None:
                    self.ctx.report(codes.INVALID_OUT_ARGUMENT, arg.span, f"{what} needs a modifiable l-value: {reason}")
                    return None
                built.append(arg)
            elif isinstance(param, (t.ResourceType, t.NodeObjectType)):
                built.append(arg)
            else:
                converted = checker.convert(arg, param, what)
                if converted is None:
                    return None
                built.append(converted)
        return built


def entity_default(entity: FunctionEntity, index: int) -> ir.Expr | None:
    """The checked default value of parameter `index` (not counting `this`)."""
    defaults = getattr(entity, "defaults", ())
    return defaults[index] if index < len(defaults) else None


def _overload_score(params: Sequence[ir.Variable], args: Sequence[ir.Expr]) -> int:
    """dxc's score of a viable overload (lower is better; `conversions.cast_score`): the sum over its
    arguments of the conversion in (in/inout) and of the copy back (out/inout)."""
    total = 0
    for param, arg in zip(params, args):
        if strings.is_literal(arg):
            total += strings.score(arg, param.type)  # type: ignore[arg-type]
        elif param.direction is not ir.Direction.OUT:
            total += cast_score(param.type, arg.type, isinstance(arg, ir.Constant) and arg.literal)
        if param.direction is not ir.Direction.IN:
            total += cast_score(arg.type, param.type)
    return total


def _unsized_array_of(param_type: t.Type, arg_type: t.Type) -> bool:
    """`float a[]` given an array of floats of any size (the callee is inlined with that size)."""
    return isinstance(param_type, t.ArrayType) and param_type.length is None and \
        isinstance(arg_type, t.ArrayType) and arg_type.length is not None and arg_type.element is param_type.element


def _shown_type(arg: ir.Expr) -> str:
    """An argument's type as a call's error shows it ('literal string' for a string literal, as dxc)."""
    return "literal string" if strings.is_literal(arg) else str(arg.type)


def _deduced_whole(entity: FunctionEntity, index: int) -> bool:
    """Whether parameter `index` of a template instance is written as a bare template parameter `T`."""
    declared = own_params(entity.decl)
    if index >= len(declared) or declared[index].array_dims:
        return False
    written = declared[index].type
    return len(written.name) == 1 and written.template_args is None and not written.array_dims \
        and any(p.name == written.name[0] for p in entity.decl.template_params or ())


def _pass_object(arg: ir.Expr, param_type: t.Type) -> ir.Expr | None:
    return arg if arg.type is param_type and isinstance(param_type, (t.ResourceType, t.NodeObjectType)) else None


def _passes_handle(arg: ir.Expr, param: ir.Variable) -> bool:
    """A node object variable given to an out/inout node-object parameter (the callee is inlined)."""
    return isinstance(param.type, t.NodeObjectType) and arg.type is param.type and isinstance(arg, ir.VarRef) \
        and arg.variable.storage in (ir.Storage.LOCAL, ir.Storage.PARAMETER)


def _signature(entity: FunctionEntity) -> str:
    function = entity.function
    if function is None:
        decl = entity.decl
        names = ", ".join(p.name or "" for p in decl.params)
        return f"template {'::'.join(decl.name)}({names})"
    return function.signature


def _member_names(type_: t.StructType, scope) -> list[str]:
    names = [f.name for f in type_.all_fields()]
    if scope is not None:
        names.extend(scope.visible_names())
    return names


def _adopted_types(args: Sequence[ir.Expr]) -> list[t.Type]:
    """Argument types, with unsuffixed literals taking the component type of the other numeric arguments."""
    for arg in args:
        if type(arg) is ir.Constant and arg.literal:
            return _adopting(args)
    return [arg.type for arg in args]   # no literal adopts a type: what `_adopting` gives, without its lists


def _adopting(args: Sequence[ir.Expr]) -> list[t.Type]:
    """`_adopted_types` of arguments among which are unsuffixed literals."""
    others = [a.type for a in args if not (isinstance(a, ir.Constant) and a.literal) and t.is_numeric(a.type)]
    scalars = [t.element_scalar(o) for o in others]
    target = next((s for s in scalars if s is not None and s.kind is not _BOOL), None)
    result: list[t.Type] = []
    for arg in args:
        if isinstance(arg, ir.Constant) and arg.literal and target is not None:
            literal = arg.type
            assert isinstance(literal, t.ScalarType)
            result.append(target if target.kind is _FLOAT or literal.kind in _INTEGER_KINDS else literal)
        else:
            result.append(arg.type)
    return result


def _shared_memory(expr: ir.Expr) -> bool:
    """Whether an l-value lives in memory other invocations see (the only legal atomic targets)."""
    while isinstance(expr, (ir.FieldAccess, ir.Swizzle, ir.Index)):
        expr = expr.base
    if isinstance(expr, ir.VarRef):
        return expr.variable.storage is ir.Storage.GROUPSHARED
    return isinstance(expr, (ir.ResourceIndex, ir.RecordAccess))

