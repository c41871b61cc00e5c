//=============================================================================
// seed_loops_simple.hlsl -- "Simple Loop Example" of the Work Graph Loops
// proposal (hlsl-specs PR #770), made complete and valid.
//
// Demonstrates a loop entry node ([NodeMaxLoopIterations] together with
// [NodeMaxRecordsPerLoopIteration]), a loop body that either feeds a record
// back to the entry (next iteration) or leaves the loop, an exit node outside
// the loop, and GetCurrentLoopIterationIndex().
//
//   MyLoopEntry  <->  MyLoopBody  ->  MyOtherNode (not part of the loop)
//
// The loop runs Newton's iteration x' = (x + a / x) / 2 towards sqrt(a).
// Graph depth is 3 regardless of MAX_ITERATIONS (loop iterations do not
// count against the depth limit).
//
// Fixes relative to the proposal text ("some attributes and details
// intentionally excluded for clarity"):
//  1. RECORD and MAX_ITERATIONS are defined (#define) and the bodies are real:
//     every GetThreadNodeOutputRecords has a matching OutputComplete.
//  2. Every output has the required [MaxRecords(n)].
//  3. The output parameters were spelled myLoopBody / myLoopEntry /
//     myOtherNode, which would target nodes of those (lower-case) names; each
//     now carries [NodeID("MyLoopBody")] etc. so it targets the real node.
//  4. MyLoopEntry is targeted by MyLoopBody, so it is not an implied graph
//     entry and the graph would have no entry at all: it is marked
//     [NodeIsProgramEntry] (the application starts the loop).
//  5. MyOtherNode writes its result to a UAV so the graph has an effect.
//=============================================================================

#ifndef MAX_ITERATIONS
#define MAX_ITERATIONS 16
#endif
#define RECORD LoopRecord

static const float kTolerance = 1e-5f;

RWStructuredBuffer<float> Results : register(u0);

struct LoopRecord
{
    uint  id;       // which result slot
    float a;        // we compute sqrt(a), a > 0
    float x;        // current estimate
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
    // ... dispatch records to MyLoopBody: one Newton step per iteration.
    RECORD r = input.Get();
    ThreadNodeOutputRecords<RECORD> next = myLoopBody.GetThreadNodeOutputRecords(1);
    next.Get().id = r.id;
    next.Get().a  = r.a;
    next.Get().x  = 0.5f * (r.x + r.a / max(r.x, kTolerance));
    next.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyLoopBody(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyLoopEntry")] NodeOutput<RECORD> myLoopEntry,
    [MaxRecords(1)] [NodeID("MyOtherNode")] NodeOutput<RECORD> myOtherNode)
{
    // MyLoopBody invokes the next loop iteration when it outputs records to
    // MyLoopEntry, and exits the loop when it outputs records to MyOtherNode.
    RECORD r = input.Get();
    bool converged = abs(r.x * r.x - r.a) <= kTolerance * r.a;
    bool lastIteration = GetCurrentLoopIterationIndex() + 1 >= MAX_ITERATIONS;
    bool again = !converged && !lastIteration;

    // Both outputs are requested unconditionally; exactly one gets a record.
    ThreadNodeOutputRecords<RECORD> loopRec = myLoopEntry.GetThreadNodeOutputRecords(again ? 1 : 0);
    if (again)
    {
        loopRec.Get().id = r.id;
        loopRec.Get().a  = r.a;
        loopRec.Get().x  = r.x;
    }
    loopRec.OutputComplete();

    ThreadNodeOutputRecords<RECORD> exitRec = myOtherNode.GetThreadNodeOutputRecords(again ? 0 : 1);
    if (!again)
    {
        exitRec.Get().id = r.id;
        exitRec.Get().a  = r.a;
        exitRec.Get().x  = r.x;
    }
    exitRec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyOtherNode(ThreadNodeInputRecord<RECORD> input)
{
    // MyOtherNode is **not** part of the loop (no path back to MyLoopEntry).
    Results[input.Get().id] = input.Get().x;
}
