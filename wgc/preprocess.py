"""Stage 1, preprocess: C preprocessing of HLSL with a map back to the original files.

Input: the main `SourceFile` (already decoded by the caller) and `PreprocessOptions`
(`-D`, `-U`, `-I`, `-HV`, the shader model of `-T` and `-enable-16bit-types`).
Output: `Preprocessed`: the expanded text for the parser, a `LocationMap` from
offsets of that text to (original file, offset), the list of files read (for
depfiles) and the diagnostics.

pcpp does the preprocessing: directives, conditionals, `defined`, macro
definition and expansion (function-like, variadic, `#`, `##`), `#pragma once`
and include-guard detection.  This module subclasses `pcpp.Preprocessor` and
supplies what pcpp leaves to its user: the lexer (`group_lines`), the file
search (`include`), the checks that turn bad input into diagnostics
(`on_error`, `on_directive_handle`, `on_directive_unknown`, `define`, `undef`,
`evalexpr`, the unknown-macro hooks) and the consumer of the token stream that
builds the text and its location map (pcpp's own `write()` is not used).

Invariants:
- Never raises for bad input: every problem is a `Diagnostic` (internal bugs may raise).
- No directive line reaches `text`; comments, skipped blocks and directives become
  blanks that keep the line structure of the file they come from.
- Tokens that come straight from a file appear in `text` spelled exactly as in the
  file, so the parser re-lexes them as written, and map to their exact original
  offsets.  Tokens produced by a macro expansion map to the macro name at the use
  site of the outermost expansion (clang's "expansion location"), as a `MacroSpan`
  that can tell, when asked, the macros it came through and where in their bodies
  (the map keeps each expanded token's spelling position and every #define's body,
  `MacroBody`; the renderer makes clang's "expanded from macro" notes of them).
- Each inclusion of a file is its own `SourceFile` (`SourceFile.inclusion`, sharing the
  text) whose `included_from` is the `#include` that read it: a span knows its include
  stack (clang's "In file included from" lines).  Tokens from
  different places are never written so that they would run together into a
  different token (a space goes between them where that could happen).
- `#line N ["file"]` maps the following lines into a virtual `SourceFile` (named
  "file", or the current name) whose text is the real file's remainder preceded by
  N-1 newlines, so line numbers match and the source line can still be shown.
- Deterministic: same input, same text, map and diagnostics (`__DATE__` and
  `__TIME__` are not defined for that reason).

Details worth knowing:
- `#include "x"` searches the includer's folder, then the `-I` folders in order;
  `#include <x>` only the `-I` folders.  Paths are spelled as joined (relative if
  the user gave relative paths).  Nesting is capped at `MAX_INCLUDE_DEPTH` files
  (INCLUDE_TOO_DEEP); after that error no further `#include` is processed.
  A found name that is a directory, FIFO, device or socket is INCLUDE_NOT_REGULAR and is
  never opened (a FIFO would block); a dangling symbolic link counts as not found (the
  search goes on, as with gcc) and is named in the note. `preprocess(..., on_file_read=)`
  is told of each included file once it was read; `Preprocessed.absent` lists the candidates
  searched and not found.
- An #include name is read as DXC reads it on every platform (`include_name`): a backslash is a
  folder separator and repeated separators are one. A name not found that matches a file when
  case is ignored gets a note with that spelling (Linux file names are case-sensitive).
- Predefined macros, as dxc defines them when targeting SPIR-V:
  `__hlsl_dx_compiler` 1, `__HLSL_VERSION` (-HV, default 2021), `__spirv__` 1,
  `__SHADER_TARGET_MAJOR` / `__SHADER_TARGET_MINOR` (from -T), `__SHADER_TARGET_STAGE`
  (`__SHADER_STAGE_LIBRARY` for lib_6_x, the profile's stage for ps/cs/ms/as/...), the stage "enums"
  `__SHADER_STAGE_{PIXEL,VERTEX,GEOMETRY,HULL,DOMAIN,COMPUTE,LIBRARY,MESH,AMPLIFICATION}`
  with dxc's `DXIL::ShaderKind` values, `__HLSL_ENABLE_16_BIT` 1 with
  -enable-16bit-types, and the builtins `__FILE__`, `__LINE__`, `__COUNTER__`.
  dxc's `__DXC_VERSION_*` describe a dxc build and are not defined.
- `#pragma once` is honoured; `#pragma pack_matrix/warning/dxc/message` are accepted
  and dropped; any other pragma is an UNKNOWN_PRAGMA warning and dropped.
- `#error` / `#warning` messages are the rest of the line as written (clang's text).
- Trigraphs are not replaced (as in clang's C++ modes).
- Speed: text without macro names reaches pcpp as a few opaque tokens (one per
  comment-free stretch, found with regular expressions over many lines at once),
  so pcpp's per-token Python work is spent only on directives and on lines that
  use a macro; the location map is a sorted list of segments (one per stretch of
  text copied from a file or per macro expansion), looked up by bisection; `LocationMap.span`
  answers most spans from a table of the plain runs (the last one used first), a span between
  two plain runs of one file from their figures, and keeps the one span of each expansion.
  pcpp expands its pending text only at `#define`/`#undef`/`#include` and its
  expansion is quadratic in that text's length, so after many macro-using lines
  wgc hands it a no-op `#undef` (never inside a macro invocation).
- `#line` numbers above `MAX_LINE_NUMBER` are rejected (the virtual file holds one
  newline per skipped line).
- Bounds (MACRO_EXPANSION_LIMIT): macro expansion produces at most `MAX_EXPANSION_TOKENS`
  tokens, each level of a nested expansion counting its own, and included text (each inclusion)
  is at most `MAX_INCLUDED_BYTES`; with the size bound of each file read (`wgc.source`), the
  preprocessed text and the time to make it are bounded.
"""

from __future__ import annotations

import bisect
import copy
import math
import os
import re
import stat
from collections.abc import Callable, Mapping
from typing import Any

from pcpp.parser import Action, OutputDirective
from pcpp.preprocessor import Preprocessor as _PcppPreprocessor

from wgc import codes, portable
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic, Label
from wgc.source import STDIN_NAME, MacroSpan, SourceFile, Span, decode_source, read_source

MAX_INCLUDE_DEPTH = 200
"""Most files open at once (the main file counts), as clang's default limit."""
MAX_LINE_NUMBER = 1_000_000
"""Largest `#line` number wgc accepts."""
MAX_EXPANSION_TOKENS = 2_000_000
"""Most tokens macro expansion may produce in one compile, each level of a nested expansion counting
its own (pcpp hands every level's result up to the level above, so this is the work expansion
does): the bound of a macro bomb (`#define A B B`, `#define B C C`, ... doubles at each level) and
of a chain of macros each expanding to the one before.  Beyond it, MACRO_EXPANSION_LIMIT."""
MAX_INCLUDED_BYTES = 128 * 1024 * 1024
"""Most characters of included text in one compile, counting each inclusion (a header without a guard
included many times): the bound, with MAX_EXPANSION_TOKENS, of the preprocessed text.  Beyond it,
MACRO_EXPANSION_LIMIT too."""


class _ExpansionLimit(Exception):
    """Raised inside pcpp's expansion once MAX_EXPANSION_TOKENS are spent, caught at its outermost call."""

# dxc's DXIL::ShaderKind numbering, used for the __SHADER_STAGE_* macros.
_SHADER_STAGES = (
    ("PIXEL", 0), ("VERTEX", 1), ("GEOMETRY", 2), ("HULL", 3), ("DOMAIN", 4),
    ("COMPUTE", 5), ("LIBRARY", 6), ("MESH", 13), ("AMPLIFICATION", 14),
)

_SILENT_PRAGMAS = frozenset({"pack_matrix", "warning", "dxc", "message"})


@dataclass(frozen=True)
class PreprocessOptions:
    """What the command line says about preprocessing."""

    defines: tuple[tuple[str, str | None], ...] = ()
    """`-D NAME[=VALUE]` in command-line order; a None value means "1"."""
    undefines: tuple[str, ...] = ()
    """`-U NAME`, applied after the predefined macros and every `-D`."""
    include_dirs: tuple[str, ...] = ()
    """`-I` folders, searched in this order."""
    hlsl_version: int = 2021
    shader_model: tuple[int, int] = (6, 9)
    stage: str | None = None
    """The stage of a non-library profile (`ps_6_6`: "pixel"), for `__SHADER_TARGET_STAGE`; None: a library."""
    enable_16bit_types: bool = False


# --------------------------------------------------------------------------- location map


class _Unit:
    """One read of one file (each inclusion is a unit) in the global position space.

    Token positions are `base + offset`, so a position names a unit and an offset in
    it; `#line` regions then say which (possibly virtual) file an offset belongs to.
    """

    __slots__ = ("file", "text", "base", "limit", "last_end", "region_starts", "region_files",
                 "region_deltas", "line_adjust", "line_end", "next_lineno")

    def __init__(self, file: SourceFile, text: str, base: int) -> None:
        self.file = file
        self.text = text                      # the lexed text: same length as file.text
        self.base = base
        self.limit = base + len(text) + 1     # positions base..limit-1 belong to this unit
        self.last_end = 0                     # offset after the last token emitted from here
        self.region_starts: list[int] = []    # #line regions: offset where each starts,
        self.region_files: list[SourceFile] = []  # the file it maps into,
        self.region_deltas: list[int] = []    # and offset_in_that_file - offset_here
        self.line_adjust = 0                  # reported line - physical line (for __LINE__)
        self.line_end = 0                     # offset of the newline ending the last directive
        self.next_lineno = 1                  # physical line number after that directive

    def resolve(self, offset: int) -> tuple[SourceFile, int]:
        offset = max(0, min(offset, len(self.text)))
        if self.region_starts:
            k = bisect.bisect_right(self.region_starts, offset) - 1
            if k >= 0:
                return self.region_files[k], offset + self.region_deltas[k]
        return self.file, offset


@dataclass(frozen=True)
class MacroBody:
    """One `#define`'s body, for "expanded from macro" notes: its global positions [start, end)
    and the identifiers in it with their positions (the macros it may use)."""

    name: str
    start: int
    end: int
    names: tuple[tuple[str, int], ...]


MAX_BODY_SEARCH = 1 << 20
"""How far before a position `_body_at` looks for the body holding it (bodies are one line, but
continued lines can make one long)."""

