"""The contract between the emulated SPIR-V target and the runtime that executes it (seed 002).

Stage: none; shared constants. `wgc.spirv` (target `emulated`) generates shaders that follow this
contract, and `wgc.runtime` sets up memory and dispatches by it. Neither side may assume anything
that is not written here; a change here is a change of `ABI_VERSION`, which the reflection output
carries so that a runtime refuses a module built for another version.

Module. SPIR-V 1.6 for Vulkan 1.3, `OpMemoryModel PhysicalStorageBuffer64 Vulkan`; no AMDX
instruction, capability or storage class. Each node is one `GLCompute` entry point (a mesh node:
`MeshEXT`, below), named as in the AMDX module. Resources keep the descriptor sets and bindings the AMDX module gives them (shader records
excepted: below).
Device features the runtime enables: `bufferDeviceAddress`, `vulkanMemoryModel`,
`scalarBlockLayout` (records are laid out with scalar rules, as in the AMDX module) and
`shaderInt64` always; the 16-bit and 64-bit features the program's own types need; subgroup
arithmetic and ballot operations in compute shaders (`SUBGROUP_OPERATIONS`). Atomics and
barriers use QueueFamily scope, never Device (no `vulkanMemoryModelDeviceScope`).

Group size. Broadcasting and coalescing nodes: their `[NumThreads]`. Thread-launch nodes:
`THREAD_GROUP_SIZE` invocations along X, one record per invocation (no subgroup size is assumed).

Specialization constant. A module may declare a u32 `OpSpecConstant` decorated `SpecId
SUBGROUP_SIZE_SPEC_ID` (default 0): the runtime gives every pipeline of the module that constant
as the device's subgroup size in compute shaders (`VkPhysicalDeviceSubgroupProperties::
subgroupSize`), so a branch on it is folded when the pipeline is made. Programs may not use that
SpecId (nor `LEVEL_TAIL_SPEC_ID`, below) for their own constants. Both directions stay compatible
within version 7: a module compiled before it has no such constant (the entry is ignored), and a
runtime that does not set it leaves 0, which takes the path for small subgroups. A module with a
compute entry point also declares a bool `OpSpecConstantTrue` decorated `SpecId
LEVEL_TAIL_SPEC_ID` ("Level tail"): the runtime may give a pipeline that it binds only for
dispatches whose NodeContext `level` is 0 the value false, which folds the tail away when the
pipeline is made; a runtime that does not set it leaves true (the tail runs where `level` is not 0,
as in version 10), and a module of version 10 has no such constant.

Push constants. The emulation owns bytes [0, 8): the `u64` device address of this dispatch's
`NodeContext`. A user `[[vk::push_constant]]` block starts at `USER_PUSH_CONSTANT_OFFSET`; the
runtime writes the user's bytes there.

Flat group index. Every dispatch is flattened: with `WorkgroupId` (x, y, z) and `NumWorkgroups`
(nx, ny, nz), `flat = group_offset + x + nx * (y + ny * z)`. The runtime chooses the dispatch shape
(at most 65535 per dimension) and may split one logical dispatch into several with increasing
`group_offset`. Groups past the end of the work exit at once (the whole group: no barrier is skipped
by only some invocations).

Inputs, per launch mode (`r` = record index, record address = `input_records + r * input_stride`;
`input_stride` 0 means every record reads record 0). Every record address (inputs, and
`records + k * stride` of outputs) is a multiple of the record's alignment, its largest scalar's
size: the shaders' loads and stores carry `Aligned` with it.
- thread: `r = flat * THREAD_GROUP_SIZE + LocalInvocationIndex`; an invocation with
  `r >= input_count` returns at once.
- coalescing (`MaxRecords` = M): the group's records are `[flat * M, min(flat * M + M, input_count))`;
  `Count()` is their number; input array index i reads record `flat * M + i`.
- broadcasting, fixed grid (gx, gy, gz) (G = gx*gy*gz): `r = flat / G`, `l = flat % G`,
  `SV_GroupID = (l % gx, (l / gx) % gy, l / (gx * gy))`; a group with `r >= input_count` exits.
- broadcasting, grid from the record (`SV_DispatchGrid`): one dispatch covers all `input_count`
  records. `grid_prefix` points at `input_count` u32s, the inclusive prefix sums of the records'
  group counts (record r asks for G_r = gx*gy*gz of its own grid; 0 where a grid has a zero
  component); a group with `flat >= grid_prefix[input_count - 1]` exits; the group's record r is
  `grid_records[flat]` where `grid_records` is not 0 (a u32 per group of the dispatch), else the
  first r with `grid_prefix[r] > flat`; `l = flat - grid_prefix[r - 1]` (0 for r = 0), and
  SV_GroupID follows from l and record r's (gx, gy, gz) as for a fixed grid. Records of 0 groups
  own no group. The runtime dispatches no group where the total is 0 (so a group that runs has
  `input_count` >= 1 and its prefix sums); a group may read `grid_prefix[min(i, input_count - 1)]`
  and `grid_records[min(flat, total - 1)]` before it knows whether it exits.
- `SV_DispatchThreadID = SV_GroupID * NumThreads + SV_GroupThreadID`; for thread launch both are 0
  and `SV_GroupIndex` 0, as in D3D12.
- Node without input (empty input `EmptyNodeInput`): records have size 0; `Count()` as above.

Outputs. `outputs` points at one `OutputParameter` per output parameter of the node, in declaration
order. Each points at `count` `OutputSlot`s, one per node-array index (a single output has one).
The NodeContext is followed by the `OutputSlot` of each output parameter that is not a node array
(reflection: no array size; in a module whose loops are unrolled in index space an output into a
loop is an array of its target's stages), in declaration order: the j-th such parameter's at `context +
NODE_CONTEXT_SIZE + j * OUTPUT_SLOT_SIZE` (`single_slot_offset`), the slot its `OutputParameter`
points at or a copy holding the same words (a runtime that splits a launch into several
dispatches gives each NodeContext its own copy).  The shaders read a single output's slot there,
at a fixed offset from the push constant's address (llvmpipe loads such a field once per
8-lane vector, where a field reached through `outputs` is a gather of 8 loads).
Stripes. The OutputParameter of a node-array output has `stripe_mask` = k << 16 | S - 1, S a power
of two (0: one stripe); it then points at S * `count` OutputSlots: stripe s of element i is slot `s *
count + i` (stripe 0 is the first `count`, as without stripes). Every allocation and output-count
increment of a group through the array uses stripe `(flat >> k) & (S - 1)` (its counter, arena and
capacity): k 0 stripes by g % S (a GPU's groups spread over the counters), a larger k by range (a CPU
implementation's worker threads, each running a contiguous range of groups, on counters of their
own); `valid` is the same in every stripe of an element. The runtime launches each stripe's
records as a launch of their own (the order of a node's input records is unspecified); it may set
stripes only on modules that know them (this version, compiled by wgc: not the AMDX translation).
An index at or beyond `count`, or a slot with `valid` 0, is not a node: `IsValid()` is false there
and every record allocated for it is the one record at `scratch` (never read back; the runtime
makes it as large as the largest record of the graph).
- Allocation of n records for a slot: `base = atomicAdd(*counter, n)` (one atomic per group for
  group-scope allocation, by invocation 0, broadcast through Workgroup memory; for thread scope one
  per subgroup and slot: the elected invocation of the subgroup's invocations that allocate from
  one slot adds their total, each one's base is the old value plus its exclusive prefix sum, for
  any subgroup size; with a node-array subscript, in a loop over the distinct indices of the
  subgroup's invocations where the subgroup has `PER_KEY_MIN_SUBGROUP` invocations or more, else
  one per invocation; a broadcasting or coalescing group whose invocations all make such a call
  once, at the entry function's top level, on an array of at most its invocations and 64
  elements, counts per element in Workgroup memory and adds once per group and element, where
  the subgroup size is `PER_KEY_MIN_SUBGROUP` or more); record k
  is at `records + (base + k) * stride`.  (The runtime sees
  only the counters' final values, the same however the atomics are grouped.)
  A static allocation needs no result from the counter: a `Get{Thread,Group}NodeOutputRecords(c)`
  with a constant `c` on an output without a node-array subscript, which the node's entry function
  calls exactly once in every invocation that passes the prologue (a statement of its top level,
  no `return` before it, the output named nowhere else) places the records of group `g = flat -
  first_group` (the slot's) at `base = g * K + LocalInvocationIndex * c` for thread scope (K = c *
  the group's invocations: NumThreads, or THREAD_GROUP_SIZE for thread launch) and `base = g * c`
  for group scope, and invocation 0 adds the group's total to `*counter` (thread launch: c times its
  invocations whose record is below `input_count`).  Groups leave the prologue only past the last
  record, so the records of a launch still fill `[0, *counter)` exactly.  If `base + n > capacity` the shader
  sets `STATUS_OUT_OF_RECORDS` in `*status` (atomic or) and uses `scratch` for those records; the
  runtime then fails the run with an error naming the node (it sizes arenas from the MaxRecords
  bounds, so this only happens past the memory limit it was given).
- Empty outputs (`EmptyNodeOutput`): `{Group,Thread}IncrementOutputCount(c)` add c to `*counter`
  (group scope: once per group, by invocation 0).
- A thread-launch group is one thread: its group-scope calls are per invocation.
- `OutputComplete()` needs no instruction: the runtime reads outputs only after the dispatch
  (modules with checks test the records there: "Check reports" below).

Mesh nodes (`[NodeLaunch("mesh")]`: leaves, no outputs). A mesh node is one `MeshEXT` entry point
(capability `MeshShadingEXT`, SPV_EXT_mesh_shader; `LocalSize` its [NumThreads], `OutputVertices`,
`OutputPrimitivesEXT` and the topology mode from its declaration) with the same push constants,
NodeContext and prologue as a broadcasting node: the runtime draws each launch with
`vkCmdDrawMeshTasksEXT` (GPU-driven: `vkCmdDrawMeshTasksIndirectEXT`) over (nx, ny, 1) groups per
NodeContext, so `flat`, the record index (`flat / G`, fixed grid; the search of `grid_prefix` with a
record's `SV_DispatchGrid`) and `SV_GroupID` are computed exactly as above from `WorkgroupId` and
`NumWorkgroups` (both valid in MeshEXT); a group past its records or grid returns before
`OpSetMeshOutputsEXT`, so it outputs no primitive. The runtime keeps each draw within
`maxMeshWorkGroupCount` and `maxMeshWorkGroupTotalCount` (splitting into several draws with
increasing `group_offset`). The module also holds the library's
pixel shaders as `Fragment` entry points (no NodeContext); a mesh node's outputs and the pixel
shader's inputs get the same Locations (`irtools/stageio.py`), per-primitive ones `PerPrimitiveEXT`.
Push constants and descriptor sets are visible to the compute, mesh and fragment stages in a graph
that draws. Device features: VK_EXT_mesh_shader's `meshShader` (and `meshShaderQueries`, where the
device has it, for the primitive counts of `--trace`).

Level tail (GPU-driven runs: one dispatch and one barrier per level). Every `GLCompute` entry point
is a function that calls the node's own entry function (the prologue and the body above: an
invocation or group that "exits" returns from it) and then runs the tail, where NodeContext's
`level` is not 0, in every invocation: a workgroup barrier (Workgroup execution, QueueFamily memory
scope, acquire-release of uniform and workgroup memory); then invocation 0 adds 1 to the `done`
word of the `LEVEL` block there (QueueFamily scope, acquire-release) and tells the group, through a
Workgroup word and a second such barrier, whether it brought it to `expected` (the number of
workgroups the level's dispatches have, all of them: groups past the end of the work run the tail
too); that group sets up the next level, its invocations in parallel (entry i by the invocation
whose LocalInvocationIndex is i mod its workgroup's size, 2 Workgroup words for the tail in all):
for each of the `launch_count` entries
(`LEVEL_LAUNCH`) of the table at `launches`, count = min(*source, source_capacity) where `source`
is not 0 (an atomic load), else `count`; it writes count to the launch's NodeContext `input_count`,
groups = ceil(count * group_mul / group_div) as the launch's `VkDispatchIndirectCommand` at
`indirect` (x = min(groups, max_x), y = ceil(groups / x), 1; 0, 0, 1 for no group), and for each of
its `fix_count` `LEVEL_FIX` entries at `fixes` the `capacity` of the OutputSlot at `slot`:
min(units * per_unit, reserved) with units = ceil(count * group_mul / unit_div); for each of the
`grid_count` entries (`LEVEL_GRID_LAUNCH`) of the table at `grid_launches` (launch j by the
invocation whose index is (launch_count + j) mod the workgroup's size), what the runtime's grid-scan
shader writes (`wgc/runtime/grid_setup.py`), record after record: the count as above into
`input_count`; each record r's grid (`grid_components` components of `grid_bits` bits at `grid_at`,
missing ones 1; a 16-bit one read from the aligned word holding it) and its groups n_r = x * y * z,
0 where a component is beyond `max_grid`; the inclusive prefix sums of n_r at `prefix`, n_r at
`shared` where it is not 0; the result words (`LEVEL_GRID_RESULT_WORDS`: the total, the first
record beyond `max_grid` or `LEVEL_NO_RECORD`, its grid); the total split as x = min(total, max_x),
y = min(ceil(total / x), max_y), z = ceil(that / y) at `indirect`; and the fixes' capacities with
units = the total (`table` is not written: its launches' NodeContexts have `grid_records` 0). It
writes the sum of the launches' x * y (x * y * z) into the `expected` word of the `LEVEL` block at
`next`; where that sum is 0 it writes input_count 0 and x = y = 0 for every launch of both tables
of the blocks from `next` on (block after block through `next`, until a block whose `launch_count`
and `grid_count` are 0); and it sets `done` back to 0 (an atomic store), for the next run. The
`LEVEL_LAUNCH` entries' fields after `max_x` are not read. The `LEVEL` block's fields other than
`done` and `expected`, and the entries of its tables, are the runtime's, written before the run and
not changed during it: the tail may read them before its first barrier. A `level` of 0 (host-driven
runs, and levels whose next level the runtime sets up itself) makes the tail nothing, and so does
the specialization constant `LEVEL_TAIL_SPEC_ID` false (a pipeline only for such dispatches: then
the tail's barriers and Workgroup words are not in the device's code; llvmpipe pays for them in
every workgroup even where the tail is skipped). Mesh entry points have no tail.

Recursion and loops. `remaining_recursion_levels` and `loop_iteration` are per dispatch: the
runtime keeps records of one node apart by the value they were produced for, and an output of a node
to itself targets the slot of level `remaining - 1`. `shader_index` is the running node's index (its
NodeID index; ShaderIndexAMDX): a module whose loops are unrolled in index space
(`--loops=index-space`, `wgc.sema.stages`) reads its iteration from it, and its outputs into loops
index their target's stages.

Cross-group sharing. `shared_counters + 4 * r` holds, for record r, the number of its groups that
have not yet called `FinishedCrossGroupSharing()`; the runtime initialises it to G (G_r for a grid
from the record). Invocation 0
decrements it (device scope, acquire-release); the call returns true in the group that saw 1.

Local root arguments. `local_root_arguments` is the address of this node's table entry,
`table + stride * [NodeLocalRootArgumentsTableIndex]` (0 if the node has no index or the dispatch no
table). A `[[vk::shader_record_ext]]` block is read there, in its own layout (as the reflection
gives it), through a `PhysicalStorageBuffer` pointer; it takes no descriptor. The runtime refuses a
run in which a node reading such a block has no index or its entry lies past the table.

Check reports (`wgc run --check`; modules compiled with `checks`, others never read the field).
`checks` is the u64 address of the run's report buffer, which the runtime gives every dispatch of
an instrumented module. The buffer: a `CHECKS_HEADER_SIZE`-byte header, `u32 count` at 0 (reports
attempted: every report adds 1 atomically, including those that do not fit) and `u32 capacity` at 4
(report slots after the header); then `capacity` reports of `CHECK_REPORT_SIZE` bytes. A report
whose `count` slot is at or past `capacity` is not written (the runtime reports the overflow,
count - capacity). A report (`CHECK_REPORT`, u32 words unless noted): `kind` (a `CHECK_*` value),
`file` (the result id of the module's `OpString` naming the source file; modules with checks are
compiled with line info), `line` and `column` (1-based), `group` (the flat group index),
`thread` (LocalInvocationIndex), `record` (the input record's index in the dispatch, coalescing:
the group's first; 0xFFFFFFFF where unknown: outside the node's entry function), `value`, `limit` and `detail` (per kind, below),
and `context` (u64: the address of the reporting dispatch's NodeContext, which names the node and
the level for the runtime).
- `CHECK_BUFFER_INDEX`: a structured or byte-address buffer element past the buffer's end:
  `value` the element (byte-address: 32-bit word) index, `limit` the buffer's element count,
  `detail` = set << 16 | binding of the buffer.
- `CHECK_INPUT_INDEX`: an input record read at an index at or past `Count()`: `value` the index,
  `limit` Count().
- `CHECK_MAX_RECORDS`: a thread group's allocations on an output went past its `MaxRecords`:
  `value` the records the group had asked for when it went past, `limit` MaxRecords, `detail` the
  output's index (declaration order). Reported once per group and output.
- `CHECK_MAX_RECORDS_PER_NODE`: the same for one element of a node array and its
  `MaxRecordsPerNode` (arrays of a known size up to 64): `detail` = element index << 16 | output
  index. Reported once per group and element.
- `CHECK_UNWRITTEN_RECORD`: at `OutputComplete()`, an output record every word of which still
  holds `CHECK_POISON` (instrumented modules fill output records with it when they allocate them:
  records whose size and alignment are multiples of 4 bytes): `value` the record's index in the
  allocation, `limit` the records allocated, `detail` the output's index.
- `CHECK_NOT_COMPLETED`: the node's entry function returned after an allocation whose
  `OutputComplete()` it did not reach (reported at the allocation's line): `detail` the output's
  index.
- `CHECK_UNINITIALISED_READ`: a node read a 32-bit scalar or vector field of its input record that
  holds `CHECK_POISON` in a word (a field its producer never wrote): `value` the word read.
- `CHECK_TEXEL_INDEX`: a texel of a texture or typed buffer past its size (of the accessed mip
  level): `value` the coordinate's first component past it, `limit` that dimension's size (array
  layers last), `detail` = set << 16 | component << 12 | binding (binding < 4096).
Prints. A module whose code calls `printf` describes each distinct call (format and argument
types) in an `OpString` whose text is `PRINT_FORMAT_PREFIX` followed by JSON: `{"id": k,
"format": the format as written, "args": one entry per argument, "strings": [...]}` and, where the
compiler knows the call's place, `"file"`, `"line"`, `"column"` (optional; the runtime shows them
in `--report`); an argument
entry is a letter, `u` (uint32), `i` (int32), `f` (float32), `b` (bool, 0 or 1), `U`, `I`, `F`
(uint64, int64, double: two words, low first) or `s` (a string literal: the next of `strings`,
no word), followed by the component count for a vector (`f3`). NodeContext's `prints` is the
address of the print buffer (0: none; the call then does nothing): a header `PRINT_BUFFER` and
`capacity` words of records after it. A call takes `n` = `PRINT_RECORD_HEADER_WORDS` + its argument
words by `atomicAdd(used, n)` (by `atomicAdd(used, 0)` where an atomic load of `used` already
reaches `capacity`: then it does not fit); where `base + n <= capacity` it writes, at word `base` of the
records: `n`, `k`, the NodeContext address (low, high), the flat group index, the invocation's
`LocalInvocationIndex`, the record index of the prologue (the invocation's record for thread
launch, the group's for broadcasting, the group's first for coalescing), then the argument words,
components in order; otherwise it adds 1 to `lost` and, where `base < capacity`, writes a size
of 0 at word `base` (the records end there: every later call fails too).

Loop budget. Each invocation counts the iterations of its loops (each time a loop's header runs,
the exiting test included, as llvmpipe counts them: the block after the header adds one to a
Private u32 that starts at 0; a counted loop with constant bounds adds its header runs where it is
left instead, `wgc.spirv.emulated_loops`, so the count is never below the true one); where a loop is left (its merge block: once per run of the loop,
not per iteration) an invocation whose count has reached `LOOP_BUDGET` sets `STATUS_LOOP_BUDGET`
in `*status` (atomic or). The runtime then probes the device (`wgc.runtime.loop_probe`) and reports it
where the device stops loops there (Mesa 22's lavapipe), where the results may be wrong, and ignores it
elsewhere (Mesa 25's lavapipe, GPUs). The runtime zeroes `used` and `lost` before a
submit and reads the records in order of `base` after it. (64-bit values are split, so a record
is words; the order of records of different invocations is the device's.)
"""

