//=============================================================================
// recursive_tree.hlsl -- quadtree terrain LOD selection with recursion.
//
// Demonstrates:
//  * a self-recursive thread launch node ([NodeMaxRecursionDepth]) whose output
//    targets its own node ID, guarded by GetRemainingRecursionLevels();
//  * [NodeShareInputOf]: LeafStatistics receives exactly the records sent to
//    EmitLeaf, without any producer targeting it.
//
//   CullRoots (broadcasting, entry: 4x4 root tiles)
//     -> TraverseTile (thread, recursive: up to 4 children per tile)
//          -> TraverseTile ...            (one level deeper)
//          -> EmitLeaf (coalescing)       appends visible leaf tiles
//             == LeafStatistics           (shares EmitLeaf's input)
//
// NodeShareInputOf rules kept here: LeafStatistics is targeted by no node,
// is not recursive, is not a graph entry (the shared input is its only input)
// and has a read-only input; EmitLeaf, whose input is shared, is not recursive
// and is fed only by TraverseTile. Both declare the same input (same record
// type, same launch mode, same MaxRecords).
// Budget of TraverseTile (thread launch, <= 8 records and <= 128 bytes): the
// EmitLeaf output counts twice because two nodes consume it:
// 4 x 12 B (TileNode) + 2 x 1 x 16 B (LeafRecord) = 80 B in 4 + 2 = 6 records.
// Graph depth: 1 + MAX_LEVELS + 1 = 10 (<= 32 even counting recursion).
//=============================================================================

#define ROOT_TILES      4           // 4 x 4 root tiles
#define MAX_LEVELS      8           // NodeMaxRecursionDepth of TraverseTile
#define LEAF_GROUP      32

cbuffer TerrainConstants : register(b0)
{
    float4 g_FrustumPlanes[6];      // xyz = inward normal, w = distance
    float3 g_CameraPosition;
    float  g_TerrainSize;           // world size of the whole terrain (square)
    float  g_MaxHeight;             // terrain height range is [0, g_MaxHeight]
    float  g_LodFactor;             // split while distance < tileSize * factor
};

RWStructuredBuffer<uint4> VisibleTiles   : register(u1);   // (level, x, y, 0)
RWByteAddressBuffer       VisibleCount   : register(u2);   // uint at offset 0
RWStructuredBuffer<uint>  LevelHistogram : register(u3);   // tiles per level

struct TileNode
{
    uint  level;        // 0 = root tile
    uint2 coord;        // tile coordinate within its level
};

struct LeafRecord
{
    uint  level;
    uint2 coord;
    float cameraDistance;   // camera distance of the tile centre
};

float TileWorldSize(uint level)
{
    return g_TerrainSize / (float)(ROOT_TILES << level);
}

bool TileVisible(TileNode tile)
{
    float size = TileWorldSize(tile.level);
    float3 boxMin = float3(tile.coord.x * size, 0.0f, tile.coord.y * size);
    float3 boxMax = boxMin + float3(size, g_MaxHeight, size);
    [unroll]
    for (uint i = 0; i < 6; ++i)
    {
        float4 plane = g_FrustumPlanes[i];
        // the box corner furthest along the plane normal
        float3 p = float3(plane.x >= 0 ? boxMax.x : boxMin.x,
                          plane.y >= 0 ? boxMax.y : boxMin.y,
                          plane.z >= 0 ? boxMax.z : boxMin.z);
        if (dot(plane.xyz, p) + plane.w < 0.0f)
            return false;
    }
    return true;
}

