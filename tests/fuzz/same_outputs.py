"""Differential check for refactors that must not change any output: every .hlsl file under
samples/ and tests/ compiled by this tree and by another revision, for every emit kind, and the
bytes compared (outputs, partial outputs and diagnostics).

Run: `python tests/fuzz/same_outputs.py REV` from a checkout (REV is exported with `git archive`
into a temporary folder; nothing of the checkout is changed). Prints one line per difference
and a summary; exits 1 when anything differs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["ir", "json", "text", "dxil", "dot", "asm", "reflection"]
TARGETS = ["amdx", "emulated"]

RUN = r"""
import json, sys
from wgc import driver
out = {}
for path in json.loads(sys.argv[1]):
    for kind in json.loads(sys.argv[2]):
        for target in (json.loads(sys.argv[3]) if kind in ("asm", "reflection") else ["amdx"]):
            try:
                result = driver.compile(driver.Options(input=path, emit=kind, target=target,
                                                       proposals=driver.PROPOSALS))
                found = [sorted((k, v.hex()) for k, v in result.outputs.items()),
                         sorted((k, v.hex()) for k, v in result.partial.items()),
                         [d.code + ":" + d.message for d in result.diagnostics]]
            except Exception as error:  # noqa: BLE001 - a crash is an output too
                found = ["crash", type(error).__name__]
            out[f"{path} {kind} {target}"] = found
out["__wgc__"] = driver.__file__
print(json.dumps(out))
"""


def outputs(tree: Path, files: list[str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(files), json.dumps(KINDS), json.dumps(TARGETS)],
                          cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert str(found.pop("__wgc__")).startswith(str(tree)), "the compiles must import the tree's own wgc"
    return found  # type: ignore[no-any-return]


def main() -> None:
    rev = sys.argv[1]
    files = sorted(str(p) for folder in ("samples", "tests") for p in (ROOT / folder).rglob("*.hlsl"))
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(other)], input=archive.stdout, check=True)
        old, new = outputs(other, files), outputs(ROOT, files)
    different = [key for key in new if old.get(key) != new[key]]
    for key in different:
        print("differs:", key)
    print(f"{len(files)} files, {len(new)} compiles, {len(different)} differ")
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
