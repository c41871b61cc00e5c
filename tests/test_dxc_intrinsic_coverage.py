"""Coverage of DXC's intrinsic table: every global intrinsic and resource/node-object method that
DXC offers compute, library and node shaders (utils/hct/gen_intrin_main.txt in the DirectX Shader
Compiler mirror) is in wgc's sema table (`wgc.sema.intrinsics`, `wgc.sema.methods`), or in an
explicit exclusion below with its reason. The names are compared per DXC namespace (one set of
overloads per name); a name wgc has must also have a SPIR-V lowering
(test_spirv_intrinsics.py::test_every_intrinsic_of_the_sema_table_has_a_lowering).

The mirror is read with `git show`; without it the tests are skipped with a message.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from wgc import types as t
from wgc.sema import methods
from wgc.sema.intrinsics import arity, intrinsic_names

MIRROR = Path("/work/.mirror/microsoft+DirectXShaderCompiler/repo")
TABLE = "utils/hct/gen_intrin_main.txt"

_RAY_TRACING = "ray-tracing stage only (raygeneration/intersection/any-hit/closest-hit/miss/callable)"
_GRAPHICS = "pixel shader only: no render target or rasterized attributes in compute or node shaders"
_TESSELLATION = "hull shader only"
_LEGACY_TEX = "Direct3D 9 sampler intrinsic: DXC refuses it in every SM 6 profile ('deprecated' in its SPIR-V back end)"
_SM_6_10 = "SM 6.10 (min_sm=6.10): after lib_6_9, the newest profile wgc offers"
_LINALG = _SM_6_10 + " linear-algebra (LinAlg) builtin"

EXCLUDED_INTRINSICS = {
    # not valid in compute, library-compute or node shaders
    **{name: _RAY_TRACING for name in (
        "TraceRay", "ReportHit", "CallShader", "IgnoreHit", "AcceptHitAndEndSearch", "DispatchRaysIndex",
        "DispatchRaysDimensions", "WorldRayOrigin", "WorldRayDirection", "ObjectRayOrigin", "ObjectRayDirection",
        "RayTMin", "RayTCurrent", "PrimitiveIndex", "InstanceID", "InstanceIndex", "GeometryIndex", "HitKind",
        "RayFlags", "ObjectToWorld", "WorldToObject", "ObjectToWorld3x4", "WorldToObject3x4", "ObjectToWorld4x3",
        "WorldToObject4x3")},
    **{name: _GRAPHICS for name in (
        "clip", "EvaluateAttributeAtSample", "EvaluateAttributeCentroid", "EvaluateAttributeSnapped",
        "GetAttributeAtVertex", "GetRenderTargetSampleCount", "GetRenderTargetSamplePosition")},
    **{name: _TESSELLATION for name in (
        "Process2DQuadTessFactorsAvg", "Process2DQuadTessFactorsMax", "Process2DQuadTessFactorsMin",
        "ProcessIsolineTessFactors", "ProcessQuadTessFactorsAvg", "ProcessQuadTessFactorsMax",
        "ProcessQuadTessFactorsMin", "ProcessTriTessFactorsAvg", "ProcessTriTessFactorsMax",
        "ProcessTriTessFactorsMin")},
    **{f"tex{d}{v}": _LEGACY_TEX for d in ("1D", "2D", "3D", "CUBE") for v in ("", "bias", "grad", "lod", "proj")},
    # DXC-internal names that HLSL source cannot call
    "AllocateRayQuery": "hidden: DXC's internal helper of RayQuery objects",
    "CreateResourceFromHeap": "hidden: DXC's internal form of ResourceDescriptorHeap[i]",
    "source_mark": "DXC-internal marker, not user-callable",
    # newer than the profiles wgc offers
    "DebugBreak": _SM_6_10, "GetGroupWaveIndex": _SM_6_10, "GetGroupWaveCount": _SM_6_10,
    "ClusterID": _SM_6_10 + ", and ray-tracing stage only",
    "TriangleObjectPositions": _SM_6_10 + ", and ray-tracing stage only",
    **{name: _LINALG for name in (
        "__builtin_LinAlg_FillMatrix", "__builtin_LinAlg_CopyConvertMatrix",
        "__builtin_LinAlg_MatrixLoadFromDescriptor", "__builtin_LinAlg_MatrixLoadFromMemory",
        "__builtin_LinAlg_MatrixLength", "__builtin_LinAlg_MatrixGetCoordinate",
        "__builtin_LinAlg_MatrixGetElement", "__builtin_LinAlg_MatrixSetElement",
        "__builtin_LinAlg_MatrixStoreToDescriptor", "__builtin_LinAlg_MatrixStoreToMemory",
        "__builtin_LinAlg_MatrixQueryAccumulatorLayout", "__builtin_LinAlg_MatrixMatrixMultiply",
        "__builtin_LinAlg_MatrixMatrixMultiplyAccumulate", "__builtin_LinAlg_MatrixAccumulate",
        "__builtin_LinAlg_MatrixVectorMultiply", "__builtin_LinAlg_MatrixVectorMultiplyAdd",
        "__builtin_LinAlg_MatrixAccumulateToDescriptor", "__builtin_LinAlg_MatrixAccumulateToMemory",
        "__builtin_LinAlg_MatrixOuterProduct", "__builtin_LinAlg_Convert",
        "__builtin_LinAlg_VectorAccumulateToDescriptor")},
    # no Vulkan equivalent (DXC's SPIR-V back end refuses them too)
    "abort": "no Vulkan equivalent (DXC: 'no equivalent for abort intrinsic function in Vulkan')",
    # not yet
}
"""Global intrinsics of DXC's `Intrinsics` namespace that wgc does not offer, with the reason."""

