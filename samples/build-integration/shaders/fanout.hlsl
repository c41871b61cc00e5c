// A broadcasting entry node that hands one Item per thread to the "Weigh" node.
#include "records.hlsli"

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeMaxDispatchGrid(64, 1, 1)]
[NumThreads(32, 1, 1)]
void FanOut(DispatchNodeInputRecord<Request> request,
            [MaxRecords(32)] NodeOutput<Item> Weigh,
            uint thread : SV_GroupIndex)
{
    GroupNodeOutputRecords<Item> items = Weigh.GetGroupNodeOutputRecords(32);
    items[thread].index = request.Get().first + thread;
    items[thread].weight = 1.0f;
    items.OutputComplete();
}
