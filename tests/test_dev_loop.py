"""The development loop tests the working tree, never a stale installed copy (see conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import wgc
from conftest import ROOT, _package_digest


def test_imported_wgc_is_the_working_tree() -> None:
    imported = Path(wgc.__file__).resolve().parent
    grammar = imported / "grammar" / "hlsl.lark"
    if not grammar.is_file():                       # the working tree itself keeps it at the top
        grammar = ROOT / "grammar" / "hlsl.lark"
    assert _package_digest(imported, grammar) == _package_digest(ROOT / "wgc", ROOT / "grammar" / "hlsl.lark")


def test_wgc_processes_run_the_working_tree() -> None:
    """The `wgc` processes the tests start inherit the environment: they import the same copy."""
    probe = subprocess.run([sys.executable, "-c", "import wgc; print(wgc.__file__)"], capture_output=True,
                           text=True, env=dict(os.environ), check=True)
    imported = Path(probe.stdout.strip()).resolve().parent
    grammar = imported / "grammar" / "hlsl.lark"
    assert _package_digest(imported, grammar if grammar.is_file() else ROOT / "grammar" / "hlsl.lark") \
        == _package_digest(ROOT / "wgc", ROOT / "grammar" / "hlsl.lark")


def test_a_stale_installed_copy_is_bypassed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    stale = site / "wgc"
    shutil.copytree(ROOT / "wgc", stale, ignore=shutil.ignore_patterns("__pycache__"))
    (stale / "grammar").mkdir()
    shutil.copy(ROOT / "grammar" / "hlsl.lark", stale / "grammar" / "hlsl.lark")
    with open(stale / "driver.py", "a", encoding="utf-8") as handle:
        handle.write("\nSTALE = True  # an edit the working tree does not have\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    before = subprocess.run([sys.executable, "-c", "import wgc.driver as d; print(hasattr(d, 'STALE'))"],
                            capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert before.stdout.strip() == "True"          # without conftest, the stale copy is what imports
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           f"{ROOT / 'tests' / 'test_dev_loop.py'}::test_imported_wgc_is_the_working_tree",
                           f"{ROOT / 'tests' / 'test_dev_loop.py'}::test_wgc_processes_run_the_working_tree"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert f"the installed copy at {stale.resolve()} differs" in done.stdout
