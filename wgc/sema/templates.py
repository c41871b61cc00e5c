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
- Partial specialisations (`template<typename T> struct S<T, T>`) are chosen as in C++: among
  the ones whose patterns match the arguments, the one more specialised than every other
  (partial ordering: each of its parameters taken as a unique type or value, the other must
  match its arguments); none: the primary template; several: an ambiguity error.
- Out-of-line member definitions (`template<typename T> T Box<T>::get() {...}`) give every
  instance of the primary template (made before or after) the member's body, their parameters
  naming the instance's arguments; a qualified name through an instance (`Box<float>::make`,
  `is_same<T, U>::value`) instantiates it and looks inside (`lookup_scoped`).
- Template template parameters (`template<typename> class H`) take a struct template named
  without arguments, whose parameters are of the same kinds (C++14's rule, DXC's language);
  `H<T>` inside then instantiates it.
- Not supported (WG0344): value parameters of a non-scalar type, out-of-line definitions that
  do not name the template's own parameters in order.  Instantiations nest at most `MAX_DEPTH` deep (WG0345); a diagnostic shows at most
  `MAX_NOTES` instantiation notes.

Invariants: a failed instantiation is cached as None, so it is reported once;
instantiation never changes the scope or function of the code that uses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import Literal, Protocol, Union

from wgc import codes
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Label
from wgc.sema.context import Context, EnumeratorEntity, FunctionEntity, TypeEntity
from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind, inner_scope
from wgc.source import Span
from wgc.syntax import ast
from wgc.syntax.printer import print_expr, print_type

ArgValue = Union[t.Type, int, float, bool, "StructTemplate"]
"""A template argument once resolved: a type, the value of a constant, or a struct template (the
argument of a template template parameter)."""
Key = tuple[ArgValue, ...]

MAX_DEPTH = 64
"""How deeply instantiations may nest (clang's default is 1024; HLSL programs need few)."""
MAX_NOTES = 4
"""Instantiation notes shown on one diagnostic: the innermost ones and the outermost use."""
_SKIPPED = "(further instantiation contexts not shown)"


@dataclass(eq=False)
class PartialSpecialization:
    """`template<typename T> struct S<T, T> {...}`: its parameters and argument patterns."""

    decl: ast.StructDecl
    span: Span

    @property
    def params(self) -> tuple[ast.TemplateParam, ...]:
        return self.decl.template_params or ()

    @property
    def patterns(self) -> tuple[ast.TemplateArg, ...]:
        return self.decl.specialization_args or ()


@dataclass(eq=False)
class StructTemplate:
    """A struct template: its declaration (the definition once seen), instances, explicit and
    partial specialisations, and the out-of-line definitions of its member functions."""

    decl: ast.StructDecl
    declared_in: Scope
    span: Span
    instances: dict[Key, t.StructType | None] = field(default_factory=dict)
    specializations: dict[Key, ast.StructDecl] = field(default_factory=dict)
    partial: list[PartialSpecialization] = field(default_factory=list)
    out_of_line: list[ast.FunctionDecl] = field(default_factory=list)

    @property
    def name(self) -> str:
        assert self.decl.name is not None
        return self.decl.name

    def __str__(self) -> str:  # an argument of a template template parameter, as `show` writes it
        return self.name


