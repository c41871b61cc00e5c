"""The shape of the SPIR-V back end (ARCHITECTURE.md): no import cycles between its modules, no
module-level state kept across compiles, and bodies lowered by classes of a readable size.

Imports are read from the source with `ast`: every import counts, at module level or inside a
function, except those under `if TYPE_CHECKING:` (annotations only, never executed).
"""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "wgc" / "spirv"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(name: str) -> set[str]:
    """The sibling modules `wgc/spirv/<name>.py` imports (relative or absolute)."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 and not module:                      # from . import a, b
                found.update(a.name for a in node.names if a.name in MODULES)
            elif node.level == 1:                                  # from .a import x
                found.add(module.split(".")[0])
            elif module.startswith("wgc.spirv."):
                found.add(module.split(".")[2])
            elif module == "wgc.spirv":
                found.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("wgc.spirv."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & set(MODULES) - {name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := walk(node)):
            return found
    return None


def test_the_spirv_package_has_no_import_cycle():
    graph = {name: _imports(name) for name in MODULES}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
    assert "intrinsics" in graph["lower"] and "resources" in graph["lower"]     # the reader is not vacuous


def test_no_module_level_state_survives_a_compile():
    """Per-compile state lives in explicit objects (ModuleLowering and what it owns), not in
    module-level caches keyed by them."""
    for name in MODULES:
        source = (PACKAGE / f"{name}.py").read_text()
        assert "WeakKeyDictionary" not in source and "weakref" not in source, name


def test_no_class_of_the_back_end_is_a_thousand_line_monolith():
    """FunctionLowering was ~980 lines; its statements and calls (control.py) and conversions
    (conversions.py) are their own classes now. Guard: no class over 700 lines."""
    for name in MODULES:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                assert length <= 700, f"{name}.{node.name}: {length} lines"
