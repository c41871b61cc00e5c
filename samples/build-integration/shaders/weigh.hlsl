// A thread node that weighs each Item and accumulates the result.
#include "records.hlsli"
#include "weights.hlsli"

RWStructuredBuffer<float> Totals : register(u0);

[Shader("node")]
[NodeLaunch("thread")]
void Weigh(ThreadNodeInputRecord<Item> item)
{
    Totals[item.Get().index % 64] = WeightOf(item.Get().index) * item.Get().weight;
}