MAX_PATH_BODIES = 10_000
"""The most macro bodies `_macro_path` visits looking for how one macro led to another."""


def _body_of(name: str, tokens: list[Any]) -> MacroBody:
    placed = [t for t in tokens if isinstance(t.lexpos, int) and t.lexpos >= _FIRST_BASE and t.type not in _SKIP_TYPES]
    if not placed:
        return MacroBody(name, 0, 0, ())
    end = max(t.lexpos + len(str(t.value)) for t in placed)
    names = tuple((t.value, t.lexpos) for t in placed if t.type == "CPP_ID")
    return MacroBody(name, min(t.lexpos for t in placed), end, names)


def _macro_path(bodies: list[MacroBody], outer: str, target: MacroBody) -> list[tuple[MacroBody, int]]:
    """The macros from `outer` (used in the file) to `target` (whose body holds a token): per
    macro, its body and the position in it of the use of the next one (-1 for `target`); [] when
    no way through the bodies leads there (the token came in through a macro argument)."""
    by_name: dict[str, list[MacroBody]] = {}
    for body in bodies:
        by_name.setdefault(body.name, []).append(body)
    start = by_name.get(outer, [])
    came_from: dict[int, tuple[MacroBody | None, int]] = {id(b): (None, -1) for b in start}
    queue = list(start)
    for body in queue:
        if body is target or len(queue) > MAX_PATH_BODIES:
            break
        for used, at in body.names:
            for following in by_name.get(used, ()):
                if id(following) not in came_from:
                    came_from[id(following)] = (body, at)
                    queue.append(following)
    if id(target) not in came_from:
        return []
    path: list[tuple[MacroBody, int]] = [(target, -1)]
    previous, at = came_from[id(target)]
    while previous is not None:
        path.append((previous, at))
        previous, at = came_from[id(previous)]
    path.reverse()
    return path


class LocationMap:
    """Maps character offsets of the preprocessed text back to the original files.

    Stored as segments (sorted output offsets, bisected): a *linear* segment maps
    output offset `o` to position `pos + (o - out)`; a *fixed* segment (a macro
    expansion) maps every offset to the macro name `[pos, end)` at the use site.
    """

    def __init__(self, seg_out: list[int], seg_pos: list[int], seg_end: list[int],
                 units: list[_Unit],
                 expansion: tuple[list[int], list[int], list[MacroBody]] = ([], [], [])) -> None:
        self._seg_out = seg_out
        self._seg_pos = seg_pos
        self._seg_end = seg_end      # -1 for linear segments
        self._units = units
        self._bases = [u.base for u in units]
        only = units[0] if len(units) == 1 else None
        self._identity = only if (only is not None and not only.region_starts and seg_out == [0]
                                  and seg_pos == [only.base] and seg_end == [-1]) else None
        """The one file, when the text maps onto it character for character (no macros, includes, #line)."""
        self._runs: list[tuple[Any, ...] | None] | None = None
        """Per segment, what `span` needs of it when it is a plain run (`_plain_runs`)."""
        self._expansion_spans: dict[int, Span] = {}
        """Per fixed segment (a macro expansion), the span of every non-empty range within it (`_general_span`)."""
        self._last_run: tuple[Any, ...] = (1, 0)   # the run the last span fell in (an empty range at first)
        self._exp_out, self._exp_pos, bodies = expansion
        """Per token an expansion wrote (ascending offsets): its offset here and its global position."""
        self._bodies = sorted(bodies, key=lambda body: body.start)
        self._body_starts = [body.start for body in self._bodies]

    def _unit(self, pos: int) -> _Unit:
        return self._units[max(0, bisect.bisect_right(self._bases, pos) - 1)]

    def _segment(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self._seg_out, offset) - 1)

    def _point(self, offset: int) -> tuple[int, int]:
        """(global position, global end of the token there or -1) of an output offset."""
        i = self._segment(offset)
        end = self._seg_end[i]
        if end >= 0:
            return self._seg_pos[i], end
        return self._seg_pos[i] + (offset - self._seg_out[i]), -1

    def _resolve(self, pos: int) -> tuple[SourceFile, int]:
        unit = self._unit(pos)
        return unit.resolve(pos - unit.base)

    def location(self, offset: int) -> tuple[SourceFile, int]:
        """The original file and character offset of `offset` in the preprocessed text."""
        pos, _ = self._point(max(0, offset))
        return self._resolve(pos)

    def _plain_runs(self) -> list[tuple[Any, ...] | None]:
        """Per segment: for a linear one copied from a unit without `#line` regions, the figures
        `span` needs of it, else None.  A run is (`first`, `stop`, `end_limit`, `file`, `delta`,
        `last_start`): output offsets `first <= o < stop` lie in it (`stop`: the next segment's first
        offset, or the first one whose position is past the unit); output offset `o` maps to offset
        `o + delta` of `file` (clamped to the unit's text); `[start, end)` with `end <= end_limit`
        and `start <= last_start` map without clamping (`end_limit`: at most `stop` and the file's
        length minus `delta`; `last_start`: the unit's length minus `delta`)."""
        runs: list[tuple[Any, ...] | None] = []
        seg_out, bases = self._seg_out, self._bases
        for i, out in enumerate(seg_out):
            pos = self._seg_pos[i]
            k = bisect.bisect_right(bases, pos) - 1
            unit = self._units[max(0, k)]
            if self._seg_end[i] >= 0 or k < 0 or unit.region_starts:
                runs.append(None)
                continue
            beyond = out + (bases[k + 1] - pos if k + 1 < len(bases) else math.inf)
            stop = min(seg_out[i + 1] if i + 1 < len(seg_out) else math.inf, beyond)
            delta = pos - out - unit.base
            last_start = len(unit.text) - delta
            runs.append((out, stop, min(stop, last_start, len(unit.file.text) - delta), unit.file, delta, last_start))
        return runs

    def _run_at(self, offset: int) -> tuple[Any, ...] | None:
        """The plain run (`_plain_runs`) that output offset `offset` lies in, remembered as the
        last one; None when its segment is not a plain run."""
        runs = self._runs
        if runs is None:
            runs = self._runs = self._plain_runs()
        i = bisect.bisect_right(self._seg_out, offset) - 1
        run = runs[i] if i >= 0 else None
        if run is not None and offset < run[1]:
            self._last_run = run
            return run
        return None

    def _within_one_segment_bisected(self, start: int, end: int) -> Span | None:
        """`span`'s answer when `[start, end)` lies in one stretch of text copied from a file (and
        in one `#line` region of it), else None: the same arithmetic as the general path, with one
        bisection per table instead of several."""
        seg_out = self._seg_out
        i = bisect.bisect_right(seg_out, start) - 1
        if i < 0 or self._seg_end[i] >= 0 or (i + 1 < len(seg_out) and seg_out[i + 1] < end):
            return None
        pos = self._seg_pos[i] + (start - seg_out[i])
        unit = self._units[max(0, bisect.bisect_right(self._bases, pos) - 1)]
        a = pos - unit.base
        last = a + max(0, end - 1 - start)
        if a < 0 or last > len(unit.text):
            return None
        file = unit.file
        regions = unit.region_starts
        if regions:
            k = bisect.bisect_right(regions, a) - 1
            if k != bisect.bisect_right(regions, last) - 1:
                return None
            if k >= 0:
                file, delta = unit.region_files[k], unit.region_deltas[k]
                a, last = a + delta, last + delta
        return Span(file, a, a) if end == start else Span(file, a, min(last + 1, len(file.text)))

    def span(self, start: int, end: int) -> Span:
        """The span in the original file that `[start, end)` of the preprocessed text covers.

        When the two ends come from different files (or the end lies before the
        start, as with a file included twice), the span ends at the end of the start's line.
        """
        # most spans the parser asks for lie in a plain run (a linear segment copied from a unit
        # without `#line` regions), mostly the last one (it asks in text order): answered from the
        # run's figures with three comparisons (`_plain_runs`), cheaper than the arithmetic below
        run: Any = self._last_run
        if run[0] <= start < run[1] and start <= end <= run[2]:
            delta = run[4]
            return Span(run[3], start + delta, end + delta)
        return self._span_elsewhere(start, end)

    def meta_span(self, meta: tuple[Any, Any]) -> Span:
        """`span` of a parser rule's extent `meta` = (start, end) ((None, None): an empty rule, the
        empty span at 0), with `span`'s common case inline (the parser asks once per AST node)."""
        start, end = meta
        run: Any = self._last_run
        if start is not None and run[0] <= start < run[1] and start <= end <= run[2]:
            delta = run[4]
            return Span(run[3], start + delta, end + delta)
        return self.span(0, 0) if start is None else self._span_elsewhere(start, end)

    def _span_elsewhere(self, start: int, end: int) -> Span:
        """`span` for a range that does not lie within the last run."""
        if start < 0:
            start = 0
        if end < start:
            end = start
        if self._identity is not None:
            size = len(self._identity.text)
            return Span(self._identity.file, min(start, size), min(end, size))
        run = self._run_at(start)
        if run is not None:
            delta = run[4]
            if end <= run[2]:
                return Span(run[3], start + delta, end + delta)
            if start < end and start <= run[5]:
                # across segments (a statement around a macro's use): when both ends lie in plain
                # runs of one file, the general path's answer from the two runs' figures
                # (cheaper than the general path)
                last = self._run_at(end - 1)
                if last is not None and last[3] is run[3] and end - 1 <= last[5]:
                    a, b = start + delta, end + last[4]
                    if b > a:
                        return Span(run[3], a, min(b, len(run[3].text)))
        quick = self._within_one_segment_bisected(start, end)
        if quick is not None:
            return quick
        return self._general_span(start, end)

    def _general_span(self, start: int, end: int) -> Span:
        """`span` for any `[start, end)` (0 <= start <= end); a `MacroSpan` when it starts in a
        macro expansion."""
        i = self._segment(start)
        if self._seg_end[i] < 0:
            return self._mapped_span(start, end)
        if start < end and (i + 1 == len(self._seg_out) or end <= self._seg_out[i + 1]):
            # within one macro expansion: every such range maps to the same place (the macro's name at
            # its use), kept per segment (instead of `_mapped_span` for each)
            span = self._expansion_spans.get(i)
            if span is None:
                span = self._expansion_spans[i] = self._mapped_span(start, end)
        else:
            span = self._mapped_span(start, end)
        return MacroSpan(span.file, span.start, span.end, self, start) if self._exp_out else span

    def expansions(self, key: int) -> tuple[tuple[str, Span], ...]:
        """The macros the text at offset `key` came through: (name, place in its body) per level,
        outermost first (`MacroSpan.expansions`); () where it is not known (a macro argument
        written at the use, a token pcpp made, a macro defined on the command line).  The
        levels between the macro used in the file and the one whose body holds the token are found
        by following macro names through the bodies (the shortest way, the first use in each)."""
        i = bisect.bisect_right(self._exp_out, key) - 1
        segment = self._segment(key)
        if i < 0 or self._seg_end[segment] < 0 or self._exp_out[i] < self._seg_out[segment]:
            return ()
        position = self._exp_pos[i]
        target = self._body_at(position)
        if target is None:
            return ()
        use = self._seg_pos[segment]
        unit = self._unit(use)
        found = _IDENT.match(unit.text, use - unit.base)
        outer = found.group() if found is not None else ""
        chain = _macro_path(self._bodies, outer, target) or [(target, -1)]
        return tuple((body.name, self._position_span(at if at >= 0 else position)) for body, at in chain)

    def _body_at(self, position: int) -> MacroBody | None:
        k = bisect.bisect_right(self._body_starts, position) - 1
        while k >= 0:
            body = self._bodies[k]
            if body.start <= position < body.end:
                return body
            if self._bodies[k].start < position - MAX_BODY_SEARCH:
                break
            k -= 1
        return None

    def _position_span(self, position: int) -> Span:
        """The span of the source token at global position `position`."""
        unit = self._unit(position)
        offset = max(0, min(position - unit.base, len(unit.text)))
        file, start = unit.resolve(offset)
        length = _spelled_length(unit.text, offset)
        return Span(file, start, min(start + length, len(file.text)))

    def _mapped_span(self, start: int, end: int) -> Span:
        """`span` for any `[start, end)` (0 <= start <= end), from the segments and units."""
        pos_a, end_a = self._point(start)
        file_a, a = self._resolve(pos_a)
        if end == start:
            return Span(file_a, a, a)
        if self._segment(start) == self._segment(end - 1) and end_a >= 0:
            file_b, b = self._resolve(end_a)
            if file_b is file_a and b >= a:
                return Span(file_a, a, b)
        pos_b, end_b = self._point(end - 1)
        if end_b >= 0:
            file_b, b = self._resolve(end_b)
        else:
            file_b, b = self._resolve(pos_b)
            b += 1
        if file_b is file_a and b > a:
            return Span(file_a, a, min(b, len(file_a.text)))
        text = file_a.text
        stop = text.find("\n", a)
        if stop < 0:
            stop = len(text)
        if stop > a and text[stop - 1] == "\r":
            stop -= 1
        return Span(file_a, a, max(stop, a))


