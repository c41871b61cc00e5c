//=============================================================================
// syntax_tour.hlsl -- a tour of the HLSL 2021 syntax wgc parses, inside a
// small but complete and valid work graph. The parser tests rely on it.
//
// Needs `-I samples/include` (for `#include <records.hlsli>`), e.g.
//     wgc -I samples/include samples/syntax_tour.hlsl
//
// Graph:
//   TourEntry (broadcasting, entry, [NodeMaxDispatchGrid] + SV_DispatchGrid)
//     -> TourShared       (broadcasting; RWDispatchNodeInputRecord,
//                          FinishedCrossGroupSharing; not an entry node)
//     -> TourThread       (thread; RWThreadNodeInputRecord; self-recursive)
//          -> TourThread  (recursion, via [NodeID("TourThread")])
//          -> TourCoalesce[2]
//     -> TourCoalesce[2]  (coalescing; function TourCoalesceNode with
//                          [NodeID("TourCoalesce", 2)])
//     -> TourEmpty        (coalescing; EmptyNodeInput)
//     -> TourOptional     (no such node: the output is [AllowSparseNodes])
//
// Covered: preprocessor (includes, #pragma once and guards in the headers,
// object-like / function-like / variadic macros, #if/#ifdef/#ifndef/#elif/
// #else/#endif with defined()), typedef, enum, enum class, namespace, structs
// with member functions and inheritance, resource and global declarations,
// templates, all statements and statement attributes, all operators, literal
// forms, and every node object method.
// `discard` is only legal in pixel shaders: it appears in
// tourPixelOnlyHelper, which no node calls.
// Register numbers are unique across b/t/s/u in each space so that the
// default Vulkan mapping (binding = register number) never collides.
//=============================================================================

#include "include/common.hlsli"
#include <records.hlsli>
#include "include/common.hlsli"     // again: a no-op thanks to #pragma once

// ------------------------------------------------------------ preprocessor

#define TOUR_GROUP_X        32
#define TOUR_GROUP_Y        1
#define TOUR_GROUP_Z        1
#define TOUR_MAX_GROUPS     64
#define TOUR_SHARED_GROUPS  4

#ifndef TOUR_RECURSION
#define TOUR_RECURSION      3
#endif

#define TOUR_LEVEL          2

#if defined(TOUR_LEVEL) && TOUR_LEVEL >= 2
#   define TOUR_SCALE       2.0f
#elif defined(TOUR_LEVEL)
#   define TOUR_SCALE       1.0f
#else
#   error "TOUR_LEVEL must be defined"
#endif

#ifdef WGC_SAMPLES_COMMON_HLSLI
#   define TOUR_HAS_COMMON  1
#else
#   define TOUR_HAS_COMMON  0
#endif

#if !defined(WGC_SAMPLES_RECORDS_HLSLI)
#   error "records.hlsli was not included"
#endif

#define TOUR_SQR(x)             ((x) * (x))
#define TOUR_LERP(a, b, t)      ((a) + ((b) - (a)) * (t))
#define TOUR_SUM(...)           tour::sum3(__VA_ARGS__)

// ------------------------------------------------------------ types

typedef float3               Color3;
typedef vector<float, 3>     Vec3;
typedef matrix<float, 4, 4>  Mat44;

enum TourChannel { TOUR_RED, TOUR_GREEN = 2, TOUR_BLUE };
enum class TourMode { Off, Sum = 3, Max };

// Consumed as `RWDispatchNodeInputRecord<SharedRecord>` by
// TourShared, which calls FinishedCrossGroupSharing(); the producer (TourEntry)
// outputs the very same struct, so both sides carry the struct attribute.
struct [NodeTrackRWInputSharing] SharedRecord
{
    uint grid : SV_DispatchGrid;    // written by the producer only
    uint total;                     // accumulated by every group (InterlockedAdd)
    uint groupsDone;
};

struct Ray
{
    float3 origin;
    float3 dir;

    float3 at(float t) { return origin + dir * t; }
    float  lengthSq()   { return dot(dir, dir); }
};

struct TimedRay : Ray              // single inheritance (methods are inherited)
{
    float tMax;
};

namespace tour
{
    struct Range
    {
        uint lo;
        uint hi;

        bool contains(uint v) { return v >= lo && v < hi; }
    };

    uint  clampIndex(uint i, uint n)        { return min(i, n - 1); }
    float sum3(float a, float b, float c)   { return a + b + c; }
}