_NOT_A_WGC_TYPE = "object type not in wgc"
EXCLUDED_NAMESPACES = {
    "VkIntrinsics": "vk:: namespace functions (buffer pointers, ReadClock, ext_execution_mode): not yet",
    "BufferPointerMethods": "vk::BufferPointer: " + _NOT_A_WGC_TYPE,
    "StreamMethods": "geometry shader streams: geometry stage only",
    "FeedbackTexture2DMethods": "FeedbackTexture2D: sampler feedback has no Vulkan equivalent",
    "FeedbackTexture2DArrayMethods": "FeedbackTexture2DArray: sampler feedback has no Vulkan equivalent",
    "DxHitObjectMethods": "dx::HitObject (SM 6.9 shader execution reordering): ray-generation stage only",
    "DxIntrinsics": "dx::MaybeReorderThread: ray-generation stage only; IsDebuggingEnabled: " + _SM_6_10,
    "VkSubpassInputMethods": "vk::SubpassInput: pixel shader only",
    "VkSubpassInputMSMethods": "vk::SubpassInputMS: pixel shader only",
    **{f"VkSampledTexture{d}Methods": "vk::SampledTexture* (combined image samplers): " + _NOT_A_WGC_TYPE
       + " (not yet)" for d in ("1D", "1DArray", "2D", "2DArray", "2DMS", "2DMSArray", "3D", "CUBE", "CUBEArray")},
}
"""DXC namespaces of methods of object types wgc does not have (or not in these stages)."""

EXCLUDED_METHODS = {
    ("Texture2DMethods", "GatherRaw"): "not yet: SM 6.7 raw gather (no SPIR-V equivalent of a format-less gather)",
    ("Texture2DArrayMethods", "GatherRaw"): "not yet: SM 6.7 raw gather (no SPIR-V equivalent of a format-less gather)",
    **{("RWByteAddressBufferMethods", f"Interlocked{op}64"): "not yet: SM 6.6 64-bit atomics on byte-address "
       "buffers (the buffer is an array of 32-bit words)"
       for op in ("Add", "And", "Or", "Xor", "Min", "Max", "Exchange", "CompareExchange", "CompareStore")},
    **{("RayQueryMethods", f"{which}{name}"): _SM_6_10 + " (clustered geometry)"
       for which in ("Candidate", "Committed") for name in ("ClusterID", "TriangleObjectPositions")},
}
"""Methods of object types wgc has, not offered yet, with the reason."""

