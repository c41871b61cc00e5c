"""Semantic analysis, string literals where an array is wanted.

DXC types a string literal as clang does, an array of `N` characters (`const char[N]`, `N`
counting the closing NUL; printed 'literal string'), which decays to `string` where a string is
wanted (`printf`, a `string` global). So a literal may be subscripted (`"abc"[i]`), may deduce
`T` and `N` of a function template's `const T s[N]`, and may be passed to an array parameter of
integers of its length.

Input: an `ir.Constant` of type `string` that `expr.py` made for a literal.
Output: the same characters as an array (`ir.Construct` of `ir.Constant`s) of a numeric element type: `int` for
HLSL's unnameable `char` (signed, as clang's `char` on DXC's targets: bytes 0x80..0xFF are
negative), or the element type of the parameter it is passed to.

Invariants: the characters are the bytes of the literal's text followed by a NUL: the lexer has
resolved escapes, and gives `\\xNN` and octal escapes as the characters U+0000..U+00FF, so a
character up to U+00FF is that one byte, a later one its UTF-8 bytes (a character U+0080..U+00FF
written as itself in the source, which clang stores as two UTF-8 bytes, is thus one byte here).
Nothing here reports a diagnostic.
"""

from __future__ import annotations

from wgc import ir
from wgc import types as t
from wgc.irtools import consteval
from wgc.sema.conversions import EXACT, Conversion, cast_score, implicit_conversion

CHAR = t.INT
"""The type a character of a string literal has in wgc (DXC's `char`, which HLSL cannot name)."""


def is_literal(expr: ir.Expr) -> bool:
    """Whether `expr` is a string literal (a `string` constant, the only kind sema makes)."""
    return type(expr) is ir.Constant and expr.type is t.STRING


def _bytes(text: str) -> bytes:
    if text.isascii():
        return text.encode("ascii")
    return b"".join(bytes([ord(c)]) if ord(c) <= 0xFF else c.encode("utf-8", errors="replace") for c in text)


def characters(text: str) -> tuple[int, ...]:
    """The values of a literal's characters as signed chars, the closing NUL included."""
    return tuple(b - 256 if b >= 0x80 else b for b in _bytes(text)) + (0,)


def array_type(literal: ir.Constant) -> t.ArrayType:
    """`const char[N]` of a literal, as wgc types it (`int[N]`)."""
    assert isinstance(literal.value, str)
    return t.array(CHAR, len(_bytes(literal.value)) + 1)


def as_array(literal: ir.Constant, element: t.Type = CHAR) -> ir.Construct:
    """The literal as an array of `element` (a numeric scalar) built from constants."""
    assert isinstance(literal.value, str)
    span = literal.span
    parts = tuple(ir.Constant(element, span, consteval.convert_value(v, CHAR, element)) for v in characters(literal.value))
    return ir.Construct(t.array(element, len(parts)), span, parts)


def conversion(literal: ir.Constant, target: t.Type) -> Conversion | None:
    """The conversion of a literal to an `in` parameter of type `target`: an array of numeric
    scalars of the literal's length (or unsized), or `string` itself; None when there is none."""
    if target is t.STRING:
        return EXACT
    if not isinstance(target, t.ArrayType) or not isinstance(target.element, t.ScalarType):
        return None
    if target.length is not None and target.length != array_type(literal).length:
        return None
    return implicit_conversion(CHAR, target.element)


def score(literal: ir.Constant, target: t.Type) -> int:
    """dxc's overload score (`conversions.cast_score`) of passing a literal to `target`."""
    if not isinstance(target, t.ArrayType):
        return 0
    return cast_score(target.element, CHAR)
