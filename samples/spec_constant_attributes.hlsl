// Specialisation constants in work-graph attributes, in the style of GPUOpen's Vulkan mesh-node
// samples (gpu_draw_dispatch): the application sets the sizes at pipeline creation
// (VkSpecializationInfo); wgc checks the graph with the defaults and emits the constants' ids.

[[vk::constant_id(0)]] const uint ThreadGroupSize = 64;
[[vk::constant_id(1)]] const uint MaxDrawsPerGroup = 32;
[[vk::constant_id(2)]] const uint MaxDispatchX = 1024;
[[vk::constant_id(3)]] const uint MaterialCount = 1;
[[vk::constant_id(4)]] const uint FirstMaterial = 1;
[[vk::constant_id(5)]] const uint MaxBatch = 16;
[[vk::constant_id(6)]] const int ChunkGroups = 8;

struct DrawRecord { uint instance; uint material; };
struct ChunkRecord { uint3 grid : SV_DispatchGrid; uint first; };

RWStructuredBuffer<uint> drawCounts : register(u0);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeDispatchGrid(ChunkGroups, 1, 1)]
[NumThreads(ThreadGroupSize, 1, 1)]
void Classify(uint tid : SV_DispatchThreadID,
              [MaxRecords(MaxDrawsPerGroup)] [NodeID("Material", FirstMaterial)] [NodeArraySize(MaterialCount)]
              NodeOutputArray<DrawRecord> Material,
              [MaxRecords(1)] NodeOutput<ChunkRecord> Chunks)
{
    uint material = tid % MaterialCount;
    ThreadNodeOutputRecords<DrawRecord> draw = Material[material].GetThreadNodeOutputRecords(1);
    draw.Get().instance = tid;
    draw.Get().material = material;
    draw.OutputComplete();
    GroupNodeOutputRecords<ChunkRecord> chunk = Chunks.GetGroupNodeOutputRecords(1);
    chunk.Get().grid = uint3(2, 1, 1);
    chunk.Get().first = tid;
    chunk.OutputComplete();
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(MaxDispatchX, 1, 1)]
[NumThreads(ThreadGroupSize, 1, 1)]
void Chunks(DispatchNodeInputRecord<ChunkRecord> chunk, uint tid : SV_DispatchThreadID)
{
    InterlockedAdd(drawCounts[0], chunk.Get().first + tid);
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("Material", FirstMaterial)]
[NumThreads(ThreadGroupSize, 1, 1)]
void Material([MaxRecords(MaxBatch)] GroupNodeInputRecords<DrawRecord> draws, uint gi : SV_GroupIndex)
{
    if (gi < draws.Count())
        InterlockedAdd(drawCounts[1 + draws.Get(gi).material], 1);
}
