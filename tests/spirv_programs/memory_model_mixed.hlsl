// One node-memory barrier next to a globallycoherent buffer, a plain buffer, a storage image and
// groupshared memory: the module uses the Vulkan memory model, so every access states its
// availability and visibility (tests/test_spirv_memory_model.py checks them one by one).
struct Rec { uint v; };
globallycoherent RWStructuredBuffer<uint> Coherent : register(u0);
RWStructuredBuffer<uint> Plain : register(u1);
globallycoherent RWTexture2D<float> CoherentImage : register(u2);
RWTexture2D<float> PlainImage : register(u3);
groupshared uint Shared[64];

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(64, 1, 1)]
void Producer(uint i : SV_GroupIndex, [MaxRecords(1)] [AllowSparseNodes] NodeOutput<Rec> Out)
{
    Shared[i] = Coherent[i];
    Plain[i] = Shared[i];
    CoherentImage[uint2(i, 0)] = PlainImage[uint2(i, 0)];
    Barrier(GROUP_SHARED_MEMORY | NODE_OUTPUT_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    Coherent[i] = Shared[63 - i];
    PlainImage[uint2(i, 1)] = CoherentImage[uint2(i, 1)];
    GroupNodeOutputRecords<Rec> r = Out.GetGroupNodeOutputRecords(1);
    r.Get().v = Plain[0];
    Barrier(r, GROUP_SCOPE | GROUP_SYNC);
    r.OutputComplete();
}