class TemplateHost(Protocol):
    """What instantiation needs of the declaration checker."""

    def declare_struct(self, decl: ast.StructDecl, entity: TypeEntity) -> None: ...

    def function_signature(self, decl: ast.FunctionDecl, method_of: t.StructType | None,
                           template_args: Key) -> FunctionEntity | None: ...

    def define(self, decl: ast.FunctionDecl, entity: FunctionEntity) -> None: ...

    def define_member(self, decl: ast.FunctionDecl, struct: t.StructType) -> None: ...

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
        self.deduction_failure: str | None = None
        """Why the last `function_instance` that gave None could not deduce its arguments, in clang's
        words ("deduced conflicting types for parameter 'T' ('int' vs. 'float')"); None when it did."""

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
            self._partial_specialization(template, decl, span)
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

    def _partial_specialization(self, template: StructTemplate, decl: ast.StructDecl, span: Span) -> None:
        """Record `template<...> struct S<patterns> {...}`: each parameter must appear in the patterns
        (C++: deducible), and the patterns must fit the primary template's parameters."""
        primary = template.decl.template_params or ()
        patterns = decl.specialization_args or ()
        if len(patterns) > len(primary):
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"too many template arguments for '{template.name}' "
                            f"({len(patterns)} given, at most {len(primary)})")
            return
        names = {p.name for p in decl.template_params or ()}
        unused = [p for p in decl.template_params or () if not any(_mentions(a, {p.name}) for a in patterns)]
        if unused and len(unused) == len(decl.template_params or ()):
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"partial specialisation of '{template.name}' does not use "
                            "any of its template parameters (for these arguments write 'template<>')")
            return
        if unused:   # clang and DXC warn and never use it
            self.ctx.report(codes.UNUSABLE_PARTIAL_SPECIALIZATION, unused[0].span,
                            f"template parameter '{unused[0].name}' of this partial specialisation of "
                            f"'{template.name}' cannot be deduced (its arguments do not use it): the partial "
                            "specialisation is never used")
            return
        bare = [_bare_name(a) for a in patterns]
        if len(patterns) == len(primary) and all(b in names for b in bare) and len(set(bare)) == len(bare):
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"partial specialisation of '{template.name}' does not "
                            "specialise any template argument")   # it would match every argument list
            return
        partial = PartialSpecialization(decl, span)
        if any(self._partial_match(template, partial, key) is not None for key in template.instances):
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"partial specialisation of '{template.name}' after the "
                            "instantiation it would have been used for")
            return
        template.partial.append(partial)

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
        for param in own_params(decl):
            type_ = self.host.check_type(dataclasses.replace(param.type, array_dims=param.array_dims))
            if type_ is None:
                return
            param_types.append(type_)
        for entity in templates:
            params = entity.decl.template_params or ()
            if len(own_params(entity.decl)) != len(param_types):
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
                    and len(own_params(entity.decl)) == len(own_params(decl)):
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
            for variable, param in zip(own, own_params(decl)):
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
        partial_scope: Scope | None = None
        if key not in template.specializations and template.partial:
            chosen = self._choose_partial(template, key, ref.span, shown)
            if chosen is False:
                template.instances[key] = None
                return None
            if chosen is not None:
                decl, partial_scope = chosen
        if decl.members is None:
            self.ctx.report(codes.INVALID_TEMPLATE, ref.span, f"implicit instantiation of undefined template '{shown}'",
                            labels=[Label(template.span, "template is declared here")])
            template.instances[key] = None
            return None
        if key in template.specializations:
            scope = template.declared_in.child(ScopeKind.BLOCK, "template")
        elif partial_scope is not None:
            scope = partial_scope
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
                if decl is template.decl:
                    for definition in template.out_of_line:
                        self._define_out_of_line(template, definition, key, struct)
        return struct

    # ------------------------------------------------------------ partial specialisations

    def _choose_partial(self, template: StructTemplate, key: Key, span: Span,
                        shown: str) -> tuple[ast.StructDecl, Scope] | None | Literal[False]:
        """The partial specialisation `key` selects (its declaration and a scope naming its
        parameters), None for the primary template, False after an ambiguity (reported): C++'s
        rule, the matching specialisation more specialised than every other that matches."""
        matches = [(partial, bound) for partial in template.partial
                   if (bound := self._partial_match(template, partial, key)) is not None]
        if not matches:
            return None
        best = [m for m in matches if all(o is m or self._more_specialized(template, m[0], o[0]) for o in matches)]
        if len(best) != 1:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"ambiguous partial specialisations of '{template.name}' "
                            f"for '{shown}'",
                            labels=[Label(m[0].span, "partial specialisation matches") for m in matches])
            return False
        partial, deduced = best[0]
        scope = template.declared_in.child(ScopeKind.BLOCK, "template")
        for param in partial.params:
            scope.declare(self._parameter_symbol(param, deduced[param.name]))
        return partial.decl, scope

    def _partial_match(self, template: StructTemplate, partial: PartialSpecialization,
                       key: Key) -> dict[str, ArgValue] | None:
        """The values of the partial specialisation's parameters that make its patterns `key`, or None."""
        names = {p.name for p in partial.params}
        deduced: dict[str, ArgValue] = {}
        primary = template.decl.template_params or ()
        patterns = partial.patterns + tuple(p.default for p in primary[len(partial.patterns):])
        for index, (pattern, value) in enumerate(zip(patterns, key)):
            if pattern is None or not self._pattern_matches(template, primary[index], pattern, value, names, deduced):
                return None
        return deduced if all(p.name in deduced for p in partial.params) else None

    def _pattern_matches(self, template: StructTemplate, param: ast.TemplateParam, pattern: ast.TemplateArg,
                         value: ArgValue, names: set[str], deduced: dict[str, ArgValue]) -> bool:
        """Whether a written argument pattern is `value`, binding the parameters it names."""
        if isinstance(pattern, ast.NameExpr) and len(pattern.name) == 1 and pattern.name[0] in names:
            return _bind_value(pattern.name[0], value, deduced)
        if not _mentions(pattern, names):           # a fixed argument: it must be this very value
            with self._quiet(), self.ctx.scope_of(ScopeKind.BLOCK, scope=template.declared_in):
                fixed = self._argument(param, pattern, template.name)
            return fixed is not None and (fixed is value if isinstance(value, t.Type) else fixed == value)
        if isinstance(pattern, ast.TypeRef) and isinstance(value, t.Type):
            if pattern.array_dims:
                if not isinstance(value, t.ArrayType):
                    return False
                dim = pattern.array_dims[0]
                inner = dataclasses.replace(pattern, array_dims=pattern.array_dims[1:])
                if isinstance(dim, ast.NameExpr) and len(dim.name) == 1 and dim.name[0] in names:
                    if value.length is None or not _bind_value(dim.name[0], value.length, deduced):
                        return False
                elif dim is not None:
                    with self._quiet(), self.ctx.scope_of(ScopeKind.BLOCK, scope=template.declared_in):
                        length = self.host.constant(dim, t.UINT, "an array size")
                    if length != value.length:
                        return False
                return self._pattern_matches(template, param, inner, value.element, names, deduced)
            if len(pattern.name) == 1 and pattern.name[0] in names and pattern.template_args is None:
                return _bind_value(pattern.name[0], value, deduced)
            parts = _parts_of(pattern.name[-1], value, self.instance_of)
            args = pattern.template_args or ()
            if parts is None or len(args) != len(parts):
                return False
            part_param = ast.TemplateParam(pattern.span, "", None, None)
            for arg, part in zip(args, parts):
                kind = None if isinstance(part, t.Type) else ast.TypeRef(pattern.span, ("int",))
                if not self._pattern_matches(template, dataclasses.replace(part_param, kind=kind), arg, part, names,
                                             deduced):
                    return False
            return True
        return False

    def _more_specialized(self, template: StructTemplate, a: PartialSpecialization,
                          b: PartialSpecialization) -> bool:
        """C++'s partial ordering: `a` is at least as specialised as `b` when `b`'s patterns match
        `a`'s, each of `a`'s parameters taken as a unique (opaque) type or value."""
        bindings: dict[str, str] = {}
        general, specific = {p.name for p in b.params}, {p.name for p in a.params}
        return all(self._subsumes(template, g, s, general, specific, bindings) for g, s in zip(b.patterns, a.patterns))

    def _subsumes(self, template: StructTemplate, general: ast.TemplateArg | None, specific: ast.TemplateArg | None,
                  general_names: set[str], specific_names: set[str], bindings: dict[str, str]) -> bool:
        """Whether the pattern `general` matches the pattern `specific` (compared as written, a
        parameter of `general` standing for any one piece of `specific`)."""
        if general is None or specific is None:
            return general is specific
        bare = _bare_name(general)
        if bare is not None and bare in general_names:
            text = _written(specific)
            return bindings.setdefault(bare, text) == text
        if not _mentions(general, general_names):
            if _mentions(specific, specific_names):
                return False
            if isinstance(general, ast.TypeRef) and isinstance(specific, ast.TypeRef):
                with self._quiet(), self.ctx.scope_of(ScopeKind.BLOCK, scope=template.declared_in):
                    first, second = self.host.check_type(general), self.host.check_type(specific)
                return first is not None and first is second
            return _written(general) == _written(specific)
        if isinstance(general, ast.TypeRef) and isinstance(specific, ast.TypeRef):
            if general.name != specific.name or len(general.template_args or ()) != len(specific.template_args or ()) \
                    or len(general.array_dims) != len(specific.array_dims):
                return False
            return all(self._subsumes(template, g, s, general_names, specific_names, bindings)
                       for g, s in zip((*(general.template_args or ()), *general.array_dims),
                                       (*(specific.template_args or ()), *specific.array_dims)))
        return False

    # ------------------------------------------------------------ out-of-line member definitions

    def define_out_of_line(self, decl: ast.FunctionDecl, span: Span) -> None:
        """`template<typename T> T Box<T>::get() {...}`: the body of a member function of every
        instance of `Box` (made so far and later); its template parameters name the instance's
        arguments, in order, as C++ requires (`Box<T>` with the template's own parameter list)."""
        display = self._qualified_display(decl)
        found = self.ctx.scope.lookup_qualified(decl.name[:-2] + decl.name[-2:-1]) if len(decl.name) > 1 else []
        template = found[0].entity if found and isinstance(found[0].entity, StructTemplate) else None
        if template is None or len(decl.name) != 2 or decl.scope_args[0] is None:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"'{display}' is not a member of a struct template "
                            "that wgc can define out of line")
            return
        params = decl.template_params or ()
        written = decl.scope_args[0]
        primary = template.decl.template_params or ()
        matches = len(written) == len(primary) == len(params) and all(
            isinstance(arg, (ast.TypeRef, ast.NameExpr)) and arg.name == (param.name,)
            and not getattr(arg, "template_args", None) and not getattr(arg, "array_dims", ())
            for arg, param in zip(written, params))
        if not matches:
            self.ctx.report(codes.UNSUPPORTED_TEMPLATE, span,
                            f"out-of-line definition '{display}' must name the template's own parameters, in "
                            f"order ('{template.name}<{', '.join(p.name for p in primary)}>'); members of partial "
                            "specialisations are defined inside them")
            return
        members = [m for m in template.decl.members or () if isinstance(m, ast.FunctionDecl)
                   and m.name[-1] == decl.name[-1]]
        if not members:
            self.ctx.report(codes.UNDECLARED_IDENTIFIER, span, f"out-of-line definition of '{display}' does not "
                            f"match any member function of '{template.name}'",
                            labels=[Label(template.span, f"'{template.name}' is declared here")])
            return
        template.out_of_line.append(decl)
        for key, struct in list(template.instances.items()):
            if struct is not None and key not in template.specializations:
                self._define_out_of_line(template, decl, key, struct)

    def _define_out_of_line(self, template: StructTemplate, decl: ast.FunctionDecl, key: Key,
                            struct: t.StructType) -> None:
        if self.ctx.struct_scopes.get(struct) is None or self._chosen_partially(template, key):
            return
        scope = self.ctx.struct_scopes[struct].child(ScopeKind.BLOCK, "template")
        for param, value in zip(decl.template_params or (), key):
            scope.declare(self._parameter_symbol(param, value))
        member = dataclasses.replace(decl, template_params=None, scope_args=(), name=(struct.name, decl.name[-1]))
        with self._instantiating(f"'{struct.name}::{decl.name[-1]}'", decl.span) as ok:
            if ok:
                with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope), self.ctx.in_function(None):
                    self.host.define_member(member, struct)

    def _chosen_partially(self, template: StructTemplate, key: Key) -> bool:
        return any(self._partial_match(template, partial, key) is not None for partial in template.partial)

    @staticmethod
    def _qualified_display(decl: ast.FunctionDecl) -> str:
        parts = list(decl.name)
        for index, args in enumerate(decl.scope_args):
            if args is not None:
                parts[index] += "<" + ", ".join(_written(a) for a in args) + ">"
        return "::".join(parts)

    # ------------------------------------------------------------ qualified names through instances

    def lookup_scoped(self, name: tuple[str, ...], scope_args: ast.ScopeArgs, span: Span) -> list[Symbol] | None:
        """`ns::f`, `S::value`, `is_same<T, U>::value`, `Box<float>::make`: a scope part with
        template arguments is the instance they select (instantiated now), a typedef of a struct or
        of an instance is that struct; the next part is looked up inside. None after a reported
        error."""
        if len(name) == 1:
            return self.ctx.scope.lookup(name[0])
        root, start = self.ctx.scope, 0
        if name[0] == "":
            while root.kind is not ScopeKind.GLOBAL and root.parent is not None:
                root = root.parent
            start = 1
        found = root.lookup(name[start])
        for index in range(start, len(name) - 1):
            args = scope_args[index] if index < len(scope_args) else None
            if args is None:
                inner = inner_scope(found)
                entity = found[0].entity if len(found) == 1 else None
                if inner is None and isinstance(entity, TypeEntity) and isinstance(entity.type, t.StructType):
                    inner = self.ctx.struct_scopes.get(entity.type)   # a typedef of a struct or an instance
            else:
                entity = found[0].entity if found else None
                if isinstance(entity, TypeEntity) and isinstance(entity.type, t.StructType) \
                        and entity.type in self.instance_of:
                    entity = self.instance_of[entity.type][0]  # `S<U>::x` inside S's own body
                if not isinstance(entity, StructTemplate):
                    self.ctx.report(codes.INVALID_TEMPLATE, span, f"'{name[index]}' is not a struct template: it "
                                    "takes no template arguments")
                    return None
                struct = self.struct_type(entity, ast.TypeRef(span, (name[index],), args))
                if struct is None or not isinstance(struct, t.StructType):
                    return None
                inner = self.ctx.struct_scopes.get(struct)
            if inner is None:
                return []
            found = inner.local(name[index + 1])
        return found

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
        entity.instances[key] = None
        with self._instantiating(f"function template specialisation '{shown}'", span) as ok:
            if not ok:
                return None
            with self.ctx.scope_of(ScopeKind.BLOCK, scope=scope), self.ctx.in_function(None):
                instance = self.host.function_signature(decl, entity.method_of, key)
                entity.instances[key] = instance
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
        self.deduction_failure = None
        for param, arg_type in zip(own_params(entity.decl), arg_types):
            pattern = param.type
            if param.array_dims:
                pattern = dataclasses.replace(pattern, array_dims=param.array_dims)
            why: list[str] = []
            if not _match(pattern, arg_type, names, deduced, self.instance_of, why):
                self.deduction_failure = why[0] if why else _mismatch(pattern, arg_type)
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
                else:
                    self.deduction_failure = f"couldn't infer template argument '{param.name}'"
                return None
            if value is None:
                return None
            key.append(value)
            scope.declare(self._parameter_symbol(param, value))
        return tuple(key), scope

    def _parameter_symbol(self, param: ast.TemplateParam, value: ArgValue) -> Symbol:
        """What a template parameter names inside an instance: a type, a struct template, or a constant."""
        if isinstance(value, t.Type):
            return Symbol(param.name, SymbolKind.TYPE, TypeEntity(value), param.span)
        if isinstance(value, StructTemplate):
            return Symbol(param.name, SymbolKind.TYPE, value, param.span)
        kind = self.host.check_type(param.kind) if param.kind is not None else t.INT
        assert isinstance(value, int), "a non-type template argument is an integer constant"
        return Symbol(param.name, SymbolKind.ENUMERATOR, EnumeratorEntity(kind or t.INT, value), param.span)

    def _argument(self, param: ast.TemplateParam, arg: ast.TemplateArg, name: str) -> ArgValue | None:
        if param.template_params is not None:
            return self._template_argument(param, arg, name)
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

    def _template_argument(self, param: ast.TemplateParam, arg: ast.TemplateArg, name: str) -> StructTemplate | None:
        """The argument of a template template parameter: a struct template named without
        arguments, with as many parameters of the same kinds (C++ before 17 requires them equal)."""
        written = arg.name if isinstance(arg, (ast.TypeRef, ast.NameExpr)) else None
        symbols = self.ctx.scope.lookup_qualified(written) if written and not getattr(arg, "template_args", None) else []
        entity = symbols[0].entity if symbols else None
        if isinstance(entity, TypeEntity) and isinstance(entity.type, t.StructType) and entity.type in self.instance_of:
            entity = self.instance_of[entity.type][0]   # the template's own name inside its body
        if not isinstance(entity, StructTemplate):
            self.ctx.report(codes.INVALID_TEMPLATE, arg.span,
                            f"template argument for template template parameter '{param.name}' of '{name}' must be "
                            "a struct template, named without arguments")
            return None
        expected, given = param.template_params or (), entity.decl.template_params or ()
        if [_param_kind(p) for p in expected] != [_param_kind(p) for p in given]:
            self.ctx.report(codes.INVALID_TEMPLATE, arg.span,
                            f"struct template '{entity.name}' does not fit template template parameter "
                            f"'{param.name}' of '{name}': its template parameters differ",
                            labels=[Label(entity.span, f"'{entity.name}' is declared here")])
            return None
        return entity

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


