"""wgc/suggest.py: the one "closest names" helper every stage uses for did-you-mean notes.

clang's typo correction (Sema::CorrectTypo, TypoCorrectionConsumer::addName) rejects a candidate
when `TypoStr.size() / ED < 3`: a name of n characters accepts about n / 3 edits.
"""

from __future__ import annotations

from wgc.suggest import closest, did_you_mean, edit_distance, listing


def levenshtein(a: str, b: str) -> int:
    """An independent, unbounded reference (recursive with a table)."""
    table = {(i, 0): i for i in range(len(a) + 1)} | {(0, j): j for j in range(len(b) + 1)}
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i, j] = min(table[i - 1, j] + 1, table[i, j - 1] + 1,
                              table[i - 1, j - 1] + (a[i - 1] != b[j - 1]))
    return table[len(a), len(b)]


def test_edit_distance_matches_the_reference_and_stops_at_the_bound() -> None:
    pairs = [("kitten", "sitting"), ("compile", "comple"), ("", "abc"), ("Classify", "Clasify"),
             ("abc", "abc"), ("flaw", "lawn")]
    for a, b in pairs:
        assert edit_distance(a, b, 100) == levenshtein(a, b)
    assert edit_distance("kitten", "sitting", 1) == 2   # 3 > bound 1: bound + 1


def test_closest_uses_clangs_threshold() -> None:
    # "comple" (6 chars) -> "compile": 1 edit, 6 // 1 = 6 >= 3.
    assert closest("comple", ["compile", "inspect", "run"]) == ["compile"]
    # 2 chars accept no edit at all (2 // 1 = 2 < 3).
    assert closest("ab", ["ac", "abc"]) == []
    # 6 chars accept 2 edits, not 3.
    assert closest("abcdef", ["abcxyf"]) == ["abcxyf"]
    assert closest("abcdef", ["axyzef"]) == []


def test_closest_prefers_the_nearest_keeps_ties_in_order_and_case_first() -> None:
    assert closest("Clasify", ["Classify", "Clarify", "Accumulate"]) == ["Classify", "Clarify"]
    assert closest("classify", ["Clasify", "Classify"]) == ["Classify"]
    assert closest("Node", ["Node"]) == []             # the name itself is never suggested
    assert closest("x" * 1000, ["x" * 999]) == []      # too long to correct


def test_listing_is_bounded() -> None:
    assert listing([]) == "(none)"
    assert listing(["a", "b"]) == "'a', 'b'"
    names = [f"n{i}" for i in range(13)]
    assert listing(names) == ", ".join(f"'n{i}'" for i in range(10)) + " and 3 more"


def test_did_you_mean_or_the_valid_choices() -> None:
    assert did_you_mean("Clasify", ["Classify", "Generate"]) == "did you mean 'Classify'?"
    assert did_you_mean("Zzz", ["Classify", "Generate"], "nodes") == "valid nodes are: 'Classify', 'Generate'"
    assert did_you_mean("Zzz", [], "nodes") == "there are no nodes"