@dataclass(frozen=True)
class Preprocessed:
    """The result of preprocessing one main file."""

    text: str
    locations: LocationMap
    files: tuple[str, ...]
    """Every file read: the main file first (unless it is stdin), then includes in first-seen order."""
    diagnostics: tuple[Diagnostic, ...]
    absent: tuple[str, ...] = ()
    """The #include candidates searched and not found, in search order: a file created at one of
    them would change what is included (the compile cache checks they are still absent)."""


# --------------------------------------------------------------------------- lexer

_MASTER = re.compile(r"""
 (?P<ws>[ \t]+)
|(?P<nl>\n)
|(?P<cont>\\[ \t]*\n)
|(?P<c1>/\*[\s\S]*?\*/)
|(?P<c1u>/\*[\s\S]*)
|(?P<c2>//(?:[^\\\n]|\\[ \t]*\n|\\)*)
|(?P<str>"(?:[^"\\\n]|\\[\s\S])*")
|(?P<chr>(?:u8|[LuU])?'(?:[^'\\\n]|\\[\s\S])*')
|(?P<num>\.?\d(?:[eEpP][+-]|[.\w\#])*)
|(?P<id>[A-Za-z_]\w*)
|(?P<punct><<=|>>=|->|--|-=|<<|<=|>>|>=|\|\||\|=|&&|&=|==|!=|\^=|\*=|/=|\+=|\+\+|%=|\#\#
   |[-+*/%|&~^<>=!?()\[\]{}.,;:\\'"\#])
|(?P<other>[\s\S])
""", re.X)

# Token type names as pcpp's own (PLY) lexer spells them.
_PUNCT_TYPES = {
    "<<=": "CPP_LSHIFTEQUAL", ">>=": "CPP_RSHIFTEQUAL", "->": "CPP_DEREFERENCE", "--": "CPP_MINUSMINUS",
    "-=": "CPP_MINUSEQUAL", "<<": "CPP_LSHIFT", "<=": "CPP_LESSEQUAL", ">>": "CPP_RSHIFT",
    ">=": "CPP_GREATEREQUAL", "||": "CPP_LOGICALOR", "|=": "CPP_OREQUAL", "&&": "CPP_LOGICALAND",
    "&=": "CPP_ANDEQUAL", "==": "CPP_EQUALITY", "!=": "CPP_INEQUALITY", "^=": "CPP_XOREQUAL",
    "*=": "CPP_MULTIPLYEQUAL", "/=": "CPP_DIVIDEEQUAL", "+=": "CPP_PLUSEQUAL", "++": "CPP_PLUSPLUS",
    "%=": "CPP_PERCENTEQUAL", "##": "CPP_DPOUND", "+": "CPP_PLUS", "-": "CPP_MINUS", "*": "CPP_STAR",
    "/": "CPP_FSLASH", "%": "CPP_PERCENT", "|": "CPP_BAR", "&": "CPP_AMPERSAND", "~": "CPP_TILDE",
    "^": "CPP_HAT", "<": "CPP_LESS", ">": "CPP_GREATER", "=": "CPP_EQUAL", "!": "CPP_EXCLAMATION",
    "?": "CPP_QUESTION", "(": "CPP_LPAREN", ")": "CPP_RPAREN", "[": "CPP_LBRACKET", "]": "CPP_RBRACKET",
    "{": "CPP_LCURLY", "}": "CPP_RCURLY", ".": "CPP_DOT", ",": "CPP_COMMA", ";": "CPP_SEMICOLON",
    ":": "CPP_COLON", "\\": "CPP_BSLASH", "'": "CPP_SQUOTE", '"': "CPP_DQUOTE", "#": "CPP_POUND",
}
_INTEGER = re.compile(r"(?:0[xX][0-9a-fA-F]+|\d+)(?:[uU][lL]|[lL][uU]|[uU]|[lL])?")
_CONT = re.compile(r"\\[ \t]*\n")
# A stretch of lines (or one line) without directives, block comments, continuations,
# character literals or strings that are not plain one-line "..."; the stretch may
# hold // comments (without backslashes).
_SIMPLE_BLOCK = re.compile(r"""(?:[^#"'\\/]++|/(?![/*])|"[^"\\\n]*+"|//[^\\\n]*+)*+""")
_SIMPLE_LINE = re.compile(r"""(?:[^#"'\\/\n]++|/(?![/*])|"[^"\\\n]*+")*+""")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_PLAIN_WS = re.compile(r"[ \t\n]*").fullmatch
_DIRECTIVE_NAME = re.compile(r"#[ \t]*(\w+)")
_TRAILING_BACKSLASH = re.compile(r"\\[ \t]*\Z")

_SKIP_TYPES = frozenset({"CPP_WS", "CPP_LINECONT", "CPP_COMMENT1", "CPP_COMMENT2"})
_TEXT = "WGC_TEXT"        # an opaque run of source text that holds no macro name
_TEXT_C = "WGC_TEXT_C"    # the same, with // comments in it (blanked when written)
_LINE_COMMENT = re.compile(r'"[^"\\\n]*"|//[^\n]*')
_MISSING = "WGC_MISSING"  # stands in for a missing directive operand
_MISSING_VALUE = "__wgc_missing__"
_BUILTIN_NAMES = ("__LINE__", "__COUNTER__")
_FIRST_BASE = 1 << 32     # far above any lexpos pcpp gives tokens it lexes itself
_FLUSH = "WGC_FLUSH"      # the operand of the no-op #undef that makes pcpp expand its chunk
_FLUSH_TOKENS = 2000      # real tokens after which pcpp is made to expand its chunk


class _Tok:
    """A token in the shape pcpp expects (PLY's LexToken attributes)."""

    def __init__(self, type: str, value: str, lineno: int, lexpos: int) -> None:  # noqa: A002
        self.type = type
        self.value = value
        self.lineno = lineno
        self.lexpos = lexpos
        self.source = lexpos   # pcpp overwrites this with the use site on expansion

    def __copy__(self) -> _Tok:
        new = _Tok.__new__(_Tok)
        new.__dict__.update(self.__dict__)
        return new

    def __repr__(self) -> str:
        return f"_Tok({self.type}, {self.value!r}, {self.lexpos})"


def _blank(gap: str) -> str:
    """`gap` with everything but newlines replaced by spaces (same length)."""
    if _PLAIN_WS(gap):
        return gap
    if "\n" not in gap:
        return " " * len(gap)
    return "\n".join([" " * len(part) for part in gap.split("\n")])


def _blank_comment(m: re.Match) -> str:
    text = m.group()
    return text if text[0] == '"' else " " * len(text)


def _spelled_length(text: str, offset: int) -> int:
    """Length of the source token that starts at `offset`."""
    m = _MASTER.match(text, offset) if offset < len(text) else None
    if m is None:
        return 0
    return max(1, len(m.group().rstrip("\n")) if m.lastgroup != "nl" else 1)


# --------------------------------------------------------------------------- the preprocessor


class _Everything:
    """A stand-in for the set of macro names that contains every name."""

    def isdisjoint(self, other) -> bool:
        return False

    def __contains__(self, item) -> bool:
        return True


_BUILTIN_MACROS: dict[str, Any] = {}
"""pcpp's macro object of each predefined macro's definition ("__HLSL_VERSION 2021"), made once per
process: no compile changes a macro object once defined (expansion copies the replacement tokens; a
`#define` or `#undef` replaces or removes the object in the compile's own table), and the texts are a
handful (one per language version, shader model and stage).  Tokenizing them with pcpp's lexer was a
tenth of a small file's preprocessing."""


