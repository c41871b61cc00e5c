//=============================================================================
// seed_loops_nested.hlsl -- "Nested Loop Example" of the Work Graph Loops
// proposal (hlsl-specs PR #770), made complete and valid.
//
// Demonstrates nested loops: the inner loop (MyInnerLoopEntry, MyLoopTerminal)
// lies inside the outer loop (MyOuterLoopEntry). MyLoopTerminal belongs to the
// inner-most loop even though it also outputs directly to the outer entry.
//
//   MyOuterLoopEntry -> MyInnerLoopEntry -> MyLoopTerminal
//                              ^                 |  |
//                              +-----------------+  |   (next inner iteration)
//   MyOuterLoopEntry <------------------------------+   (next outer iteration)
//
// The graph computes a small 2D table: the outer loop walks rows, the inner
// loop walks the columns of a row; each visited cell is written to a UAV.
// GetCurrentLoopIterationIndex() in MyLoopTerminal is the *inner* loop's
// iteration index (the terminal belongs to the inner-most loop; the inner
// loop restarts at 0 each time MyOuterLoopEntry, outside it, feeds it), so
// the row index travels in the record instead.
//
// Fixes relative to the proposal text:
//  1. RECORD, MAX_OUTER_ITERATIONS and MAX_INNER_ITERATIONS are defined; the
//     bodies allocate, fill and complete their output records.
//  2. Every output has the required [MaxRecords(n)].
//  3. The lower-case output names would target nonexistent nodes: each output
//     carries [NodeID("...")] naming the real node.
//  4. MyOuterLoopEntry is targeted (by MyLoopTerminal), so it is not an
//     implied entry: it is marked [NodeIsProgramEntry].
//  5. MyLoopTerminal sends at most one record per input (inner OR outer OR
//     none), which is what [NodeMaxRecordsPerLoopIteration(1)] promises for
//     both loop entries.
//=============================================================================

#ifndef MAX_OUTER_ITERATIONS
#define MAX_OUTER_ITERATIONS 8
#endif
#ifndef MAX_INNER_ITERATIONS
#define MAX_INNER_ITERATIONS 8
#endif
#define RECORD CellRecord

RWStructuredBuffer<uint> Table : register(u0);   // MAX_OUTER x MAX_INNER cells per table

struct CellRecord
{
    uint table;     // which table (one per input record)
    uint row;       // outer loop position
    uint column;    // inner loop position
    uint rows;      // requested size, clamped to the loop limits
    uint columns;
};

[Shader("node")]
[NodeLaunch("thread")]
[NodeIsProgramEntry]
[NodeMaxLoopIterations(MAX_OUTER_ITERATIONS)]
[NodeMaxRecordsPerLoopIteration(1)]
void MyOuterLoopEntry(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyInnerLoopEntry")] NodeOutput<RECORD> myInnerLoopEntry)
{
    // ... dispatch records to MyInnerLoopEntry: start a new row at column 0.
    RECORD r = input.Get();
    ThreadNodeOutputRecords<RECORD> rec = myInnerLoopEntry.GetThreadNodeOutputRecords(1);
    rec.Get().table   = r.table;
    rec.Get().row     = min(r.row, (uint)MAX_OUTER_ITERATIONS - 1);   // 0 from the app, then +1 per outer iteration
    rec.Get().column  = 0;
    rec.Get().rows    = min(r.rows, (uint)MAX_OUTER_ITERATIONS);
    rec.Get().columns = min(r.columns, (uint)MAX_INNER_ITERATIONS);
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeMaxLoopIterations(MAX_INNER_ITERATIONS)]
[NodeMaxRecordsPerLoopIteration(1)]
void MyInnerLoopEntry(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyLoopTerminal")] NodeOutput<RECORD> myLoopTerminal)
{
    // ... dispatch records to MyLoopTerminal
    // MyInnerLoopEntry is an inner loop entry node, within MyOuterLoopEntry
    RECORD r = input.Get();
    ThreadNodeOutputRecords<RECORD> rec = myLoopTerminal.GetThreadNodeOutputRecords(1);
    rec.Get().table   = r.table;
    rec.Get().row     = r.row;
    rec.Get().column  = r.column;
    rec.Get().rows    = r.rows;
    rec.Get().columns = r.columns;
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("thread")]
void MyLoopTerminal(
    ThreadNodeInputRecord<RECORD> input,
    [MaxRecords(1)] [NodeID("MyInnerLoopEntry")] NodeOutput<RECORD> myInnerLoopEntry,
    [MaxRecords(1)] [NodeID("MyOuterLoopEntry")] NodeOutput<RECORD> myOuterLoopEntry)
{
    // MyLoopTerminal invokes MyInnerLoopEntry's next iteration when it outputs records to MyInnerLoopEntry
    // MyLoopTerminal invokes MyOuterLoopEntry's next iteration when it outputs records to MyOuterLoopEntry
    // MyLoopTerminal is considered part of MyInnerLoopEntry's loop (inner-most loop)
    RECORD r = input.Get();
    uint cell = (r.table * MAX_OUTER_ITERATIONS + r.row) * MAX_INNER_ITERATIONS + r.column;
    Table[cell] = (r.row << 16) | r.column;

    bool nextColumn = r.column + 1 < r.columns
                   && GetCurrentLoopIterationIndex() + 1 < MAX_INNER_ITERATIONS;
    bool nextRow    = !nextColumn && r.row + 1 < r.rows;

    ThreadNodeOutputRecords<RECORD> inner = myInnerLoopEntry.GetThreadNodeOutputRecords(nextColumn ? 1 : 0);
    if (nextColumn)
    {
        inner.Get().table   = r.table;
        inner.Get().row     = r.row;
        inner.Get().column  = r.column + 1;
        inner.Get().rows    = r.rows;
        inner.Get().columns = r.columns;
    }
    inner.OutputComplete();

    ThreadNodeOutputRecords<RECORD> outer = myOuterLoopEntry.GetThreadNodeOutputRecords(nextRow ? 1 : 0);
    if (nextRow)
    {
        outer.Get().table   = r.table;
        outer.Get().row     = r.row + 1;
        outer.Get().column  = 0;
        outer.Get().rows    = r.rows;
        outer.Get().columns = r.columns;
    }
    outer.OutputComplete();
}
