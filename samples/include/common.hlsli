//=============================================================================
// include/common.hlsli -- small helpers shared by the wgc samples.
//
// Demonstrates: `#pragma once` together with a classic include guard (both are
// used on purpose: the guard keeps the header safe for preprocessors that do
// not know `#pragma once`), object-like and function-like macros, a
// `static const` global and plain helper functions.
//
// Included by syntax_tour.hlsl as `#include "include/common.hlsli"` (found
// relative to the including file).
//=============================================================================
#pragma once
#ifndef WGC_SAMPLES_COMMON_HLSLI
#define WGC_SAMPLES_COMMON_HLSLI

#define WGC_TILE_SIZE        8
#define WGC_MIN_U(x, hi)     min((x), (hi))

static const float kWgcEpsilon = 1e-4f;

// A well-mixed 32-bit integer hash (lowbias32).
uint wgcHash(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Hash to a float in [0, 1).
float wgcHashToUnit(uint x)
{
    return (float)(wgcHash(x) & 0xFFFFFFu) / 16777216.0f;
}

#endif // WGC_SAMPLES_COMMON_HLSLI