class _PcppTools:
    """pcpp's lexer and expression evaluator (a PLY lexer and parser) and the token names its
    `Preprocessor.__init__` probes the lexer for: the part of pcpp's set-up that does not depend on
    the compile, built once (about 0.15 ms) and reused by the compiles one after another."""

    __slots__ = ("lexer", "evaluator", "token_names")

    def __init__(self) -> None:
        probe = _PcppPreprocessor()
        self.lexer, self.evaluator = probe.lexer, probe.evaluator
        self.token_names = {name: value for name, value in vars(probe).items() if name.startswith("t_")}


_SPARE_TOOLS: list[_PcppTools] = []
"""Tools no running preprocessor holds. Both PLY objects keep the state of their current input, so
a set serves one preprocessor at a time: taken when it starts (`list.pop`, atomic under threads),
given back when it ends without an exception."""


def _take_tools() -> _PcppTools:
    try:
        tools = _SPARE_TOOLS.pop()
    except IndexError:
        return _PcppTools()
    tools.lexer.input("")                     # the last input's position forgotten
    tools.lexer.lineno = 1
    return tools


class _Preprocessor(_PcppPreprocessor):
    """pcpp with wgc's lexer, include search, diagnostics and location tracking."""

    use_opaque_runs = True
    """Tests turn this off (every line then reaches pcpp as real tokens) to check
    that opaque runs never change the result."""

    def __init__(self, main: SourceFile, options: PreprocessOptions,
                 on_file_read: Callable[[str], None] | None = None,
                 overlay: Mapping[str, str] | None = None) -> None:
        self._macro_names: set[str] = set(_BUILTIN_NAMES)
        self._tools = _take_tools()
        self._set_up_pcpp(self._tools)
        self.expand_filemacro = False     # __FILE__ is defined per unit by _scan
        self.auto_pragma_once_enabled = True
        self.diagnostics: list[Diagnostic] = []
        self.files: list[str] = []
        self.absent: list[str] = []
        self._seen_files: set[str] = set()
        self._file_cache: dict[str, SourceFile] = {}
        self._units: list[_Unit] = []
        self._bases: list[int] = []
        self._stack: list[_Unit] = []
        self._entering: _Unit | None = None
        self._next_base = _FIRST_BASE
        self._include_dirs = tuple(options.include_dirs)
        self._includes_stopped = False
        self._expr_tokens: list = []
        self._expand_depth = 0            # nesting of expand_macros calls
        self._expansion_left = MAX_EXPANSION_TOKENS   # tokens macro expansion may still produce
        self._included_left = MAX_INCLUDED_BYTES      # characters of included text still allowed
        self.main = main
        self.options = options
        self._on_file_read = on_file_read
        self._overlay = overlay or {}
        self._dangling_links: list[str] = []   # searched paths that were dangling symbolic links
        self._bodies: list[MacroBody] = []     # every #define's body, for "expanded from macro" notes

    def _set_up_pcpp(self, tools: _PcppTools) -> None:
        """What pcpp 1.30's `Preprocessor.__init__` sets up, with its lexer, evaluator and probed token
        names taken from `tools`, and without the macros __DATE__, __TIME__ and __PCPP__ that it
        defines (wgc defines none of them); `tests/test_preprocess_tools.py` compares the two."""
        self.lastdirective = None
        self.lexer, self.evaluator = tools.lexer, tools.evaluator
        self.__dict__.update(tools.token_names)
        self.macros: dict[str, Any] = {}
        self.path: list[str] = []
        self.temp_path: list[str] = []
        self.rewrite_paths = [(re.escape(os.path.abspath("") + os.sep) + "(.*)", "\\1")]
        self.passthru_includes = None
        self.include_once: dict[str, Any] = {}
        self.include_depth = 0
        self.include_times: list[Any] = []
        self.return_code = 0
        self.debugout = None
        self.auto_pragma_once_enabled = True
        self.line_directive = "#line"
        self.compress = False
        self.assume_encoding = None
        self.expand_linemacro = True
        self.expand_filemacro = True
        self.expand_countermacro = True
        self.linemacro = 0
        self.linemacrodepth = 0
        self.countermacro = 0
        self.parser = None

    # ----------------------------------------------------------------- diagnostics helpers

    def _report(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)

    def _unit_of(self, pos: int) -> _Unit:
        return self._units[max(0, bisect.bisect_right(self._bases, pos) - 1)]

    def _span_at(self, pos: int | None, length: int | None = None) -> Span | None:
        """The span of the source token at global position `pos`."""
        if not isinstance(pos, int) or not self._units:
            return None
        unit = self._unit_of(pos)
        offset = max(0, min(pos - unit.base, len(unit.text)))
        if length is None:
            length = _spelled_length(unit.text, offset)
        file, start = unit.resolve(offset)
        return Span(file, start, min(start + length, len(file.text)))

    def _span_tokens(self, first, last) -> Span | None:
        """From the start of token `first` to the end of token `last` (same file), else `first`."""
        a = self._span_at(first.source)
        b = self._span_at(last.source)
        if a is None or b is None:
            return a
        if a.file is b.file and b.end >= a.start:
            return Span(a.file, a.start, b.end)
        return a

    def _directive_span(self) -> Span | None:
        directive = self.lastdirective
        return self._span_at(directive.source) if directive is not None else None

    def _malformed(self, span: Span | None, message: str, **kwargs) -> None:
        self._report(codes.MALFORMED_DIRECTIVE(span, message, **kwargs))

    # ----------------------------------------------------------------- setup

    def _define_string(self, text: str, origin: str) -> None:
        super().define(text)
        name = text.split(" ", 1)[0].split("(", 1)[0]
        self._macro_names.add(name)
        macro = self.macros.get(name)
        if macro is not None:
            macro.wgc_origin = origin

    def setup_macros(self) -> None:
        opts = self.options
        major, minor = opts.shader_model
        predefined = [
            ("__hlsl_dx_compiler", "1"),
            ("__HLSL_VERSION", str(opts.hlsl_version)),
            ("__spirv__", "1"),
        ]
        predefined += [(f"__SHADER_STAGE_{stage}", str(value)) for stage, value in _SHADER_STAGES]
        predefined += [
            ("__SHADER_TARGET_STAGE", str(dict(_SHADER_STAGES)[(opts.stage or "library").upper()])),
            ("__SHADER_TARGET_MAJOR", str(major)),
            ("__SHADER_TARGET_MINOR", str(minor)),
        ]
        if opts.enable_16bit_types:
            predefined.append(("__HLSL_ENABLE_16_BIT", "1"))
        macros = self.macros
        for name, value in predefined:
            text = f"{name} {value}"
            macro = _BUILTIN_MACROS.get(text)
            if macro is None:
                self._define_string(text, "built-in")
                macro = macros.get(name)
                if macro is not None and macro.arglist is None:
                    _BUILTIN_MACROS[text] = macro
            else:
                macros[name] = macro
                self._macro_names.add(name)
        for name, defined in opts.defines:
            self._command_line_define(name, defined)
        for name in opts.undefines:
            if not _CMDLINE_NAME.fullmatch(name or ""):
                self._report(codes.BAD_MACRO_OPTION(None, f"macro name must be an identifier in '-U {name}'"))
                continue
            self.macros.pop(name, None)
            if name not in _BUILTIN_NAMES:
                self._macro_names.discard(name)

    def _command_line_define(self, name: str, value: str | None) -> None:
        spelled = name if value is None else f"{name}={value}"
        m = _CMDLINE_DEFINE.fullmatch(name or "")
        if m is None:
            what = "macro name is missing" if not name else "macro name must be an identifier"
            self._report(codes.BAD_MACRO_OPTION(None, f"{what} in '-D {spelled}'"))
            return
        macro_name, params = m.group(1), m.group(2)
        if macro_name == "defined":
            self._report(codes.BAD_MACRO_OPTION(None, f"'defined' cannot be used as a macro name in '-D {spelled}'"))
            return
        if params is not None and not _CMDLINE_PARAMS.fullmatch(params):
            self._report(codes.BAD_MACRO_OPTION(None, f"invalid macro parameter list in '-D {spelled}'"))
            return
        body = "1" if value is None else value
        if "\n" in body or "\r" in body:
            self._report(codes.BAD_MACRO_OPTION(None, f"macro value contains a line break in '-D {name}=...'"))
            return
        old = self.macros.get(macro_name)
        self._define_string(f"{name} {body}", "command line")
        new = self.macros.get(macro_name)
        if old is not None and new is not None and not _same_macro(old, new):
            where = "on the command line" if getattr(old, "wgc_origin", "") == "command line" else "built in"
            self._report(codes.MACRO_REDEFINED(None, f"'{macro_name}' macro redefined",
                                               notes=(f"previous definition is {where}",)))

    # ----------------------------------------------------------------- units and lexing

    def _new_unit(self, file: SourceFile) -> _Unit:
        text = file.text
        for char in ("\r", "\v", "\f"):
            if char in text:
                text = text.replace(char, " ")
        unit = _Unit(file, text, self._next_base)
        self._next_base = unit.limit + 1
        self._units.append(unit)
        self._bases.append(unit.base)
        return unit

    def group_lines(self, input, abssource):  # noqa: A002 - pcpp's signature
        """pcpp hook point: the logical lines of the unit being entered, lexed by wgc."""
        unit = self._entering
        self._entering = None
        assert unit is not None, "parsegen called without a unit"
        return self._scan(unit)

    def _define_file_macro(self, path: str) -> None:
        escaped = path.replace("\\", "\\\\").replace('"', '\\"')
        super().define(f'__FILE__ "{escaped}"')
        self._macro_names.add("__FILE__")

    def _lex_line(self, unit: _Unit, pos: int, lineno: int) -> tuple[list[_Tok], int, int]:
        """Tokens of the logical line at `pos` (with its newline token), the next position and line."""
        text = unit.text
        n = len(text)
        base = unit.base
        adjust = unit.line_adjust
        match = _MASTER.match
        toks: list[_Tok] = []
        append = toks.append
        while pos < n:
            m = match(text, pos)
            kind = m.lastgroup  # type: ignore[union-attr]  # the pattern matches any character
            start = pos
            value = m.group()  # type: ignore[union-attr]
            pos = m.end()  # type: ignore[union-attr]
            if kind == "nl":
                append(_Tok("CPP_WS", "\n", lineno + adjust, base + start))
                lineno += 1
                break
            if kind == "ws":
                append(_Tok("CPP_WS", value, lineno + adjust, base + start))
            elif kind == "id":
                append(_Tok("CPP_ID", value, lineno + adjust, base + start))
            elif kind == "punct":
                append(_Tok(_PUNCT_TYPES[value], value, lineno + adjust, base + start))
            elif kind == "num":
                kind_name = "CPP_INTEGER" if _INTEGER.fullmatch(value) else "CPP_FLOAT"
                append(_Tok(kind_name, value, lineno + adjust, base + start))
            elif kind == "cont":
                append(_Tok("CPP_LINECONT", value[1:-1], lineno + adjust, base + start))
                lineno += 1
            elif kind in ("c1", "c1u", "c2"):
                append(_Tok("CPP_COMMENT2" if kind == "c2" else "CPP_COMMENT1", value,
                            lineno + adjust, base + start))
                if kind == "c1u":
                    span = self._span_at(base + start, 2)
                    self._report(codes.UNTERMINATED_COMMENT(span, "unterminated /* comment"))
                lineno += value.count("\n")
            elif kind in ("str", "chr"):
                newlines = value.count("\n")
                if newlines:
                    value = _CONT.sub("", value)
                append(_Tok("CPP_STRING" if kind == "str" else "CPP_CHAR", value, lineno + adjust,
                            base + start))
                lineno += newlines
            else:
                append(_Tok(value, value, lineno + adjust, base + start))
        else:
            append(_Tok("CPP_WS", "\n", lineno + adjust, base + n))
        return toks, pos, lineno

    def _scan(self, unit: _Unit):
        """Yield pcpp "lines": each directive on its own, other text in blocks.

        Text that holds no macro name reaches pcpp as opaque `WGC_TEXT` runs (it
        cannot be affected by expansion), which keeps pcpp's per-token work for
        the bulk of a file small.  Lines that use a macro, and the lines that may
        continue its invocation, are passed as real tokens.  When many real tokens
        have piled up, a no-op `#undef` makes pcpp expand and hand over its pending
        chunk (pcpp only does that at directives, and its expansion is quadratic
        in the chunk's length).
        """
        self._define_file_macro(unit.resolve(0)[0].path)
        text = unit.text
        n = len(text)
        base = unit.base
        names = self._macro_names if self.use_opaque_runs else _Everything()
        simple_block = _SIMPLE_BLOCK.match
        simple_line = _SIMPLE_LINE.match
        ident_all = _IDENT.findall
        block: list[_Tok] = []
        run_start = -1
        run_end = -1
        run_comments = False  # the open run holds // comments
        pending = False      # the last non-blank line used a macro: its invocation may go on
        balance = 0          # open parentheses since that macro name
        stretch_stop = -1    # end of the current stretch of simple lines (no directive in it)
        hits: list[int] = []  # positions of macro names in that stretch
        hit_i = 0
        real_count = 0       # real tokens given to pcpp since it last expanded its chunk
        pos = 0
        lineno = 1

        def close_run() -> None:
            nonlocal run_start, run_comments
            if run_start >= 0:
                kind = _TEXT_C if run_comments else _TEXT
                block.append(_Tok(kind, text[run_start:run_end], lineno, base + run_start))
                run_start = -1
                run_comments = False

        def flush_lines(at: int) -> list[list[_Tok]]:
            close_run()
            where = base + at
            lines = [block + [_Tok("CPP_WS", "\n", lineno, where)]] if block else []
            lines.append([_Tok("CPP_POUND", "#", lineno, where), _Tok("CPP_ID", "undef", lineno, where),
                          _Tok("CPP_WS", " ", lineno, where), _Tok(_FLUSH, "__wgc_flush__", lineno, where),
                          _Tok("CPP_WS", "\n", lineno, where)])
            return lines

        while pos < n:
            if not pending:
                # Fast path: the simple lines before the next one that uses a macro, at once.
                if pos >= stretch_stop:
                    end = simple_block(text, pos).end()  # type: ignore[union-attr]  # matches empty text
                    if end >= n:
                        stretch_stop = n
                    else:
                        nl = text.rfind("\n", pos, end)
                        stretch_stop = nl + 1 if nl >= 0 else pos
                    hits = []
                    hit_i = 0
                    if stretch_stop > pos and not names.isdisjoint(ident_all(text, pos, stretch_stop)):
                        hits = [m.start() for m in _IDENT.finditer(text, pos, stretch_stop)
                                if m.group() in names]
                while hit_i < len(hits) and hits[hit_i] < pos:
                    hit_i += 1
                if hit_i < len(hits):
                    nl = text.rfind("\n", pos, hits[hit_i])
                    stop = nl + 1 if nl >= 0 else pos
                else:
                    stop = stretch_stop
                if stop > pos:
                    chunk = text[pos:stop]
                    core = chunk.strip(" \t\n")
                    if core:
                        first = pos + len(chunk) - len(chunk.lstrip(" \t\n"))
                        if run_start < 0:
                            run_start = first
                        run_end = first + len(core)
                        if "//" in core:
                            run_comments = True
                    lineno += chunk.count("\n")
                    pos = stop
                    continue
            line_end = text.find("\n", pos)
            if line_end < 0:
                line_end = n
            end = simple_line(text, pos, line_end).end()  # type: ignore[union-attr]  # matches empty text
            code_end = -1
            if end == line_end:
                code_end = line_end
            elif text.startswith("//", end) and _TRAILING_BACKSLASH.search(text, end, line_end) is None:
                code_end = end
            if code_end >= 0:
                # One line without directives, block comments, continuations or odd literals.
                code = text[pos:code_end]
                core = code.strip(" \t")
                hit = not names.isdisjoint(ident_all(code))
                if hit or (pending and core and (balance > 0 or core[0] == "(")):
                    if real_count > _FLUSH_TOKENS and core and (not pending or (balance == 0 and core[0] != "(")):
                        yield from flush_lines(pos)
                        block = []
                        real_count = 0
                    close_run()
                    toks, next_pos, lineno = self._lex_line(unit, pos, lineno)
                    balance = _paren_balance(toks, names, self.macros, balance if pending else 0, not pending)
                    pending = True
                    block.extend(toks)
                    real_count += len(toks)
                    pos = next_pos
                    continue
                if core:
                    first = pos + len(code) - len(code.lstrip(" \t"))
                    if run_start < 0:
                        run_start = first
                    run_end = first + len(core)
                    pending = False
                    balance = 0
                if code_end < line_end:
                    close_run()
                lineno += 1
                pos = line_end + 1
                continue
            # Slow path: lex the logical line.
            toks, next_pos, next_lineno = self._lex_line(unit, pos, lineno)
            first_tok = None
            for tok in toks:
                if tok.type not in _SKIP_TYPES:
                    first_tok = tok
                    break
            if first_tok is not None and first_tok.value == "#":
                close_run()
                if block:
                    block.append(_Tok("CPP_WS", "\n", lineno, base + pos))
                    yield block
                    block = []
                last = toks[-1]
                unit.line_end = last.lexpos - base if last.value == "\n" else n
                unit.next_lineno = next_lineno
                if _directive_name(toks) in ("define", "undef", "include"):
                    real_count = 0
                pos = next_pos
                lineno = next_lineno
                stretch_stop = -1
                yield toks
                continue
            hit = any(t.type == "CPP_ID" and t.value in names for t in toks)
            if hit or (pending and first_tok is not None and (balance > 0 or first_tok.value == "(")):
                if real_count > _FLUSH_TOKENS and (not pending or (balance == 0 and first_tok.value != "(")):  # type: ignore[union-attr]
                    yield from flush_lines(pos)
                    block = []
                    real_count = 0
                close_run()
                balance = _paren_balance(toks, names, self.macros, balance if pending else 0, not pending)
                pending = True
                block.extend(toks)
                real_count += len(toks)
            else:
                if first_tok is not None:
                    pending = False
                    balance = 0
                for tok in toks:
                    kind = tok.type
                    if kind == "CPP_WS":
                        continue
                    if kind in _SKIP_TYPES:
                        close_run()
                        continue
                    start = tok.lexpos - base
                    value = tok.value
                    if not text.startswith(value, start):
                        close_run()
                        block.append(tok)
                        continue
                    if run_start < 0:
                        run_start = start
                    run_end = start + len(value)
            pos = next_pos
            lineno = next_lineno
        close_run()
        if block:
            block.append(_Tok("CPP_WS", "\n", lineno, base + n))
            yield block

    # ----------------------------------------------------------------- pcpp hooks: errors

    def on_error(self, file, line, msg):  # noqa: ARG002 - pcpp's signature
        pos = file if isinstance(file, int) else None
        if pos is None and self.lastdirective is not None:
            pos = self.lastdirective.source
        span = self._span_at(pos)
        notes: tuple[str, ...] = ()
        labels: tuple[Label, ...] = ()
        m = re.match(r"Macro (\S+) requires (\d+) arguments but was passed (\d+)", msg)
        m2 = re.match(r"Macro (\S+) must have at least (\d+) argument", msg)
        if m or m2:
            name = (m or m2).group(1)
            wanted = int((m or m2).group(2))
            given = int(m.group(3)) if m else wanted - 1
            many = "many" if given > wanted else "few"
            message = f"too {many} arguments provided to function-like macro invocation"
            macro = self.macros.get(name)
            if macro is not None and isinstance(macro.source, int):
                def_span = self._span_at(macro.source)
                if def_span is not None:
                    labels = (Label(def_span, f"macro '{name}' defined here"),)
            expects = f"at least {wanted}" if m2 else str(wanted)
            notes = (f"'{name}' expects {expects} argument{'s' if wanted != 1 else ''}",)
        elif msg.startswith("Misplaced #"):
            message = f"{msg[len('Misplaced '):]} without #if"
        elif msg.startswith("Unterminated "):
            message = "unterminated conditional directive"
            span = self._directive_name_span(pos)
        elif msg.startswith("Could not evaluate expression"):
            m = re.match(r"Could not evaluate expression due to (.*) \(passed to evaluator: '(.*)'\)$", msg, re.S)
            expr = " ".join(m.group(2).split()) if m else ""
            message = f"invalid preprocessor expression '{expr}'" if expr else "invalid preprocessor expression"
            reason = m.group(1) if m else ""
            if reason.startswith("ZeroDivisionError"):
                notes = ("division by zero",)
            elif "at EOF" in reason:
                notes = ("the expression ends too early",)
            else:
                tok = re.search(r"around token '(.*)' type", reason)
                if tok:
                    notes = (f"unexpected '{tok.group(1)}'",)
            span = self._directive_span() or span
        else:
            message = msg[:1].lower() + msg[1:]
        self._malformed(span, message, labels=labels, notes=notes)

    def _directive_name_span(self, pos) -> Span | None:
        """The directive name of the directive line that contains position `pos`."""
        if not isinstance(pos, int) or not self._units:
            return self._span_at(pos)
        unit = self._unit_of(pos)
        offset = pos - unit.base
        line_end = unit.text.find("\n", offset)
        if line_end < 0:
            line_end = len(unit.text)
        m = _DIRECTIVE_NAME.search(unit.text, offset, line_end)
        if m is None:
            return self._span_at(pos)
        return self._span_at(unit.base + m.start(1), m.end(1) - m.start(1))

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
        # Only reachable through pcpp's own include(), which wgc replaces.
        raise OutputDirective(Action.IgnoreAndRemove)

    def on_unknown_macro_in_defined_expr(self, tok):
        if tok.type == _MISSING:
            self._malformed(self._directive_span(), "macro name missing")
        elif tok.type != "CPP_ID":
            self._malformed(self._span_at(tok.source), "macro name must be an identifier")
        return False

    def on_unknown_macro_in_expr(self, ident):
        return 0   # as the C standard says (clang's -Wundef is off by default)

    def on_unknown_macro_function_in_expr(self, ident):
        span = self._directive_span()
        for tok in self._expr_tokens:
            if tok.value == ident:
                span = self._span_at(tok.source)
                break
        self._malformed(span, f"function-like macro '{ident}' is not defined")
        return lambda *_: 0

    # ----------------------------------------------------------------- pcpp hooks: directives

    def _missing(self, directive) -> _Tok:
        tok = _Tok(_MISSING, _MISSING_VALUE, directive.lineno, directive.lexpos)
        tok.source = directive.source
        return tok

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
        """Record the directive and patch operands pcpp would index past."""
        self.lastdirective = directive
        name = directive.value
        if name in ("define", "undef", "ifdef", "ifndef", "pragma", "if", "elif") and not toks:
            toks.append(self._missing(directive))
        elif name == "if" and toks[0].value == "!":
            # pcpp's include-guard detection reads `! defined ( NAME` by index.
            if len(toks) == 1:
                toks.append(self._missing(directive))
            elif toks[1].value == "defined" and (len(toks) == 2 or (len(toks) == 3 and toks[2].value == "(")):
                toks.append(self._missing(directive))
        return True

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
        name = directive.value
        if name in ("error", "warning"):
            text = self._rest_of_line(directive) or f"#{name}"
            kind = codes.ERROR_DIRECTIVE if name == "error" else codes.WARNING_DIRECTIVE
            self._report(kind(self._span_at(directive.source), text))
        elif name == "line" or directive.type == "CPP_INTEGER":
            self._line_directive(directive, toks)
        elif name == "pragma":
            sig = [t for t in toks if t.type not in _SKIP_TYPES]
            if sig and sig[0].type != _MISSING and sig[0].value not in _SILENT_PRAGMAS:
                self._report(codes.UNKNOWN_PRAGMA(self._span_at(sig[0].source),
                                                  f"unknown pragma '{sig[0].value}' ignored"))
        else:
            self._report(codes.UNKNOWN_DIRECTIVE(self._span_at(directive.source),
                                                 f"invalid preprocessing directive '#{name}'"))
        return True

    def _rest_of_line(self, directive) -> str:
        """What follows the directive name on its line, as written (clang's #error text)."""
        unit = self._stack[-1]
        start = directive.lexpos - unit.base + len(directive.value)
        if not 0 <= start <= unit.line_end:
            return ""
        return _CONT.sub("", unit.text[start:unit.line_end]).strip(" \t")

    def _line_directive(self, directive, toks) -> None:
        sig = [t for t in toks if t.type not in _SKIP_TYPES]
        if sig and sig[0].type == "CPP_ID":
            expanded = self.expand_macros([copy.copy(t) for t in toks])
            sig = [t for t in expanded if t.type not in _SKIP_TYPES]
        is_line = directive.value == "line"
        number_tok = sig[0] if (is_line and sig) else directive
        if is_line and (not sig or not sig[0].value.isdigit()):
            where = self._span_at(sig[0].source) if sig else self._span_at(directive.source)
            self._malformed(where, "#line directive requires a positive integer argument")
            return
        rest = sig[1:] if is_line else sig
        digits = number_tok.value.lstrip("0") if number_tok.value.isdigit() else None
        number = -1 if digits is None else MAX_LINE_NUMBER + 1 if len(digits) > 7 else int(digits or "0")
        if number < 0:
            self._malformed(self._span_at(directive.source), "invalid line marker")
            return
        if number > MAX_LINE_NUMBER:
            self._malformed(self._span_at(number_tok.source),
                            f"#line number {number if len(digits or '') <= 7 else _abridged(number_tok.value)} "
                            f"is too large (wgc supports at most {MAX_LINE_NUMBER})")
            return
        name = None
        if rest:
            if rest[0].type == "CPP_STRING":
                name = re.sub(r"\\(.)", r"\1", rest[0].value[1:-1])
            elif is_line:
                self._malformed(self._span_at(rest[0].source), "invalid filename for #line directive")
                return
        unit = self._stack[-1]
        next_start = min(unit.line_end + 1, len(unit.text))
        if name is None:
            name = unit.resolve(next_start)[0].path
        padding = max(number, 1) - 1
        virtual = SourceFile(name, "\n" * padding + unit.file.text[next_start:],
                             included_from=unit.file.included_from)
        unit.region_starts.append(next_start)
        unit.region_files.append(virtual)
        unit.region_deltas.append(padding - next_start)
        unit.line_adjust = max(number, 1) - unit.next_lineno
        self._define_file_macro(name)

    def define(self, tokens):
        if isinstance(tokens, str):
            return self._define_string(tokens, "built-in")
        name = tokens[0]
        if name.type == _MISSING:
            self._malformed(self._directive_span(), "macro name missing")
            return None
        if name.type != "CPP_ID":
            self._malformed(self._span_at(name.source), "macro name must be an identifier")
            return None
        if name.value == "defined":
            self._malformed(self._span_at(name.source), "'defined' cannot be used as a macro name")
            return None
        tokens = list(tokens)
        if len(tokens) > 1:
            second = tokens[1]
            if second.value == "(":
                if not self._check_parameters(tokens):
                    return None
            elif second.type not in _SKIP_TYPES:
                space = copy.copy(second)
                space.type = "CPP_WS"
                space.value = " "
                tokens.insert(1, space)
        old = self.macros.get(name.value)
        super().define(tokens)
        self._macro_names.add(name.value)
        new = self.macros.get(name.value)
        if new is not None and new is not old:
            self._bodies.append(_body_of(name.value, new.value))
        if old is not None and new is not None and not _same_macro(old, new):
            labels: tuple[Label, ...] = ()
            notes: tuple[str, ...] = ()
            old_span = self._span_at(old.source) if isinstance(old.source, int) else None
            if old_span is not None:
                labels = (Label(old_span, "previous definition is here"),)
            else:
                where = "on the command line" if getattr(old, "wgc_origin", "") == "command line" else "built in"
                notes = (f"previous definition is {where}",)
            self._report(codes.MACRO_REDEFINED(self._span_at(name.source), f"'{name.value}' macro redefined",
                                               labels=labels, notes=notes))
        return None

    def _check_parameters(self, tokens) -> bool:
        """Check a `#define NAME(` parameter list; report and return False if malformed."""
        params: list[str] = []
        expect_name = True
        variadic = False
        i = 2
        while i < len(tokens):
            tok = tokens[i]
            if tok.type in _SKIP_TYPES:
                i += 1
                continue
            value = tok.value
            if value == ")":
                if expect_name and params:
                    self._malformed(self._span_at(tok.source), "expected parameter name in macro parameter list")
                    return False
                return True
            if variadic:
                self._malformed(self._span_at(tok.source), "missing ')' after '...' in macro parameter list")
                return False
            if expect_name:
                dots = _dots_at(tokens, i + 1) if tok.type == "CPP_ID" else _dots_at(tokens, i)
                if tok.type == "CPP_ID":
                    if value in params:
                        self._malformed(self._span_at(tok.source), f"duplicate macro parameter name '{value}'")
                        return False
                    params.append(value)
                    if dots:
                        variadic = True
                        i += 3
                elif dots:
                    variadic = True
                    i += 2
                else:
                    self._malformed(self._span_at(tok.source), "invalid token in macro parameter list")
                    return False
                expect_name = False
            elif value == ",":
                expect_name = True
            else:
                self._malformed(self._span_at(tok.source), "expected comma in macro parameter list")
                return False
            i += 1
        self._malformed(self._span_at(tokens[1].source), "missing ')' in macro parameter list")
        return False

    def undef(self, tokens):
        name = tokens[0]
        if name.type == _FLUSH:
            return
        if name.type == _MISSING:
            self._malformed(self._directive_span(), "macro name missing")
        elif name.type != "CPP_ID":
            self._malformed(self._span_at(name.source), "macro name must be an identifier")
        elif name.value == "defined":
            self._malformed(self._span_at(name.source), "'defined' cannot be used as a macro name")
        else:
            self.macros.pop(name.value, None)
            if name.value not in _BUILTIN_NAMES:
                self._macro_names.discard(name.value)

    def evalexpr(self, tokens):
        sig = [t for t in tokens if t.type not in _SKIP_TYPES]
        directive = self.lastdirective.value if self.lastdirective is not None else "if"
        if not sig:
            self._malformed(self._directive_span(), f"#{directive} with no expression")
            return 0, None
        if len(sig) == 1 and sig[0].type == _MISSING:
            self._malformed(self._directive_span(), f"#{directive} with no expression")
            return 0, None
        for i, tok in enumerate(sig):
            if tok.type == _MISSING:
                self._malformed(self._directive_span(), "expected value in expression")
                return 0, None
            if tok.type == "CPP_ID" and tok.value == "defined":
                following = sig[i + 1:i + 4]
                if not following or following[0].type == _MISSING or (
                        following[0].value == "(" and (len(following) < 2 or following[1].type == _MISSING)):
                    self._malformed(self._span_at(tok.source), "macro name missing")
                    return 0, None
                if following[0].value == "(":
                    if len(following) < 2 or following[1].type != "CPP_ID":
                        where = following[1] if len(following) > 1 else following[0]
                        self._malformed(self._span_at(where.source), "macro name must be an identifier")
                        return 0, None
                    if len(following) < 3 or following[2].value != ")":
                        self._malformed(self._span_at(following[1].source), "missing ')' after 'defined'")
                        return 0, None
                elif following[0].type != "CPP_ID":
                    self._malformed(self._span_at(following[0].source), "macro name must be an identifier")
                    return 0, None
        self._expr_tokens = sig
        try:
            return super().evalexpr(tokens)
        except ValueError:   # a decimal integer of more than 4,300 digits (Python refuses to convert it)
            self._report(codes.INTEGER_TOO_LARGE(self._directive_span(), f"an integer in this #{directive} "
                                                 "is too large to be represented in any integer type"))
            return 0, None

    def expand_macros(self, tokens, expanding_from=[]):  # noqa: B006 - pcpp's signature
        """pcpp's expansion; a chain too deep for Python's stack, or more than MAX_EXPANSION_TOKENS
        produced, becomes a diagnostic (once: after it, nothing more is expanded)."""
        if self._expand_depth:
            self._expand_depth += 1
            try:
                expanded = super().expand_macros(tokens, expanding_from)
            finally:
                self._expand_depth -= 1
            self._expansion_left -= len(expanded)
            if self._expansion_left < 0:
                raise _ExpansionLimit
            return expanded
        if self._expansion_left < 0:
            return tokens
        self._expand_depth = 1
        try:
            expanded = super().expand_macros(tokens, expanding_from)
            self._expansion_left -= len(expanded)
            if self._expansion_left < 0:
                raise _ExpansionLimit
            return expanded
        except _ExpansionLimit:
            self.linemacrodepth = 0
            self.linemacro = 0
            culprit = next((t for t in tokens if t.type == "CPP_ID" and t.value in self.macros), None)
            span = self._span_at(culprit.source) if culprit is not None else self._directive_span()
            self._report(codes.MACRO_EXPANSION_LIMIT(
                span, f"macro expansion produces more than {MAX_EXPANSION_TOKENS:,} tokens",
                notes=("each level of a nested expansion counts the tokens it produces; the tokens here "
                       "and any later macro uses are left unexpanded",)))
            return tokens
        except RecursionError:
            self.linemacrodepth = 0
            self.linemacro = 0
            culprit = next((t for t in tokens if t.type == "CPP_ID" and t.value in self.macros), None)
            span = self._span_at(culprit.source) if culprit is not None else self._directive_span()
            self._report(codes.PREPROCESSOR_LIMIT(span, "macro expansion nests too deeply for wgc",
                                                  notes=("the tokens here are left unexpanded",)))
            return tokens
        finally:
            self._expand_depth = 0

    def collect_args(self, tokenlist, ignore_errors=False):
        result = super().collect_args(tokenlist, ignore_errors)
        # Only an invocation left open in the text itself is an error: inside a macro
        # body pcpp tries first, then again with the text that follows the expansion.
        if result[0] == 0 and ignore_errors and self._expand_depth == 1:
            for tok in tokenlist:
                if tok.type in _SKIP_TYPES:
                    continue
                if tok.value == "(":
                    self._malformed(self._span_at(tok.source), "unterminated function-like macro invocation")
                break
        return result

    # ----------------------------------------------------------------- pcpp hooks: #include

    def include(self, tokens, original_line):
        """Resolve and read an `#include` (wgc's search order), then let pcpp process it."""
        if self._includes_stopped:
            return
        if not tokens:
            self._malformed(self._directive_span(), '#include expects "FILENAME" or <FILENAME>')
            return
        first = tokens[0]
        if first.type == "CPP_STRING":
            name = first.value[1:-1]
            angled = False
            name_span = self._span_tokens(first, first)
        elif first.value == "<":
            close = next((i for i, t in enumerate(tokens) if t.value == ">"), None)
            if close is None:
                self._malformed(self._span_at(first.source), "expected '>' after the #include file name")
                return
            name = "".join(t.value for t in tokens[1:close])
            angled = True
            name_span = self._span_tokens(first, tokens[close])
        else:
            self._malformed(self._span_at(first.source), '#include expects "FILENAME" or <FILENAME>')
            return
        if not name:
            self._malformed(name_span, "empty filename in #include")
            return
        name = include_name(name)
        if self.include_depth >= MAX_INCLUDE_DEPTH:
            self._report(codes.INCLUDE_TOO_DEEP(
                name_span, "#include nested too deeply",
                notes=(f"at most {MAX_INCLUDE_DEPTH} files can be open at once; "
                       "no further #include is processed",)))
            self._includes_stopped = True
            return
        includer = self._stack[-1].file
        folders: list[str] = []
        if not angled:
            folders.append(os.path.dirname(includer.path) if includer.path != STDIN_NAME else "")
        folders.extend(self._include_dirs)
        tried: set[str] = set()
        del self._dangling_links[:]
        for folder in folders:
            spelled = os.path.join(folder, name) if folder else name
            absolute = os.path.abspath(spelled)
            if absolute in tried:
                continue
            tried.add(absolute)
            if absolute in self.include_once:
                guard = self.include_once[absolute]
                if guard is None or guard in self.macros:
                    return
            file = self._read(spelled, absolute, name_span)
            if file is False:
                return
            if file is None:
                continue
            self._included_left -= len(file.text)
            if self._included_left < 0:
                self._report(codes.MACRO_EXPANSION_LIMIT(
                    name_span, f"the preprocessed text would exceed {MAX_INCLUDED_BYTES:,} characters "
                    "of included files", notes=("each inclusion counts; no further #include is processed",)))
                self._includes_stopped = True
                return
            unit = self._new_unit(file.inclusion(name_span) if name_span is not None else file)
            self._stack.append(unit)
            self._entering = unit
            try:
                yield from self.parsegen("", name, absolute)
            finally:
                self._stack.pop()
            return
        shown = [folder or "." for folder in folders]
        note = "searched: " + (", ".join(shown) if shown else "(no -I folders given)")
        notes = [note] + [f"'{link}' is a dangling symbolic link" for link in self._dangling_links]
        for folder in folders:
            other = _other_case(folder, name)
            if other is not None:
                notes.append(f"'{os.path.join(folder, other) if folder else other}' exists, spelled with another "
                             "case: file names are case-sensitive here (unlike on Windows and macOS); "
                             f"write #include \"{other}\"")
                break
        self._report(codes.INCLUDE_NOT_FOUND(name_span, f"'{name}' file not found", notes=tuple(notes)))

    def _read(self, spelled: str, absolute: str, span: Span | None) -> SourceFile | None | bool:
        """The file at `spelled` (cached by absolute path), None if absent, False after an error.

        The file is checked with `stat` before it is opened, so a FIFO or a device is refused
        (INCLUDE_NOT_REGULAR) instead of blocking; it is then opened without blocking and checked
        again on the open descriptor, in case it was replaced in between. A dangling symbolic
        link counts as absent (the search goes on, as with gcc) and is named in the
        'file not found' note; a file that disappears between the search and the open is absent.
        """
        cached = self._file_cache.get(absolute)
        if cached is not None:
            return cached
        if absolute in self._overlay:   # the text an editor holds for the file (wgc lsp)
            return self._remember(spelled, absolute, self._overlay[absolute])
        try:
            found = os.stat(spelled)
            if not stat.S_ISREG(found.st_mode):
                return self._not_regular(spelled, found, span)
            fd = os.open(spelled, os.O_RDONLY | portable.open_flags("O_NONBLOCK", "O_CLOEXEC"))
            with os.fdopen(fd, "rb") as handle:
                opened = os.fstat(handle.fileno())
                if not stat.S_ISREG(opened.st_mode):
                    return self._not_regular(spelled, opened, span)
                data, refused = read_source(handle)
                if data is None:
                    self._report(codes.INCLUDE_NOT_REGULAR(span, f"cannot include '{spelled}': {refused}",
                                                      notes=("wgc reads sources of at most 64 MiB of text",)))
                    return False
        except (FileNotFoundError, NotADirectoryError, ValueError):
            if os.path.islink(spelled):
                self._dangling_links.append(spelled)
            if spelled not in self.absent:
                self.absent.append(spelled)
            return None
        except OSError as err:
            reason = err.strerror or str(err)
            self._report(codes.INPUT_NOT_READABLE(span, f"cannot read '{spelled}': {reason}"))
            return False
        if self._on_file_read is not None:
            self._on_file_read(spelled)
        text, _ = decode_source(data)   # not-UTF-8 bytes are U+FFFD: silent in comments, WG0202 in code
        return self._remember(spelled, absolute, text)

    def _remember(self, spelled: str, absolute: str, text: str) -> SourceFile:
        """The `SourceFile` of an included file's text, cached and listed among the files read."""
        file = SourceFile(spelled, text)
        self._file_cache[absolute] = file
        if absolute not in self._seen_files:
            self._seen_files.add(absolute)
            self.files.append(spelled)
        return file

    def _not_regular(self, spelled: str, found: os.stat_result, span: Span | None) -> bool:
        """Report an #include of a directory, FIFO, device or socket (never opened); False."""
        mode = found.st_mode
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        self._report(codes.INCLUDE_NOT_REGULAR(span, f"cannot include '{spelled}': it is {kind}",
                                               notes=("only regular files can be included",)))
        return False

    # ----------------------------------------------------------------- running

    def run(self) -> Preprocessed:
        main = self.main
        self.setup_macros()
        main_unit = self._new_unit(main)
        if main.path != STDIN_NAME:
            absolute = os.path.abspath(main.path)
            self._file_cache[absolute] = main
            self._seen_files.add(absolute)
            self.files.append(main.path)
        else:
            absolute = os.path.abspath(STDIN_NAME)
        self._stack.append(main_unit)
        self._entering = main_unit
        emitter = _Emitter(self._units, self._bases, main_unit, self._bodies)
        try:
            emitter.consume(self.parsegen("", main.path, absolute))
        except RecursionError:
            self._report(codes.PREPROCESSOR_LIMIT(
                self._directive_span(), "macro expansion or #include nesting is too deep to preprocess"))
        text, locations = emitter.finish()
        _SPARE_TOOLS.append(self._tools)         # not after an exception: then a new set is made
        return Preprocessed(text=text, locations=locations, files=tuple(self.files),
                            diagnostics=tuple(self.diagnostics), absent=tuple(self.absent))


