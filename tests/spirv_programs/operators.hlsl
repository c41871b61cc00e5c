// Binary operators by signedness, in HLSL's usual arithmetic conversions: int op uint is uint,
// a shift takes the left operand's type. One statement per operator, in this order
// (test_spirv_programs.py::test_operator_opcodes_follow_signedness checks the sequence).
RWStructuredBuffer<int> I : register(u0);
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<float> F : register(u2);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(1, 1, 1)]
void Operators()
{
    int a = I[0];
    int b = I[1];
    uint u = U[0];
    uint v = U[1];
    float x = F[0];
    float y = F[1];
    I[2] = a >> b;      // OpShiftRightArithmetic
    U[2] = u >> v;      // OpShiftRightLogical
    I[3] = a >> v;      // left int: OpShiftRightArithmetic
    U[3] = u >> b;      // left uint: OpShiftRightLogical
    I[4] = a << b;      // OpShiftLeftLogical
    I[5] = a % b;       // OpSRem (C/HLSL truncation: the sign of the dividend)
    U[4] = u % v;       // OpUMod
    U[5] = a % v;       // int % uint is uint: OpUMod
    F[2] = x % y;       // OpFRem (the sign of x, as fmod)
    I[6] = a / b;       // OpSDiv
    U[6] = u / v;       // OpUDiv
    U[7] = a / v;       // OpUDiv
    F[3] = x / y;       // OpFDiv
    U[8] = a < b;       // OpSLessThan
    U[9] = a < v;       // OpULessThan
    U[10] = x < y;      // OpFOrdLessThan
    U[11] = a >= v;     // OpUGreaterThanEqual
    I[7] = -a;          // OpSNegate
    I[8] = ~a;          // OpNot
    I[9] = a * b;       // OpIMul
    I[10] = a - b;      // OpISub
    U[12] = u ^ v;      // OpBitwiseXor
    U[13] = x != y;     // OpFUnordNotEqual
    int shifted = a;
    shifted >>= 3;      // compound: OpShiftRightArithmetic
    I[11] = shifted;
    uint ushifted = u;
    ushifted >>= 3;     // compound: OpShiftRightLogical
    U[14] = ushifted;
}
