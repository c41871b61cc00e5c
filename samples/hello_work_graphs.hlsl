//=============================================================================
// hello_work_graphs.hlsl -- Microsoft's D3D12HelloWorkGraphs sample shader
// (as quoted, comments removed, in Slang's work-graph proposal), made valid.
//
// Demonstrates a 3-node graph with a global root signature subobject:
//
//   firstNode  (broadcasting, entry; grid from the record's SV_DispatchGrid)
//     -> secondNode (thread launch; InterlockedAdd into the UAV)
//       -> thirdNode  (coalescing; groupshared histogram, then UAV adds)
//
// Fixes relative to the quoted text:
//  1. firstNode is broadcasting and has neither [NodeDispatchGrid] nor
//     [NodeMaxDispatchGrid]; one of them is required. Its input record has an
//     SV_DispatchGrid field (gridSize), so the grid comes from the record and
//     [NodeMaxDispatchGrid(16, 1, 1)] (the value of the original Microsoft
//     sample) is added.
//  2. thirdNode: the quoted text clears g_sum and then adds to it with no
//     barrier in between, and returns early first, so threads race. Adding
//     GROUP_SYNC barriers after the early `return` would put them in
//     non-uniform control flow (invalid). The body is restructured: clear,
//     Barrier, guarded add, Barrier, then thread 0 publishes the sums; no
//     thread returns before the last barrier.
// Everything else (names, record layouts, root signature) is unchanged.
//=============================================================================

GlobalRootSignature globalRS = { "UAV(u0)" };
RWStructuredBuffer<uint> UAV : register(u0);

struct entryRecord
{
    uint gridSize : SV_DispatchGrid;
    uint recordIndex;
};

struct secondNodeInput
{
    uint entryRecordIndex;
    uint incrementValue;
};

struct thirdNodeInput
{
    uint entryRecordIndex;
};

static const uint c_numEntryRecords = 4;

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(16, 1, 1)]
[NumThreads(2, 1, 1)]
void firstNode(
    DispatchNodeInputRecord<entryRecord> inputData,
    [MaxRecords(2)] NodeOutput<secondNodeInput> secondNode,
    uint threadIndex : SV_GroupIndex,
    uint dispatchThreadID : SV_DispatchThreadID)
{
    GroupNodeOutputRecords<secondNodeInput> outRecs =
        secondNode.GetGroupNodeOutputRecords(2);

    outRecs[threadIndex].entryRecordIndex = inputData.Get().recordIndex;
    outRecs[threadIndex].incrementValue = dispatchThreadID * 2 + threadIndex + 1;
    outRecs.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void secondNode(
    ThreadNodeInputRecord<secondNodeInput> inputData,
    [MaxRecords(1)] NodeOutput<thirdNodeInput> thirdNode)
{
    InterlockedAdd(UAV[inputData.Get().entryRecordIndex], inputData.Get().incrementValue);
    ThreadNodeOutputRecords<thirdNodeInput> outRec = thirdNode.GetThreadNodeOutputRecords(1);
    outRec.Get().entryRecordIndex = inputData.Get().entryRecordIndex;
    outRec.OutputComplete();
}

groupshared uint g_sum[c_numEntryRecords];

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(32, 1, 1)]
void thirdNode(
    [MaxRecords(32)] GroupNodeInputRecords<thirdNodeInput> inputData,
    uint threadIndex : SV_GroupIndex)
{
    if (threadIndex < c_numEntryRecords)
        g_sum[threadIndex] = 0;

    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);

    if (threadIndex < inputData.Count())
        InterlockedAdd(g_sum[inputData[threadIndex].entryRecordIndex], 1);

    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);

    if (threadIndex > 0)
        return;

    for (uint l = 0; l < c_numEntryRecords; l++)
    {
        uint recordIndex = c_numEntryRecords + l;
        InterlockedAdd(UAV[recordIndex], g_sum[l]);
    }
}