def include_name(name: str) -> str:
    """An #include name with DXC's separators: a backslash is a '/' (DXC's `hlsl::NormalizePath`, used
    by its include loader on every platform), and repeated separators after the first name are one."""
    if "\\" not in name and "//" not in name:
        return name
    name = name.replace("\\", "/")
    lead = len(name) - len(name.lstrip("/"))
    return name[:lead] + re.sub("/{2,}", "/", name[lead:])


def _other_case(folder: str, name: str) -> str | None:
    """`name` as spelled on disk in `folder` when a file matches it only ignoring case (else None)."""
    if os.path.isabs(name):
        return None
    here, spelled, changed = folder or ".", [], False
    for part in name.split("/"):
        if part in ("", ".", ".."):
            spelled.append(part)
            here = os.path.join(here, part) if part else here
            continue
        try:
            entries = os.listdir(here)
        except OSError:
            return None
        if part not in entries:
            matches = sorted(entry for entry in entries if entry.casefold() == part.casefold())
            if not matches:
                return None
            part, changed = matches[0], True
        spelled.append(part)
        here = os.path.join(here, part)
    return "/".join(spelled) if changed and os.path.isfile(here) else None


_CMDLINE_NAME = re.compile(r"[A-Za-z_]\w*")
_CMDLINE_DEFINE = re.compile(r"([A-Za-z_]\w*)(\([^()]*\))?")
_CMDLINE_PARAMS = re.compile(
    r"\(\s*(?:(?:[A-Za-z_]\w*\s*,\s*)*(?:[A-Za-z_]\w*\s*(?:\.\.\.)?|\.\.\.)\s*)?\)")


