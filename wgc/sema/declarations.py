"""Semantic analysis, declarations: structs, enums, typedefs, namespaces, global
variables, cbuffers/tbuffers, resources and functions (with their bodies).

Input: AST declarations in source order (HLSL, like C, needs a name declared
before it is used; member functions see every member of their struct).
Output: symbols in the context's scopes, and the module's structs, enums,
globals and functions; binding requests for resources and uniform blocks
(assigned afterwards by `bindings`).

Decisions made here:
- A global without `static`/`groupshared` that is not a resource is a member
  of the implicit `$Globals` constant buffer (dxc's rule); `static const`
  globals with constant initialisers are folded (`Variable.constant`).
- `ConstantBuffer<T>`/`TextureBuffer<T>` and `cbuffer`/`tbuffer` become uniform
  block variables whose members are fields; `[[vk::push_constant]]` marks a
  push-constant block, `[[vk::shader_record_ext]]` (on a cbuffer or ConstantBuffer) a shader
  record: the node's local root arguments (it keeps its binding, which the AMDX target uses).
- Layouts: uniform blocks std140 (dxc's relaxed rules; `-fvk-use-dx-layout`:
  DX packing; `-fvk-use-scalar-layout`: scalar), structured buffers std430
  (or scalar), node records scalar; stored on the variables.
- A function that takes or returns a node object or record is `must_inline`.
- Under a shader profile (`-T ps_6_6`: `SemaOptions.entry_stage`), the function named `-E`
  (default `main`) gets an implicit `[Shader("<stage>")]`, as DXC adds one; a `[Shader]` of
  another stage on it is WG0391 (kept, as DXC keeps it).
- `[[vk::image_format("...")]]` must name one of dxc's formats (`IMAGE_FORMATS`, WG0340).
- Templates (`templates`) are instantiated on use, once per argument tuple, in
  the scope they were declared in; this checker declares their instances.
- `struct { ... };` inside a struct is an unnamed field whose fields are
  members of the enclosing struct (C11 anonymous structs, as dxc).
- `globallycoherent` only on UAVs and RWDispatchNodeInputRecord (WG0333).
- A variable whose type had errors is declared as an `InvalidDeclaration`, so
  its uses do not cascade into "undeclared identifier".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Label, Severity
from wgc.sema.bindings import BindingRequest
from wgc.sema.calls import FunctionCalls
from wgc.sema.context import (BlockMember, Context, EnumeratorEntity, ErroneousType, ErroneousVariable, FieldEntity,
                              FunctionEntity, FunctionState, NamespaceEntity, TypeEntity, node_handlers)
from wgc.sema.expr import ExpressionChecker, describe
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.sema.limits import MAX_STRUCT_NESTING
from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind
from wgc.sema.stmt import StatementChecker
from wgc.sema.templates import ArgValue, Templates, show
from wgc.sema.typeref import contains_object, contains_only_ray_queries, contains_ray_query
from wgc.source import Span
from wgc.syntax import ast

IMAGE_FORMATS = (
    "unknown", "rgba32f", "rgba16f", "r32f", "rgba8", "rgba8snorm", "rg32f", "rg16f", "r11g11b10f", "r16f",
    "rgba16", "rgb10a2", "rg16", "rg8", "r16", "r8", "rgba16snorm", "rg16snorm", "rg8snorm", "r16snorm",
    "r8snorm", "rgba32i", "rgba16i", "rgba8i", "r32i", "rg32i", "rg16i", "rg8i", "r16i", "r8i", "rgba32ui",
    "rgba16ui", "rgba8ui", "r32ui", "rgb10a2ui", "rg32ui", "rg16ui", "rg8ui", "r16ui", "r8ui", "r64ui", "r64i",
)
"""The spellings dxc accepts in `[[vk::image_format]]` (case-insensitive)."""
_DIRECTIONS = {"in": ir.Direction.IN, "out": ir.Direction.OUT, "inout": ir.Direction.INOUT}
_KEPT_MODIFIERS = frozenset({"globallycoherent", "precise", "row_major", "column_major", "nointerpolation",
                             "linear", "centroid", "noperspective", "sample", "uniform",
                             "vertices", "indices", "primitives", "payload"})
_NO_MODIFIERS: frozenset[str] = frozenset()
INTERPOLATION_MODIFIERS = frozenset({"nointerpolation", "noperspective", "linear", "centroid", "sample"})
GLOBALS_BLOCK = "$Globals"
_VARIABLE, _PARAMETER, _FIELD = SymbolKind.VARIABLE, SymbolKind.PARAMETER, SymbolKind.FIELD
_NAMED_SCOPES = (ScopeKind.NAMESPACE, ScopeKind.STRUCT)
_LOCAL, _STATIC, _PARAMETER_STORAGE, _IN = ir.Storage.LOCAL, ir.Storage.STATIC, ir.Storage.PARAMETER, ir.Direction.IN
"""Enum members that every local, parameter, field and function declaration uses, as module constants: an
enum member read through its class (`ir.Storage.LOCAL`) is a lookup at each use, dearer than a global's read."""


def _find_word(text: str, word: str, start: int, end: int) -> int:
    """Where `word` first occurs in `text[start:end]` as a whole word (what the regular expression
    `\bword\b` finds, for a `word` of word characters), or -1; without compiling an expression per
    name (a file declares thousands of names: they would churn `re`'s cache).  A character is a word
    character, as for `\\w`, when str.isalnum (Unicode's alphanumerics) or `_`: a third of the time of
    `re`'s fullmatch on one character."""
    at = text.find(word, start, end)
    if at < 0:
        return -1   # (no occurrence at all: no whole-word one either)
    first, last = word[:1], word[-1:]
    if not (first.isalnum() or first == "_") or not (last.isalnum() or last == "_"):
        match = re.search(rf"\b{re.escape(word)}\b", text[start:end])
        return start + match.start() if match else -1
    size = len(word)
    while at >= 0:
        stop = at + size
        if (at == start or not (text[at - 1].isalnum() or text[at - 1] == "_")) \
                and (stop >= end or not (text[stop].isalnum() or text[stop] == "_")):
            return at
        at = text.find(word, at + 1, end)
    return -1


