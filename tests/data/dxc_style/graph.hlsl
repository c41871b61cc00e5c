// The graph that entry.spvasm, tally.spvasm, gather.spvasm, leaf_0.spvasm and leaf_1.spvasm stand
// for, written in HLSL (one node per DXC module; DXC names every entry point "main" and the
// application names the nodes: main, Tally, Gather, Leaf[0], Leaf[1]).
RWStructuredBuffer<uint> Out : register(u0);

struct EntryRecord { uint3 grid_size : SV_DispatchGrid; uint base; };
struct TallyRecord { uint row; uint value; uint next; };
struct Item { uint value; };

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeMaxDispatchGrid(4, 1, 1)]
[NumThreads(4, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_GroupThreadID, uint gi : SV_GroupIndex,
          DispatchNodeInputRecord<EntryRecord> in_payload,
          [MaxRecords(1)] [NodeID("Tally")] NodeOutput<TallyRecord> tally,
          [MaxRecords(4)] [NodeID("Gather")] NodeOutput<Item> gather,
          [MaxRecords(4)] [NodeArraySize(2)] [NodeID("Leaf")] NodeOutputArray<Item> leaf)
{
    uint base = in_payload.Get().base;
    uint g = gid.x * 4 + tid.x;
    GroupNodeOutputRecords<TallyRecord> t = tally.GetGroupNodeOutputRecords(1);
    if (gi == 0) {
        t[0].row = gid.x;
        t[0].value = base + gid.x;
        t[0].next = 0;
    }
    t.OutputComplete();
    ThreadNodeOutputRecords<Item> it = gather.GetThreadNodeOutputRecords(1);
    it.Get().value = base + g;
    it.OutputComplete();
    ThreadNodeOutputRecords<Item> lf = leaf[g % 2].GetThreadNodeOutputRecords(1);
    lf.Get().value = g;
    lf.OutputComplete();
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(2, 1, 1)]
[NumThreads(2, 1, 1)]
void Tally(RWDispatchNodeInputRecord<TallyRecord> in_payload)
{
    uint slot;
    InterlockedAdd(in_payload.Get().next, 1, slot);
    Out[16 + 4 * in_payload.Get().row + slot] = in_payload.Get().value;
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(8, 1, 1)]
void Gather(uint gi : SV_GroupIndex, [MaxRecords(8)] GroupNodeInputRecords<Item> in_payload)
{
    if (gi < in_payload.Count()) {
        InterlockedAdd(Out[0], in_payload[gi].value);
        InterlockedAdd(Out[1], 1);
    }
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Leaf", 0)]
void Leaf0(ThreadNodeInputRecord<Item> in_payload)
{
    Out[32 + in_payload.Get().value] = 1000 + in_payload.Get().value;
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Leaf", 1)]
void Leaf1(ThreadNodeInputRecord<Item> in_payload)
{
    Out[32 + in_payload.Get().value] = 2000 + in_payload.Get().value;
}
