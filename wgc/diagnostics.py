"""Diagnostics engine shared by every stage: data, warning policy, rendering.

Input: `Diagnostic` objects that stages collect (they never print or raise for
user errors), the user's warning options, and rendering options.
Output: the diagnostics that survive the policy with their effective severity,
and their text in clang or MSVC style.

Invariants:
- A diagnostic's message never contains its location; renderers add it.
- Every diagnostic has a stable code from `wgc.codes`; warnings carry a
  kebab-case group that `-W` options address.
- Severity is decided here, once, from the code's default severity and the policy.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace

from wgc.cached_dataclass import dataclass, field
from wgc.source import Span


class Severity(enum.IntEnum):
    """Effective severity of a diagnostic, in increasing order."""

    IGNORED = 0
    NOTE = 1
    WARNING = 2
    ERROR = 3
    FATAL = 4


class DefaultSeverity(enum.Enum):
    """How a diagnostic code behaves before any `-W` option is applied."""

    ERROR = "error"
    """A hard error: no option lowers it."""
    DEFAULT_ERROR = "default-error"
    """A warning that is an error unless its group is lowered (`-Wno-error=`) or disabled."""
    WARNING = "warning"
    """A warning that is on by default."""
    OFF = "off"
    """A warning that is off unless `-W<group>` or `-Wall` turns it on."""
    NOTE = "note"
    """An informational remark."""


@dataclass(frozen=True)
class Label:
    """A secondary location with a short message ("previous definition is here")."""

    span: Span
    message: str


@dataclass(frozen=True)
class FixIt:
    """A change that resolves a diagnostic: `span`'s text replaced by `text` (an empty span inserts).

    Not rendered in the text of a diagnostic; editors offer it (`wgc lsp`: a code action)."""

    span: Span
    text: str
    title: str
    """What the change does, for a menu: "add [MaxRecords(1)]"."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in the user's program (or in how wgc was invoked)."""

    code: str
    severity: Severity
    message: str
    span: Span | None = None
    labels: tuple[Label, ...] = ()
    notes: tuple[str, ...] = ()
    group: str | None = None
    default: DefaultSeverity = DefaultSeverity.ERROR
    promoted: bool = field(default=False, compare=False)
    """True when a warning became an error through -Werror / -Werror=<group>."""
    fixes: tuple[FixIt, ...] = ()
    """Changes to the source that resolve it (fix-its)."""


@dataclass(frozen=True)
class DiagnosticKind:
    """A catalogue entry: the stable code, its default severity and its group."""

    code: str
    default: DefaultSeverity
    group: str | None
    summary: str

    def __call__(
        self,
        span: Span | None,
        message: str,
        *,
        labels: Iterable[Label] = (),
        notes: Iterable[str] = (),
        fixes: Iterable[FixIt] = (),
    ) -> Diagnostic:
        """Create a diagnostic of this kind at its default severity."""
        return Diagnostic(
            code=self.code,
            severity=_DEFAULT_TO_SEVERITY[self.default],
            message=message,
            span=span,
            labels=tuple(labels),
            notes=tuple(notes),
            group=self.group,
            default=self.default,
            fixes=tuple(fixes),
        )


_DEFAULT_TO_SEVERITY = {
    DefaultSeverity.ERROR: Severity.ERROR,
    DefaultSeverity.DEFAULT_ERROR: Severity.ERROR,
    DefaultSeverity.WARNING: Severity.WARNING,
    DefaultSeverity.OFF: Severity.WARNING,
    DefaultSeverity.NOTE: Severity.NOTE,
}


# --------------------------------------------------------------------------- policy


@dataclass(frozen=True)
class WarningPolicy:
    """The user's `-W…`, `-w` and `-ferror-limit=` choices."""

    warnings_as_errors: bool = False
    suppress_warnings: bool = False
    enable_all: bool = False
    enabled: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()
    as_error: frozenset[str] = frozenset()
    not_as_error: frozenset[str] = frozenset()
    error_limit: int = 20
    """Stop after this many errors (0 means no limit)."""


def parse_warning_flags(flags: Sequence[str], known_groups: Iterable[str]) -> tuple[WarningPolicy, list[str]]:
    """Build a policy from `-W` option values (text after `-W`, e.g. `no-error=foo`).

    Returns the policy and the list of option values naming unknown groups (the
    caller reports them as warnings, as clang does).
    """
    known = set(known_groups)
    enabled: set[str] = set()
    disabled: set[str] = set()
    as_error: set[str] = set()
    not_as_error: set[str] = set()
    werror = False
    wall = False
    unknown: list[str] = []

    def group_ok(name: str, value: str) -> bool:
        if name in known:
            return True
        unknown.append(value)
        return False

    for value in flags:
        if value in ("error", "X"):
            werror = True
        elif value == "no-error":
            werror = False
        elif value in ("all", "everything", "extra"):
            wall = True
        elif value.startswith("no-error="):
            name = value[len("no-error="):]
            if group_ok(name, value):
                not_as_error.add(name)
                as_error.discard(name)
        elif value.startswith("error="):
            name = value[len("error="):]
            if group_ok(name, value):
                as_error.add(name)
                not_as_error.discard(name)
                disabled.discard(name)
        elif value.startswith("no-"):
            name = value[3:]
            if group_ok(name, value):
                disabled.add(name)
                enabled.discard(name)
        elif group_ok(value, value):
            enabled.add(value)
            disabled.discard(value)
    policy = WarningPolicy(
        warnings_as_errors=werror,
        enable_all=wall,
        enabled=frozenset(enabled),
        disabled=frozenset(disabled),
        as_error=frozenset(as_error),
        not_as_error=frozenset(not_as_error),
    )
    return policy, unknown


