"""Stage 2, parsing: preprocessed text -> AST (`wgc.syntax.ast`) + syntax diagnostics.

Input: the preprocessor's expanded text and its location map (anything with a
`span(start, end) -> Span` method).  Output: a `TranslationUnit` and the list
of syntax diagnostics; nothing after this module imports lark.

How it works:
- `grammar/hlsl.lark` is an LALR(1) grammar parsed with lark's contextual
  lexer; the lark tree is never built: `AstBuilder`'s methods are lark's reduction
  callbacks, so our frozen dataclasses are made as rules are reduced.  Text is parsed
  by `_FastParser`, one loop over lark's own tables and per-state scanners, read as plain
  data (so text that parses is parsed without importing lark); when it
  meets an error it gives up and lark's parser parses the same text, to raise the
  error the diagnostic is made from (so syntax diagnostics are lark's).
- HLSL, like C, cannot be parsed without knowing which names are types, nor
  tell a template `<` from less-than.  `TypeNamePostLexer` does the classic
  "lexer hack": it knows the builtin type names, pre-scans the text for
  struct/enum/typedef names, learns names as declarations go by, and renames
  IDENT/LT/GT tokens to TYPE_NAME/TLT/TGT; a type name that a declaration reuses as
  its own name (`vMatrix matrix`) is an identifier until that scope's `}`.  A `<` after a plain identifier is a
  template only when the text up to its matching `>` holds type names and is
  followed by `(` (`buf.Load<uint2>(0)`, `twice<float>(x)`). A type name right
  after a type is a declarator's name, except before `<...>::` (`T Box<T>::get()`,
  an out-of-line member), where it stays a type name; scope parts may carry
  template arguments (`is_same<T, U>::value`, kept in the nodes' `scope_args`).
- The built parser (LALR tables, the contextual lexer's scanners for every parser state, their
  compiled regular expressions) is pickled in `wgc.startup_cache` ("hlsl-parser", keyed by the
  grammar's SHA-256, the lark, Python and wgc versions and `PARSER_CACHE_FORMAT`); a process loads
  it from there instead of building it (dearer than a whole compile) or letting lark compile
  each lexer state's scanner on first use. The pickle leaves out the reduction callbacks (installed after loading;
  it holds their code, generated per rule shape, see `_callback_source`) and the post-lexer (each
  process has its own), and stores each regular expression with its
  compiled code (`_sre.compile`; where this Python's `re` internals differ, its text). It is
  loaded only from a private folder (`wgc.startup_cache`) and by an unpickler that may name only
  lark's classes (`_ParserUnpickler`). What the fast loop reads of it (`_plain_tables`: the rows,
  the rules, each lexer's regular expressions as their compiled code, its keyword expressions,
  the terminals) is cached beside it as plain data ("hlsl-parse-tables", marshalled, keyed without
  importing lark: `_tables_cache_key`), so a process loads lark's parser only for a syntax error.
- Nesting: the parser's stack may hold MAX_PARSE_DEPTH entries; every recursive construct of the
  grammar keeps its unfinished levels there, so this one bound is the nesting limit of all of
  them (WG0213, recovered from like a syntax error).
- Error recovery: on a syntax error the offending top-level declaration is
  blanked out (offsets are kept, newlines too) and the file parsed again, so
  every top-level declaration can report its own first error without cascades;
  the identifiers of the blanked text are returned (`skipped_names`) so that sema,
  which still checks the rest, does not report their uses as undeclared.
  A missing ';' before a token that can begin a statement is instead inserted (clang's
  ExpectAndConsumeSemi, worded as clang words it), the rest of the statement blanked where clang
  skips it (after a declaration not followed by another, after a return), and the same
  declaration parsed on, so its next error is reported too; `_InsertedLocations` maps the text
  with the inserted characters back to the original offsets.

Invariants: spans point into original files; the same text always yields the
same AST and diagnostics; bad input never raises (only internal bugs do).
"""

from __future__ import annotations

import bisect
import collections
import functools
import gc
import marshal
import math
import operator
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol

from wgc import codes, startup_cache
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic
from wgc.source import SourceFile, Span
from wgc.suggest import closest
from wgc.syntax import ast

# ---------------------------------------------------------------- type names

_SCALARS = (
    "bool", "int", "uint", "dword", "half", "float", "double",
    "min16float", "min10float", "min16int", "min12int", "min16uint",
    "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "float16_t", "float32_t", "float64_t",
)
_OBJECT_TYPES = (
    "void", "vector", "matrix", "string", "sampler", "SamplerState", "SamplerComparisonState",
    "Buffer", "RWBuffer", "StructuredBuffer", "RWStructuredBuffer", "AppendStructuredBuffer",
    "ConsumeStructuredBuffer", "ByteAddressBuffer", "RWByteAddressBuffer",
    "Texture1D", "Texture1DArray", "Texture2D", "Texture2DArray", "Texture3D", "TextureCube",
    "TextureCubeArray", "Texture2DMS", "Texture2DMSArray",
    "RWTexture1D", "RWTexture1DArray", "RWTexture2D", "RWTexture2DArray", "RWTexture3D",
    "RWTexture2DMS", "RWTexture2DMSArray",
    "RasterizerOrderedBuffer", "RasterizerOrderedByteAddressBuffer",
    "RasterizerOrderedStructuredBuffer", "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray", "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray", "RasterizerOrderedTexture3D",
    "ConstantBuffer", "TextureBuffer", "RaytracingAccelerationStructure", "RayDesc",
    "BuiltInTriangleIntersectionAttributes", "RayQuery",
    # DXC's typedefs (of uint) for the inline ray tracing constants
    "RAY_FLAG", "RAYQUERY_FLAG", "COMMITTED_STATUS", "CANDIDATE_TYPE",
    # work-graph node objects
    "DispatchNodeInputRecord", "RWDispatchNodeInputRecord", "GroupNodeInputRecords",
    "RWGroupNodeInputRecords", "ThreadNodeInputRecord", "RWThreadNodeInputRecord",
    "EmptyNodeInput", "NodeOutput", "NodeOutputArray", "EmptyNodeOutput",
    "EmptyNodeOutputArray", "ThreadNodeOutputRecords", "GroupNodeOutputRecords",
)
STATE_OBJECT_TYPES = frozenset({
    "GlobalRootSignature", "LocalRootSignature", "StateObjectConfig",
    "SubobjectToExportsAssociation", "RaytracingShaderConfig", "RaytracingPipelineConfig",
    "RaytracingPipelineConfig1", "TriangleHitGroup", "ProceduralPrimitiveHitGroup",
})


def _builtin_type_names() -> frozenset[str]:
    names = set(_OBJECT_TYPES) | STATE_OBJECT_TYPES | {"int8_t4_packed", "uint8_t4_packed"}  # scalars only
    for scalar in _SCALARS:
        names.add(scalar)
        for rows in "1234":
            names.add(scalar + rows)
            for cols in "1234":
                names.add(f"{scalar}{rows}x{cols}")
    return frozenset(names)


BUILTIN_TYPE_NAMES = _builtin_type_names()

# `\bstruct` is spelled `s(?<!\w.)truct` (the word boundary checked after the first letter): a pattern
# that starts with letters lets re's search skip to the places where one of them is, which makes
# `prescan_type_names` faster than a pattern starting with `\b`
_DECLARED_TYPE = re.compile(
    r"(?:s(?<!\w.)truct|c(?<!\w.)lass|i(?<!\w.)nterface|e(?<!\w.)num(?:\s+(?:class|struct))?)"
    r"\s+(?:\[+[^\[\];{}]*\]+\s*)*([A-Za-z_]\w*)"
)
_TYPEDEF_NAME = re.compile(
    r"t(?<!\w.)ypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*(?:\[[^;\]]*\]\s*)*;|u(?<!\w.)sing\s+([A-Za-z_]\w*)\s*="
)
_TEMPLATE_SCAN = re.compile(r'\s*(?:([A-Za-z_]\w*)|(\d[\w.]*|"(?:[^"\\\n]|\\.)*")|(::)|(,)|(<)|(>>|>))')
_OPEN_PAREN = re.compile(r"\s*\(")
_MODIFIER_WORDS = frozenset({"nointerpolation", "noperspective", "centroid", "linear", "sample", "const", "precise",
                             "row_major", "column_major", "uniform"})


def prescan_type_names(text: str) -> set[str]:
    """Names declared anywhere in `text` as struct/class/interface/enum/typedef."""
    names = {m.group(1) for m in _DECLARED_TYPE.finditer(text)}
    names.update(m.group(1) or m.group(2) for m in _TYPEDEF_NAME.finditer(text))
    return names


# ---------------------------------------------------------------- postlexer

_TYPE_END = frozenset({"TYPE_NAME", "TGT"})
MESH_QUALIFIERS = frozenset({"vertices", "indices", "primitives", "payload"})
"""Mesh/amplification parameter qualifiers: keywords only right after `out` / `in` (as in dxc),
identifiers everywhere else."""
INTERPOLATION_WORDS = frozenset({"linear", "sample"})
"""Interpolation modifiers that are common identifiers too: modifiers only where a declaration
starts and a type name follows."""
_DECLARATION_START = frozenset({"LPAR", "COMMA", "LBRACE", "SEMI", "RBRACE", "IN", "OUT", "INOUT", "CONST",
                                "NOINTERPOLATION", "NOPERSPECTIVE", "CENTROID", "CONTEXTUAL_MODIFIER", None})
_KEYWORD_NAME_POSITION = frozenset({"STRUCT", "CLASS", "INTERFACE", "ENUM", "USING"})


KEYWORD_TYPES = frozenset({"bool", "int", "float", "double", "half", "void"})
"""Type names that are keywords in DXC (clang's TokenKinds.def: KEYALL, BOOLSUPPORT, HALFSUPPORT), so
never a declarator's name; the other type names are declarations DXC makes (`vector`, `matrix`,
`uint`, `string`, `Texture2D`, ...), which a program may reuse for its own names."""
KEYWORDS_AS_NAMES = frozenset({"PRECISE", "GLOBALLYCOHERENT"})
"""Modifier keywords that DXC reads as identifiers where a punctuator follows (`precise = 1;`,
`globallycoherent += 10;`: ParseStmt.cpp, "FXC compatibility"); elsewhere lark's contextual lexer
already makes them identifiers where no modifier may stand (`float precise = 1;`)."""
_COLONS_FOLLOW = re.compile(r"\s*::")
_DECLARATOR_END_FOLLOWS = re.compile(r"\s*(?:[=;,\[]|:(?!:))")
_PUNCTUATOR_FOLLOWS = re.compile(r"\s*[^\sA-Za-z0-9_]")
_RENAMED_OR_COUNTED = frozenset({"IDENT", "LT", "GT", "RSHIFT", "LPAR", "LSQB", "RPAR", "RSQB", "SEMI", "LBRACE",
                                 "RBRACE", "TYPEDEF"}) | KEYWORDS_AS_NAMES
"""The token kinds that `TypeNamePostLexer.rename` renames or that change its state (nesting, typedefs); it
only remembers the others as the previous kind, which `_FastParser.run` does itself."""


