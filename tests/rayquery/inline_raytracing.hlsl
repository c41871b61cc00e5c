// Inline ray tracing in a work graph: a broadcasting node casts one ray per thread with a RayQuery
// (SPV_KHR_ray_query in the SPIR-V), walks the candidates itself (alpha-tested triangles and
// procedural spheres), and hands each hit to a thread node that shades it.
//
//   wgc compile samples/inline_raytracing.hlsl -o inline_raytracing.spv

RaytracingAccelerationStructure Scene : register(t0);          // set 0, binding 0
RaytracingAccelerationStructure Occluders[2] : register(t1);   // an array of two: binding 1, 2 descriptors
Texture2D<float> AlphaMask : register(t3);
RWStructuredBuffer<float4> Image : register(u4);

struct RayRecord
{
    uint2 dispatchGrid : SV_DispatchGrid;
    float3 eye;
    float tanHalfFov;
};

struct HitRecord
{
    uint pixel;
    float t;
    float3 normal;
    float2 barycentrics;
    uint instance;
};

static const uint Width = 64;

bool AlphaTest(RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> query)
{
    float2 uv = query.CandidateTriangleBarycentrics();
    return AlphaMask.Load(int3(uv * 255.0, 0)) > 0.5;
}

// a unit sphere around the origin of the candidate AABB's object space
bool HitSphere(RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> query, out float t)
{
    float3 o = query.CandidateObjectRayOrigin();
    float3 d = query.CandidateObjectRayDirection();
    float b = dot(o, d);
    float c = dot(o, o) - 1.0;
    float h = b * b - dot(d, d) * c;
    t = (-b - sqrt(max(h, 0.0))) / dot(d, d);
    return h >= 0.0 && t >= query.RayTMin() && t <= query.CommittedRayT();
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(16, 16, 1)]
[NumThreads(8, 8, 1)]
void CastRays(DispatchNodeInputRecord<RayRecord> camera,
              uint2 pixel : SV_DispatchThreadID,
              [MaxRecords(64)] NodeOutput<HitRecord> Shade)
{
    RayDesc ray;
    ray.Origin = camera.Get().eye;
    ray.Direction = normalize(float3((float2(pixel) / Width * 2.0 - 1.0) * camera.Get().tanHalfFov, 1.0));
    ray.TMin = 0.001;
    ray.TMax = 1000.0;

    RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> query;
    query.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, ray);
    while (query.Proceed())
    {
        switch (query.CandidateType())
        {
        case CANDIDATE_NON_OPAQUE_TRIANGLE:
            if (AlphaTest(query))
                query.CommitNonOpaqueTriangleHit();
            break;
        case CANDIDATE_PROCEDURAL_PRIMITIVE:
        {
            float t;
            if (HitSphere(query, t))
                query.CommitProceduralPrimitiveHit(t);
            break;
        }
        }
    }

    // a shadow ray towards the light through the first occluder set: any hit ends the search
    RayQuery<RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH | RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES> shadow;
    RayDesc toLight = ray;
    toLight.Direction = normalize(float3(1.0, 1.0, -1.0));
    shadow.TraceRayInline(Occluders[pixel.x & 1], RAY_FLAG_FORCE_OPAQUE, 0x01, toLight);
    shadow.Proceed();
    bool lit = shadow.CommittedStatus() == COMMITTED_NOTHING;

    bool hit = query.CommittedStatus() != COMMITTED_NOTHING;
    ThreadNodeOutputRecords<HitRecord> record = Shade.GetThreadNodeOutputRecords(hit ? 1 : 0);
    if (hit)
    {
        float3x4 objectToWorld = query.CommittedObjectToWorld3x4();
        float3 normal = query.CommittedStatus() == COMMITTED_TRIANGLE_HIT
            ? float3(0.0, 0.0, query.CommittedTriangleFrontFace() ? 1.0 : -1.0)
            : query.CommittedObjectRayOrigin() + query.CommittedRayT() * query.CommittedObjectRayDirection();
        record.Get().pixel = pixel.y * Width + pixel.x;
        record.Get().t = query.CommittedRayT();
        record.Get().normal = normalize(mul(objectToWorld, float4(normal, 0.0))) * (lit ? 1.0 : 0.5);
        record.Get().barycentrics = query.CommittedTriangleBarycentrics();
        record.Get().instance = query.CommittedInstanceID();
    }
    record.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void Shade(ThreadNodeInputRecord<HitRecord> hit)
{
    float3 n = hit.Get().normal * 0.5 + 0.5;
    Image[hit.Get().pixel] = float4(n, hit.Get().t);
}
