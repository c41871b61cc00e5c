"""Shared test fixtures: paths to the checkout's samples and a runner for the real `wgc` command.

The tests always test this working tree. An installed `wgc` whose files are identical to the
tree's (CI: `pip install '.[test]'` of a clean checkout) is tested as installed, so CI checks a
real install; an installed copy that differs (an edit since `pip install`) is bypassed: the tree
goes first on `sys.path` and `PYTHONPATH` (for the `wgc` processes the tests start) and the
report header says so. `pip install -e '.[test]'` makes the installed copy the tree itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAMPLE_INCLUDE = SAMPLES / "include"
PROPOSAL_SAMPLES = frozenset({"loop_particles", "material_dispatch", "seed_loops_inner", "seed_loops_nested",
                              "seed_loops_simple", "seed_max_records_per_node", "seed_recursion",
                              "seed_slang_hello"})
"""Samples compiled with both work-graph proposals (`-fwork-graph-proposals`): the proposals' seed
examples and the samples written for them; the others follow released SM 6.9."""
BOTH_PROPOSALS = ("max-records-per-node", "work-graph-loops")


def sample_proposals(path: Path) -> tuple[str, ...]:
    """`driver.Options.proposals` for a sample."""
    return BOTH_PROPOSALS if path.stem in PROPOSAL_SAMPLES else ()


def hlsl_corpus() -> list[Path]:
    """Every sample and every HLSL file under tests/, sorted: the corpus that tests of a fast path
    compare with the general computation on."""
    return sorted(SAMPLES.glob("*.hlsl")) + sorted(Path(__file__).parent.glob("**/*.hlsl"))


def _package_digest(package: Path, grammar: Path) -> str:
    """A digest of a wgc package's Python sources and its grammar, by relative path."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(grammar.read_bytes() if grammar.is_file() else b"<no grammar>")
    return digest.hexdigest()


def _tree_first_for_processes() -> None:
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))


def _tested_copy() -> tuple[Path, str]:
    """Which wgc the tests import, making it the working tree's if the installed copy differs."""
    tree = ROOT / "wgc"
    spec = importlib.util.find_spec("wgc")
    installed = Path(spec.origin).resolve().parent if spec and spec.origin else None
    if installed == tree:   # the tree itself, or first on sys.path (`python -m pytest` from the tree) only here:
        _tree_first_for_processes()   # the `wgc` processes the tests start must import it too
        return tree, "the working tree"
    if installed is not None and (_package_digest(installed, installed / "grammar" / "hlsl.lark")
                                  == _package_digest(tree, ROOT / "grammar" / "hlsl.lark")):
        return installed, "the installed copy (identical to the working tree)"
    sys.path.insert(0, str(ROOT))
    _tree_first_for_processes()
    for name in [n for n in sys.modules if n == "wgc" or n.startswith("wgc.")]:
        del sys.modules[name]
    why = "not installed" if installed is None else f"the installed copy at {installed} differs"
    return tree, f"the working tree ({why}; `pip install -e '.[test]'` avoids this)"


TESTED_PACKAGE, TESTED_WHY = _tested_copy()


def _verify_ir_after_sema() -> None:
    """Every compile the tests make checks the IR's invariants after sema (`wgc.ir_verify`; never in
    production): in this process `wgc.sema.analyze.analyze` is wrapped (the driver imports it at each
    compile, so its compiles are wrapped too, and its own check is off here); the `wgc` processes the
    tests start inherit WGC_VERIFY_IR=1, which `wgc.driver` reads."""
    import wgc.driver
    import wgc.sema.analyze
    from wgc.ir_verify import check

    os.environ["WGC_VERIFY_IR"] = "1"
    wgc.driver.VERIFY_IR = False
    analyze = wgc.sema.analyze.analyze

    def analyze_and_verify(*args, **kwargs):  # type: ignore[no-untyped-def]
        analysis = analyze(*args, **kwargs)
        check(analysis)
        return analysis

    analyze_and_verify.__wrapped__ = analyze  # type: ignore[attr-defined]
    wgc.sema.analyze.analyze = analyze_and_verify


_verify_ir_after_sema()


def pytest_report_header(config: pytest.Config) -> str:
    return f"wgc under test: {TESTED_PACKAGE} - {TESTED_WHY}"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite the golden files under tests/out instead of comparing with them")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def wgc_command() -> list[str]:
    """The installed `wgc` script next to this Python, else `python -m wgc`."""
    script = Path(sys.executable).with_name("wgc")
    if script.exists():
        return [str(script)]
    found = shutil.which("wgc")
    return [found] if found else [sys.executable, "-m", "wgc"]


@pytest.fixture
def run_wgc():
    def run(*args: str, stdin: bytes | None = None, cwd: Path | str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        full_env = dict(os.environ)
        full_env.pop("NO_COLOR", None)
        full_env.update(env or {})
        return subprocess.run(wgc_command() + list(args), input=stdin, capture_output=True,
                              cwd=cwd, env=full_env, timeout=120)

    return run


def mesh_device_problem() -> str | None:
    """Why no Vulkan device here draws with mesh shaders (VK_EXT_mesh_shader), or None."""
    from wgc.runtime.device import Device, DeviceFailure, DeviceNotFound, VulkanUnavailable

    try:
        Device(None, graphics=True).close()
    except (VulkanUnavailable, DeviceFailure, DeviceNotFound) as problem:
        return f"no Vulkan device with mesh shaders here: {problem}"
    return None


@pytest.fixture(scope="module")
def mesh_device():
    """Skips the test (with the reason) where no device draws with mesh shaders (graphs of mesh nodes)."""
    problem = mesh_device_problem()
    if problem is not None:
        pytest.skip(problem)


@pytest.fixture(scope="module")
def device():
    """A Vulkan device open for the test module; skips (with the reason) where there is none."""
    from wgc.runtime.device import Device, DeviceFailure, VulkanUnavailable

    try:
        opened = Device()
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")
    yield opened
    opened.close()


@pytest.fixture
def gpu_fusion(monkeypatch):
    """The level tails fuse levels on a CPU device (lavapipe) as on a GPU (`gpu_schedule.FUSED_GROUPS_CPU`
    raised to FUSED_GROUPS), for tests that exercise the tails themselves."""
    from wgc.runtime import gpu_schedule

    monkeypatch.setattr(gpu_schedule, "FUSED_GROUPS_CPU", gpu_schedule.FUSED_GROUPS)


@pytest.fixture(scope="module")
def vulkan_device():
    """Skips the test (with the reason) where there is no usable Vulkan device."""
    from wgc.runtime.device import DeviceFailure, VulkanUnavailable, list_devices

    try:
        list_devices()
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")
