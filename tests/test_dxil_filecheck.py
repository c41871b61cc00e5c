"""`wgc inspect --format dxil` checked with LLVM's FileCheck, in the form of DXC's own tests.

Each case below is a small program with `// RUN:` and `// CHECK:` lines written as DXC's node
metadata tests write theirs (`%wgc` where they say `%dxc`); the CHECK lines match the metadata
as llvm-dis prints DXC's output: `!{i32 1, i32 9}` without spaces, bare `@names`, a parent's
`!N` line before its children's (FileCheck's plain CHECK lines are ordered). The expected values
come from DXC's sources (DxilMetadataHelper's EmitDxilEntryProperties / EmitDxilNodeState /
EmitDxilNodeIOState, DxilModule::EmitDxilMetadata) and the D3D work graphs spec, cited per case.
`benchmarks/dxil_filecheck.py` runs DXC's own tests the same way (they cannot be copied here).

The tests are skipped, saying why, where FileCheck is not installed (Debian: llvm-14-tools).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from wgc import driver

FILECHECK = shutil.which("FileCheck") or "/usr/lib/llvm-14/bin/FileCheck"
pytestmark = pytest.mark.skipif(not Path(FILECHECK).exists(),
                                reason="LLVM's FileCheck is not installed (Debian package llvm-14-tools)")

WAVE_SIZE = r"""
// RUN: %wgc -T lib_6_8 %s | FileCheck %s
struct R { uint v; };

[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(32, 1, 1)]
[WaveSize(32)]
void Broad(DispatchNodeInputRecord<R> r) {}

[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(64, 1, 1)] [WaveSize(16, 64)]
void Coal([MaxRecords(4)] GroupNodeInputRecords<R> r) {}

[Shader("node")] [NodeLaunch("thread")] [WaveSize(8, 64, 32)]
void Thr(ThreadNodeInputRecord<R> r) {}

[Shader("compute")] [NumThreads(4, 1, 1)] [WaveSize(4)]
void Comp() {}

// the library, then its entries sorted by name: Broad, Coal, Comp, Thr
// CHECK: !dx.entryPoints = !{[[LIB:![0-9]+]], [[BROAD:![0-9]+]], [[COAL:![0-9]+]], [[COMP:![0-9]+]], [[THR:![0-9]+]]}
// CHECK: [[LIB]] = !{null, !"", null, null, null}
// CHECK: [[BROAD]] = !{void ()* @Broad, !"Broad", null, null, [[BROAD_P:![0-9]+]]}
// CHECK: [[BROAD_P]] = !{i32 8, i32 15, i32 13, i32 1, i32 23, [[BROAD_WS:![0-9]+]], i32 15,
// CHECK: [[BROAD_WS]] = !{i32 32, i32 0, i32 0}
// CHECK: [[COAL]] = !{void ()* @Coal, !"Coal", null, null, [[COAL_P:![0-9]+]]}
// CHECK: [[COAL_P]] = !{i32 8, i32 15, i32 13, i32 2, i32 23, [[COAL_WS:![0-9]+]], i32 15,
// CHECK: [[COAL_WS]] = !{i32 16, i32 64, i32 0}
// CHECK: [[COMP]] = !{void ()* @Comp, !"Comp", null, null, [[COMP_P:![0-9]+]]}
// CHECK: [[COMP_P]] = !{i32 8, i32 5, i32 4, [[COMP_T:![0-9]+]], i32 23, [[COMP_WS:![0-9]+]], i32 5, [[SPACE:![0-9]+]]}
// CHECK: [[COMP_T]] = !{i32 4, i32 1, i32 1}
// CHECK: [[COMP_WS]] = !{i32 4, i32 0, i32 0}
// CHECK: [[THR]] = !{void ()* @Thr, !"Thr", null, null, [[THR_P:![0-9]+]]}
// CHECK: [[THR_P]] = !{i32 8, i32 15, i32 13, i32 3, i32 23, [[THR_WS:![0-9]+]], i32 15,
// CHECK: [[THR_WS]] = !{i32 8, i32 64, i32 32}
"""
"""D3D spec, [WaveSize]: "This attribute is available for all launch modes" of node shaders;
DXC's EmitDxilNodeState puts it right after NodeLaunchType, kDxilRangedWaveSizeTag 23 with
(min, max, preferred) from SM 6.8; EmitDxilEntryProperties puts a compute shader's after
NumThreads. DxilModule::EmitDxilMetadata sorts a library's entries by function name."""

