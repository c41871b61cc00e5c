"""Addresses and loads of the emulated target: the small SPIR-V helpers its lowering modules share.

Stage:      back end (emulated SPIR-V), below `emulated.py`, `emulated_checks.py` and
            `emulated_prints.py`, which each lower one part of the contract in `wgc/emulation_abi.py`.
Input:      a `FunctionLowering` being written, u64 address ids, offsets and types.
Output:     SPIR-V instructions in the current block; each helper returns the result id.
Invariants: addresses are u64 values converted to `PhysicalStorageBuffer` pointers; loads carry
            `Aligned` with the scalar's size (the contract keeps every field at its alignment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import types as t

if TYPE_CHECKING:
    from .lower import FunctionLowering

U64 = t.UINT64


def builtin(fl: FunctionLowering, name: str, count: int) -> int:
    """The value of the u32 (count 1) or uvecN built-in `name`, declared on first use."""
    type_ = t.UINT if count == 1 else t.vector(t.UINT, count)
    var = fl.ml.builtin(name, type_)
    fl.use_global(var)
    return fl.b.emit("OpLoad", fl.types.id(type_), var)


def offset(fl: FunctionLowering, address: int, offset: int) -> int:
    """address + offset (u64)."""
    if offset == 0:
        return address
    return fl.b.emit("OpIAdd", fl.types.id(U64), address, fl.b.constant_uint(offset, 64))


def pointer(fl: FunctionLowering, address: int, type_: t.Type) -> int:
    """`address` as a PhysicalStorageBuffer pointer to `type_`."""
    return fl.b.emit("OpConvertUToPtr", fl.b.type_pointer("PhysicalStorageBuffer", fl.types.id(type_)), address)


def load_scalar(fl: FunctionLowering, address: int, scalar: t.ScalarType) -> int:
    """The `scalar` at `address`."""
    return fl.b.emit("OpLoad", fl.types.id(scalar), pointer(fl, address, scalar), "Aligned", scalar.bits // 8)


def load_field(fl: FunctionLowering, base: int, field: tuple[int, int]) -> int:
    """A u32 or u64 field of an ABI structure at `base` (field = (offset, size) from emulation_abi)."""
    at, size = field
    return load_scalar(fl, offset(fl, base, at), U64 if size == 8 else t.UINT)