class DeclarationChecker:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.templates = Templates(ctx, self)
        ctx.templates = self.templates
        self.calls = FunctionCalls(ctx, self.templates.function_instance)
        self.exprs = ExpressionChecker(ctx, self.calls)
        self.stmts = StatementChecker(ctx, self.exprs, self.declare, self.local_variables)
        self.binding_requests: list[BindingRequest] = []
        self._globals_block: ir.Variable | None = None
        self._spec_ids: dict[int, ir.Variable] = {}

    # ------------------------------------------------------------ dispatch

    def declare_all(self, decls: tuple[ast.Decl, ...]) -> None:
        for decl in decls:
            self.declare(decl)

    def declare(self, decl: ast.Decl) -> None:
        _HANDLERS[type(decl)](self, decl)

    def _EmptyDecl(self, decl: ast.EmptyDecl) -> None:
        pass

    def _StateObjectDecl(self, decl: ast.StateObjectDecl) -> None:
        pass  # root signatures and other subobjects carry no code

    def _add_symbol(self, symbol: Symbol, scope: Scope | None = None) -> bool:
        target = scope or self.ctx.scope
        clash = target.declare(symbol)
        if clash is None:
            return True
        self.ctx.report(codes.REDEFINITION, symbol.span, f"redefinition of '{symbol.name}'",
                        labels=[Label(clash.span, "previous definition is here")] if clash.span else [])
        return False

    def _name_span(self, span: Span, name: str | None, after: Span | None = None) -> Span:
        """The span of `name` inside a declaration's span (the whole span if not found), searched from
        the end of `after` when given (a function's return type: not in its attributes or comments)."""
        if not name:
            return span
        file, start, end = span.file, span.start, span.end
        if after is not None and after.file is file and start <= after.end <= end:
            start = after.end
        found = _find_word(file.text, name, start, end)
        return Span(file, found, found + len(name)) if found >= 0 else span

    # ------------------------------------------------------------ types

    def _StructDecl(self, decl: ast.StructDecl) -> t.StructType | None:
        if decl.template_params is not None or decl.specialization_args is not None:
            self._struct_template(decl)
            return None
        name = decl.name or "<anonymous struct>"
        existing = [s for s in self.ctx.scope.local(name) if s.kind is SymbolKind.TYPE] if decl.name else []
        struct: t.StructType | None = None
        if existing and isinstance(existing[0].entity, TypeEntity) and isinstance(existing[0].entity.type, t.StructType) \
                and not existing[0].entity.type.fields and existing[0].entity.scope is None:
            struct = existing[0].entity.type  # completing a forward declaration
        name_span = self._name_span(decl.span, decl.name)
        if struct is None:
            struct = t.StructType(name, attributes=tuple(a.name.lower() for a in decl.attributes), span=name_span)
            entity = TypeEntity(struct)
            if decl.name and not self._add_symbol(Symbol(name, SymbolKind.TYPE, entity, name_span)):
                return None
        else:
            entity = existing[0].entity
        if decl.members is None:
            return struct
        self.declare_struct(decl, entity)
        return struct

    def _struct_template(self, decl: ast.StructDecl) -> None:
        span = self._name_span(decl.span, decl.name)
        if decl.template_params is None:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"explicit specialisation of '{decl.name}' needs 'template<>'")
        elif decl.specialization_args is not None:
            self.templates.specialize_struct(decl, span)
        elif not decl.template_params:
            self.ctx.report(codes.INVALID_TEMPLATE, span, f"'template<>' before '{decl.name}', which names no template "
                            "arguments to specialise")
        else:
            self.templates.declare_struct_template(decl, span)

    def declare_struct(self, decl: ast.StructDecl, entity: TypeEntity) -> None:
        """The members of a struct (or of a struct template's instance) whose type is `entity.type`."""
        struct = entity.type
        assert isinstance(struct, t.StructType) and decl.members is not None
        base_scope = None
        if decl.base is not None:
            base = self.exprs.check_type(decl.base)
            if base is not None and not isinstance(base, t.StructType):
                self.ctx.report(codes.UNKNOWN_TYPE, decl.base.span, f"base {describe(base)} is not a struct")
            elif base is not None and self.ctx.struct_depths.get(base, 1) >= MAX_STRUCT_NESTING:
                self.ctx.too_deep_structs.add(struct)   # reported below (`_struct_depth`); the base is left out
                self.ctx.struct_depths[struct] = self.ctx.struct_depths[base] + 1
            elif base is not None:
                struct.base = base
                base_scope = self.ctx.struct_scopes.get(base)
        scope = Scope(ScopeKind.STRUCT, base_scope or self.ctx.scope, struct.name)
        if base_scope is not None:
            scope = Scope(ScopeKind.STRUCT, base_scope, struct.name)
            scope.lexical = self.ctx.scope
        entity.scope = scope
        self.ctx.struct_scopes[struct] = scope
        base_count = len(struct.base.all_fields()) if struct.base else 0
        if struct.base is not None:
            for index, field_ in enumerate(struct.base.all_fields()):
                scope.declare(Symbol(field_.name, SymbolKind.FIELD, FieldEntity(struct, index), field_.span))
        methods: list[tuple[ast.FunctionDecl, FunctionEntity]] = []
        with self.ctx.scope_of(ScopeKind.STRUCT, scope=scope):
            for member in decl.members:
                static = "static" in member.modifiers if isinstance(member, (ast.VarDecl, ast.FunctionDecl)) else False
                if isinstance(member, ast.VarDecl) and not static:
                    self._fields(struct, member, base_count)
                elif isinstance(member, ast.FunctionDecl):
                    entity_ = self._function_signature(member, method_of=None if static else struct)
                    if entity_ is not None and member.body is not None and not entity_.is_template:
                        methods.append((member, entity_))
                elif isinstance(member, ast.StructDecl) and member.name is None and member.members is not None:
                    self._anonymous_member(struct, member, base_count)
                else:
                    self.declare(member)
            for member, function_entity in methods:
                self._define(member, function_entity)
        self._struct_depth(struct)
        self.ctx.module.structs.append(struct)
        self.ctx.extents.append((decl.span, struct))

    def _struct_depth(self, struct: t.StructType) -> None:
        """Note how deep the struct nests (its fields' structs and its base, complete before it); the
        first one deeper than SPIR-V allows is WG0371, the deeper ones hold it.  A struct derived from
        one that deep was declared without its base (`too_deep_structs`): it counts one level more."""
        depths = self.ctx.struct_depths
        inner = [t.innermost_element(f.type) for f in struct.fields] + [struct.base]
        level = 1 + max((depths.get(s, 1) for s in inner if isinstance(s, t.StructType)), default=0)
        level = depths[struct] = max(level, depths.get(struct, 0))
        if level == MAX_STRUCT_NESTING + 1:
            self.ctx.report(codes.STRUCT_TOO_DEEP, struct.span,
                            f"struct '{struct.name}' nests {level} structs deep; SPIR-V allows {MAX_STRUCT_NESTING}")

    def _fields(self, struct: t.StructType, decl: ast.VarDecl, base_count: int) -> None:
        base_type = self._decl_type(decl.type)
        erroneous = self.ctx.erroneous_fields.setdefault(struct, set())
        if base_type is None:
            erroneous.update(d.name for d in decl.declarators)
            return
        modifiers = decl.modifiers
        if modifiers:
            self._check_coherent(decl, base_type)  # reported; the field is kept
        for declarator in decl.declarators:
            type_ = self._with_dims(base_type, declarator.array_dims, allow_unsized=False, span=declarator.span)
            if type_ is None:
                erroneous.add(declarator.name)
                continue
            span = self._name_span(declarator.span, declarator.name)
            # node objects may be fields (dxc; `target` refuses aggregates of them, WG0454); resources
            # too, reported where the struct is used (`analyze`) or as a node record (`nodes`), as DXC does
            if contains_object(type_) and not contains_only_node_objects(type_):
                struct.object_fields.append(t.Field(declarator.name, type_, None, None, span))
                if not contains_only_ray_queries(type_):
                    erroneous.add(declarator.name)   # `s.field` adds nothing to the error at the struct's use
                    continue
                # a RayQuery field is a field (DXC): refused in laid-out memory (`analyze`, `nodes`), a
                # target limit elsewhere (`target`, WG0633)
            if type_ is t.VOID:
                self.ctx.report(codes.INVALID_DECLARATION, span, f"field '{declarator.name}' cannot be void")
                erroneous.add(declarator.name)
                continue
            semantic = next((a.name for a in declarator.annotations if isinstance(a, ast.Semantic)), None) \
                if declarator.annotations else None
            row_major = True if "row_major" in modifiers else False if "column_major" in modifiers else None
            index = base_count + len(struct.fields)
            inherited = self.ctx.scope.local(declarator.name)
            if inherited and isinstance(inherited[0].entity, FieldEntity) and inherited[0].entity.index < base_count:
                self.ctx.scope.hide(declarator.name)  # C++ name lookup: the derived member hides the base's
            if self._add_symbol(Symbol(declarator.name, _FIELD, FieldEntity(struct, index), span)):
                struct.fields.append(t.Field(declarator.name, type_, semantic, row_major, span,
                                             frozenset(modifiers) & INTERPOLATION_MODIFIERS if modifiers
                                             else _NO_MODIFIERS))

    def _anonymous_member(self, struct: t.StructType, decl: ast.StructDecl, base_count: int) -> None:
        """`struct { uint3 grid : SV_DispatchGrid; };` inside a struct: an unnamed field whose own
        fields are members of the enclosing struct (`ExpressionChecker.member` looks inside)."""
        inner = self._StructDecl(decl)
        if inner is not None:
            struct.fields.append(t.Field("", inner, None, None, decl.span))

    def _EnumDecl(self, decl: ast.EnumDecl) -> None:
        underlying = t.INT
        if decl.base is not None:
            base = self.exprs.check_type(decl.base)
            if isinstance(base, t.ScalarType) and base.is_integer:
                underlying = base
            elif base is not None:
                self.ctx.report(codes.UNKNOWN_TYPE, decl.base.span,
                                f"enum underlying type must be an integer type, not {describe(base)}")
        name = decl.name or "<anonymous enum>"
        name_span = self._name_span(decl.span, decl.name)
        enum = t.EnumType(name, underlying, decl.scoped, span=name_span)
        scope = self.ctx.scope.child(ScopeKind.STRUCT, name)
        if decl.name and not self._add_symbol(Symbol(name, SymbolKind.TYPE, TypeEntity(enum, scope), name_span)):
            return
        next_value = 0
        for member in decl.members:
            if member.value is not None:
                value = self.exprs.constant_int(member.value, f"value of enumerator '{member.name}'")
                next_value = value if value is not None else next_value
            enum.members[member.name] = next_value
            symbol = Symbol(member.name, SymbolKind.ENUMERATOR, EnumeratorEntity(enum, next_value), member.span)
            self._add_symbol(symbol, scope)
            if not decl.scoped:
                self._add_symbol(Symbol(member.name, SymbolKind.ENUMERATOR, EnumeratorEntity(enum, next_value),
                                        member.span))
            next_value += 1
        self.ctx.module.enums.append(enum)

    def _TypedefDecl(self, decl: ast.TypedefDecl) -> None:
        base = self._decl_type(decl.type)
        for declarator in decl.declarators:
            type_ = None if base is None else \
                self._with_dims(base, declarator.array_dims, allow_unsized=False, span=declarator.span)
            span = self._name_span(declarator.span, declarator.name)
            # after an error the name is declared all the same: its uses add no "unknown type" errors
            entity = TypeEntity(type_) if type_ is not None else ErroneousType(declarator.name)
            self._add_symbol(Symbol(declarator.name, SymbolKind.TYPE, entity, span))

    def _NamespaceDecl(self, decl: ast.NamespaceDecl) -> None:
        found = self.ctx.scope.local(decl.name)
        if found and found[0].kind is SymbolKind.NAMESPACE:
            scope = found[0].entity.scope
        else:
            scope = self.ctx.scope.child(ScopeKind.NAMESPACE, decl.name)
            if not self._add_symbol(Symbol(decl.name, SymbolKind.NAMESPACE, NamespaceEntity(scope),
                                           self._name_span(decl.span, decl.name))):
                return
        with self.ctx.scope_of(ScopeKind.NAMESPACE, scope=scope):
            self.declare_all(decl.decls)

    def _decl_type(self, ref: ast.TypeRef | ast.StructType) -> t.Type | None:
        if isinstance(ref, ast.StructType):
            return self._StructDecl(ref.decl)
        return self.exprs.check_type(ref)

    def _with_dims(self, type_: t.Type, dims: tuple[ast.Expr | None, ...], allow_unsized: bool,
                   init: ast.Expr | None = None, span: Span | None = None) -> t.Type | None:
        if not dims:
            return type_
        for position, dim in reversed(list(enumerate(dims))):
            if dim is None:
                if position == 0 and isinstance(init, ast.InitList):
                    length = self.exprs.unsized_length(init, type_)
                    if length is None:
                        return None
                    type_ = t.array(type_, length)
                    continue
                if not allow_unsized or position != 0:
                    self.ctx.report(codes.INVALID_ARRAY_SIZE, span, "array size is missing")
                    return None
                type_ = t.array(type_, None)
                continue
            found = self.exprs.constant(dim, "array size")
            if found is None:
                return None
            size = found[1]
            if isinstance(size, bool) or not isinstance(size, int):
                self.ctx.report(codes.INVALID_ARRAY_SIZE, dim.span,
                                f"array size must be an integer, not {describe(found[0].type)}")
                return None
            if size <= 0:
                self.ctx.report(codes.INVALID_ARRAY_SIZE, dim.span, f"array size must be positive, not {size}")
                return None
            elements = size * _element_count(type_)
            if elements > MAX_ARRAY_ELEMENTS:
                what = f"array size {size}" if elements == size else f"array of {elements} elements ({size} x {elements // size})"
                self.ctx.report(codes.INVALID_ARRAY_SIZE, dim.span,
                                f"{what} is too large; SPIR-V counts at most {MAX_ARRAY_ELEMENTS} (2^32-1)")
                return None
            if _array_levels(type_) + 1 > MAX_ARRAY_LEVELS:
                self.ctx.report(codes.INVALID_ARRAY_SIZE, dim.span,
                                f"arrays of arrays nested more than {MAX_ARRAY_LEVELS} deep; SPIR-V access chains "
                                "reach at most 255 levels (2 more for a matrix's components)")
                return None
            type_ = t.array(type_, size)
        return type_

    # ------------------------------------------------------------ variables

    def _VarDecl(self, decl: ast.VarDecl) -> None:
        base = self._decl_type(decl.type)
        if base is not None and not self._check_coherent(decl, base):
            base = None
        modifiers = set(decl.modifiers)
        attributes = self.stmts._attributes(decl.attributes)
        for declarator in decl.declarators:
            if base is not None:
                self._global(decl, declarator, base, modifiers, attributes)
            if not self.ctx.scope.local(declarator.name):   # its declaration had an error
                self._erroneous_variable(declarator)

    def _image_format(self, attributes: tuple[ir.Attribute, ...]) -> None:
        """WG0340: `[[vk::image_format("...")]]` must name one of dxc's formats."""
        attribute = ir.find_attribute(attributes, "vk::image_format")
        values = attribute.values() if attribute is not None else ()
        if attribute is None or not values or not isinstance(values[0], str):
            return
        written = values[0]
        if written.lower() not in IMAGE_FORMATS:
            import difflib  # only for a misspelt name: not imported by every compile

            close = difflib.get_close_matches(written.lower(), IMAGE_FORMATS, n=1, cutoff=0.6)
            self.ctx.report(codes.UNKNOWN_IMAGE_FORMAT, attribute.args[0].span,
                            f"unknown image format '{written}' in 'vk::image_format'",
                            notes=[f"did you mean '{close[0]}'?"] if close else [])

    def _check_coherent(self, decl: ast.VarDecl | ast.Param, base: t.Type) -> bool:
        """WG0333: `globallycoherent` only on UAVs and RWDispatchNodeInputRecord (dxc's rule), for
        variables, fields and parameters (node inputs of entries: `nodes`, WG0406; function results:
        `_function_signature`)."""
        if "globallycoherent" not in decl.modifiers or t.accepts_globallycoherent(base):
            return True
        if isinstance(decl, ast.Param):
            span = self._name_span(decl.span, decl.name) if decl.name else decl.span
        elif decl.declarators:
            span = self._name_span(decl.declarators[0].span, decl.declarators[0].name)
        else:
            span = decl.span
        self.ctx.report(codes.INVALID_DECLARATION, span,
                        f"'globallycoherent' is not a valid modifier for a declaration of type '{base}'",
                        notes=["'globallycoherent' can only be applied to UAV or RWDispatchNodeInputRecord objects"])
        return False

    def _variable_type(self, declarator: ast.Declarator, base: t.Type,
                       allow_unsized: bool) -> tuple[Span, t.Type | None]:
        """The span of a variable's name and its type with array dimensions (None after an error)."""
        span = self._name_span(declarator.span, declarator.name)
        type_ = self._with_dims(base, declarator.array_dims, allow_unsized=allow_unsized, init=declarator.init,
                                span=span)
        if type_ is t.VOID:
            self.ctx.report(codes.INVALID_DECLARATION, span, f"variable '{declarator.name}' cannot be void")
            return span, None
        return span, type_

    def _global(self, decl: ast.VarDecl, declarator: ast.Declarator, base: t.Type, modifiers: set[str],
                attributes: tuple[ir.Attribute, ...]) -> None:
        span, type_ = self._variable_type(declarator, base, allow_unsized=True)
        if type_ is None:
            return
        constant_id = ir.find_attribute(attributes, "vk::constant_id")
        if constant_id is not None:
            self._spec_constant(declarator, type_, span, modifiers, attributes, constant_id)
            return
        register = next((a for a in declarator.annotations if isinstance(a, ast.RegisterBinding)), None)
        vk_binding = next((a for a in attributes if a.key == "vk::binding"), None)
        push_constant = any(a.key == "vk::push_constant" for a in attributes)
        kept = frozenset(modifiers & _KEPT_MODIFIERS)
        element = type_.element if isinstance(type_, t.ArrayType) else type_
        if isinstance(element, t.NodeObjectType):
            self.ctx.report(codes.INVALID_RESOURCE_USE, span,
                            f"node object {describe(type_)} can only be a node shader parameter or a local variable")
            return
        if isinstance(element, t.ResourceType) and element.kind in (t.ResourceKind.CONSTANT_BUFFER,
                                                                      t.ResourceKind.TEXTURE_BUFFER):
            assert element.element is not None
            block_kind = element.kind.value
            rule = self._block_rule(block_kind, push_constant)
            variable = ir.Variable(declarator.name, element.element, ir.Storage.UNIFORM, span, const=True,
                                   attributes=attributes, modifiers=kept, push_constant=push_constant,
                                   shader_record=_shader_record(attributes, block_kind), block_kind=block_kind, layout_rule=rule,
                                   layout=layout_of(element.element, rule,
                                                    default_row_major=self.ctx.options.default_row_major))
            self._declare_global(variable, register, vk_binding)
            return
        if isinstance(element, t.ResourceType):
            if "groupshared" in modifiers:
                self.ctx.report(codes.INVALID_RESOURCE_USE, span, f"resource {describe(type_)} cannot be groupshared")
                return
            if declarator.init is not None:
                self.ctx.report(codes.INVALID_RESOURCE_USE, declarator.init.span,
                                f"global resource '{declarator.name}' cannot have an initializer")
                return
            layout = None
            if element.kind.value.endswith("StructuredBuffer") and element.element is not None:
                layout = layout_of(element.element, self._buffer_rule(),
                                   default_row_major=self.ctx.options.default_row_major)
            variable = ir.Variable(declarator.name, type_, ir.Storage.RESOURCE, span, attributes=attributes,
                                   modifiers=kept, layout=layout,
                                   layout_rule=self._buffer_rule() if layout is not None else None)
            self._image_format(attributes)
            self._declare_global(variable, register, vk_binding)
            return
        if contains_object(type_) and not contains_only_ray_queries(type_):
            held = "a node object" if contains_only_node_objects(type_) else "a resource"
            self.ctx.report(codes.INVALID_RESOURCE_USE, span, f"global of type {describe(type_)} holds {held}")
            return
        if contains_ray_query(type_) and not modifiers & {"static", "groupshared"}:
            # DXC accepts it, but a $Globals member is set by the application and laid out: no object
            self.ctx.report(codes.INVALID_RESOURCE_USE, span,
                            f"global {describe(type_)} '{declarator.name}' cannot be a constant-buffer member "
                            "($Globals): a RayQuery is a local, a static or a groupshared global")
            return
        if push_constant and isinstance(type_, t.StructType):
            # `[[vk::push_constant]] PC pc;`: dxc's plain form of a push-constant block
            variable = ir.Variable(declarator.name, type_, ir.Storage.UNIFORM, span, const=True, attributes=attributes,
                                   modifiers=kept, push_constant=True, block_kind="ConstantBuffer",
                                   layout_rule=self._block_rule(push_constant=True),
                                   layout=layout_of(type_, self._block_rule(push_constant=True),
                                                    default_row_major=self.ctx.options.default_row_major))
            self._declare_global(variable, register, vk_binding)
            return
        if "groupshared" in modifiers:
            if declarator.init is not None:
                self.ctx.report(codes.INVALID_DECLARATION, declarator.init.span,
                                f"groupshared variable '{declarator.name}' cannot have an initializer")
                return
            variable = ir.Variable(declarator.name, type_, ir.Storage.GROUPSHARED, span, attributes=attributes,
                                   modifiers=kept)
            self._declare_global(variable, None, None)
            return
        if "static" in modifiers:
            const = "const" in modifiers
            variable = ir.Variable(declarator.name, type_, ir.Storage.STATIC, span, const=const,
                                   attributes=attributes, modifiers=kept)
            if declarator.init is not None:
                variable.init = self.exprs.initializer(declarator.init, type_)
                if const and variable.init is not None:
                    variable.constant = self.exprs.fold_quietly(variable.init)
            elif const:
                self.ctx.report(codes.CONST_WITHOUT_INIT, span, f"const variable '{declarator.name}' needs an initializer")
            self._declare_global(variable, None, None)
            return
        self._implicit_uniform(declarator, type_, span, kept)

    def _spec_constant(self, declarator: ast.Declarator, type_: t.Type, span: Span, modifiers: set[str],
                       attributes: tuple[ir.Attribute, ...], constant_id: ir.Attribute) -> None:
        """`[[vk::constant_id(N)]] const T x = literal;`: a specialization constant, with dxc's rules (a
        non-static global of type bool, int, uint or float whose initializer is a constant of literals)."""
        name = declarator.name
        hidden = sorted(modifiers & {"static", "groupshared"})
        if hidden:
            self.ctx.report(codes.INVALID_SPEC_CONSTANT, span, f"specialization constant '{name}' cannot be "
                            f"'{hidden[0]}': the pipeline sets it, so it must be a plain global")
        if type_ not in (t.BOOL, t.INT, t.UINT, t.FLOAT):
            self.ctx.report(codes.INVALID_SPEC_CONSTANT, span, f"specialization constant '{name}' has type "
                            f"{describe(type_)}; it must be bool, int, uint or float")
        default: ir.ConstValue | None = None
        init: ir.Expr | None = None
        if declarator.init is None:
            self.ctx.report(codes.INVALID_SPEC_CONSTANT, span,
                            f"specialization constant '{name}' needs a default value (an initializer)")
        else:
            init = self.exprs.initializer(declarator.init, type_)
            default = self.exprs.fold_quietly(init) if init is not None else None
            if init is not None and default is None:
                self.ctx.report(codes.INVALID_SPEC_CONSTANT, declarator.init.span,
                                f"the default value of specialization constant '{name}' must be a constant of "
                                "literals (other specialization constants cannot be used)")
        values = constant_id.values()
        spec_id = values[0] if values and isinstance(values[0], int) and not isinstance(values[0], bool) else None
        if spec_id is None or not 0 <= spec_id < 1 << 32:
            self.ctx.report(codes.INVALID_SPEC_CONSTANT, constant_id.span,
                            f"'vk::constant_id' of '{name}' must be one integer from 0 to 4294967295")
            spec_id = None
        given = dict(self.ctx.options.spec_values).get(spec_id) if spec_id is not None else None
        if given is not None and default is not None and type_ is not t.FLOAT:
            default = bool(given) if type_ is t.BOOL else given     # `SemaOptions.spec_values`
        variable = ir.Variable(name, type_, ir.Storage.SPEC_CONSTANT, span, const=True, attributes=attributes,
                               init=init, spec_id=spec_id, spec_default=default)
        if spec_id is not None:
            earlier = self._spec_ids.setdefault(spec_id, variable)
            if earlier is not variable:
                self.ctx.report(codes.SPEC_ID_REUSED, constant_id.span,
                                f"specialization constant '{name}' reuses constant_id {spec_id}: the application "
                                "gives both one value", labels=[Label(earlier.span, f"'{earlier.name}' has it too")])
        self._declare_global(variable, None, None)

    def _implicit_uniform(self, declarator: ast.Declarator, type_: t.Type, span: Span, kept: frozenset[str]) -> None:
        """A plain global: a member of the `$Globals` constant buffer."""
        if declarator.init is not None:
            self._ignored_initializer(declarator.init, type_,
                                      f"initializer of global '{declarator.name}' is ignored: a global without "
                                      "'static' is a member of the $Globals constant buffer, which the application "
                                      "sets (declare it 'static const' for a constant)")
        block = self._globals_block
        if block is None:
            block = self._globals_block = ir.Variable(GLOBALS_BLOCK, t.StructType(GLOBALS_BLOCK, span=span),
                                                      ir.Storage.UNIFORM, span, const=True, block_kind="cbuffer")
            self.ctx.module.globals.append(block)
            self.binding_requests.append(BindingRequest(block, None, None, span))
        struct = block.type
        assert isinstance(struct, t.StructType)
        row_major = True if "row_major" in kept else False if "column_major" in kept else None
        index = len(struct.fields)
        if self._add_symbol(Symbol(declarator.name, SymbolKind.VARIABLE, BlockMember(block, index), span)):
            struct.fields.append(t.Field(declarator.name, type_, None, row_major, span))

    def _ignored_initializer(self, init: ast.Expr, type_: t.Type, message: str) -> None:
        """An initializer that dxc checks and then drops (a constant-buffer member's): check it, warn."""
        if self.exprs.initializer(init, type_) is not None:
            self.ctx.report(codes.IGNORED_INITIALIZER, init.span, message)

    def release(self) -> None:
        """Drop the checkers, which point back at this one (bound methods, `Templates.host`), once the
        analysis is over (see `Context.release`)."""
        del self.templates, self.calls, self.exprs, self.stmts

    def finish(self) -> None:
        """Work that needs every declaration: the layout of `$Globals` (layouts are cached per type,
        so it is computed once, complete)."""
        block = self._globals_block
        if block is not None:
            block.layout_rule = self._block_rule()
            block.layout = layout_of(block.type, block.layout_rule, default_row_major=self.ctx.options.default_row_major)

    def _declare_global(self, variable: ir.Variable, register: ast.RegisterBinding | None,
                        vk_binding: ir.Attribute | None) -> None:
        if not self._add_symbol(Symbol(variable.name, SymbolKind.VARIABLE, variable, variable.span)):
            return
        self.ctx.module.globals.append(variable)
        if variable.storage in (ir.Storage.RESOURCE, ir.Storage.UNIFORM):
            self.binding_requests.append(BindingRequest(variable, register, vk_binding, variable.span))

    def _block_rule(self, block_kind: str = "cbuffer", push_constant: bool = False) -> LayoutRule:
        """dxc's rules: cbuffer/ConstantBuffer std140 (or DX packing); tbuffer/TextureBuffer and push
        constants std430, like storage buffers; -fvk-use-scalar-layout makes them all scalar."""
        if push_constant or block_kind in ("tbuffer", "TextureBuffer"):
            return self._buffer_rule()
        if self.ctx.options.use_scalar_layout:
            return LayoutRule.SCALAR
        return LayoutRule.DX if self.ctx.options.use_dx_layout else LayoutRule.STD140

    def _buffer_rule(self) -> LayoutRule:
        return LayoutRule.SCALAR if self.ctx.options.use_scalar_layout else LayoutRule.STD430

    def _BufferDecl(self, decl: ast.BufferDecl) -> None:
        span = self._name_span(decl.span, decl.name)
        struct = t.StructType(decl.name, span=span)
        attributes = self.stmts._attributes(decl.attributes)
        variable = ir.Variable(decl.name, struct, ir.Storage.UNIFORM, span, const=True, attributes=attributes,
                               shader_record=_shader_record(attributes, decl.keyword), block_kind=decl.keyword)
        if not self._add_symbol(Symbol(decl.name, SymbolKind.VARIABLE, variable, span)):
            return
        for member in decl.members:
            base = self._decl_type(member.type)
            for declarator in member.declarators:
                type_ = None if base is None else \
                    self._with_dims(base, declarator.array_dims, allow_unsized=False, span=declarator.span)
                member_span = self._name_span(declarator.span, declarator.name)
                if type_ is not None and contains_object(type_):
                    held = "hold a RayQuery" if contains_only_ray_queries(type_) else "be a resource"
                    self.ctx.report(codes.INVALID_RESOURCE_USE, member_span,
                                    f"{decl.keyword} member '{declarator.name}' cannot {held} ('{type_}')")
                    type_ = None
                if type_ is None:
                    self._erroneous_variable(declarator)
                    continue
                if declarator.init is not None:
                    self._ignored_initializer(declarator.init, type_,
                                              f"initializer of {decl.keyword} member '{declarator.name}' is ignored: "
                                              "the application sets the buffer's contents")
                row_major = True if "row_major" in member.modifiers else (
                    False if "column_major" in member.modifiers else None)
                index = len(struct.fields)
                symbol = Symbol(declarator.name, _VARIABLE, BlockMember(variable, index), member_span)
                if self._add_symbol(symbol):
                    struct.fields.append(t.Field(declarator.name, type_, None, row_major, member_span))
        variable.layout_rule = self._block_rule(decl.keyword)
        variable.layout = layout_of(struct, variable.layout_rule,
                                    default_row_major=self.ctx.options.default_row_major)
        self.ctx.module.globals.append(variable)
        register = next((a for a in decl.annotations if isinstance(a, ast.RegisterBinding)), None)
        vk_binding = next((a for a in variable.attributes if a.key == "vk::binding"), None)
        self.binding_requests.append(BindingRequest(variable, register, vk_binding, span))

    def local_variables(self, decl: ast.VarDecl) -> list[ir.Stmt]:
        start = len(self.ctx.diagnostics)
        base = self._decl_type(decl.type)
        written = decl.modifiers
        if base is not None and written:
            self._check_coherent(decl, base)
        if base is None or len(self.ctx.diagnostics) > start and \
                any(d.severity >= Severity.ERROR for d in self.ctx.diagnostics[start:]):
            for declarator in decl.declarators:
                self._erroneous_variable(declarator)
            return []
        modifiers = set(written) if written else _NO_MODIFIERS   # (most locals have none)
        kept = frozenset(modifiers & _KEPT_MODIFIERS) if written else _NO_MODIFIERS
        result: list[ir.Stmt] = []
        for declarator in decl.declarators:
            span, type_ = self._variable_type(declarator, base, allow_unsized=False)
            if type_ is None:
                self._erroneous_variable(declarator)
                continue
            if "groupshared" in modifiers:
                self.ctx.report(codes.INVALID_DECLARATION, span, "groupshared variables must be declared at global scope")
                self._erroneous_variable(declarator)
                continue
            const = "const" in modifiers
            storage = _STATIC if "static" in modifiers else _LOCAL
            variable = ir.Variable(declarator.name, type_, storage, span, const=const, modifiers=kept)
            init = None
            if declarator.init is not None:
                init = self.exprs.initializer(declarator.init, type_)
                if const and init is not None:
                    value = self.exprs.fold_quietly(init)
                    variable.constant = value
            elif const:
                self.ctx.report(codes.CONST_WITHOUT_INIT, span, f"const variable '{declarator.name}' needs an initializer")
            if isinstance(type_, t.ResourceType) and declarator.init is None:
                # still declared, so later uses do not add "undeclared identifier" errors
                self.ctx.report(codes.INVALID_RESOURCE_USE, span,
                                f"local '{declarator.name}' of type {describe(type_)} must be initialized")
                self._add_symbol(Symbol(declarator.name, _VARIABLE, variable, span))
                continue
            if self._add_symbol(Symbol(declarator.name, _VARIABLE, variable, span)):
                if storage is _STATIC:
                    variable.init = init
                result.append(ir.VarDecl(declarator.span, variable, init))
        return result

    def _erroneous_variable(self, declarator: ast.Declarator) -> None:
        """Declare a variable whose declaration had an error, so its uses add no "undeclared" errors."""
        span = self._name_span(declarator.span, declarator.name)
        self._add_symbol(Symbol(declarator.name, SymbolKind.VARIABLE, ErroneousVariable(declarator.name), span))

    # ------------------------------------------------------------ functions

    def _FunctionDecl(self, decl: ast.FunctionDecl) -> None:
        if decl.specialization_args is not None or decl.template_params == ():
            span = self._name_span(decl.span, decl.name[-1])
            if decl.template_params is None:
                self.ctx.report(codes.INVALID_TEMPLATE, span,
                                f"explicit specialisation of '{'::'.join(decl.name)}' needs 'template<>'")
            else:
                self.templates.specialize_function(decl, span)
            return
        if decl.scope_args:
            span = self._name_span(decl.span, decl.name[-1])
            if decl.template_params:
                self.templates.define_out_of_line(decl, span)
            else:
                self.ctx.report(codes.INVALID_TEMPLATE, span, f"a member of '{decl.name[0]}<...>' defined out of "
                                "line needs its 'template<...>' header")
            return
        if len(decl.name) > 1:
            self._out_of_line_member(decl)
            return
        entity = self._function_signature(decl, method_of=None)
        if entity is not None and decl.body is not None and not entity.is_template:
            self._define(decl, entity)

    def _out_of_line_member(self, decl: ast.FunctionDecl) -> None:
        owner = self.ctx.scope.lookup_qualified(decl.name[:-1])
        if not owner or not isinstance(owner[0].entity, TypeEntity) or not isinstance(owner[0].entity.type, t.StructType):
            self.ctx.report(codes.UNDECLARED_IDENTIFIER, decl.span, f"'{'::'.join(decl.name[:-1])}' is not a struct")
            return
        self.define_member(decl, owner[0].entity.type)

    def define_member(self, decl: ast.FunctionDecl, struct: t.StructType) -> None:
        """The out-of-line definition `decl` (`S::f`) of a member function declared in `struct`
        (also for `templates.TemplateHost`: a member of a struct template's instance)."""
        display = "::".join(decl.name)
        members = self.ctx.struct_scopes[struct]
        scope, kind = members, ScopeKind.STRUCT
        if self.ctx.scope.parent is members:
            scope, kind = self.ctx.scope, ScopeKind.BLOCK  # an instance's template parameters, in the struct
        with self.ctx.scope_of(kind, scope=scope):
            entity = self._function_signature(decl, method_of=struct, qualified=True, members=members)
        if entity is None:
            self.ctx.report(codes.UNDECLARED_IDENTIFIER, decl.span, f"out-of-line definition of '{display}' does not "
                            "match any declaration in the struct")
            return
        if decl.body is not None:
            with self.ctx.scope_of(kind, scope=scope):
                self._define(decl, entity)

    def _function_signature(self, decl: ast.FunctionDecl, method_of: t.StructType | None,
                            qualified: bool = False, template_args: tuple[ArgValue, ...] = (),
                            members: Scope | None = None) -> FunctionEntity | None:
        """Declare (or find the earlier declaration of) a function; its body is checked by `_define`.
        `members`: where an out-of-line definition's declaration is (default: the current scope)."""
        name = decl.name[-1]
        prefix = "::".join(_scope_path(self.ctx.scope))
        display = f"{prefix}::{name}" if prefix else name
        if template_args:
            display += f"<{show(template_args)}>"
        span = self._name_span(decl.span, name, after=decl.return_type.span)
        if decl.template_params and not template_args:
            earlier = self.templates.prototype_of(decl, self.ctx.scope.local(name))
            if earlier is not None:  # the definition of a template declared before
                self.templates.define_template(earlier, decl)
                return earlier
            entity = FunctionEntity(decl, None, self.ctx.scope, method_of)
            self.ctx.scope.declare(Symbol(name, SymbolKind.FUNCTION, entity, span))
            return entity
        return_type = self.exprs.check_type(decl.return_type)
        if return_type is not None and "globallycoherent" in decl.modifiers and not t.accepts_globallycoherent(return_type):
            self.ctx.report(codes.INVALID_DECLARATION, span,
                            f"'globallycoherent' is not a valid modifier for a declaration of type '{return_type}'",
                            notes=["'globallycoherent' can only be applied to UAV or RWDispatchNodeInputRecord objects"])
        params: list[ir.Variable] = []
        defaults: list[ir.Expr | None] = []
        ok = return_type is not None
        failed: list[str] = []
        for param in _without_void(decl.params):
            variable, default = self._param(param)
            if variable is None:
                ok = False
                failed.append(param.name or "")
                continue
            params.append(variable)
            defaults.append(default)
        if not ok or return_type is None:
            # declared all the same, so calls do not add "undeclared identifier" errors
            broken = FunctionEntity(decl, None, self.ctx.scope, method_of)
            self.ctx.broken_function_names.add(name)
            if not template_args and not qualified:
                self.ctx.scope.declare(Symbol(name, SymbolKind.FUNCTION, broken, span))
            if return_type is not None and decl.body is not None and method_of is None:
                # the body's own errors are reported too (the broken parameters are declared erroneous)
                function = ir.Function(display, params, return_type, span, None, (), None, None)
                self._define(decl, FunctionEntity(decl, function, self.ctx.scope, redefinition=True),
                             erroneous=failed)
            return None
        param_types = [p.type for p in params]
        redefined = False
        for symbol in (members or self.ctx.scope).local(name):
            entity = symbol.entity
            if symbol.kind is SymbolKind.FUNCTION and isinstance(entity, FunctionEntity) and entity.function \
                    and [p.type for p in _own(entity.function)] == param_types and not template_args:
                if entity.defined and decl.body is not None:
                    self.ctx.report(codes.REDEFINITION, span, f"redefinition of '{display}'",
                                    labels=[Label(entity.function.span, "previous definition is here")])
                    if qualified:
                        return None
                    redefined = True  # its body is still checked (its errors are not hidden), then dropped
                    break
                if entity.function.return_type is not return_type:
                    self.ctx.report(codes.REDEFINITION, span, f"'{display}' redeclared with a different return type "
                                    f"({return_type} instead of {entity.function.return_type})",
                                    labels=[Label(entity.function.span, "previous declaration is here")])
                    return None
                if decl.body is not None:
                    # the definition's parameter names and attributes are the ones the body sees
                    entity.function.params[len(entity.function.params) - len(params):] = params
                    entity.function.span = span
                    entity.decl = decl
                return entity
        if qualified:
            return None
        if method_of is not None:
            this = ir.Variable("this", method_of, ir.Storage.PARAMETER, span, direction=ir.Direction.INOUT)
            params.insert(0, this)
        semantic = next((a.name for a in decl.annotations if isinstance(a, ast.Semantic)), None)
        attributes = self.stmts._attributes(decl.attributes)
        if method_of is None and not template_args and name == self.ctx.options.entry:
            attributes = self._profile_entry(display, attributes, span)
        function = ir.Function(display, params, return_type, span, None, attributes, semantic, method_of)
        is_entry = function.shader_kind is not None
        function.must_inline = not is_entry and (any(contains_node_object(p.type) or _unsized(p.type) for p in params)
                                                 or contains_node_object(return_type))
        entity = FunctionEntity(decl, function, self.ctx.scope, method_of, template_args=template_args,
                                redefinition=redefined)
        entity.defaults = defaults  # type: ignore[attr-defined]
        if not template_args and not redefined:
            self._add_symbol(Symbol(name, SymbolKind.FUNCTION, entity, span))
        return entity

    def _param(self, param: ast.Param) -> tuple[ir.Variable | None, ir.Expr | None]:
        type_ = self.exprs.check_type(param.type)
        if type_ is None:
            return None, None
        # `float a[]` (dxc accepts it): the function is inlined, the parameter takes its argument's size
        type_ = self._with_dims(type_, param.array_dims, allow_unsized=True, span=param.span)
        if type_ is None:
            return None, None
        written = param.modifiers
        if written and not isinstance(type_, t.NodeObjectType):
            self._check_coherent(param, type_)  # reported; the parameter is kept
        modifiers = set(written) if written else _NO_MODIFIERS   # (most parameters have none)
        directions = [m for m in written if m in _DIRECTIONS] if written else None
        direction = _DIRECTIONS[directions[0]] if directions else _IN
        span = self._name_span(param.span, param.name) if param.name else param.span
        if type_ is t.VOID:
            self.ctx.report(codes.INVALID_DECLARATION, span, "parameter cannot be void")
            return None, None
        # node objects may be out/inout (the function is then inlined, workgraph-rules.md §1.11); resources not
        if direction is not _IN and isinstance(type_, t.ResourceType):
            self.ctx.report(codes.INVALID_RESOURCE_USE, span,
                            f"{direction.value} parameter cannot have type {describe(type_)}")
            return None, None
        semantic = next((a.name for a in param.annotations if isinstance(a, ast.Semantic)), None) \
            if param.annotations else None
        layout = None
        if isinstance(type_, t.NodeObjectType) and type_.record is not None and isinstance(type_.record, t.StructType):
            layout = layout_of(type_.record, LayoutRule.SCALAR, default_row_major=self.ctx.options.default_row_major)
        variable = ir.Variable(param.name or "", type_, _PARAMETER_STORAGE, span, const="const" in modifiers,
                               direction=direction, semantic=semantic,
                               attributes=self.stmts._attributes(param.attributes) if param.attributes else (),
                               modifiers=frozenset(modifiers & _KEPT_MODIFIERS) if written else _NO_MODIFIERS,
                               layout=layout,
                               layout_rule=LayoutRule.SCALAR if layout is not None else None,
                               declaration=param.span)
        default = None
        if param.default is not None:
            default = self.exprs.initializer(param.default, type_)
        return variable, default

    def _profile_entry(self, name: str, attributes: tuple[ir.Attribute, ...], span: Span
                       ) -> tuple[ir.Attribute, ...]:
        """The attributes of the entry function of a non-library profile (`-T ps_6_6 -E main`): without
        [Shader] it is the profile's stage (an implicit `[Shader("pixel")]`, as DXC adds one); a
        [Shader] of another stage is WG0391 at that attribute (kept: DXC keeps it too)."""
        stage = self.ctx.options.entry_stage
        if stage is None:
            return attributes
        shader = ir.find_attribute(attributes, "shader")
        if shader is None:
            return (*attributes, ir.Attribute("shader", (ir.AttributeArg(stage, span),), span))
        written = shader.args[0].value if shader.args else None
        if isinstance(written, str) and written.lower() != stage:
            profile = self.ctx.options.profile
            self.ctx.report(codes.PROFILE_CONFLICTS_WITH_SHADER, shader.span,
                            f"entry function '{name}' is {_a(written)} {written} shader, but profile '{profile}' "
                            f"compiles {_a(stage)} {stage} shader", notes=[f"remove the [Shader(\"{written}\")] attribute, or compile "
                                                      "it with a library profile (-T lib_6_9)"])
        return attributes

    def _define(self, decl: ast.FunctionDecl, entity: FunctionEntity, erroneous: Sequence[str] = ()) -> None:
        """Check a function's body; `erroneous`: names of parameters whose declaration failed."""
        function = entity.function
        assert function is not None and decl.body is not None
        entity.defined = True
        this = function.params[0] if function.method_of is not None else None
        state = FunctionState(function, this=this)
        with self.ctx.scope_of(ScopeKind.FUNCTION, function.name) as scope, self.ctx.in_function(state):
            for name in erroneous:
                if name:
                    scope.declare(Symbol(name, SymbolKind.VARIABLE, ErroneousVariable(name), decl.span))
            for param in function.params:
                if param is this or not param.name:
                    continue
                clash = scope.declare(Symbol(param.name, _PARAMETER, param, param.span))
                if clash is not None:
                    self.ctx.report(codes.REDEFINITION, param.span, f"redefinition of parameter '{param.name}'",
                                    labels=[Label(clash.span, "previous definition is here")])
            function.body = self.stmts.body(decl.body)
        if not entity.redefinition:
            self.ctx.module.functions.append(function)
            self.ctx.extents.append((decl.span, function))

    # ------------------------------------------------------------ for templates (`templates.TemplateHost`)

    def function_signature(self, decl: ast.FunctionDecl, method_of: t.StructType | None,
                           template_args: tuple[ArgValue, ...]) -> FunctionEntity | None:
        return self._function_signature(decl, method_of, template_args=template_args)

    def define(self, decl: ast.FunctionDecl, entity: FunctionEntity) -> None:
        self._define(decl, entity)

    def check_type(self, ref: ast.TypeRef) -> t.Type | None:
        return self.exprs.check_type(ref)

    def constant(self, expr: ast.Expr, target: t.Type, what: str) -> ArgValue | None:
        converted = self.exprs.converted(expr, target, what)
        if converted is None:
            return None
        found = self.exprs.fold_required(converted, what)
        return None if found is None else found[1]  # type: ignore[return-value]


