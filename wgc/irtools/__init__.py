"""The IR's own facilities, below sema (naga's `proc/` layer): what sema, the back ends and the
views share about the IR without any rule of the language.

Stage: between `wgc.ir` and sema. Input: the checked IR (`wgc.ir`, `wgc.types`). Output: walks
(`walk`), layouts (`layout`), constant values (`consteval`).
Invariants: `wgc.ir` and the modules here import nothing from `wgc.sema`, the back ends
(`wgc.spirv`) or the views (`wgc.metadata`, `wgc.irdump`); they report no diagnostics and never
modify the IR (beyond the walks and layouts they keep as caches).
"""