float TileDistance(TileNode tile)
{
    float size = TileWorldSize(tile.level);
    float3 centre = float3((tile.coord.x + 0.5f) * size, 0.5f * g_MaxHeight, (tile.coord.y + 0.5f) * size);
    return distance(centre, g_CameraPosition);
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(ROOT_TILES, ROOT_TILES, 1)]
void CullRoots(
    [MaxRecords(ROOT_TILES * ROOT_TILES)] NodeOutput<TileNode> TraverseTile,
    uint2 groupThreadId : SV_GroupThreadID)
{
    TileNode root;
    root.level = 0;
    root.coord = groupThreadId;
    bool visible = TileVisible(root);

    ThreadNodeOutputRecords<TileNode> rec = TraverseTile.GetThreadNodeOutputRecords(visible ? 1 : 0);
    if (visible)
    {
        rec.Get().level = root.level;
        rec.Get().coord = root.coord;
    }
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeMaxRecursionDepth(MAX_LEVELS)]
void TraverseTile(
    ThreadNodeInputRecord<TileNode> input,
    [MaxRecords(4)] [NodeID("TraverseTile")] NodeOutput<TileNode> children,
    [MaxRecords(1)] NodeOutput<LeafRecord> EmitLeaf)
{
    TileNode tile = input.Get();
    float dist = TileDistance(tile);

    // Refine while the tile is too coarse for its distance and recursion
    // levels are left (GetRemainingRecursionLevels() is 0 at the deepest level).
    bool refine = GetRemainingRecursionLevels() > 0
               && dist < TileWorldSize(tile.level) * g_LodFactor;

    // Visible children only: a bit per child (x + 2y).
    uint childMask = 0;
    if (refine)
    {
        [unroll]
        for (uint c = 0; c < 4; ++c)
        {
            TileNode child;
            child.level = tile.level + 1;
            child.coord = tile.coord * 2 + uint2(c & 1, c >> 1);
            if (TileVisible(child))
                childMask |= 1u << c;
        }
    }

    uint childCount = countbits(childMask);
    ThreadNodeOutputRecords<TileNode> next = children.GetThreadNodeOutputRecords(childCount);
    uint written = 0;
    for (uint c2 = 0; c2 < 4; ++c2)
    {
        if ((childMask & (1u << c2)) != 0)
        {
            next[written].level = tile.level + 1;
            next[written].coord = tile.coord * 2 + uint2(c2 & 1, c2 >> 1);
            ++written;
        }
    }
    next.OutputComplete();

    // Not refined: this tile is drawn at its own level.
    ThreadNodeOutputRecords<LeafRecord> leaf = EmitLeaf.GetThreadNodeOutputRecords(refine ? 0 : 1);
    if (!refine)
    {
        leaf.Get().level = tile.level;
        leaf.Get().coord = tile.coord;
        leaf.Get().cameraDistance = dist;
    }
    leaf.OutputComplete();
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(LEAF_GROUP, 1, 1)]
void EmitLeaf(
    [MaxRecords(LEAF_GROUP)] GroupNodeInputRecords<LeafRecord> leaves,
    uint groupIndex : SV_GroupIndex)
{
    // Wave-aggregated append into VisibleTiles.
    bool active = groupIndex < leaves.Count();
    uint waveCount = WaveActiveCountBits(active);
    uint base = 0;
    if (WaveIsFirstLane())
        VisibleCount.InterlockedAdd(0, waveCount, base);
    base = WaveReadLaneFirst(base);
    if (active)
    {
        LeafRecord leaf = leaves[groupIndex];
        VisibleTiles[base + WavePrefixCountBits(active)] = uint4(leaf.level, leaf.coord, 0);
    }
}

// Same input as EmitLeaf: every record sent to EmitLeaf is also seen here.
[Shader("node")]
[NodeLaunch("coalescing")]
[NodeShareInputOf("EmitLeaf")]
[NumThreads(LEAF_GROUP, 1, 1)]
void LeafStatistics(
    [MaxRecords(LEAF_GROUP)] GroupNodeInputRecords<LeafRecord> leaves,
    uint groupIndex : SV_GroupIndex)
{
    if (groupIndex < leaves.Count())
        InterlockedAdd(LevelHistogram[leaves[groupIndex].level], 1);
}