// ------------------------------------------------------------ globals and resources

static const float kTourPi    = 3.14159265f;
static const uint  kTourMask  = 0xFFu;
static const uint  kTourBig   = (uint)(64ul);
static const float kTourThree = (float)3.l;
static uint        s_tourCalls = 0;            // static global: private to each thread

groupshared uint  gs_tourSum;
groupshared float gs_tourWeights[TOUR_GROUP_X];

GlobalRootSignature tourGlobalRS =
{
    "DescriptorTable(CBV(b0, numDescriptors = 2), SRV(t2, numDescriptors = 5), UAV(u8)), DescriptorTable(Sampler(s7)), UAV(u0, space = 1)"
};

LocalRootSignature tourLocalRS =
{
    "RootConstants(num32BitConstants = 4, b10)"
};

cbuffer TourCB : register(b0)
{
    row_major    float4x4 g_TourWorld;
    column_major float3x3 g_TourNormalMat;
    uint                  g_TourMode;
    float                 g_TourScale;
};

struct TourConstants { float4 tint; uint seed; uint3 pad; };
ConstantBuffer<TourConstants> g_TourConsts : register(b1);

struct TourPush { uint frame; uint flags; };
[[vk::push_constant]] ConstantBuffer<TourPush> g_TourPush;

tbuffer TourTB : register(t2)
{
    float4 g_TourPalette[4];
};

Texture2D<float4>                   g_TourTex      : register(t3);
Buffer<uint>                        g_TourIndices  : register(t4);
StructuredBuffer<vector<float, 2>>  g_TourPairs    : register(t5);
ByteAddressBuffer                   g_TourRaw      : register(t6);
SamplerState                        g_TourSampler  : register(s7);
globallycoherent RWStructuredBuffer<uint> g_TourCounters : register(u8);

[[vk::binding(0, 1)]]
RWStructuredBuffer<float4> g_TourOut : register(u0, space1);

// ------------------------------------------------------------ functions

template<typename T>
T twice(T v) { return v + v; }

// Default argument.
float tourFade(float x, float k = 0.5f)
{
    return saturate(x * k);
}

// in / out / inout / uniform parameter qualifiers.
void tourSplit(in uint v, out uint hi, out uint lo)
{
    hi = v >> 16;
    lo = v & 0xFFFFu;
}

void tourBump(inout uint counter, uniform uint amount)
{
    counter += amount;
}

// A parameter semantic on a plain helper function (legal, ignored here).
float3 tourTransform(float3 position : POSITION)
{
    float4 p = mul(g_TourWorld, float4(position, 1.0f));
    return p.xyz / p.w;
}

// Never called from a node: `discard` is only legal in pixel shaders.
void tourPixelOnlyHelper(float alpha)
{
    if (alpha < 0.5f)
        discard;
}

// Operators: precedence, every assignment operator, ternary, comma.
uint tourOperators(uint a, uint b, int c, int d)
{
    uint x = a + b * 3u - (a >> 1) % 7u << 2 & kTourMask | b ^ 0x0Fu;
    bool logic = a < b && c >= d || !(a == b) && c != d;
    int neg = -c + +d - ~c;
    uint inc = a++ + ++b;                   // postfix and prefix
    inc -= b-- - --a;

    uint y = a;
    y = x;      y += b;     y -= 1u;        y *= 3u;    y /= 2u;    y %= 1000u;
    y <<= 2;    y >>= 1;    y &= 0xFFFFu;   y |= 0x10u; y ^= 0x5u;

    uint t = (a > b) ? a : b;
    uint u = (y++, y + t);                  // comma expression
    return logic ? u + inc + (uint)neg : y;
}