# DXC namespace -> a wgc object type that has those methods
_RK, _NK = t.ResourceKind, t.NodeObjectKind
_RECORD = t.FLOAT           # method names do not depend on the record type
_OBJECTS: dict[str, t.Type] = {
    "Texture1DMethods": t.resource(_RK.TEXTURE_1D, t.FLOAT),
    "Texture1DArrayMethods": t.resource(_RK.TEXTURE_1D_ARRAY, t.FLOAT),
    "Texture2DMethods": t.resource(_RK.TEXTURE_2D, t.FLOAT),
    "Texture2DArrayMethods": t.resource(_RK.TEXTURE_2D_ARRAY, t.FLOAT),
    "Texture3DMethods": t.resource(_RK.TEXTURE_3D, t.FLOAT),
    "TextureCUBEMethods": t.resource(_RK.TEXTURE_CUBE, t.FLOAT),
    "TextureCUBEArrayMethods": t.resource(_RK.TEXTURE_CUBE_ARRAY, t.FLOAT),
    "BufferMethods": t.resource(_RK.BUFFER, t.FLOAT),
    "RWBufferMethods": t.resource(_RK.RW_BUFFER, t.FLOAT),
    "RWTexture1DMethods": t.resource(_RK.RW_TEXTURE_1D, t.FLOAT),
    "RWTexture1DArrayMethods": t.resource(_RK.RW_TEXTURE_1D_ARRAY, t.FLOAT),
    "RWTexture2DMethods": t.resource(_RK.RW_TEXTURE_2D, t.FLOAT),
    "RWTexture2DArrayMethods": t.resource(_RK.RW_TEXTURE_2D_ARRAY, t.FLOAT),
    "RWTexture3DMethods": t.resource(_RK.RW_TEXTURE_3D, t.FLOAT),
    "Texture2DMSMethods": t.resource(_RK.TEXTURE_2D_MS, t.FLOAT),
    "Texture2DArrayMSMethods": t.resource(_RK.TEXTURE_2D_MS_ARRAY, t.FLOAT),
    "RWTexture2DMSMethods": t.resource(_RK.RW_TEXTURE_2D_MS, t.FLOAT),
    "RWTexture2DMSArrayMethods": t.resource(_RK.RW_TEXTURE_2D_MS_ARRAY, t.FLOAT),
    "ByteAddressBufferMethods": t.resource(_RK.BYTE_ADDRESS_BUFFER, None),
    "RWByteAddressBufferMethods": t.resource(_RK.RW_BYTE_ADDRESS_BUFFER, None),
    "StructuredBufferMethods": t.resource(_RK.STRUCTURED_BUFFER, t.FLOAT),
    "RWStructuredBufferMethods": t.resource(_RK.RW_STRUCTURED_BUFFER, t.FLOAT),
    "AppendStructuredBufferMethods": t.resource(_RK.APPEND_STRUCTURED_BUFFER, t.FLOAT),
    "ConsumeStructuredBufferMethods": t.resource(_RK.CONSUME_STRUCTURED_BUFFER, t.FLOAT),
    "EmptyNodeInputMethods": t.node_object(_NK.EMPTY_NODE_INPUT, None),
    "RWDispatchNodeInputRecordMethods": t.node_object(_NK.RW_DISPATCH_NODE_INPUT_RECORD, _RECORD),
    "GroupNodeInputRecordsMethods": t.node_object(_NK.GROUP_NODE_INPUT_RECORDS, _RECORD),
    "NodeOutputMethods": t.node_object(_NK.NODE_OUTPUT, _RECORD),
    "EmptyNodeOutputMethods": t.node_object(_NK.EMPTY_NODE_OUTPUT, None),
    "GroupOrThreadNodeOutputRecordsMethods": t.node_object(_NK.GROUP_NODE_OUTPUT_RECORDS, _RECORD),
    "RayQueryMethods": t.ray_query(0),      # method names do not depend on the flags
}

_DECLARATION = re.compile(r"\]\]\s*(\w+)\s*\((.*)\)")


