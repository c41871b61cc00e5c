"""How many of DXC's node-metadata FileCheck configurations pass on `wgc inspect --format dxil`.

Run: `python benchmarks/dxil_filecheck.py [--dxc-git DIR] [--round-trip] [-v] [--keep DIR]` from a
checkout, with LLVM's FileCheck installed (Debian: llvm-14-tools; `--filecheck PATH` otherwise).
DIR is a DirectXShaderCompiler git directory (bare is fine; HEAD is read), by default the mirror
/work/.mirror/microsoft+DirectXShaderCompiler/repo.

What it does:
- selects every .hlsl test under tools/clang/test that declares a node shader (`[Shader("node")]`)
  and whose check lines, for the prefixes of one of its `%dxc ... | FileCheck` RUN lines, look at
  metadata (a line holding `!{`, `!"`, `!dx.`, `= !` or a `![[VAR]]` reference), leaving out
  debug-info checks (`!DI...`, `metadata` operands) and checks on instructions;
- turns each such RUN line into a configuration: profile, -D, -E, -HV, -enable-16bit-types, the
  FileCheck prefixes and -D variables. RUN lines that differ only in flags that do not change the
  metadata (-Od, -Zi, -default-linkage) are one configuration; -fcgl, -ast-dump and reflection
  pipelines are not metadata of a compiled module and are left out;
- keeps of each configuration's check lines those about metadata, plus the -SAME/-NOT lines that
  continue a kept line (a -NEXT whose line before was dropped becomes a plain check): wgc's view
  has no code, so checks on instructions cannot apply to it;
- runs `wgc inspect --format dxil` on the test with the configuration's flags (with
  `--round-trip`, its text goes through `llvm-as | llvm-dis` first) and FileCheck with the kept
  lines, and prints one line per configuration and the totals.
The DXC test files are read from git into a temporary folder and are not kept (unless --keep).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_ROOT = "tools/clang/test/"
DEFAULT_GIT = "/work/.mirror/microsoft+DirectXShaderCompiler/repo"
NODE_SHADER = re.compile(r'\[\s*shader\s*\(\s*"node"\s*\)\s*\]', re.I)
METADATA = re.compile(r'!\{|!dx\.|= *!|!"|!\[\[|\[\[\w+:!|^\s*!?\[\[\w+\]\]\s*=')
NOT_METADATA = re.compile(r'!DI|\bmetadata\b|!dbg|\bcall\b|@dx\.op\.|\b(load|store|define|ret)\b')
SAME_FLAGS = {"-Od", "-Zi", "-O0", "-O1", "-O2", "-O3", "-Qembed_debug", "-Zss"}
LEFT_OUT = ("-fcgl", "-ast-dump", "%D3DReflect", "-Fc", "-spirv", "-verify", "-Fo")


@dataclass
class Config:
    test: str
    flags: list[str]
    prefixes: list[str]
    variables: list[str]
    checks: list[str] = field(default_factory=list)


def git(gitdir: str, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", gitdir, *args], input=data, capture_output=True, check=True).stdout


def read_tests(gitdir: str) -> dict[str, str]:
    names = [p for p in git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "--", TEST_ROOT).decode().split("\n")
             if p.endswith(".hlsl")]
    out = git(gitdir, "cat-file", "--batch", data="".join(f"HEAD:{p}\n" for p in names).encode())
    texts, pos = {}, 0
    for name in names:
        end = out.index(b"\n", pos)
        size = int(out[pos:end].split()[2])
        texts[name] = out[end + 1:end + 1 + size].decode("utf-8", "replace")
        pos = end + 1 + size + 1
    return texts


def run_lines(text: str) -> list[str]:
    """The RUN commands of a test, continuation lines joined, `%if feature %{ ... %}` unwrapped."""
    runs: list[str] = []
    current: str | None = None
    for line in text.split("\n"):
        m = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if not m:
            if current is not None:
                runs.append(current)
            current = None
            continue
        body = m.group(1).rstrip()
        more = body.endswith("\\")
        body = body[:-1] if more else body
        current = body if current is None else current + " " + body
        if not more:
            runs.append(current)
            current = None
    if current is not None:
        runs.append(current)
    cleaned = []
    for run in runs:
        m = re.fullmatch(r"\s*%if\s+\S+\s*%\{(.*)%\}\s*", run, re.S)
        cleaned.append((m.group(1) if m else run).strip())
    return cleaned


def configuration(test: str, run: str) -> Config | None:
    if "%dxc" not in run or "FileCheck" not in run or any(word in run for word in LEFT_OUT):
        return None
    dxc, _, filecheck = run.partition("|")
    if "|" in filecheck:                     # a second tool between dxc and FileCheck
        return None
    tokens = shlex.split(dxc)[1:]
    flags: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        value = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in ("-T", "-E", "-D", "-HV"):
            flags += [token, value]
            i += 1
        elif re.match(r"-[TED]\w", token):
            flags += [token[:2], token[2:]]
        elif token == "-enable-16bit-types":
            flags.append(token)
        elif token == "-default-linkage":
            i += 1
        elif token in SAME_FLAGS or token in ("%s", "external"):
            pass
        else:
            return None                      # a flag that may change the output: not compared
        i += 1
    prefixes, variables = [], []
    fc = shlex.split(filecheck)
    for i, token in enumerate(fc):
        m = re.match(r"--?check-prefix(?:es)?(?:=(.*))?$", token)
        if m:
            prefixes += (m.group(1) if m.group(1) is not None else fc[i + 1]).split(",")
        elif token.startswith("-D") and len(token) > 2:
            variables.append(token)
    return Config(test, flags, prefixes or ["CHECK"], variables)


def metadata_checks(text: str, prefixes: list[str]) -> list[str]:
    """The metadata check lines of `prefixes`, as lines of a FileCheck check file."""
    pattern = re.compile(r"^\s*(?://|;)\s*(" + "|".join(map(re.escape, prefixes)) +
                         r")(-NEXT|-SAME|-DAG|-NOT|-LABEL)?:(.*)$")
    kept: list[str] = []
    last_kept = False
    for line in text.split("\n"):
        m = pattern.match(line)
        if not m:
            continue
        prefix, kind, body = m.group(1), m.group(2) or "", m.group(3)
        about_metadata = bool(METADATA.search(body)) and not NOT_METADATA.search(body)
        if kind in ("-SAME", "-NOT") and last_kept:
            keep = True
        elif about_metadata and kind != "-SAME":
            keep = True
            if kind == "-NEXT" and not last_kept:
                kind = ""
        else:
            keep = False
        if keep:
            kept.append(f"; {prefix}{kind}:{body}")
        last_kept = keep
    return kept


def select(texts: dict[str, str]) -> list[Config]:
    configs: dict[tuple[str, ...], Config] = {}
    for test, text in sorted(texts.items()):
        if not NODE_SHADER.search(text):
            continue
        for run in run_lines(text):
            config = configuration(test, run)
            if config is None:
                continue
            config.checks = metadata_checks(text, config.prefixes)
            if config.checks:
                configs.setdefault((test, *config.flags, "|", *config.prefixes, "|", *config.variables), config)
    return list(configs.values())


def run_one(config: Config, source: Path, work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    view = subprocess.run([sys.executable, "-m", "wgc", "inspect", "--format", "dxil", *config.flags, str(source)],
                          capture_output=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    if view.returncode != 0:
        return False, "wgc: " + view.stderr.decode(errors="replace").strip().splitlines()[0]
    text = view.stdout
    if args.round_trip:
        bitcode = subprocess.run([args.llvm_as, "-o", "-"], input=text, capture_output=True)
        if bitcode.returncode:
            return False, "llvm-as: " + bitcode.stderr.decode(errors="replace").strip().splitlines()[0]
        text = subprocess.run([args.llvm_dis, "-o", "-"], input=bitcode.stdout, capture_output=True).stdout
    checks = work / "checks.txt"
    checks.write_text("\n".join(config.checks) + "\n")
    result = subprocess.run([args.filecheck, str(checks), "--allow-unused-prefixes",
                             "--check-prefixes=" + ",".join(config.prefixes), *config.variables],
                            input=text, capture_output=True)
    first = next((line for line in result.stderr.decode(errors="replace").splitlines() if "error:" in line), "")
    return result.returncode == 0, first.split("error:", 1)[-1].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dxc-git", default=DEFAULT_GIT)
    parser.add_argument("--filecheck", default=shutil.which("FileCheck") or "/usr/lib/llvm-14/bin/FileCheck")
    parser.add_argument("--llvm-as", default=shutil.which("llvm-as") or "/usr/lib/llvm-14/bin/llvm-as")
    parser.add_argument("--llvm-dis", default=shutil.which("llvm-dis") or "/usr/lib/llvm-14/bin/llvm-dis")
    parser.add_argument("--round-trip", action="store_true", help="pass wgc's text through llvm-as | llvm-dis")
    parser.add_argument("--keep", help="write the tests and check files to this folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="say why each failing configuration fails")
    args = parser.parse_args()
    if not Path(args.filecheck).exists():
        print(f"error: FileCheck not found ({args.filecheck}); install llvm-14-tools or pass --filecheck",
              file=sys.stderr)
        return 1
    try:
        texts = read_tests(args.dxc_git)
    except (OSError, subprocess.CalledProcessError):
        print(f"error: cannot read DXC's tests from the git directory {args.dxc_git} (--dxc-git)", file=sys.stderr)
        return 1
    configs = select(texts)
    passed = lines = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        for n, config in enumerate(configs):
            source = work / config.test
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(texts[config.test])
            ok, why = run_one(config, source, work, args)
            if args.keep:
                (work / f"config{n}.checks").write_text("\n".join(config.checks) + "\n")
            passed += ok
            lines += len(config.checks)
            name = config.test[len(TEST_ROOT):]
            flags = " ".join(config.flags + config.prefixes + config.variables)
            print(f"{'pass' if ok else 'FAIL'}  {name}  {flags}" + (f"\n      {why}" if not ok and args.verbose else ""))
    tests = len({c.test for c in configs})
    print(f"\n{passed} of {len(configs)} configurations pass ({tests} tests, {lines} metadata check lines)"
          + (" after llvm-as | llvm-dis" if args.round_trip else ", as printed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
