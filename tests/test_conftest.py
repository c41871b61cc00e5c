"""The test fixtures test this working tree: the `wgc` processes the tests start import the copy the
tests themselves import (the tree, or an installed copy identical to it)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import TESTED_PACKAGE


def test_processes_started_elsewhere_import_the_tested_copy(tmp_path):
    """`python -m pytest` from the tree puts the tree first on the tests' own sys.path only; the `wgc`
    processes they start (from another folder, through the installed script) must import the same
    copy, or they test whatever copy is installed. In CI that copy is the installed one, identical to
    the tree."""
    done = subprocess.run([sys.executable, "-c", "import wgc; print(wgc.__file__)"], cwd=tmp_path,
                          env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == str(TESTED_PACKAGE / "__init__.py")
