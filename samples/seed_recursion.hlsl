//=============================================================================
// seed_recursion.hlsl -- the recursion example of the Work Graph Loops
// proposal (hlsl-specs PR #770), made complete and valid.
//
// Demonstrates a self-recursive node ([NodeMaxRecursionDepth]) that splits a
// range of work in two until it is small enough, then hands it to a leaf:
//
//   MyEntryNode -> MyRecursiveNode (-> itself, up to MAX_RECURSION levels)
//                              \-> MyLeafNode
//
// Fixes relative to the proposal text:
//  1. RECORD is defined and the bodies really allocate and complete records;
//     every output has the required [MaxRecords(n)].
//  2. The outputs were named myRecursiveNode / myLeafNode, which target nodes
//     of those (lower-case) names; they carry [NodeID("MyRecursiveNode")] /
//     [NodeID("MyLeafNode")] so they target the real nodes (the recursive one
//     targets itself, which is what requires [NodeMaxRecursionDepth]).
//  3. The proposal uses [NodeMaxRecursionDepth(100)], which is only legal under
//     the Loops proposal (DXC caps the attribute at 32, and without the
//     proposal the recursion levels count towards the graph depth of 32:
//     1 + 100 + 1 > 32). The default here, 16, is legal either way
//     (depth 1 + 16 + 1 = 18); compile with -DMAX_RECURSION=100 to get the
//     proposal's value under the Loops rules.
//  4. GetRemainingRecursionLevels() guards the recursion, so the node never
//     targets itself when no level is left.
//=============================================================================

#ifndef MAX_RECURSION
#define MAX_RECURSION 16
#endif
#define LEAF_SIZE 64u
#define RECORD RangeRecord

StructuredBuffer<float>   Input  : register(t0);
RWStructuredBuffer<float> Output : register(u1);

struct RangeRecord
{
    uint begin;     // first element of the range
    uint count;     // number of elements
};

[Shader("node")]
[NodeLaunch("thread")]
void MyEntryNode(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyRecursiveNode")] NodeOutput<RECORD> myRecursiveNode)
{
    // ... dispatch records to MyRecursiveNode
    ThreadNodeOutputRecords<RECORD> rec = myRecursiveNode.GetThreadNodeOutputRecords(1);
    rec.Get().begin = input.Get().begin;
    rec.Get().count = input.Get().count;
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeMaxRecursionDepth(MAX_RECURSION)]
void MyRecursiveNode(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(2)] [NodeID("MyRecursiveNode")] NodeOutput<RECORD> myRecursiveNode,
    [MaxRecords(1)] [NodeID("MyLeafNode")] NodeOutput<RECORD> myLeafNode)
{
    // ... may dispatch records to itself or MyLeafNode
    RECORD r = input.Get();
    bool split = r.count > LEAF_SIZE && GetRemainingRecursionLevels() > 0;

    // Split: two halves go back to this node.
    ThreadNodeOutputRecords<RECORD> halves = myRecursiveNode.GetThreadNodeOutputRecords(split ? 2 : 0);
    if (split)
    {
        uint firstHalf = r.count / 2;
        halves[0].begin = r.begin;
        halves[0].count = firstHalf;
        halves[1].begin = r.begin + firstHalf;
        halves[1].count = r.count - firstHalf;
    }
    halves.OutputComplete();

    // Otherwise: the whole range goes to the leaf.
    ThreadNodeOutputRecords<RECORD> leaf = myLeafNode.GetThreadNodeOutputRecords(split ? 0 : 1);
    if (!split)
    {
        leaf.Get().begin = r.begin;
        leaf.Get().count = r.count;
    }
    leaf.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyLeafNode(ThreadNodeInputRecord<RECORD> input)
{
    // ... no records dispatched: process the range directly.
    uint begin = input.Get().begin;
    uint end = begin + input.Get().count;
    for (uint i = begin; i < end; ++i)
        Output[i] = Input[i] * 2.0f;
}
