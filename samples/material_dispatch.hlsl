//=============================================================================
// material_dispatch.hlsl -- deferred material shading with a work graph.
//
// Demonstrates the output-array features on a realistic classification node:
//  * NodeOutputArray with [NodeArraySize], [MaxRecordsPerNode] and
//    [AllowSparseNodes], indexed per thread and checked with IsValid();
//  * [MaxRecordsSharedWith] (the fallback output shares the array's budget);
//  * EmptyNodeOutput with ThreadIncrementOutputCount;
//  * EmptyNodeOutputArray with [UnboundedSparseNodes] and
//    GroupIncrementOutputCount;
//  * coalescing consumers, including the node-array members declared with
//    [NodeID("Material", i)] and EmptyNodeInput consumers.
//
//   ClassifyTiles (broadcasting, entry; one 8x8 tile per thread group)
//     -> Material[1..4]   (coalescing: Opaque, Metal, Foliage, Emissive)
//     -> FallbackMaterial (coalescing: material IDs without a node)
//     -> SkyTiles         (coalescing, EmptyNodeInput: sky statistics)
//     -> DebugOverlay[1]  (coalescing, EmptyNodeInput: debug statistics)
//
// Each tile sends one record to every material present in it, so a material
// node receives at most ONE record per tile: [MaxRecordsPerNode(1)], while the
// array as a whole may receive up to 32 ([MaxRecords(32)]).
// Register numbers are unique across t/u/b so that the default Vulkan mapping
// (binding = register number) never collides.
//=============================================================================

#define TILE_SIZE       8
#define MATERIAL_SLOTS  32          // material IDs are 0..31 (5 bits)
#define MAT_SKY         0           // pixels with material 0 show the sky

#define STAT_SKY_TILES    0
#define STAT_DEBUG_TILES  1

Texture2D<uint>          MaterialIds : register(t0);   // G-buffer: material ID per pixel
Texture2D<float4>        GBufferA    : register(t1);   // rgb = albedo, a = roughness
Texture2D<float4>        GBufferB    : register(t2);   // xyz = normal (encoded 0..1)
RWTexture2D<float4>      SceneColor  : register(u3);
RWStructuredBuffer<uint> Stats       : register(u4);

cbuffer FrameConstants : register(b5)
{
    uint2  g_Resolution;
    uint   g_DebugMode;     // 0 = off, else index into the DebugOverlay node array
    float  g_Time;
    float3 g_SunDirection;  // normalized, pointing towards the sun
    float  g_SunIntensity;
    float3 g_SkyColor;
    float  g_AmbientScale;
};

struct ClassifyRecord
{
    uint2 grid : SV_DispatchGrid;   // (ceil(width / 8), ceil(height / 8))
};

struct TileRecord
{
    uint2 tileOrigin;   // top-left pixel of the tile
    uint  materialId;
};

groupshared uint gs_materialMask;   // bit m set: material m occurs in the tile

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(480, 270, 1)]   // up to 3840 x 2160
[NumThreads(TILE_SIZE, TILE_SIZE, 1)]
void ClassifyTiles(
    DispatchNodeInputRecord<ClassifyRecord> input,
    [MaxRecords(MATERIAL_SLOTS)]
    [MaxRecordsPerNode(1)]
    [NodeArraySize(MATERIAL_SLOTS)]
    [AllowSparseNodes]
    NodeOutputArray<TileRecord> Material,
    [MaxRecordsSharedWith(Material)] NodeOutput<TileRecord> FallbackMaterial,
    [MaxRecords(1)] EmptyNodeOutput SkyTiles,
    [MaxRecords(1)]
    [MaxRecordsPerNode(1)]
    [UnboundedSparseNodes]
    EmptyNodeOutputArray DebugOverlay,
    uint2 groupId : SV_GroupID,
    uint2 groupThreadId : SV_GroupThreadID,
    uint groupIndex : SV_GroupIndex)
{
    uint2 tileOrigin = groupId * TILE_SIZE;
    uint2 pixel = tileOrigin + groupThreadId;
    bool inside = all(pixel < g_Resolution);

    // 1. Which materials occur in this tile?
    if (groupIndex == 0)
        gs_materialMask = 0;
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    if (inside)
        InterlockedOr(gs_materialMask, 1u << (MaterialIds[pixel] % MATERIAL_SLOTS));
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    uint mask = gs_materialMask;

    // 2. Thread m (m < 32) is responsible for material m. Every thread makes
    //    both calls; the index and the count differ per thread. A material
    //    without a node in the graph goes to FallbackMaterial instead, so the
    //    two outputs together never exceed their shared budget of 32.
    uint slot = min(groupIndex, MATERIAL_SLOTS - 1);
    bool present = groupIndex < MATERIAL_SLOTS && groupIndex != MAT_SKY
                && (mask & (1u << slot)) != 0;
    bool hasNode = Material[slot].IsValid();

    uint toMaterial = (present && hasNode) ? 1 : 0;
    ThreadNodeOutputRecords<TileRecord> shade = Material[slot].GetThreadNodeOutputRecords(toMaterial);
    if (toMaterial != 0)
    {
        shade.Get().tileOrigin = tileOrigin;
        shade.Get().materialId = slot;
    }
    shade.OutputComplete();

    uint toFallback = (present && !hasNode) ? 1 : 0;
    ThreadNodeOutputRecords<TileRecord> fallback = FallbackMaterial.GetThreadNodeOutputRecords(toFallback);
    if (toFallback != 0)
    {
        fallback.Get().tileOrigin = tileOrigin;
        fallback.Get().materialId = slot;
    }
    fallback.OutputComplete();

    // 3. Sky tiles are only counted: one empty record per tile with sky.
    bool hasSky = (mask & (1u << MAT_SKY)) != 0;
    SkyTiles.ThreadIncrementOutputCount((groupIndex == 0 && hasSky) ? 1 : 0);

    // 4. Optional debug statistics; g_DebugMode is a constant-buffer value, so
    //    the array index and the count are uniform across the group.
    bool debugOn = g_DebugMode != 0 && DebugOverlay[g_DebugMode].IsValid();
    DebugOverlay[g_DebugMode].GroupIncrementOutputCount(debugOn ? 1 : 0);
}

