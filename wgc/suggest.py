"""Spelling suggestions ("did you mean 'Foo'?") for every stage that looks a name up.

Stage: foundation (imports nothing from wgc).
Input: a name the user wrote and the names it could have meant.
Output: the closest of those names (`closest`), or a bounded listing of them (`listing`), as
plain strings for a diagnostic's message or note.

Invariants:
- The measure is clang's typo correction: the Levenshtein distance (insert, delete, replace,
  each costing 1), and a candidate is close enough only when `len(name) // distance >= 3`
  (clang's `TypoStr.size() / ED < 3` rejection), so about one edit per three characters.
  A candidate that differs from `name` only in case is always close (distance 0 after folding).
- The work is bounded: names longer than `MAX_NAME` are never corrected, and each distance is
  computed with an upper bound that stops the row early.
- The result is deterministic: ties are returned in the order of `choices`, duplicates dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_NAME = 128
"""Longer names get no suggestion (the distance costs len(name) * len(choice))."""

LISTED = 10
"""`listing` names at most this many choices, then says how many more there are."""


def edit_distance(a: str, b: str, bound: int) -> int:
    """The Levenshtein distance of `a` and `b`, or `bound + 1` as soon as it must exceed `bound`."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > bound:
            return bound + 1
        previous = current
    return previous[-1]


def closest(name: str, choices: Iterable[str]) -> list[str]:
    """The choices nearest to `name` that are close enough to suggest, nearest first; [] if none.

    `name` itself is never suggested. A choice equal to `name` but for case comes first."""
    if not name or len(name) > MAX_NAME:
        return []
    bound = len(name) // 3
    folded = name.lower()
    best: list[str] = []
    best_distance = bound + 1
    seen: set[str] = set()
    for choice in choices:
        if choice == name or choice in seen:
            continue
        seen.add(choice)
        if choice.lower() == folded:
            distance = -1
        elif best_distance < 0:
            continue
        else:
            distance = edit_distance(name, choice, min(bound, best_distance))
            if distance > bound:
                continue
        if distance < best_distance:
            best, best_distance = [choice], distance
        elif distance == best_distance:
            best.append(choice)
    return best


def listing(choices: Iterable[str], limit: int = LISTED, quote: bool = True) -> str:
    """`'a', 'b', 'c'`, or the first `limit` of them then `and N more`; `(none)` when empty
    (`quote=False`: the choices as they are, e.g. already described `Out (u0)`)."""
    names = list(dict.fromkeys(choices))
    if not names:
        return "(none)"
    shown = ", ".join(f"'{n}'" if quote else n for n in names[:limit])
    rest = len(names) - limit
    return f"{shown} and {rest} more" if rest > 0 else shown


def did_you_mean(name: str, choices: Iterable[str], what: str = "", limit: int = LISTED) -> str:
    """A note for an unknown `name`: "did you mean 'x'?" when one is close, or else "valid <what>
    are: ..." (bounded); `what` names the kind of choices, e.g. "nodes"."""
    names = list(dict.fromkeys(choices))
    near = closest(name, names)
    if near:
        return "did you mean " + " or ".join(f"'{n}'" for n in near[:3]) + "?"
    label = what or "choices"
    return f"valid {label} are: {listing(names, limit)}" if names else f"there are no {label}"
