"""Promises of the command line that must hold (issue 30): `wgc run --server` is not offered (the
compile server runs only `compile` and `inspect`). The compile cache's base folder is tested in
tests/test_buildcache.py, `--split-nodes DIR -Fre FILE` in tests/test_cli.py."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def test_run_does_not_offer_the_compile_server(run_wgc, tmp_path):
    """The compile server serves `wgc compile` and `wgc inspect`; `wgc run --server` used to be
    accepted and silently run in process. Now --help does not list it and it is a usage error."""
    helped = run_wgc("run", "--help")
    assert helped.returncode == 0 and b"--server" not in helped.stdout
    assert b"--server" in run_wgc("compile", "--help").stdout          # still offered where it works
    done = run_wgc("run", "--server", str(SAMPLES / "hello.hlsl"), "--dispatch", str(SAMPLES / "hello.dispatch.json"),
                   cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert (b"Error: 'wgc run' runs in this process: the compile server runs only 'wgc compile' and 'wgc inspect' "
            b"(drop --server)") in done.stderr
    assert list(tmp_path.iterdir()) == []