from __future__ import annotations

ABI_VERSION = 12
"""2: thread-scope allocation per subgroup (subgroup operations required); NodeContext's
`shader_index` (was reserved), read by modules whose loops are unrolled in index space.
3: NodeContext's `prints` (the print buffer) and `checks` (the check-report buffer of `wgc run
--check`), 88 bytes.
4: mesh nodes as MeshEXT entry points drawn with vkCmdDrawMeshTasksEXT, and the pixel shaders beside
them ("Mesh nodes"); no NodeContext change.
5: a broadcasting node whose grid comes from its record runs all its records in one dispatch: the
group finds its record by NodeContext's `grid_prefix` and `grid_records` (new, 104 bytes).
6: static allocation (an OutputSlot's `first_group`, was reserved): a call made once by every
invocation places its records by group index, with one atomic per group and no subgroup operation.
7: every compute entry point ends with the level tail ("Level tail"): NodeContext's `level` (new,
112 bytes) and the `LEVEL`, `LEVEL_LAUNCH` and `LEVEL_FIX` layouts.
8: the OutputSlot of every output that is not a node array follows the NodeContext ("Outputs"), so
that the shaders read its fields at fixed offsets from the push constant's address.
9: the tail also sets up launches whose grid comes from their records (`LEVEL` 40 bytes: its
`grid_count` and `grid_launches`, the `LEVEL_GRID_LAUNCH` table); the last group's invocations share
the launches out, through two Workgroup words.
10: stripes: an OutputParameter's `stripe_mask` (was reserved) splits each node-array element into
stripes - 1 more OutputSlots after the first `count`; a group allocates from stripe `flat &
stripe_mask` ("Outputs"), so that many groups do not all add to one counter.
11: the tail runs only where the bool specialization constant `LEVEL_TAIL_SPEC_ID` (new, default
true) is true, so that the runtime makes the pipelines of dispatches without a tail without it
("Specialization constant", "Level tail").
12: the OutputParameter's `stripe_mask` also holds a shift k (bits 16 and up): a group uses stripe
`(flat >> k) & (S - 1)`, so that a CPU implementation's workers, each running a contiguous range of
groups, stripe by range ("Stripes")."""

