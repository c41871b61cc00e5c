"""Local root signature layouts: the data `sema.local_root` gives nodes (sema, data only).

Stage:  sema (data types, no behaviour but lookups), below `nodes.py`, which carries them on `NodeInfo`.
Input:  none. Output: `RootParameter` (one parameter of a local root signature and where its argument
        lies in a local-root-argument table entry) and `LocalRootLayout` (the parameters in order and
        the entry's size), which the emulated back end and `wgc run` read.
Invariants: frozen; offsets follow D3D12's layout of local root arguments (`local_root.py`).
"""

from __future__ import annotations

from wgc.cached_dataclass import dataclass


@dataclass(frozen=True)
class RootParameter:
    """One parameter of a local root signature and where its argument lies in a table entry."""

    kind: str
    """"constants", "CBV", "SRV", "UAV" or "table"."""
    register_class: str
    """b, t or u (tables: "")."""
    register: int
    space: int
    offset: int
    """Bytes from the start of the table entry."""
    size: int
    """4 x num32BitConstants, or 8."""
    ranges: tuple[tuple[str, int, int | None, int], ...] = ()
    """A descriptor table's ranges: (class, first register, count or None for unbounded, space)."""

    def binds(self, register_class: str, register: int, space: int) -> bool:
        if self.kind == "table":
            return any(c == register_class and s == space and first <= register
                       and (count is None or register < first + count) for c, first, count, s in self.ranges)
        return (self.register_class, self.register, self.space) == (register_class, register, space)

    def describe(self) -> str:
        where = f"{self.register_class}{self.register}" + (f", space = {self.space}" if self.space else "")
        if self.kind == "constants":
            return f"RootConstants(num32BitConstants = {self.size // 4}, {where})"
        if self.kind == "table":
            return "DescriptorTable(...)"
        return f"{self.kind}({where})"


@dataclass(frozen=True)
class LocalRootLayout:
    """A local root signature: its parameters in order and the bytes of a table entry."""

    name: str
    parameters: tuple[RootParameter, ...]
    size: int

    def find(self, register_class: str, register: int, space: int) -> RootParameter | None:
        for parameter in self.parameters:
            if parameter.binds(register_class, register, space):
                return parameter
        return None