def _abridged(digits: str) -> str:
    """A number as written, its first 20 digits and '...' when it is longer."""
    return digits if len(digits) <= 20 else digits[:20] + "..."


def _directive_name(toks) -> str:
    """The name of the directive on a directive line ("" if none)."""
    seen_hash = False
    for tok in toks:
        if tok.type in _SKIP_TYPES:
            continue
        if seen_hash:
            return str(tok.value)
        seen_hash = True
    return ""


def _dots_at(tokens, i: int) -> bool:
    """Whether tokens[i:i+3] are three adjacent dots."""
    if i + 2 >= len(tokens):
        return False
    a, b, c = tokens[i], tokens[i + 1], tokens[i + 2]
    return (a.value == b.value == c.value == "."
            and b.lexpos == a.lexpos + 1 and c.lexpos == b.lexpos + 1)


def _paren_balance(toks, names, macros, balance: int, from_first_macro: bool) -> int:
    """Open-parenthesis count after `toks`, counting from the first macro name if asked.

    A macro whose body opens more parentheses than it closes (`#define OPEN f(`)
    counts as that many open parentheses, so its invocation may go on below.
    """
    counting = not from_first_macro
    for tok in toks:
        value = tok.value
        if tok.type == "CPP_ID" and value in names:
            counting = True
            macro = macros.get(value)
            if macro is not None:
                balance += _body_open_parens(macro)
            continue
        if not counting:
            continue
        if value == "(":
            balance += 1
        elif value == ")" and balance > 0:
            balance -= 1
    return balance


