"""Semantic analysis, written types: from an AST `TypeRef` to an interned IR type.

Input: an `ast.TypeRef` (as written: `float3`, `vector<float, 3>`,
`RWStructuredBuffer<Rec>`, `ns::Rec`, `NodeOutput<Rec>`), the current scope,
and a callback that folds a template argument expression to an integer.
Output: a `wgc.types.Type`, or None after reporting why there is none
(WG0314 unknown type, WG0328 bad template arguments); a node object whose
record is not a non-empty struct is reported (WG0412) but still returned.
A user struct template's use (`Box<float>`) is instantiated by `templates`. Built-in inline ray
tracing types: `RaytracingAccelerationStructure` (a resource), `RayDesc` (`types.RAY_DESC`),
`RayQuery<F[, Q]>`.

Invariants: built-in names (scalars, vectors, matrices, resources, node
objects) are recognised before scope lookups only when no user declaration
shadows them; `half` and the min-precision types follow `-enable-16bit-types`
(dxc's SPIR-V mapping, `types.scalar_named`).
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from collections.abc import Callable

from wgc import codes
from wgc import types as t
from wgc.diagnostics import Label
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.sema.context import Context, ErroneousType, TypeEntity
from wgc.sema.rayquery import RAY_TYPEDEFS, check_type
from wgc.sema.scope import SymbolKind
from wgc.sema.templates import StructTemplate
from wgc.syntax import ast

ConstantInt = Callable[[ast.Expr, str], "int | None"]
"""Folds a template-argument expression to an int (reporting if it cannot); the str says what it is."""

_SHAPED = re.compile(r"^([a-z][a-z0-9_]*?)([1-4])(?:x([1-4]))?$")
_RESOURCES = {kind.value: kind for kind in t.ResourceKind}
_NODE_OBJECTS = {kind.value: kind for kind in t.NodeObjectKind}
_EMPTY_NODE_OBJECTS = tuple(kind for kind in t.NodeObjectKind if kind.is_empty)
"""`NodeObjectKind.is_empty`'s kinds (an identity test in a tuple: the property reads the enum's `value`,
itself a property, at each use)."""
_DEFAULT_ELEMENT = t.vector(t.FLOAT, 4)
_SIXTEEN_BIT_ONLY = ("int16_t", "uint16_t", "float16_t")


_SHAPES: dict[tuple[str, bool], t.Type] = {}
"""`builtin_scalar_or_shape`'s answers that are types (a bounded set: the scalar keywords and their
vector and matrix forms), by (name, enable_16bit_types)."""


def builtin_scalar_or_shape(name: str, enable_16bit_types: bool) -> t.Type | None:
    """`float`, `uint3`, `half2x2`, `min16float4`, ... or None if `name` is no such built-in."""
    found = _SHAPES.get((name, enable_16bit_types))
    if found is None:
        found = _scalar_or_shape(name, enable_16bit_types)
        if found is not None:
            _SHAPES[name, enable_16bit_types] = found
    return found


def _scalar_or_shape(name: str, enable_16bit_types: bool) -> t.Type | None:
    scalar = t.scalar_named(name, enable_16bit_types)
    if scalar is not None:
        return scalar
    match = _SHAPED.match(name)
    if match is None:
        return None
    element = t.scalar_named(match.group(1), enable_16bit_types)
    if element is None:
        return None
    if match.group(3) is None:
        return t.vector(element, int(match.group(2)))
    return t.matrix(element, int(match.group(2)), int(match.group(3)))


def resolve_type(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> t.Type | None:
    """The type `ref` denotes; reports and returns None when it denotes none."""
    name = ref.name
    if ref.template_args is None and not ref.array_dims and len(name) == 1:
        # `float4`, `uint`: the answer `_named_type` gives a built-in scalar, vector or matrix that no
        # declaration hides, without its calls (most of the types a program writes)
        sixteen = ctx.options.enable_16bit_types
        shaped = _SHAPES.get((name[0], sixteen))
        if shaped is not None and (sixteen or not name[0].startswith(_SIXTEEN_BIT_ONLY)) \
                and not ctx.scope.lookup(name[0]):
            return shaped
    type_ = _named_type(ctx, ref, constant_int)
    for dim in reversed(ref.array_dims):  # a template argument `float[4]`
        if type_ is None:
            return None
        if dim is None:
            ctx.report(codes.INVALID_ARRAY_SIZE, ref.span, "array size is missing")
            return None
        size = constant_int(dim, "array size")
        if size is None:
            return None
        if size <= 0:
            ctx.report(codes.INVALID_ARRAY_SIZE, dim.span, f"array size must be positive, not {size}")
            return None
        type_ = t.array(type_, size)
    return type_


def _named_type(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> t.Type | None:
    name = ref.name
    if len(name) == 1:
        symbols = ctx.scope.lookup(name[0])
        if not symbols:
            builtin = _builtin(ctx, ref, constant_int)
            if builtin is not NotImplemented:
                return builtin  # type: ignore[return-value]
    else:
        found = ctx.templates.lookup_scoped(name, ref.scope_args, ref.span) if ctx.templates is not None \
            else ctx.scope.lookup_qualified(name)
        if found is None:
            return None
        symbols = found
    if not symbols:
        if ctx.use_of_skipped(name[0], ref.span):
            return None
        suggestion = ctx.suggest(name[-1])
        notes = [f"did you mean '{suggestion}'?"] if suggestion else []
        ctx.report(codes.UNKNOWN_TYPE, ref.span, f"unknown type name '{'::'.join(name)}'", notes=notes)
        return None
    symbol = symbols[0]
    entity = symbol.entity
    if type(entity) is TypeEntity and ref.template_args is None:   # the common case, without the checks below
        return entity.type
    if symbol.kind is not SymbolKind.TYPE:
        ctx.report(codes.UNKNOWN_TYPE, ref.span, f"'{'::'.join(name)}' is a {symbol.kind.value}, not a type")
        return None
    if ref.template_args is not None and isinstance(entity, TypeEntity) and ctx.templates is not None \
            and entity.type in ctx.templates.instance_of:
        entity = ctx.templates.instance_of[entity.type][0]  # `S<U>` inside S's body: the template, not this instance
    if isinstance(entity, StructTemplate):
        return ctx.templates.struct_type(entity, ref)
    if ref.template_args is not None:
        ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{'::'.join(name)}' is not a template")
        return None
    entity = symbol.entity
    if isinstance(entity, ErroneousType):
        ctx.erroneous_use(ref.span)
        return None  # its declaration's error is reported
    assert isinstance(entity, TypeEntity)
    return entity.type


def _builtin(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> t.Type | None | object:
    """A built-in type, None after an error, or NotImplemented if the name is not built in."""
    name = ref.name[0]
    args = ref.template_args
    sixteen = ctx.options.enable_16bit_types
    if name in ("vector", "matrix"):
        return _vector_or_matrix(ctx, ref, constant_int)
    if name == "string" and args is None:
        return t.STRING
    if name == "void" and args is None:
        return t.VOID
    # the objects before the shapes: no object's name is a shape's (tests/test_sema_memos.py), and a name
    # that is no shape is not kept by `builtin_scalar_or_shape` (a regular expression match at each use)
    if name in _RESOURCES:
        return _resource(ctx, ref, _RESOURCES[name], constant_int)
    if name in _NODE_OBJECTS:
        return _node_object(ctx, ref, _NODE_OBJECTS[name], constant_int)
    shaped = builtin_scalar_or_shape(name, sixteen)
    if shaped is not None and not sixteen and name.startswith(_SIXTEEN_BIT_ONLY):
        ctx.report(codes.UNKNOWN_TYPE, ref.span, f"'{name}' is only available with -enable-16bit-types")
        return None
    if shaped is not None:
        if args is not None:
            ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{name}' is not a template")
            return None
        return shaped
    if name == "RayQuery":
        return _ray_query(ctx, ref, constant_int)
    if name == "RayDesc" and args is None:
        return t.RAY_DESC
    if name in RAY_TYPEDEFS and args is None:
        return t.UINT
    return NotImplemented


def _type_args(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> list[t.Type] | None:
    """Template arguments that must all be types."""
    result = []
    for arg in ref.template_args or ():
        if isinstance(arg, ast.NameExpr):
            # an unknown name where a type belongs parses as an expression
            arg = ast.TypeRef(arg.span, arg.name)
        if not isinstance(arg, ast.TypeRef):
            ctx.report(codes.INVALID_TEMPLATE, arg.span, f"template argument of '{ref.name[0]}' must be a type")
            return None
        resolved = resolve_type(ctx, arg, constant_int)
        if resolved is None:
            return None
        result.append(resolved)
    return result


def _vector_or_matrix(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> t.Type | None:
    name = ref.name[0]
    args = ref.template_args
    if args is None or not args:
        return t.vector(t.FLOAT, 4) if name == "vector" else t.matrix(t.FLOAT, 4, 4)
    expected = 2 if name == "vector" else 3
    if len(args) != expected or not isinstance(args[0], ast.TypeRef):
        shape = "vector<T, N>" if name == "vector" else "matrix<T, R, C>"
        ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{name}' takes template arguments {shape}")
        return None
    element = resolve_type(ctx, args[0], constant_int)
    if element is None:
        return None
    if not isinstance(element, t.ScalarType):
        ctx.report(codes.INVALID_TEMPLATE, args[0].span, f"'{name}' element must be a scalar type, not '{element}'")
        return None
    sizes = []
    for arg in args[1:]:
        if isinstance(arg, ast.TypeRef):
            ctx.report(codes.INVALID_TEMPLATE, arg.span, f"'{name}' size must be a constant, not a type")
            return None
        size = constant_int(arg, f"{name} size")
        if size is None:
            return None
        if not 1 <= size <= 4:
            ctx.report(codes.INVALID_TEMPLATE, arg.span, f"{name} size must be between 1 and 4, not {size}")
            return None
        sizes.append(size)
    return t.vector(element, sizes[0]) if name == "vector" else t.matrix(element, sizes[0], sizes[1])


def _resource(ctx: Context, ref: ast.TypeRef, kind: t.ResourceKind, constant_int: ConstantInt) -> t.Type | None:
    args = ref.template_args
    if not kind.has_element_type:
        if args is not None:
            ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{kind.value}' is not a template")
            return None
        return t.resource(kind, None)
    if not args:
        needs_arg = kind.value.endswith(("StructuredBuffer", "ConstantBuffer", "TextureBuffer")) or kind.multisampled
        if needs_arg:
            ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{kind.value}' needs an element type: {kind.value}<T>"
                       + (" or <T, SAMPLES>" if kind.multisampled else ""))
            return None
        return t.resource(kind, _DEFAULT_ELEMENT)
    sample_count = 0
    if kind.multisampled and len(args) == 2:
        # DXC: template<typename element, int count = 0>; the count is any constant int
        if isinstance(args[1], ast.TypeRef):
            ctx.report(codes.INVALID_TEMPLATE, args[1].span, f"'{kind.value}' sample count must be a constant, "
                       "not a type")
            return None
        count = constant_int(args[1], f"{kind.value} sample count")
        if count is None:
            return None
        sample_count, args = count, args[:1]
        ref = dataclasses.replace(ref, template_args=args)
    if len(args) != 1:
        takes = "one or two template arguments" if kind.multisampled else "one template argument"
        ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{kind.value}' takes {takes}")
        return None
    types = _type_args(ctx, ref, constant_int)
    if types is None:
        return None
    element = types[0]
    modifier = next((m for m in getattr(args[0], "modifiers", ()) if m in ("unorm", "snorm")), None)
    if kind in (t.ResourceKind.CONSTANT_BUFFER, t.ResourceKind.TEXTURE_BUFFER):
        if not isinstance(element, t.StructType):
            ctx.report(codes.INVALID_TEMPLATE, args[0].span, f"'{kind.value}' element must be a struct, not '{element}'")
            return None
    elif kind.is_texture or kind in (t.ResourceKind.BUFFER, t.ResourceKind.RW_BUFFER):
        if not isinstance(element, (t.ScalarType, t.VectorType)):
            ctx.report(codes.INVALID_TEMPLATE, args[0].span,
                       f"'{kind.value}' element must be a scalar or vector, not '{element}'")
            return None
    if contains_object(element):
        held = "a RayQuery" if contains_only_ray_queries(element) else "a resource"
        ctx.report(codes.INVALID_RESOURCE_USE, args[0].span, f"'{kind.value}' element cannot contain {held}")
        return None
    return t.resource(kind, element, modifier, sample_count)


def _node_object(ctx: Context, ref: ast.TypeRef, kind: t.NodeObjectKind, constant_int: ConstantInt) -> t.Type | None:
    args = ref.template_args
    if kind in _EMPTY_NODE_OBJECTS:
        if args is not None:
            ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{kind.value}' is not a template")
            return None
        return t.node_object(kind, None)
    if not args or len(args) != 1:
        ctx.report(codes.INVALID_TEMPLATE, ref.span, f"'{kind.value}' needs one record type: {kind.value}<Record>")
        return None
    types = _type_args(ctx, ref, constant_int)
    if types is None:
        return None
    if not _check_record(ctx, args[0], kind, types[0]):
        return None   # a record holding objects has no memory layout
    return t.node_object(kind, types[0])


def _check_record(ctx: Context, arg: ast.TemplateArg, kind: t.NodeObjectKind, record: t.Type) -> bool:
    """WG0412, wherever a node object type is written (as dxc's Sema does): the record must be a
    struct (not a scalar, vector, array or object) of non-zero size holding no object.  The type is still used, so
    that one bad record does not hide the rest of the declaration, except a record holding objects
    (False: it has no memory layout)."""
    if not isinstance(record, t.StructType):
        ctx.report(codes.INVALID_RECORD, arg.span, f"'{record}' is not valid as a node record type: a struct is required")
        return True
    if contains_object(record):   # dxc: "object ... is not allowed in node records"
        ctx.report(codes.INVALID_RECORD, arg.span,
                   f"record '{record}' of '{kind.value}' holds a resource or node object, which node records cannot hold")
        return False
    if layout_of(record, LayoutRule.SCALAR).size == 0:
        ctx.report(codes.INVALID_RECORD, arg.span,
                   f"record '{record}' of '{kind.value}' has zero size; use an Empty* node object instead",
                   labels=[Label(record.span, "zero sized record defined here")] if record.span is not None else [])
    return True


def _ray_query(ctx: Context, ref: ast.TypeRef, constant_int: ConstantInt) -> t.Type | None:
    """`RayQuery<RAY_FLAGS>` / `RayQuery<RAY_FLAGS, RAYQUERY_FLAGS>`: both constant `uint`s (DXC's
    template parameters `constRayFlags` and `RayQueryFlags`, the second defaulting to 0)."""
    args = ref.template_args
    if not args or len(args) > 2:
        ctx.report(codes.INVALID_TEMPLATE, ref.span,
                   "'RayQuery' takes one or two constant flag arguments: RayQuery<RAY_FLAGS[, RAYQUERY_FLAGS]>")
        return None
    flags = []
    for arg, what in zip(args, ("RayQuery ray flags", "RayQuery flags")):
        if isinstance(arg, ast.TypeRef):
            ctx.report(codes.INVALID_TEMPLATE, arg.span, "'RayQuery' flag argument must be a constant, not a type")
            return None
        value = constant_int(arg, what)
        # reported; the query still gets a type (flags 0), so its uses do not cascade into errors
        flags.append(0 if value is None else value & 0xFFFFFFFF)
    query = t.ray_query(*flags)
    check_type(ctx, query, ref.span, query_flags_literal=len(args) == 2 and isinstance(args[1], ast.IntLiteral))
    return query


def contains_ray_query(type_: t.Type) -> bool:
    """Whether a type is or holds a RayQuery (in an array or a struct field)."""
    if isinstance(type_, t.RayQueryType):
        return True
    if isinstance(type_, t.ArrayType):
        return contains_ray_query(type_.element)
    if isinstance(type_, t.StructType):
        return any(contains_ray_query(f.type) for f in type_.all_fields())
    return False


def contains_only_ray_queries(type_: t.Type) -> bool:
    """Whether the objects a type is or holds are all RayQuery objects (no resource or node object)."""
    if isinstance(type_, (t.ResourceType, t.NodeObjectType)):
        return False
    if isinstance(type_, t.ArrayType):
        return contains_only_ray_queries(type_.element)
    if isinstance(type_, t.StructType):
        return all(contains_only_ray_queries(f.type) for f in type_.all_fields())
    return True


def contains_object(type_: t.Type) -> bool:
    """Whether a type is or holds a resource, node object or RayQuery (none may be a struct field,
    a buffer or record element or a cbuffer member)."""
    kind = type(type_)   # identity tests: the type classes have no subclasses (wgc.types)
    if kind is t.ResourceType or kind is t.NodeObjectType or kind is t.RayQueryType:
        return True
    if type(type_) is t.ArrayType:   # narrows type_, as `kind is` cannot
        return contains_object(type_.element)
    if type(type_) is t.StructType:
        key = (len(type_.fields), type_.base)
        known = _HOLDS_OBJECT.get(type_)
        if known is None or known[0] != key:
            # own fields and the base's (memoized): a chain of N structs, each holding the one
            # before, is N steps, not N^2/2
            found = any(contains_object(f.type) for f in type_.fields) or \
                (type_.base is not None and contains_object(type_.base))
            known = _HOLDS_OBJECT[type_] = (key, found)
        return known[1]
    return False


_HOLDS_OBJECT: weakref.WeakKeyDictionary[t.Type, tuple[tuple[int, object], bool]] = weakref.WeakKeyDictionary()
"""`contains_object`'s answers for structs, with the shape they were computed for (fields are added as
a declaration is analysed): the same answer while the fields and base stay."""

