"""wgc lsp, the server: the Language Server Protocol over standard input and output (pygls).

Stage: command line (`wgc lsp`; pygls and lsprotocol are imported here only, so no other command
loads them).
Input: the editor's messages. Output: diagnostics published for every file a check reports on,
and the answers to hover, definition, document symbol and code action requests (`lsp.features`).

How a change is checked: each open or changed document is checked after `debounce` seconds without
a further change to it (`check.check`, in one worker thread, so that checks never overlap and the
server keeps reading messages). A document that another open document includes (a header) is
checked through its includers, so that its diagnostics are those of the real compile; they are
published for the header too. A check whose document changed again meanwhile is not published.
The settings of each check come from `lsp.project` (a problem there is a WG0080/WG0081 warning at
the top of the document). The debounce is `--debounce` (milliseconds), or the client's
initialization option `{"debounce": ms}`.

Invariants: a check that fails with an internal error is logged to the client (window/logMessage)
and publishes nothing; the server goes on.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from wgc import codes
from wgc.lsp import features
from wgc.lsp.check import Snapshot, check
from wgc.lsp.project import Settings, settings_for

DEFAULT_DEBOUNCE_MS = 30


class WgcServer(LanguageServer):
    """The pygls server and what it remembers between messages."""

    def __init__(self, debounce_ms: int) -> None:
        from wgc.version import __version__

        super().__init__("wgc", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.debounce = debounce_ms / 1000
        self.snapshots: dict[str, Snapshot] = {}
        self.published: dict[str, set[str]] = {}
        """Per checked document: the files its last check published diagnostics for."""
        self.pending: dict[str, asyncio.Task] = {}
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wgc-lsp-check")

    # ----------------------------------------------------------------- documents

    def open_paths(self) -> dict[str, str]:
        """Absolute path -> uri of every document open in the editor."""
        found = {}
        for uri in list(self.workspace.text_documents):
            path = to_fs_path(uri)
            if path is not None:
                found[os.path.abspath(path)] = uri
        return found

    def schedule(self, uri: str) -> None:
        path = to_fs_path(uri)
        if path is None:
            return
        path = os.path.abspath(path)
        previous = self.pending.pop(path, None)
        if previous is not None:
            previous.cancel()
        self.pending[path] = asyncio.get_running_loop().create_task(self._after_quiet(path))

    async def _after_quiet(self, path: str) -> None:
        await asyncio.sleep(self.debounce)
        self.pending.pop(path, None)
        opened = self.open_paths()
        owners = [p for p, snapshot in self.snapshots.items() if p != path and p in opened and path in snapshot.files]
        for target in owners or [path]:
            await self.refresh(target)

    async def refresh(self, path: str) -> None:
        """Check the document at `path` with the editor's texts, and publish what it found."""
        opened = self.open_paths()
        uri = opened.get(path)
        if uri is None:
            return
        versions = {p: self.workspace.get_text_document(u).version for p, u in opened.items()}
        overlay = {p: self.workspace.get_text_document(u).source for p, u in opened.items()}
        loop = asyncio.get_running_loop()
        try:
            settings, snapshot = await loop.run_in_executor(self.worker, _settings_and_check, path, overlay)
        except Exception as error:   # noqa: BLE001 - the server outlives one bad check
            self.window_log_message(lsp.LogMessageParams(
                type=lsp.MessageType.Error, message=f"wgc: internal error checking {path}: {error!r}"))
            return
        if snapshot.model_error is not None:
            self.window_log_message(lsp.LogMessageParams(
                type=lsp.MessageType.Warning, message=f"wgc: no inspect model for {path}: {snapshot.model_error}"))
        if self.workspace.get_text_document(uri).version != versions[path] or path not in self.open_paths():
            return    # changed or closed meanwhile: a newer check comes
        self.snapshots[path] = snapshot
        self.publish(path, settings, snapshot)

    def publish(self, path: str, settings: Settings, snapshot: Snapshot) -> None:
        by_file = features.diagnostics_by_file(snapshot)
        if settings.problem is not None:
            kind = codes.PROJECT_SETTINGS_INVALID if settings.problem_code == "WG0080" else codes.COMPILE_COMMANDS_INVALID
            by_file[path].insert(0, features.diagnostic(kind(None, settings.problem)))
        opened = self.open_paths()
        for stale in self.published.get(path, set()) - set(by_file):
            # an open file another document checks for itself keeps its own diagnostics
            if stale not in opened or stale not in self.snapshots:
                self._send(stale, [], None)
        for file, found in by_file.items():
            uri = opened.get(file)
            version = self.workspace.get_text_document(uri).version if uri is not None else None
            self._send(file, found, version)
        self.published[path] = set(by_file)

    def _send(self, path: str, found: list[lsp.Diagnostic], version: int | None) -> None:
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=from_fs_path(path) or path, diagnostics=found, version=version))

    def close(self, uri: str) -> None:
        path = to_fs_path(uri)
        if path is None:
            return
        path = os.path.abspath(path)
        pending = self.pending.pop(path, None)
        if pending is not None:
            pending.cancel()
        self.snapshots.pop(path, None)
        opened = self.open_paths()
        for file in self.published.pop(path, {path}) | {path}:
            self._send(file, [], None)
            if file != path and file in opened:
                self.schedule(opened[file])    # a header it included, still open: checked on its own now

    def snapshot_for(self, uri: str) -> tuple[Snapshot, str] | None:
        """The latest check that read the document at `uri` (its own, else an includer's), and its path."""
        path = to_fs_path(uri)
        if path is None:
            return None
        path = os.path.abspath(path)
        own = self.snapshots.get(path)
        if own is not None and own.analysis is not None:
            return own, path
        for snapshot in self.snapshots.values():
            if path in snapshot.files and snapshot.analysis is not None:
                return snapshot, path
        return (own, path) if own is not None else None


def _settings_and_check(path: str, overlay: dict[str, str]) -> tuple[Settings, Snapshot]:
    settings = settings_for(path)
    return settings, check(settings.options, overlay)


_WARM_UP = """struct R { uint a; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void A([MaxRecords(1)] NodeOutput<R> B) {}
[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<R> r) {}
"""


def _warm_up() -> None:
    """Check a small graph once: loads the parser's tables and the modules of sema and the model."""
    from wgc.driver import Options

    path = os.path.abspath("<wgc-lsp-warm-up>.hlsl")
    check(Options(input=path, emit="ir"), {path: _WARM_UP})


def make_server(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> WgcServer:
    server = WgcServer(debounce_ms)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: WgcServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounce"), (int, float)):
            ls.debounce = max(0.0, float(options["debounce"]) / 1000)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: WgcServer, params: lsp.InitializedParams) -> None:
        ls.worker.submit(_warm_up)   # the first document opened is then checked warm

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: WgcServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: WgcServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: WgcServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)   # a save may change what a wgc.toml or an includer sees

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: WgcServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: WgcServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = ls.snapshot_for(params.text_document.uri)
        return features.hover(found[0], found[1], params.position) if found else None

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: WgcServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        found = ls.snapshot_for(params.text_document.uri)
        return features.definition(found[0], found[1], params.position) if found else None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: WgcServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        found = ls.snapshot_for(params.text_document.uri)
        return features.symbols(found[0], found[1]) if found else []

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(ls: WgcServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        found = ls.snapshot_for(params.text_document.uri)
        if not found:
            return []
        return features.code_actions(found[0], params.text_document.uri, found[1], params.range)

    return server


def serve(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> None:
    """Run the server on standard input and output until the client says exit."""
    make_server(debounce_ms).start_io()
