"""Front-end summary: the node shaders a file declares, as written (`wgc inspect` before sema).

Input: a parsed `TranslationUnit`.  Output: text listing every function that
carries a `[Shader("node")]` attribute (namespaces included), with its
attributes and parameters, printed back as HLSL.

Invariants: purely syntactic (nothing is checked or resolved here); output
order is source order; deterministic.
"""

from __future__ import annotations

from collections.abc import Iterator

from wgc.syntax import ast
from wgc.syntax.printer import print_attribute, print_param


def node_shaders(unit: ast.TranslationUnit) -> Iterator[ast.FunctionDecl]:
    """Functions with a `[Shader("node")]` attribute (attribute name matched case-insensitively)."""

    def walk(decls: tuple[ast.Decl, ...]) -> Iterator[ast.FunctionDecl]:
        for decl in decls:
            if isinstance(decl, ast.NamespaceDecl):
                yield from walk(decl.decls)
            elif isinstance(decl, ast.FunctionDecl) and any(
                a.name.lower() == "shader" and a.args and isinstance(a.args[0], ast.StringLiteral)
                and a.args[0].value == "node" for a in decl.attributes
            ):
                yield decl

    return walk(unit.decls)


def summarize(unit: ast.TranslationUnit, path: str) -> str:
    shaders = list(node_shaders(unit))
    lines = [f"{path}: {len(shaders)} node shader{'s' if len(shaders) != 1 else ''} (as written; "
             "graph analysis comes with semantic analysis)"]
    for decl in shaders:
        line, _ = decl.span.line_col
        lines.append(f"  {'::'.join(decl.name)}  (line {line})")
        for attribute in decl.attributes:
            lines.append(f"    {print_attribute(attribute)}")
        for param in decl.params:
            lines.append(f"    param: {print_param(param)}")
    return "\n".join(lines) + "\n"
