"""Mutation fuzzing of the whole pipeline: broken variants of the samples give diagnostics with
valid locations, or compile to SPIR-V that validates — never an exception.

The mutations are what editing accidents look like: deleting, duplicating and swapping tokens,
truncating the file, inserting garbage bytes and invalid UTF-8.  The run is bounded by
`max_examples`, so the test's time is bounded too.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_INCLUDE, SAMPLES, sample_proposals
from wgc import driver
from spirv_util import words_of
from wgc.diagnostics import Renderer, RenderOptions, Severity
from wgc.spirv import tools

SAMPLE_BYTES = sorted((path.name, path.read_bytes()) for path in SAMPLES.glob("*.hlsl"))
TOKEN = re.compile(rb"\w+|\S")

mutation = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 4)),
    st.tuples(st.just("duplicate"), st.integers(0, 10**6), st.integers(1, 4)),
    st.tuples(st.just("swap"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("garbage"), st.integers(0, 10**6), st.binary(min_size=1, max_size=6)),
    st.tuples(st.just("invalid-utf8"), st.integers(0, 10**6), st.sampled_from([b"\xff", b"\xc3(", b"\xe2\x82"])),
)


def mutate(data: bytes, steps: list[tuple]) -> bytes:
    for kind, where, arg in steps:
        tokens = [m.span() for m in TOKEN.finditer(data)]
        if not tokens:
            return data
        i = where % len(tokens)
        start, end = tokens[i]
        if kind == "delete":
            stop = tokens[min(i + arg, len(tokens)) - 1][1]
            data = data[:start] + data[stop:]
        elif kind == "duplicate":
            stop = tokens[min(i + arg, len(tokens)) - 1][1]
            data = data[:stop] + b" " + data[start:stop] + data[stop:]
        elif kind == "swap":
            j = arg % len(tokens)
            (a0, a1), (b0, b1) = sorted([tokens[i], tokens[j]])
            if a1 <= b0:
                data = data[:a0] + data[b0:b1] + data[a1:b0] + data[a0:a1] + data[b1:]
        elif kind == "truncate":
            data = data[:start]
        else:  # garbage or invalid-utf8
            data = data[:start] + arg + data[start:]
    return data


def check_never_crashes(data: bytes, proposals: tuple[str, ...] = ()) -> driver.Result:
    options = driver.Options(input="-", emit="spirv", include_dirs=(str(SAMPLES), str(SAMPLE_INCLUDE)),
                             error_limit=0, proposals=proposals)
    result = driver.compile(options, stdin=data)
    renderer = Renderer(RenderOptions())
    for diag in result.diagnostics:
        if diag.span is not None:
            text = diag.span.file.text
            assert 0 <= diag.span.start <= diag.span.end <= len(text), diag
        assert renderer.render_one(diag)
    assert result.ok == ("spirv" in result.outputs)
    if result.ok:   # the driver validated it in process; check the bytes it hands out once more
        assert tools.validate(words_of(result.outputs["spirv"]), "vulkan1.3", scalar_block_layout=True) == []
    return result


def test_every_sample_compiles_unmutated_or_hits_a_documented_spirv_limit():
    for name, data in SAMPLE_BYTES:
        result = check_never_crashes(data, sample_proposals(SAMPLES / name))
        codes = {d.code for d in result.diagnostics if d.severity >= Severity.ERROR}
        assert result.ok or codes in ({"WG0513"}, {"WG0620"}), (name, Renderer().render(result.diagnostics))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=st.sampled_from(SAMPLE_BYTES), steps=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_samples_only_ever_produce_diagnostics(sample, steps):
    check_never_crashes(mutate(sample[1], steps), sample_proposals(SAMPLES / sample[0]))


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_random_bytes_only_ever_produce_diagnostics(data):
    check_never_crashes(data)