SUBGROUP_OPERATIONS = 0x1 | 0x8 | 0x10
"""VkSubgroupFeatureFlags the shaders use in compute: BASIC, ARITHMETIC, BALLOT."""

THREAD_GROUP_SIZE = 32
"""Invocations per group of a thread-launch node in the emulated module."""

PER_KEY_MIN_SUBGROUP = 16
"""The smallest subgroup on which thread-scope allocation through a node-array subscript is
aggregated per distinct index ("Outputs"); smaller subgroups (llvmpipe's 8) add per invocation."""

SUBGROUP_SIZE_SPEC_ID = 0x7FFF0000
"""The SpecId of the emulation's subgroup-size specialization constant ("Specialization constant")."""

LEVEL_TAIL_SPEC_ID = 0x7FFF0001
"""The SpecId of the emulation's bool level-tail switch ("Specialization constant", "Level tail")."""

USER_PUSH_CONSTANT_OFFSET = 16
"""Byte offset of a user `[[vk::push_constant]]` block in the emulated module's push constants."""

# NodeContext: the per-dispatch parameters, little-endian, at the address in push constants.
# name -> (byte offset, size in bytes)
NODE_CONTEXT = {
    "input_records": (0, 8),
    "input_count": (8, 4),
    "input_stride": (12, 4),
    "outputs": (16, 8),
    "status": (24, 8),
    "scratch": (32, 8),
    "remaining_recursion_levels": (40, 4),
    "loop_iteration": (44, 4),
    "group_offset": (48, 4),
    "shader_index": (52, 4),
    "shared_counters": (56, 8),
    "local_root_arguments": (64, 8),
    "prints": (72, 8),
    "checks": (80, 8),
    "grid_prefix": (88, 8),
    "grid_records": (96, 8),
    "level": (104, 8),
}
NODE_CONTEXT_SIZE = 112
NODE_CONTEXT_ALIGNMENT = 8

