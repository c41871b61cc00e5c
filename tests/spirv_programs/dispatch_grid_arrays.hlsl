// SV_DispatchGrid arrays: stored as vectors (PayloadDispatchIndirectAMDX takes a scalar or a 2/3-vector),
// element accesses become vector component accesses, whole-record copies convert (16-bit too).
struct Rec { uint grid[3] : SV_DispatchGrid; uint v; };
struct Rec16 { uint16_t grid[2] : SV_DispatchGrid; uint16_t pad; uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Root([MaxRecords(1)] NodeOutput<Rec> Grid, [MaxRecords(1)] NodeOutput<Rec16> Grid16) {
    ThreadNodeOutputRecords<Rec> r = Grid.GetThreadNodeOutputRecords(1);
    for (uint i = 0; i < 3; i++) r.Get().grid[i] = i + 1;
    r.Get().v = r.Get().grid[1];
    r.OutputComplete();
    ThreadNodeOutputRecords<Rec16> s = Grid16.GetThreadNodeOutputRecords(1);
    Rec16 whole;
    whole.grid[0] = 2; whole.grid[1] = 3; whole.pad = 0; whole.v = 7;
    s.Get() = whole;
    s.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,4,4)] [NumThreads(1,1,1)]
void Grid(DispatchNodeInputRecord<Rec> input) { Rec copy = input.Get(); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,4,1)] [NumThreads(1,1,1)]
void Grid16(DispatchNodeInputRecord<Rec16> input) { uint x = input.Get().grid[1]; }
