"""Golden IR dumps: every sample type-checks, and its `--emit=ir` dump matches tests/out/ir/.

A difference fails the test; `pytest --update-goldens` rewrites the files so the change can be
reviewed in the commit.  The dump shows every type, implicit conversion, resolved call, binding
and layout sema decided, so any change in semantic analysis shows up here.
"""

from __future__ import annotations

import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from wgc import driver
from wgc.diagnostics import Renderer

GOLDEN_DIR = ROOT / "tests" / "out" / "ir"
SAMPLE_PATHS = sorted(SAMPLES.glob("*.hlsl"))


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_sample_ir_matches_golden(path, update_goldens):
    options = driver.Options(input=str(path), emit="ir", include_dirs=(str(SAMPLE_INCLUDE),),
                             proposals=sample_proposals(path))
    result = driver.compile(options)
    assert result.ok and not result.diagnostics, Renderer().render(result.diagnostics)
    dump = result.outputs["ir"].decode()
    golden = GOLDEN_DIR / f"{path.stem}.ir"
    if update_goldens:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        golden.write_text(dump)
    assert golden.exists(), f"no golden for {path.name}: run pytest --update-goldens"
    assert dump == golden.read_text(), f"IR of {path.name} differs from {golden}; review and --update-goldens"


def test_every_golden_has_a_sample():
    stems = {p.stem for p in SAMPLE_PATHS}
    orphans = sorted(g.name for g in GOLDEN_DIR.glob("*.ir") if g.stem not in stems)
    assert not orphans, f"goldens without a sample: {orphans}"


def test_ir_dump_is_byte_identical_across_runs_and_independent_of_the_working_directory(run_wgc, tmp_path):
    sample = SAMPLES / "syntax_tour.hlsl"
    first = run_wgc("compile", "--emit=ir", "-I", str(SAMPLE_INCLUDE), str(sample), "-o", "-")
    second = run_wgc("compile", "--emit=ir", "-I", "include", "syntax_tour.hlsl", "-o", str(tmp_path / "out.ir"),
                     cwd=SAMPLES)
    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert first.stdout == (tmp_path / "out.ir").read_bytes()
    assert b"function void TourEntry(" in first.stdout