// Expressions: casts, constructors, swizzles, indexing, literals, sizeof and
// the type-name-vs-identifier corner cases.
float4 tourExpressions(uint a, int c, int d)
{
    // casts and constructors
    float  f      = (float)a;
    float3 splat  = (float3)f;
    Ray    r0     = (Ray)0;
    float3 f3     = float3(1.0f, 2.0f, 3.0f);
    Vec3   v3     = Vec3(f, f, f);
    Color3 col    = (Color3)0.25f;
    Mat44  m      = g_TourWorld;

    // swizzles: read and write
    float2 rd = f3.yz;
    f3.zx = f3.xz;
    splat.xy = rd.yx;
    col.rgb = col.bgr;

    // indexing
    float arr[3] = { 1.0f, 2.0f, 3.0f };
    arr[1] = f3[2];
    float4 row = m[1];
    float  elem = m[2][3] + m._m00 + g_TourNormalMat._11;
    uint3  triple = { 1, 2, 3 };
    float4 pairs[2] = { 1, 2, 3, 4, 5, 6, 7, 8 };

    // literals
    uint  hex = 0xFFu;      uint  dec = 10u;    int   lng = (int)7l;    uint ulng = (uint)5ul;
    float fl  = 1.5f;       half  hf  = 2.0h;   float sci = 1e-3;       float frac0 = .5;
    bool  yes = true;       bool  no  = false;

    // sizeof
    uint sz = sizeof(WorkItem) + sizeof(float4);

    // corner cases
    WorkItem     item = (WorkItem)0;
    item.id = a;
    WorkItemBase base = (WorkItemBase)item;        // cast to a user struct
    int          diff = (c) - d;                   // parenthesised expression, not a cast
    uint2        raw  = g_TourRaw.Load<uint2>(0);  // template method call
    bool         chain = (c < d) > (d < c);        // comparison chain, not a template
    bool         tmpl  = twice<uint>(a) < kTourBig && kTourBig > a;
    vector<float, 2> pair = g_TourPairs[a % 4u];

    // member functions and namespaces
    Ray ray = { float3(0.0f, 0.0f, 0.0f), float3(0.0f, 0.0f, 1.0f) };
    TimedRay timed = (TimedRay)0;
    timed.dir = float3(1.0f, 0.0f, 0.0f);
    timed.tMax = 4.0f;
    float3 hit = ray.at(2.0f) + r0.at(1.0f) + timed.at(timed.tMax);
    tour::Range range = { 2u, 8u };
    uint clamped = tour::clampIndex(a, 4u);

    // enums
    TourChannel ch = TOUR_GREEN;
    TourMode mode = TourMode::Sum;
    uint chIndex = (uint)ch + (mode == TourMode::Sum ? 1u : 0u);

    // calls, macros, templates
    float3 tripled = twice(v3) + v3;
    float  total = TOUR_SUM(f, fl, sci) + TOUR_SQR(frac0) + TOUR_LERP(0.0f, kTourPi, 0.5f);
    uint   hiPart, loPart;
    tourSplit(raw.x ^ raw.y, hiPart, loPart);

    float4 result = float4(hit + tripled + splat + col + f3, total);
    result.x += (float)(hex + dec + ulng + sz + triple.z + (uint)base.id + hiPart + loPart + clamped + chIndex);
    result.y += (float)(lng + diff) + (float)hf + arr[1] + elem + row.w + pairs[1].z + pair.x;
    result.z += (yes && !no && chain && !tmpl && range.contains(a)) ? kTourThree : ray.lengthSq();
    result.w *= TOUR_SCALE * (float)TOUR_HAS_COMMON;
    return result;
}

// Statements and statement attributes.
float tourStatements(uint n, TourMode mode)
{
    float acc = 0.0f;
    {                                           // a nested block
        float local = 1.0f;
        acc += local;
    }

    if (n == 0u) { return acc; }
    else if (n == 1u) acc = 1.0f;
    else { acc = 2.0f; }

    [unroll] for (uint i = 0; i < 4; ++i)
        acc += (float)i;

    [unroll(4)] for (uint j = 0; j < n; j++)
    {
        if (j == 2u)
            continue;
        acc *= 1.01f;
    }

    [loop] for (uint lo = 0, hi = 8u; lo < hi; ++lo, --hi)
        acc -= 0.5f;

    uint w = n;
    [fastopt] while (w > 1u)
    {
        w >>= 1;
        if (w == 5u)
            break;
    }

    do { w += 3u; } while (w < 10u);

    [allow_uav_condition] for (uint k = 0; k < g_TourCounters[3] && k < 16u; ++k)
        w += k;

    switch ((uint)mode)
    {
    case 0:
        acc = 0.0f;
        break;
    case 3:
        acc += 1.0f;
        // fall through
    case 4:
        acc *= 2.0f;
        break;
    case 5:
    case 6:
    {
        acc = -acc;
        break;
    }
    default:
        acc = 1.0f;
        break;
    }

    [branch] if (acc > 100.0f)
        acc = 100.0f;
    [flatten] if (acc < -100.0f)
        acc = -100.0f;

    tourBump(w, 2u);                            // expression statement
    return acc + (float)w;
}

