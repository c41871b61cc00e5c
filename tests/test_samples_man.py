"""`wgc samples [DIR]` (the bundled samples, copied out without clobbering) and `wgc man` (the man
page generated from the command definitions) and shell completion."""

from __future__ import annotations

import builtins
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from wgc import samples_copy

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def expected_samples() -> dict[str, bytes]:
    return {k: v for k, v in tree(SAMPLES).items() if "__pycache__" not in k}


def test_samples_copies_every_sample_and_says_what_it_wrote(run_wgc, tmp_path):
    done = run_wgc("samples", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert tree(tmp_path / "out") == expected_samples()
    assert sorted(done.stdout.decode().split()) == sorted(os.path.join("out", n) for n in expected_samples())
    assert done.stderr.decode() == (f"wgc: copied {len(expected_samples())} sample files to out; try: wgc run "
                                    "out/hello.hlsl --dispatch out/hello.dispatch.json --trace\n")
    default = run_wgc("samples", cwd=tmp_path)
    assert default.returncode == 0 and tree(tmp_path / "wgc-samples") == expected_samples()


def test_samples_never_overwrites_a_file(run_wgc, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "hello.hlsl").write_text("mine")
    done = run_wgc("samples", "out", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == ("error: 'out' already holds hello.hlsl: nothing was written (name an empty or "
                                    "new folder: wgc samples DIR) [WG0061]\n1 error generated.\n")
    assert tree(tmp_path / "out") == {"hello.hlsl": b"mine"}


def test_samples_into_a_file_is_an_error_and_leaves_nothing(run_wgc, tmp_path):
    (tmp_path / "file").write_text("x")
    done = run_wgc("samples", "file", cwd=tmp_path)
    assert done.returncode == 1 and b"[WG0062]" in done.stderr and b"cannot copy the samples to 'file'" in done.stderr
    assert tree(tmp_path) == {"file": b"x"}


def test_a_write_that_fails_removes_what_was_written(monkeypatch, tmp_path):
    real_open = builtins.open
    calls = {"n": 0}

    def failing_open(path, mode="r", *args, **kwargs):
        if "x" in mode:
            calls["n"] += 1
            if calls["n"] == 4:
                raise OSError(28, "No space left on device", str(path))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", failing_open)
    copied = samples_copy.copy_samples(str(tmp_path / "out"))
    assert copied.written == [] and copied.problem is not None and copied.problem.code == "WG0062"
    assert "No space left on device; nothing was left" in copied.problem.message
    assert [p for p in (tmp_path / "out").rglob("*") if p.is_file()] == []


def test_every_sample_file_is_found():
    assert samples_copy.sample_files(str(SAMPLES)) == sorted(expected_samples())


def test_the_man_page_lists_every_command_and_option(run_wgc):
    import click

    from wgc.cli import cli

    done = run_wgc("man")
    assert done.returncode == 0
    page = done.stdout.decode()
    assert page.startswith(".TH WGC 1 ")
    ctx = click.Context(cli, info_name="wgc")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert f'.SS "wgc {name} ' in page
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0].replace("-", "\\-") in page, (name, param.opts)
    body = [line for line in page.splitlines() if not line.startswith((".TH", ".SH", ".SS", ".TP", ".PP", ".B", ".br"))]
    assert not [line for line in body if line.startswith((".", "'"))]      # text never turns into a request
    assert run_wgc("man").stdout == done.stdout                            # deterministic: no date


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_the_man_page_renders_without_warnings(run_wgc, tmp_path):
    page = run_wgc("man").stdout
    rendered = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=page, capture_output=True, timeout=60)
    assert rendered.returncode == 0 and rendered.stderr == b""


def test_bash_completion_comes_from_the_commands(run_wgc):
    script = run_wgc(env={"_WGC_COMPLETE": "bash_source"})
    assert script.returncode == 0 and b"_wgc_completion()" in script.stdout
    words = run_wgc(env={"_WGC_COMPLETE": "bash_complete", "COMP_WORDS": "wgc compile --split", "COMP_CWORD": "2"})
    assert words.stdout.decode().split() == ["plain,--split-nodes"]
    commands = run_wgc(env={"_WGC_COMPLETE": "bash_complete", "COMP_WORDS": "wgc sa", "COMP_CWORD": "1"})
    assert commands.stdout.decode().split() == ["plain,samples"]
