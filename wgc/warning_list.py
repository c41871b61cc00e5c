"""`wgc --help-warnings`: the list of warning groups, generated from `wgc.codes`.

Stage: command line (what `wgc --help-warnings` and gcc's spelling `--help=warnings` print).
Input: `wgc.codes.ALL_KINDS`.  Output: text, one group per line: `-W<group>`, its default (on, off
or DefaultError), its codes and the summary of each code.
Invariants: every code that has a group is listed under it exactly once; groups in alphabetical order.
"""

from __future__ import annotations

DEFAULTS = {"warning": "on", "off": "off", "default-error": "DefaultError"}


def warning_groups_text() -> str:
    from wgc import codes

    groups: dict[str, list[codes.DiagnosticKind]] = {}
    for kind in codes.ALL_KINDS:
        if kind.group is not None:
            groups.setdefault(kind.group, []).append(kind)
    lines = ["Warning groups. -W<group> turns a group on, -Wno-<group> off, -Werror=<group> makes it an error,",
             "-Wno-error=<group> a warning again; -Wall turns on every group, -Werror (-WX) makes every warning",
             "an error, -w silences them all. DefaultError groups are errors unless lowered or turned off.",
             ""]
    width = max(len(group) for group in groups) + 2
    for group in sorted(groups):
        kinds = sorted(groups[group], key=lambda k: k.code)
        defaults = sorted({DEFAULTS.get(k.default.value, k.default.value) for k in kinds})
        lines.append(f"  {'-W' + group:<{width + 2}} {'/'.join(defaults):<13} {', '.join(k.code for k in kinds)}")
        lines.extend(f"      {k.code}: {k.summary}" for k in kinds)
    return "\n".join(lines) + "\n"
