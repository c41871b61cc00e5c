// Structured control flow: if/else with [branch], for with break/continue, [unroll] while,
// do-while, switch with fallthrough and default, short-circuit && and ||, ?: on scalars.
RWStructuredBuffer<uint> U : register(u0);

uint Collatz(uint n)
{
    uint steps = 0;
    while (n != 1) {
        n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
        steps++;
    }
    return steps;
}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(1, 1, 1)]
void ControlFlow()
{
    uint n = U[0];
    uint total = 0;
    [branch] if (n > 4) {
        total = 1;
    } else {
        total = 2;
    }
    for (uint i = 0; i < n; i++) {
        if (i == 3)
            continue;
        if (i == 7)
            break;
        total += i;
    }
    do {
        total--;
    } while (total > 100);
    switch (n) {
    case 0:
        total += 10;
    case 1:
        total += 20;
        break;
    default:
        total += 30;
        break;
    }
    if (n > 1 && U[1] != 0 || n == 9)
        total *= 2;
    U[2] = total + Collatz(n + 1);
}
