//=============================================================================
// include/records.hlsli -- node record structs used by syntax_tour.hlsl.
//
// Demonstrates: `#pragma once` plus an include guard, a record field with the
// `SV_DispatchGrid` semantic and single inheritance between record structs.
//
// syntax_tour.hlsl includes it as `#include <records.hlsli>`, so the compiler
// must be given `-I samples/include`.
//=============================================================================
#pragma once
#ifndef WGC_SAMPLES_RECORDS_HLSLI
#define WGC_SAMPLES_RECORDS_HLSLI

// Input of the broadcasting entry node TourEntry ([NodeMaxDispatchGrid]):
// the application chooses the grid size per record.
struct EntryRecord
{
    uint3 grid : SV_DispatchGrid;   // x = number of thread groups, y = z = 1
    uint  itemCount;                // number of valid work items
    float scale;
};

struct WorkItemBase
{
    uint id;
    uint flags;
};

// Single inheritance: WorkItem = { id, flags, value } (20 bytes).
struct WorkItem : WorkItemBase
{
    float3 value;
};

struct CoalesceItem
{
    uint  key;
    float weight;
};

#endif // WGC_SAMPLES_RECORDS_HLSLI
