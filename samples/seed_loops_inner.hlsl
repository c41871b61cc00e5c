//=============================================================================
// seed_loops_inner.hlsl -- "Loop with Inner Node" of the Work Graph Loops
// proposal (hlsl-specs PR #770), made complete and valid.
//
// Demonstrates a loop of three nodes: every node on a path back to the loop
// entry belongs to the loop.
//
//   MyLoopEntry -> MyLoopBody -> MyLoopTerminal -> MyLoopEntry (next iteration)
//
// The loop iterates the logistic map v' = r * v * (1 - v) a bounded number
// of times per item; the terminal node stores the value when it stops feeding
// records back (which ends the loop for that item).
//
// Fixes relative to the proposal text:
//  1. RECORD and MAX_ITERATIONS are defined; the bodies allocate, fill and
//     complete their output records.
//  2. Every output has the required [MaxRecords(n)].
//  3. The lower-case output names (myLoopBody, myLoopTerminal, myLoopEntry)
//     would target nonexistent nodes: each carries [NodeID("...")] naming the
//     real node.
//  4. MyLoopEntry is targeted (by MyLoopTerminal), so it is not an implied
//     entry: it is marked [NodeIsProgramEntry].
//  5. The proposal example has no exit node; MyLoopTerminal writes the final
//     value to a UAV instead of feeding it back.
//=============================================================================

#ifndef MAX_ITERATIONS
#define MAX_ITERATIONS 32
#endif
#define RECORD ChainRecord

RWStructuredBuffer<float> Values : register(u0);

struct ChainRecord
{
    uint  id;
    float rate;     // logistic-map parameter r in [0, 4]
    float value;    // current value v in [0, 1]
};

[Shader("node")]
[NodeLaunch("thread")]
[NodeIsProgramEntry]
[NodeMaxLoopIterations(MAX_ITERATIONS)]
[NodeMaxRecordsPerLoopIteration(1)]
void MyLoopEntry(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyLoopBody")] NodeOutput<RECORD> myLoopBody)
{
    // ... dispatch records to MyLoopBody (clamp the state into range first)
    ThreadNodeOutputRecords<RECORD> rec = myLoopBody.GetThreadNodeOutputRecords(1);
    rec.Get().id    = input.Get().id;
    rec.Get().rate  = clamp(input.Get().rate, 0.0f, 4.0f);
    rec.Get().value = saturate(input.Get().value);
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyLoopBody(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyLoopTerminal")] NodeOutput<RECORD> myLoopTerminal)
{
    // ... dispatch records to MyLoopTerminal
    // MyLoopBody is within MyLoopEntry's loop as it is within a path back to MyLoopEntry
    RECORD r = input.Get();
    ThreadNodeOutputRecords<RECORD> rec = myLoopTerminal.GetThreadNodeOutputRecords(1);
    rec.Get().id    = r.id;
    rec.Get().rate  = r.rate;
    rec.Get().value = r.rate * r.value * (1.0f - r.value);
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyLoopTerminal(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyLoopEntry")] NodeOutput<RECORD> myLoopEntry)
{
    // MyLoopTerminal is within MyLoopEntry's loop as it is within a path back to MyLoopEntry
    // MyLoopTerminal invokes the next loop iteration when it outputs records to MyLoopEntry
    RECORD r = input.Get();
    bool again = GetCurrentLoopIterationIndex() + 1 < MAX_ITERATIONS;

    ThreadNodeOutputRecords<RECORD> rec = myLoopEntry.GetThreadNodeOutputRecords(again ? 1 : 0);
    if (again)
    {
        rec.Get().id    = r.id;
        rec.Get().rate  = r.rate;
        rec.Get().value = r.value;
    }
    rec.OutputComplete();

    if (!again)
        Values[r.id] = r.value;     // the loop ends for this item
}
