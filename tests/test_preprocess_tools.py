"""pcpp's lexer and evaluator, built once per process and reused by one compile after another
(`wgc.preprocess._PcppTools`): the preprocessor's set-up stays what pcpp's own gives, and a reused
set never carries anything of the compile before."""

from __future__ import annotations

import threading

import pytest
from pcpp.preprocessor import Preprocessor as PcppPreprocessor

from wgc import preprocess as pp
from wgc.preprocess import PreprocessOptions, preprocess
from wgc.source import SourceFile

TEXT = """\
#define TWICE(x) ((x) * 2)
#if defined(__spirv__) && __SHADER_TARGET_MAJOR == 6 && TWICE(3) == 6
static const uint kValue = TWICE(__LINE__);
#elif 1
#error not taken
#endif
#ifdef EXTRA
static const uint kExtra = EXTRA + 1;
#endif
static const uint kCounter = __COUNTER__ + __COUNTER__;
"""


def _run(text: str = TEXT, **options) -> pp.Preprocessed:
    return preprocess(SourceFile("main.hlsl", text), PreprocessOptions(**options))


def test_set_up_is_pcpps_own_without_its_three_macros(tmp_path, monkeypatch):
    """Every attribute pcpp 1.30's `Preprocessor.__init__` sets has the same value after wgc's
    set-up of it, `_set_up_pcpp` (the lexer and evaluator of the same kinds, the probed token names, the path
    rewrite of the working folder), except the macros __DATE__, __TIME__ and __PCPP__, which wgc
    never defines."""
    monkeypatch.chdir(tmp_path)
    theirs = vars(PcppPreprocessor())
    bare = object.__new__(pp._Preprocessor)
    bare._set_up_pcpp(pp._take_tools())
    ours = vars(bare)
    assert sorted(ours) == sorted(theirs)
    for name, value in theirs.items():
        if name in ("lexer", "evaluator"):
            assert type(ours[name]) is type(value), name
        elif name == "macros":
            assert sorted(value) == ["__DATE__", "__PCPP__", "__TIME__"]
            assert ours[name] == {}
        else:
            assert ours[name] == value, name


def test_reused_tools_give_the_same_text_as_new_ones():
    """A set of tools used by an earlier compile (its `#if` expressions evaluated, its lexer at
    the end of another input) preprocesses as a new one does."""
    pp._SPARE_TOOLS.clear()
    first = _run()
    assert len(pp._SPARE_TOOLS) == 1
    reused = pp._SPARE_TOOLS[0]
    _run("#if 1 +\n#endif\n#define X(a, b) a ## b\nX(1, 2)\n")      # leaves an error and a half-read input
    assert pp._SPARE_TOOLS == [reused]
    again = _run()
    assert pp._SPARE_TOOLS == [reused]
    pp._SPARE_TOOLS.clear()
    fresh = _run()
    assert (again.text, again.diagnostics) == (first.text, first.diagnostics) == (fresh.text, fresh.diagnostics)
    assert "kValue = ((3) * 2)" in first.text and "kExtra" not in first.text
    assert "kCounter = 0 + 1" in first.text
    with_extra = _run(defines=(("EXTRA", "5"),))
    assert "kExtra = 5 + 1" in with_extra.text


def test_tools_serve_one_preprocessor_at_a_time():
    """Two preprocessors alive at once (compiles in two threads) hold different tools; an exception
    keeps a set from being given back (it may be mid-input)."""
    pp._SPARE_TOOLS.clear()
    _run()
    first = pp._Preprocessor(SourceFile("a.hlsl", ""), PreprocessOptions())
    second = pp._Preprocessor(SourceFile("b.hlsl", ""), PreprocessOptions())
    assert first._tools is not second._tools
    assert first.lexer is not second.lexer and first.evaluator is not second.evaluator
    pp._SPARE_TOOLS.clear()

    def broken(*_args):
        raise RuntimeError("stop")

    failing = pp._Preprocessor(SourceFile("c.hlsl", "int x;\n"), PreprocessOptions())
    failing.parsegen = broken                                         # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        failing.run()
    assert pp._SPARE_TOOLS == []


def test_compiles_in_threads_at_once_agree():
    """Compiles preprocessing in several threads at the same time each get the text one alone gets."""
    expected = _run().text
    results: list[str] = []

    def work() -> None:
        for _ in range(20):
            results.append(_run().text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 80