def _body_open_parens(macro) -> int:
    """How many more '(' than ')' a macro's replacement list has (cached on the macro)."""
    count = getattr(macro, "wgc_open_parens", None)
    if count is None:
        count = 0
        for tok in macro.value:
            if tok.value == "(":
                count += 1
            elif tok.value == ")":
                count -= 1
        count = max(count, 0)
        macro.wgc_open_parens = count
    return count


def _macro_shape(macro) -> tuple:
    parts: list[str] = []
    space = False
    for tok in macro.value:
        if tok.type in _SKIP_TYPES:
            space = True
            continue
        if space and parts:
            parts.append(" ")
        space = False
        parts.append(str(tok.value))
    return (tuple(macro.arglist) if macro.arglist is not None else None, bool(macro.variadic), "".join(parts))


def _same_macro(a, b) -> bool:
    return _macro_shape(a) == _macro_shape(b)


# --------------------------------------------------------------------------- text assembly


class _Emitter:
    """Builds the expanded text and its segments from pcpp's token stream."""

    def __init__(self, units: list[_Unit], bases: list[int], main: _Unit, bodies: list[MacroBody]) -> None:
        self.units = units
        self.bases = bases
        self.main = main
        self.bodies = bodies
        self.exp_out: list[int] = []   # per token a macro expansion wrote: its offset in the text,
        self.exp_pos: list[int] = []   # and where it was spelled (its global position)
        self.pieces: list[str] = []
        self.out_len = 0
        self.seg_out = [0]
        self.seg_pos = [main.base]
        self.seg_end = [-1]

    def _unit_of(self, pos: int) -> _Unit:
        return self.units[max(0, bisect.bisect_right(self.bases, pos) - 1)]

    def consume(self, tokens) -> None:
        pieces = self.pieces
        append = pieces.append
        seg_out = self.seg_out
        seg_pos = self.seg_pos
        seg_end = self.seg_end
        out_len = 0
        linear = True            # the current segment is linear
        expect = self.main.base  # position the next output character has in a linear segment
        fixed_src = -1           # use-site position of the current fixed segment
        prev_end = -1            # lexpos just after the previous expanded token
        saw_space = False        # pcpp gave whitespace since the previous token
        last = "\n"              # the last character written
        unit = self.main
        skip = _SKIP_TYPES
        glue = _would_glue
        exp_out = self.exp_out.append
        exp_pos = self.exp_pos.append

        def segment(pos: int, end: int, first_char: str, new_file: bool = False) -> None:
            nonlocal out_len, last
            if new_file and last != "\n" and first_char != "\n":
                append("\n")      # text from another file starts on a line of its own
                out_len += 1
                last = "\n"
            elif glue(last, first_char):
                append(" ")
                out_len += 1
                last = " "
            if seg_out[-1] == out_len:
                seg_pos[-1] = pos
                seg_end[-1] = end
            else:
                seg_out.append(out_len)
                seg_pos.append(pos)
                seg_end.append(end)

        try:
            for tok in tokens:
                if tok.type in skip:
                    saw_space = True
                    continue
                value = tok.value
                if not value:
                    continue
                if not isinstance(value, str):
                    value = str(value)
                src = tok.source
                if src.__class__ is not int or src < _FIRST_BASE:
                    src = expect if linear else fixed_src
                new_file = not (unit.base <= src < unit.limit)
                if new_file:
                    unit = self._unit_of(src)
                text = unit.text
                off = src - unit.base
                saw, saw_space = saw_space, False
                if src == tok.lexpos and (tok.type == _TEXT_C or text.startswith(value, off)):
                    # Straight from the file: emit the blanked gap and the token as written.
                    done = unit.last_end
                    if done <= off:
                        gap = text[done:off]
                        start = unit.base + done
                    else:
                        gap = ""
                        start = src
                    if not linear or expect != start:
                        segment(start, -1, (gap or value)[0], new_file)
                        linear = True
                    if gap:
                        gap = _blank(gap)
                        append(gap)
                        out_len += len(gap)
                    if tok.type == _TEXT_C:
                        value = _LINE_COMMENT.sub(_blank_comment, value)
                    append(value)
                    out_len += len(value)
                    last = value[-1]
                    expect = src + len(value)
                    unit.last_end = off + len(value)
                    continue
                # From a macro expansion (or changed by pcpp, as __LINE__): map to the use site.
                lexpos = tok.lexpos
                if not linear and fixed_src == src:
                    if last not in " \t\n" and (saw or (lexpos != prev_end and glue(last, value[0]))):
                        append(" ")
                        out_len += 1
                else:
                    done = unit.last_end
                    if done < off:
                        gap = _blank(text[done:off])
                        start = unit.base + done
                        if not linear or expect != start:
                            segment(start, -1, gap[0])
                        append(gap)
                        out_len += len(gap)
                        last = gap[-1]
                    length = _spelled_length(text, off) or len(value)
                    segment(src, src + length, value[0])
                    linear = False
                    fixed_src = src
                    if off + length > unit.last_end:
                        unit.last_end = off + length
                if isinstance(lexpos, int):
                    exp_out(out_len)
                    exp_pos(lexpos)
                append(value)
                out_len += len(value)
                last = value[-1]
                prev_end = lexpos + len(value) if isinstance(lexpos, int) else -1
        finally:
            self.out_len = out_len
            self.last = last
            self.linear = linear
            self.expect = expect

    def finish(self) -> tuple[str, LocationMap]:
        main = self.main
        tail = main.text[main.last_end:]
        start = main.base + main.last_end
        out_len = self.out_len
        if not (self.linear and self.expect == start):
            if tail and _would_glue(self.last, tail[0]):
                self.pieces.append(" ")
                out_len += 1
            if self.seg_out[-1] == out_len:
                self.seg_pos[-1] = start
                self.seg_end[-1] = -1
            else:
                self.seg_out.append(out_len)
                self.seg_pos.append(start)
                self.seg_end.append(-1)
        if tail:
            self.pieces.append(_blank(tail))
        text = "".join(self.pieces)
        return text, LocationMap(self.seg_out, self.seg_pos, self.seg_end, list(self.units),
                                 (self.exp_out, self.exp_pos, self.bodies))


