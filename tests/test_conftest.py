"""The test fixtures test this working tree: the `wgc` processes the tests start import it too."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT


def test_processes_started_elsewhere_import_this_tree(tmp_path):
    """`python -m pytest` from the tree puts the tree first on the tests' own sys.path only; the `wgc`
    processes they start (from another folder, through the installed script) must import it too,
    or they test whatever copy is installed."""
    done = subprocess.run([sys.executable, "-c", "import wgc; print(wgc.__file__)"], cwd=tmp_path,
                          env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == str(ROOT / "wgc" / "__init__.py")