// ------------------------------------------------------------ nodes

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeMaxDispatchGrid(TOUR_MAX_GROUPS, 1, 1)]
[NumThreads(TOUR_GROUP_X, TOUR_GROUP_Y, TOUR_GROUP_Z)]
void TourEntry(
    DispatchNodeInputRecord<EntryRecord> input,
    [MaxRecords(1)] NodeOutput<SharedRecord> TourShared,
    [MaxRecords(TOUR_GROUP_X)] NodeOutput<WorkItem> TourThread,
    [MaxRecords(4)] [NodeID("TourCoalesce", 2)] NodeOutput<CoalesceItem> o,
    [MaxRecords(2)] EmptyNodeOutput TourEmpty,
    [MaxRecords(1)] [AllowSparseNodes] EmptyNodeOutput TourOptional,
    uint3 dispatchThreadId : SV_DispatchThreadID,
    uint3 groupId          : SV_GroupID,
    uint3 groupThreadId    : SV_GroupThreadID,
    uint  groupIndex       : SV_GroupIndex)
{
    s_tourCalls++;
    EntryRecord rec = input.Get();                  // Get() on a single-record input
    bool active = dispatchThreadId.x < rec.itemCount;

    // Group-shared reduction; Barrier(memory flags, semantic flags).
    if (groupIndex == 0)
        gs_tourSum = 0;
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    InterlockedAdd(gs_tourSum, active ? 1u : 0u);
    gs_tourWeights[groupIndex] = tourFade((float)groupThreadId.x, rec.scale);
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    uint groupActive = gs_tourSum;

    // Wave operations.
    uint waveActive = WaveActiveCountBits(active);
    uint prefix = WavePrefixSum(active ? 1u : 0u);
    if (WaveIsFirstLane())
        InterlockedAdd(g_TourCounters[1], waveActive);

    // 1) One group record for TourShared (GetGroupNodeOutputRecords).
    GroupNodeOutputRecords<SharedRecord> sharedOut = TourShared.GetGroupNodeOutputRecords(1);
    if (groupIndex == 0)
    {
        sharedOut.Get().grid = TOUR_SHARED_GROUPS;     // SV_DispatchGrid of TourShared
        sharedOut.Get().total = 0;
        sharedOut.Get().groupsDone = 0;
    }
    sharedOut.OutputComplete();

    // 2) Per-thread records for TourThread (GetThreadNodeOutputRecords).
    ThreadNodeOutputRecords<WorkItem> work = TourThread.GetThreadNodeOutputRecords(active ? 1 : 0);
    if (active)
    {
        work.Get().id = dispatchThreadId.x;
        work.Get().flags = groupId.x | (TOUR_RECURSION << 8);
        work.Get().value = float3(gs_tourWeights[groupIndex], (float)prefix, rec.scale);
    }
    work.OutputComplete();

    // 3) Group records for NodeID("TourCoalesce", 2): [i], Get(i) and a
    //    Barrier on a record object.
    GroupNodeOutputRecords<CoalesceItem> items = o.GetGroupNodeOutputRecords(4);
    if (groupIndex < 4)
    {
        items[groupIndex].key = groupIndex + groupActive;
        items.Get(groupIndex).weight = gs_tourWeights[groupIndex];
    }
    Barrier(items, GROUP_SCOPE | GROUP_SYNC);
    if (groupIndex == 0)
        items[3].weight += items.Get(0).weight;
    items.OutputComplete();

    // 4) Empty outputs: group- and thread-granularity counts.
    TourEmpty.GroupIncrementOutputCount(1);
    TourEmpty.GroupIncrementOutputCount(1);
    bool optionalPresent = TourOptional.IsValid();
    TourOptional.ThreadIncrementOutputCount((groupIndex == 0 && optionalPresent) ? 1 : 0);
}