class TypeNamePostLexer:
    """Renames IDENT/LT/GT/RSHIFT tokens to TYPE_NAME/TLT/TGT (see the module docstring).

    `rename` holds the logic, one token at a time, its state (nesting, the previous tokens' kinds)
    in attributes; `process` applies it to lark's token stream (lark's parser, which makes the
    syntax errors), `_FastParser.run` calls it from its own loop for the kinds in
    `_RENAMED_OR_COUNTED` and does what it does for the others itself (remember the kind)."""

    always_accept = ("IDENT", "LT", "GT", "RSHIFT")

    def __init__(self) -> None:
        self.begin("", set())

    def begin(self, text: str, declared_types: set[str]) -> None:
        self.text = text
        self.types = set(BUILTIN_TYPE_NAMES) | declared_types
        self.forced: set[int] = set()
        """Ends of identifiers that are type names there whatever they name (error recovery's)."""
        self.template_functions: set[str] = set()
        self.recent: collections.deque[Any] = collections.deque(maxlen=4)
        self.restart()

    def restart(self) -> None:
        """Start a pass over the text's tokens: no nesting, no previous token."""
        self.template_stack: list[int] = []
        self.depth = 0
        self.typedef_depth: int | None = None
        self.braces = self.typedef_braces = 0  # `{` nesting: a typedef'd struct body is not the typedef's level
        self.template_header_open = False
        self.after_template_header = False
        self.prev_type: str | None = None
        self.prev2_type: str | None = None
        self.last_ident = ""        # the text of the last IDENT (what a `<` after one is checked with)
        self.split_kind = "GT"      # after `rename` split a `>>`: the kind of its second `>`
        for name in getattr(self, "shadowed", {}):
            self.types.add(name)
        self.shadowed: dict[str, int] = {}
        """Type names declared as a variable, parameter, field or function (`vMatrix matrix`, as DXC
        lets a program reuse `matrix`, `vector`, `string`, ...), taken out of `types` until their
        scope ends: the `{` level they live at (a parameter: its function body's)."""
        self.parens = 0             # `(` nesting, never reset by `;` (a `for` header's variables)

    def process(self, stream: Iterator[Any]) -> Iterator[Any]:
        """The tokens of `stream` (lark's, with lines and columns), renamed; the last few are
        remembered for `token_before` (what the syntax errors need)."""
        from lark import Token

        self.restart()
        remembered = self.recent.append
        rename = self.rename
        for tok in stream:
            kind = rename(tok.type, tok.value, tok.end_pos)
            if kind is None:   # a `>>` that closes a template argument list: two `>`
                first = Token.new_borrow_pos("TGT", ">", tok)
                first.end_pos = tok.start_pos + 1
                first.end_column = tok.column + 1
                remembered(first)
                yield first
                second = Token(self.split_kind, ">", tok.start_pos + 1, tok.line, tok.column + 1,
                               tok.end_line, tok.end_column, tok.end_pos)
                remembered(second)
                yield second
                continue
            if kind != tok.type:
                tok = Token.new_borrow_pos(kind, tok.value, tok)
            remembered(tok)
            yield tok

    def rename(self, kind: str, value: str, end: int) -> str | None:
        """The kind the next token of the text gets (`kind`, `value`: what the lexer made of it,
        `end`: its end in the text), the state updated; None for a `>>` that closes a template
        argument list, which stands for two `>`: TGT, then `split_kind`.  A kind that
        `_RENAMED_OR_COUNTED` does not hold is returned as it is and only remembered."""
        prev_type = self.prev_type
        if kind in KEYWORDS_AS_NAMES and _PUNCTUATOR_FOLLOWS.match(self.text, end):
            kind = "IDENT"
        if kind == "IDENT":
            types = self.types
            self.last_ident = value
            if prev_type == "DOT":  # member names are never types
                pass
            elif prev_type in ("OUT", "IN") and value in MESH_QUALIFIERS:
                kind = "CONTEXTUAL_MODIFIER"   # `out vertices V v[N]`, `in payload P p`: only after in/out
            elif value in INTERPOLATION_WORDS and prev_type in _DECLARATION_START and self._type_name_follows(end):
                kind = "CONTEXTUAL_MODIFIER"   # `sample float4 uv : TEXCOORD0`, `linear float x`
            elif prev_type in ("TYPENAME", "CLASS") and self.template_header_open:
                types.add(value)
            elif prev_type in _KEYWORD_NAME_POSITION:
                types.add(value)
            elif self.typedef_depth is not None and self.depth == self.typedef_depth \
                    and self.braces == self.typedef_braces and prev_type in ("TYPE_NAME", "TGT", "COMMA", "RBRACE"):
                types.add(value)
            elif value in types and prev_type == "COMMA" and not self.template_stack \
                    and value not in KEYWORD_TYPES and _DECLARATOR_END_FOLLOWS.match(self.text, end):
                self._shadow(value)   # `float left, matrix = 1, right;`: a later declarator of a list
            elif value in types and prev_type not in _TYPE_END:
                kind = "TYPE_NAME"
            elif self.forced and end in self.forced:
                kind = "TYPE_NAME"
            elif value in types and self._scope_follows(end):
                kind = "TYPE_NAME"   # `T Box<T>::get()`: the scope of an out-of-line member
            elif value in types and value not in KEYWORD_TYPES and not _COLONS_FOLLOW.match(self.text, end):
                self._shadow(value)   # a declarator named like a type (`vMatrix matrix`)
            elif self.after_template_header and _OPEN_PAREN.match(self.text, end):
                self.template_functions.add(value)
                self.after_template_header = False
        elif kind == "LPAR" or kind == "LSQB":
            self.depth += 1
            if kind == "LPAR":
                self.parens += 1
        elif kind == "RPAR" or kind == "RSQB":
            depth = self.depth = self.depth - 1
            if kind == "RPAR" and self.parens:
                self.parens -= 1
            template_stack = self.template_stack
            while template_stack and template_stack[-1] > depth:
                template_stack.pop()
        elif kind == "SEMI" or kind == "LBRACE" or kind == "RBRACE":
            self.template_stack.clear()
            self.depth = 0
            self.after_template_header = False
            if kind == "LBRACE":
                self.braces += 1
            elif kind == "RBRACE":
                self.braces = max(0, self.braces - 1)
            if self.shadowed and kind != "LBRACE" and not self.parens:
                self._end_shadows()
            if kind == "SEMI" and self.typedef_depth is not None and self.braces == self.typedef_braces:
                self.typedef_depth = None
        elif kind == "LT":
            if prev_type in ("TYPE_NAME", "TEMPLATE") or (
                prev_type == "IDENT" and self.prev2_type in _KEYWORD_NAME_POSITION  # `struct S<int>` specialised
            ) or (
                prev_type == "IDENT" and self._template_call_follows(self.last_ident, end)
            ):
                kind = "TLT"
                self.template_stack.append(self.depth)
                if prev_type == "TEMPLATE":
                    self.template_header_open = True
        elif kind == "GT":
            template_stack = self.template_stack
            if template_stack and template_stack[-1] == self.depth:
                template_stack.pop()
                kind = "TGT"
        elif kind == "RSHIFT":
            template_stack = self.template_stack
            depth = self.depth
            if template_stack and template_stack[-1] == depth:
                template_stack.pop()
                if template_stack and template_stack[-1] == depth:
                    template_stack.pop()
                    self.split_kind = "TGT"
                else:
                    self.split_kind = "GT"
                self.prev2_type, self.prev_type = "TGT", self.split_kind
                return None
        elif kind == "TYPEDEF":
            self.typedef_depth, self.typedef_braces = self.depth, self.braces
        self.prev2_type = prev_type
        self.prev_type = kind
        if kind == "TGT" and self.template_header_open and not self.template_stack:
            self.template_header_open = False
            self.after_template_header = True
            self.prev_type = "TEMPLATE_HEADER_END"  # what follows is a declaration, not a name
        return kind

    def _shadow(self, name: str) -> None:
        """`name`, declared as a variable, parameter, field or function, is a name until its scope ends."""
        self.shadowed[name] = self.braces + (1 if self.parens else 0)
        self.types.discard(name)

    def _end_shadows(self) -> None:
        """Give back the type names whose shadowing declarations' scope has ended (at a `}`, or at
        the `;` after a prototype's parameters)."""
        braces = self.braces
        for name, level in list(self.shadowed.items()):
            if level > braces:
                del self.shadowed[name]
                self.types.add(name)

    def token_before(self, position: int) -> Any:
        """The last token handed to the parser that starts before `position` (None if none)."""
        for tok in reversed(self.recent):
            if tok.start_pos < position:
                return tok
        return None

    def _type_name_follows(self, pos: int) -> bool:
        """Is the word ending at `pos` followed by a known type name (or another modifier)?"""
        found = re.compile(r"\s*([A-Za-z_]\w*)").match(self.text, pos)
        return found is not None and (found.group(1) in self.types or found.group(1) in _MODIFIER_WORDS)

    def _scope_follows(self, pos: int) -> bool:
        """Is the name ending at `pos` followed by a template argument list and `::`?"""
        opened = re.compile(r"\s*<").match(self.text, pos)
        if opened is None:
            return False
        pos, level = opened.end(), 1
        for _ in range(64):
            m = _TEMPLATE_SCAN.match(self.text, pos)
            if m is None:
                return False
            pos = m.end()
            lt, gt = m.group(5), m.group(6)
            if lt:
                level += 1
            elif gt:
                level -= len(gt)
                if level <= 0:
                    return re.compile(r"\s*::").match(self.text, pos) is not None
        return False

    def _template_call_follows(self, name: str, pos: int) -> bool:
        """Is the `<` ending at `pos` after identifier `name` a template argument list?"""
        text = self.text
        level = 1
        first = True
        for _ in range(64):
            m = _TEMPLATE_SCAN.match(text, pos)
            if m is None:
                return False
            pos = m.end()
            ident, _number, _scope, _comma, lt, gt = m.groups()
            if first:
                if not ((ident and ident in self.types) or name in self.template_functions):
                    return False
                first = False
            if lt:
                level += 1
            elif gt:
                level -= len(gt)
                if level <= 0:
                    return _OPEN_PAREN.match(text, pos) is not None
        return False


# ---------------------------------------------------------------- AST builder


class Locations(Protocol):
    def span(self, start: int, end: int) -> Span: ...


@dataclass(frozen=True)
class FileLocations:
    """Location map for text that was not preprocessed: offsets are the file's own."""

    file: SourceFile

    def span(self, start: int, end: int) -> Span:
        return Span(self.file, start, end)


def _is_token(value: Any) -> bool:
    return type(value).__name__ == "Token"


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'",
            "a": "\a", "b": "\b", "f": "\f", "v": "\v", "?": "?"}
_ESCAPE_RE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]*)|u([0-9a-fA-F]{0,4})|U([0-9a-fA-F]{0,8})|(.))", re.S)
_INT_SUFFIXES = frozenset({"", "u", "l", "ul", "lu", "ll", "ull", "llu"})


