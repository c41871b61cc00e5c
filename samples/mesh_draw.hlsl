// A work graph that draws (Work Graphs tier 1.1, -T lib_6_9): an entry node classifies sprites
// and launches a mesh node per batch; the mesh node emits one quad (two triangles) per sprite and
// the pixel shader in the same library shades them.
//
//   wgc compile samples/mesh_draw.hlsl -o mesh_draw.spv        (Classify, DrawSprites, ShadeSprite)
//   wgc compile samples/mesh_draw.hlsl --split-nodes out/      (one module per entry point)
//   wgc inspect samples/mesh_draw.hlsl

struct Sprite
{
    float2 center;
    float size;
    uint color;          // RGBA8
};

StructuredBuffer<Sprite> Sprites : register(t0);

struct ClassifyRecord
{
    uint first;          // the first sprite of the batch
    uint count;
};

// one mesh-node thread group draws up to 32 sprites: 128 vertices, 64 triangles
struct DrawRecord
{
    uint3 grid : SV_DispatchGrid;
    uint first;
    uint count;
    float scale;
};

[Shader("node")]
[NodeIsProgramEntry]
[NodeLaunch("thread")]
void Classify(ThreadNodeInputRecord<ClassifyRecord> batch,
              [MaxRecords(1)] NodeOutput<DrawRecord> DrawSprites)
{
    uint count = batch.Get().count;
    ThreadNodeOutputRecords<DrawRecord> draw = DrawSprites.GetThreadNodeOutputRecords(count > 0 ? 1 : 0);
    if (count > 0) {
        draw.Get().grid = uint3((count + 31) / 32, 1, 1);
        draw.Get().first = batch.Get().first;
        draw.Get().count = count;
        draw.Get().scale = 1.0;
    }
    draw.OutputComplete();
}

struct SpriteVertex
{
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
    nointerpolation uint color : COLOR0;
};

struct SpritePrimitive
{
    uint sprite : SV_PrimitiveID;
};

[Shader("node")]
[NodeLaunch("mesh")]
[NodeMaxDispatchGrid(1024, 1, 1)]
[NumThreads(32, 1, 1)]
[OutputTopology("triangle")]
void DrawSprites(DispatchNodeInputRecord<DrawRecord> draw,
                 uint thread : SV_GroupThreadID, uint group : SV_GroupID,
                 out vertices SpriteVertex verts[128],
                 out indices uint3 tris[64],
                 out primitives SpritePrimitive prims[64])
{
    uint first = group * 32;
    uint sprites = min(draw.Get().count - first, 32);
    SetMeshOutputCounts(sprites * 4, sprites * 2);
    if (thread < sprites) {
        uint index = draw.Get().first + first + thread;
        Sprite sprite = Sprites[index];
        float extent = sprite.size * draw.Get().scale * 0.5;
        for (uint corner = 0; corner < 4; ++corner) {
            float2 uv = float2(corner & 1, corner >> 1);
            SpriteVertex v;
            v.position = float4(sprite.center + (uv * 2 - 1) * extent, 0, 1);
            v.uv = uv;
            v.color = sprite.color;
            verts[thread * 4 + corner] = v;
        }
        uint base = thread * 4;
        tris[thread * 2] = uint3(base, base + 1, base + 2);
        tris[thread * 2 + 1] = uint3(base + 2, base + 1, base + 3);
        prims[thread * 2].sprite = index;
        prims[thread * 2 + 1].sprite = index;
    }
}

float4 Unpack(uint rgba)
{
    return float4(rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff, rgba >> 24) / 255.0;
}

[Shader("pixel")]
float4 ShadeSprite(float4 position : SV_Position, float2 uv : TEXCOORD0, nointerpolation uint color : COLOR0)
    : SV_Target0
{
    float2 centered = uv * 2 - 1;
    if (dot(centered, centered) > 1)
        discard;                      // round sprites
    return Unpack(color);
}
