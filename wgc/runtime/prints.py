"""Runtime: the print buffer of a graph that calls printf, and the text of its prints.

Input: an emulated module (its print formats: `OpString`s described in `wgc.emulation_abi`,
"Prints"), a device, the bound `--max-prints`; after each submit, which NodeContext address was
which dispatch (`Dispatched`).
Output: `Print`s (node, repeat, level, group, thread, record, text), in a deterministic order:
by repeat, level, dispatch, group, thread, and for one invocation in program order; the number
of prints lost because the buffer was full.

Invariants: a module without prints gets no buffer (`PrintBuffer.create` returns None) and costs
nothing; the buffer is bounded (`max_prints` records of the module's largest size) and a record
that did not fit is counted, never silently dropped; text is formatted on the CPU as C's printf
formats it (`c_format`: flags `-+ #0`, width and precision (also `*`), the conversions `d i u x X
o f F e E g G c s %`, length modifiers `h hh l ll` read and ignored but for 64-bit arguments,
and DebugPrintf's vectors `%v3f`: each component, joined by ", ").
"""

from __future__ import annotations

import functools
import json
import re
import struct
from typing import Any

from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass

DEFAULT_MAX_PRINTS = 65536
"""Print records the buffer holds per submit unless `wgc run --max-prints` says otherwise."""
MAX_PRINTS = 1 << 24
"""The most `--max-prints` may ask for (with the largest record, the word count stays in 32 bits)."""


@dataclass(frozen=True)
class PrintFormat:
    id: int
    format: str
    args: tuple[str, ...]
    """One kind per argument: a letter (`u i f b U I F s`) and, for a vector, its count."""
    strings: tuple[str, ...]
    where: str = ""
    """"file:line:column" of the call where the module says it, else ""."""

    @property
    def words(self) -> int:
        """Argument words of one record."""
        total = 0
        for kind in self.args:
            count = int(kind[1:] or 1)
            total += 0 if kind[0] == "s" else count * (2 if kind[0] in "UIF" else 1)
        return total


