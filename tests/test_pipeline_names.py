"""-spirv (dxc's flag for a program written for Vulkan): the pipeline names the nodes, so an output
that matches the node's own name is a warning (WG0535), not the recursion error WG0511.

The D3D spec ([NodeMaxRecursionDepth]): "This attribute is required when the shader is used in such a
way that the NodeID for one of its outputs is the same ID as the node itself. If no output node name
matches the current node name, including via renaming of output NodeID or shader's NodeID, recursion
is not actually happening." A Vulkan application names each node with
VkPipelineShaderStageNodeCreateInfoAMDX::pName (AMD's gpu_draw_dispatch sample names a compute node
`main` "entry" and so feeds the mesh node `main`): whether the output is recursion is the pipeline's
to say, which the compile cannot see.
"""

from __future__ import annotations

import subprocess
import sys

from wgc import driver

SOURCE = b"""\
struct P { uint3 grid : SV_DispatchGrid; float3 color; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NumThreads(1, 1, 1)] [NodeDispatchGrid(1, 1, 1)]
void main(DispatchNodeInputRecord<P> input, [NodeID("main")] [MaxRecords(1)] NodeOutput<P> next)
{
    GroupNodeOutputRecords<P> rec = next.GetGroupNodeOutputRecords(1);
    rec.Get() = input.Get();
    rec.OutputComplete();
}
"""


def codes(**options: object) -> list[tuple[str, str]]:
    result = driver.compile(driver.Options(input="-", **options), stdin=SOURCE)  # type: ignore[arg-type]
    return [(d.code, d.severity.name) for d in result.diagnostics]


def test_without_spirv_the_self_target_is_the_recursion_error() -> None:
    assert codes() == [("WG0511", "ERROR")]


def test_with_spirv_it_is_a_warning_in_the_self_target_group() -> None:
    assert codes(pipeline_names=True) == [("WG0535", "WARNING")]
    result = driver.compile(driver.Options(input="-", pipeline_names=True), stdin=SOURCE)
    assert result.ok and result.diagnostics[0].group == "node-self-target"
    assert "pName" in " ".join(result.diagnostics[0].notes)


def test_the_command_line_flag(tmp_path) -> None:
    path = tmp_path / "cs.hlsl"
    path.write_bytes(SOURCE)
    done = subprocess.run([sys.executable, "-m", "wgc", "compile", "-spirv", "-fspv-target-env=vulkan1.3", "-T",
                           "lib_6_9", str(path), "-o", str(tmp_path / "cs.spv")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "[WG0535] [-Wnode-self-target]" in done.stderr and (tmp_path / "cs.spv").stat().st_size > 0
