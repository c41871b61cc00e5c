"""Dependency files for build systems: one Make rule naming every file a compile read.

Input: the rule's target (the output path exactly as given, or `-MT`), the dependencies
(`Result.dependencies`: the main file first, then every file the preprocessor read, as spelled;
files searched for and missed are not there) and the files that get phony targets (`-MP`: the
included files).
Output: the text of a Make rule, as gcc and glslc write it, which Ninja (`deps = gcc`), CMake
(`DEPFILE`) and Meson (`depfile:`) read.

Invariants: one rule, `target: dep1 dep2 ...` with one dependency per continuation line; in paths
a space is escaped as `\\ `, `#` as `\\#` and `$` as `$$` (gcc's rules); with `-MP` every
included file also gets an empty rule, so deleting a header does not break make.
Deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations


def escape(path: str) -> str:
    """A path as a Make word (gcc's escaping of spaces, '#' and '$')."""
    return path.replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def make_rule(target: str, dependencies: tuple[str, ...], *, phony: tuple[str, ...] = ()) -> str:
    lines = [f"{escape(target)}:"]
    lines += [f"  {escape(dep)}" for dep in dependencies]
    text = " \\\n".join(lines) + "\n"
    return text + "".join(f"\n{escape(dep)}:\n" for dep in phony)