_GLUE_PAIRS = frozenset({
    "++", "--", "->", "-=", "+=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "&=", "|=", "^=",
    "*=", "/=", "%=", "##", "//", "/*", "::", ".*", "..", "<:", ":>", "<%", "%>", "%:",
})


def _would_glue(a: str, b: str) -> bool:
    """Whether writing character `b` right after character `a` could join two tokens."""
    if a.isalnum() or a == "_":
        return b.isalnum() or b in "_.\"'" or (a in "eEpP" and b in "+-")
    if a in "\"'":
        return b.isalnum() or b == "_"
    if a == ".":
        return b.isdigit() or b in ".*"
    return a + b in _GLUE_PAIRS


def preprocess(main: SourceFile, options: PreprocessOptions,
               on_file_read: Callable[[str], None] | None = None,
               overlay: Mapping[str, str] | None = None) -> Preprocessed:
    """Preprocess `main` with `options`; see the module docstring for the guarantees.

    `on_file_read(path)` is called for each included file as soon as it was read, before it is
    processed (the CLI uses it so that clean-up after an interrupt never removes a file the
    compile read). `overlay` maps absolute paths to texts read in place of those files (the
    unsaved buffers of an editor, `wgc lsp`).
    """
    return _Preprocessor(main, options, on_file_read, overlay).run()
