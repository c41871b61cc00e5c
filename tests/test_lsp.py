"""`wgc lsp`, the language server: end to end with a real LSP client over stdio (pytest-lsp), and
its project settings and fix-its without one.

The server runs as `python -m wgc lsp` (the tree's wgc: tests/conftest.py puts it on PYTHONPATH) with
no debounce, so a diagnostic update follows each change at once. Expected values are worked out
by hand in each test (positions from the sources written here, record offsets by the scalar
layout: every component at a multiple of its own size).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types as lsp  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from wgc import codes  # noqa: E402
from wgc.lsp.project import settings_for  # noqa: E402

GRAPH = """\
struct Rec { uint a; float2 b; float3 c; };
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(2, 1, 1)]
[NumThreads(8, 1, 1)]
void Producer(NodeOutput<Rec> Consumer) {}
[Shader("node")]
[NodeLaunch("thread")]
void Consumer(ThreadNodeInputRecord<Rec> r) {}
"""
"""Line 5 (0-based): `void Producer(NodeOutput<Rec> Consumer) {}`: the output's name at column 30,
the parameter at 14; line 8: `void Consumer(...)`, the node's name at column 5."""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "wgc", "lsp", "--stdio"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0}))
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str, until=lambda found: True) -> list[lsp.Diagnostic]:
    """The diagnostics published for `uri` once `until` holds for them (10 s at most)."""
    async def wait() -> list[lsp.Diagnostic]:
        while uri not in client.diagnostics or not until(client.diagnostics[uri]):
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]
    return await asyncio.wait_for(wait(), 10)


def _open(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
        uri=uri, language_id="hlsl", version=1, text=path.read_text() if text is None else text)))
    return uri


@pytest.mark.asyncio
async def test_diagnostics_on_open_and_change_with_code_group_notes_and_fix(client: LanguageClient, tmp_path):
    """Workgraph rules: every output needs [MaxRecords] or [MaxRecordsSharedWith] (WG0409, a
    warning of group missing-max-records); the fix-it adds [MaxRecords(1)] before the parameter."""
    path = tmp_path / "graph.hlsl"
    path.write_text(GRAPH)
    uri = _open(client, path)
    found = await _diagnostics(client, uri, lambda d: len(d) > 0)
    assert [(d.code, d.severity, d.range.start.line, d.range.start.character) for d in found] == [
        ("WG0409", lsp.DiagnosticSeverity.Warning, 5, 30)]
    assert found[0].data["group"] == "missing-max-records"
    assert "\nnote: the spec requires one on every output" in found[0].message

    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=found[0].range,
        context=lsp.CodeActionContext(diagnostics=found)))
    assert [a.title for a in actions] == ["add [MaxRecords(1)]"]
    (edit,) = actions[0].edit.changes[uri]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character, edit.new_text) == \
        (5, 14, 14, "[MaxRecords(1)] ")

    # the edit applied as a change: the warning goes
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
    assert list(await _diagnostics(client, uri, lambda d: len(d) == 0)) == []

    # an error with a related place (the earlier definition), typed in without saving
    broken = GRAPH.replace("[Shader(\"node\")]\n[NodeLaunch(\"thread\")]", "void Twice() {}\nvoid Twice() {}\n"
                           "[Shader(\"node\")]\n[NodeLaunch(\"thread\")]")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=broken)]))
    errors = await _diagnostics(client, uri, lambda d: any(x.severity == lsp.DiagnosticSeverity.Error for x in d))
    error = next(d for d in errors if d.severity == lsp.DiagnosticSeverity.Error)
    assert error.range.start.line == 7     # the second `void Twice`
    assert [(r.location.range.start.line, r.message) for r in error.related_information] == \
        [(6, "previous definition is here")]