# OutputParameter: one per output parameter, 16 bytes.
OUTPUT_PARAMETER = {
    "slots": (0, 8),   # u64 address of `count` OutputSlots
    "count": (8, 4),   # u32 number of node-array indices covered (slots per stripe)
    "stripe_mask": (12, 4),  # u32 k << 16 | stripes - 1 (a power of two; 0: one stripe) ("Stripes")
}
OUTPUT_PARAMETER_SIZE = 16

# OutputSlot: one per (output, array index), 32 bytes.
OUTPUT_SLOT = {
    "records": (0, 8),   # u64 base address of the target's record arena
    "counter": (8, 8),   # u64 address of the u32 count of records allocated so far
    "capacity": (16, 4),  # u32 records the arena holds
    "stride": (20, 4),   # u32 bytes between records (the target's record size, rounded to its alignment)
    "valid": (24, 4),    # u32 1 when a node exists at this index
    "first_group": (28, 4),  # u32 the flat group index of the launch's first group (Outputs: static allocation)
}
OUTPUT_SLOT_SIZE = 32


def single_slot_offset(j: int) -> int:
    """Byte offset from a NodeContext of the OutputSlot of its j-th output parameter that is not a
    node array ("Outputs")."""
    return NODE_CONTEXT_SIZE + j * OUTPUT_SLOT_SIZE