def own_params(decl: ast.FunctionDecl) -> tuple[ast.Param, ...]:
    """The declared parameters, without `(void)`."""
    params = decl.params
    if len(params) == 1 and params[0].name is None and params[0].type.name == ("void",) and not params[0].array_dims:
        return ()
    return params


def _match(pattern: ast.TypeRef, type_: t.Type, names: set[str], deduced: dict[str, ArgValue],
           instance_of: dict[t.StructType, tuple[StructTemplate, Key]], why: list[str]) -> bool:
    """Deduce template parameters from one written parameter type; False when they conflict, with
    the reason in clang's words appended to `why`.

    Patterns that name no template parameter match anything here (the call's
    conversions decide); a pattern it cannot read deduces nothing.
    """
    if pattern.array_dims:
        if not isinstance(type_, t.ArrayType):
            if _mentions(pattern, names):
                why.append(_mismatch(pattern, type_))
                return False
            return True
        inner = dataclasses.replace(pattern, array_dims=pattern.array_dims[1:])
        dim = pattern.array_dims[0]
        if isinstance(dim, ast.NameExpr) and len(dim.name) == 1 and dim.name[0] in names:
            if type_.length is None:
                why.append(_mismatch(pattern, type_))
                return False
            if not _bind_value(dim.name[0], type_.length, deduced, why):
                return False
        return _match(inner, type_.element, names, deduced, instance_of, why)
    name = pattern.name
    if len(name) == 1 and name[0] in names and pattern.template_args is None:
        return _bind_value(name[0], type_, deduced, why)
    args = pattern.template_args
    if not args or not _mentions(pattern, names):
        return True
    if len(name) == 1 and name[0] in names and isinstance(type_, t.StructType) and type_ in instance_of:
        template, key = instance_of[type_]      # `H<T>` with H a template template parameter
        if not _bind_value(name[0], template, deduced, why):
            return False
        parts: list[ArgValue] | None = list(key)
    else:
        parts = _parts_of(name[-1], type_, instance_of)
    if parts is None:
        why.append(_mismatch(pattern, type_))
        return False
    for arg, part in zip(args, parts):
        if isinstance(arg, ast.TypeRef) and isinstance(part, t.Type):
            if not _match(arg, part, names, deduced, instance_of, why):
                return False
        elif isinstance(arg, ast.NameExpr) and len(arg.name) == 1 and arg.name[0] in names:
            if not _bind_value(arg.name[0], part, deduced, why):  # (a type parameter may parse as a name)
                return False
    return True