@pytest.mark.asyncio
async def test_hover_definition_and_symbols(client: LanguageClient, tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(GRAPH.replace("void Producer(", "void Producer([MaxRecords(3)] "))
    uri = _open(client, path)
    await _diagnostics(client, uri)
    document = lsp.TextDocumentIdentifier(uri=uri)

    node = await client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(5, 7)))
    text = node.contents.value
    for fact in ("**Producer**", "broadcasting, entry", "threads 8x1x1", "dispatch grid 2x1x1",
                 "MaxRecords 3 -> Consumer[0]", "here --Consumer--> Consumer", "backing memory"):
        assert fact in text, (fact, text)

    # the output: its record, scalar layout: a at 0 (4 bytes), b at 4 (8), c at 12 (12): 24 bytes
    output = await client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(5, 50)))
    text = output.contents.value
    assert "`Rec` (24 bytes, align 4)" in text
    assert "| a `uint` | 0 | 4 |" in text and "| b `float2` | 4 | 8 |" in text and "| c `float3` | 12 | 12 |" in text

    record = await client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(0, 8)))
    assert "used by: output Consumer of Producer, input of Consumer" in record.contents.value

    # output -> the node it targets; node -> its producers
    target = await client.text_document_definition_async(lsp.DefinitionParams(document, lsp.Position(5, 50)))
    assert [(t.uri, t.range.start.line, t.range.start.character) for t in target] == [(uri, 8, 5)]
    producers = await client.text_document_definition_async(lsp.DefinitionParams(document, lsp.Position(8, 6)))
    assert [(p.range.start.line, p.range.start.character) for p in producers] == [(5, 46)]

    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(document))
    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("Rec", lsp.SymbolKind.Struct, "struct"), ("Producer", lsp.SymbolKind.Function, "broadcasting node"),
        ("Consumer", lsp.SymbolKind.Function, "thread node")]
    assert [c.name for c in symbols[1].children] == ["Consumer"]


@pytest.mark.asyncio
async def test_settings_from_wgc_toml_and_an_open_included_file(client: LanguageClient, tmp_path):
    """The include folder and the define come from wgc.toml; the error in the included header, open in the
    editor with unsaved text, is published for the header."""
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "rec.hlsli"
    header.write_text("struct Rec { uint a; };\n")
    (tmp_path / "wgc.toml").write_text('include = ["inc"]\ndefines = ["COUNT=4"]\n')
    main = tmp_path / "main.hlsl"
    main.write_text('#include "rec.hlsli"\n#if COUNT != 4\n#error COUNT\n#endif\n'
                    + GRAPH.split("\n", 1)[1].replace("void Producer(", "void Producer([MaxRecords(COUNT)] "))
    main_uri = _open(client, main)
    assert list(await _diagnostics(client, main_uri)) == []

    header_uri = _open(client, header, "struct Rec { uint a; undeclared_t b; };\n")
    found = await _diagnostics(client, header_uri, lambda d: len(d) > 0)
    assert [(d.range.start.line, d.range.start.character) for d in found] == [(0, 21)]
    assert found[0].severity == lsp.DiagnosticSeverity.Error

    # the includer closed: the header is checked on its own (its error is its own)
    del client.diagnostics[header_uri]
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=main_uri)))
    found = await _diagnostics(client, header_uri, lambda d: len(d) > 0)
    assert [(d.range.start.line, d.range.start.character) for d in found] == [(0, 21)]
    del client.diagnostics[main_uri]
    _open(client, main)
    await _diagnostics(client, main_uri)

    # a bad wgc.toml: a warning at the top of the document, checked with the defaults
    (tmp_path / "wgc.toml").write_text('include = ["inc"]\nincludes = ["x"]\n')
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri=main_uri)))
    found = await _diagnostics(client, main_uri, lambda d: any(x.code == "WG0080" for x in d))
    assert "unknown key 'includes'" in found[0].message and found[0].range.start.line == 0


