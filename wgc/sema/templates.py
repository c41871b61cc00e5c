"""Semantic analysis, templates: user struct and function templates (HLSL 2021).

Input: template declarations, kept as AST (`StructTemplate`, and `FunctionEntity`
with `is_template`), explicit specialisations (`template<> ...`), and uses:
`Box<float>` in a type, `f<float3>(x)` or `f(x)` in a call.
Output: instances: concrete structs and functions, declared by the declaration
checker (`TemplateHost`) in a scope where each template parameter names its
argument (a type, or a constant for a value parameter); the IR never sees a
template.  An instance is named as written in C++ (`Box<float>`, `Arr<int, 4>`,
`F<float3x3>`), so the back ends show readable names.

Decisions:
- Each distinct argument tuple instantiates once (cached per template); an
  explicit specialisation replaces the primary template for its arguments and
  must come before the first use of those arguments.
- Template bodies are only checked when instantiated (dependent types are only
  known then, as in clang); diagnostics raised inside an instantiation carry a
  note "in instantiation of 'S<float>' requested here" at the use.
- Function template arguments are deduced from call arguments by matching the
  written parameter types (`T`, `T a[N]`, `vector<T, N>`, `matrix<T, R, C>`,
  `Box<T>`, `GroupNodeInputRecords<Rec<T> >`, `RWStructuredBuffer<T>`) against the
  argument types; explicit arguments come first, defaults fill the rest.
- Not supported (WG0344): partial specialisation, value parameters of a
  non-scalar type (template template parameters do not parse).  Instantiations
  nest at most `MAX_DEPTH` deep (WG0345); a diagnostic shows at most
  `MAX_NOTES` instantiation notes.

Invariants: a failed instantiation is cached as None, so it is reported once;
instantiation never changes the scope or function of the code that uses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Union

from wgc import codes
from wgc import types as t
from wgc.diagnostics import Label
from wgc.sema.context import Context, EnumeratorEntity, FunctionEntity, TypeEntity
from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind
from wgc.source import Span
from wgc.syntax import ast

ArgValue = Union[t.Type, int, float, bool]
"""A template argument once resolved: a type, or the value of a constant."""
Key = tuple[ArgValue, ...]

MAX_DEPTH = 64
"""How deeply instantiations may nest (clang's default is 1024; HLSL programs need few)."""
MAX_NOTES = 4
"""Instantiation notes shown on one diagnostic: the innermost ones and the outermost use."""
_SKIPPED = "(further instantiation contexts not shown)"


@dataclass(eq=False)
class StructTemplate:
    """A struct template: its declaration (the definition once seen), instances and specialisations."""

    decl: ast.StructDecl
    declared_in: Scope
    span: Span
    instances: dict[Key, t.StructType | None] = field(default_factory=dict)
    specializations: dict[Key, ast.StructDecl] = field(default_factory=dict)

    @property
    def name(self) -> str:
        assert self.decl.name is not None
        return self.decl.name


class TemplateHost(Protocol):
    """What instantiation needs of the declaration checker."""

    def declare_struct(self, decl: ast.StructDecl, entity: TypeEntity) -> None: ...

    def function_signature(self, decl: ast.FunctionDecl, method_of: t.StructType | None,
                           template_args: Key) -> FunctionEntity | None: ...

    def define(self, decl: ast.FunctionDecl, entity: FunctionEntity) -> None: ...

    def check_type(self, ref: ast.TypeRef) -> t.Type | None: ...

    def constant(self, expr: ast.Expr, target: t.Type, what: str) -> ArgValue | None: ...


def show(key: Key) -> str:
    """`float, 4` for a key, as written in C++."""
    return ", ".join("true" if v is True else "false" if v is False else str(v) for v in key)


class Templates:
    """Binds template arguments and instantiates struct and function templates."""

    def __init__(self, ctx: Context, host: TemplateHost) -> None:
        self.ctx = ctx
        self.host = host
        self.instance_of: dict[t.StructType, tuple[StructTemplate, Key]] = {}
        """Each struct instance: its template and arguments (for deduction through `Box<T>`)."""
        self._depth = 0

    # ------------------------------------------------------------ declarations

    def declare_struct_template(self, decl: ast.StructDecl, span: Span) -> None:
        """`template<...> struct S ...;` (a forward declaration, or the definition of an earlier one)."""
        assert decl.name is not None
        for symbol in self.ctx.scope.local(decl.name):
            if isinstance(symbol.entity, StructTemplate):
                if decl.members is not None:
                    if symbol.entity.decl.members is not None:
                        self.ctx.report(codes.REDEFINITION, span, f"redefinition of '{decl.name}'",
                                        labels=[Label(symbol.entity.span, "previous definition is here")])
                        return
                    symbol.entity.decl = decl
                return
            self.ctx.report(codes.REDEFINITION, span, f"redefinition of '{decl.name}' as a template",
                            labels=[Label(symbol.span, "previous definition is here")] if symbol.span else [])
            return
        self.ctx.scope.declare(Symbol(decl.name, SymbolKind.TYPE, StructTemplate(decl, self.ctx.scope, span), span))

    def specialize_struct(self, decl: ast.StructDecl, span: Span) -> None:
        """`template<> struct S<int> {...}`: used instead of the primary template for those arguments."""
        assert decl.name is not None and decl.specialization_args is not None
        template = self._struct_template(decl.name, span)
        if template is None:
            return
        if decl.template_params:
            self.ctx.report(codes.UNSUPPORTED_TEMPLATE, span,
                            f"partial specialisation of '{decl.name}' is not supported; specialise every argument")
            return
        bound = self._bind(template.decl.template_params or (), decl.specialization_args, template.declared_in,
                           template.name, span)
        if bound is None:
            return
        key, _ = bound
        if key in template.instances:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"explicit specialisation of '{template.name}<{show(key)}>' "
                            "after its first use")
            return
        if key in template.specializations:
            self.ctx.report(codes.REDEFINITION, span, f"redefinition of '{template.name}<{show(key)}>'")
            return
        template.specializations[key] = decl

    def _struct_template(self, name: str, span: Span) -> StructTemplate | None:
        symbols = self.ctx.scope.lookup(name)
        if symbols and isinstance(symbols[0].entity, StructTemplate):
            return symbols[0].entity
        self.ctx.report(codes.INVALID_TEMPLATE, span, f"'{name}' is not a struct template: it cannot be specialised")
        return None

    def specialize_function(self, decl: ast.FunctionDecl, span: Span) -> None:
        """`template<> float3x3 F<float3x3>() {...}`: the instance of `F` for those arguments."""
        name = decl.name[-1]
        templates = [s.entity for s in self.ctx.scope.lookup_qualified(decl.name)
                     if s.kind is SymbolKind.FUNCTION and isinstance(s.entity, FunctionEntity) and s.entity.is_template]
        display = "::".join(decl.name)
        if not templates:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"'{display}' is not a function template: it cannot be "
                            "specialised")
            return
        if decl.template_params:
            self.ctx.report(codes.UNSUPPORTED_TEMPLATE, span,
                            f"partial specialisation of '{display}' is not supported (C++ has none for functions)")
            return
        param_types = []
        for param in _own_params(decl):
            type_ = self.host.check_type(dataclasses.replace(param.type, array_dims=param.array_dims))
            if type_ is None:
                return
            param_types.append(type_)
        for entity in templates:
            params = entity.decl.template_params or ()
            if len(_own_params(entity.decl)) != len(param_types):
                continue
            with self._quiet():
                bound = self._deduce(entity, decl.specialization_args or (), param_types, span)
            if bound is None:
                continue
            key, _ = bound
            if len(key) != len(params):
                continue
            if key in entity.instances:
                self.ctx.report(codes.INVALID_TEMPLATE, span, f"explicit specialisation of '{name}<{show(key)}>' "
                                "after its first use")
                return
            instance = self.host.function_signature(dataclasses.replace(decl, template_params=None),
                                                    entity.method_of, key)
            entity.instances[key] = instance
            if instance is not None and decl.body is not None:
                self.host.define(decl, instance)
            return
        self.ctx.report(codes.INVALID_TEMPLATE, span,
                        f"no function template '{display}' matches this explicit specialisation")

    def prototype_of(self, decl: ast.FunctionDecl, symbols: Sequence[Symbol]) -> FunctionEntity | None:
        """The function template `decl` defines, if it was declared before without a body (with as
        many template and function parameters)."""
        if decl.body is None:
            return None
        for symbol in symbols:
            entity = symbol.entity
            if isinstance(entity, FunctionEntity) and entity.is_template and entity.decl.body is None \
                    and len(entity.decl.template_params or ()) == len(decl.template_params or ()) \
                    and len(_own_params(entity.decl)) == len(_own_params(decl)):
                return entity
        return None

    def define_template(self, entity: FunctionEntity, decl: ast.FunctionDecl) -> None:
        """Give a function template declared before its definition that definition; the instances
        made meanwhile (calls before the definition) get their bodies now."""
        entity.decl = decl
        for key, instance in entity.instances.items():
            if instance is None or instance.function is None or instance.defined:
                continue
            function = instance.function
            own = function.params[1:] if function.method_of is not None else function.params
            for variable, param in zip(own, _own_params(decl)):
                variable.name = param.name or ""  # the body sees the definition's names
            scope = entity.scope.child(ScopeKind.BLOCK, "template")
            for template_param, value in zip(decl.template_params or (), key):
                scope.declare(self._parameter_symbol(template_param, value))
            with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope), self.ctx.in_function(None):
                self.host.define(decl, instance)

    # ------------------------------------------------------------ struct instances

    def struct_type(self, template: StructTemplate, ref: ast.TypeRef) -> t.Type | None:
        """The instance `ref` (`Box<float>`) names; reports and returns None when there is none."""
        display = "::".join(ref.name)
        if ref.template_args is None:
            self.ctx.report(codes.INVALID_TEMPLATE, ref.span,
                            f"use of struct template '{display}' requires template arguments")
            return None
        bound = self._bind(template.decl.template_params or (), ref.template_args, template.declared_in,
                           template.name, ref.span)
        if bound is None:
            return None
        key, scope = bound
        if key in template.instances:
            return template.instances[key]
        decl = template.specializations.get(key, template.decl)
        shown = f"{template.name}<{show(key)}>"
        if decl.members is None:
            self.ctx.report(codes.INVALID_TEMPLATE, ref.span, f"implicit instantiation of undefined template '{shown}'",
                            labels=[Label(template.span, "template is declared here")])
            template.instances[key] = None
            return None
        if key in template.specializations:
            scope = template.declared_in.child(ScopeKind.BLOCK, "template")
        struct = t.StructType(shown, attributes=tuple(a.name.lower() for a in decl.attributes), span=template.span)
        template.instances[key] = struct
        self.instance_of[struct] = (template, key)
        # the template's own name inside its body means this instance (C++'s injected class name)
        injected = TypeEntity(struct)
        scope.declare(Symbol(template.name, SymbolKind.TYPE, injected, template.span))
        with self._instantiating(f"'{shown}'", ref.span) as ok:
            if ok:
                with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope), self.ctx.in_function(None):
                    self.host.declare_struct(dataclasses.replace(decl, template_params=None, specialization_args=None),
                                             injected)
        return struct

    # ------------------------------------------------------------ function instances

    def function_instance(self, entity: FunctionEntity, explicit: Sequence[ast.TemplateArg],
                          arg_types: Sequence[t.Type], span: Span) -> FunctionEntity | None:
        """The instance of a function template a call selects, or None when it is not viable.

        Deduction failures are quiet (the overload is just not viable); errors in the
        explicit arguments and inside the instantiated body are reported.
        """
        bound = self._deduce(entity, explicit, arg_types, span)
        if bound is None:
            return None
        key, scope = bound
        if key in entity.instances:
            return entity.instances[key]
        decl = entity.decl
        shown = f"{decl.name[-1]}<{show(key)}>"
        entity.instances[key] = None  # type: ignore[assignment]
        with self._instantiating(f"function template specialisation '{shown}'", span) as ok:
            if not ok:
                return None
            with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope), self.ctx.in_function(None):
                instance = self.host.function_signature(decl, entity.method_of, key)
                entity.instances[key] = instance  # type: ignore[assignment]
                if instance is not None and decl.body is not None:
                    self.host.define(decl, instance)
        return instance

    def _deduce(self, entity: FunctionEntity, explicit: Sequence[ast.TemplateArg], arg_types: Sequence[t.Type],
                span: Span) -> tuple[Key, Scope] | None:
        params = entity.decl.template_params or ()
        if len(explicit) > len(params):
            return None
        names = {p.name for p in params}
        deduced: dict[str, ArgValue] = {}
        for param, arg_type in zip(_own_params(entity.decl), arg_types):
            pattern = param.type
            if param.array_dims:
                pattern = dataclasses.replace(pattern, array_dims=param.array_dims)
            if not _match(pattern, arg_type, names, deduced, self.instance_of):
                return None
        return self._bind(params, tuple(explicit), entity.scope, entity.decl.name[-1], span, deduced)

    # ------------------------------------------------------------ binding

    def _bind(self, params: Sequence[ast.TemplateParam], written: Sequence[ast.TemplateArg], declared_in: Scope,
              name: str, span: Span, deduced: dict[str, ArgValue] | None = None) -> tuple[Key, Scope] | None:
        """Arguments for every parameter (written, deduced, then defaults) and a scope naming them."""
        if len(written) > len(params):
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"too many template arguments for '{name}' "
                            f"({len(written)} given, at most {len(params)})")
            return None
        scope = declared_in.child(ScopeKind.BLOCK, "template")
        key: list[ArgValue] = []
        for index, param in enumerate(params):
            value: ArgValue | None
            if index < len(written):
                value = self._argument(param, written[index], name)
            elif deduced is not None and param.name in deduced:
                value = deduced[param.name]
            elif param.default is not None:
                with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope):
                    value = self._argument(param, param.default, name)
            else:
                if deduced is None:
                    self.ctx.report(codes.INVALID_TEMPLATE, span, f"too few template arguments for '{name}' "
                                    f"({len(written)} given, {len(params)} needed)")
                return None
            if value is None:
                return None
            key.append(value)
            scope.declare(self._parameter_symbol(param, value))
        return tuple(key), scope

    def _parameter_symbol(self, param: ast.TemplateParam, value: ArgValue) -> Symbol:
        """What a template parameter names inside an instance: a type, or a constant."""
        if isinstance(value, t.Type):
            return Symbol(param.name, SymbolKind.TYPE, TypeEntity(value), param.span)
        kind = self.host.check_type(param.kind) if param.kind is not None else t.INT
        assert isinstance(value, int), "a non-type template argument is an integer constant"
        return Symbol(param.name, SymbolKind.ENUMERATOR, EnumeratorEntity(kind or t.INT, value), param.span)

    def _argument(self, param: ast.TemplateParam, arg: ast.TemplateArg, name: str) -> ArgValue | None:
        if param.kind is None:  # a type parameter
            if isinstance(arg, ast.NameExpr):
                arg = ast.TypeRef(arg.span, arg.name)  # an unknown name where a type belongs
            if not isinstance(arg, ast.TypeRef):
                self.ctx.report(codes.INVALID_TEMPLATE, arg.span,
                                f"template argument for '{param.name}' of '{name}' must be a type")
                return None
            return self.host.check_type(arg)
        if isinstance(arg, ast.TypeRef):
            self.ctx.report(codes.INVALID_TEMPLATE, arg.span,
                            f"template argument for '{param.name}' of '{name}' must be a constant, not a type")
            return None
        kind = self.host.check_type(param.kind)
        if kind is None:
            return None
        if not isinstance(kind, (t.ScalarType, t.EnumType)):
            self.ctx.report(codes.UNSUPPORTED_TEMPLATE, param.kind.span,
                            f"a value template parameter must have a scalar type, not '{kind}'")
            return None
        return self.host.constant(arg, kind, f"template argument for '{param.name}' of '{name}'")

    # ------------------------------------------------------------ diagnostics

    @contextlib.contextmanager
    def _instantiating(self, what: str, span: Span) -> Iterator[bool]:
        """Notes the use on every diagnostic raised inside; yields False when nesting is too deep."""
        if self._depth >= MAX_DEPTH:
            self.ctx.report(codes.TEMPLATE_TOO_DEEP, span, f"instantiating {what} nests templates more than "
                            f"{MAX_DEPTH} deep (a template that instantiates itself with ever new arguments?)")
            yield False
            return
        start = len(self.ctx.diagnostics)
        self._depth += 1
        try:
            yield True
        finally:
            self._depth -= 1
            note = Label(span, f"in instantiation of {what} requested here")
            diagnostics = self.ctx.diagnostics
            for index in range(start, len(diagnostics)):
                diagnostic = diagnostics[index]
                shown = sum(1 for label in diagnostic.labels if label.message.startswith("in instantiation of "))
                if shown < MAX_NOTES:
                    diagnostic = dataclasses.replace(diagnostic, labels=diagnostic.labels + (note,))
                else:  # the outermost use stays last; the ones between are summarised
                    notes = diagnostic.notes if _SKIPPED in diagnostic.notes else diagnostic.notes + (_SKIPPED,)
                    diagnostic = dataclasses.replace(diagnostic, labels=diagnostic.labels[:-1] + (note,), notes=notes)
                diagnostics[index] = diagnostic

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        """Drop the diagnostics raised inside (trying whether a template matches)."""
        start = len(self.ctx.diagnostics)
        try:
            yield
        finally:
            del self.ctx.diagnostics[start:]