# The level tail ("Level tail" above). LEVEL: one per level of a GPU-driven run.
LEVEL = {
    "done": (0, 4),          # u32 workgroups of the level that have finished (atomic)
    "expected": (4, 4),      # u32 workgroups the level's dispatches have
    "launches": (8, 8),      # u64 address of the next level's LEVEL_LAUNCH table
    "launch_count": (16, 4),  # u32 entries in it
    "grid_count": (20, 4),   # u32 entries of the LEVEL_GRID_LAUNCH table at `grid_launches`
    "next": (24, 8),         # u64 address of the next level's LEVEL block
    "grid_launches": (32, 8),  # u64 address of the next level's LEVEL_GRID_LAUNCH table
}
LEVEL_SIZE = 40
# LEVEL_LAUNCH: one per indirect dispatch of the next level (also the runtime's meta shader's table).
LEVEL_LAUNCH = {"source": (0, 8), "context": (8, 8), "indirect": (16, 8), "fixes": (24, 8), "count": (32, 4),
                "source_capacity": (36, 4), "group_mul": (40, 4), "group_div": (44, 4), "unit_div": (48, 4),
                "fix_count": (52, 4), "max_x": (56, 4), "record": (60, 4), "grid": (64, 8), "grid_at": (72, 4),
                "grid_components": (76, 4), "max_grid": (80, 12)}
