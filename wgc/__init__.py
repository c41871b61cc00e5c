"""wgc: an HLSL work-graph compiler (D3D12 node shaders -> SPIR-V with SPV_AMDX_shader_enqueue).

The library API is `wgc.compile(options)` (see `wgc.driver`) and `wgc.run(source, dispatch)`
(see `wgc.runtime.run`); the `wgc`
command line is a thin layer over it (`wgc.cli`).  Heavy modules are imported
lazily so that importing `wgc` is cheap.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

TYPE_CHECKING = False   # not `typing`'s: a cache hit or a server client does without importing typing
if TYPE_CHECKING:
    from typing import Any

    from wgc.driver import Options, Result

__all__ = ["Options", "Result", "compile", "run"]


def compile(options: "Options", stdin: bytes | None = None) -> "Result":  # noqa: A001
    """Compile one input; see `wgc.driver.compile`."""
    from wgc import driver

    return driver.compile(options, stdin)


def run(source_or_result: "Any", dispatch: "Any", **options: "Any") -> "Any":
    """Run a dispatch of a graph on a Vulkan device: `source_or_result` is a path or `Options` (compiled
    for the emulated target) or the `Result` of such a compile (`Options(target="emulated",
    reflection=True)`); returns a `wgc.runtime.run.RunResult` (see `wgc.runtime.run.run`)."""
    from wgc.runtime.run import run as run_graph

    return run_graph(source_or_result, dispatch, **options)


def __getattr__(name: str) -> "Any":
    if name == "__version__":      # `wgc.version`'s, read when asked: the thin client never needs it
        from wgc.version import __version__

        return __version__
    if name in ("Options", "Result"):
        from wgc import driver

        return getattr(driver, name)
    raise AttributeError(name)