class AstBuilder:
    """Transformer callbacks: each returns the AST node for one grammar rule.

    The reduction callbacks (`_install_callbacks`) call the method named after the rule with
    `(meta, children)`, `meta` being the rule's extent `(start, end)` in the text; a rule without
    a method here is a bug (it raises).
    """

    _span: Callable[[tuple[Any, Any]], Span]
    """The span of a rule's extent `meta` = (start, end) in the text ((None, None): it matched
    nothing), through the current `locations` (set with them)."""

    def __init__(self) -> None:
        self.release()

    def release(self) -> None:
        """Forget the last parse's locations and diagnostics (they reference its source files)."""
        self.locations = FileLocations(SourceFile("<none>", ""))
        self.diagnostics: list[Diagnostic] = []

    @property
    def locations(self) -> Locations:
        return self._locations

    @locations.setter
    def locations(self, locations: Locations) -> None:
        self._locations = locations
        # the location map's own where it has one (the preprocessor's, with its common case inline:
        # one call per AST node, not two)
        self._span = getattr(locations, "meta_span", None) or functools.partial(AstBuilder._meta_span, locations)

    @staticmethod
    def _meta_span(locations: Locations, meta: tuple[Any, Any]) -> Span:
        """The span of a rule's extent, `meta` = (start, end) in the text ((None, None): it matched nothing)."""
        start, end = meta
        if start is None:
            return locations.span(0, 0)
        return locations.span(start, end)

    def _tok_span(self, tok: Any) -> Span:
        return self.locations.span(tok.start_pos, tok.end_pos)

    # ---- helpers
    @staticmethod
    def _of(children: list[Any], cls: type | tuple[type, ...]) -> tuple[Any, ...]:
        # (list displays here and below: a generator costs twice as much on these short lists)
        return tuple([c for c in children if isinstance(c, cls)])

    @staticmethod
    def _modifiers(children: list[Any]) -> tuple[str, ...]:
        return tuple([str(c) for c in children if isinstance(c, _Modifier)])

    # ---- declarations
    def start(self, meta: Any, children: list[Any]) -> ast.TranslationUnit:
        return ast.TranslationUnit(self._span(meta), tuple(children))

    def namespace_decl(self, meta: Any, children: list[Any]) -> ast.NamespaceDecl:
        name, *decls = children
        return ast.NamespaceDecl(self._span(meta), str(name), tuple(decls))

    def template_header(self, meta: Any, children: list[Any]) -> tuple[ast.TemplateParam, ...]:
        return tuple(c for c in children if isinstance(c, ast.TemplateParam))

    def template_type_param(self, meta: Any, children: list[Any]) -> ast.TemplateParam:
        name, default = children[-2], children[-1]
        return ast.TemplateParam(self._span(meta), name or "", None, default)

    def template_template_param(self, meta: Any, children: list[Any]) -> ast.TemplateParam:
        params = tuple(c for c in children if isinstance(c, ast.TemplateParam))
        name, default = children[-2], children[-1]
        return ast.TemplateParam(self._span(meta), name or "", None, default, template_params=params)

    def template_value_param(self, meta: Any, children: list[Any]) -> ast.TemplateParam:
        kind, name, default = children
        return ast.TemplateParam(self._span(meta), name, kind, default)

    def template_decl(self, meta: Any, children: list[Any]) -> Any:
        params, decl = children
        span = self._span(meta)
        if isinstance(decl, (ast.FunctionDecl, ast.StructDecl)):
            return _replace(decl, span=span, template_params=params)
        self.diagnostics.append(codes.EXPECTED_TOKEN(
            span, "a template declaration must declare a function or a struct"))
        return decl

    def var_decl(self, meta: Any, children: list[Any]) -> Any:
        span = self._span(meta)
        attributes = self._of(children, ast.Attribute)
        modifiers = self._modifiers(children)
        type_ref = self._of(children, ast.TypeRef)[0]
        declarators = self._of(children, ast.Declarator)
        if (type_ref.name[-1] in STATE_OBJECT_TYPES and len(declarators) == 1
                and isinstance(declarators[0].init, ast.InitList) and not type_ref.template_args):
            return ast.StateObjectDecl(span, type_ref.name[-1], declarators[0].name, declarators[0].init)
        return ast.VarDecl(span, attributes, modifiers, type_ref, declarators)

    def local_var_decl(self, meta: Any, children: list[Any]) -> ast.DeclStmt:
        return ast.DeclStmt(self._span(meta), self.var_decl(meta, children))

    def local_decl(self, meta: Any, children: list[Any]) -> ast.DeclStmt:
        return ast.DeclStmt(self._span(meta), children[0])

    def function_decl(self, meta: Any, children: list[Any]) -> ast.FunctionDecl:
        span = self._span(meta)
        type_index = next(i for i, c in enumerate(children) if isinstance(c, ast.TypeRef))
        before, after = children[:type_index], children[type_index + 1:]
        name, params, *rest = after
        body = rest[-1] if isinstance(rest[-1], ast.Block) else None
        specialization_args = None
        scope_args: ast.ScopeArgs = ()
        if isinstance(name, _SpecializedName):
            specialized = name
            name, specialization_args, scope_args = specialized.name, specialized.args, specialized.scope_args
        return ast.FunctionDecl(
            span,
            attributes=self._of(before, ast.Attribute),
            modifiers=self._modifiers(before),
            return_type=children[type_index],
            name=name,
            params=params,
            annotations=self._of(rest, (ast.Semantic, ast.RegisterBinding, ast.PackOffset)),
            body=body,
            trailing_modifiers=self._modifiers(rest),
            specialization_args=specialization_args,
            scope_args=scope_args,
        )

    def func_name(self, meta: Any, children: list[Any]) -> tuple[str, ...] | _SpecializedName:
        if isinstance(children[0], tuple):
            names, scope_args = _split_scope(children[0])
            if scope_args:
                return _SpecializedName(names + (str(children[1]),), None, scope_args)
            return names + (str(children[1]),)
        if children[1] is not None:
            return _SpecializedName((str(children[0]),), children[1])
        return (str(children[0]),)

    def params(self, meta: Any, children: list[Any]) -> tuple[ast.Param, ...]:
        return tuple(c for c in children if c is not None)

    def param(self, meta: Any, children: list[Any]) -> ast.Param:
        type_index = next(i for i, c in enumerate(children) if isinstance(c, ast.TypeRef))
        before, after = children[:type_index], children[type_index + 1:]
        name = after[0]
        default = after[-1]
        middle = after[1:-1]
        return ast.Param(
            self._span(meta),
            attributes=self._of(before, ast.Attribute),
            modifiers=self._modifiers(before),
            type=children[type_index],
            name=name,
            array_dims=tuple(c.size for c in middle if isinstance(c, _ArrayDim)),
            annotations=self._of(middle, (ast.Semantic, ast.RegisterBinding, ast.PackOffset)),
            default=default,
        )

    def declarator(self, meta: Any, children: list[Any]) -> ast.Declarator:
        if len(children) <= 2:
            # `x` or `x = init` (most declarators): what `_declarator` makes of them, at half its cost
            return ast.Declarator(self._span(meta), children[0], (), (), children[1] if len(children) == 2 else None)
        return _declarator(self._span(meta), children)

    def decl_name(self, meta: Any, children: list[Any]) -> str:
        return str(children[0])

    type_decl_name = decl_name

    def array_dim(self, meta: Any, children: list[Any]) -> _ArrayDim:
        return _ArrayDim(children[0])

    def init_list(self, meta: Any, children: list[Any]) -> ast.InitList:
        return ast.InitList(self._span(meta), tuple(c for c in children if c is not None))

    def semantic(self, meta: Any, children: list[Any]) -> ast.Semantic:
        return ast.Semantic(self._span(meta), str(children[0]))

    def register_binding(self, meta: Any, children: list[Any]) -> ast.RegisterBinding:
        parts = [str(c) for c in children]
        span = self._span(meta)
        if len(parts) == 3:
            return ast.RegisterBinding(span, parts[1], parts[2], parts[0])
        if len(parts) == 2 and not parts[1].lower().startswith("space"):
            return ast.RegisterBinding(span, parts[1], None, parts[0])
        return ast.RegisterBinding(span, parts[0], parts[1] if len(parts) > 1 else None)

    def packoffset(self, meta: Any, children: list[Any]) -> ast.PackOffset:
        location = str(children[0]) + (f".{children[1]}" if children[1] is not None else "")
        return ast.PackOffset(self._span(meta), location)

    def struct_decl(self, meta: Any, children: list[Any]) -> Any:
        spec = children[0]
        declarators = self._of(children, ast.Declarator)
        if not declarators:
            return _replace(spec, span=self._span(meta))
        # `[[vk::push_constant]] struct { ... } pc;` (dxc): the `vk::` attributes are the variable's;
        # the struct keeps the others (`[NodeTrackRWInputSharing]`)
        variable_attributes = tuple(a for a in spec.attributes if a.name.startswith("vk::"))
        spec = _replace(spec, attributes=tuple(a for a in spec.attributes if not a.name.startswith("vk::")))
        return ast.VarDecl(self._span(meta), variable_attributes, (), ast.StructType(spec.span, spec), declarators)

    def struct_spec(self, meta: Any, children: list[Any]) -> ast.StructDecl:
        attributes = self._of(children, ast.Attribute)
        rest = [c for c in children if not isinstance(c, ast.Attribute)]
        keyword, name, specialization_args, base, body = rest
        return ast.StructDecl(self._span(meta), attributes, str(keyword), name, base, body,
                              specialization_args=specialization_args)

    def anonymous_struct_spec(self, meta: Any, children: list[Any]) -> ast.StructDecl:
        attributes = self._of(children, ast.Attribute)
        keyword, body = [c for c in children if not isinstance(c, ast.Attribute)]
        return ast.StructDecl(self._span(meta), attributes, str(keyword), None, None, body)

    def struct_body(self, meta: Any, children: list[Any]) -> tuple[Any, ...]:
        return tuple(children)

    def typedef_decl(self, meta: Any, children: list[Any]) -> ast.TypedefDecl:
        modifiers = self._modifiers(children)
        written = next(c for c in children if isinstance(c, (ast.TypeRef, ast.StructDecl)))
        target = ast.StructType(written.span, written) if isinstance(written, ast.StructDecl) else written
        return ast.TypedefDecl(self._span(meta), modifiers, target, self._of(children, ast.Declarator))

    def using_decl(self, meta: Any, children: list[Any]) -> ast.TypedefDecl:
        """`using V = float4;`: the typedef `typedef float4 V;`."""
        name, target, *dims = children
        span = self._span(meta)
        declarator = ast.Declarator(span, name=name, array_dims=tuple(c.size for c in dims if isinstance(c, _ArrayDim)))
        return ast.TypedefDecl(span, (), target, (declarator,))

    def enum_decl(self, meta: Any, children: list[Any]) -> ast.EnumDecl:
        scope, name, base, *rest = children
        members = tuple(c for c in rest if isinstance(c, ast.Enumerator))
        return ast.EnumDecl(self._span(meta), name, scope is not None, base, members)

    def enumerator(self, meta: Any, children: list[Any]) -> ast.Enumerator:
        return ast.Enumerator(self._span(meta), str(children[0]), children[1])

    def buffer_decl(self, meta: Any, children: list[Any]) -> ast.BufferDecl:
        attributes = self._of(children, ast.Attribute)
        rest = [c for c in children if not isinstance(c, ast.Attribute)]
        keyword, name, *members = rest
        return ast.BufferDecl(
            self._span(meta), attributes, str(keyword), str(name),
            self._of(members, (ast.Semantic, ast.RegisterBinding, ast.PackOffset)),
            self._of(members, ast.VarDecl),
        )

    def empty_decl(self, meta: Any, children: list[Any]) -> ast.EmptyDecl:
        return ast.EmptyDecl(self._span(meta))

    def attribute(self, meta: Any, children: list[Any]) -> ast.Attribute:
        name, args = children[0]
        return ast.Attribute(self._span(meta), name, args)

    def double_attribute(self, meta: Any, children: list[Any]) -> ast.Attribute:
        name, args = children[0]
        return ast.Attribute(self._span(meta), name, args, double_bracket=True)

    def attribute_body(self, meta: Any, children: list[Any]) -> tuple[str, tuple[Any, ...]]:
        name, args = children
        return name, args or ()

    def attribute_name(self, meta: Any, children: list[Any]) -> str:
        return "::".join(str(c) for c in children)

    def attribute_args(self, meta: Any, children: list[Any]) -> tuple[Any, ...]:
        return tuple(children)

    def modifier(self, meta: Any, children: list[Any]) -> _Modifier:
        return _Modifier(children[0])

    def struct_keyword(self, meta: Any, children: list[Any]) -> str:
        return str(children[0])

    buffer_keyword = struct_keyword
    enum_scope = struct_keyword

    # ---- types
    def type_ref(self, meta: Any, children: list[Any]) -> ast.TypeRef:
        name, args = children
        return ast.TypeRef(self._span(meta), (str(name),), args)

    def scoped_type_ref(self, meta: Any, children: list[Any]) -> ast.TypeRef:
        scope, name, args = children
        names, scope_args = _split_scope(scope)
        return ast.TypeRef(self._span(meta), names + (str(name),), args, scope_args=scope_args)

    def scope(self, meta: Any, children: list[Any]) -> tuple[Any, ...]:
        """The scope parts: names, and `_TemplatedPart`s for `Box<T>::`."""
        part = children[-1] if isinstance(children[-1], _TemplatedPart) else str(children[-1])
        return (part,) if len(children) == 1 else children[0] + (part,)

    def templated_scope_part(self, meta: Any, children: list[Any]) -> _TemplatedPart:
        return _TemplatedPart(str(children[0]), children[1])

    member_scope = scope

    def global_scope(self, meta: Any, children: list[Any]) -> tuple[str, ...]:
        return ("",)  # `::name`, `::ns::name`: looked up from the global namespace

    def template_args(self, meta: Any, children: list[Any]) -> tuple[Any, ...]:
        return tuple(c for c in children if c is not None and not _is_token(c))

    def type_arg(self, meta: Any, children: list[Any]) -> ast.TypeRef:
        type_ref = next(c for c in children if isinstance(c, ast.TypeRef))
        return _replace(type_ref, span=self._span(meta), modifiers=self._modifiers(children),
                        array_dims=tuple(c.size for c in children if isinstance(c, _ArrayDim)))

    # ---- statements
    def block(self, meta: Any, children: list[Any]) -> ast.Block:
        return ast.Block(self._span(meta), tuple(children))

    def expr_stmt(self, meta: Any, children: list[Any]) -> ast.ExprStmt:
        return ast.ExprStmt(self._span(meta), children[0])

    def empty_stmt(self, meta: Any, children: list[Any]) -> ast.EmptyStmt:
        return ast.EmptyStmt(self._span(meta))

    def if_stmt(self, meta: Any, children: list[Any]) -> ast.IfStmt:
        *attributes, cond, then, else_ = children
        return ast.IfStmt(self._span(meta), tuple(attributes), cond, then, else_)

    def for_stmt(self, meta: Any, children: list[Any]) -> ast.ForStmt:
        *attributes, init, cond, _semi, step, body = children
        return ast.ForStmt(self._span(meta), tuple(attributes), init, cond, step, body)

    def while_stmt(self, meta: Any, children: list[Any]) -> ast.WhileStmt:
        *attributes, cond, body = children
        return ast.WhileStmt(self._span(meta), tuple(attributes), cond, body)

    def do_stmt(self, meta: Any, children: list[Any]) -> ast.DoWhileStmt:
        *attributes, body, cond, _semi = children
        return ast.DoWhileStmt(self._span(meta), tuple(attributes), body, cond)

    def switch_stmt(self, meta: Any, children: list[Any]) -> ast.SwitchStmt:
        attributes = []
        index = 0
        while isinstance(children[index], ast.Attribute):
            attributes.append(children[index])
            index += 1
        expr = children[index]
        cases: list[ast.SwitchCase] = []
        labels: list[Any] = []
        stmts: list[Any] = []
        group_start: Span | None = None
        for item in children[index + 1:]:
            if isinstance(item, _CaseLabel):
                if stmts:
                    cases.append(ast.SwitchCase(group_start or item.span, tuple(labels), tuple(stmts)))
                    labels, stmts, group_start = [], [], None
                labels.append(item.value)
            else:
                stmts.append(item)
            group_start = group_start or item.span
        if labels or stmts:
            cases.append(ast.SwitchCase(group_start or expr.span, tuple(labels), tuple(stmts)))
        return ast.SwitchStmt(self._span(meta), tuple(attributes), expr, tuple(cases))

    def case_label(self, meta: Any, children: list[Any]) -> _CaseLabel:
        return _CaseLabel(self._span(meta), children[0])

    def default_label(self, meta: Any, children: list[Any]) -> _CaseLabel:
        return _CaseLabel(self._span(meta), None)

    def break_stmt(self, meta: Any, children: list[Any]) -> ast.BreakStmt:
        return ast.BreakStmt(self._span(meta))

    def continue_stmt(self, meta: Any, children: list[Any]) -> ast.ContinueStmt:
        return ast.ContinueStmt(self._span(meta))

    def return_stmt(self, meta: Any, children: list[Any]) -> ast.ReturnStmt:
        return ast.ReturnStmt(self._span(meta), children[0])

    def discard_stmt(self, meta: Any, children: list[Any]) -> ast.DiscardStmt:
        return ast.DiscardStmt(self._span(meta))

    # ---- expressions
    def binary(self, meta: Any, children: list[Any]) -> ast.BinaryExpr:
        left, op, right = children
        return ast.BinaryExpr(self._span(meta), str(op), left, right)

    def binary_chain(self, meta: Any, children: list[Any]) -> Any:
        """`a op b op c ...` with C precedence, all left-associative (`_climb_precedence`)."""
        if len(children) == 3:
            # `a op b`, the most common chain: what `_climb_precedence` makes of it, without its
            # loop and closure
            left, right = children[0], children[2]
            return ast.BinaryExpr(left.span.to(right.span), str(children[1]), left, right)
        return _climb_precedence(children)

    def assign(self, meta: Any, children: list[Any]) -> ast.AssignExpr:
        target, op, value = children
        return ast.AssignExpr(self._span(meta), str(op), target, value)

    def conditional(self, meta: Any, children: list[Any]) -> ast.ConditionalExpr:
        cond, then, else_ = children
        return ast.ConditionalExpr(self._span(meta), cond, then, else_)

    def cast(self, meta: Any, children: list[Any]) -> ast.CastExpr:
        type_ref, *dims, operand = children
        return ast.CastExpr(self._span(meta), type_ref, tuple(d.size for d in dims), operand)

    def prefix(self, meta: Any, children: list[Any]) -> ast.UnaryExpr:
        op, operand = children
        return ast.UnaryExpr(self._span(meta), str(op), operand)

    def postfix(self, meta: Any, children: list[Any]) -> ast.PostfixExpr:
        operand, op = children
        return ast.PostfixExpr(self._span(meta), str(op), operand)

    def sizeof_expr(self, meta: Any, children: list[Any]) -> ast.SizeofExpr:
        return ast.SizeofExpr(self._span(meta), children[-1])

    sizeof_type = sizeof_expr

    def index(self, meta: Any, children: list[Any]) -> ast.IndexExpr:
        obj, index = children
        return ast.IndexExpr(self._span(meta), obj, index)

    def call(self, meta: Any, children: list[Any]) -> ast.CallExpr:
        callee, args = children
        return ast.CallExpr(self._span(meta), callee, None, args)

    def member(self, meta: Any, children: list[Any]) -> ast.MemberExpr:
        obj, name = children
        return ast.MemberExpr(self._span(meta), obj, name)

    def method_template_call(self, meta: Any, children: list[Any]) -> ast.CallExpr:
        obj, name, template_args, args = children
        span = self._span(meta)
        callee = ast.MemberExpr(obj.span.to(span), obj, name)
        return ast.CallExpr(span, callee, template_args, args)

    def template_call(self, meta: Any, children: list[Any]) -> ast.CallExpr:
        callee, template_args, args = children
        return ast.CallExpr(self._span(meta), callee, template_args, args)

    def construct(self, meta: Any, children: list[Any]) -> ast.ConstructExpr:
        type_ref, args = children
        return ast.ConstructExpr(self._span(meta), type_ref, args)

    def member_name(self, meta: Any, children: list[Any]) -> str:
        return str(children[0])

    def args(self, meta: Any, children: list[Any]) -> tuple[Any, ...]:
        return tuple(c for c in children if c is not None)

    def name(self, meta: Any, children: list[Any]) -> ast.NameExpr:
        if len(children) == 1:
            return ast.NameExpr(self._span(meta), (str(children[0]),))
        names, scope_args = _split_scope(children[0])
        return ast.NameExpr(self._span(meta), names + (str(children[1]),), scope_args)

    def int_literal(self, meta: Any, children: list[Any]) -> ast.IntLiteral:
        tok = children[0]
        text = str(tok)
        span = self._span(meta)
        if text.isdecimal() and (text[0] != "0" or len(text) == 1) and len(text) < 20:
            return ast.IntLiteral(span, int(text), "", text)   # most literals: decimal, no suffix, < 2**64
        digits = text.rstrip("uUlL")
        suffix = text[len(digits):].lower()
        if suffix not in _INT_SUFFIXES:
            self.diagnostics.append(codes.INVALID_LITERAL(span, f"invalid suffix '{text[len(digits):]}' on integer literal"))
            suffix = ""
        if digits[:2] in ("0x", "0X"):
            value = int(digits, 16)
        elif len(digits) > 1 and digits[0] == "0":
            if any(ch in "89" for ch in digits):
                self.diagnostics.append(codes.INVALID_LITERAL(span, f"invalid digit in octal constant '{text}'"))
                value = _decimal(digits)
            else:
                value = int(digits, 8)
        else:
            value = _decimal(digits)
        if value >= 1 << 64:
            self.diagnostics.append(codes.INTEGER_TOO_LARGE(
                span, "integer literal is too large to be represented in any integer type"))
            value &= (1 << 64) - 1
        return ast.IntLiteral(span, value, suffix, text)

    def float_literal(self, meta: Any, children: list[Any]) -> ast.FloatLiteral:
        text = str(children[0])
        body = text[:text.index("#INF") + 4] if "#INF" in text else text.rstrip("fFhHlL")
        span = self._span(meta)
        if body.endswith("#INF"):
            # dxc reads exactly `1.#INF` as infinity (its APFloat change); other digits before
            # `.#INF` lex as one number but name no value
            if body != "1.#INF":
                self.diagnostics.append(codes.INVALID_LITERAL(
                    span, f"invalid floating-point literal '{text}' (infinity is written '1.#INF')"))
            return ast.FloatLiteral(span, math.inf, text[len(body):].lower(), text)
        return ast.FloatLiteral(span, float(body), text[len(body):].lower(), text)

    def char_literal(self, meta: Any, children: list[Any]) -> ast.IntLiteral:
        """`'H'`: as in dxc, one narrow character whose (signed char) value converts to `uint`."""
        tok = children[0]
        text = str(tok)
        span = self._span(meta)
        quote = text.index("'")
        decoded = self._decode_string(tok, quote + 1)
        if not decoded and len(text) > quote + 2:
            return ast.IntLiteral(span, 0, "u", text)   # a bad escape, reported by _decode_string
        if re.fullmatch(r"\\(x[0-9a-fA-F]+|[0-7]{1,3})", text[quote + 1:-1]) and ord(decoded[:1] or "\0") <= 0xFF:
            value = bytes([ord(decoded)]) if decoded else b""   # an octal or hex escape names a byte
        else:
            value = decoded.encode("utf-8", errors="replace")   # a character of the source, in UTF-8 as clang reads it
        if quote or len(value) != 1:
            what = (f"'{text[:quote]}' prefixed" if quote else "empty" if not value
                    else "multi-character" if len(value) > 1 else "")
            self.diagnostics.append(codes.UNSUPPORTED_CHAR_LITERAL(
                span, f"{what} character literal {text} is not supported: write one character, as in 'A'"))
            return ast.IntLiteral(span, 0, "u", text)
        return ast.IntLiteral(span, (value[0] - 256 if value[0] >= 0x80 else value[0]) & 0xFFFFFFFF, "u", text)

    def string_literal(self, meta: Any, children: list[Any]) -> ast.StringLiteral:
        return ast.StringLiteral(self._span(meta), "".join(self._decode_string(tok) for tok in children))

    def _decode_string(self, tok: Any, opening: int = 1) -> str:
        """The value of one string or character token (its body starts at `opening` and ends one
        character before the token's end): C escapes decoded (clang's rules and messages)."""
        body = str(tok)[opening:-1]
        if "\\" not in body:
            return body
        base = tok.start_pos + opening

        def decode(m: re.Match[str]) -> str:
            octal, hex_digits, short, long, other = m.groups()
            span = self.locations.span(base + m.start(), base + m.end())
            if octal is not None:
                return chr(int(octal, 8))
            if hex_digits is not None:
                if not hex_digits:
                    self.diagnostics.append(codes.INVALID_ESCAPE(span, "\\x used with no following hex digits"))
                    return ""
                value = int(hex_digits, 16)
                if value > 0xFF:
                    self.diagnostics.append(codes.INVALID_ESCAPE(span, "hex escape sequence out of range"))
                    return ""
                return chr(value)
            if short is not None or long is not None:
                digits, needed, letter = (short, 4, "u") if short is not None else (long, 8, "U")
                point = int(digits, 16) if len(digits) == needed else None
                if point is None or point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
                    self.diagnostics.append(codes.INVALID_ESCAPE(
                        span, f"incomplete universal character name: \\{letter} needs {needed} hex digits"
                        if point is None else "invalid universal character"))
                    return ""
                return chr(point)
            if other in _ESCAPES:
                return _ESCAPES[other]
            self.diagnostics.append(codes.UNKNOWN_ESCAPE(span, f"unknown escape sequence '\\{other}'"))
            return other

        return _ESCAPE_RE.sub(decode, body)

    def true_literal(self, meta: Any, children: list[Any]) -> ast.BoolLiteral:
        return ast.BoolLiteral(self._span(meta), True)

    def false_literal(self, meta: Any, children: list[Any]) -> ast.BoolLiteral:
        return ast.BoolLiteral(self._span(meta), False)




