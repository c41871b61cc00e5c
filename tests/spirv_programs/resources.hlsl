// Resources: structured, byte-address (typed Load/Store), typed buffers, read-only and storage
// textures, constant buffers, sampling with an explicit LOD, atomics, append/consume counters.
struct Item { float3 position; uint id; };
cbuffer Params : register(b0) { float scale; uint count; };
StructuredBuffer<Item> Items : register(t1);
Texture2D<float4> Albedo : register(t2);
SamplerState Linear : register(s3);
RWByteAddressBuffer Raw : register(u4);
RWBuffer<uint> Typed : register(u5);
RWTexture2D<float4> Target : register(u6);
AppendStructuredBuffer<uint> Appended : register(u7);
RWStructuredBuffer<uint> Counters : register(u9);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(4, 1, 1)]
void Resources(uint i : SV_GroupIndex)
{
    Item item = Items[i];
    float4 texel = Albedo.SampleLevel(Linear, float2(item.position.xy), 0);
    Target[uint2(i, 0)] = texel * scale + Albedo.Load(int3(i, 0, 0));
    Raw.Store<float3>(16 * i, item.position);
    uint word = Raw.Load(0);
    Typed[i] = word + count;
    uint previous;
    InterlockedAdd(Counters[0], 1, previous);
    Raw.InterlockedMax(4, item.id);
    Appended.Append(previous);
}