COMPUTE = r"""
// RUN: %wgc -T cs_6_6 %s | FileCheck %s --check-prefixes=CHECK,SM66
// RUN: %wgc -T cs_6_8 %s | FileCheck %s --check-prefixes=CHECK,SM68
RWStructuredBuffer<uint> Out : register(u1, space2);

[Shader("compute")] [NumThreads(8, 1, 1)] [WaveSize(16)]
void main(uint id : SV_DispatchThreadID) { Out[id] = id; }

// one entry, no library entry before it; the resources are its fourth operand
// CHECK: !dx.shaderModel = !{[[SM:![0-9]+]]}
// CHECK: !dx.resources = !{[[RES:![0-9]+]]}
// CHECK: !dx.entryPoints = !{[[MAIN:![0-9]+]]}
// SM66: [[SM]] = !{!"cs", i32 6, i32 6}
// SM68: [[SM]] = !{!"cs", i32 6, i32 8}
// CHECK: [[RES]] = !{null, [[UAVS:![0-9]+]], null, null}
// CHECK: !{i32 0, %"class.RWStructuredBuffer<uint>"* @Out, !"Out", i32 2, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false,
// no ShaderKind outside a library, no AutoBindingSpace unless -auto-binding-space is given
// CHECK: [[MAIN]] = !{void ()* @main, !"main", null, [[RES]], [[PROPS:![0-9]+]]}
// SM66: [[PROPS]] = !{i32 4, [[THREADS:![0-9]+]], i32 11, [[WS:![0-9]+]]}
// SM68: [[PROPS]] = !{i32 4, [[THREADS:![0-9]+]], i32 23, [[WS:![0-9]+]]}
// CHECK: [[THREADS]] = !{i32 8, i32 1, i32 1}
// SM66: [[WS]] = !{i32 16}
// SM68: [[WS]] = !{i32 16, i32 0, i32 0}
"""
"""DxilModule::EmitDxilMetadata: a non-library module's `!dx.entryPoints` is its one entry
`!{function, name, signatures, resources, properties}`; EmitDxilEntryProperties adds
ShaderKind only "for lib entrys", and writes WaveSize with kDxilWaveSizeTag 11 (min only) below
SM 6.8."""

LIBRARY = r"""
// RUN: %wgc -T lib_6_8 %s | FileCheck %s
struct R { uint v; };
namespace ns {
[Shader("node")] [NodeLaunch("thread")] void Gen(ThreadNodeInputRecord<R> r) {}
}
[Shader("node")] [NodeLaunch("thread")] void zeta(ThreadNodeInputRecord<R> r) {}
[Shader("node")] [NodeLaunch("thread")] void mid(ThreadNodeInputRecord<R> r) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 3, 1)] [NumThreads(4, 1, 1)]
[NodeIsProgramEntry]
void Alpha(DispatchNodeInputRecord<R> r) {}

// sorted by name, byte order: Alpha, mid, ns::Gen, zeta; LLVM quotes only the name holding ':'
// CHECK: declare void @Alpha()
// CHECK: declare void @mid()
// CHECK: declare void @"ns::Gen"()
// CHECK: declare void @zeta()
// CHECK: !dx.entryPoints = !{[[LIB:![0-9]+]], [[A:![0-9]+]], [[M:![0-9]+]], [[N:![0-9]+]], [[Z:![0-9]+]]}
// a parent is numbered before its children, depth first, operands left to right
// CHECK: [[A]] = !{void ()* @Alpha, !"Alpha", null, null, [[A_P:![0-9]+]]}
// CHECK-NEXT: [[A_P]] = !{i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, [[A_ID:![0-9]+]], i32 16, i32 -1, i32 18, [[A_GRID:![0-9]+]], i32 20, [[A_IN:![0-9]+]], i32 4, [[A_T:![0-9]+]], i32 5, [[SPACE:![0-9]+]]}
// CHECK-NEXT: [[A_ID]] = !{!"Alpha", i32 0}
// CHECK-NEXT: [[A_GRID]] = !{i32 2, i32 3, i32 1}
// CHECK-NEXT: [[A_IN]] = !{[[A_IN0:![0-9]+]]}
// CHECK-NEXT: [[A_IN0]] = !{i32 1, i32 97, i32 2, [[REC:![0-9]+]]}
// CHECK-NEXT: [[REC]] = !{i32 0, i32 4, i32 2, i32 4}
// CHECK-NEXT: [[A_T]] = !{i32 4, i32 1, i32 1}
// CHECK-NEXT: [[SPACE]] = !{i32 0}
// every library entry has AutoBindingSpace 0: one uniqued !{i32 0}
// CHECK: [[M]] = !{void ()* @mid, !"mid", null, null, [[M_P:![0-9]+]]}
// CHECK-NEXT: [[M_P]] = !{i32 8, i32 15, i32 13, i32 3, i32 15, {{![0-9]+}}, i32 16, i32 -1, i32 20, {{![0-9]+}}, i32 4, {{![0-9]+}}, i32 5, [[SPACE]]}
// CHECK: [[N]] = !{void ()* @"ns::Gen", !"ns::Gen", null, null, [[N_P:![0-9]+]]}
// CHECK: [[Z]] = !{void ()* @zeta, !"zeta", null, null, [[Z_P:![0-9]+]]}
// CHECK-NEXT: [[Z_P]] = !{i32 8, i32 15, i32 13, i32 3, {{.*}}, i32 5, [[SPACE]]}
"""
"""DxilModule::EmitDxilMetadata sorts entries with `F1->getName() < F2->getName()` and emits
each with `EmitDxilEntryProperties(0, props, 0)`: AutoBindingSpace 0, which
EmitDxilEntryProperties writes as `kDxilAutoBindingSpaceTag (5), !{i32 space}` from SM 6.3."""

