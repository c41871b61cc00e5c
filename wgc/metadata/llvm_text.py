"""LLVM assembly text of a module of declarations and metadata, printed as llvm-dis prints it.

Stage:      output view helper (the DXIL view `metadata/dxil.py` builds a `Module`, this prints it).
Input:      a `Module`: target triple and data layout, opaque struct types, external constant
            globals, `declare void @f()` functions, named metadata whose operands are `Node`s of
            operands: `Int`, `str` (an MDString), None (`null`), `Function`, `Global` or `Node`.
Output:     `Module.render() -> str`, in llvm-dis's layout (LLVM 3.7, DXC's, and LLVM 14 print it
            alike, but for a `\\` in a string, which LLVM 3.7 prints `\\5C` as here):
            header, types, globals, declarations, named metadata, then the numbered nodes, one
            per line:

              !dx.entryPoints = !{!5, !6}
              !5 = !{null, !"", null, null, null}
              !6 = !{void ()* @main, !"main", null, null, !7}

            Names are printed bare where LLVM prints them bare (`@Generate`,
            `%class.RaytracingAccelerationStructure`), else quoted with LLVM's `\\XX` escapes
            (`@"ns::Generate"`, `%"class.Texture2D<float>"`); MDStrings likewise (`!"a\\22b"`).
Invariants: nodes are uniqued by value, as `MDNode::get` uniques them (equal operands, one
            number); numbers are given as LLVM's SlotTracker gives them: named metadata in order,
            each node before the nodes it refers to, operands left to right (depth first), so
            DXC's FileCheck lines, which expect a parent's line before its children's, match;
            deterministic; the text parses with LLVM 14 (`llvm-as`, llvmlite).
"""

from __future__ import annotations

from wgc.cached_dataclass import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Int:
    """An integer constant: `i32 -1`, `i1 true`, `i64 4`."""

    bits: int
    value: int

    def text(self) -> str:
        if self.bits == 1:
            return f"i1 {'true' if self.value else 'false'}"
        value = self.value & ((1 << self.bits) - 1)
        if value >= 1 << (self.bits - 1):   # LLVM prints constants signed: 0xFFFFFFFF is i32 -1
            value -= 1 << self.bits
        return f"i{self.bits} {value}"


@dataclass(frozen=True)
class Function:
    """A reference to `declare void @name()`."""

    name: str


@dataclass(frozen=True)
class Global:
    """A reference to an external constant global of opaque struct type `struct` (arrays: `dims`)."""

    name: str
    struct: str
    dims: tuple[int, ...] = ()

    def type_text(self) -> str:
        text = llvm_name("%", self.struct)
        for length in reversed(self.dims):
            text = f"[{length} x {text}]"
        return text


Operand = Union[Int, str, None, Function, Global, "Node"]


@dataclass(frozen=True)
class Node:
    """A metadata tuple `!{...}`; equal tuples are one node."""

    operands: tuple[Operand, ...]


def node(*operands: Operand) -> Node:
    return Node(tuple(operands))


def _escaped(text: str) -> str:
    """LLVM's printEscapedString: printable ASCII but `\\` and `"` as is, every other byte `\\XX`."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out.append(char if 0x20 <= byte < 0x7F and char not in '\\"' else f"\\{byte:02X}")
    return "".join(out)


def llvm_name(prefix: str, name: str) -> str:
    """`@name`, or `@"name"` where LLVM quotes it (a leading digit, or a character outside
    letters, digits, `-`, `.` and `_`)."""
    bare = bool(name) and not name[0].isdigit() and all(
        c.isascii() and (c.isalnum() or c in "-._") for c in name)
    return prefix + (name if bare else f'"{_escaped(name)}"')


@dataclass
class Module:
    triple: str = ""
    datalayout: str = ""
    structs: list[str] = field(default_factory=list)
    """Opaque struct types, in order of first use."""
    globals: list[Global] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    named: list[tuple[str, list[Node]]] = field(default_factory=list)
    comments: dict[Node, str] = field(default_factory=dict)
    """A `; comment` printed after a node's line."""

    def add_named(self, name: str, *nodes: Node) -> None:
        for index, (existing, members) in enumerate(self.named):
            if existing == name:
                self.named[index] = (existing, members + list(nodes))
                return
        self.named.append((name, list(nodes)))

    def add_global(self, variable: Global) -> None:
        if variable.struct not in self.structs:
            self.structs.append(variable.struct)
        self.globals.append(variable)

    def _numbers(self) -> dict[Node, int]:
        numbers: dict[Node, int] = {}
        for _, members in self.named:
            for member in members:
                stack = [member]
                while stack:        # depth first, a node before its operands, operands in order
                    current = stack.pop()
                    if current in numbers:
                        continue
                    numbers[current] = len(numbers)
                    stack.extend(op for op in reversed(current.operands) if isinstance(op, Node))
        return numbers

    def render(self) -> str:
        numbers = self._numbers()

        def operand(value: Operand) -> str:
            if value is None:
                return "null"
            if isinstance(value, str):
                return f'!"{_escaped(value)}"'
            if isinstance(value, Node):
                return f"!{numbers[value]}"
            if isinstance(value, Function):
                return f"void ()* {llvm_name('@', value.name)}"
            if isinstance(value, Global):
                return f"{value.type_text()}* {llvm_name('@', value.name)}"
            return value.text()

        blocks: list[list[str]] = [["; ModuleID = 'wgc'"]
                                   + ([f'target datalayout = "{self.datalayout}"'] if self.datalayout else [])
                                   + ([f'target triple = "{self.triple}"'] if self.triple else [])]
        if self.structs:
            blocks.append([f"{llvm_name('%', s)} = type opaque" for s in self.structs])
        if self.globals:
            blocks.append([f"{llvm_name('@', g.name)} = external constant {g.type_text()}" for g in self.globals])
        blocks += [[f"declare void {llvm_name('@', f)}()"] for f in self.functions]
        if self.named:
            blocks.append([f"!{llvm_name('', name)} = !{{{', '.join(operand(n) for n in members)}}}"
                           for name, members in self.named])
        if numbers:
            lines = []
            for current, number in sorted(numbers.items(), key=lambda item: item[1]):
                line = f"!{number} = !{{{', '.join(operand(op) for op in current.operands)}}}"
                comment = self.comments.get(current)
                lines.append(f"{line}  ; {comment}" if comment else line)
            blocks.append(lines)
        return "\n\n".join("\n".join(block) for block in blocks) + "\n"
