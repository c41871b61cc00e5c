"""The `wgc` command pip installs answers served commands and cache hits before `site` ends
(`pth/_wgc_thin_client.pth`, `wgc/thin_start.py`, `wgc.entry.answer_early`).

The wheel is built from the checkout (no isolation, no network) and installed with pip into a
fresh virtual environment, as the README's quick start does. Its site-packages also gets, in
`site`'s name order: `_a-outer.pth` (this environment's site-packages, for the dependencies,
before wgc's file as the packages of one environment are) and `zz-probe.pth`, a stand-in for
`cmeel.pth`: an import line that appends to the file $WGC_PROBE when it runs. A command answered
early never runs it; every other Python process of the environment does.
"""

from __future__ import annotations

import os
import signal
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
WAIT = 300

pytest.importorskip("build", reason="the test extra's 'build' is not installed")
pytest.importorskip("hatchling", reason="the test extra's 'hatchling' is not installed")
pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX venv layout and signals")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return next(out.glob("*.whl"))


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """The bin folder of a fresh venv holding the wheel (see the module docstring)."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "_a-outer.pth").write_text(sysconfig.get_path("purelib") + "\n")
    Path(site, "zz-probe.pth").write_text(
        "import os; os.environ.get('WGC_PROBE') and open(os.environ['WGC_PROBE'], 'a').write('site ran\\n')\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                           "--ignore-installed", "--quiet", str(wheel)], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert Path(site, "_wgc_thin_client.pth").is_file()
    return root / "bin"


@pytest.fixture
def work(tmp_path, venv):
    """A build folder with the hello sample, and an environment of its own: cache folder, probe
    file; its servers are stopped afterwards."""
    folder = tmp_path / "work"
    folder.mkdir()
    shutil.copy(SAMPLES / "hello.hlsl", folder)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "WGC_SERVER", "WGC_CACHE", "NO_COLOR", "PYTHONVERBOSE")}
    env["WGC_CACHE_DIR"] = str(tmp_path / "cache")
    env["WGC_PROBE"] = str(tmp_path / "probe")
    yield folder, env
    subprocess.run([str(venv / "wgc"), "server", "--stop"], cwd=folder, env=env, capture_output=True, timeout=WAIT)


def wgc(venv: Path, work: tuple[Path, dict[str, str]], *args: str, **extra: str) -> tuple[int, bytes, bytes, bool]:
    """(exit code, stdout, stderr, whether `site` finished) of the installed `wgc` with `args`."""
    folder, env = work
    probe = Path(env["WGC_PROBE"])
    probe.unlink(missing_ok=True)
    done = subprocess.run([str(venv / "wgc"), *args], cwd=folder, env={**env, **extra}, capture_output=True,
                          timeout=WAIT)
    return done.returncode, done.stdout, done.stderr, probe.exists()


def test_the_wheel_installs_the_pth_file_at_its_root(wheel):
    """The path file lands in site-packages itself (where `site` reads it), and its only line is an
    import line that does nothing unless the script is named wgc."""
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read("_wgc_thin_client.pth").decode()
        assert "wgc/thin_start.py" in archive.namelist()
    assert text.count("\n") == 1 and text.startswith("import sys;")
    assert "('wgc', 'wgc.exe')" in text


def test_a_served_compile_ends_before_site_and_matches_a_plain_one(venv, work):
    """The first served command starts the server the usual way (site finishes); the next ones are
    answered before site ends, with the outputs, messages and exit codes of a plain process, a
    failing compile included."""
    plain = wgc(venv, work, "compile", "hello.hlsl", "-o", "plain.spv", "-MD")
    assert plain[0] == 0 and plain[3], plain[2]
    first = wgc(venv, work, "compile", "hello.hlsl", "-o", "first.spv", WGC_SERVER="1")
    assert first[0] == 0 and first[3], first[2]
    served = wgc(venv, work, "compile", "hello.hlsl", "-o", "served.spv", "-MD", WGC_SERVER="1")
    assert served[:3] == (0, b"", plain[2])
    assert not served[3], "the served command ran the rest of site"
    folder = work[0]
    assert (folder / "served.spv").read_bytes() == (folder / "plain.spv").read_bytes()
    assert (folder / "served.spv.d").read_bytes() == (folder / "plain.spv.d").read_bytes().replace(b"plain", b"served")
    (folder / "bad.hlsl").write_text("[Shader(\"node\")]\nvoid f() { int x = ; }\n")
    bad_plain = wgc(venv, work, "compile", "bad.hlsl", "-o", "bad.spv")
    bad_served = wgc(venv, work, "compile", "bad.hlsl", "-o", "bad.spv", WGC_SERVER="1")
    assert bad_plain[0] == 1 and bad_served[:3] == bad_plain[:3] and not bad_served[3]
    assert not (folder / "bad.spv").exists()


def test_a_cache_hit_ends_before_site(venv, work):
    """A hit of the compile cache is answered early; a miss compiles after site finished, once."""
    miss = wgc(venv, work, "compile", "hello.hlsl", "-o", "a.spv", WGC_CACHE="1")
    assert miss[0] == 0 and miss[3], miss[2]
    folder = work[0]
    expected = (folder / "a.spv").read_bytes()
    (folder / "a.spv").unlink()
    hit = wgc(venv, work, "compile", "hello.hlsl", "-o", "a.spv", WGC_CACHE="1")
    assert hit[0] == 0 and not hit[3], hit[2]
    assert (folder / "a.spv").read_bytes() == expected
    (folder / "hello.hlsl").write_text((folder / "hello.hlsl").read_text() + "\nstatic const uint kEdit = 7u;\n")
    edited = wgc(venv, work, "compile", "hello.hlsl", "-o", "a.spv", WGC_CACHE="1")
    assert edited[0] == 0 and edited[3], "an edited file is a miss: compiled after site"


def test_other_commands_and_processes_start_as_before(venv, work):
    """Without --server/--cache the command (and any other Python process of the environment) runs
    the whole of site, and wgc.thin_start is not even imported outside a `wgc` script."""
    version = wgc(venv, work, "--version")
    assert version[0] == 0 and version[3] and b"wgc" in version[1]
    folder, env = work
    done = subprocess.run([str(venv / "python"), "-c", "import sys; print('wgc.thin_start' in sys.modules)"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=WAIT)
    assert done.stdout == "False\n" and Path(env["WGC_PROBE"]).exists()


def test_another_script_named_wgc_is_left_alone(venv, work):
    """A script of the user's that happens to be called `wgc` is not pip's script of wgc: the .pth
    line leaves it to Python, even with $WGC_SERVER set."""
    folder, env = work
    own = folder / "bin" / "wgc"
    own.parent.mkdir()
    own.write_text(f"#!{venv / 'python'}\nimport sys\nprint('mine', 'wgc.entry' in sys.modules)\n")
    own.chmod(0o755)
    done = subprocess.run([str(own), "compile", "x.hlsl"], cwd=folder, env={**env, "WGC_SERVER": "1"},
                          capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0 and done.stdout == "mine False\n" and Path(env["WGC_PROBE"]).exists()


def test_each_command_in_process_reads_the_fingerprint_again(monkeypatch, tmp_path):
    """The server no longer reads its files per request: it relies on the request's fingerprint,
    read for that very command. A library process calling `wgc.entry.main(argv)` twice reads it
    again for the second (a wgc changed in between is another wgc, never stale code)."""
    from wgc import entry, identity

    reads: list[int] = []
    monkeypatch.setattr(identity, "compute_fingerprint", lambda: reads.append(1) or bytes([len(reads)]) * 32)
    monkeypatch.setattr(identity, "_fingerprint", None)
    sent: list[bytes] = []
    monkeypatch.setattr(entry, "run_on_server", lambda args, start=True: sent.append(identity.fingerprint()) or 0)
    monkeypatch.setattr(entry, "_cache_missed", False)
    assert entry.main(["compile", "x.hlsl"]) == 0
    assert entry.main(["compile", "x.hlsl"]) == 0
    assert sent == [bytes([1]) * 32, bytes([2]) * 32] and len(reads) == 2


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_an_early_served_compile_ends_it_as_in_process(venv, work, signum):
    """A served command answered early honours SIGINT and SIGTERM as the `wgc` command does: the
    server's compile stops, the exit status is 128 + N, the earlier output is gone."""
    folder, env = work
    lines = [(SAMPLES / "hello.hlsl").read_text()]
    lines += [f"float f{i}(float x) {{ float y = x * {i}.0; for (int k = 0; k < 4; ++k) {{ y = y * 0.5 + sin(y); }} "
              "return y; }" for i in range(3000)]
    (folder / "big.hlsl").write_text("\n".join(lines) + "\n")
    assert wgc(venv, work, "server", "--daemon")[0] == 0
    (folder / "big.spv").write_bytes(b"an output of an earlier build")
    probe = Path(env["WGC_PROBE"])
    probe.unlink(missing_ok=True)
    quiet = {**env, "WGC_PROBE": str(probe) + ".status"}      # the status commands run the whole of site
    client = subprocess.Popen([str(venv / "wgc"), "compile", "-o", "big.spv", "big.hlsl"], cwd=folder,
                              env={**env, "WGC_SERVER": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while b"1 running" not in subprocess.run([str(venv / "wgc"), "server", "--status"], cwd=folder, env=quiet,
                                                 capture_output=True, timeout=WAIT).stdout:
            assert time.monotonic() < deadline and client.poll() is None, "the server never ran the compile"
            time.sleep(0.05)
        client.send_signal(signum)
        code = client.wait(timeout=WAIT)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        client.stderr.close()
    assert code == 128 + signum
    assert not (folder / "big.spv").exists()
    assert not probe.exists(), "the client was not the early one"


def test_an_editable_wheel_holds_the_pth_file_after_its_path_file(tmp_path):
    """hatchling's editable wheel (pip install -e) carries the file too, and `site` reads the
    editable install's path file (which makes wgc importable) first: names sort that way."""
    pytest.importorskip("editables", reason="hatchling's editable builds need the 'editables' package")
    from hatchling.build import build_editable

    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info"))
    out = tmp_path / "out"
    out.mkdir()
    cwd = os.getcwd()
    try:
        os.chdir(source)
        name = build_editable(str(out))
    finally:
        os.chdir(cwd)
    with zipfile.ZipFile(out / name) as archive:
        paths = sorted(n for n in archive.namelist() if n.endswith(".pth"))
    assert "_wgc_thin_client.pth" in paths
    assert paths.index("_wgc_thin_client.pth") == len(paths) - 1, paths    # after _editable_impl_wgc.pth
