"""The catalogue of every diagnostic wgc can emit.

Input: nothing (a table).  Output: one `DiagnosticKind` per code, used by the
stages to create diagnostics, and `ALL_KINDS` / `WARNING_GROUPS` used by the
CLI to validate `-W` options and by the tests to check that every code is
exercised.

Invariants: codes are unique and never reused; ranges:
WG00xx driver and input, WG01xx preprocessor, WG02xx syntax.
Groups are kebab-case (dxc spellings where dxc has the same warning).
"""

from __future__ import annotations

from wgc.diagnostics import DefaultSeverity, DiagnosticKind

E = DefaultSeverity.ERROR
W = DefaultSeverity.WARNING
DE = DefaultSeverity.DEFAULT_ERROR


def _kind(code: str, default: DefaultSeverity, summary: str, group: str | None = None) -> DiagnosticKind:
    return DiagnosticKind(code=code, default=default, group=group, summary=summary)


# WG00xx: driver and input -------------------------------------------------------
INPUT_NOT_READABLE = _kind("WG0001", E, "an input file cannot be opened or read")
INVALID_UTF8 = _kind("WG0002", E, "a source file is not valid UTF-8")
UNKNOWN_WARNING_OPTION = _kind(
    "WG0003", W, "a -W option names no known warning group", "unknown-warning-option"
)
TOO_MANY_ERRORS = _kind("WG0004", E, "the -ferror-limit was reached")
NO_CODE_GENERATION = _kind("WG0005", E, "the requested output needs a stage this wgc does not have yet")

# WG01xx: preprocessor ------------------------------------------------------------
INCLUDE_NOT_FOUND = _kind("WG0101", E, "an #include names a file that is not found")
ERROR_DIRECTIVE = _kind("WG0102", E, "an #error directive was reached")
WARNING_DIRECTIVE = _kind("WG0103", W, "a #warning directive was reached", "#warnings")
MALFORMED_DIRECTIVE = _kind("WG0104", E, "a preprocessor directive or macro use is malformed")
UNKNOWN_DIRECTIVE = _kind("WG0105", E, "an unknown preprocessor directive")
UNKNOWN_PRAGMA = _kind("WG0106", W, "a #pragma wgc does not know", "unknown-pragmas")
MACRO_REDEFINED = _kind("WG0107", W, "a macro is redefined with a different body", "macro-redefined")
INCLUDE_TOO_DEEP = _kind("WG0108", E, "#include nesting is too deep (recursive include?)")
BAD_MACRO_OPTION = _kind("WG0109", E, "a -D or -U option is malformed")
UNTERMINATED_COMMENT = _kind("WG0110", E, "a /* comment is not closed before the end of the file")
PREPROCESSOR_LIMIT = _kind("WG0111", E, "macro expansion or #include nesting exceeds what wgc can process")

# WG02xx: syntax ----------------------------------------------------------------------
EXPECTED_TOKEN = _kind("WG0201", E, "the parser expected something else here")
INVALID_CHARACTER = _kind("WG0202", E, "a character that cannot start any HLSL token")
UNEXPECTED_END = _kind("WG0203", E, "the input ends inside a declaration")
INTEGER_TOO_LARGE = _kind("WG0204", E, "an integer literal does not fit in 64 bits")
INVALID_LITERAL = _kind("WG0205", E, "a malformed numeric literal or suffix")


ALL_KINDS: tuple[DiagnosticKind, ...] = tuple(
    value for value in globals().values() if isinstance(value, DiagnosticKind)
)
WARNING_GROUPS: frozenset[str] = frozenset(k.group for k in ALL_KINDS if k.group is not None)

assert len({k.code for k in ALL_KINDS}) == len(ALL_KINDS), "diagnostic codes must be unique"
