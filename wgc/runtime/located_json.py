"""Runtime input: JSON text read into values that remember where they were written.

Input: a `SourceFile` holding JSON text (RFC 8259).  Output: a `Located` tree (objects as
dicts of `Located`, arrays as lists of `Located`, scalars as Python values), each node with the
`Span` of its text and, for object members, the span of the key; or a `JsonSyntaxError` whose
span points at the first offending character.

Invariants: pure (no I/O); duplicate keys are a syntax error (JSON allows them, but a dispatch
description that names a resource twice is a mistake); numbers keep their JSON form (`int` for
integers, `float` otherwise); strings are decoded by the standard library's own scanner. Hostile
text is a located `JsonSyntaxError` too, never another exception: values nested more than
`MAX_DEPTH` deep, integers of more than `MAX_INTEGER_DIGITS` digits (no value of a dispatch needs
more than 20; Python refuses to convert more than 4300), strings holding a lone surrogate
(`"\ud800"`: no Unicode text, and no file or terminal can take it).
"""

from __future__ import annotations

import json.decoder
import re
from typing import Any

from wgc.cached_dataclass import dataclass, field
from wgc.source import SourceFile, Span

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
MAX_DEPTH = 256
MAX_INTEGER_DIGITS = 100


@dataclass
class Located:
    """A JSON value and where it is; `keys` holds the spans of an object's member names."""

    value: Any
    span: Span
    keys: dict[str, Span] = field(default_factory=dict)

    def plain(self) -> Any:
        """The value without locations (dicts, lists and scalars)."""
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


class JsonSyntaxError(Exception):
    def __init__(self, span: Span, message: str) -> None:
        super().__init__(message)
        self.span = span
        self.message = message


def parse_located(source: SourceFile) -> Located:
    """The located tree of `source`'s JSON text; raises JsonSyntaxError."""
    reader = _Reader(source)
    value = reader.value()
    reader.skip()
    if reader.pos != len(source.text):
        raise reader.error("unexpected text after the JSON value")
    return value


class _Reader:
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.text = source.text
        self.pos = 0

    def error(self, message: str, start: int | None = None, end: int | None = None) -> JsonSyntaxError:
        start = self.pos if start is None else start
        return JsonSyntaxError(Span(self.source, start, max(start + 1, end or start + 1)), message)

    def skip(self) -> None:
        self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def value(self, depth: int = 0) -> Located:
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("expected a JSON value, found the end of the file")
        char = self.text[self.pos]
        if char in "{[" and depth >= MAX_DEPTH:
            raise self.error(f"values nested more than {MAX_DEPTH} deep")
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        if char == '"':
            start = self.pos
            text = self.string()
            return Located(text, Span(self.source, start, self.pos))
        number = _NUMBER.match(self.text, self.pos)
        if number:
            start, self.pos = self.pos, number.end()
            literal = number.group(0)
            if not (number.group(1) or number.group(2)) and len(literal.lstrip("-")) > MAX_INTEGER_DIGITS:
                raise self.error(f"an integer of {len(literal.lstrip('-'))} digits (at most {MAX_INTEGER_DIGITS})",
                                 start, self.pos)
            parsed: Any = float(literal) if number.group(1) or number.group(2) else int(literal)
            return Located(parsed, Span(self.source, start, self.pos))
        for word, meaning in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                start, self.pos = self.pos, self.pos + len(word)
                return Located(meaning, Span(self.source, start, self.pos))
        raise self.error("expected a JSON value")

    def string(self) -> str:
        start = self.pos
        try:
            text, self.pos = json.decoder.scanstring(self.text, self.pos + 1, True)  # type: ignore[attr-defined]
        except json.JSONDecodeError as problem:
            raise self.error(problem.msg.lower(), start) from None
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as problem:
            raise self.error(f"a string holding a lone surrogate (\\u{ord(text[problem.start]):04x}), which is "
                             "not Unicode text", start, self.pos) from None
        return text

    def object(self, depth: int) -> Located:
        start = self.pos
        self.pos += 1
        members: dict[str, Located] = {}
        keys: dict[str, Span] = {}
        self.skip()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return Located(members, Span(self.source, start, self.pos), keys)
        while True:
            self.skip()
            if not self.text.startswith('"', self.pos):
                raise self.error("expected a member name in double quotes")
            key_start = self.pos
            key = self.string()
            key_span = Span(self.source, key_start, self.pos)
            if key in members:
                raise self.error(f"member '{key}' is written twice", key_start, self.pos)
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.error("expected ':' after the member name")
            self.pos += 1
            members[key] = self.value(depth + 1)
            keys[key] = key_span
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return Located(members, Span(self.source, start, self.pos), keys)
            raise self.error("expected ',' or '}' after the member")

    def array(self, depth: int) -> Located:
        start = self.pos
        self.pos += 1
        items: list[Located] = []
        self.skip()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return Located(items, Span(self.source, start, self.pos))
        while True:
            items.append(self.value(depth + 1))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return Located(items, Span(self.source, start, self.pos))
            raise self.error("expected ',' or ']' after the element")
