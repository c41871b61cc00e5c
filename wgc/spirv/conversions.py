"""Conversions between IR types as SPIR-V instructions (SPIR-V back end).

Input: value ids with their IR types (numeric scalars, vectors and matrices; structs and arrays).
Output: the converted value's id, emitted in the open block of the module's builder.

Invariants and decisions:
- Numeric conversions go component by component (row-major for matrices): float <-> int by
  OpConvert*, widths by OpFConvert / OpSConvert / OpUConvert, signedness by OpBitcast, bool by
  comparison with zero (to bool) or OpSelect of 1 and 0 (from bool), as dxc.
- A scalar converts to a vector, matrix, array or struct by splatting; a derived struct to its base
  by its leading fields. Objects (node objects, resources) are never converted.
- Pure: no variables, no control flow; independent of the function being lowered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import types as t

from .places import is_object

if TYPE_CHECKING:
    from .lower import ModuleLowering


class Conversions:
    """Value conversions of one module."""

    def __init__(self, ml: ModuleLowering) -> None:
        self.ml = ml
        self.b = ml.b
        self.types = ml.types

    def convert(self, value: int, source: t.Type, target: t.Type) -> int:
        """Convert a value between IR types (numeric shapes and scalars, struct base prefixes)."""
        assert not is_object(target), "objects are bound, never converted (FunctionLowering.expr_Convert)"
        if source is target:
            return value
        src, dst = self.types.shape(source), self.types.shape(target)
        if src is dst:
            return value
        if isinstance(dst, t.StructType) or isinstance(dst, t.ArrayType):
            if isinstance(src, t.StructType) and isinstance(dst, t.StructType):
                parts = [self.b.emit("OpCompositeExtract", self.types.id(f.type), value, i)
                         for i, f in enumerate(dst.all_fields())]
                return self.b.emit("OpCompositeConstruct", self.types.id(dst), *parts)
            if t.is_numeric(src):                       # (S)0, (float[2])x: splat
                return self._splat_aggregate(value, src, dst)
            raise AssertionError(f"conversion from '{source}' to '{target}'")
        src_scalar, dst_scalar = t.element_scalar(src), t.element_scalar(dst)
        if src_scalar is None or dst_scalar is None:
            raise AssertionError(f"conversion from '{source}' to '{target}'")
        count = t.component_count(dst) or 1
        components = self.components(value, src, count)
        if len(components) == 1 and count > 1:
            components = components * count
        converted = [self.convert_scalar(c, src_scalar, dst_scalar) for c in components]
        return self.build(converted, dst)

    def _splat_aggregate(self, value: int, source: t.Type, target: t.Type) -> int:
        if isinstance(target, t.StructType):
            parts = [self.convert(value, source, f.type) for f in target.all_fields()]
        else:
            assert isinstance(target, t.ArrayType) and target.length is not None
            parts = [self.convert(value, source, target.element)] * target.length
        return self.b.emit("OpCompositeConstruct", self.types.id(target), *parts)

    def components(self, value: int, type_: t.Type, limit: int | None = None) -> list[int]:
        """The scalars of a scalar/vector/matrix value, row-major (the first `limit` of them)."""
        shape = self.types.shape(type_)
        scalar = t.element_scalar(shape)
        assert scalar is not None, f"'{type_}' has no components"
        scalar_id = self.types.scalar(scalar)
        if isinstance(shape, t.ScalarType):
            return [value]
        indices: list[tuple[int, ...]]
        if isinstance(shape, t.VectorType):
            indices = [(i,) for i in range(shape.count)]
        else:
            assert isinstance(shape, t.MatrixType)
            indices = [(r, c) for r in range(shape.rows) for c in range(shape.columns)]
        return [self.b.emit("OpCompositeExtract", scalar_id, value, *i) for i in indices[:limit]]

    def build(self, scalars: list[int], type_: t.Type) -> int:
        shape = self.types.shape(type_)
        if isinstance(shape, t.ScalarType):
            return scalars[0]
        if isinstance(shape, t.VectorType):
            return self.b.emit("OpCompositeConstruct", self.types.id(shape), *scalars)
        assert isinstance(shape, t.MatrixType)
        row = t.vector(shape.element, shape.columns)
        rows = [self.build(scalars[i * shape.columns:(i + 1) * shape.columns], row)
                for i in range(shape.rows)]
        return self.b.emit("OpCompositeConstruct", self.types.id(shape), *rows)

    def convert_scalar(self, value: int, source: t.ScalarType, target: t.ScalarType) -> int:
        if source is target:
            return value
        target_id = self.types.scalar(target)
        if source.kind is target.kind and source.bits == target.bits:
            return value                                   # spellings of one type
        if target.kind is t.ScalarKind.BOOL:
            if source.is_float:
                return self.b.emit("OpFUnordNotEqual", target_id, value,
                                   self.ml._scalar_constant(source, 0.0))
            return self.b.emit("OpINotEqual", target_id, value, self.ml._scalar_constant(source, 0))
        if source.kind is t.ScalarKind.BOOL:
            return self.b.emit("OpSelect", target_id, value, self.ml._scalar_constant(target, 1),
                               self.ml._scalar_constant(target, 0))
        if source.is_float and target.is_float:
            return self.b.emit("OpFConvert", target_id, value)
        if source.is_float:
            return self.b.emit("OpConvertFToS" if target.kind is t.ScalarKind.INT else "OpConvertFToU",
                               target_id, value)
        if target.is_float:
            return self.b.emit("OpConvertSToF" if source.kind is t.ScalarKind.INT else "OpConvertUToF",
                               target_id, value)
        if source.bits == target.bits:
            return self.b.emit("OpBitcast", target_id, value)
        widened = self.b.emit("OpSConvert" if source.kind is t.ScalarKind.INT else "OpUConvert",
                              self.types.scalar(t.scalar(source.kind, target.bits)), value)
        if source.kind is target.kind:
            return widened
        return self.b.emit("OpBitcast", target_id, widened)