PROPOSALS = r"""
// RUN: %wgc -T lib_6_9 %s | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: %wgc -T lib_6_9 -fwork-graph-proposals %s | FileCheck %s --check-prefixes=CHECK,OPTIN
struct R { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root([MaxRecords(4)] [MaxRecordsPerNode(2)] [NodeArraySize(3)] [AllowSparseNodes]
          NodeOutputArray<R> Leaves) {}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaves", 0)] void Leaf(ThreadNodeInputRecord<R> r) {}

// the output's NodeID tuple is the one of Leaf's NodeID (uniqued), numbered with Leaf, sorted first
// CHECK: [[ID:![0-9]+]] = !{!"Leaves", i32 0}
// CHECK: [[ROOT:![0-9]+]] = !{void ()* @Root, !"Root", null, null, [[ROOT_P:![0-9]+]]}
// Root declares no input: no NodeInputs tag
// CHECK-NEXT: [[ROOT_P]] = !{i32 8, i32 15, i32 13, i32 1, i32 15, {{![0-9]+}}, i32 16, i32 -1, i32 18, {{![0-9]+}}, i32 21, [[OUTS:![0-9]+]], i32 4,
// CHECK-NOT: i32 20,
// CHECK: [[OUTS]] = !{[[OUT:![0-9]+]]}
// MaxRecordsPerNode, tag 7, only with the proposal's opt-in
// PLAIN: [[OUT]] = !{i32 1, i32 22, i32 2, {{![0-9]+}}, i32 3, i32 4, i32 5, i32 3, i32 6, i1 true, i32 0, [[ID]]}{{$}}
// OPTIN: [[OUT]] = !{i32 1, i32 22, i32 2, {{![0-9]+}}, i32 3, i32 4, i32 5, i32 3, i32 6, i1 true, i32 0, [[ID]], i32 7, i32 2}
// PLAIN-NOT: wgc.experimental.tags
// OPTIN: !{!"NodeMaxLoopIterations", i32 131072}
"""
"""DXC's EmitDxilNodeIOState writes tag 7 in no released DXC (proposal 0025 is "Under Review",
DXC PR #7177 open), and the loop tags are "i32 TBD" in the loops proposal: the view shows them
only with -fmax-records-per-node / -fwork-graph-loops. EmitDxilNodeState writes NodeInputs only
`if (props.InputNodes.size())`."""