def read_formats(module: bytes) -> dict[int, PrintFormat]:
    """The print formats an emulated module describes (empty: it does not print)."""
    prefix = abi.PRINT_FORMAT_PREFIX.encode()
    if prefix not in module:
        return {}
    words = struct.unpack(f"<{len(module) // 4}I", module[:len(module) // 4 * 4])
    formats: dict[int, PrintFormat] = {}
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            break
        if opcode == 7:                                      # OpString
            raw = module[4 * (at + 2):4 * (at + count)].split(b"\0", 1)[0]
            if raw.startswith(prefix):
                described = json.loads(raw[len(prefix):].decode("utf-8"))
                where = (f"{described.get('file', '')}:{described['line']}:{described.get('column', 0)}"
                         if described.get("line") else "")
                formats[described["id"]] = PrintFormat(described["id"], described["format"],
                                                       tuple(described["args"]), tuple(described["strings"]), where)
        elif opcode == 54:                                   # OpFunction: the debug section is over
            break
        at += count
    return formats


@dataclass(frozen=True)
class Dispatched:
    """What the host knows of the dispatch that used one NodeContext."""

    node: str
    launch: str
    repeat: int
    level: int
    order: int
    """The dispatch's position in its level."""
    batch: int = 1
    """Coalescing: records per group (MaxRecords)."""
    count: int = 0
    """Coalescing: the dispatch's input records."""
    first: int = 0
    """The index of the dispatch's record 0 among the records of its level (a grid read from each
    record dispatches each record alone)."""


@dataclass(frozen=True)
class Print:
    node: str
    launch: str
    repeat: int
    level: int
    group: int
    thread: int
    record: int
    last_record: int
    """Coalescing: the group's last record (its first is `record`); else equal to `record`."""
    text: str
    where: str = ""
    """The call's "file:line:column" where the module says it (`PrintFormat.where`), else ""."""

    def prefix(self) -> str:
        where = f"{self.node} level {self.level}" + (f" repeat {self.repeat}" if self.repeat else "")
        if self.launch == "thread":
            return f"[{where} record {self.record}]"
        records = (f"record {self.record}" if self.last_record == self.record
                   else f"records {self.record}-{self.last_record}")
        return f"[{where} group {self.group} thread {self.thread} {records}]"

    def line(self) -> str:
        return f"{self.prefix()} {self.text}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"node": self.node, "level": self.level}
        if self.repeat:
            data["repeat"] = self.repeat
        if self.launch != "thread":
            data["group"] = self.group
            data["thread"] = self.thread
        data["record"] = self.record
        if self.last_record != self.record:
            data["last_record"] = self.last_record
        data["text"] = self.text
        return data


class PrintBuffer:
    """The device buffer of NodeContext's `prints` (`wgc.emulation_abi`, "Prints")."""

    def __init__(self, device: Any, formats: dict[int, PrintFormat], max_prints: int) -> None:
        self.device = device
        self.formats = formats
        most = max((f.words for f in formats.values()), default=0) + abi.PRINT_RECORD_HEADER_WORDS
        self.capacity = min(max_prints * most, 0xFFFFFFFF)
        self.buffer = device.buffer(abi.PRINT_HEADER_SIZE + 4 * self.capacity)
        self.prints: list[tuple[tuple[int, ...], Print]] = []
        self.lost = 0
        self.reset()

    @staticmethod
    def bytes_needed(formats: dict[int, PrintFormat], max_prints: int) -> int:
        most = max((f.words for f in formats.values()), default=0) + abi.PRINT_RECORD_HEADER_WORDS
        return abi.PRINT_HEADER_SIZE + 4 * max_prints * most

    @property
    def address(self) -> int:
        return int(self.buffer.address)

    def reset(self) -> None:
        """Empty the buffer before a submit."""
        header = bytearray(abi.PRINT_HEADER_SIZE)
        struct.pack_into("<I", header, abi.PRINT_BUFFER["capacity"][0], self.capacity)
        self.buffer.write(0, header)

    def collect(self, dispatched: dict[int, Dispatched]) -> None:
        """Read the records of the last submit (`dispatched`: NodeContext address -> dispatch)."""
        header = self.buffer.read(0, abi.PRINT_HEADER_SIZE)
        used, = struct.unpack_from("<I", header, abi.PRINT_BUFFER["used"][0])
        lost, = struct.unpack_from("<I", header, abi.PRINT_BUFFER["lost"][0])
        self.lost += lost
        end = min(used, self.capacity)
        if end == 0:
            return
        words = struct.unpack(f"<{end}I", self.buffer.read(abi.PRINT_HEADER_SIZE, 4 * end))
        at = 0
        while at + abi.PRINT_RECORD_HEADER_WORDS <= end:
            size, format_id, low, high, group, thread, record = words[at:at + abi.PRINT_RECORD_HEADER_WORDS]
            if size < abi.PRINT_RECORD_HEADER_WORDS or at + size > end:
                break
            where = dispatched.get(low | high << 32)
            described = self.formats.get(format_id)
            if where is not None and described is not None:
                last = record
                if where.launch == "coalescing":
                    last = min(record + where.batch, where.count) - 1
                record, last = record + where.first, last + where.first
                text = c_format(described.format, described.args, described.strings,
                                list(words[at + abi.PRINT_RECORD_HEADER_WORDS:at + size]))
                order = (where.repeat, where.level, where.order, group, thread, len(self.prints))
                self.prints.append((order, Print(where.node, where.launch, where.repeat, where.level, group,
                                                 thread, record, last, text, described.where)))
            at += size

    def take(self) -> tuple[list[Print], int]:
        """The prints collected so far, in order, and the number lost; both start again."""
        prints = [p for _, p in sorted(self.prints, key=lambda item: item[0])]
        lost = self.lost
        self.prints, self.lost = [], 0
        return prints, lost

    def close(self) -> None:
        self.device.free(self.buffer)


# ---------------------------------------------------------------- C's printf on the CPU

_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
                   r"(?P<vector>v[2-4])?(?P<length>hh|h|ll|l|L|j|z|t)?(?P<conversion>[diuxXofFeEgGcs%])")


def c_format(format_: str, kinds: tuple[str, ...] | list[str], strings: tuple[str, ...] | list[str],
             words: list[int]) -> str:
    """`format_` with the arguments (their kinds and words, as a print record holds them)."""
    values: list[tuple[str, list[int] | str]] = []      # (letter, words of each component | string)
    at, string_at = 0, 0
    for kind in kinds:
        letter, count = kind[0], int(kind[1:] or 1)
        if letter == "s":
            values.append(("s", strings[string_at] if string_at < len(strings) else ""))
            string_at += 1
            continue
        size = 2 if letter in "UIF" else 1
        for _ in range(count):
            part = words[at:at + size]
            at += size
            values.append((letter, part))
    out: list[str] = []
    next_value = 0

    def take() -> tuple[str, list[int] | str] | None:
        nonlocal next_value
        if next_value >= len(values):
            return None
        value = values[next_value]
        next_value += 1
        return value

    for literal, spec in _parse(format_):
        out.append(literal)
        if spec is None:
            continue
        text, conversion, flags, width_text, precision_text, count = spec
        if conversion == "%":
            out.append("%")
            continue
        width: int | None = None
        precision: int | None = None
        if width_text == "*":
            taken = take()
            width = _signed(taken) if taken is not None else 0
            if width < 0:
                flags, width = flags + "-", -width
        elif width_text:
            width = int(width_text)
        if precision_text == "*":
            taken = take()
            precision = _signed(taken) if taken is not None else 0
            if precision < 0:
                precision = None
        elif precision_text is not None:
            precision = int(precision_text or 0)
        parts = []
        for _ in range(count):
            taken = take()
            if taken is None:
                parts.append(text)
                break
            parts.append(_one(conversion, flags, width, precision, taken))
        out.append(", ".join(parts))
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _parse(format_: str) -> tuple[tuple[str, tuple[str, str, str, str | None, str | None, int] | None], ...]:
    """The format as (literal text, conversion) pairs; a conversion is (its text, letter, flags,
    width, precision, vector count); the last pair's conversion is None."""
    parsed: list[tuple[str, tuple[str, str, str, str | None, str | None, int] | None]] = []
    position = 0
    for match in _SPEC.finditer(format_):
        count = int(match["vector"][1:]) if match["vector"] else 1
        parsed.append((format_[position:match.start()], (match.group(0), match["conversion"], match["flags"],
                                                         match["width"], match["precision"], count)))
        position = match.end()
    parsed.append((format_[position:], None))
    return tuple(parsed)


def _bits(value: tuple[str, list[int] | str]) -> tuple[int, int]:
    """(unsigned value, bit width) of a numeric argument."""
    letter, data = value
    if isinstance(data, str):
        return 0, 32
    if letter in "UIF":
        return (data[0] | data[1] << 32) if len(data) == 2 else 0, 64
    return (data[0] if data else 0), 32


def _signed(value: tuple[str, list[int] | str]) -> int:
    raw, bits = _bits(value)
    return raw - (1 << bits) if raw >> (bits - 1) else raw


def _float(value: tuple[str, list[int] | str]) -> float:
    raw, bits = _bits(value)
    if bits == 64:
        return float(struct.unpack("<d", struct.pack("<Q", raw))[0])
    return float(struct.unpack("<f", struct.pack("<I", raw))[0])


def _pad(text: str, flags: str, width: int | None) -> str:
    if width is None or len(text) >= width:
        return text
    return text.ljust(width) if "-" in flags else text.rjust(width)


def _one(conversion: str, flags: str, width: int | None, precision: int | None,
         value: tuple[str, list[int] | str]) -> str:
    """One conversion of one value, as C's printf (the value's bits read as the conversion says)."""
    if conversion == "s":
        text = value[1] if isinstance(value[1], str) else str(_natural(value))
        return _pad(text if precision is None else text[:precision], flags, width)
    if conversion == "c":
        return _pad(chr(_bits(value)[0] & 0xFF), flags, width)
    if conversion in "fFeEgG":
        spec = "%" + flags + (str(width) if width is not None else "") + \
            (f".{precision}" if precision is not None else "") + conversion
        return spec % _float(value)
    # integers
    if conversion in "di":
        number = _signed(value)
    else:
        number = _bits(value)[0]
    magnitude = abs(number)
    digits = {"d": "%d", "i": "%d", "u": "%d", "o": "%o", "x": "%x", "X": "%X"}[conversion] % magnitude
    if precision is not None:
        digits = "" if precision == 0 and magnitude == 0 else digits.rjust(precision, "0")
    prefix = ""
    if conversion in "di":
        prefix = "-" if number < 0 else "+" if "+" in flags else " " if " " in flags else ""
    elif "#" in flags and conversion == "o" and not digits.startswith("0"):
        digits = "0" + digits
    elif "#" in flags and conversion in "xX" and magnitude != 0:
        prefix = "0" + conversion
    if width is not None and "0" in flags and "-" not in flags and precision is None:
        digits = digits.rjust(width - len(prefix), "0")
    return _pad(prefix + digits, flags, width)


def _natural(value: tuple[str, list[int] | str]) -> int | float:
    """A numeric argument as its own type says (for %s of a number)."""
    letter = value[0]
    if letter in "fF":
        return _float(value)
    if letter in "iI":
        return _signed(value)
    return _bits(value)[0]


__all__ = ["DEFAULT_MAX_PRINTS", "MAX_PRINTS", "PrintBuffer", "PrintFormat", "Print", "Dispatched", "read_formats", "c_format"]
