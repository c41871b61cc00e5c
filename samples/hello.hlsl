//=============================================================================
// hello.hlsl -- your first work graph.
//
// A three-node graph that builds a 16-bin histogram of work-item hashes:
//
//   Generate   (broadcasting, graph entry)  one thread per work item
//     -> Classify   (thread launch)         picks a bin for one item
//       -> Accumulate (coalescing)          adds up to 32 bins at once
//
// The app launches Generate with an EntryRecord whose SV_DispatchGrid field
// sets the number of thread groups; an output targets the node named like it.
//=============================================================================

RWStructuredBuffer<uint> Histogram : register(u0);   // 16 counters

struct EntryRecord
{
    uint gridSize : SV_DispatchGrid;   // thread groups to launch
    uint itemCount;                    // items to process
};

struct ItemRecord { uint item; };
struct BinRecord  { uint bin; };   // 0..15

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(1024, 1, 1)]
[NumThreads(64, 1, 1)]
void Generate(
    DispatchNodeInputRecord<EntryRecord> input,
    [MaxRecords(64)] NodeOutput<ItemRecord> Classify,   // -> node "Classify"
    uint dispatchThreadId : SV_DispatchThreadID)
{
    // Every thread calls GetThreadNodeOutputRecords (uniform control flow);
    // threads past the end simply ask for zero records.
    bool active = dispatchThreadId < input.Get().itemCount;
    ThreadNodeOutputRecords<ItemRecord> rec = Classify.GetThreadNodeOutputRecords(active ? 1 : 0);
    if (active)
        rec.Get().item = dispatchThreadId;
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void Classify(
    ThreadNodeInputRecord<ItemRecord> input,
    [MaxRecords(1)] NodeOutput<BinRecord> Accumulate)   // -> node "Accumulate"
{
    ThreadNodeOutputRecords<BinRecord> rec = Accumulate.GetThreadNodeOutputRecords(1);
    rec.Get().bin = (input.Get().item * 2654435761u) >> 28;   // 0..15
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(32, 1, 1)]
void Accumulate(
    [MaxRecords(32)] GroupNodeInputRecords<BinRecord> bins,
    uint threadIndex : SV_GroupIndex)
{
    // A group receives between 1 and 32 records.
    if (threadIndex < bins.Count())
        InterlockedAdd(Histogram[bins[threadIndex].bin], 1);
}
