"""Published work graphs, compiled with their own command lines: a pass/fail table.

Each row of `CORPUS` names a public repository, the files of it that are work-graph libraries (a
glob) and the dxc options its build gives them (read from the repository: its CMake files,
its C++ that calls dxcompiler, or the test file's name). The repositories are read from git
mirrors (the `fetch` tool's `/work/.mirror/OWNER+NAME/repo`, or any bare clone named so under
`--mirrors`): their HEAD is exported to a scratch folder, never into this checkout (their
licences are not ours). Each file is compiled by `wgc compile` (this checkout's, or `--tree`'s) from
the file's folder, as its build does, and the table says pass (no error) or fail with the first
error; a file that fails on DefaultErrors alone is compiled again with them downgraded
(`-Wno-error=GROUP`) and listed as pass* when that compiles; a repository that is not there is
listed as missing.

Run from the checkout:

    python benchmarks/corpus.py [--mirrors /work/.mirror] [--only NAME] [--tree CHECKOUT]
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Entry:
    repo: str
    """owner/name on GitHub."""
    files: str
    """A glob of the files to compile (relative to the repository's root)."""
    flags: str
    """dxc's options, as the repository's build gives them ("{name}": flags from the file's name)."""
    where: str = "."
    """The folder to compile from, relative to the file's (its `-I` paths are relative to it)."""


MESH_NODE_SHADERS = ("world", "biomes", "tree", "rock", "terrainrenderer", "splinerenderer", "densegrassmeshshader",
                     "sparsegrassmeshshader", "beemeshshader", "butterflymeshshader", "flowermeshshader",
                     "mushroommeshshader")

_VARIANTS = ("", " -D NODE_DYNAMIC_EXPANSION", " -D NODE_AGGREGATION")

CORPUS = [
    # readme: each tutorial compiled by the application with -T lib_6_8 -enable-16bit-types -HV 2021, -I the
    # tutorials folder (src/Application.cpp)
    Entry("GPUOpen-LibrariesAndSDKs/WorkGraphPlayground", "tutorials/tutorial-*/*.hlsl",
          "-T lib_6_8 -enable-16bit-types -HV 2021 -I .."),
    # meshNodeSample/shadercompiler.cpp: -enable-16bit-types -HV 2021 -Zpc -I shaders; workgraphrendermodule.cpp:
    # lib_6_9 for the libraries it adds (AddShaderLibrary)
    *(Entry("GPUOpen-LibrariesAndSDKs/WorkGraphsMeshNodeSample", f"meshNodeSample/shaders/{name}.hlsl",
            "-T lib_6_9 -enable-16bit-types -HV 2021 -Zpc -I .") for name in MESH_NODE_SHADERS),
    # D3D12HelloWorkGraphs.cpp / D3D12WorkGraphsSandbox.cpp: CompileDxilLibraryFromFile(..., L"lib_6_8", no options)
    Entry("microsoft/DirectX-Graphics-Samples",
          "Samples/Desktop/D3D12HelloWorld/src/HelloWorkGraphs/D3D12HelloWorkGraphs.hlsl", "-T lib_6_8"),
    Entry("microsoft/DirectX-Graphics-Samples",
          "Samples/Desktop/D3D12HelloWorld/src/WorkGraphsSandbox/D3D12WorkGraphsSandbox.hlsl", "-T lib_6_8"),
    # D3D12HelloMeshNodes.cpp: lib_6_9 with -D LIB_TARGET -enable-16bit-types
    Entry("microsoft/DirectX-Graphics-Samples", "Samples/Desktop/D3D12HelloWorld/src/HelloMeshNodes/shaders.hlsl",
          "-T lib_6_9 -D LIB_TARGET -enable-16bit-types"),
    # shaders/gpu_dispatch/build.bat: -spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -T lib_6_8, and
    # -D NODE_DYNAMIC_EXPANSION / NODE_AGGREGATION / NODE_THREAD variants
    *(Entry("GPUOpen-LibrariesAndSDKs/Vulkan-Samples", f"shaders/gpu_dispatch/{name}.hlsl",
            f"-spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -T lib_6_8{variant}")
      for name, variants in (("sanity_aggregation_cs", ("",)), ("sanity_dynamic_exp_cs", ("",)),
                             ("sanity_entry_cs", ("",)), ("sanity_fixed_exp_cs", ("",)),
                             ("classify_gpu_enqueue_cs", _VARIANTS), ("classify_material_map_gpu_enqueue_cs", _VARIANTS),
                             ("compose_gpu_enqueue_cs", (*_VARIANTS, " -D NODE_THREAD")),
                             ("compose_material_map_gpu_enqueue_cs", _VARIANTS))
      for variant in variants),
    # shaders/gpu_draw_dispatch/build.bat: the same with -T lib_6_9, and -D USE_INPUT_SHARING variants
    *(Entry("GPUOpen-LibrariesAndSDKs/Vulkan-Samples", f"shaders/gpu_draw_dispatch/{name}.hlsl",
            f"-spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -T lib_6_9{variant}")
      for name, variants in (("compute_to_mesh_multi_cs", ("", " -D USE_INPUT_SHARING")), ("geometry_mesh_ms", ("",)),
                             ("geometry_mesh_multi_ms", ("", " -D USE_INPUT_SHARING")), ("compute_to_mesh_cs", ("",)))
      for variant in variants),
    # Source/HelloWorkGraph/HelloWorkGraph.cpp: CompileFromFile("Shader/Shader.shader", "", "lib_6_8", defines), no
    # other argument (Framework/Shader.cpp); WORK_GRAPH_LAUNCHED_MULTI_DISPATCH_GRID=1 is a build-time choice
    *(Entry("slowliver/LearningWorkGraph", "Source/HelloWorkGraph/Shader/Shader.shader", f"-T lib_6_8{variant}")
      for variant in ("", " -D WORK_GRAPH_LAUNCHED_MULTI_DISPATCH_GRID=1")),
    # tests/shaders: the profile and options are the file name's parts (name.lib_6_8.enable-16bit-types.hlsl)
    Entry("HansKristian-Work/vkd3d-proton", "tests/shaders/workgraph/*.hlsl", "{name}"),
]


def flags_from_name(path: str) -> list[str]:
    """vkd3d-proton's convention: `name.PROFILE[.option...].hlsl` -> `-T PROFILE -option ...`."""
    parts = Path(path).name.split(".")[1:-1]
    return ["-T", parts[0], *(f"-{p}" for p in parts[1:])] if parts else []


def export(mirror: Path, files: list[str], into: Path) -> None:
    """The named files of the mirror's HEAD (and every file beside them: headers) written under `into`."""
    folders = sorted({str(Path(f).parent) for f in files})
    archive = subprocess.run(["git", f"--git-dir={mirror}", "archive", "HEAD", "--", *folders],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "x", "-C", str(into)], input=archive, check=True)
    # headers one folder up (`-I ..`) or at the root
    parents = sorted({str(Path(f).parent.parent) for f in files} - {"."} - set(folders))
    for parent in parents:
        listed = subprocess.run(["git", f"--git-dir={mirror}", "ls-tree", "--name-only", "HEAD", parent + "/"],
                                capture_output=True, text=True, check=True).stdout.split()
        headers = [p for p in listed if p.endswith((".h", ".hlsli", ".hlsl"))]
        if headers:
            archive = subprocess.run(["git", f"--git-dir={mirror}", "archive", "HEAD", "--", *headers],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "x", "-C", str(into)], input=archive, check=True)


