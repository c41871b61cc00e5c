"""Runtime: the check reports of `wgc run --check` (the report buffer of `wgc.emulation_abi`).

Input: an open `device.Device`, the emulated module (compiled with checks and line info: its
`OpString`s name the source files) and its `program.Program`; from the schedulers, after each
submit, the NodeContext addresses of the dispatches it ran (node and level).
Output: `CheckReport`s (node, level, source file:line:col, group, thread, record, what went wrong),
their diagnostics (WG0840-WG0843, one per place and node, with how many more like it) and the
summary (WG0844).

Invariants: the reports of one submit are sorted (level, node, group, thread, ...), whatever order
the device wrote them in; the buffer is bounded (`DEFAULT_CAPACITY` reports); reports past it are counted, never
silently lost; a report is decoded with the contexts of the submit that wrote it (the host-driven
scheduler reuses context addresses from one level to the next, so it collects after every submit);
nothing here changes what a run computes.
"""

from __future__ import annotations

import struct
from typing import Any

from wgc import codes
from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic
from wgc.source import SourceFile, Span, decode_source

DEFAULT_CAPACITY = 4096
"""Reports the buffer holds; the count goes on past it."""
_KINDS = {abi.CHECK_BUFFER_INDEX: "buffer-index", abi.CHECK_INPUT_INDEX: "input-index",
          abi.CHECK_MAX_RECORDS: "max-records", abi.CHECK_TEXEL_INDEX: "texel-index",
          abi.CHECK_MAX_RECORDS_PER_NODE: "max-records-per-node", abi.CHECK_UNWRITTEN_RECORD: "unwritten-record",
          abi.CHECK_UNINITIALISED_READ: "uninitialised-read", abi.CHECK_NOT_COMPLETED: "not-completed"}


