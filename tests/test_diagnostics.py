"""The diagnostics engine: rendering (clang, msvc, colour, tabs), warning policy, error limit."""

from __future__ import annotations

import pytest

from wgc import codes
from wgc.diagnostics import (
    DefaultSeverity,
    DiagnosticKind,
    Label,
    Renderer,
    RenderOptions,
    Severity,
    apply_policy,
    color_wanted,
    parse_warning_flags,
    summary_line,
)
from wgc.source import SourceFile, Span

SOURCE = SourceFile("graph.hlsl", "void f()\n{\n    [MaxRecordsPerNode(8)]\n\tx = 1;\n}\n")
ATTR = Span(SOURCE, SOURCE.text.index("MaxRecordsPerNode"), SOURCE.text.index("(8)") + 3)

DEFAULT_ERROR = DiagnosticKind("WG9901", DefaultSeverity.DEFAULT_ERROR, "test-default-error", "test")
WARNING = DiagnosticKind("WG9902", DefaultSeverity.WARNING, "test-warning", "test")
OFF = DiagnosticKind("WG9903", DefaultSeverity.OFF, "test-off", "test")
GROUPS = {"test-default-error", "test-warning", "test-off"}


def render(diags, **options) -> str:
    return Renderer(RenderOptions(**options)).render(diags)


def test_clang_rendering_has_location_source_line_caret_and_summary():
    diag = codes.EXPECTED_TOKEN(ATTR, "MaxRecordsPerNode (8) exceeds MaxRecords (4) of output 'Targets'")
    assert render([diag]) == (
        "graph.hlsl:3:6: error: MaxRecordsPerNode (8) exceeds MaxRecords (4) of output 'Targets' [WG0201]\n"
        "    [MaxRecordsPerNode(8)]\n"
        "     ^~~~~~~~~~~~~~~~~~~~\n"
        "1 error generated.\n"
    )


def test_msvc_rendering_for_ide_error_lists():
    diag = codes.EXPECTED_TOKEN(ATTR, "bad")
    assert render([diag], format="msvc") == "graph.hlsl(3,6): error WG0201: bad\n1 error generated.\n"


def test_tabs_are_expanded_and_the_caret_follows_them():
    x = SOURCE.text.index("x = 1")
    diag = codes.EXPECTED_TOKEN(Span(SOURCE, x, x + 1), "here")
    assert render([diag]).splitlines()[1:3] == ["        x = 1;", "        ^"]


def test_labels_and_notes_render_as_notes():
    first = Span(SOURCE, 0, 4)
    diag = codes.EXPECTED_TOKEN(ATTR, "main", labels=[Label(first, "declared here")], notes=["a hint"])
    text = render([diag])
    assert "graph.hlsl:1:1: note: declared here\nvoid f()\n^~~~\n" in text
    assert text.endswith("note: a hint\n1 error generated.\n")


def test_zero_width_span_gets_a_single_caret():
    diag = codes.EXPECTED_TOKEN(Span(SOURCE, 8, 8), "expected ';' after expression")
    assert render([diag]).splitlines()[:3] == [
        "graph.hlsl:1:9: error: expected ';' after expression [WG0201]", "void f()", "        ^"]


def test_colour_only_when_asked():
    diag = codes.EXPECTED_TOKEN(ATTR, "bad")
    assert "\033[" not in render([diag])
    assert "\033[1;31merror:" in render([diag], color=True)


def test_colour_policy(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert color_wanted("auto", True) and not color_wanted("auto", False)
    assert color_wanted("always", False) and not color_wanted("never", True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_wanted("auto", True)


def test_summary_counts_both_kinds():
    diags = [codes.EXPECTED_TOKEN(None, "e"), WARNING(None, "w"), WARNING(None, "w2")]
    assert summary_line(diags) == "2 warnings and 1 error generated.\n"
    assert summary_line([]) == ""


def policed(flags, *diags, suppress=False):
    policy, unknown = parse_warning_flags(flags, GROUPS)
    assert unknown == []
    if suppress:
        from dataclasses import replace

        policy = replace(policy, suppress_warnings=True)
    return apply_policy(list(diags), policy)


def test_default_error_is_an_error_until_lowered_or_disabled():
    diag = DEFAULT_ERROR(None, "missing")
    assert policed([], diag)[0].severity is Severity.ERROR
    assert policed(["no-error=test-default-error"], diag)[0].severity is Severity.WARNING
    assert policed(["no-test-default-error"], diag) == []
    # -w silences warnings, not DefaultError diagnostics that are errors
    assert policed([], diag, suppress=True)[0].severity is Severity.ERROR


def test_werror_promotes_and_renders_the_flag():
    diag = WARNING(None, "careful")
    promoted = policed(["error"], diag)[0]
    assert promoted.severity is Severity.ERROR and promoted.promoted
    assert render([promoted]) == "error: careful [WG9902] [-Werror,-Wtest-warning]\n1 error generated.\n"
    assert policed(["error", "no-error=test-warning"], diag)[0].severity is Severity.WARNING
    assert policed(["error=test-warning"], diag)[0].severity is Severity.ERROR
    assert policed(["X"], diag)[0].severity is Severity.ERROR


def test_suppress_and_disable_and_off_by_default():
    assert policed([], WARNING(None, "w"), suppress=True) == []
    assert policed(["no-test-warning"], WARNING(None, "w")) == []
    assert policed([], OFF(None, "quiet")) == []
    assert policed(["test-off"], OFF(None, "quiet"))[0].severity is Severity.WARNING
    assert policed(["all"], OFF(None, "quiet"))[0].severity is Severity.WARNING


def test_unknown_groups_are_reported():
    _, unknown = parse_warning_flags(["no-such-group", "error=nope", "error"], GROUPS)
    assert unknown == ["no-such-group", "error=nope"]


def test_error_limit_stops_with_a_fatal_note():
    policy, _ = parse_warning_flags([], GROUPS)
    from dataclasses import replace

    diags = [codes.EXPECTED_TOKEN(None, f"e{i}") for i in range(5)]
    limited = apply_policy(diags, replace(policy, error_limit=2))
    assert [d.message for d in limited] == ["e0", "e1", "too many errors emitted, stopping now [-ferror-limit=]"]
    assert len(apply_policy(diags, replace(policy, error_limit=0))) == 5


def test_every_code_is_unique_and_well_formed():
    seen = set()
    for kind in codes.ALL_KINDS:
        assert kind.code not in seen
        seen.add(kind.code)
        assert kind.code.startswith("WG") and len(kind.code) == 6
        if kind.default in (DefaultSeverity.WARNING, DefaultSeverity.DEFAULT_ERROR, DefaultSeverity.OFF):
            assert kind.group, f"{kind.code} is a warning without a group"


@pytest.mark.parametrize("offset", [0, len(SOURCE.text)])
def test_spans_at_the_edges_render(offset):
    text = render([codes.EXPECTED_TOKEN(Span(SOURCE, offset, offset), "edge")])
    assert text.startswith("graph.hlsl:")