LEVEL_LAUNCH_SIZE = 96
# LEVEL_GRID_LAUNCH: one per launch of the next level whose grid comes from its records (also the table of
# the runtime's grid-scan meta shader, `wgc/runtime/grid_setup.py`, which describes the fields).
LEVEL_GRID_LAUNCH = {"source": (0, 8), "context": (8, 8), "indirect": (16, 8), "fixes": (24, 8), "prefix": (32, 8),
                     "shared": (40, 8), "result": (48, 8), "count": (56, 4), "source_capacity": (60, 4),
                     "fix_count": (64, 4), "grid_at": (68, 4), "grid_bits": (72, 4), "grid_components": (76, 4),
                     "max_grid": (80, 12), "max_x": (92, 4), "max_y": (96, 4), "max_z": (100, 4), "table": (104, 8)}
LEVEL_GRID_LAUNCH_SIZE = 112
LEVEL_GRID_RESULT_WORDS = 5
"""u32 words at a LEVEL_GRID_LAUNCH's `result`: total groups, the first record whose grid is beyond
`max_grid` (LEVEL_NO_RECORD where none is), and that record's grid x, y, z."""
LEVEL_NO_RECORD = 0xFFFFFFFF
# LEVEL_FIX: one per output slot of a launch whose capacity follows its groups.
LEVEL_FIX = {"slot": (0, 8), "per_unit": (8, 4), "reserved": (12, 4)}
LEVEL_FIX_SIZE = 16