// Many groups share one RW input record; the last group to finish reads the
// total. Not an entry node (FinishedCrossGroupSharing is not allowed there).
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(8, 1, 1)]
[NumThreads(64, 1, 1)]
void TourShared(
    RWDispatchNodeInputRecord<SharedRecord> sharedInput,
    uint3 dispatchThreadId : SV_DispatchThreadID,
    uint  groupIndex       : SV_GroupIndex)
{
    // Atomics on the shared record itself are valid D3D12 but cannot be expressed in
    // SPV_AMDX_shader_enqueue (spirv-val allows none on NodePayloadAMDX memory: WG0620),
    // so the groups count into the UAV and the last one adds the record's own total.
    uint contribution = WaveActiveSum(dispatchThreadId.x & 1u);
    if (WaveIsFirstLane())
        InterlockedAdd(g_TourCounters[4], contribution);
    if (groupIndex == 0)
        InterlockedAdd(g_TourCounters[5], 1);

    Barrier(sharedInput, DEVICE_SCOPE | GROUP_SYNC);    // Barrier on the RW input record

    if (sharedInput.FinishedCrossGroupSharing())        // once per thread, uniform
    {
        if (groupIndex == 0)
            g_TourCounters[0] = sharedInput.Get().total + g_TourCounters[4];
    }
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeMaxRecursionDepth(TOUR_RECURSION)]
void TourThread(
    RWThreadNodeInputRecord<WorkItem> item,
    [MaxRecords(1)] [NodeID("TourThread")] NodeOutput<WorkItem> again,
    [MaxRecords(4)] [NodeID("TourCoalesce", 2)] NodeOutput<CoalesceItem> o)
{
    s_tourCalls += 1;
    item.Get().value *= TOUR_SCALE;                 // an RW input can be modified
    WorkItem copy = item.Get();

    uint  remaining = GetRemainingRecursionLevels();
    float4 expr  = tourExpressions(copy.id, (int)copy.flags, (int)remaining);
    float  stmt  = tourStatements(copy.id % 8u, (TourMode)(copy.flags & 3u));
    uint   ops   = tourOperators(copy.id, copy.flags, 3, -2);
    float3 moved = tourTransform(copy.value);
    float2 uv    = frac(moved.xy);
    float4 texel = g_TourTex.SampleLevel(g_TourSampler, uv, 0.0f);
    uint   index = g_TourIndices[copy.id % 16u];
    float4 tint  = g_TourConsts.tint * g_TourPalette[index & 3u];
    uint   frame = g_TourPush.frame + wgcHash(g_TourConsts.seed);
    uint   waveMax = WaveActiveMax(copy.id);

    g_TourOut[copy.id % 64u] = expr + texel * tint + float4(stmt, (float)ops, (float)frame, (float)waveMax);
    Barrier(UAV_MEMORY, DEVICE_SCOPE);              // thread launch: no GROUP_* flags

    // Recursion: one more level while levels remain.
    bool recurse = remaining > 0 && (copy.flags & 1u) != 0;
    ThreadNodeOutputRecords<WorkItem> child = again.GetThreadNodeOutputRecords(recurse ? 1 : 0);
    if (recurse)
    {
        child.Get().id = copy.id;
        child.Get().flags = copy.flags >> 1;
        child.Get().value = copy.value * 0.5f;
    }
    child.OutputComplete();

    // Up to four records: ThreadNodeOutputRecords with [i] and Get(i).
    uint n = min(copy.id % 5u, 4u);
    ThreadNodeOutputRecords<CoalesceItem> outs = o.GetThreadNodeOutputRecords(n);
    for (uint i = 0; i < n; ++i)
    {
        outs[i].key = copy.id + i;
        outs.Get(i).weight = wgcHashToUnit(copy.id * 4u + i);
    }
    outs.OutputComplete();
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NodeID("TourCoalesce", 2)]
[NumThreads(8, 1, 1)]
void TourCoalesceNode(
    [MaxRecords(8)] GroupNodeInputRecords<CoalesceItem> items,
    uint3 groupThreadId : SV_GroupThreadID,
    uint  groupIndex    : SV_GroupIndex)
{
    uint count = items.Count();                     // 1..8
    if (groupIndex == 0)
        gs_tourSum = 0;
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    if (groupThreadId.x < count)
        InterlockedAdd(gs_tourSum, items[groupThreadId.x].key);
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);

    if (groupIndex == 0)
    {
        float w = items.Get().weight + (count > 1 ? items.Get(1).weight : 0.0f);
        g_TourOut[gs_tourSum % 64u] = float4(w, (float)count, 0.0f, 1.0f);
    }
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(1, 1, 1)]
void TourEmpty([MaxRecords(16)] EmptyNodeInput input)
{
    InterlockedAdd(g_TourCounters[2], input.Count());
}
