// Intrinsics by family: GLSL.std.450 math per kind, mul, dot, bit operations, wave operations.
RWStructuredBuffer<float4> F : register(u0);
RWStructuredBuffer<int> I : register(u1);
RWStructuredBuffer<uint> U : register(u2);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(4, 1, 1)]
void Intrinsics(uint t : SV_GroupIndex)
{
    float4 v = F[0];
    float4x4 m = float4x4(F[1], F[2], F[3], F[4]);
    int a = I[0];
    uint u = U[0];
    F[5] = mul(m, v) + mul(v, m);                       // OpVectorTimesMatrix, OpMatrixTimesVector
    F[6] = float4(dot(v, v), length(v), sqrt(v.x), fmod(v.y, v.z));
    F[7] = clamp(v, 0, 1) + lerp(v, v * 2, 0.5) + mad(v, v, v);
    I[2] = abs(a) + min(a, 3) + max(a, -3) + sign(a);    // SAbs, SMin, SMax, SSign
    U[1] = min(u, 3u) + max(u, 5u) + countbits(u) + firstbithigh(u) + reversebits(u);
    I[3] = firstbithigh(a);                              // FindSMsb
    U[2] = WaveActiveSum(u) + WaveReadLaneFirst(u) + (WaveActiveAnyTrue(u > 2) ? 1 : 0);
    U[3] = WavePrefixSum(u) + WaveGetLaneIndex();
}