class _Modifier(str):
    """A declaration keyword (`static`, `in`, ...) among a rule's children."""


@dataclass(frozen=True)
class _ArrayDim:
    size: Any


@dataclass(frozen=True)
class _CaseLabel:
    span: Span
    value: Any


@dataclass(frozen=True)
class _SpecializedName:
    """A function name with template arguments: `F<float3x3>` of an explicit specialisation, or
    on its scope (`Box<T>::get`, with `args` None)."""

    name: tuple[str, ...]
    args: tuple[Any, ...] | None
    scope_args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _TemplatedPart:
    """A scope part with template arguments: `Box<T>` in `Box<T>::get`."""

    name: str
    args: tuple[Any, ...]


def _declarator(span: Span, children: list[Any]) -> ast.Declarator:
    """The declarator of `name array_dim* annotation* init` (the last child, None when absent)."""
    name, *rest = children
    init = rest[-1] if rest else None
    middle = rest[:-1]
    return ast.Declarator(
        span,
        name=name,
        array_dims=tuple(c.size for c in middle if isinstance(c, _ArrayDim)),
        annotations=AstBuilder._of(middle, (ast.Semantic, ast.RegisterBinding, ast.PackOffset)),
        init=init,
    )


def _climb_precedence(children: list[Any]) -> Any:
    """The expression of `operand (operator operand)*` with C precedence, all left-associative
    (precedence climbing)."""
    operands = [children[0]]
    operators: list[str] = []

    def reduce_top() -> None:
        right = operands.pop()
        left = operands.pop()
        operands.append(ast.BinaryExpr(left.span.to(right.span), operators.pop(), left, right))

    for index in range(1, len(children), 2):
        op = str(children[index])
        while operators and ast.BINARY_OPERATOR_PRECEDENCE[operators[-1]] >= ast.BINARY_OPERATOR_PRECEDENCE[op]:
            reduce_top()
        operators.append(op)
        operands.append(children[index + 1])
    while operators:
        reduce_top()
    return operands[0]


def _split_scope(parts: tuple[Any, ...]) -> tuple[tuple[str, ...], ast.ScopeArgs]:
    """A scope's names and, when any part has them, the template arguments of each part."""
    names = tuple(p.name if isinstance(p, _TemplatedPart) else p for p in parts)
    if not any(isinstance(p, _TemplatedPart) for p in parts):
        return names, ()
    return names, tuple(p.args if isinstance(p, _TemplatedPart) else None for p in parts)