def test_settings_from_compile_commands(tmp_path):
    """A dxc command line of compile_commands.json: -T, -I (relative to the entry's directory), -D and
    the -fwork-graph-loops opt-in are read; the compiler, the input and -Fo are dropped."""
    (tmp_path / "build").mkdir()
    source = tmp_path / "src" / "graph.hlsl"
    source.parent.mkdir()
    source.write_text(GRAPH)
    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path / "build"), "file": "../src/other.hlsl", "arguments": ["dxc", "-T", "lib_6_8"]},
        {"directory": str(tmp_path / "build"),
         "command": "dxc -T lib_6_9 -fwork-graph-loops -I ../inc -D N=2 -Fo graph.spv ../src/graph.hlsl",
         "file": "../src/graph.hlsl"}]))
    settings = settings_for(str(source))
    assert settings.problem is None and settings.origin == str(tmp_path / "compile_commands.json")
    options = settings.options
    assert (options.profile, options.proposals, options.defines, options.input) == \
        ("lib_6_9", ("work-graph-loops",), (("N", "2"),), str(source))
    assert options.include_dirs == (str(tmp_path / "build" / "../inc"),)

    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path), "file": "src/graph.hlsl", "arguments": ["dxc", "-no-such-flag", "src/graph.hlsl"]}]))
    settings = settings_for(str(source))
    assert settings.problem_code == "WG0081" and "-no-such-flag" in settings.problem
    assert settings.options.include_dirs == () and settings.options.profile == "lib_6_9"


def test_wgc_toml_settings(tmp_path):
    (tmp_path / "wgc.toml").write_text('include = ["inc", "/abs"]\ndefines = ["A", "B=2"]\nprofile = "lib_6_8"\n'
                                       'flags = ["-enable-16bit-types"]\n')
    (tmp_path / "sub").mkdir()
    options = settings_for(str(tmp_path / "sub" / "x.hlsl")).options
    assert options.include_dirs == (str(tmp_path / "inc"), "/abs")
    assert options.defines == (("A", None), ("B", "2")) and options.profile == "lib_6_8"
    assert options.enable_16bit_types
    (tmp_path / "wgc.toml").write_text('profile = "lib_6_8"\nproposals = ["work-graph-loops"]\n')
    settings = settings_for(str(tmp_path / "x.hlsl"))
    assert settings.problem_code == "WG0080" and "use -T lib_6_9" in settings.problem
    (tmp_path / "wgc.toml").write_text('include = "inc"\n')
    assert "'include' must be a list of strings" in settings_for(str(tmp_path / "x.hlsl")).problem
    (tmp_path / "wgc.toml").write_text('include = [\n')
    assert settings_for(str(tmp_path / "x.hlsl")).problem.startswith("cannot read")


def test_every_lsp_code_has_a_case(tmp_path):
    """WG0080 and WG0081 are above; WG0082, pygls missing, is rendered here, with exit code 1."""
    lsp_codes = {k.code for k in codes.ALL_KINDS if "WG0080" <= k.code <= "WG0089"}
    assert lsp_codes == {"WG0080", "WG0081", "WG0082"}
    script = ("import sys; sys.modules['pygls'] = None; sys.modules['pygls.lsp.server'] = None\n"
              "from wgc.cli import main; sys.exit(main(['lsp']))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("error: 'wgc lsp' needs pygls and lsprotocol: ") and "[WG0082]" in done.stderr
    assert "note: install them with: pip install 'wgc[lsp]'" in done.stderr


def test_compile_imports_no_lsp_library(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(GRAPH)
    script = ("import sys; from wgc.cli import main; main(['compile', sys.argv[1], '-o', sys.argv[2]]); "
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'wgc.lsp')))")
    done = subprocess.run([sys.executable, "-c", script, str(path), str(tmp_path / "out.spv")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == "[]\n", done.stderr


def test_missing_max_records_fix_it_inserts_before_the_attributes_and_type():
    """The fix-it goes where the parameter's declaration starts (its attributes included)."""
    from wgc import driver

    text = GRAPH.replace("void Producer(NodeOutput", "void Producer([NodeID(\"Consumer\")] NodeOutput")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=text.encode())
    (diag,) = [d for d in result.diagnostics if d.code == "WG0409"]
    (fix,) = diag.fixes
    assert fix.span.start == fix.span.end == text.index("[NodeID")
    fixed = text[:fix.span.start] + fix.text + text[fix.span.start:]
    again = driver.compile(driver.Options(input="-", emit="ir"), stdin=fixed.encode())
    assert [d.code for d in again.diagnostics] == []


def test_unknown_attribute_fix_it_writes_the_close_spelling():
    """WG0343's did-you-mean becomes a fix-it that replaces the written name (namespace included)."""
    from wgc import driver

    text = GRAPH.replace("[NumThreads(8, 1, 1)]", "[NumThread(8, 1, 1)]").replace(
        "void Producer(", "void Producer([MaxRecords(1)] ")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=text.encode())
    (diag,) = [d for d in result.diagnostics if d.code == "WG0343"]
    (fix,) = diag.fixes
    assert (text[fix.span.start:fix.span.end], fix.text, fix.title) == ("NumThread", "NumThreads",
                                                                       "change to 'NumThreads'")
    fixed = text[:fix.span.start] + fix.text + text[fix.span.end:]
    assert driver.compile(driver.Options(input="-", emit="ir"), stdin=fixed.encode()).diagnostics == ()


