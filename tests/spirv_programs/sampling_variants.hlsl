// Texture method overloads from DXC's table: MinLod clamps, out status, comparison sampling with
// bias/gradients, per-component and per-texel-offset gathers, cube maps without offsets, and
// RWByteAddressBuffer float atomics.
Texture2D<float4> Color : register(t0);
Texture2DArray<float> Shadows : register(t1);
TextureCube<float4> Sky : register(t2);
SamplerState Linear : register(s3);
SamplerComparisonState Compare : register(s4);
RWByteAddressBuffer Out : register(u5);

[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 2, 1)] [NumThreads(8, 8, 1)]
void Main(uint2 id : SV_DispatchThreadID) {
    float2 uv = float2(id) / 64.0;
    uint status;
    float4 color = Color.Sample(Linear, uv, int2(1, 0), 2.0, status);
    bool resident = CheckAccessFullyMapped(status);
    float shadow = Shadows.SampleCmpBias(Compare, float3(uv, 1), 0.5, 0.25)
        + Shadows.SampleCmpGrad(Compare, float3(uv, 0), 0.5, uv, uv, int2(0, 1), 1.0);
    float4 alpha = Color.GatherAlpha(Linear, uv, int2(0, 0), int2(1, 0), int2(0, 1), int2(1, 1));
    float4 sky = Sky.SampleLevel(Linear, float3(uv, 1), 0.0, status) + Sky.GatherCmpGreen(Compare, float3(uv, 1), 0.5).xxxx;
    float previous;
    Out.InterlockedCompareExchangeFloatBitwise(0, 0.0, shadow, previous);
    Out.Store((id.y * 16 + id.x) * 16 + 16, color + alpha + sky + previous + (resident ? 1 : 0));
}
