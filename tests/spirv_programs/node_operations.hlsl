// Node operations: thread and group allocation, output arrays with a subscript, empty outputs,
// IsValid, Count of a coalescing input, OutputComplete, GetRemainingRecursionLevels.
struct Rec { uint value; };

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(2, 1, 1)]
[NumThreads(4, 1, 1)]
void Root(uint i : SV_GroupIndex,
          [MaxRecords(4)] NodeOutput<Rec> Gather,
          [MaxRecords(4)] [MaxRecordsPerNode(2)] [NodeArraySize(2)] NodeOutputArray<Rec> Pick,
          [MaxRecords(1)] [NodeID("Ping")] EmptyNodeOutput Ping)
{
    GroupNodeOutputRecords<Rec> group = Gather.GetGroupNodeOutputRecords(2);
    group.Get(1).value = i;
    group.OutputComplete();
    ThreadNodeOutputRecords<Rec> one = Pick[i % 2].GetThreadNodeOutputRecords(1);
    one.Get().value = i;
    one.OutputComplete();
    if (Ping.IsValid())
        Ping.GroupIncrementOutputCount(1);
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(4, 1, 1)]
void Gather([MaxRecords(8)] GroupNodeInputRecords<Rec> inputs, uint i : SV_GroupIndex)
{
    uint n = inputs.Count();
    if (i < n) {
        uint v = inputs[i].value;
    }
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Pick", 0)]
[NodeMaxRecursionDepth(2)]
void PickFirst(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] [NodeID("Pick", 0)] NodeOutput<Rec> again)
{
    if (GetRemainingRecursionLevels() > 0) {
        ThreadNodeOutputRecords<Rec> r = again.GetThreadNodeOutputRecords(1);
        r.Get().value = input.Get().value + 1;
        r.OutputComplete();
    }
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Pick", 1)]
void PickSecond(ThreadNodeInputRecord<Rec> input) { }

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(1, 1, 1)]
void Ping(EmptyNodeInput input) { }
