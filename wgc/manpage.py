"""The man page, generated from the command definitions: `wgc man` prints wgc(1) as roff.

Stage: a command of its own (no compile).
Input: click's command tree (`wgc.cli.cli`, passed in: this module imports no CLI module) and the
package version.
Output: the roff text of one page: NAME, SYNOPSIS, DESCRIPTION, one subsection per command with
its usage, help and options (as `--help` shows them, hidden ones left out), ENVIRONMENT, EXIT
STATUS, FILES, SEE ALSO.
Invariants: deterministic (no date: the same wgc gives the same bytes); every line that would
start with '.' or "'" is escaped, and so are backslashes and hyphens, so text never becomes a
roff request.
"""

from __future__ import annotations

from typing import Any

ENVIRONMENT = (
    ("WGC_CACHE", "1, yes, true or on: compiles use the compile cache (as --cache does)."),
    ("WGC_CACHE_DIR", "The folder of the compile cache, the server's files and the start-up caches "
                      "(default $XDG_CACHE_HOME/wgc, else ~/.cache/wgc)."),
    ("WGC_CACHE_MAX_SIZE", "The compile cache's size limit (bytes, or with K, M, G; default 256M)."),
    ("WGC_CACHE_BASEDIR", "An absolute folder: paths under it on a cached compile's command line are made "
                          "relative to the current folder, so other checkouts and build folders share results."),
    ("WGC_SERVER", "1: compile and inspect run on the compile server (as --server does)."),
    ("WGC_SERVER_IDLE", "Seconds a compile server waits for a command before it stops (default 600)."),
    ("NO_COLOR", "Set: diagnostics are never coloured."),
)

EXIT_STATUS = (
    ("0", "Success (warnings allowed)."),
    ("1", "The input has errors (or warnings under -Werror), or an output cannot be written; no output "
          "file is left behind."),
    ("2", "Usage error (unknown option, bad profile, ...)."),
    ("3", "Internal compiler error: the details are saved in a file whose path is printed."),
    ("128+N", "Interrupted by signal N (SIGHUP, SIGINT, SIGTERM), with no output file left."),
)


def escape(text: str) -> str:
    """`text` as roff text: backslashes and hyphens escaped, no line starting a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def _paragraphs(text: str) -> list[str]:
    """click help text as paragraphs (click's '\\b' no-rewrap markers dropped, lines kept as lines)."""
    blocks: list[str] = []
    for block in text.strip().split("\n\n"):
        lines = [line.strip() for line in block.split("\n") if line.strip() != "\b"]
        if lines:
            blocks.append("\n".join(line for line in lines if line))
    return blocks


def _options(command: Any, ctx: Any) -> list[str]:
    import click

    out = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None:                        # arguments and hidden options
            continue
        names, help_text = record
        out += [".TP", f"\\fB{escape(names)}\\fR", escape(" ".join(help_text.split()))]
    return out


def render(root: Any, version: str) -> str:
    """The man page of `root` (the `wgc` click group) for wgc `version`."""
    import click

    root_ctx = click.Context(root, info_name="wgc")
    lines = [f'.TH WGC 1 "" "wgc {escape(version)}" "User Commands"', ".SH NAME",
             "wgc \\- HLSL work\\-graph compiler: D3D12 node shaders to SPIR\\-V (SPV_AMDX_shader_enqueue), "
             "graph inspection, and execution on Vulkan",
             ".SH SYNOPSIS", ".B wgc", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]...", ".br",
             ".B wgc", "[\\fIOPTIONS\\fR] \\fIINPUT\\fR  (dxc style: the same as \\fBwgc compile\\fR)",
             ".SH DESCRIPTION"]
    for paragraph in _paragraphs(root.help or ""):
        lines += [".PP", escape(paragraph)]
    lines += [".SH COMMANDS"]
    for name in sorted(root.list_commands(root_ctx)):
        command = root.get_command(root_ctx, name)
        if command is None or command.hidden:
            continue
        ctx = click.Context(command, info_name=name, parent=root_ctx)
        usage = " ".join(command.collect_usage_pieces(ctx))
        lines += [f'.SS "wgc {escape(name)} {escape(usage)}"']
        for paragraph in _paragraphs(command.help or ""):
            lines += [".PP", escape(paragraph)]
        lines += _options(command, ctx)
    lines += [".SH ENVIRONMENT"]
    for variable, meaning in ENVIRONMENT:
        lines += [".TP", f"\\fB{escape(variable)}\\fR", escape(meaning)]
    lines += [".SH EXIT STATUS"]
    for code, meaning in EXIT_STATUS:
        lines += [".TP", f"\\fB{escape(code)}\\fR", escape(meaning)]
    lines += [".SH FILES", ".TP", "\\fB~/.cache/wgc/\\fR",
              "The compile cache (results/), the compile server's sockets (server\\-UID/) and the start\\-up caches.",
              ".SH SEE ALSO", "\\fBdxc\\fR(1), \\fBspirv\\-val\\fR(1), \\fBdot\\fR(1). Shell completion: "
              "\\fB_WGC_COMPLETE=bash_source wgc\\fR (also zsh_source, fish_source). The user guide and the "
              "reference: docs/guide.md and docs/reference.md in the source distribution."]
    return "\n".join(lines) + "\n"
