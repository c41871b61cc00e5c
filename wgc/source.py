"""Stage 0, sources: the text of every file wgc reads, and spans into it.

Input: a path (or standard input) and its bytes.  Output: `SourceFile` objects
holding decoded text plus a lazily built line index, and `Span`s that point into
them.

Invariants:
- A `Span` is a half-open range of *character* offsets into one `SourceFile`'s
  text (for ASCII sources these equal byte offsets); `start <= end`.
- Line and column numbers are 1-based and computed only when rendering.
- `SourceFile` compares by identity: two reads of one path are two files.
- Spans never take part in AST equality (the AST marks them `compare=False`).
- `Span` is slotted (no `__dict__`): the parser makes one per AST node.
- A `SourceFile` read through `#include` knows where (`included_from`), each inclusion its
  own object; a `MacroSpan` (a span made by a macro expansion) knows, when asked, the
  macros it came through. Both are data for the renderer's include stack and macro notes.
- Line ends are LF, CRLF and a lone CR (as in clang and dxc).  `decode_source` turns
  each lone CR into LF — the same length, so offsets do not move — and every later
  stage (preprocessor, lexer, `#line`, OpLine numbers) sees LF or CRLF only; the line
  index of `SourceFile` counts all three, for texts that did not come from a file.
- Bytes that are not UTF-8 (Shift-JIS or Latin-1 comments) become U+FFFD, one per stray byte,
  so columns stay byte columns; nothing reports them here: comments drop them silently and the
  lexer rejects them in code (WG0202), as clang and dxc do.
- Every source wgc reads (the input, standard input, each #include) is read by `read_source`:
  at most MAX_SOURCE_BYTES, in chunks, so that `/dev/zero`, `/dev/urandom` or a pipe that never
  ends is refused (WG0112) instead of filling the memory; input past its first chunk that holds a
  NUL byte is refused as not text as soon as that chunk is read.
"""

from __future__ import annotations

import bisect
import codecs
import os
import re
import stat
from typing import BinaryIO, Protocol

from wgc.cached_dataclass import dataclass, field

STDIN_NAME = "<stdin>"
_LINE_END = re.compile(r"\r\n?|\n")
_LONE_CR = re.compile(r"\r(?!\n)")


@dataclass(frozen=True, eq=False)
class SourceFile:
    """One source text as wgc read it. `path` is the name shown in diagnostics."""

    path: str
    text: str = field(repr=False)
    _line_starts: list[int] = field(default_factory=list, repr=False)
    included_from: Span | None = field(default=None, repr=False)
    """Where the `#include` that read this file is (None for the main file): each inclusion of a
    file is its own `SourceFile` (`inclusion`), so a span knows its include stack."""

    def inclusion(self, at: Span) -> SourceFile:
        """This file as included at `at`: the same path and text (and line index, shared)."""
        return SourceFile(self.path, self.text, self._line_starts, at)

    def include_stack(self) -> list[Span]:
        """The `#include` directives that led to this file, outermost first (clang's order)."""
        stack: list[Span] = []
        at = self.included_from
        while at is not None and len(stack) < 1000:
            stack.append(at)
            at = at.file.included_from
        stack.reverse()
        return stack

    def line_starts(self) -> list[int]:
        """Offsets at which each line begins (index 0 is line 1)."""
        if not self._line_starts:
            starts = [0]
            starts.extend(m.end() for m in _LINE_END.finditer(self.text))
            self._line_starts.extend(starts)
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset (clamped into the text)."""
        offset = max(0, min(offset, len(self.text)))
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line terminator."""
        starts = self.line_starts()
        if line < 1 or line > len(starts):
            return ""
        begin = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[begin:end].rstrip("\r\n")

    def offset_of(self, line: int, column: int = 1) -> int:
        """Character offset of a 1-based (line, column), clamped into the text."""
        starts = self.line_starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + max(column, 1) - 1, len(self.text))


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range `[start, end)` in `file`."""

    file: SourceFile
    start: int
    end: int

    @property
    def line_col(self) -> tuple[int, int]:
        return self.file.line_col(self.start)

    def expansions(self) -> tuple[tuple[str, Span], ...]:
        """The macro expansions this span lies in (`MacroSpan`); a plain span lies in none."""
        return ()

    def to(self, other: Span) -> Span:
        """The span from the start of `self` to the end of `other` (same file), else `self`."""
        if other.file is not self.file:
            return self
        start, end = self.start, self.end
        return Span(self.file, start if start <= other.start else other.start, end if end >= other.end else other.end)


class ExpansionOrigin(Protocol):
    """What a `MacroSpan` asks for its expansions: the preprocessor's location map."""

    def expansions(self, key: int) -> tuple[tuple[str, Span], ...]: ...


