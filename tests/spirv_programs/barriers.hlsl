// Every Barrier form in a GLSL450 module (no node memory): flags, UAV objects, legacy barriers.
RWStructuredBuffer<uint> Buf : register(u0);
RWTexture2D<float> Tex : register(u1);
groupshared uint Shared[8];

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(8, 1, 1)]
void Barriers(uint i : SV_GroupIndex)
{
    Shared[i] = i;
    Buf[i] = i;
    Tex[uint2(i, 0)] = 1.0;
    Barrier(UAV_MEMORY, DEVICE_SCOPE);                                   // 1 (Device), AcqRel|Uniform|Image = 2120
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);              // 2 2 (Workgroup), AcqRel|Workgroup = 264
    Barrier(UAV_MEMORY | GROUP_SHARED_MEMORY, GROUP_SCOPE);              // 2, 2376
    Barrier(Buf, DEVICE_SCOPE | GROUP_SYNC);                             // 2 1, AcqRel|Uniform = 72
    Barrier(Tex, GROUP_SCOPE);                                           // 2, AcqRel|Image = 2056
    Barrier(0, GROUP_SYNC);                                              // 2 4 (Invocation), 0
    GroupMemoryBarrierWithGroupSync();                                   // 2 2, 264
    DeviceMemoryBarrier();                                               // 1, 2120
    AllMemoryBarrierWithGroupSync();                                     // 2 1, 2376
    Buf[i] = Shared[7 - i];
}
