//=============================================================================
// seed_slang_hello.hlsl -- "Example 1: Hello world" of Slang's work-graph
// proposal, as plain HLSL 2021 and made valid.
//
// Demonstrates the smallest useful graph: a thread launch root that writes one
// record, and a broadcasting child with a fixed dispatch grid that reads it.
//
//   MyGraphRoot (thread, entry) -> MyChildNode (broadcasting, 1 group of 8x8)
//
// Fixes relative to the Slang proposal text:
//  1. `let node = ...` is Slang syntax; HLSL spells the type out:
//     `ThreadNodeOutputRecords<RecordData> node = ...`.
//  2. The output parameter was named `nodes`, so it targeted a node called
//     "nodes" that does not exist, and MyChildNode (targeted by nobody) would
//     have become a second entry node. An output targets the node whose ID
//     equals the parameter name, so it is renamed to `MyChildNode`.
//  3. MyChildNode read the record into a local and dropped it; it now stores
//     the value into a UAV so the graph has a visible effect.
// `[shader("node")]` and `[numthreads]` are kept in lower case: attribute names
// are case-insensitive (the *string* "node" must be lower case).
//=============================================================================

RWStructuredBuffer<int> Output : register(u0);   // 64 ints

struct RecordData
{
    int myData;
};

[Shader("node")]
[NodeLaunch("thread")]
void MyGraphRoot(
    [MaxRecords(1)] NodeOutput<RecordData> MyChildNode
)
{
    ThreadNodeOutputRecords<RecordData> node = MyChildNode.GetThreadNodeOutputRecords(1);
    node.Get().myData = 123456;
    node.OutputComplete();
}

[shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[numthreads(8, 8, 1)]
void MyChildNode(
    DispatchNodeInputRecord<RecordData> inputData,
    uint2 dispatchThreadId : SV_DispatchThreadID
)
{
    int myData = inputData.Get().myData;
    Output[dispatchThreadId.y * 8 + dispatchThreadId.x] = myData;
}
