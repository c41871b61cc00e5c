//=============================================================================
// loop_particles.hlsl -- particle sub-stepping with a Work Graph Loop.
//
// Demonstrates a loop (Work Graph Loops proposal, hlsl-specs PR #770):
//  * a loop entry node with BOTH [NodeMaxLoopIterations] and
//    [NodeMaxRecordsPerLoopIteration];
//  * a coalescing loop body that feeds records back to the loop entry (next
//    sub-step) or sends them out of the loop;
//  * GetCurrentLoopIterationIndex() inside the loop;
//  * an exit node outside the loop, and an entry node outside the loop that
//    targets only the loop entry.
//
//   EmitParticles (broadcasting, entry)
//     -> IntegrateStep (thread, LOOP ENTRY)  <--+
//          -> ResolveCollisions (coalescing) ---+  (time left: next sub-step)
//               -> WriteParticle (coalescing)      (done: leaves the loop)
//
// Loop membership: IntegrateStep and ResolveCollisions (ResolveCollisions has
// a path back to the entry); EmitParticles and WriteParticle are outside.
// [NodeMaxRecordsPerLoopIteration(1)] is counted per thread for a thread
// launch entry: each IntegrateStep invocation sends one record to
// ResolveCollisions, which sends at most one record back.
// Graph depth is 4 regardless of MAX_SUBSTEPS.
//=============================================================================

#ifndef MAX_SUBSTEPS
#define MAX_SUBSTEPS    16
#endif
#define EMIT_GROUP      64
#define RESOLVE_GROUP   32
#define PLANE_COUNT     4

static const float kMaxStep     = 1.0f / 240.0f;   // longest sub-step (s)
static const float kMinTimeLeft = 1e-5f;
static const float3 kGravity    = float3(0.0f, -9.81f, 0.0f);

struct ParticleState
{
    float3 position;
    float3 velocity;
};

cbuffer SimulationConstants : register(b0)
{
    float4 g_CollisionPlanes[PLANE_COUNT];   // xyz = normal, w = offset (inside: dot >= -w)
    float  g_Drag;
    float  g_Restitution;
    float  g_Turbulence;
    float  g_Pad;
};

StructuredBuffer<ParticleState>   ParticlesIn  : register(t1);
RWStructuredBuffer<ParticleState> ParticlesOut : register(u2);
RWStructuredBuffer<uint>          SubstepCount : register(u3);   // statistics per sub-step

struct EmitRecord
{
    uint  grid : SV_DispatchGrid;   // ceil(particleCount / 64) groups
    uint  firstParticle;
    uint  particleCount;
    float frameTime;                // seconds to simulate this frame
};

struct Particle                     // 32 bytes
{
    float3 position;
    float  timeLeft;
    float3 velocity;
    uint   id;
};

float3 Turbulence(uint id, uint substep)
{
    uint h = (id * 747796405u + substep * 2891336453u) ^ 0x9E3779B9u;
    float3 r = float3(h & 1023u, (h >> 10) & 1023u, (h >> 20) & 1023u) / 1023.0f;
    return (r - 0.5f) * g_Turbulence;
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(4096, 1, 1)]
[NumThreads(EMIT_GROUP, 1, 1)]
void EmitParticles(
    DispatchNodeInputRecord<EmitRecord> input,
    [MaxRecords(EMIT_GROUP)] NodeOutput<Particle> IntegrateStep,
    uint dispatchThreadId : SV_DispatchThreadID)
{
    EmitRecord e = input.Get();
    bool active = dispatchThreadId < e.particleCount;
    uint id = e.firstParticle + dispatchThreadId;

    ThreadNodeOutputRecords<Particle> rec = IntegrateStep.GetThreadNodeOutputRecords(active ? 1 : 0);
    if (active)
    {
        ParticleState s = ParticlesIn[id];
        rec.Get().position = s.position;
        rec.Get().velocity = s.velocity;
        rec.Get().timeLeft = e.frameTime;
        rec.Get().id = id;
    }
    rec.OutputComplete();
}

