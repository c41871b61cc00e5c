// Only weigh.hlsl includes this file: touching it rebuilds weigh.spv alone.
#ifndef WEIGHTS_HLSLI
#define WEIGHTS_HLSLI
static const float kWeightScale = 0.25f;

float WeightOf(uint index)
{
    return frac(index * kWeightScale) + 1.0f;
}
#endif
