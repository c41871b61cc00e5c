// Intrinsics and texture methods from DXC's table (gen_intrin_main.txt): derivatives, packed dot
// products, partitioned wave scans, quad votes, comparison sampling and LOD queries, a
// non-uniform descriptor index.
RWByteAddressBuffer Data : register(u0);
Texture2D<float4> Textures[4] : register(t1);
Texture2D<float> Depth : register(t5);
SamplerState Linear : register(s6);
SamplerComparisonState Shadow : register(s7);

[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Main(uint gi : SV_GroupIndex) {
    float2 uv = Data.Load<float2>(gi * 8);
    float2 s, c;
    sincos(uv, s, c);
    float2 slope = ddx_fine(uv) + ddy(uv) + fwidth(uv);
    uint packed = dot4add_u8packed(gi, 0x01020304u, 7u);
    uint4 peers = WaveMatch(gi & 3);
    uint rank = WaveMultiPrefixCountBits(true, peers);
    bool quad = QuadAny(uv.x > 0.5);
    float shadow = Depth.SampleCmp(Shadow, uv, 0.5) + Depth.SampleCmpLevel(Shadow, uv, 0.5, 1.0);
    float lod = Textures[0].CalculateLevelOfDetail(Linear, uv);
    float4 texel = Textures[NonUniformResourceIndex(gi & 3)].SampleLevel(Linear, uv, lod);
    float4 red = Textures[1].GatherRed(Linear, uv);
    Data.Store(gi * 16, texel + red + float4(s + c + slope, shadow, packed + rank + quad));
}
