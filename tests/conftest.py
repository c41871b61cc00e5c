"""Shared test fixtures: paths to the checkout's samples and a runner for the real `wgc` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAMPLE_INCLUDE = SAMPLES / "include"


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
