"""The interface between sema and the stages after it (docs/development.md, "How it is built"): the back end
(`wgc.spirv`), the views (`wgc.metadata`, `wgc.irdump`) and the driver read what sema knows through
the analysis result (`wgc.sema.results`), not by calling sema's rule modules (the layers themselves:
`test_layering.py`).

Imports are read from the source with `ast` (every import, at module level or in a function,
except under `if TYPE_CHECKING:`). Run this file as a script to print the sema names the back
end and the views import (the count the issue asks for).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WGC = ROOT / "wgc"

READERS = [WGC / "driver.py", WGC / "irdump.py", *sorted((WGC / "spirv").glob("*.py")),
           *sorted((WGC / "metadata").glob("*.py"))]
ALLOWED_SEMA = {
    # the results object and the typed facts it carries
    "wgc.sema.results": None,   # any name: the module is the interface
    # data classes whose instances the results object carries (types, no computation)
    "wgc.sema.nodes": {"NodeInfo", "NodeInput", "NodeOutput", "NodeId", "DispatchGridField"},
    "wgc.sema.graph": {"GraphInfo", "Loop"},
    "wgc.sema.root_layout": {"LocalRootLayout", "RootParameter"},
    "wgc.sema.stages": {"NodeStages", "OutputSpan", "StagePlan", "TargetIndex", "AMDX_MIN_GRAPH_DEPTH"},
    "wgc.sema.bindings": {"VULKAN_DESCRIPTOR_TYPES", "BindingShift"},
    "wgc.sema.intrinsics": {"BARRIER_CONSTANTS"},
    "wgc.sema.rayquery": {"RAY_FLAG_CULL_PRIMITIVES"},
    # the table of node attributes (data that drives the checks and the views alike)
    "wgc.sema.node_attributes": {"dxil_io_tag", "dxil_tag"},
    # the front end's entry and options (the driver runs sema)
    "wgc.sema.analyze": {"analyze"},
    "wgc.sema.context": {"SemaOptions"},
}


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every `from module import name` and (module, "") for `import module`."""
    found: list[tuple[str, str]] = []
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            for alias in node.names:
                found.append((module, alias.name))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, "") for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def sema_names(paths: list[Path]) -> set[tuple[str, str]]:
    """The (sema module, name) pairs the files import."""
    return {(module, name) for path in paths for module, name in imports(path)
            if module == "wgc.sema" or module.startswith("wgc.sema.")}


def test_back_end_and_views_read_sema_only_through_the_results_object() -> None:
    """The driver, both SPIR-V targets, `metadata/` and the reflection import from sema only the
    results object and the data classes it carries (issue 28: "never call sema's modules")."""
    extra = sorted((module, name) for module, name in sema_names(READERS)
                   if module not in ALLOWED_SEMA or (ALLOWED_SEMA[module] is not None
                                                     and name not in ALLOWED_SEMA[module]))   # type: ignore[operator]
    assert extra == []


def test_the_import_reader_is_not_vacuous() -> None:
    assert ("wgc.irtools.walk", "all_exprs") in imports(WGC / "spirv" / "module.py")
    assert ("wgc.spirv", "grammar") in imports(WGC / "spirv" / "lower.py")


if __name__ == "__main__":
    names = sorted(sema_names(READERS))
    for module, name in names:
        print(f"{module}.{name}" if name else module)
    print(f"{len(names)} distinct sema names imported by the driver, back end and views", file=sys.stderr)