def _own_params(decl: ast.FunctionDecl) -> tuple[ast.Param, ...]:
    """The declared parameters, without `(void)`."""
    params = decl.params
    if len(params) == 1 and params[0].name is None and params[0].type.name == ("void",) and not params[0].array_dims:
        return ()
    return params


def _match(pattern: ast.TypeRef, type_: t.Type, names: set[str], deduced: dict[str, ArgValue],
           instance_of: dict[t.StructType, tuple[StructTemplate, Key]]) -> bool:
    """Deduce template parameters from one written parameter type; False when they conflict.

    Patterns that name no template parameter match anything here (the call's
    conversions decide); a pattern it cannot read deduces nothing.
    """
    if pattern.array_dims:
        if not isinstance(type_, t.ArrayType):
            return not _mentions(pattern, names)
        inner = dataclasses.replace(pattern, array_dims=pattern.array_dims[1:])
        dim = pattern.array_dims[0]
        if isinstance(dim, ast.NameExpr) and len(dim.name) == 1 and dim.name[0] in names:
            if type_.length is None or not _bind_value(dim.name[0], type_.length, deduced):
                return False
        return _match(inner, type_.element, names, deduced, instance_of)
    name = pattern.name
    if len(name) == 1 and name[0] in names and pattern.template_args is None:
        return _bind_value(name[0], type_, deduced)
    args = pattern.template_args
    if not args or not _mentions(pattern, names):
        return True
    written = name[-1]
    parts: list[ArgValue] = []
    if written == "vector" and isinstance(type_, t.VectorType):
        parts = [type_.element, type_.count]
    elif written == "matrix" and isinstance(type_, t.MatrixType):
        parts = [type_.element, type_.rows, type_.columns]
    elif isinstance(type_, t.NodeObjectType) and type_.kind.value == written and type_.record is not None:
        parts = [type_.record]
    elif isinstance(type_, t.ResourceType) and type_.kind.value == written and type_.element is not None:
        parts = [type_.element]
    elif isinstance(type_, t.StructType) and type_ in instance_of and instance_of[type_][0].name == written:
        parts = list(instance_of[type_][1])
    else:
        return False
    for arg, part in zip(args, parts):
        if isinstance(arg, ast.TypeRef) and isinstance(part, t.Type):
            if not _match(arg, part, names, deduced, instance_of):
                return False
        elif isinstance(arg, ast.NameExpr) and len(arg.name) == 1 and arg.name[0] in names:
            if isinstance(part, t.Type):
                if not _bind_value(arg.name[0], part, deduced):  # a type parameter that parsed as a name
                    return False
            elif not _bind_value(arg.name[0], part, deduced):
                return False
    return True


def _bind_value(name: str, value: ArgValue, deduced: dict[str, ArgValue]) -> bool:
    if name in deduced:
        previous = deduced[name]
        return previous is value or (not isinstance(value, t.Type) and previous == value)
    deduced[name] = value
    return True


def _mentions(pattern: ast.TemplateArg, names: set[str]) -> bool:
    """Whether a written type or argument names a template parameter."""
    if isinstance(pattern, ast.TypeRef):
        if len(pattern.name) == 1 and pattern.name[0] in names:
            return True
        return any(_mentions(a, names) for a in pattern.template_args or ()) or any(
            d is not None and _mentions(d, names) for d in pattern.array_dims)
    if isinstance(pattern, ast.NameExpr):
        return len(pattern.name) == 1 and pattern.name[0] in names
    return False