_HANDLERS = node_handlers(DeclarationChecker)


def _without_void(params: tuple[ast.Param, ...]) -> tuple[ast.Param, ...]:
    """`f(void)` declares no parameters."""
    if len(params) == 1 and params[0].name is None and params[0].type.name == ("void",) and not params[0].array_dims:
        return ()
    return params


def _unsized(type_: t.Type) -> bool:
    return isinstance(type_, t.ArrayType) and type_.length is None


def contains_only_node_objects(type_: t.Type) -> bool:
    """Whether the objects a type is or holds are all node objects (no resource)."""
    if isinstance(type_, (t.ResourceType, t.RayQueryType)):
        return False
    if isinstance(type_, t.ArrayType):
        return contains_only_node_objects(type_.element)
    if isinstance(type_, t.StructType):
        return all(contains_only_node_objects(f.type) for f in type_.all_fields())
    return True


def contains_node_object(type_: t.Type) -> bool:
    if isinstance(type_, t.NodeObjectType):
        return True
    if isinstance(type_, t.ArrayType):
        return contains_node_object(type_.element)
    if isinstance(type_, t.StructType):
        return any(contains_node_object(f.type) for f in type_.all_fields())
    return False


def _own(function: ir.Function) -> list[ir.Variable]:
    return function.params[1:] if function.method_of is not None else function.params