@dataclass(frozen=True, slots=True)
class MacroSpan(Span):
    """A span of text a macro expansion produced. Its own range is the expansion's place in the
    file (the macro's name where it is used: clang's expansion location), as for any span; the
    macros it came through, and where in their bodies, are worked out only when asked
    (`expansions`), since a compile makes one such span per AST node in an expansion."""

    origin: ExpansionOrigin = field(compare=False, repr=False)
    key: int = field(compare=False, repr=False)
    """The offset in the preprocessed text that `origin` knows the expansion by."""

    def expansions(self) -> tuple[tuple[str, Span], ...]:
        """(macro name, place in its body) per level, outermost first: the outermost entry is in the
        body of the macro used here, where the next macro is used (or the token is)."""
        return self.origin.expansions(self.key)


def decode_source(data: bytes) -> tuple[str, int | None]:
    """Decode source bytes as UTF-8 (a BOM is dropped).

    Returns the text and, when the bytes are not valid UTF-8, the offset of the first
    bad byte; the text then has U+FFFD in place of each invalid byte so that later
    stages can still point into it.  A lone CR becomes LF (see the module docstring).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _LONE_CR.sub("\n", data.decode("utf-8")), None
    except UnicodeDecodeError as err:
        text = data.decode("utf-8", errors=_ONE_PER_BYTE)
        bad_char_offset = len(data[: err.start].decode("utf-8"))
        return _LONE_CR.sub("\n", text), bad_char_offset


def _one_replacement_per_byte(err: UnicodeError) -> tuple[str, int]:
    """U+FFFD for each byte of an invalid sequence ("replace" gives one for a truncated multi-byte
    sequence), so that a column counts the bytes before it as clang's does."""
    assert isinstance(err, UnicodeDecodeError)
    return "\ufffd" * (err.end - err.start), err.end


_ONE_PER_BYTE = "wgc-one-replacement-per-byte"
codecs.register_error(_ONE_PER_BYTE, _one_replacement_per_byte)


MAX_SOURCE_BYTES = 64 * 1024 * 1024
"""The largest source file wgc reads (the input, standard input or an #include)."""
READ_CHUNK = 1024 * 1024
"""Sources are read this much at a time; a NUL byte in a source larger than this stops the read."""


def read_source(handle: BinaryIO) -> tuple[bytes | None, str | None]:
    """The bytes of an open source, or None and why wgc does not read it ("it is larger than ...",
    to follow the source's name): larger than MAX_SOURCE_BYTES (a regular file is judged by its size
    before anything is read, a pipe or a device by what it yields), or a NUL byte in a source larger
    than READ_CHUNK (binary data: `/dev/zero`, `/dev/urandom`; a NUL in a small file is left to the
    lexer, which points at it, WG0202)."""
    try:
        info = os.fstat(handle.fileno())
    except (OSError, ValueError, AttributeError):   # not a real file (a test's stream): read it all the same
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > MAX_SOURCE_BYTES:
        return None, f"{_TOO_LARGE} (it is {info.st_size:,} bytes)"
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = handle.read(READ_CHUNK)
        if not chunk:
            return b"".join(chunks), None
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_SOURCE_BYTES:
            return None, f"{_TOO_LARGE} (it goes on past that)"
        if size > READ_CHUNK and (b"\0" in chunk or len(chunks) == 2 and b"\0" in chunks[0]):
            first = b"".join(chunks).index(b"\0")
            return None, (f"it is not text: it holds a NUL byte at offset {first:,} (and goes on past "
                          f"{READ_CHUNK // 1024 // 1024} MiB)")


_TOO_LARGE = (f"it is larger than {MAX_SOURCE_BYTES // 1024 // 1024} MiB ({MAX_SOURCE_BYTES:,} bytes), the most "
              "wgc reads from one source")
