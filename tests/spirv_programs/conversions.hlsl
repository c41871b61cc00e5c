// Conversions between scalar kinds and widths, in this order.
RWStructuredBuffer<int> I : register(u0);
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<float> F : register(u2);
RWStructuredBuffer<int64_t> L : register(u3);
RWStructuredBuffer<half> H : register(u4);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(1, 1, 1)]
void Conversions()
{
    int a = I[0];
    uint u = U[0];
    float x = F[0];
    F[1] = (float)a;        // OpConvertSToF
    F[2] = (float)u;        // OpConvertUToF
    I[1] = (int)x;          // OpConvertFToS
    U[1] = (uint)x;         // OpConvertFToU
    U[2] = (uint)a;         // OpBitcast
    L[0] = (int64_t)a;      // OpSConvert
    L[1] = (int64_t)u;      // OpUConvert, then OpBitcast
    H[0] = (half)x;         // OpFConvert
    U[3] = (bool)a;         // OpINotEqual, then OpSelect
    I[2] = (int)(x != 0);   // OpFUnordNotEqual, then OpSelect
}