def _replace(node: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(node, **changes)


class _Value(collections.namedtuple("_Value", ("value", "start_pos", "end_pos", "rule"))):
    """A reduced rule's result on lark's value stack, with its place in the expanded text.

    A named tuple: the callbacks make them with `tuple.__new__(_Value, (...))`, far fewer
    instructions than a class's `__init__`, and there is one per reduction."""

    __slots__ = ()


class _Spliced(_Value):
    """The children of an inlined helper rule (`_rule`, `x*`), spliced into the parent's."""

    __slots__ = ()


def _install_callbacks(lark_parser: Any, builder: AstBuilder) -> None:
    """Replace lark's tree-building reduction callbacks with ones that call `builder` directly.

    They follow lark's own rules for what a rule's children are (anonymous tokens filtered
    out, `_rule`s spliced in, `None` for absent `[optional]` parts, `?rule` with one child
    replaced by that child) but skip the intermediate tree and carry text positions, which
    is several times faster than building a tree with `propagate_positions` and
    transforming it afterwards.  The callbacks are generated (`_callback_table`) when the
    parser is built and their compiled code is cached with it.
    """
    lalr = lark_parser.parser.parser.parser
    table = getattr(lark_parser, "wgc_callbacks", None)
    if table is None:   # a parser that was not built by `_built_parser`
        table = _callback_table(list(lalr.callbacks), builder)
    lalr.callbacks = dict(zip(lalr.callbacks, _callback_functions(table, builder), strict=True))


def _callback_functions(table: tuple[bytes, list[tuple[str, str] | None]], builder: AstBuilder) -> list[Any]:
    """The reduction callbacks of `_callback_table`'s `table`, in the order of its rules, calling
    `builder`'s methods (`_PASS_THROUGH` for `?a: b`)."""
    code, plans = table
    makers: dict[str, Any] = {}
    exec(marshal.loads(code), {}, makers)  # noqa: S102 - the code `_callback_table` generated
    callbacks = []
    for plan in plans:
        if plan is None:
            callbacks.append(_PASS_THROUGH)
        else:
            maker, name = plan
            method = None if name.startswith("_") else getattr(builder, name, None)
            callbacks.append(makers[maker](method, name, _Value, _Spliced, tuple.__new__))
    return callbacks


_PASS_THROUGH = operator.itemgetter(0)
"""The callback of `?a: b`: the child stands for the rule, positions and all."""


def _callback_table(rules: list[Any], builder: AstBuilder) -> tuple[bytes, list[tuple[str, str] | None]]:
    """The reduction callbacks of `rules`: (the marshalled code of a module that defines one
    `make_N(method, name, _Value, _Spliced, new) -> callback` per shape of rule, `_callback_source`;
    per rule, None for `?a: b` (the child itself) or the name of its maker and the rule's name)."""
    sources: dict[str, str] = {}
    plans: list[tuple[str, str] | None] = []
    for rule in rules:
        name = str(rule.alias or rule.options.template_source or rule.origin.name)
        inline = name.startswith("_")
        expand_single = bool(rule.options.expand1) and not rule.alias
        if not inline and not expand_single and getattr(builder, name, None) is None:
            raise AssertionError(f"no AST builder for grammar rule {name!r}")
        include = _included_children(rule)
        trailing_nones = include.pop()[2]
        if expand_single and len(rule.expansion) == 1 and include == [(0, False, 0)] and not trailing_nones:
            plans.append(None)
            continue
        kind = "inline" if inline else "expand" if expand_single else "method"
        source = _callback_source(tuple(symbol.is_term for symbol in rule.expansion), tuple(include),
                                  trailing_nones, kind)
        maker = sources.setdefault(source, f"make_{len(sources)}")
        plans.append((maker, name))
    module = "".join(source.replace("def make(", f"def {maker}(", 1) for source, maker in sources.items())
    return marshal.dumps(compile(module, "<wgc reduction callbacks>", "exec")), plans


def _callback_source(terminals: tuple[bool, ...], include: tuple[tuple[int, bool, int], ...], trailing_nones: int,
                     kind: str) -> str:
    """The source of `make(method, name, _Value, _Spliced, new) -> callback` for the rules of one shape
    (`new`: `tuple.__new__`).

    `terminals`: per symbol of the expansion, is it a terminal (its child a token, which always has
    a position); `include` and `trailing_nones`: what `_included_children` says; `kind`: "inline"
    (a `_rule`, whose kept children go to its parent as a `_Spliced`), "expand" (a `?rule`: one
    kept child stands for it, else as "method") or "method" (the builder method's result as a
    `_Value`, or an AssertionError where the rule has none).  The callback does what the rules of
    `_install_callbacks` say, written out for the shape: the children unpacked by position, the
    extent from the first and the last child that has one, the kept children as a list display.
    One generic function with loops over `include` per call would do that work at every reduction.
    """
    count = len(terminals)
    body: list[str] = []
    if count == 1:
        body.append("c0 = children[0]")
    elif count:
        body.append(", ".join(f"c{i}" for i in range(count)) + ", = children")

    def extent(var: str, attribute: str, order: range) -> None:
        """`var` = the `attribute` of the first child in `order` that has one (not None)."""
        branches = 0
        for i in order:
            if terminals[i]:
                body.append(f"else: {var} = c{i}.{attribute}" if branches else f"{var} = c{i}.{attribute}")
                return
            body.append(f"{'elif' if branches else 'if'} c{i} is not None and ({var} := c{i}.{attribute}) is not None:"
                        " pass")
            branches += 1
        body.append(f"else: {var} = None" if branches else f"{var} = None")

    def unwrapped(item: str) -> str:
        return f"({item}.value if type({item}) is _Value else {item})"

    spliced = any(splice for _index, splice, _nones in include)
    if not spliced:
        raw: list[str] = []
        for index, _splice, nones in include:
            raw.extend(["None"] * nones)
            raw.append(f"c{index}")
        raw.extend(["None"] * trailing_nones)
        if kind == "expand" and len(raw) == 1:
            body.append(f"return {raw[0]}")   # the one kept child stands for the rule
            return _callback_function(body)
        if kind == "inline":
            body.append(f"kept = [{', '.join(raw)}]")
        elif all(terminals) and raw == [f"c{i}" for i in range(count)]:
            # every child a token, all kept: the list the parser made is the children (a fresh one
            # per reduction), no copy (`name: IDENT`, `int_literal: INT_LITERAL`, ...)
            body.append("values = children")
        else:
            values = [item if item == "None" or terminals[int(item[1:])] else unwrapped(item) for item in raw]
            body.append(f"values = [{', '.join(values)}]")
    else:
        started = False   # is `kept` bound yet
        for index, splice, nones in include:
            if nones:
                body.append(f"kept.extend({(None,) * nones!r})" if started else f"kept = {[None] * nones!r}")
                started = True
            if splice:
                # the first: take the list over (copying it would make `x (op x)*` quadratic)
                body.append(f"kept.extend(c{index}.value)" if started else f"kept = c{index}.value")
            else:
                body.append(f"kept.append(c{index})" if started else f"kept = [c{index}]")
            started = True
        if trailing_nones:
            body.append(f"kept.extend({(None,) * trailing_nones!r})")
        if kind == "expand":
            body.append("if len(kept) == 1: return kept[0]")
        if kind != "inline":
            body.append(f"values = [{unwrapped('v')} for v in kept]")
    extent("start", "start_pos", range(count))
    extent("end", "end_pos", range(count - 1, -1, -1))
    if kind == "inline":
        body.append("return new(_Spliced, (kept, start, end, name))")
    else:
        if kind == "expand":   # (a "method" rule has its method: `_callback_table` made sure)
            body.append("if method is None: raise AssertionError(f'no AST builder for grammar rule {name!r}')")
        body.append("return new(_Value, (method((start, end), values), start, end, name))")
    return _callback_function(body)


def _callback_function(body: list[str]) -> str:
    return "\n".join(["def make(method, name, _Value, _Spliced, new):", " def callback(children):",
                      *(f"  {line}" for line in body), " return callback", ""])


def _included_children(rule: Any) -> list[tuple[int, bool, int]]:
    """(index, splice?, Nones to insert before) per kept child, then a final (-1, False, Nones)."""
    empty = rule.options.empty_indices
    if empty:
        bits = "".join(str(int(b)) for b in empty)
        nones_at = [len(run) for run in bits.split("0")]
    else:
        nones_at = [0] * (len(rule.expansion) + 1)
    keep_all = rule.options.keep_all_tokens
    include = []
    pending = 0
    for index, symbol in enumerate(rule.expansion):
        pending += nones_at[index]
        if keep_all or not (symbol.is_term and symbol.filter_out):
            include.append((index, not symbol.is_term and symbol.name.startswith("_"), pending))
            pending = 0
    include.append((-1, False, pending + nones_at[len(rule.expansion)]))
    return include


# ---------------------------------------------------------------- the parser

_PARSER: Any = None
_FAST: _FastParser | None = None
_BUILDER: AstBuilder | None = None
_POSTLEX: TypeNamePostLexer | None = None
_PARSER_ORIGIN: str | None = None
"""Where the fast loop's tables came from: "cache" (`TABLES_CACHE`), else where lark's parser did."""
_LARK_ORIGIN: str | None = None


def grammar_text() -> str:
    """The grammar shipped in the package (`wgc/grammar/hlsl.lark`), or the checkout's."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in (os.path.join(package, "grammar", "hlsl.lark"),
                 os.path.join(os.path.dirname(package), "grammar", "hlsl.lark")):
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as file:
                return file.read()
    from importlib import resources   # a package imported from a zip file

    return resources.files("wgc").joinpath("grammar", "hlsl.lark").read_text(encoding="utf-8")


LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": True}
PARSER_CACHE = "hlsl-parser"
"""The `wgc.startup_cache` name of the built parser (LALR tables and lexers, pickled)."""
PARSER_CACHE_FORMAT = 4
"""Changes with what `_built_parser` stores (a checkout between two versions keeps its caches apart)."""


def _parser_cache_key(grammar: str) -> str:
    """Everything the pickled parser depends on: the grammar's content, lark's, Python's and wgc's
    versions (wgc's code decides what is pickled), the options it is built with and the code that
    generates the reduction callbacks (their code is stored with it: a checkout that edits it
    must not load the code of the edit before)."""
    import hashlib
    import sys

    import lark

    from wgc.version import __version__

    try:   # this module's file: its code generates the callbacks (marshal's bytes vary by process)
        with open(__file__, "rb") as file:
            generator = hashlib.sha256(file.read()).hexdigest()
    except OSError:
        generator = "unknown"
    return (f"format {PARSER_CACHE_FORMAT}; wgc {__version__}; lark {lark.__version__}; python {sys.hexversion:x}; "
            f"options {sorted(LARK_OPTIONS.items())}; grammar sha256 {hashlib.sha256(grammar.encode()).hexdigest()}; "
            f"parse.py sha256 {generator}")


def _by_name() -> dict[str, Any]:
    """The objects a pickled parser refers to by name: the `re` module (modules do not pickle)."""
    return {"re": re}


def _pattern_code(pattern: re.Pattern[str]) -> tuple[Any, ...] | None:
    """What `_sre.compile` makes `pattern` from (its compiled code), or None where this Python's
    `re` internals are not the ones this was written for (3.11-3.13) or give another pattern."""
    try:
        import _sre  # type: ignore[import-not-found]
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern.pattern, pattern.flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        args = (pattern.pattern, int(pattern.flags | parsed.state.flags),
                [int(word) for word in _compiler._code(parsed, pattern.flags)], parsed.state.groups - 1,
                groupindex, tuple(indexgroup))
        if _sre.compile(*args) != pattern:   # patterns compare by flags, text and code
            return None
        return args
    except Exception:  # noqa: BLE001 - any difference in the internals: pickle the pattern's text
        return None


@functools.cache
def _pickling() -> tuple[Any, Any]:
    """(`_ParserPickler`, `_ParserUnpickler`), made on first use: only lark's parser is pickled, and
    a compile of text that parses never loads it (nor `pickle`)."""
    import pickle

    class _ParserPickler(pickle.Pickler):
        """Pickles a built lark parser without what cannot or must not be pickled by value: the objects
        of `_by_name` and wgc's post-lexer (the loading process gives its own); compiled regular
        expressions go with their code, so that loading does not parse and compile them again."""

        def __init__(self, file: Any, postlex: TypeNamePostLexer) -> None:
            super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
            self.names: dict[int, Any] = {id(obj): name for name, obj in _by_name().items()}
            self.names[id(postlex)] = "postlex"
            self.patterns: dict[tuple[str, int], Any] = {}

        def reducer_override(self, obj: Any) -> Any:
            """lark's Shift and Reduce actions, which its parser compares by identity, as references to
            the module's objects (pickled once, then memoized: the table holds 20,000 of them)."""
            from lark.parsers.lalr_analysis import Action, Reduce, Shift

            if type(obj) is Action:
                if obj is Shift:
                    return "Shift"
                if obj is Reduce:
                    return "Reduce"
            return NotImplemented

        def persistent_id(self, obj: Any) -> Any:
            if type(obj) is re.Pattern:
                key = (obj.pattern, obj.flags)
                if key not in self.patterns:
                    code = _pattern_code(obj)
                    self.patterns[key] = ("pattern", *code) if code is not None else None
                return self.patterns[key]
            return self.names.get(id(obj))


    class _ParserUnpickler(pickle.Unpickler):
        """Loads what `_ParserPickler` stored, and only that: besides the persistent ids, the globals it
        may name are lark's classes, its Shift and Reduce actions and `re._compile` (defence in depth: the cache is
        read only from a private folder, `wgc.startup_cache`), so no other callable can run."""

        def __init__(self, file: Any, postlex: TypeNamePostLexer) -> None:
            super().__init__(file)
            self.objects = {**_by_name(), "postlex": postlex}

        def find_class(self, module: str, name: str) -> Any:
            if (module == "lark" or module.startswith("lark.")) and name.isidentifier():
                found = super().find_class(module, name)
                if isinstance(found, type) and found.__module__.partition(".")[0] == "lark":   # not re-exported
                    return found
                if module == "lark.parsers.lalr_analysis" and name in ("Shift", "Reduce"):
                    return found
            if (module, name) == ("re", "_compile"):   # a pattern stored as its text (`_pattern_code` None)
                return super().find_class(module, name)
            raise pickle.UnpicklingError(f"the parser cache may not name {module}.{name}")

        def persistent_load(self, pid: Any) -> Any:
            if isinstance(pid, tuple) and pid[0] == "pattern":
                import _sre

                return _sre.compile(*pid[1:])
            try:
                return self.objects[pid]
            except KeyError:
                raise pickle.UnpicklingError(f"unknown persistent id {pid!r}") from None

    return _ParserPickler, _ParserUnpickler


def _build_lexers(parser: Any) -> None:
    """Build the scanners of every state of lark's contextual lexer now (lark builds each on first
    use, compiling its regular expression), so that the cache holds them all."""
    try:
        contextual = parser.parser.lexer.lexer
        lexers = [*contextual.lexers.values(), contextual.root_lexer]
    except AttributeError:  # another lark: its lexers are built lazily, as before
        return
    for lexer in lexers:
        lexer.scanner  # noqa: B018 - reading the property builds the lazy scanner


def _built_parser(grammar: str, postlex: TypeNamePostLexer) -> Any:
    """lark's parser for `grammar`, built from scratch (about a second) and stored in the cache
    without its reduction callbacks (`_install_callbacks` puts wgc's in place after loading) but
    with their generated code (`wgc_callbacks`, from `_callback_table`)."""
    from lark import Lark

    parser: Any = Lark(grammar, postlex=postlex, **LARK_OPTIONS)
    _build_lexers(parser)
    lalr = parser.parser.parser.parser
    parser.wgc_callbacks = _callback_table(list(lalr.callbacks), AstBuilder())   # their code, without functions
    lalr.callbacks = dict.fromkeys(lalr.callbacks)          # the rules, without lark's tree builders
    parser._callbacks = parser.parser.parser_conf.callbacks = {}
    parser._parse_tree_builder = None
    import io
    import pickle

    buffer = io.BytesIO()
    try:
        _pickling()[0](buffer, postlex).dump(parser)
    except (pickle.PicklingError, TypeError, AttributeError):   # a lark whose objects do not pickle: no cache
        return parser
    startup_cache.write(PARSER_CACHE, _parser_cache_key(grammar), buffer.getvalue())
    return parser


def _cached_parser(grammar: str, postlex: TypeNamePostLexer) -> Any:
    """The parser stored by an earlier process for this grammar and these versions, or None."""
    payload = startup_cache.read(PARSER_CACHE, _parser_cache_key(grammar))
    if payload is None:
        return None
    import io

    collecting = gc.isenabled()
    gc.disable()   # loading makes some 100,000 objects, all kept: collections in between find nothing
    try:
        return _pickling()[1](io.BytesIO(payload), postlex).load()
    except Exception:  # noqa: BLE001 - a cache that does not load is rebuilt, whatever the reason
        return None
    finally:
        if collecting:
            gc.enable()


def _shared() -> tuple[AstBuilder, TypeNamePostLexer]:
    """The AST builder and the post-lexer, one of each per process: lark's parser and the fast
    loop both use them."""
    global _BUILDER, _POSTLEX
    if _BUILDER is None or _POSTLEX is None:
        _BUILDER, _POSTLEX = AstBuilder(), TypeNamePostLexer()
    return _BUILDER, _POSTLEX


def _parser() -> tuple[Any, AstBuilder, TypeNamePostLexer]:
    """lark's parser (loaded from its cache or built, with wgc's callbacks), the builder and the
    post-lexer; a process needs lark's parser only for a syntax error or to build the tables."""
    global _PARSER, _LARK_ORIGIN
    builder, postlex = _shared()
    if _PARSER is None:
        grammar = grammar_text()
        parser = _cached_parser(grammar, postlex)
        _LARK_ORIGIN = "cache"
        if parser is None:
            parser, _LARK_ORIGIN = _built_parser(grammar, postlex), "built"
        _install_callbacks(parser, builder)
        _PARSER = parser
    return _PARSER, builder, postlex


TABLES_CACHE = "hlsl-parse-tables"
"""The `wgc.startup_cache` name of what `_FastParser` reads of lark's parser, as plain data (marshal)."""
TABLES_FORMAT = 2
"""Changes with what `_plain_tables` stores."""


def _tables_cache_key(grammar: str) -> str:
    """Everything the plain tables depend on, found without importing lark: the grammar's content,
    this module's (it makes the tables and the callbacks' code), lark's `__init__.py` (its version
    is written there), Python's and wgc's versions and the options the parser is built with."""
    import sys
    from importlib.machinery import PathFinder

    from wgc.identity import digest
    from wgc.version import __version__

    try:
        with open(__file__, "rb") as file:
            generator = digest(file.read()).hex()
    except OSError:
        generator = "unknown"
    spec = PathFinder.find_spec("lark")
    try:
        assert spec is not None and spec.origin is not None
        info = os.stat(spec.origin)
        lark = f"{spec.origin} {info.st_size} {info.st_mtime_ns}"
    except (AssertionError, OSError):
        lark = "unknown"
    return (f"format {TABLES_FORMAT}; wgc {__version__}; lark {lark}; python {sys.hexversion:x}; "
            f"options {sorted(LARK_OPTIONS.items())}; grammar {digest(grammar.encode()).hex()}; parse.py {generator}")


def _pattern_spec(pattern: re.Pattern[str]) -> tuple[Any, ...]:
    """A compiled regular expression as plain data: ("code", what `_sre.compile` takes) or, where
    `_pattern_code` cannot give that, ("text", pattern, flags)."""
    code = _pattern_code(pattern)
    return ("code", *code) if code is not None else ("text", pattern.pattern, int(pattern.flags))


def _compiled(spec: tuple[Any, ...]) -> re.Pattern[str]:
    """The regular expression `_pattern_spec` made `spec` of (or the one a ("compiled", pattern)
    spec of tables made for this process only holds)."""
    if spec[0] == "compiled":
        pattern: re.Pattern[str] = spec[1]
        return pattern
    if spec[0] == "code":
        import _sre

        compiled: re.Pattern[str] = _sre.compile(*spec[1:])
        return compiled
    return re.compile(spec[1], spec[2])


def _plain_tables(lark_parser: Any, for_cache: bool = True) -> dict[str, Any]:
    """What `_FastParser` reads of lark's parser (built by `_built_parser`, or loaded), in marshal's
    types: the start and end states; per state, its row (symbol -> (True, next state) to shift,
    (None, rule name) for a `?a: b` rule, (False, rule index) to reduce); per rule (in the order of
    the callbacks' plans), (number of children, name); the callbacks' code and plans; per state,
    its lexer's index; per lexer, its regular expressions, ignored kinds, keyword expressions (lark's
    `UnlessCallback`s: kind -> the expressions whose full match renames a token of that kind) and
    terminal names in order; per terminal, (its regular expression, the one string it matches or
    None); per ASCII character, the terminals a token can start with it; the expressions' flags.
    Each row and each lexer is marshalled on its own (bytes), read when the loop first needs it: a
    compile meets a fraction of them. Not `for_cache` (no cache can be written here): the rows and
    lexers as they are and the compiled expressions themselves, made in a fraction of the time."""
    from lark.lexer import PatternStr, UnlessCallback
    from lark.parsers.lalr_analysis import Shift

    frontend = lark_parser.parser
    contextual = frontend.lexer.lexer
    lalr = frontend.parser.parser
    table = lalr.parse_table
    rules = list(lalr.callbacks)
    index = {rule: number for number, rule in enumerate(rules)}
    code, plans = lark_parser.wgc_callbacks
    pack: Any = marshal.dumps if for_cache else (lambda value: value)
    spec: Any = _pattern_spec if for_cache else (lambda pattern: ("compiled", pattern))
    states = {}
    for state, row in table.states.items():
        converted: dict[str, tuple[bool | None, Any]] = {}
        for name, (action, arg) in row.items():
            if action is Shift:
                converted[str(name)] = (True, arg)
            elif plans[index[arg]] is None:
                converted[str(name)] = (None, str(arg.origin.name))
            else:
                converted[str(name)] = (False, index[arg])
        states[state] = pack(converted)
    numbers: dict[int, int] = {}
    lexers: list[Any] = []
    lexer_of = {}
    for state, lexer in contextual.lexers.items():
        if id(lexer) not in numbers:
            scanner = lexer.scanner   # lark builds it lazily
            # the keyword memo of `run` assumes what lark's keyword callbacks are: a token's new type is
            # a function of its text
            assert all(isinstance(c, UnlessCallback) for c in lexer.callback.values())
            assert not lexer.ignore_types & lexer.callback.keys() and lexer.re is re
            numbers[id(lexer)] = len(lexers)
            lexers.append(pack((
                tuple(spec(mre) for mre in scanner._mres), tuple(sorted(lexer.ignore_types)),
                {kind: tuple(spec(mre) for mre in callback.scanner._mres)
                 for kind, callback in lexer.callback.items()},
                tuple(terminal.name for terminal in scanner.terminals))))
        lexer_of[state] = numbers[id(lexer)]
    terminals = {terminal.name: (terminal.pattern.to_regexp(),
                                 terminal.pattern.value if isinstance(terminal.pattern, PatternStr)
                                 and not terminal.pattern.flags else None)
                 for terminal in contextual.root_lexer.terminals}
    [start] = table.start_states.values()
    [end] = table.end_states.values()
    return {"format": TABLES_FORMAT, "start": start, "end": end, "states": states,
            "rules": [(len(rule.expansion), str(rule.origin.name)) for rule in rules], "callbacks": (code, plans),
            "lexer_of": lexer_of, "lexers": lexers, "terminals": terminals,
            "starters": _starting_terminals(contextual.root_lexer.terminals),
            "flags": contextual.root_lexer.g_regex_flags}


def _cached_tables(grammar: str) -> dict[str, Any] | None:
    """The plain tables an earlier process stored for this grammar and these versions, or None."""
    payload = startup_cache.read(TABLES_CACHE, _tables_cache_key(grammar))
    if payload is None:
        return None
    try:
        tables = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return tables if isinstance(tables, dict) and tables.get("format") == TABLES_FORMAT else None


class Token(str):
    """A token of `_FastParser.run`: lark's `Token` without lark (the fast loop of a text that
    parses imports none of it): the same attributes (lines and columns 0), the same class name
    (which the AST builder tells tokens by)."""

    __slots__ = ("type", "start_pos", "value", "end_pos")
    type: str
    start_pos: int
    value: str
    end_pos: int
    # the same for every token of the loop, read from the class (four stores fewer per token)
    line: ClassVar[int] = 0
    column: ClassVar[int] = 0
    end_line: ClassVar[int] = 0
    end_column: ClassVar[int] = 0


class _FastParser:
    """lark's LALR tables and contextual lexer, driven by one tight loop for text that parses.

    It reads them as plain data (`_plain_tables`, cached as `TABLES_CACHE`), so that lark is not
    imported (nor its parser loaded) where the text parses. `lark.Lark.parse` lexes with a generic line-counting lexer and feeds tokens through a parser
    state object: per token, several method calls and attribute lookups that are a third of the
    parse.  `run` does the same work with the same tables, the same per-state scanners (the
    contextual lexer: the terminals of the state the parser is in when the token is read, lark's
    keyword callbacks included) and the same postlexer, in one loop over local variables (no
    generators between the lexer, the postlexer and the parser); its tokens carry offsets but no
    line or column (nothing before sema reads them).  Shortcuts that do not change what is built:
    blanks are skipped before a state's scanner is tried (no other terminal starts with one); the
    token's first character picks the terminals that can start there (`_first_character`): where
    that is one terminal of that one character (`;`, `(`), the token is made without a regular
    expression, else only those terminals' alternatives are tried; the postlexer is called only for
    the kinds it renames or counts; and a chain of pass-through reductions (`?a: b`, more than half
    of all reductions) is one memoized state change (`unit_chains`).  On the first
    problem (a character no terminal matches, a token the table does not take) it gives up and
    returns `_FAILED`; `parse` then runs lark's own parser on the same text, which meets the same
    error and raises it with everything the diagnostics are made from, so syntax diagnostics do
    not depend on this loop.
    """

    def __init__(self, tables: dict[str, Any], builder: AstBuilder) -> None:
        self.start: int = tables["start"]
        self.end: int = tables["end"]
        self.states: dict[int, Any] = tables["states"]
        """Parser state -> its row, marshalled (`_plain_tables`; as it is where not for the cache)."""
        self.rules: list[tuple[int, str]] = tables["rules"]
        self.callbacks = _callback_functions(tables["callbacks"], builder)
        """Rule index -> its reduction callback (`_PASS_THROUGH` for `?a: b`)."""
        self.lexers: dict[int, int] = tables["lexer_of"]
        """Parser state -> the index of its lexer (of lark's contextual lexer) in `lexer_tables`."""
        self.lexer_tables: list[Any] = tables["lexers"]
        self.terminals: dict[str, tuple[str, str | None]] = tables["terminals"]
        self.flags: int = tables["flags"]
        size = max(self.states) + 1
        self.rows: list[dict[str, tuple[bool | None, Any]] | None] = [None] * size
        """Parser state -> its row of the table (`_row`), None until the parser first reaches it."""
        self.reductions: dict[int, tuple[int, str, Any]] = {}
        self.starters: dict[str, list[str]] = tables["starters"]
        """ASCII character -> the grammar's terminals that a token can start with it."""
        self.scanners: list[tuple[Any, ...] | None] = [None] * size
        self.scanners_by_lexer: dict[int, tuple[Any, ...]] = {}
        self.alternatives: dict[tuple[str, ...], Any] = {}
        """Terminal names -> `match` of the regular expression of those terminals' alternatives."""
        self.unit_chains: dict[tuple[int, int, str], int] = {}
        """(state below, state on top, token) -> the state after the pass-through reductions there."""

    def _row(self, state: int) -> dict[str, tuple[bool | None, Any]]:
        """The state's row of the table in the shape the loop reads, converted when the parser first
        reaches the state (a compile meets a fraction of the grammar's states): symbol -> (True, next
        state) to shift, (False, (size, rule name, callback)) to reduce, or (None, rule name) to reduce
        by a rule whose one child stands for it (`?a: b`, the `_PASS_THROUGH` callback)."""
        row: dict[str, tuple[bool | None, Any]] = {}
        reductions = self.reductions
        packed = self.states[state]
        for symbol, action in (marshal.loads(packed) if type(packed) is bytes else packed).items():
            if action[0] is False:
                rule = action[1]
                reduction = reductions.get(rule)
                if reduction is None:
                    count, name = self.rules[rule]
                    reduction = reductions[rule] = (count, name, self.callbacks[rule])
                row[symbol] = (False, reduction)
            else:
                row[symbol] = action
        self.rows[state] = row
        return row

    def _scanner(self, state: int) -> tuple[Any, ...]:
        """(first characters, match, ignored types, keyword expressions, keyword memo, lexer index,
        terminals) of the state's lexer, built on first use and shared by the states that share the
        lexer: `match(text, pos)` is the first match of its regular expressions (lark makes one
        unless the terminals are too many for one), None if none matches; first characters: what
        `_first_character` found so far; keyword expressions: kind -> the expressions whose full
        match gives a token of that kind another (lark's `UnlessCallback`); terminals: name -> place
        in the lexer's order, less the keywords those make."""
        index = self.lexers[state]
        found = self.scanners_by_lexer.get(index)
        if found is None:
            packed = self.lexer_tables[index]
            patterns, ignored, keywords, names = marshal.loads(packed) if type(packed) is bytes else packed
            regexes = tuple(_compiled(spec) for spec in patterns)
            found = ({}, regexes[0].match if len(regexes) == 1 else functools.partial(_first_match, regexes),
                     frozenset(ignored), {kind: tuple(_compiled(spec) for spec in specs)
                                          for kind, specs in keywords.items()},
                     {}, index, {name: place for place, name in enumerate(names)})
            self.scanners_by_lexer[index] = found
        self.scanners[state] = found
        return found

    def _first_character(self, scanner: tuple[Any, ...], char: str) -> tuple[str | None, Any]:
        """What the scanner does where a token starts with `char`, worked out on first use: (the
        token's kind, None) where the one terminal of the lexer that can start with `char` is that
        one character (no regular expression to match); else (None, match), `match` being that of
        the lexer's alternatives that can start with `char`, in the lexer's order (the others
        cannot match there: the same first match), or the lexer's own where unsure (not ASCII)."""
        order = scanner[6]
        entry: tuple[str | None, Any] = (None, scanner[1])
        if char in self.starters:
            names = sorted((name for name in self.starters[char] if name in order), key=order.__getitem__)
            if len(names) == 1 and self.terminals[names[0]][1] == char and names[0] not in scanner[2] \
                    and names[0] not in scanner[3]:
                entry = (names[0], None)
            elif names and len(names) < len(order):
                key = tuple(names)
                match = self.alternatives.get(key)
                if match is None:
                    pattern = "|".join(f"(?P<{name}>{self.terminals[name][0]})" for name in names)
                    match = self.alternatives[key] = re.compile(pattern, self.flags).match
                entry = (None, match)
        scanner[0][char] = entry
        return entry

    def run(self, text: str, postlex: TypeNamePostLexer) -> Any:
        rows = self.rows
        scanners = self.scanners
        unit_chains = self.unit_chains
        new_str = str.__new__
        blank_run: Any = _BLANK_RUN.match   # matches wherever text[pos] is a blank
        blanks = _BLANKS
        renamed_or_counted = _RENAMED_OR_COUNTED
        rename = postlex.rename
        postlex.restart()
        top: Any = self.start   # the state on top of the stack
        state_stack = [top]
        value_stack: list[Any] = []
        size = len(text)
        pos = 0
        split: Any = None   # the second `>` of a `>>` that closes a template argument list
        while pos < size:
            # ---- the lexer: the next token, with the terminals of the state on top
            char = text[pos]
            if char in blanks:
                # what every state's scanner would match as the ignored blank terminal, skipped
                # without trying the scanner's alternatives first (a third of the matches); most
                # are one blank, skipped without a regular expression too
                pos += 1
                if pos == size:
                    break
                char = text[pos]
                if char in blanks:
                    pos = blank_run(text, pos).end()
                    if pos == size:
                        break
                    char = text[pos]
            scanner = scanners[top] or self._scanner(top)
            kind, match = scanner[0].get(char) or self._first_character(scanner, char)
            if kind is not None:   # `;`, `(`, ...: the most common tokens, no regular expression to match
                value = char
                end = pos + 1
            else:
                m = match(text, pos)
                if m is None:
                    return _FAILED
                kind = m.lastgroup
                end = m.end()
                if kind in scanner[2]:
                    pos = end
                    continue
                value = m.group()
                if kind in scanner[3]:   # a keyword that the IDENT pattern also matches
                    memo = scanner[4]
                    renamed = memo.get(value)
                    if renamed is None:
                        renamed = memo[value] = _keyword_kind(scanner[3][kind], value, kind)
                    kind = renamed
            # ---- the postlexer: what it does for the kinds it neither renames nor counts, written out
            if kind in renamed_or_counted:
                kind = rename(kind, value, end)
                if kind is None:   # `>>` closing a template argument list: TGT, then another `>`
                    split = new_str(Token, ">")
                    split.type, split.value, split.start_pos, split.end_pos = postlex.split_kind, ">", pos + 1, end
                    kind, value, end = "TGT", ">", pos + 1
            else:
                postlex.prev2_type = postlex.prev_type
                postlex.prev_type = kind
            tok = new_str(Token, value)
            tok.type, tok.value, tok.start_pos, tok.end_pos = kind, value, pos, end
            pos = end if split is None else split.end_pos
            # ---- the parser: reductions, then the token shifted
            while True:
                action = (rows[top] or self._row(top)).get(kind)
                if action is None:
                    return _FAILED
                tag = action[0]
                if tag:
                    top = action[1]
                    state_stack.append(top)
                    value_stack.append(tok)
                    if len(state_stack) > MAX_PARSE_DEPTH:
                        return _TooDeep(tok.start_pos, tok.end_pos)
                    if split is None:
                        break
                    tok, split = split, None
                    kind = tok.type
                    continue
                if tag is None:
                    # `?a: b` passes its child up: the value stack stays, the state that
                    # the chain of such reductions ends in is looked up (more than half of
                    # the reductions are these, in chains of five on average)
                    key = (state_stack[-2], top, kind)
                    top = unit_chains.get(key)
                    if top is None:
                        top = unit_chains[key] = self._after_pass_throughs(*key)
                    state_stack[-1] = top
                    continue
                # the goto below reads the row of a state under the top, converted: every state's
                # row is read while it is on top, before anything is pushed onto it
                count, origin, callback = action[1]
                if count == 1:   # half of the reductions: the top value and state replaced in place
                    value_stack[-1] = callback([value_stack[-1]])
                    top = state_stack[-1] = rows[state_stack[-2]][origin][1]
                    continue
                if count:
                    children = value_stack[-count:]
                    del state_stack[-count:]
                    del value_stack[-count:]
                else:
                    children = []
                value_stack.append(callback(children))
                top = rows[state_stack[-1]][origin][1]
                state_stack.append(top)
        while True:
            top = state_stack[-1]
            action = (rows[top] or self._row(top)).get("$END")
            if action is None or action[0]:
                return _FAILED
            if action[0] is None:
                state_stack[-1] = self._goto(state_stack[-2], action[1])
            else:
                count, origin, callback = action[1]
                if count:
                    children = value_stack[-count:]
                    del state_stack[-count:]
                    del value_stack[-count:]
                else:
                    children = []
                value_stack.append(callback(children))
                state_stack.append(self._goto(state_stack[-1], origin))
            if state_stack[-1] == self.end:
                return value_stack[-1]

    def _goto(self, state: int, rule: str) -> int:
        """The state the parser goes to from `state` after reducing a `rule`."""
        action = (self.rows[state] or self._row(state))[rule]
        next_state: int = action[1]
        return next_state

    def _after_pass_throughs(self, below: int, top: int, kind: str) -> int:
        """The state on top of `below` after the pass-through reductions (`?a: b`) that the
        parser makes in state `top` before token `kind`, one after another (each replaces the
        top state by `below`'s goto on its rule)."""
        action = (self.rows[top] or self._row(top)).get(kind)
        while action is not None and action[0] is None:
            top = self._goto(below, action[1])
            action = (self.rows[top] or self._row(top)).get(kind)
        return top


def _keyword_kind(regexes: tuple[re.Pattern[str], ...], value: str, kind: str) -> str:
    """The kind lark's `UnlessCallback` gives a token of `kind` and text `value`: that of the first
    of its keyword expressions that matches the whole text, else `kind`."""
    for regex in regexes:
        m = regex.fullmatch(value)
        if m:
            return m.lastgroup or kind
    return kind


def _starting_terminals(terminals: list[Any]) -> dict[str, list[str]]:
    """ASCII character -> the names of those of lark's `terminals` whose tokens may start with it
    (`_first_characters`)."""
    from lark.lexer import PatternStr

    starts: dict[str, list[str]] = {char: [] for char in sorted(_ASCII)}
    for terminal in terminals:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr) and not pattern.flags:
            if pattern.value[0] in starts:
                starts[pattern.value[0]].append(terminal.name)
        else:
            for char in sorted(_first_characters(pattern.to_regexp(), pattern.flags)):
                starts[char].append(terminal.name)
    return starts


_ASCII = frozenset(map(chr, range(128)))


def _first_characters(regexp: str, flags: Any = ()) -> frozenset[str]:
    """The ASCII characters that a match of `regexp` may start with (more where unsure: every ASCII
    character for flags, anchors, lookarounds and whatever else is not read here)."""
    from re import _constants as sre, _parser as sre_parse

    if flags:
        return _ASCII

    def first(items: Any) -> tuple[set[str], bool]:
        """(the characters, can it match nothing) of a sequence of parsed items"""
        found: set[str] = set()
        for op, arg in items:
            if op is sre.LITERAL:
                found.add(chr(arg))
                return found, False
            if op is sre.IN:
                found |= _class_characters(arg)
                return found, False
            if op is sre.BRANCH:
                empty = False
                for branch in arg[1]:
                    chars, nothing = first(branch)
                    found |= chars
                    empty = empty or nothing
                if not empty:
                    return found, False
            elif op is sre.SUBPATTERN and not arg[1] and not arg[2]:
                chars, nothing = first(arg[3])
                found |= chars
                if not nothing:
                    return found, False
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)):
                chars, nothing = first(arg[2])
                found |= chars
                if arg[0] and not nothing:
                    return found, False
            else:   # ANY, NOT_LITERAL, anchors, lookarounds, ...: anything
                return set(_ASCII), True
        return found, True

    return frozenset(first(sre_parse.parse(regexp))[0] & _ASCII)