@pytest.mark.parametrize("sample", ["hello.hlsl", "material_dispatch.hlsl", "recursive_tree.hlsl",
                                    "loop_particles.hlsl"])
def test_every_position_of_a_sample_answers(sample):
    """Hover, definition, symbols and code actions at every third column of every line: an answer or
    None, never an exception; every location points into a file the check read."""
    from wgc.lsp import features
    from wgc.lsp.check import check

    path = str(Path(__file__).resolve().parents[1] / "samples" / sample)
    settings = settings_for(path)
    snapshot = check(settings.options, {path: Path(path).read_text()})
    assert snapshot.model is not None and snapshot.analysis is not None
    assert features.symbols(snapshot, path)
    lines = Path(path).read_text().split("\n")
    hovers = definitions = 0
    for line, text in enumerate(lines):
        for column in range(0, len(text) + 1, 3):
            where = lsp.Position(line, column)
            hovers += features.hover(snapshot, path, where) is not None
            found = features.definition(snapshot, path, where) or []
            definitions += bool(found)
            assert all(location.uri == from_fs_path(path) for location in found)
            features.code_actions(snapshot, from_fs_path(path), path, lsp.Range(where, where))
    assert hovers and definitions


def test_missing_max_records_per_node_fix_it_takes_the_budget():
    """hlsl-specs 0025: an output array needs [MaxRecordsPerNode(n)], n at most its MaxRecords; the
    fix-it writes the MaxRecords budget (4), the largest value allowed."""
    from wgc import driver

    text = GRAPH.replace("void Producer(NodeOutput<Rec> Consumer)",
                         "void Producer([MaxRecords(4)] [NodeArraySize(1)] NodeOutputArray<Rec> Consumer)")
    options = driver.Options(input="-", emit="ir", proposals=("max-records-per-node",))
    result = driver.compile(options, stdin=text.encode())
    (diag,) = [d for d in result.diagnostics if d.code == "WG0425"]
    (fix,) = diag.fixes
    assert fix.span.start == fix.span.end == text.index("[MaxRecords(4)]")
    assert (fix.text, fix.title) == ("[MaxRecordsPerNode(4)] ", "add [MaxRecordsPerNode(4)]")
    fixed = text[:fix.span.start] + fix.text + text[fix.span.start:]
    assert [d.code for d in driver.compile(options, stdin=fixed.encode()).diagnostics] == []


def test_hover_and_definition_in_a_document_with_errors():
    """A node whose body has an error is out of the graph: hover says so, its producer's output still
    leads to it (by NodeID), and the sound node keeps its full hover."""
    from wgc.lsp import features
    from wgc.lsp.check import check

    path = "/nonexistent/broken.hlsl"
    text = GRAPH.replace("void Consumer(ThreadNodeInputRecord<Rec> r) {}",
                         "void Consumer(ThreadNodeInputRecord<Rec> r) { undefined_call(); }")
    snapshot = check(settings_for(path).options, {path: text})
    assert any(d.code == "WG0301" for d in snapshot.diagnostics)
    consumer = features.hover(snapshot, path, lsp.Position(8, 6)).contents.value
    assert consumer == "**Consumer**: node shader (not in the graph: it has errors)"
    assert "**Producer**" in features.hover(snapshot, path, lsp.Position(5, 7)).contents.value
    (target,) = features.definition(snapshot, path, lsp.Position(5, 32))
    assert (target.range.start.line, target.range.start.character) == (8, 5)