def _scope_path(scope: Scope) -> list[str]:
    """Names of the enclosing namespaces and structs, outermost first."""
    names: list[str] = []
    current: Scope | None = scope
    while current is not None:
        if current.kind in _NAMED_SCOPES and current.name:
            names.append(current.name)
        current = current.lexical or current.parent
    return list(reversed(names))


MAX_ARRAY_ELEMENTS = 2**32 - 1
"""SPIR-V array lengths are 32-bit constants; an array of arrays counts the product."""


MAX_ARRAY_LEVELS = 253
"""An access chain has at most 255 indexes: the array levels, plus a matrix's column and component."""


def _array_levels(type_: t.Type) -> int:
    levels = 0
    while isinstance(type_, t.ArrayType):
        levels += 1
        type_ = type_.element
    return levels


def _element_count(type_: t.Type) -> int:
    count = 1
    while isinstance(type_, t.ArrayType) and type_.length is not None:
        count *= type_.length
        type_ = type_.element
    return count


def _shader_record(attributes: tuple[ir.Attribute, ...], block_kind: str) -> bool:
    """Whether a uniform block is a shader record (`[[vk::shader_record_ext]]`/`_nv` on a cbuffer or
    ConstantBuffer; dxc ignores it elsewhere): a node's local root arguments."""
    return block_kind in ("cbuffer", "ConstantBuffer") and any(
        a.key in ("vk::shader_record_ext", "vk::shader_record_nv") for a in attributes)


def _a(word: str) -> str:
    """The indefinite article of `word` ("an amplification", "a pixel")."""
    return "an" if word[:1].lower() in "aeiou" else "a"
