"""benchmarks/run.py: graph and hand-written runs are timed interleaved, and every shape it
measures is among the cases it prepares (so `--prepare DIR` / `--from DIR` carry them all)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _bench():
    spec = importlib.util.spec_from_file_location("bench_run", Path(__file__).resolve().parents[1] / "benchmarks"
                                                  / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_graph_and_hand_runs_alternate():
    """Issue 31: "Measure interleaved (graph, hand, graph, hand), always"."""
    bench = _bench()
    order: list[str] = []
    times = bench.interleaved(lambda: order.append("g"), lambda: order.append("h"), 3)
    assert "".join(order) == "gh" + "gh" * 3        # a warm-up of each, then alternating rounds
    assert set(times) == {"graph", "hand"} and all(len(pair) == 2 for pair in times.values())


def test_every_shape_is_prepared(tmp_path):
    bench = _bench()
    prepared = bench.prepare(256, 200, 4)
    assert set(bench.SHAPES) <= set(prepared["graphs"])
    assert set(bench.SHAPES) == {"thread", "broadcast", "grid", "coalescing", "levels", "arrays"}