// Loop entry: advances one particle by one sub-step (semi-implicit Euler).
[Shader("node")]
[NodeLaunch("thread")]
[NodeMaxLoopIterations(MAX_SUBSTEPS)]
[NodeMaxRecordsPerLoopIteration(1)]
void IntegrateStep(
    ThreadNodeInputRecord<Particle> input,
    [MaxRecords(1)] NodeOutput<Particle> ResolveCollisions)
{
    Particle p = input.Get();
    uint substep = GetCurrentLoopIterationIndex();

    // On the last allowed iteration, consume all remaining time at once.
    float dt = (substep + 1 >= MAX_SUBSTEPS) ? p.timeLeft : min(p.timeLeft, kMaxStep);
    float3 acceleration = kGravity - g_Drag * p.velocity + Turbulence(p.id, substep);
    p.velocity += acceleration * dt;
    p.position += p.velocity * dt;
    p.timeLeft -= dt;

    ThreadNodeOutputRecords<Particle> rec = ResolveCollisions.GetThreadNodeOutputRecords(1);
    rec.Get().position = p.position;
    rec.Get().velocity = p.velocity;
    rec.Get().timeLeft = p.timeLeft;
    rec.Get().id = p.id;
    rec.OutputComplete();
}

// Loop body: collides a batch of particles with the planes, then sends each
// particle either back to IntegrateStep (next iteration) or to WriteParticle
// (loop exit). Each particle goes to exactly one of them, hence the shared
// budget of RESOLVE_GROUP records.
[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(RESOLVE_GROUP, 1, 1)]
void ResolveCollisions(
    [MaxRecords(RESOLVE_GROUP)] GroupNodeInputRecords<Particle> particles,
    [MaxRecords(RESOLVE_GROUP)] NodeOutput<Particle> IntegrateStep,
    [MaxRecordsSharedWith(IntegrateStep)] NodeOutput<Particle> WriteParticle,
    uint groupIndex : SV_GroupIndex)
{
    bool active = groupIndex < particles.Count();
    Particle p = (Particle)0;
    if (active)
        p = particles[groupIndex];

    [unroll]
    for (uint i = 0; i < PLANE_COUNT; ++i)
    {
        float3 n = g_CollisionPlanes[i].xyz;
        float depth = dot(p.position, n) + g_CollisionPlanes[i].w;
        if (depth < 0.0f)
        {
            p.position -= n * depth;                      // push back inside
            float vn = dot(p.velocity, n);
            if (vn < 0.0f)
                p.velocity -= (1.0f + g_Restitution) * vn * n;
        }
    }

    // GetCurrentLoopIterationIndex() is the iteration of the loop this node
    // belongs to: IntegrateStep's loop.
    uint substep = GetCurrentLoopIterationIndex();
    bool again = p.timeLeft > kMinTimeLeft && substep + 1 < MAX_SUBSTEPS;
    if (active && groupIndex == 0)
        InterlockedAdd(SubstepCount[substep], particles.Count());

    ThreadNodeOutputRecords<Particle> loopRec =
        IntegrateStep.GetThreadNodeOutputRecords((active && again) ? 1 : 0);
    if (active && again)
    {
        loopRec.Get().position = p.position;
        loopRec.Get().velocity = p.velocity;
        loopRec.Get().timeLeft = p.timeLeft;
        loopRec.Get().id = p.id;
    }
    loopRec.OutputComplete();

    ThreadNodeOutputRecords<Particle> exitRec =
        WriteParticle.GetThreadNodeOutputRecords((active && !again) ? 1 : 0);
    if (active && !again)
    {
        exitRec.Get().position = p.position;
        exitRec.Get().velocity = p.velocity;
        exitRec.Get().timeLeft = 0.0f;
        exitRec.Get().id = p.id;
    }
    exitRec.OutputComplete();
}

// Outside the loop (no path back to IntegrateStep): store the final state.
[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(RESOLVE_GROUP, 1, 1)]
void WriteParticle(
    [MaxRecords(RESOLVE_GROUP)] GroupNodeInputRecords<Particle> particles,
    uint groupIndex : SV_GroupIndex)
{
    if (groupIndex < particles.Count())
    {
        Particle p = particles.Get(groupIndex);
        ParticleState s;
        s.position = p.position;
        s.velocity = p.velocity;
        ParticlesOut[p.id] = s;
    }
}