# The check-report buffer (module docstring).
CHECKS_HEADER_SIZE = 16
CHECK_REPORT = {
    "kind": (0, 4), "file": (4, 4), "line": (8, 4), "column": (12, 4), "group": (16, 4),
    "thread": (20, 4), "record": (24, 4), "value": (28, 4), "limit": (32, 4), "detail": (36, 4),
    "context": (40, 8),
}
CHECK_REPORT_SIZE = 48
CHECK_BUFFER_INDEX = 1
CHECK_INPUT_INDEX = 2
CHECK_MAX_RECORDS = 3
CHECK_TEXEL_INDEX = 4
CHECK_MAX_RECORDS_PER_NODE = 5
CHECK_UNWRITTEN_RECORD = 6
CHECK_UNINITIALISED_READ = 7
CHECK_NOT_COMPLETED = 8
CHECK_POISON = 0xFFBADBAD
"""The word an instrumented module fills each output record with when it allocates it (a NaN as a
float)."""
CHECK_NO_RECORD = 0xFFFFFFFF
# The print buffer's header (module docstring, "Prints"); its records follow at PRINT_HEADER_SIZE.
PRINT_BUFFER = {
    "used": (0, 4),      # u32 words allocated so far (atomic; may grow past `capacity`)
    "capacity": (4, 4),  # u32 words of records the buffer holds
    "lost": (8, 4),      # u32 prints that did not fit (atomic)
    "reserved": (12, 4),
}
PRINT_HEADER_SIZE = 16
PRINT_RECORD_HEADER_WORDS = 7
"""A print record's words before its arguments: size, format, context (2), group, thread, record."""
PRINT_FORMAT_PREFIX = "wgc.printf:"
"""How an OpString describing a print format starts (module docstring, "Prints")."""

# Bits of the u32 status word.
STATUS_OUT_OF_RECORDS = 1
STATUS_LOOP_BUDGET = 1 << 8
"""An invocation reached LOOP_BUDGET loop iterations (module docstring, "Loop budget")."""

LOOP_BUDGET = 65535
"""Loop iterations after which Mesa 22's llvmpipe (lavapipe) leaves every loop of an invocation: one
budget for all the loops of a shader (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS; Mesa 25's has none)."""