@dataclass
class CheckReport:
    kind: str
    """"buffer-index", "texel-index", "input-index", "max-records", "max-records-per-node",
    "unwritten-record", "not-completed" or "uninitialised-read"."""
    node: str
    level: int
    repeat: int
    file: str
    line: int
    column: int
    group: int
    """The D3D thread group (thread launch: the record, each thread its own group)."""
    thread: int
    """SV_GroupIndex (0 in thread launch)."""
    record: int | None
    """The input record's index in its dispatch, where known."""
    value: int
    limit: int
    what: str
    """What went wrong, in words (the diagnostic's message after the node)."""
    subject: str = ""
    """The resource (buffers, textures) or output (max-records) concerned, as named in `what`."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "node": self.node, "level": self.level, "repeat": self.repeat,
                "file": self.file, "line": self.line, "column": self.column, "group": self.group,
                "thread": self.thread, "record": self.record, "value": self.value, "limit": self.limit,
                "subject": self.subject, "message": self.what}


def source_strings(module: bytes) -> dict[int, str]:
    """OpString result id -> text, of a SPIR-V module."""
    words = struct.unpack(f"<{len(module) // 4}I", module[:len(module) // 4 * 4])
    strings: dict[int, str] = {}
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            break
        if opcode == 7 and count >= 3:        # OpString
            raw = struct.pack(f"<{count - 2}I", *words[at + 2:at + count])
            strings[words[at + 1]] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        elif opcode == 54:                    # OpFunction: no debug instruction follows
            break
        at += count
    return strings


@dataclass
class CheckReports:
    """The report buffer of one run and the reports read from it."""

    device: Any
    program: Any
    files: dict[int, str]
    capacity: int = DEFAULT_CAPACITY
    buffer: Any = None
    contexts: dict[int, tuple[Any, int]] = field(default_factory=dict)
    """NodeContext address -> (NodePlan, level) of the submit being collected."""
    reports: list[CheckReport] = field(default_factory=list)
    attempted: int = 0
    """Reports the shaders made (`count`), including those past the capacity."""
    _read: int = 0

    @classmethod
    def create(cls, device: Any, module: bytes, program: Any, capacity: int | None = None) -> CheckReports:
        capacity = DEFAULT_CAPACITY if capacity is None else capacity
        reports = cls(device, program, source_strings(module), capacity)
        reports.buffer = device.buffer(abi.CHECKS_HEADER_SIZE + capacity * abi.CHECK_REPORT_SIZE)
        reports.buffer.write(0, struct.pack("<II", 0, capacity))
        return reports

    @property
    def address(self) -> int:
        return int(self.buffer.address)

    @property
    def lost(self) -> int:
        """Reports that did not fit in the buffer."""
        return max(0, self.attempted - self.capacity)

    def collect(self, repeat: int) -> None:
        """Read the reports written since the last call, with the current `contexts`."""
        count, = struct.unpack("<I", self.buffer.read(0, 4))
        self.attempted = count
        written = min(count, self.capacity)
        if written <= self._read:
            return
        start = abi.CHECKS_HEADER_SIZE + self._read * abi.CHECK_REPORT_SIZE
        raw = self.buffer.read(start, (written - self._read) * abi.CHECK_REPORT_SIZE)
        found = []
        for k in range(written - self._read):
            at = k * abi.CHECK_REPORT_SIZE
            values = {name: int.from_bytes(raw[at + offset:at + offset + size], "little")
                      for name, (offset, size) in abi.CHECK_REPORT.items()}
            report = self._decode(values, repeat)
            if report is not None:
                found.append(report)
        # the device writes them in any order: sorted, a run gives the same reports every time
        found.sort(key=lambda r: (r.level, r.node, r.group, r.thread, r.kind, r.line, r.column, r.value))
        self.reports.extend(found)
        self._read = written

    def _decode(self, v: dict[str, int], repeat: int) -> CheckReport | None:
        kind = _KINDS.get(v["kind"])
        found = self.contexts.get(v["context"])
        if kind is None or found is None:
            return None
        node, level = found
        group, thread = v["group"], v["thread"]
        record = None if v["record"] == abi.CHECK_NO_RECORD else v["record"]
        if node.launch == "thread":
            group, thread = (record if record is not None else group * abi.THREAD_GROUP_SIZE + thread), 0
        value, limit = v["value"], v["limit"]
        subject = ""
        if kind == "buffer-index":
            set_, binding = v["detail"] >> 16, v["detail"] & 0xFFFF
            resource = next((r for r in self.program.resources if (r.set, r.binding) == (set_, binding)
                             and r.counter_of is None), None)
            name = f"'{resource.name}'" + (f" ({resource.register})" if resource.register else "") \
                if resource is not None else f"the buffer at set {set_}, binding {binding}"
            subject = resource.name if resource is not None else f"{set_}/{binding}"
            if resource is not None and "ByteAddress" in resource.type:
                what = (f"accessed bytes {4 * value}..{4 * value + 3} of {name}, which holds {4 * limit} "
                        f"byte{'s' if limit != 0 else ''}")
            else:
                what = f"accessed element {value} of {name}, which holds {limit} element{'s' if limit != 1 else ''}"
        elif kind == "texel-index":
            set_, binding, component = v["detail"] >> 16, v["detail"] & 0xFFF, (v["detail"] >> 12) & 0xF
            resource = next((r for r in self.program.resources if (r.set, r.binding) == (set_, binding)), None)
            name = f"'{resource.name}'" + (f" ({resource.register})" if resource.register else "") \
                if resource is not None else f"the image at set {set_}, binding {binding}"
            subject = resource.name if resource is not None else f"{set_}/{binding}"
            image = resource.image if resource is not None else None
            axes = {"Buffer": ("element",), "1D": ("x",), "2D": ("x", "y"), "Cube": ("x", "y"),
                    "3D": ("x", "y", "z")}.get(image.dim if image is not None else "", ())
            axes += ("layer",) if image is not None and image.arrayed else ()
            axis = axes[component] if component < len(axes) else f"component {component}"
            if axis == "element":
                what = f"accessed element {value} of {name}, which holds {limit} element{'s' if limit != 1 else ''}"
            else:
                extent = {"x": "width", "y": "height", "z": "depth", "layer": "layer count"}.get(axis, "size")
                what = f"accessed a texel at {axis} = {value} of {name}, whose {extent} is {limit}"
        elif kind == "input-index":
            what = f"read input record {value} of its group's, past Count() = {limit}"
        elif kind == "unwritten-record":
            output = node.outputs[v["detail"]] if v["detail"] < len(node.outputs) else None
            out = f"output '{output.parameter}' (node '{output.target}')" if output is not None else "an output"
            subject = output.parameter if output is not None else ""
            what = (f"completed record {value} of the {limit} it allocated on {out} without writing any of its "
                    "fields")
        elif kind == "not-completed":
            output = node.outputs[v["detail"]] if v["detail"] < len(node.outputs) else None
            out = f"output '{output.parameter}' (node '{output.target}')" if output is not None else "an output"
            subject = output.parameter if output is not None else ""
            what = f"returned without calling OutputComplete() on the records it allocated here on {out}"
        elif kind == "uninitialised-read":
            what = (f"read a field of its input record that its producer never wrote (it holds the check's fill "
                    f"word 0x{value:08X})")
        elif kind == "max-records-per-node":
            index, element = v["detail"] & 0xFFFF, v["detail"] >> 16
            output = node.outputs[index] if index < len(node.outputs) else None
            out = (f"output '{output.parameter}[{element}]' (node '{output.target}[{output.target_index + element}]')"
                   if output is not None else "an output")
            subject = f"{output.parameter}[{element}]" if output is not None else ""
            per = "thread" if node.launch == "thread" else "thread group"
            what = f"asked for {value} records on {out}, more than its MaxRecordsPerNode({limit}) per {per}"
        else:
            output = node.outputs[v["detail"]] if v["detail"] < len(node.outputs) else None
            out = f"output '{output.parameter}' (node '{output.target}')" if output is not None else "an output"
            subject = output.parameter if output is not None else ""
            per = "thread" if node.launch == "thread" else "thread group"
            what = f"asked for {value} records on {out}, more than its MaxRecords({limit}) per {per}"
        return CheckReport(kind, node.label, level, repeat, self.files.get(v["file"], "<unknown>"), v["line"],
                           v["column"], group, thread, record, value, limit, what, subject)

    def close(self) -> None:
        if self.buffer is not None:
            self.device.free(self.buffer)
            self.buffer = None


_CODES = {"buffer-index": codes.CHECK_BUFFER_INDEX, "texel-index": codes.CHECK_TEXEL_INDEX,
          "input-index": codes.CHECK_INPUT_INDEX, "max-records-per-node": codes.CHECK_MAX_RECORDS_PER_NODE,
          "unwritten-record": codes.CHECK_UNWRITTEN_RECORD, "not-completed": codes.CHECK_NOT_COMPLETED, "uninitialised-read": codes.CHECK_UNINITIALISED_READ,
          "max-records": codes.CHECK_MAX_RECORDS}


def diagnostics(reports: list[CheckReport], lost: int) -> list[Diagnostic]:
    """One diagnostic per (kind, place, node, resource or output) with the first report's group, thread
    and record and how many more there were; the overflow (WG0843) and the summary (WG0844)."""
    if not reports and not lost:
        return []
    sources: dict[str, SourceFile | None] = {}
    firsts: dict[tuple[str, str, int, int, str, str], tuple[CheckReport, int]] = {}
    for report in reports:
        key = (report.kind, report.file, report.line, report.column, report.node, report.subject)
        first, count = firsts.get(key, (report, 0))
        firsts[key] = (first, count + 1)
    found = []
    for (kind, path, line, column, _, _), (report, count) in firsts.items():
        source = sources[path] if path in sources else sources.setdefault(path, _source(path))
        span = None
        place = ""
        if source is not None and line:
            start = source.offset_of(line, column)
            span = Span(source, start, start + 1)
        elif line:
            place = f"{path}:{line}:{column}: "
        which = "first input record" if report.kind == "input-index" else "input record"
        where = f"group {report.group}, thread {report.thread}" + \
            (f", {which} {report.record}" if report.record is not None else "")
        notes = [f"level {report.level}" + (f" of repeat {report.repeat}" if report.repeat else "")]
        if count > 1:
            notes.append(f"{count - 1} more report{'s' if count > 2 else ''} like it from this place and node")
        found.append(_CODES[kind](span, f"{place}node '{report.node}' ({where}) {report.what}", notes=notes))
    if lost:
        found.append(codes.CHECK_REPORTS_LOST(None, f"{lost} more check report{'s' if lost != 1 else ''} did not "
                                                    "fit in the report buffer and were counted only"))
    kinds: dict[str, int] = {}
    for report in reports:
        kinds[report.kind] = kinds.get(report.kind, 0) + 1
    total = len(reports) + lost
    words = ", ".join(f"{n} {k}" for k, n in kinds.items())
    found.append(codes.CHECK_FAILED(None, f"--check found {total} mistake{'s' if total != 1 else ''} at run time"
                                          + (f" ({words})" if words else "")))
    return found


def _source(path: str) -> SourceFile | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 24)
    except OSError:
        return None
    return SourceFile(path, decode_source(data)[0])
