"""wgc lsp: a Language Server Protocol server for editors (command-line layer).

Modules: `project` (a file's settings: wgc.toml or compile_commands.json), `check` (one document
checked as `wgc compile` would, with the editor's unsaved texts), `features` (diagnostics, hover,
definitions, symbols, code actions as protocol values), `server` (pygls over standard input and
output). Only `features` and `server` import pygls/lsprotocol; nothing below the command line
imports this package.
"""