def _mismatch(pattern: ast.TypeRef, type_: t.Type) -> str:
    written = print_type(dataclasses.replace(pattern, modifiers=()))
    return f"could not match '{written}' against '{type_}'"


def _parts_of(written: str, type_: t.Type,
              instance_of: dict[t.StructType, tuple[StructTemplate, Key]]) -> list[ArgValue] | None:
    """The template arguments `type_` was built from, when it is a `written<...>` (vector, matrix,
    node object, resource or struct template instance); None when it is not one."""
    if written == "vector" and isinstance(type_, t.VectorType):
        return [type_.element, type_.count]
    if written == "matrix" and isinstance(type_, t.MatrixType):
        return [type_.element, type_.rows, type_.columns]
    if isinstance(type_, t.NodeObjectType) and type_.kind.value == written and type_.record is not None:
        return [type_.record]
    if isinstance(type_, t.ResourceType) and type_.kind.value == written and type_.element is not None:
        if type_.kind.multisampled and type_.sample_count:
            return [type_.element, type_.sample_count]   # `Texture2DMS<T, N>`; N = 0 may go unwritten
        return [type_.element]
    if isinstance(type_, t.StructType) and type_ in instance_of and instance_of[type_][0].name == written:
        return list(instance_of[type_][1])
    return None