def _dxc_declarations() -> dict[str, dict[str, set[int]]]:
    """DXC's namespaces, the names declared in each and their overloads' argument counts (-1 for a
    variadic one); comment lines skipped."""
    if shutil.which("git") is None or not (MIRROR / ".git").exists() and not (MIRROR / "HEAD").exists():
        pytest.skip(f"the DirectX Shader Compiler mirror is absent ({MIRROR}): cannot read {TABLE}")
    shown = subprocess.run(["git", "-C", str(MIRROR), "show", f"HEAD:{TABLE}"], capture_output=True, text=True)
    if shown.returncode != 0:
        pytest.skip(f"cannot read {TABLE} from the DirectX Shader Compiler mirror: {shown.stderr.strip()}")
    table: dict[str, dict[str, set[int]]] = {}
    namespace = None
    for line in shown.stdout.splitlines():
        opened = re.match(r"namespace (\w+) \{", line)
        if opened:
            namespace = opened.group(1)
            table[namespace] = {}
        elif line.startswith("}"):
            namespace = None
        elif namespace and not line.lstrip().startswith("//") and (found := _DECLARATION.search(line)):
            params = found.group(2).strip()
            count = -1 if "..." in params else len(re.split(r",(?![^<]*>)", params)) if params else 0
            table[namespace].setdefault(found.group(1), set()).add(count)
    assert table.get("Intrinsics"), f"no intrinsics parsed from {TABLE}: has its format changed?"
    return table


def _dxc_table() -> dict[str, set[str]]:
    """DXC's namespaces and the names declared in each."""
    return {namespace: set(names) for namespace, names in _dxc_declarations().items()}


def test_every_dxc_intrinsic_is_in_wgc_or_excluded_with_a_reason():
    dxc = _dxc_table()["Intrinsics"]
    missing = sorted(dxc - intrinsic_names() - EXCLUDED_INTRINSICS.keys())
    assert not missing, f"DXC intrinsics neither in wgc's table nor excluded: {missing}"


def test_the_exclusions_are_current():
    """An excluded intrinsic that wgc now offers, or that DXC no longer has, is a stale entry."""
    table = _dxc_table()
    offered = sorted(EXCLUDED_INTRINSICS.keys() & intrinsic_names())
    assert not offered, f"excluded but offered by wgc: {offered}"
    gone = sorted(EXCLUDED_INTRINSICS.keys() - table["Intrinsics"])
    assert not gone, f"excluded but not in DXC's table: {gone}"
    stale = sorted((ns, name) for ns, name in EXCLUDED_METHODS
                   if name in methods.method_names(_OBJECTS[ns]) or name not in table[ns])
    assert not stale, f"stale method exclusions: {stale}"
    assert EXCLUDED_NAMESPACES.keys() <= table.keys()


def test_every_dxc_method_is_in_wgc_or_excluded_with_a_reason():
    table = _dxc_table()
    unknown = sorted(table.keys() - _OBJECTS.keys() - EXCLUDED_NAMESPACES.keys() - {"Intrinsics"})
    assert not unknown, f"DXC namespaces neither mapped to a wgc type nor excluded: {unknown}"
    missing = sorted((namespace, name) for namespace, type_ in _OBJECTS.items() for name in table[namespace]
                     if name not in methods.method_names(type_) and (namespace, name) not in EXCLUDED_METHODS)
    assert not missing, f"DXC methods neither in wgc's tables nor excluded: {missing}"


def test_every_exclusion_gives_a_reason():
    reasons = [*EXCLUDED_INTRINSICS.values(), *EXCLUDED_NAMESPACES.values(), *EXCLUDED_METHODS.values()]
    assert all(isinstance(r, str) and len(r) > 10 for r in reasons)


def test_wgc_accepts_every_argument_count_dxc_declares():
    """Each overload DXC declares (counted by its number of arguments) has a wgc overload: the
    status, clamp and offset forms of the texture methods, the out-value forms of atomics..."""
    table = _dxc_declarations()
    missing = []
    for name, counts in table["Intrinsics"].items():
        if name in intrinsic_names():
            missing += [("Intrinsics", name, n) for n in counts - {-1} if n not in arity(name, n)]
    for namespace, type_ in _OBJECTS.items():
        for name, counts in table[namespace].items():
            if name in methods.method_names(type_):
                missing += [(namespace, name, n) for n in sorted(counts - set(methods.arity(type_, name)))]
    assert not missing, f"DXC overloads (namespace, name, argument count) wgc lacks: {missing}"
