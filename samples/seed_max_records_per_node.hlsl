//=============================================================================
// seed_max_records_per_node.hlsl -- the usage example of proposal 0025,
// [MaxRecordsPerNode(count)] for node output arrays, made complete and valid.
//
// Demonstrates [MaxRecordsPerNode]: DispatchNode may write up to 64 records in
// total ([MaxRecords(64)]) to the 64-entry node array "ConsumerNodes", but at
// most ONE record to any single node of the array ([MaxRecordsPerNode(1)]),
// which lets an implementation size its backing memory for 1 record per
// consumer instead of 64.
//
//   DispatchNode --ConsumerNodes[i]--> ConsumerNodes[0], [1], [2], [63]
//
// Fixes relative to the proposal text:
//  1. As printed, DispatchNode is a *thread launch* node with [MaxRecords(64)],
//     but a thread launch node may declare at most 8 output records in total
//     (and at most 128 bytes). DispatchNode is now a *broadcasting* node (limit
//     256 records per thread group) with a fixed [NodeDispatchGrid(1, 1, 1)]
//     and [NumThreads(64, 1, 1)]: thread i does what iteration i of the
//     original `[unroll] for (i = 0; i < 64; ++i)` loop did, so the group
//     still writes one record to each of the 64 array entries.
//  2. RECORD is defined and the "..." is filled in.
//  3. The proposal only shows the producer. The consumers are written here as
//     node functions with [NodeID("ConsumerNodes", i)] (the array's node ID is
//     the output parameter name). Only indices 0, 1, 2 and 63 exist, so the
//     output is marked [AllowSparseNodes]: missing entries are then legal, and
//     DispatchNode asks ConsumerNodes[i].IsValid() and writes nothing to an
//     entry that is not in the graph.
//  4. [NodeIsProgramEntry] is kept (it is implied anyway: nothing targets
//     DispatchNode); being broadcasting without an input record, the
//     application launches it with empty records.
//=============================================================================

#define RECORD ConsumerRecord
#define CONSUMER_COUNT 64

RWStructuredBuffer<uint> ConsumerResults : register(u0);

struct ConsumerRecord
{
    uint consumerIndex;
    uint value;
};

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(CONSUMER_COUNT, 1, 1)]
void DispatchNode(
    [MaxRecords(CONSUMER_COUNT)]    // a maximum of 64 records are written to output node array,
    [MaxRecordsPerNode(1)]          // but only 1 record is written to each node in the array
    [NodeArraySize(CONSUMER_COUNT)]
    [AllowSparseNodes]              // only some of the 64 consumers exist in this graph
    NodeOutputArray<RECORD> ConsumerNodes,
    uint i : SV_GroupIndex)
{
    // The call is made by every thread (group-uniform control flow); the
    // array index and the record count may differ per thread.
    uint count = ConsumerNodes[i].IsValid() ? 1 : 0;
    ThreadNodeOutputRecords<RECORD> outputRecord = ConsumerNodes[i].GetThreadNodeOutputRecords(count);
    if (count != 0)
    {
        outputRecord.Get().consumerIndex = i;
        outputRecord.Get().value = i * i + 1;
    }
    outputRecord.OutputComplete();
}

// The consumers: members of the node array "ConsumerNodes". All members of a
// node array share the same launch mode and input record type.

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("ConsumerNodes", 0)]
void ConsumerNode0(ThreadNodeInputRecord<RECORD> input)
{
    ConsumerResults[input.Get().consumerIndex] = input.Get().value;
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("ConsumerNodes", 1)]
void ConsumerNode1(ThreadNodeInputRecord<RECORD> input)
{
    ConsumerResults[input.Get().consumerIndex] = input.Get().value * 2;
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("ConsumerNodes", 2)]
void ConsumerNode2(ThreadNodeInputRecord<RECORD> input)
{
    ConsumerResults[input.Get().consumerIndex] = reversebits(input.Get().value);
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("ConsumerNodes", 63)]
void ConsumerNode63(ThreadNodeInputRecord<RECORD> input)
{
    InterlockedMax(ConsumerResults[input.Get().consumerIndex], input.Get().value);
}