_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


def _class_characters(items: Any) -> set[str]:
    """The ASCII characters that the parsed character class `items` (`[...]`) matches (all where unsure)."""
    from re import _constants as sre

    found: set[str] = set()
    negate = False
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            found.add(chr(arg))
        elif op is sre.RANGE:
            found.update(map(chr, range(arg[0], min(arg[1], 127) + 1)))
        elif op is sre.CATEGORY and str(arg) in _CATEGORIES:
            found.update(filter(re.compile(_CATEGORIES[str(arg)]).match, _ASCII))
        else:
            return set(_ASCII)
    return set(_ASCII - found) if negate else found & _ASCII


def _first_match(regexes: tuple[re.Pattern[str], ...], text: str, pos: int) -> re.Match[str] | None:
    for regex in regexes:
        m = regex.match(text, pos)
        if m:
            return m
    return None


_BLANKS = frozenset(" \t\f\r\n")
_BLANK_RUN = re.compile(r"[ \t\f\r\n]+")
"""The grammar's ignored blanks (`%ignore /[ \t\f\r\n]+/`): no other terminal starts with one."""


_FAILED = object()


def _decimal(digits: str) -> int:
    """A decimal literal's value, or 2**64 (too large) for more than 20 significant digits: Python
    refuses to convert more than 4,300 digits (its guard against quadratic conversion time)."""
    significant = digits.lstrip("0")
    return int(significant or "0", 10) if len(significant) <= 20 else 1 << 64


