"""Runtime: run work graphs compiled for the emulated target on any Vulkan device (issue 13, seed 002).

Stage: after the back ends.  Input: an emulated SPIR-V module (`--target=emulated`, one GLCompute
entry point per node, `wgc.emulation_abi`), the graph's description (`program`) and a dispatch
description (`dispatch`, the schema of `wgc run --dispatch`).  Output: the dumped resources and a
trace of every level (`run.RunResult`).

Modules: `located_json` (JSON with spans for located diagnostics), `dispatch` (the schema),
`program` (the graph as the scheduler sees it), `device` (Vulkan through PyPI `vulkan`, the only
place that imports it, lazily), `pipelines` (layouts, pipelines, descriptor sets), `scheduler`
(the host-driven level-by-level execution of the ABI), `gpu_schedule` (the GPU-driven schedule:
a whole run in one replayed command buffer, falling back to `scheduler`), `indirect_setup` (its
meta shader), `loop_probe` (does the device leave loops early?), `run` (the library API, `wgc.run`).

Invariant: importing this package imports no Vulkan binding.
"""

