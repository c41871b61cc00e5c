"""The import layering of the package `wgc`: no module imports one above it.

The layers, bottom first, are written in docs/development.md's "How it is built" section (`LAYERS` here is the
same list). A module may import modules of its own layer and of the layers below; an import that runs
upward (a lazy one inside a function too) fails this test. Imports are read from the source with
`ast`; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "wgc"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("wgc.version", "wgc.identity", "wgc.codes", "wgc.source", "wgc.diagnostics", "wgc.interrupts",
                    "wgc.types", "wgc.cached_dataclass", "wgc.emulation_abi", "wgc.startup_cache", "wgc.suggest",
                    "wgc.portable")),
    ("front end", ("wgc.preprocess", "wgc.syntax")),
    ("IR", ("wgc.ir", "wgc.irtools.layout")),   # the IR stores layouts: they are computed from types alone
    ("IR helpers", ("wgc.irtools", "wgc.ir_verify")),
    ("sema", ("wgc.sema",)),
    ("back ends and views", ("wgc.spirv", "wgc.spirv_in", "wgc.metadata", "wgc.irdump")),
    ("driver", ("wgc.driver", "wgc.outputs", "wgc.depfile", "wgc.buildcache")),
    ("runtime", ("wgc.runtime",)),
    ("command line and API", ("wgc", "wgc.cli", "wgc.compiling", "wgc.fast_args", "wgc.dxc_options",
                              "wgc.warning_list", "wgc.samples_copy", "wgc.manpage", "wgc.server", "wgc.lsp",
                              "wgc.entry", "wgc.launcher", "wgc.__main__")),
)
"""Each layer's modules and packages, bottom first; `wgc` is the package's own `__init__` (the API)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """The index in `LAYERS` of the longest prefix that names `module`."""
    best, length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    assert best >= 0, f"{module} is in no layer: add it to LAYERS and to docs/development.md's table"
    return best


def imported_modules(path: Path) -> set[str]:
    """The wgc modules `path` imports (`from wgc import codes` imports `wgc.codes`, not `wgc`)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "wgc")
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target.split(".")[0] != "wgc":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                as_path = PACKAGE.parent / submodule.replace(".", "/")
                is_module = as_path.with_suffix(".py").is_file() or as_path.is_dir()
                found.add(submodule if is_module else target)
    return found


def test_every_module_is_in_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        layer_of(module_name(path))


def test_no_import_runs_upward() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for imported in sorted(imported_modules(path)):
            if layer_of(imported) > layer_of(importer):
                upward.append(f"{importer} ({LAYERS[layer_of(importer)][0]}) imports {imported} "
                              f"({LAYERS[layer_of(imported)][0]})")
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def test_the_readme_lists_the_layers_in_order() -> None:
    readme = (PACKAGE.parent / "docs" / "development.md").read_text(encoding="utf-8")
    positions = [readme.find(f"| {name} |") for name, _ in LAYERS]
    assert all(position >= 0 for position in positions), "docs/development.md's layering table misses a layer"
    assert positions == sorted(positions)