// ---------------------------------------------------------------- shading

float3 DecodeNormal(float3 encoded)
{
    return normalize(encoded * 2.0f - 1.0f);
}

// Shades the pixels of one tile that use `materialId`. `kind` selects the
// BRDF flavour of the calling node.
void ShadeTile(TileRecord tile, uint groupIndex, uint kind)
{
    uint2 pixel = tile.tileOrigin + uint2(groupIndex % TILE_SIZE, groupIndex / TILE_SIZE);
    if (any(pixel >= g_Resolution) || MaterialIds[pixel] != tile.materialId)
        return;

    float4 a = GBufferA[pixel];
    float3 albedo = a.rgb;
    float roughness = a.a;
    float3 n = DecodeNormal(GBufferB[pixel].xyz);
    float ndotl = saturate(dot(n, g_SunDirection));
    float3 ambient = g_SkyColor * g_AmbientScale * (0.5f + 0.5f * n.y);

    float3 color;
    switch (kind)
    {
    case 1:     // metal: tinted, sharper highlight
        color = albedo * (ndotl * g_SunIntensity) * lerp(1.5f, 0.5f, roughness) + ambient * albedo;
        break;
    case 2:     // foliage: wrap lighting for some subsurface look
        color = albedo * saturate((dot(n, g_SunDirection) + 0.4f) / 1.4f) * g_SunIntensity + ambient * albedo;
        break;
    case 3:     // emissive: pulses, ignores lighting
        color = albedo * (2.0f + sin(g_Time * 3.0f));
        break;
    default:    // opaque Lambert
        color = albedo * (ndotl * g_SunIntensity + ambient);
        break;
    }
    SceneColor[pixel] = float4(color, 1.0f);
}

// All members of the node array "Material" have the same launch mode and the
// same input record type. Each group shades up to 4 tiles.

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("Material", 1)]
[NumThreads(TILE_SIZE * TILE_SIZE, 1, 1)]
void MaterialOpaque(
    [MaxRecords(4)] GroupNodeInputRecords<TileRecord> tiles,
    uint groupIndex : SV_GroupIndex)
{
    for (uint t = 0; t < tiles.Count(); ++t)
        ShadeTile(tiles[t], groupIndex, 0);
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("Material", 2)]
[NumThreads(TILE_SIZE * TILE_SIZE, 1, 1)]
void MaterialMetal(
    [MaxRecords(4)] GroupNodeInputRecords<TileRecord> tiles,
    uint groupIndex : SV_GroupIndex)
{
    for (uint t = 0; t < tiles.Count(); ++t)
        ShadeTile(tiles[t], groupIndex, 1);
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("Material", 3)]
[NumThreads(TILE_SIZE * TILE_SIZE, 1, 1)]
void MaterialFoliage(
    [MaxRecords(4)] GroupNodeInputRecords<TileRecord> tiles,
    uint groupIndex : SV_GroupIndex)
{
    for (uint t = 0; t < tiles.Count(); ++t)
        ShadeTile(tiles[t], groupIndex, 2);
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("Material", 4)]
[NumThreads(TILE_SIZE * TILE_SIZE, 1, 1)]
void MaterialEmissive(
    [MaxRecords(4)] GroupNodeInputRecords<TileRecord> tiles,
    uint groupIndex : SV_GroupIndex)
{
    for (uint t = 0; t < tiles.Count(); ++t)
        ShadeTile(tiles[t], groupIndex, 3);
}

// Material IDs that have no node in the graph: paint them magenta so that
// missing materials are easy to spot.
[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(TILE_SIZE * TILE_SIZE, 1, 1)]
void FallbackMaterial(
    [MaxRecords(4)] GroupNodeInputRecords<TileRecord> tiles,
    uint groupIndex : SV_GroupIndex)
{
    for (uint t = 0; t < tiles.Count(); ++t)
    {
        TileRecord tile = tiles.Get(t);
        uint2 pixel = tile.tileOrigin + uint2(groupIndex % TILE_SIZE, groupIndex / TILE_SIZE);
        if (all(pixel < g_Resolution) && MaterialIds[pixel] == tile.materialId)
            SceneColor[pixel] = float4(1.0f, 0.0f, 1.0f, 1.0f);
    }
}

// Empty records carry no data: the consumers only count them.
[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(1, 1, 1)]
void SkyTiles([MaxRecords(64)] EmptyNodeInput tiles)
{
    InterlockedAdd(Stats[STAT_SKY_TILES], tiles.Count());
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("DebugOverlay", 1)]
[NumThreads(1, 1, 1)]
void DebugCountTiles([MaxRecords(64)] EmptyNodeInput tiles)
{
    InterlockedAdd(Stats[STAT_DEBUG_TILES], tiles.Count());
}
