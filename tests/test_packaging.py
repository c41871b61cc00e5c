"""The published package: the sdist and the wheel `python -m build` makes, installed into a fresh
virtual environment outside the checkout, follow the README's quick start.

No network: the build runs without isolation (hatchling comes with the test extra), the wheel is
installed with --no-deps --no-index, and the dependencies come from this environment's
site-packages through a .pth file (after the new environment's own, so the wheel's wgc is the one
imported; PYTHONPATH, which the tests point at the checkout, is removed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_FILES = sorted(str(p.relative_to(ROOT / "samples")).replace(os.sep, "/")
                      for p in (ROOT / "samples").rglob("*") if p.is_file() and "__pycache__" not in p.parts)

pytest.importorskip("build", reason="the test extra's 'build' is not installed")
pytest.importorskip("hatchling", reason="the test extra's 'hatchling' is not installed")


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel of the checkout, built into a temporary folder."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """(the bin folder of a fresh venv holding only the wheel, the environment to run it in)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "outer-env.pth").write_text(sysconfig.get_path("purelib") + "\n")
    wheel = next(dist.glob("*.whl"))
    # --ignore-installed: the outer environment (seen through the .pth, for the dependencies) may
    # hold wgc itself (CI installs it there); pip would call the wheel satisfied and install nothing
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                           "--ignore-installed", "--quiet", str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    return bindir, env


def test_the_wheel_holds_the_license_the_grammar_and_every_sample(dist):
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "wgc/grammar/hlsl.lark" in names
    assert {f"wgc/samples/{name}" for name in SAMPLE_FILES} <= names
    assert "License-Expression: MIT" in metadata and "Requires-Python: >=3.11" in metadata
    assert "Classifier: Topic :: Software Development :: Compilers" in metadata
    assert "Requires-Dist: vulkan<2,>=1.3.275" in metadata       # a range, not an exact pin
    assert "Requires-Dist: lark==1.3.1" in metadata and "Requires-Dist: pcpp==1.30" in metadata  # pinned on purpose


def test_the_sdist_holds_the_license_and_the_sources(dist):
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"LICENSE", "README.md", "pyproject.toml", "grammar/hlsl.lark", "samples/hello.hlsl",
            "wgc/cli.py", "tests/test_packaging.py"} <= names


def test_the_pypi_page_has_no_relative_links():
    """PyPI renders README.md without the repository: a relative link there leads nowhere."""
    text = (ROOT / "README.md").read_text()
    import re

    links = re.findall(r"\]\(([^)]+)\)", text)
    assert [link for link in links if not link.startswith(("https://", "http://", "#"))] == []


def test_a_pip_user_follows_the_quick_start_outside_the_checkout(installed, tmp_path):
    bindir, env = installed
    wgc = shutil.which("wgc", path=str(bindir))
    assert wgc is not None

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([wgc, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    where = subprocess.run([str(bindir / "python"), "-c", "import wgc; print(wgc.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert where.stdout.startswith(str(bindir.parent)), where.stdout + where.stderr   # the wheel's wgc, not the tree
    copied = run("samples")
    assert copied.returncode == 0, copied.stderr
    assert sorted(copied.stdout.split()) == sorted(os.path.join("wgc-samples", n) for n in SAMPLE_FILES)
    assert "wgc run wgc-samples/hello.hlsl --dispatch wgc-samples/hello.dispatch.json --trace" in copied.stderr
    compiled = run("compile", "wgc-samples/hello.hlsl", "-o", "hello.spv")
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "hello.spv").read_bytes()[:4] == bytes.fromhex("03022307")        # the SPIR-V magic
    inspected = run("inspect", "wgc-samples/hello.hlsl", "--format", "json")
    assert inspected.returncode == 0, inspected.stderr
    assert sorted(n["function"] for n in json.loads(inspected.stdout)["nodes"]) == ["Accumulate", "Classify", "Generate"]
    again = run("samples")
    assert again.returncode == 1 and "[WG0061]" in again.stderr
    man = run("man")
    assert man.returncode == 0 and man.stdout.startswith(".TH WGC 1")
    completion = subprocess.run([wgc], cwd=tmp_path, env={**env, "_WGC_COMPLETE": "bash_source"},
                                capture_output=True, text=True, timeout=60)
    assert completion.returncode == 0 and "complete -o nosort -F _wgc_completion wgc" in completion.stdout


def test_the_quick_start_runs_from_the_wheel(installed, tmp_path, vulkan_device):
    """The README's last quick-start command: item i (0..199) lands in bin (i * 2654435761 mod 2^32) >> 28
    (samples/hello.hlsl's Classify), counted here in Python."""
    bindir, env = installed
    wgc = str(bindir / "wgc")
    assert subprocess.run([wgc, "samples", "s"], cwd=tmp_path, env=env, capture_output=True).returncode == 0
    done = subprocess.run([wgc, "run", "s/hello.hlsl", "--dispatch", "s/hello.dispatch.json", "--trace"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    bins = json.loads(done.stdout)["resources"]["u0"]["uint32"]
    expected = [0] * 16
    for item in range(200):
        expected[((item * 2654435761) & 0xFFFFFFFF) >> 28] += 1
    assert bins == expected
