"""Runtime: does the device leave loops early?  A probe, run only where it matters.

Mesa's llvmpipe (lavapipe) up to Mesa 22.x leaves every loop of an invocation after 65,535 runs
of loop headers (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, one budget for all the loops of a shader);
Mesa 25's does not, nor does a GPU.  The emulated modules flag an invocation that reached
`emulation_abi.LOOP_BUDGET` iterations (STATUS_LOOP_BUDGET); `run` asks `loop_cap` whether the
device it ran on stops loops, and warns (WG0832) only where it does.

Input: a `device.Device`.  Output: `loop_cap(device)`, the iterations a loop of `ITERATIONS`
(more than the budget) really ran on it, where fewer; None where it ran them all.

Invariants: the probe runs at most once per device object (its verdict is kept on it, as
`Device.probes["loop_cap"]`), never on a run whose status did not report the budget, so a plain run
pays nothing.  `ASSEMBLY` is the source and `MODULE_HEX` its assembled words (little-endian), kept
equal by a test (tests/test_runtime_limits.py), so the runtime needs no assembler.  The loop bound
comes from a push constant, so no compiler can unroll or fold the loop before a driver adds its
limit; the shader is one invocation and writes only its own buffer.

Push constants: the address of a u32 (u64) and the loop's bound (u32); the shader writes there the
number of iterations its loop ran.
"""

from __future__ import annotations

import struct
from typing import Any

ITERATIONS = 100_000
"""The probe loop's bound: more than any known cap (65,535), small enough to take no time anywhere."""

ASSEMBLY = """\
OpCapability Shader
OpCapability Int64
OpCapability PhysicalStorageBufferAddresses
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main" %pc
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %PC Block
OpMemberDecorate %PC 0 Offset 0
OpMemberDecorate %PC 1 Offset 8
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%bool = OpTypeBool
%PC = OpTypeStruct %ulong %uint
%ptr_pc = OpTypePointer PushConstant %PC
%ptr_pc_ulong = OpTypePointer PushConstant %ulong
%ptr_pc_uint = OpTypePointer PushConstant %uint
%psb_uint = OpTypePointer PhysicalStorageBuffer %uint
%pc = OpVariable %ptr_pc PushConstant
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%main = OpFunction %void None %fn
%entry = OpLabel
%out_ptr = OpAccessChain %ptr_pc_ulong %pc %c0
%out = OpLoad %ulong %out_ptr
%n_ptr = OpAccessChain %ptr_pc_uint %pc %c1
%n = OpLoad %uint %n_ptr
OpBranch %head
%head = OpLabel
%i = OpPhi %uint %c0 %entry %i_next %next
OpLoopMerge %done %next None
OpBranch %check
%check = OpLabel
%more = OpULessThan %bool %i %n
OpBranchConditional %more %next %done
%next = OpLabel
%i_next = OpIAdd %uint %i %c1
OpBranch %head
%done = OpLabel
%count = OpConvertUToPtr %psb_uint %out
OpStore %count %i Aligned 4
OpReturn
OpFunctionEnd
"""
"""A compute shader of one invocation that counts its loop's iterations up to the pushed bound."""

MODULE_HEX = (
    "0302230700060100000007001c000000000000001100020001000000110002000b00000011000200e31400000e000300"
    "e4140000010000000f00060005000000010000006d61696e000000000200000010000600010000001100000001000000"
    "010000000100000047000300030000000200000048000500030000000000000023000000000000004800050003000000"
    "010000002300000008000000130002000400000021000300050000000400000015000400060000002000000000000000"
    "1500040007000000400000000000000014000200080000001e0004000300000007000000060000002000040009000000"
    "0900000003000000200004000a0000000900000007000000200004000b0000000900000006000000200004000c000000"
    "e5140000060000003b0004000900000002000000090000002b000400060000000d000000000000002b00040006000000"
    "0e000000010000003600050004000000010000000000000005000000f80002000f000000410005000a00000010000000"
    "020000000d0000003d000400070000001100000010000000410005000b00000012000000020000000e0000003d000400"
    "060000001300000012000000f900020014000000f800020014000000f500070006000000150000000d0000000f000000"
    "1600000017000000f6000400180000001700000000000000f900020019000000f800020019000000b000050008000000"
    "1a0000001500000013000000fa0004001a0000001700000018000000f800020017000000800005000600000016000000"
    "150000000e000000f900020014000000f800020018000000780004000c0000001b000000110000003e0005001b000000"
    "150000000200000004000000fd00010038000100"
)
"""`ASSEMBLY` assembled (SPIRV-Tools, target vulkan1.3), as hex of its little-endian words."""


def module() -> bytes:
    return bytes.fromhex(MODULE_HEX)


def loop_cap(device: Any) -> int | None:
    """The iterations after which `device` left the probe's loop of `ITERATIONS`, None where it ran
    them all; probed on the first call, kept on the device after it."""
    if "loop_cap" not in device.probes:
        device.probes["loop_cap"] = _probe(device)
    cap: int | None = device.probes["loop_cap"]
    return cap


def _probe(device: Any) -> int | None:
    layout, set_layouts = device.pipeline_layout([], 16)
    pool = device.descriptor_sets([], [])[0]
    pipelines: dict[str, Any] = {}
    result = device.buffer(16)
    try:
        pipelines = device.pipelines(module(), ["main"], layout)
        device.begin()
        device.bind(pipelines["main"], layout, [])
        device.push(layout, struct.pack("<QII", result.address, ITERATIONS, 0))
        device.dispatch(1)
        device.barrier()
        device.submit()
        (ran,) = struct.unpack("<I", result.read(0, 4))
    finally:
        device.free(result)
        device.destroy_pipelines(pipelines, layout, set_layouts, pool)
    return ran if ran < ITERATIONS else None