def effective_severity(diag: Diagnostic, policy: WarningPolicy) -> tuple[Severity, bool]:
    """The severity `diag` has under `policy`, and whether -Werror promoted it."""
    default = diag.default
    group = diag.group
    if default in (DefaultSeverity.ERROR, DefaultSeverity.NOTE) or group is None:
        return diag.severity, False
    if group in policy.disabled:
        return Severity.IGNORED, False
    if default is DefaultSeverity.DEFAULT_ERROR:
        if group in policy.not_as_error:
            base = Severity.WARNING
        else:
            return Severity.ERROR, False
    elif default is DefaultSeverity.OFF and not (policy.enable_all or group in policy.enabled):
        return Severity.IGNORED, False
    else:
        base = Severity.WARNING
    if group in policy.as_error or (policy.warnings_as_errors and group not in policy.not_as_error):
        return Severity.ERROR, True
    if policy.suppress_warnings:
        return Severity.IGNORED, False
    return base, False


def apply_policy(diags: Iterable[Diagnostic], policy: WarningPolicy) -> list[Diagnostic]:
    """Give each diagnostic its effective severity, drop ignored ones, apply the error limit.

    Diagnostics keep their order.  When the error limit is reached, a fatal
    diagnostic saying so replaces everything after it.
    """
    from wgc import codes  # the catalogue imports this module

    result: list[Diagnostic] = []
    errors = 0
    for diag in diags:
        severity, promoted = effective_severity(diag, policy)
        if severity is Severity.IGNORED:
            continue
        if severity >= Severity.ERROR:
            if policy.error_limit and errors >= policy.error_limit:
                result.append(
                    codes.TOO_MANY_ERRORS(None, "too many errors emitted, stopping now [-ferror-limit=]")
                )
                break
            errors += 1
        result.append(replace(diag, severity=severity, promoted=promoted))
    return result