NO_MAX_RECORDS = r"""
// RUN: %wgc -T lib_6_8 %s | FileCheck %s
struct R { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root(NodeOutput<R> Next, [MaxRecords(2)] EmptyNodeOutput Done, [MaxRecordsSharedWith(Done)] EmptyNodeOutput More) {}
[Shader("node")] [NodeLaunch("thread")] void Next(ThreadNodeInputRecord<R> r) {}
[Shader("node")] [NodeLaunch("thread")] void Done() {}
[Shader("node")] [NodeLaunch("thread")] void More() {}

// CHECK: !{[[NEXT:![0-9]+]], [[DONE:![0-9]+]], [[MORE:![0-9]+]]}
// DXC writes MaxRecords 0 for an output without [MaxRecords]; the comment names the spec's rule
// CHECK: [[NEXT]] = !{i32 1, i32 6, i32 2, {{![0-9]+}}, i32 3, i32 0, i32 0, {{![0-9]+}}}  ; output 'Next': no [MaxRecords], MaxRecords 0 as DXC writes it; the spec requires [MaxRecords] or [MaxRecordsSharedWith] on every output, and wgc takes 1
// CHECK: [[DONE]] = !{i32 1, i32 10, i32 3, i32 2, i32 0, {{![0-9]+}}}{{$}}
// a shared budget: MaxRecords 0 and MaxRecordsSharedWith, the owner's output index (1), no comment
// CHECK: [[MORE]] = !{i32 1, i32 10, i32 3, i32 0, i32 4, i32 1, i32 0, {{![0-9]+}}}{{$}}
"""
"""D3D spec, node output attributes: every output, "including empty ones", needs MaxRecords or
MaxRecordsSharedWith; DXC's DXIL path writes `Node.MaxRecords`, 0 when unset (dxc.md §6), while
wgc warns (WG0409) and takes 1, as DXC's SPIR-V does."""

CASES = {"wave_size": WAVE_SIZE, "compute": COMPUTE, "library": LIBRARY, "proposals": PROPOSALS,
         "no_max_records": NO_MAX_RECORDS}


def _runs(source: str) -> list[tuple[driver.Options, list[str]]]:
    """(options, FileCheck arguments) of each `// RUN: %wgc FLAGS %s | FileCheck %s ARGS` line."""
    runs = []
    for line in re.findall(r"^// RUN: (.*)$", source, re.M):
        wgc, _, filecheck = line.partition("|")
        flags = shlex.split(wgc)[1:]
        profile = flags[flags.index("-T") + 1]
        proposals = driver.PROPOSALS if "-fwork-graph-proposals" in flags else ()
        options = driver.Options(input="-", emit="dxil", profile=profile, proposals=proposals)
        runs.append((options, [a for a in shlex.split(filecheck)[2:]]))
    return runs


def _filecheck(source: str, tmp_path: Path) -> list[str]:
    """FileCheck's complaints for every RUN line of `source` (empty: all pass)."""
    checks = tmp_path / "case.hlsl"
    checks.write_text(source)
    failures = []
    for options, arguments in _runs(source):
        result = driver.compile(options, stdin=source.encode())
        assert result.ok, [d.message for d in result.diagnostics]
        text = result.outputs["dxil"]
        check = subprocess.run([FILECHECK, str(checks), *arguments], input=text, capture_output=True)
        if check.returncode:
            failures.append(f"{options.profile} {arguments}:\n{check.stderr.decode()}\n{text.decode()}")
    return failures


@pytest.mark.parametrize("name", sorted(CASES))
def test_dxil_view_passes_filecheck_in_dxcs_form(name: str, tmp_path: Path) -> None:
    failures = _filecheck(CASES[name], tmp_path)
    assert not failures, "\n".join(failures)


def test_filecheck_sees_a_wrong_view(tmp_path: Path) -> None:
    """The harness can fail: a CHECK line that the view does not satisfy is reported."""
    wrong = WAVE_SIZE.replace("!{i32 32, i32 0, i32 0}", "!{i32 32, i32 0, i32 1}")
    assert _filecheck(wrong, tmp_path)


def test_the_round_trip_through_llvm_prints_the_view_unchanged(tmp_path: Path) -> None:
    """llvm-as | llvm-dis (LLVM 14) prints the view as wgc prints it, but for the ModuleID line:
    the text is already in llvm-dis's form."""
    llvm_as, llvm_dis = (shutil.which(t) or f"/usr/lib/llvm-14/bin/{t}" for t in ("llvm-as", "llvm-dis"))
    if not (Path(llvm_as).exists() and Path(llvm_dis).exists()):
        pytest.skip("llvm-as/llvm-dis are not installed (Debian package llvm-14)")
    for source in (WAVE_SIZE, LIBRARY, COMPUTE):
        options, _ = _runs(source)[0]
        text = driver.compile(options, stdin=source.encode()).outputs["dxil"].decode()
        bitcode = subprocess.run([llvm_as, "-o", "-"], input=text.encode(), capture_output=True, check=True).stdout
        again = subprocess.run([llvm_dis, "-o", "-"], input=bitcode, capture_output=True, check=True).stdout.decode()
        assert again.split("\n", 2)[2] == text.split("\n", 1)[1]   # after "; ModuleID", "source_filename"
