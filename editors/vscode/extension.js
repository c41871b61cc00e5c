// wgc's VS Code extension: starts `wgc lsp` for HLSL files and hands it to VS Code's LSP client.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("wgc");
  const [command, ...args] = settings.get("command", ["wgc", "lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient("wgc", "wgc", server, {
    documentSelector: [{ scheme: "file", language: "hlsl" }],
    initializationOptions: { debounce: settings.get("debounce", 30) },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