def listed_files(mirror: Path, pattern: str) -> list[str]:
    out = subprocess.run(["git", f"--git-dir={mirror}", "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return sorted(p for p in out if fnmatch.fnmatchcase(p, pattern))


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if ": error: " in line or line.startswith(("error:", "wgc: ")):
            return line.strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else "(no message)"


def default_error_groups(stderr: str) -> list[str]:
    """The warning groups of the errors in `stderr` if every error is a DefaultError (`... [WGnnnn] [-Wgroup]`),
    else none."""
    groups: list[str] = []
    for line in stderr.splitlines():
        if ": error: " not in line and not line.startswith("error:"):
            continue
        match = re.search(r"\[WG\d{4}\] \[-W([a-z0-9-]+)\]$", line.rstrip())
        if match is None:
            return []
        if match.group(1) not in groups:
            groups.append(match.group(1))
    return groups


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", default="/work/.mirror", help="folder of OWNER+NAME/repo git mirrors")
    parser.add_argument("--only", default=None, help="only the repositories whose name contains this")
    parser.add_argument("--tree", default=str(ROOT),
                        help="the checkout whose `wgc` compiles (default: this one; another revision's export, "
                             "`git archive REV | tar x -C DIR`, measures before and after)")
    args = parser.parse_args()
    wgc = [sys.executable, "-m", "wgc"]
    env = dict(os.environ, PYTHONPATH=str(Path(args.tree).resolve()), NO_COLOR="1")
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="wgc-corpus-") as scratch:
        for entry in CORPUS:
            if args.only and args.only.lower() not in entry.repo.lower():
                continue
            mirror = Path(args.mirrors) / entry.repo.replace("/", "+") / "repo"
            if not mirror.is_dir():
                rows.append((entry.repo, entry.files, "missing", f"no mirror at {mirror}"))
                continue
            files = listed_files(mirror, entry.files)
            tree = Path(scratch) / entry.repo.replace("/", "+")
            tree.mkdir(exist_ok=True)
            export(mirror, files, tree)
            for file in files:
                path = tree / file
                flags = flags_from_name(file) if entry.flags == "{name}" else shlex.split(entry.flags)
                command = [*wgc, "compile", *flags, path.name, "-o", os.devnull]
                try:
                    done = subprocess.run(command, cwd=path.parent / entry.where, capture_output=True, text=True,
                                          env=env, timeout=300)
                    status = "pass" if done.returncode == 0 else "fail"
                    message = "" if status == "pass" else first_error(done.stderr)
                    groups = default_error_groups(done.stderr) if status == "fail" else []
                    if groups:   # only DefaultErrors: does the file compile with them downgraded?
                        downgrade = [f"-Wno-error={g}" for g in groups]
                        again = subprocess.run([*command, *downgrade], cwd=path.parent / entry.where,
                                               capture_output=True, text=True, env=env, timeout=300)
                        if again.returncode == 0:
                            status, message = "pass*", f"with {' '.join(downgrade)}; by default: {message}"
                except subprocess.TimeoutExpired:
                    status, message = "fail", "timed out after 300 s"
                rows.append((entry.repo, f"{file}  [{' '.join(flags)}]", status, message))
    width = max((len(f"{r[0]}: {r[1]}") for r in rows), default=0)
    for repo, file, status, message in rows:
        print(f"{repo}: {file}".ljust(width), status, message)
    compiled = [r for r in rows if r[2] != "missing"]
    passed = sum(1 for r in compiled if r[2] == "pass")
    downgraded = sum(1 for r in compiled if r[2] == "pass*")
    print(f"\n{passed}/{len(compiled)} pass ({100 * passed / max(1, len(compiled)):.0f} %); {downgraded} more pass "
          "with their DefaultErrors downgraded (pass*)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
