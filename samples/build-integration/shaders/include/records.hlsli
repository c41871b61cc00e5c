// Records shared by both shaders of the build-integration samples (samples/cmake, samples/meson).
#ifndef RECORDS_HLSLI
#define RECORDS_HLSLI
struct Request
{
    uint3 grid : SV_DispatchGrid;
    uint  first;
};

struct Item
{
    uint index;
    float weight;
};
#endif
