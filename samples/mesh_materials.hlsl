// A mesh node array selected per material (Work Graphs tier 1.1, -T lib_6_9): the entry node
// sorts each object to the mesh node of its material, NodeID("DrawMaterial", material); every
// member of the array draws the object's triangle fan with its own look (flat, striped, star),
// and one pixel shader shades them all.
//
//   wgc compile samples/mesh_materials.hlsl --split-nodes out/   (AMD's driver: one node per module)
//   wgc inspect --format dot samples/mesh_materials.hlsl

#define MATERIALS 3
#define MAX_VERTICES 64
#define MAX_TRIANGLES 62

struct Object
{
    float4x4 transform;
    uint material;       // 0 .. MATERIALS-1
    uint sides;          // 3 .. 64
};

StructuredBuffer<Object> Objects : register(t0);

struct ObjectRecord
{
    uint object;
};

struct DrawRecord
{
    uint object;
    uint sides;
};

[Shader("node")]
[NodeIsProgramEntry]
[NodeLaunch("coalescing")]
[NumThreads(64, 1, 1)]
void SortByMaterial([MaxRecords(64)] GroupNodeInputRecords<ObjectRecord> objects, uint thread : SV_GroupIndex,
                    [MaxRecords(64)] [NodeID("DrawMaterial")] [NodeArraySize(MATERIALS)]
                    NodeOutputArray<DrawRecord> Draw)
{
    bool mine = thread < objects.Count();
    uint index = mine ? objects[thread].object : 0;
    uint material = mine ? min(Objects[index].material, MATERIALS - 1) : 0;
    ThreadNodeOutputRecords<DrawRecord> draw = Draw[material].GetThreadNodeOutputRecords(mine ? 1 : 0);
    if (mine) {
        draw.Get().object = index;
        draw.Get().sides = clamp(Objects[index].sides, 3, MAX_VERTICES);
    }
    draw.OutputComplete();
}

struct FanVertex
{
    float4 position : SV_Position;
    float3 color : COLOR0;
    float2 uv : TEXCOORD0;
};

struct FanPrimitive
{
    uint material : MATERIAL;
};

FanVertex Corner(uint object, uint sides, uint corner)
{
    float angle = 6.2831853 * corner / sides;
    float2 uv = float2(cos(angle), sin(angle));
    FanVertex v;
    v.position = mul(Objects[object].transform, float4(uv, 0, 1));
    v.uv = uv * 0.5 + 0.5;
    v.color = float3(1, 1, 1);
    return v;
}

// material 0: flat fans
[Shader("node")]
[NodeLaunch("mesh")]
[NodeID("DrawMaterial", 0)]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(64, 1, 1)]
[OutputTopology("triangle")]
void DrawFlat(DispatchNodeInputRecord<DrawRecord> draw, uint thread : SV_GroupIndex,
              out vertices FanVertex verts[MAX_VERTICES], out indices uint3 tris[MAX_TRIANGLES],
              out primitives FanPrimitive prims[MAX_TRIANGLES])
{
    uint sides = draw.Get().sides;
    SetMeshOutputCounts(sides, sides - 2);
    if (thread < sides)
        verts[thread] = Corner(draw.Get().object, sides, thread);
    if (thread < sides - 2) {
        tris[thread] = uint3(0, thread + 1, thread + 2);
        prims[thread].material = 0;
    }
}

// material 1: every other triangle of the fan is dark
[Shader("node")]
[NodeLaunch("mesh")]
[NodeID("DrawMaterial", 1)]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(64, 1, 1)]
[OutputTopology("triangle")]
void DrawStriped(DispatchNodeInputRecord<DrawRecord> draw, uint thread : SV_GroupIndex,
                 out vertices FanVertex verts[MAX_VERTICES], out indices uint3 tris[MAX_TRIANGLES],
                 out primitives FanPrimitive prims[MAX_TRIANGLES])
{
    uint sides = draw.Get().sides;
    SetMeshOutputCounts(sides, sides - 2);
    if (thread < sides) {
        FanVertex v = Corner(draw.Get().object, sides, thread);
        v.color = (thread & 1) ? float3(0.2, 0.2, 0.2) : v.color;
        verts[thread] = v;
    }
    if (thread < sides - 2) {
        tris[thread] = uint3(0, thread + 1, thread + 2);
        prims[thread].material = 1;
    }
}

// material 2: a star: every other corner pulled halfway to the centre
[Shader("node")]
[NodeLaunch("mesh")]
[NodeID("DrawMaterial", 2)]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(64, 1, 1)]
[OutputTopology("triangle")]
void DrawStar(DispatchNodeInputRecord<DrawRecord> draw, uint thread : SV_GroupIndex,
              out vertices FanVertex verts[MAX_VERTICES], out indices uint3 tris[MAX_TRIANGLES],
              out primitives FanPrimitive prims[MAX_TRIANGLES])
{
    uint sides = draw.Get().sides;
    SetMeshOutputCounts(sides, sides - 2);
    if (thread < sides) {
        FanVertex v = Corner(draw.Get().object, sides, thread);
        if (thread & 1) {
            float4 centre = mul(Objects[draw.Get().object].transform, float4(0, 0, 0, 1));
            v.position = lerp(v.position, centre, 0.5);
        }
        verts[thread] = v;
    }
    if (thread < sides - 2) {
        tris[thread] = uint3(0, thread + 1, thread + 2);
        prims[thread].material = 2;
    }
}

[Shader("pixel")]
float4 ShadeMaterial(float4 position : SV_Position, float3 color : COLOR0, float2 uv : TEXCOORD0,
                     nointerpolation uint material : MATERIAL) : SV_Target0
{
    float3 tint = material == 0 ? float3(0.9, 0.5, 0.2) : material == 1 ? float3(0.2, 0.6, 0.9) : float3(1, 1, 1);
    return float4(color * tint * (0.75 + 0.25 * uv.y), 1);
}