def count(diags: Iterable[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings) among already-policed diagnostics."""
    errors = warnings = 0
    for diag in diags:
        if diag.severity >= Severity.ERROR:
            errors += 1
        elif diag.severity is Severity.WARNING:
            warnings += 1
    return errors, warnings


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity >= Severity.ERROR for d in diags)


# --------------------------------------------------------------------------- rendering


@dataclass(frozen=True)
class RenderOptions:
    """How diagnostics are printed."""

    format: str = "clang"
    """`clang` (file:line:col: error: …, source line, caret) or `msvc` (file(line,col): error CODE: …)."""
    color: bool = False
    show_source: bool = True


def color_wanted(mode: str, stream_is_tty: bool) -> bool:
    """Resolve `-fcolor-diagnostics` / `-fno-color-diagnostics` / auto (TTY and no NO_COLOR)."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    if not stream_is_tty or os.environ.get("NO_COLOR"):
        return False
    from wgc import portable

    return portable.ansi_terminal()


_RESET = "\033[0m"
_BOLD = "\033[1m"
_STYLE = {
    Severity.FATAL: "\033[1;31m",
    Severity.ERROR: "\033[1;31m",
    Severity.WARNING: "\033[1;35m",
    Severity.NOTE: "\033[1;36m",
}
_CARET_STYLE = "\033[1;32m"
_NAMES = {
    Severity.FATAL: "fatal error",
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.NOTE: "note",
}
TAB_STOP = 8
MACRO_BACKTRACE_LIMIT = 6
"""The most "expanded from macro" notes one location gets (clang's -fmacro-backtrace-limit default)."""


def _expand_tabs(line: str, column: int) -> tuple[str, int]:
    """Expand tabs as clang does and map a 1-based column into the expanded line."""
    pieces: list[str] = []
    width = 0
    mapped = None
    for index, char in enumerate(line, start=1):
        if index == column:
            mapped = width + 1
        step = TAB_STOP - width % TAB_STOP if char == "\t" else 1
        pieces.append(" " * step if char == "\t" else char)
        width += step
    if mapped is None:
        mapped = width + 1 + max(0, column - len(line) - 1)
    return "".join(pieces), mapped


def _option_suffix(diag: Diagnostic) -> str:
    if diag.group is None:
        return f" [{diag.code}]"
    if diag.promoted:
        flag = f"-Werror,-W{diag.group}"
    else:
        flag = f"-W{diag.group}"
    return f" [{diag.code}] [{flag}]"


class Renderer:
    """Turns diagnostics into text; one instance per output stream."""

    def __init__(self, options: RenderOptions = RenderOptions()) -> None:
        self.options = options
        self._last_include: tuple[Span, ...] = ()
        """The include stack shown last: clang shows one again only when it changes."""

    def _paint(self, style: str, text: str) -> str:
        return f"{style}{text}{_RESET}" if self.options.color else text

    def _location(self, span: Span | None) -> str:
        if span is None:
            return ""
        line, col = span.line_col
        if self.options.format == "msvc":
            return f"{span.file.path}({line},{col}): "
        return f"{span.file.path}:{line}:{col}: "

    def _snippet(self, span: Span) -> list[str]:
        line, col = span.line_col
        text = span.file.line_text(line)
        end_line, end_col = span.file.line_col(max(span.end, span.start))
        if end_line != line:
            end_col = len(text) + 1
        width = max(1, end_col - col)
        shown, start = _expand_tabs(text, col)
        _, stop = _expand_tabs(text, col + width)
        width = max(1, stop - start)
        caret = " " * (start - 1) + "^" + "~" * (width - 1)
        return [shown, self._paint(_CARET_STYLE, caret)]

    def _header(self, severity: Severity, span: Span | None, message: str, suffix: str, code: str) -> str:
        location = self._location(span)
        name = _NAMES[severity]
        if self.options.format == "msvc":
            label = f"{name} {code}" if code else name
            return f"{location}{label}: {message}{suffix}"
        head = self._paint(_BOLD, location) if location else ""
        return f"{head}{self._paint(_STYLE[severity], name + ':')} {self._paint(_BOLD, message + suffix)}"

    def _include_stack(self, span: Span | None) -> list[str]:
        """clang's "In file included from a.hlsl:1:" lines, outermost first, for a diagnostic at
        `span`; none when the stack is the one shown last (clang's LastIncludeLoc)."""
        stack = tuple(span.file.include_stack()) if span is not None else ()
        if stack == self._last_include:
            return []
        self._last_include = stack
        return [f"In file included from {at.file.path}:{at.line_col[0]}:" for at in stack]

    def _expansion_notes(self, span: Span) -> list[str]:
        """clang's "expanded from macro 'NAME'" notes for a span in a macro expansion, outermost
        first, each pointing into that macro's body; at most MACRO_BACKTRACE_LIMIT, the middle
        ones left out as clang's -fmacro-backtrace-limit does."""
        levels = list(span.expansions())
        lines: list[str] = []
        skipped = 0
        if len(levels) > MACRO_BACKTRACE_LIMIT:
            head = MACRO_BACKTRACE_LIMIT // 2
            skipped = len(levels) - MACRO_BACKTRACE_LIMIT
            levels = levels[:head] + levels[head + skipped:]
        for index, (name, where) in enumerate(levels):
            if skipped and index == MACRO_BACKTRACE_LIMIT // 2:
                lines.append(self._header(Severity.NOTE, None, f"(skipping {skipped} expansions in backtrace)", "", ""))
            lines.append(self._header(Severity.NOTE, where, f"expanded from macro '{name}'", "", ""))
            if self.options.show_source and self.options.format == "clang":
                lines.extend(self._snippet(where))
        return lines

    def render_one(self, diag: Diagnostic) -> str:
        if self.options.format == "msvc":  # the code is already in the header
            suffix = f" [-W{diag.group}]" if diag.group else ""
        else:
            suffix = _option_suffix(diag)
        lines = self._include_stack(diag.span)
        lines.append(self._header(diag.severity, diag.span, diag.message, suffix, diag.code))
        if diag.span is not None and self.options.show_source and self.options.format == "clang":
            lines.extend(self._snippet(diag.span))
        if diag.span is not None:
            lines.extend(self._expansion_notes(diag.span))
        for label in diag.labels:
            lines.append(self._header(Severity.NOTE, label.span, label.message, "", ""))
            if self.options.show_source and self.options.format == "clang":
                lines.extend(self._snippet(label.span))
            lines.extend(self._expansion_notes(label.span))
        for note in diag.notes:
            lines.append(self._header(Severity.NOTE, None, note, "", ""))
        return "\n".join(lines) + "\n"

    def render(self, diags: Sequence[Diagnostic]) -> str:
        """All diagnostics followed by clang's summary line (`2 errors generated.`)."""
        self._last_include = ()
        text = "".join(self.render_one(d) for d in diags)
        return text + summary_line(diags)


def summary_line(diags: Sequence[Diagnostic]) -> str:
    errors, warnings = count(diags)
    parts = []
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if not parts:
        return ""
    return " and ".join(parts) + " generated.\n"