MAX_PARSE_DEPTH = 8192
"""The most entries the parser's stack may hold: the nesting limit of every construct of the grammar.
Each level of nesting keeps its unfinished constructs there until the inner ones end: a parenthesis,
a brace, a bracket, a unary operator or an initializer list takes 1 entry, a call argument or a
template argument 2, a cast or a `?:` 3, an `if`, `while`, `?:` chain or assignment chain 4, an `else
if` arm 6, a `for` 7; constructs that go on without nesting (a long expression `a + b + ...`, many
statements, many declarations) take none.  So every construct can nest 1,000 levels, and no later
stage, each of which recurses once per level, comes near Python's recursion limit or takes more than
linear time.  Deeper is WG0213 (clang's own bracket limit, -fbracket-depth, is 256)."""


@dataclass(frozen=True)
class _TooDeep:
    """`_FastParser.run`'s answer when the parser's stack outgrows MAX_PARSE_DEPTH: where (the token)."""

    start: int
    end: int


def _fast_parser() -> _FastParser:
    """The fast loop over the plain tables: from their cache, else made of lark's parser (which
    `_parser` loads from its own cache or builds) and stored for the next process."""
    global _FAST, _PARSER_ORIGIN
    if _FAST is None:
        grammar = grammar_text()
        tables = _cached_tables(grammar)
        origin = "cache"
        if tables is None:
            parser = _parser()[0]
            origin = _LARK_ORIGIN or "built"
            if startup_cache.usable():
                tables = _plain_tables(parser)
                startup_cache.write(TABLES_CACHE, _tables_cache_key(grammar), marshal.dumps(tables))
            else:   # no cache here (another user's folder, no file owners): only what this process needs
                tables = _plain_tables(parser, for_cache=False)
        _FAST, _PARSER_ORIGIN = _FastParser(tables, _shared()[0]), origin
    return _FAST


def load_grammar() -> str:
    """Build (or load from cache) the parser now; used by benchmarks and warm-up. Returns where it
    came from: "cache" (`wgc.startup_cache`) or "built" (from the grammar)."""
    _fast_parser()
    assert _PARSER_ORIGIN is not None
    return _PARSER_ORIGIN


@dataclass(frozen=True)
class ParseResult:
    unit: ast.TranslationUnit
    diagnostics: tuple[Diagnostic, ...]
    skipped_names: frozenset[str] = frozenset()
    """Every identifier of the declarations blanked out by error recovery: what they declared is
    missing from `unit`, so sema does not report uses of these names as undeclared (cascades)."""


MAX_RECOVERIES = 100


def parse(text: str, locations: Locations) -> ParseResult:
    """Parse preprocessed `text`; spans go through `locations` back to original files."""
    fast_parser = _fast_parser()
    builder, postlex = _shared()
    declared = prescan_type_names(text)
    diagnostics: list[Diagnostic] = []
    skipped: set[str] = set()
    work = text
    source_locations = locations
    forced: set[int] = set()
    """The ends of the names nothing declares that recovery takes for types, each where it is
    written (clang reports each use of an unknown type name: so does the parser)."""
    undo: tuple[str, Locations, int, int | None, int] | None = None
    """After a recovery that parses on: the text and map before, the position the next error must
    be past for the recovery to stand, the end of the name it took for a type (if that was it),
    and where the error was."""
    unit: ast.TranslationUnit | None = None
    for _ in range(MAX_RECOVERIES):
        builder.locations = locations
        builder.diagnostics = []
        postlex.begin(work, set(declared))
        postlex.forced = forced
        fast = fast_parser.run(work, postlex)
        if isinstance(fast, _TooDeep):
            diagnostics.append(codes.NESTING_LIMIT(
                locations.span(fast.start, fast.end),
                f"this nests deeper than wgc parses: more than {MAX_PARSE_DEPTH} unfinished constructs "
                "(parentheses, braces, operators, statements) are open here",
                notes=("each level of nesting keeps one or more constructs open (a parenthesis 1, a '?:' 3, "
                       "an 'else if' arm 6): about 1,000 levels of any construct fit",)))
            start, end = _toplevel_region(work, fast.start)
            blanked = _blank(work, start, end)
            if blanked == work:
                break
            skipped.update(_IDENTIFIER.findall(work, start, end))
            work = blanked
            continue
        if fast is not _FAILED:
            unit = fast.value
            diagnostics.extend(builder.diagnostics)
            break
        from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

        parser = _parser()[0]
        builder.diagnostics = []   # lark parses the text again and raises the error
        postlex.begin(work, set(declared))
        postlex.forced = forced
        try:
            unit = parser.parse(work).value
            diagnostics.extend(builder.diagnostics)
            break
        except UnexpectedInput as error:
            if isinstance(error, UnexpectedCharacters):
                diagnostics.append(_character_error(work, error, locations))
                position = error.pos_in_stream
            elif isinstance(error, UnexpectedToken):
                position = error.token.start_pos if error.token.type != "$END" else len(work)
                if undo is not None and position <= undo[2]:
                    # the recovery did not get the parser past that token: take it back, and skip
                    # the declaration as for any other error (its diagnostic is made already)
                    work, locations, _, as_type, position = undo
                    if as_type is not None:
                        forced.discard(as_type)
                else:
                    diagnostic, recovery = _token_error(parser, error, postlex, locations, len(work))
                    diagnostics.append(diagnostic)
                    if isinstance(recovery, _MissingSemicolon):
                        undo = (work, locations, error.token.start_pos + 1, None, error.token.start_pos)
                        work, locations = _insert_semicolon(work, locations, recovery)
                        at = recovery.insert_at
                        forced = {end + 1 if at < end else end for end in forced}
                        continue
                    if isinstance(recovery, _UnknownType) and recovery.end not in forced:
                        # another error before the statement ends is a cascade: skip it instead
                        undo = (work, locations, _statement_end(work, error.token.start_pos), recovery.end,
                                error.token.start_pos)
                        forced.add(recovery.end)
                        skipped.add(recovery.name)   # sema: its uses are parse errors, reported
                        continue
            else:  # UnexpectedEOF
                diagnostics.append(codes.UNEXPECTED_END(locations.span(len(work), len(work)),
                                                        "unexpected end of input"))
                position = len(work)
            undo = None
            start, end = _toplevel_region(work, position or 0)
            previous = postlex.token_before(position or 0) if isinstance(error, UnexpectedToken) else None
            if previous is not None and previous.start_pos < start:
                # the error may belong to the declaration before (a missing ';' after a struct)
                start = _toplevel_region(work, previous.start_pos)[0]
            blanked = _blank(work, start, end)
            if blanked == work:  # nothing left to skip: the error is at the very end
                break
            skipped.update(_IDENTIFIER.findall(work, start, end))
            work = blanked
    builder.release()   # the shared builder must not keep this compile's files alive
    if unit is None:
        unit = ast.TranslationUnit(source_locations.span(0, len(text)), ())
    return ParseResult(unit, tuple(diagnostics), frozenset(skipped))


@dataclass(frozen=True)
class _InsertedLocations:
    """The location map of a text into which error recovery inserted characters: `inserted` holds
    their offsets in this text, ascending; an offset maps to the original text's offset of the
    character it stands before, so an inserted ';' has the empty span where it was missing."""

    base: Locations
    inserted: tuple[int, ...]

    def span(self, start: int, end: int) -> Span:
        return self.base.span(start - bisect.bisect_left(self.inserted, start),
                              end - bisect.bisect_left(self.inserted, end))


def _insert_semicolon(text: str, locations: Locations, missing: _MissingSemicolon) -> tuple[str, Locations]:
    """`text` with ';' inserted where `missing` says one is missing (and the rest of the statement
    blanked where clang skips it), and the location map that still points into the original files."""
    if missing.skip_from is not None:
        text = _blank(text, missing.skip_from, _statement_end(text, missing.skip_from))
    at = missing.insert_at
    if isinstance(locations, _InsertedLocations):
        base, earlier = locations.base, locations.inserted
    else:
        base, earlier = locations, ()
    shifted = tuple(i if i < at else i + 1 for i in earlier)
    return text[:at] + ";" + text[at:], _InsertedLocations(base, tuple(sorted((*shifted, at))))


_STATEMENT_TOKENS = re.compile(r'[{}()\[\];]|"(?:[^"\\\r\n]|\\.)*"|//[^\r\n]*|/\*.*?\*/', re.S)


def _statement_end(text: str, start: int) -> int:
    """Where clang's `SkipUntil(r_brace, StopAtSemi | StopBeforeMatch)` from `start` stops: after
    the first ';' outside brackets, or before an unmatched '}' (or ')' or ']')."""
    depth = 0
    for m in _STATEMENT_TOKENS.finditer(text, start):
        char = m.group()
        if char in "{([":
            depth += 1
        elif char in "})]":
            if depth == 0:
                return m.start()
            depth -= 1
        elif char == ";" and depth == 0:
            return m.end()
    return len(text)


