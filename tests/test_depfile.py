"""Dependency files (-MD, -MF, -MT, -MP, -M) written by the real `wgc`, and the Make syntax."""

from __future__ import annotations

from wgc.depfile import escape, make_rule

GRAPH = '#include "inc/records.hlsli"\n#include "inc/more.hlsli"\n[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<R> i) { }\n'


def project(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "records.hlsli").write_text("struct R { uint x; };\n")
    (tmp_path / "inc" / "more.hlsli").write_text("// nothing\n")
    (tmp_path / "graph.hlsl").write_text(GRAPH)


def test_make_syntax_escapes_spaces_hash_and_dollar():
    assert escape("a b#c$d") == "a\\ b\\#c$$d"
    assert make_rule("out dir/x.spv", ("x.hlsl", "my inc/h.hlsli"), phony=("my inc/h.hlsli",)) == (
        "out\\ dir/x.spv: \\\n  x.hlsl \\\n  my\\ inc/h.hlsli\n\nmy\\ inc/h.hlsli:\n")


def test_md_compiles_and_writes_output_dot_d(run_wgc, tmp_path):
    project(tmp_path)
    (tmp_path / "out").mkdir()
    done = run_wgc("compile", "-MD", "-o", "out/graph.spv", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "graph.spv").exists()
    assert (tmp_path / "out" / "graph.spv.d").read_text() == (
        "out/graph.spv: \\\n  graph.hlsl \\\n  inc/records.hlsli \\\n  inc/more.hlsli\n")


def test_mf_mt_mp(run_wgc, tmp_path):
    project(tmp_path)
    (tmp_path / "deps").mkdir()
    done = run_wgc("compile", "-MD", "-MF", "deps/x.d", "-MT", "my target", "-MP", "-o", "g.spv", "graph.hlsl",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "deps" / "x.d").read_text() == (
        "my\\ target: \\\n  graph.hlsl \\\n  inc/records.hlsli \\\n  inc/more.hlsli\n"
        "\ninc/records.hlsli:\n\ninc/more.hlsli:\n")


def test_m_prints_dependencies_only(run_wgc, tmp_path):
    project(tmp_path)
    done = run_wgc("compile", "-M", "-o", "g.spv", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "g.spv: \\\n  graph.hlsl \\\n  inc/records.hlsli \\\n  inc/more.hlsli\n"
    assert not (tmp_path / "g.spv").exists()


def test_stdin_lists_only_included_files(run_wgc, tmp_path):
    project(tmp_path)
    done = run_wgc("compile", "-I", ".", "-M", "-MT", "t", "-", stdin=GRAPH.encode(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "t: \\\n  inc/records.hlsli \\\n  inc/more.hlsli\n"


def test_missed_search_candidates_are_not_dependencies(run_wgc, tmp_path):
    project(tmp_path)
    (tmp_path / "other").mkdir()
    done = run_wgc("compile", "-I", "other", "-I", ".", "-M", "-o", "g.spv", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "other" not in done.stdout.decode()


def test_failed_compile_removes_stale_output_and_depfile(run_wgc, tmp_path):
    project(tmp_path)
    (tmp_path / "g.spv").write_bytes(b"old")
    (tmp_path / "g.spv.d").write_text("old")
    (tmp_path / "graph.hlsl").write_text(GRAPH + "syntax error here\n")
    done = run_wgc("compile", "-MD", "-o", "g.spv", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 1
    assert not (tmp_path / "g.spv").exists() and not (tmp_path / "g.spv.d").exists()


def test_md_to_stdout_needs_mf(run_wgc, tmp_path):
    project(tmp_path)
    done = run_wgc("compile", "-MD", "-o", "-", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 2 and b"needs -MF FILE" in done.stderr


def test_dxc_style_invocation_without_a_command(run_wgc, tmp_path):
    project(tmp_path)
    done = run_wgc("-T", "lib_6_8", "-spirv", "-fspv-target-env=vulkan1.3", "-MD", "-MF", "g.d", "-Fo", "g.spv",
                   "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.spv").read_bytes()[:4] == bytes.fromhex("03022307")
    assert (tmp_path / "g.d").read_text().startswith("g.spv: \\\n  graph.hlsl")


def test_help_is_grouped_like_dxc(run_wgc):
    done = run_wgc("compile", "--help")
    text = done.stdout.decode()
    positions = [text.index(title) for title in ("Common Options:", "Output Options:",
                                                 "Dependency Options (for build systems):",
                                                 "SPIR-V Code Generation Options:",
                                                 "Warning and Diagnostic Options:")]
    assert positions == sorted(positions)
    assert "-MD" in text[positions[2]:positions[3]] and "-Zpr" in text[positions[3]:positions[4]]
