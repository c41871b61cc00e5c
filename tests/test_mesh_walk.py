"""The walk that finds mesh-output writes before SetMeshOutputCounts (WG0495,
`wgc.sema.mesh._CountsBeforeWrites`) stops following a path once the counts are set on it
(`skip_called`): the diagnostics are those of the whole walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from wgc import driver
from wgc.sema import mesh

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

HEAD = ("struct V { float4 pos : SV_Position; };", "void Counts(uint n) { SetMeshOutputCounts(n, 1); }",
        "void Write(out V v, uint i) { v.pos = float4(i, 0, 0, 1); }")
SIGNATURE = ('[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
             "void {name}(uint i : SV_GroupIndex, uint3 g : SV_GroupID, out vertices V verts[3], "
             "out indices uint3 tris[1])")
BODIES = {
    "dominated": ["if (g.x > 7) return;", "switch (g.y) { case 0: Counts(3); break; default: "
                  "if (g.z == 0) { do { Counts(3); } while (false); } else { Counts(0); } break; }",
                  "verts[i].pos = float4(i, 0, 0, 1);", "if (i == 0) tris[0] = uint3(0, 1, 2);"],
    "in_a_loop": ["for (uint k = 0; k < g.x; ++k) { SetMeshOutputCounts(3, 1); }", "Write(verts[i], i);",
                  "tris[0] = uint3(0, 1, 2);"],
    "before_a_break": ["do { if (g.x == 0) break; SetMeshOutputCounts(3, 1); } while (false);",
                       "tris[0] = g.x > 1 ? uint3(0, 1, 2) : uint3(2, 1, 0);"],
    "one_arm": ["if (g.x == 0) { Counts(3); Write(verts[i], i); } else { verts[i].pos = 0; }",
                "g.y != 0 && (SetMeshOutputCounts(3, 1), true);", "tris[0] = uint3(0, 1, 2);"],
    "after": ["SetMeshOutputCounts(3, 1);", "Write(verts[i], i);", "for (uint k = 0; k < 2; ++k) verts[k].pos = 1;",
              "tris[0] = uint3(0, 1, 2);"],
}


def _source() -> str:
    parts = list(HEAD)
    for name, body in BODIES.items():
        parts += [SIGNATURE[0], SIGNATURE[1].format(name=name), "{", *("    " + line for line in body), "}"]
    return "\n".join(parts) + "\n"


def _diagnostics(path: Path) -> list[tuple[str, tuple[int, int] | None, str]]:
    front = driver.run_front_end(driver.Options(input=str(path), include_dirs=(str(SAMPLES / "include"),)))
    return [(d.code, d.span.line_col if d.span else None, d.message) for d in front.diagnostics]


def test_skipping_settled_paths_changes_no_diagnostic(tmp_path, monkeypatch):
    """Every sample and the mesh shaders above give the same diagnostics with and without the skip;
    WG0495 where a write may come first (by hand: the loop body may not run, the break skips the call,
    the else arm writes before any call; the && may not call)."""
    program = tmp_path / "mesh.hlsl"
    program.write_text(_source())
    paths = [*sorted(SAMPLES.glob("*.hlsl")), program]
    skipped = [_diagnostics(path) for path in paths]
    monkeypatch.setattr(mesh._CountsBeforeWrites, "skip_called", False)
    walked = [_diagnostics(path) for path in paths]
    assert skipped == walked
    before = [(line, message.split(" may be")[0]) for code, (line, _), message in skipped[-1] if code == "WG0495"]
    assert before == [(3, "mesh output 'v'"),            # in_a_loop: Write's parameter, written in the helper
                      (17, "mesh output 'tris'"), (23, "mesh output 'tris'"),
                      (28, "mesh output 'verts'"), (30, "mesh output 'tris'")]


@pytest.mark.parametrize("called", [False, True])
def test_a_settled_path_is_not_walked(called):
    """With the counts set, `expr` and `block` answer at once (they would visit nothing)."""
    walker = mesh._CountsBeforeWrites(set(), None, lambda *args, **kwargs: None)
    visited: list[object] = []
    walker.stmt = lambda stmt, called: visited.append(stmt) or called      # type: ignore[method-assign]

    class Block:
        stmts = ["a", "b"]

    assert walker.block(Block(), called) is called  # type: ignore[arg-type]
    assert visited == ([] if called else ["a", "b"])