def parse_source(file: SourceFile) -> ParseResult:
    """Parse a file's text as is (no preprocessing); for tests and tools."""
    return parse(file.text, FileLocations(file))


# ---------------------------------------------------------------- error recovery

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REGION_TOKENS = re.compile(r'[{};]|"(?:[^"\\\r\n]|\\.)*"|//[^\r\n]*|/\*.*?\*/', re.S)


_CONTINUES_DECLARATION = re.compile(r"\s*[;,)\]]")


def _toplevel_region(text: str, position: int) -> tuple[int, int]:
    """The [start, end) range of the top-level declaration that contains `position`."""
    depth = 0
    start = 0
    for m in _REGION_TOKENS.finditer(text):
        char = m.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
            # `};` and `{ 1 })` continue the declaration: its end is further on
            if depth == 0 and _CONTINUES_DECLARATION.match(text, m.end()) is None:
                if m.end() > position:
                    return start, m.end()
                start = m.end()
        elif char == ";" and depth == 0:
            if m.end() > position:
                return start, m.end()
            start = m.end()
    return start, len(text)


def _blank(text: str, start: int, end: int) -> str:
    region = text[start:end]
    return text[:start] + re.sub(r"[^\n]", " ", region) + text[end:]


# ---------------------------------------------------------------- messages

_TERMINAL_WORDS = {
    "IDENT": "identifier",
    "TYPE_NAME": "type name",
    "INT_LITERAL": "integer literal",
    "FLOAT_LITERAL": "floating-point literal",
    "STRING": "string literal",
    "CHAR_LITERAL": "character literal",
    "TLT": "'<'",
    "TGT": "'>'",
    "MODIFIER": "type qualifier",
    "ASSIGN_OP": "'='",
    "EQ_OP": "'=='",
    "STRUCT_KEYWORD": "'struct'",
    "BUFFER_KEYWORD": "'cbuffer'",
    "ENUM_SCOPE": "'class'",
}
_EXPRESSION_STARTERS = frozenset({"INT_LITERAL", "FLOAT_LITERAL", "CHAR_LITERAL", "TRUE", "FALSE", "BANG", "TILDE"})


def _describe_token(tok: Any) -> str:
    if tok.type == "$END":
        return "end of input"
    return f"'{tok.value}'"


def _terminal_word(parser: Any, name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    for terminal in parser.terminals:
        if terminal.name == name and terminal.pattern.type == "str":
            return f"'{terminal.pattern.value}'"
    return name.lower()


_EXPRESSION_RULES = frozenset({
    "binary", "binary_chain", "assign", "conditional", "cast", "prefix", "postfix", "index", "call", "member",
    "name", "int_literal", "float_literal", "char_literal", "string_literal", "true_literal", "false_literal",
    "construct", "sizeof_expr", "sizeof_type", "method_template_call", "template_call",
})
_EXPRESSION_END_TOKENS = frozenset({"INT_LITERAL", "FLOAT_LITERAL", "CHAR_LITERAL", "STRING", "IDENT", "TRUE", "FALSE",
                                    "RPAR", "RSQB", "INCR", "DECR"})
_CLOSERS = ("RPAR", "RSQB", "RBRACE", "TGT", "COLON", "COMMA")


_STATEMENT_STARTERS = frozenset({
    "IDENT", "TYPE_NAME", "RETURN", "IF", "FOR", "WHILE", "DO", "SWITCH", "BREAK", "CONTINUE", "DISCARD",
    "STRUCT", "CLASS", "INTERFACE", "TYPEDEF", "USING", "ENUM", "NAMESPACE", "TEMPLATE", "LSQB", "RBRACE",
    "CONST", "STATIC", "UNIFORM", "GROUPSHARED", "EXTERN", "VOLATILE", "PRECISE", "INLINE", "EXPORT", "SHARED",
    "GLOBALLYCOHERENT", "ROW_MAJOR", "COLUMN_MAJOR", "SNORM", "UNORM", "SIGNED", "UNSIGNED", "CBUFFER",
    "TBUFFER", "IN", "OUT", "INOUT", "NOINTERPOLATION", "NOPERSPECTIVE", "CENTROID", "INCR", "DECR",
})
"""Tokens that can begin the next statement or declaration: before one of them a missing ';' is
inserted and parsing goes on (before another, the declaration is skipped, as before)."""

_DECLARATION_WORDS = frozenset({
    "const", "static", "uniform", "groupshared", "extern", "volatile", "precise", "inline", "export", "shared",
    "globallycoherent", "row_major", "column_major", "snorm", "unorm", "signed", "unsigned", "struct", "class",
    "interface", "typedef", "using", "enum", "namespace", "template", "cbuffer", "tbuffer", "in", "out", "inout",
    "nointerpolation", "noperspective", "centroid",
})
"""Words that begin a declaration (clang's `isDeclarationSpecifier`), whatever kind the lexer gave them."""


_ATTRIBUTED_STATEMENTS = frozenset({"for", "while", "do", "if", "switch", "{"})
"""Statements HLSL writes attributes before (`[unroll] for`, `[branch] if`, `[flatten] {`)."""

_TRAILING_ATTRIBUTE = re.compile(r"\[\s*[A-Za-z_]\w*\s*(?:\([^()\[\];{}]*\))?\s*\]\s*\Z")
"""A statement attribute (`[unroll]`, `[unroll(4)]`, `[loop]`) at the end of the text searched."""


@dataclass(frozen=True)
class _UnknownType:
    """A syntax error read as a type name nothing declares (`Widget w;`): the recovery parses on
    with `name`, where it is written (`end`), taken for a type (clang goes on the same way), sema
    told to keep quiet about it."""

    name: str
    end: int


@dataclass(frozen=True)
class _MissingSemicolon:
    """A syntax error read as a missing ';' (clang's ExpectAndConsumeSemi) and how to recover:
    insert ';' at `insert_at` (the end of the previous token) and, where clang skips the rest of
    the statement (`SkipUntil(r_brace, StopAtSemi | StopBeforeMatch)`), blank from `skip_from`."""

    message: str
    insert_at: int
    skip_from: int | None


def _open_brace(stack: list[Any]) -> int:
    """The index in the parser's value stack of the innermost `{` still open, or -1."""
    closed = 0
    for index in range(len(stack) - 1, -1, -1):
        value = stack[index]
        if _is_token(value) and value.type == "RBRACE":
            closed += 1
        elif _is_token(value) and value.type == "LBRACE":
            if closed == 0:
                return index
            closed -= 1
    return -1


def _rule_or_type(value: Any) -> str:
    return value.rule if isinstance(value, _Value) else value.type


def _is_declaration(items: list[Any]) -> bool:
    """Do the parsed items of a statement begin a declaration: a type, then a declarator's name?"""
    kinds = [_rule_or_type(v) for v in items]
    return any(kind == "type_ref" and following in ("decl_name", "declarator", "IDENT")
               for kind, following in zip(kinds, kinds[1:]))


def _missing_semicolon(error: Any, accepted: set[str], prev: Any, postlex: TypeNamePostLexer) -> _MissingSemicolon | None:
    """What a ';' missing before the erroneous token ends, worded as clang words it, with the
    recovery; None when the error is not a missing ';'."""
    tok = error.token
    stack = error.interactive_parser.parser_state.value_stack
    if prev is None or not stack:
        return None
    brace = _open_brace(stack)
    items = stack[brace + 1:]
    context = [_rule_or_type(v) for v in stack[max(0, brace - 8):brace]] if brace >= 0 else []
    in_struct = "struct_keyword" in context or "STRUCT" in context or "CLASS" in context
    top_level = brace < 0 or "NAMESPACE" in context or "buffer_keyword" in context
    last = stack[-1]
    if (len(items) >= 2 and _rule_or_type(items[-2]) == "struct_spec" and _is_token(last)
            and last.type == "IDENT" and last.value in _DECLARATION_WORDS and tok.type != "SEMI"):
        # `struct R { ... }` then `static uint g;`: 'static' was read as the struct's declarator
        end = postlex.token_before(last.start_pos)
        return _MissingSemicolon("expected ';' after struct", end.end_pos if end is not None else last.start_pos,
                                 None)
    if "SEMI" not in accepted:
        return None
    skip = None
    if _is_token(last) and last.type == "RBRACE" and any(
            _rule_or_type(v) == "struct_keyword" for v in stack[-6:]) or _rule_or_type(last) in (
            "struct_spec", "anonymous_struct_spec", "struct_body"):
        what = "after struct"
    elif items and _is_token(items[0]) and items[0].type == "RETURN":
        what, skip = "after return statement", tok.start_pos
    elif _is_token(last) and last.type in ("BREAK", "CONTINUE"):
        what = f"after {last.value} statement"
    elif _is_token(last) and last.type == "RPAR" and any(_is_token(v) and v.type == "WHILE" for v in stack[-6:]):
        what = "after do/while statement"
    elif _is_declaration(items):
        what = ("at end of declaration list" if in_struct else
                "after top level declarator" if top_level else "at end of declaration")
        # clang goes on when a declaration follows, and skips the rest of the statement otherwise
        starts_declaration = (tok.type == "TYPE_NAME" or tok.type == "LSQB" or tok.type == "RBRACE"
                              or tok.value in _DECLARATION_WORDS)
        skip = None if starts_declaration else tok.start_pos
    elif _rule_or_type(last) in _EXPRESSION_RULES or _rule_or_type(last) in _EXPRESSION_END_TOKENS:
        what = "after expression"
    else:
        return _MissingSemicolon("expected ';'", prev.end_pos, None)
    return _MissingSemicolon(f"expected ';' {what}", prev.end_pos, skip)


_STATEMENT_BOUNDARIES = frozenset({"LBRACE", "LPAR", "COMMA", "ELSE", "COLON", "SEMI", "RBRACE"}
                                  | {word.upper() for word in _DECLARATION_WORDS})


def _begins_statement(stack: list[Any]) -> bool:
    """Does the last item of the parser's stack begin a statement, a declaration or a parameter
    (after `{`, a finished statement, modifiers, `(` or `,`, `if (...)`)?"""
    if len(stack) < 2:
        return True
    before = _rule_or_type(stack[-2])
    if before in _STATEMENT_BOUNDARIES or (before.startswith("__") and "star" in before):
        return True
    return before == "RPAR" and any(_is_token(v) and v.type in ("IF", "WHILE", "FOR") for v in stack[-8:-2])


def _token_error(parser: Any, error: Any, postlex: TypeNamePostLexer, locations: Locations,
                 text_end: int) -> tuple[Diagnostic, _MissingSemicolon | _UnknownType | None]:
    """The diagnostic for a token the grammar does not accept here, and, where it reads as a
    missing ';' before a token that can begin a statement or as a type name nothing declares, the
    recovery (`_MissingSemicolon`, `_UnknownType`)."""
    tok = error.token
    try:
        accepted = set(error.interactive_parser.accepts())
    except Exception:  # lark could not simulate: fall back to the LALR expected set
        accepted = set(error.expected)
    prev = postlex.token_before(text_end if tok.type == "$END" else tok.start_pos)
    at_end = tok.type == "$END"
    tok_start = text_end if at_end else tok.start_pos
    here = locations.span(tok_start, tok_start if at_end else tok.end_pos)
    kind = codes.UNEXPECTED_END if at_end else codes.EXPECTED_TOKEN

    missing = _missing_semicolon(error, accepted, prev, postlex)
    if missing is not None and tok.value in _ATTRIBUTED_STATEMENTS and prev is not None and prev.type == "RSQB":
        # `x = a` then `[unroll] for`: the attribute was read as an index of `a`; the ';' goes before it
        attribute = _TRAILING_ATTRIBUTE.search(postlex.text, 0, tok.start_pos)
        if attribute is not None:
            end = len(postlex.text[:attribute.start()].rstrip())
            missing = _MissingSemicolon(missing.message, end, None)
    if (tok.type in ("IDENT", "TYPE_NAME") and prev is not None and prev.type == "IDENT"
            and "IDENT" not in accepted):
        stack = error.interactive_parser.parser_state.value_stack
        if missing is None or _begins_statement(stack) or "SEMI" not in accepted:
            close = closest(prev.value, sorted(postlex.types))
            return codes.EXPECTED_TOKEN(locations.span(prev.start_pos, prev.end_pos),
                                        f"unknown type name '{prev.value}'",
                                        notes=[f"did you mean '{close[0]}'?"] if close else []), _UnknownType(prev.value, prev.end_pos)
    if at_end and "RBRACE" in accepted:
        return kind(here, "expected '}' at end of input"), None
    if missing is not None:
        recover = missing if not at_end and tok.type in _STATEMENT_STARTERS else None
        return kind(locations.span(missing.insert_at, missing.insert_at), missing.message), recover
    closers = [_terminal_word(parser, name) for name in _CLOSERS if name in accepted]
    if closers:
        listed = closers[0] if len(closers) == 1 else ", ".join(closers[:-1]) + " or " + closers[-1]
        return kind(here, f"expected {listed}, found {_describe_token(tok)}"), None
    if accepted & _EXPRESSION_STARTERS:
        return kind(here, f"expected expression, found {_describe_token(tok)}"), None
    if "TYPE_NAME" in accepted:
        return kind(here, f"expected a type, found {_describe_token(tok)}"), None
    if "IDENT" in accepted:
        return kind(here, f"expected identifier, found {_describe_token(tok)}"), None
    choices = sorted(_terminal_word(parser, name) for name in accepted)[:3]
    if not choices:
        return kind(here, f"unexpected {_describe_token(tok)}"), None
    return kind(here, f"expected {' or '.join(choices)}, found {_describe_token(tok)}"), None


def _character_error(text: str, error: Any, locations: Locations) -> Diagnostic:
    pos = error.pos_in_stream
    char = text[pos] if pos < len(text) else ""
    span = locations.span(pos, pos + 1)
    if char == '"':
        return codes.INVALID_CHARACTER(span, "missing terminating '\"' character")
    if char == "'":
        return codes.INVALID_CHARACTER(span, "missing terminating ' character")
    if char == "\ufffd":
        return codes.INVALID_CHARACTER(span, "invalid UTF-8 byte in source")
    printable = char if char.isprintable() and char != " " else f"\\x{ord(char):02x}" if ord(char) < 256 else f"U+{ord(char):04X}"
    return codes.INVALID_CHARACTER(span, f"invalid character '{printable}' in source")
