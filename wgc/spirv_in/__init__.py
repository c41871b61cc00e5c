"""SPIR-V input: read modules (`reader`), the work graph they make (`graph`), and the translation of
SPV_AMDX_shader_enqueue modules to the emulated contract of `wgc.emulation_abi` (`translate`).

This stage works on SPIR-V alone, never on wgc's IR (it imports neither `wgc.sema` nor
`wgc.driver` itself), so that it proves wgc's AMDX back end and runs modules other compilers made.
"""