def _param_kind(param: ast.TemplateParam) -> str:
    """How a template parameter is matched by a template template parameter's: its kind as written."""
    if param.template_params is not None:
        return "template<" + ", ".join(_param_kind(p) for p in param.template_params) + ">"
    return "typename" if param.kind is None else print_type(param.kind)


def _bare_name(arg: ast.TemplateArg) -> str | None:
    """`T` written alone (no template arguments, array sizes or scope), else None."""
    if isinstance(arg, ast.NameExpr) and len(arg.name) == 1 and not arg.scope_args:
        return arg.name[0]
    if isinstance(arg, ast.TypeRef) and len(arg.name) == 1 and arg.template_args is None and not arg.array_dims \
            and not arg.modifiers:
        return arg.name[0]
    return None


def _written(arg: ast.TemplateArg) -> str:
    """A template argument as written (spans aside), to compare patterns."""
    return print_type(arg) if isinstance(arg, ast.TypeRef) else print_expr(arg)


def _bind_value(name: str, value: ArgValue, deduced: dict[str, ArgValue], why: list[str] | None = None) -> bool:
    if name in deduced:
        previous = deduced[name]
        if previous is value or (not isinstance(value, t.Type) and previous == value):
            return True
        what = "types" if isinstance(value, t.Type) else "values"
        if why is not None:
            why.append(f"deduced conflicting {what} for parameter '{name}' ('{previous}' vs. '{value}')"
                       if what == "types" else f"deduced conflicting {what} for parameter '{name}' ({previous} vs. {value})")
        return False
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

