"""Runtime input: the render target of a graph that draws (`"render_target"` in `dispatch.json`).

Input: the located JSON value of the dispatch's "render_target" member (docs/reference.md, "The
render target") and the `program.Program` (its mesh nodes and pixel shaders).  Output: a
`RenderTarget`: the size, the colour attachments (format, clear value), the optional depth
attachment (format, clear value, comparison, writes), the fixed-function states D3D12 gives a
generic program (cull mode, front face, blend off or alpha) and the pixel shader; or a located
diagnostic (WG0880-WG0884).

Defaults (a program with mesh nodes and no "render_target", or members left out): 256 × 256, one
colour attachment `SV_Target0` of R8G8B8A8_UNORM cleared to opaque black, no depth attachment,
cull mode none, front face clockwise (D3D12's FrontCounterClockwise FALSE), blend off, the
library's only pixel shader.  A depth attachment tests "less" and writes unless told otherwise.

Invariants: nothing here touches Vulkan; every problem is a diagnostic with the span of the value at
fault; the attachments' bytes are counted against the run's memory bound by the caller
(`RenderTarget.bytes`).
"""

from __future__ import annotations

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic
from wgc.runtime.formats import FORMATS, Format
from wgc.runtime.located_json import Located
from wgc.runtime.program import Program

KEYS = ("width", "height", "colors", "depth", "cull", "front_face", "blend", "pixel_shader")
COLOR_KEYS = ("name", "format", "clear")
DEPTH_KEYS = ("format", "clear", "test", "write")
DEPTH_FORMATS = {"D32_FLOAT": (126, 4), "D16_UNORM": (124, 2)}
"""DXGI name -> (VkFormat, bytes per texel)."""
CULL_MODES = {"none": 0, "front": 1, "back": 2}
FRONT_FACES = {"counter_clockwise": 0, "clockwise": 1}
COMPARE_OPS = {"never": 0, "less": 1, "equal": 2, "less_equal": 3, "greater": 4, "not_equal": 5,
               "greater_equal": 6, "always": 7}
BLENDS = ("off", "alpha")
MAX_SIZE = 16384
"""The largest width and height (Vulkan guarantees maxFramebufferWidth/Height of 4096; wgc asks for
what lavapipe and desktop GPUs give)."""


@dataclass
class ColorAttachment:
    name: str
    format: Format
    clear: tuple[float, ...]


@dataclass
class DepthAttachment:
    format: str
    clear: float = 1.0
    test: str = "less"
    write: bool = True

    @property
    def vk(self) -> int:
        return DEPTH_FORMATS[self.format][0]


@dataclass
class RenderTarget:
    width: int = 256
    height: int = 256
    colors: list[ColorAttachment] = field(default_factory=lambda: [
        ColorAttachment("SV_Target0", FORMATS["R8G8B8A8_UNORM"], (0.0, 0.0, 0.0, 1.0))])
    depth: DepthAttachment | None = None
    cull: str = "none"
    front_face: str = "clockwise"
    blend: str = "off"
    pixel_shader: str | None = None

    @property
    def bytes(self) -> int:
        """The attachments' bytes (what the run's memory bound counts)."""
        texels = self.width * self.height
        depth = DEPTH_FORMATS[self.depth.format][1] if self.depth is not None else 0
        return texels * (sum(c.format.texel_bytes for c in self.colors) + depth)

    def attachment_names(self) -> list[str]:
        return [c.name for c in self.colors] + (["depth"] if self.depth is not None else [])


class _Bad(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _fail(where: Located, message: str, notes: tuple[str, ...] = ()) -> _Bad:
    return _Bad(codes.RENDER_TARGET_INVALID(where.span, message, notes=notes))


def draws(program: Program) -> bool:
    """Whether the program has mesh nodes (it needs a render target)."""
    return any(n.launch == "mesh" for n in program.nodes)


def read_render_target(value: Located | None, program: Program) -> tuple[RenderTarget | None, list[Diagnostic]]:
    """The render target of `value` (None: the member is absent, so every default), checked against
    `program`; (None, []) for a program without mesh nodes and no "render_target"."""
    if value is None and not draws(program):
        return None, []
    try:
        target = _read(value) if value is not None else RenderTarget()
        if not draws(program):
            raise _fail(value, "the graph has no mesh node, so it draws nothing: \"render_target\" has no use")  # type: ignore[arg-type]
        _pick_pixel_shader(value, target, program)
    except _Bad as problem:
        return None, [problem.diagnostic]
    return target, []


def _pick_pixel_shader(value: Located | None, target: RenderTarget, program: Program) -> None:
    shaders = program.pixel_shaders
    known = ", ".join(shaders) or "none"
    if target.pixel_shader is not None:
        if target.pixel_shader not in shaders:
            assert value is not None
            raise _Bad(codes.PIXEL_SHADER_MISSING(value.value["pixel_shader"].span,
                                                  f"the library has no pixel shader '{target.pixel_shader}'",
                                                  notes=(f"its pixel shaders: {known}",)))
        return
    if len(shaders) == 1:
        target.pixel_shader = shaders[0]
        return
    where = value.span if value is not None else None
    if not shaders:
        raise _Bad(codes.PIXEL_SHADER_MISSING(where, "the mesh nodes draw, but the library has no pixel shader "
                                                     "([Shader(\"pixel\")]) to shade their primitives"))
    raise _Bad(codes.PIXEL_SHADER_MISSING(where, f"the mesh nodes draw, and the library has {len(shaders)} pixel "
                                                 "shaders: name the one to shade with in \"render_target\": "
                                                 "{\"pixel_shader\": ...}", notes=(f"its pixel shaders: {known}",)))


def _known_members(value: Located, keys: tuple[str, ...], what: str) -> None:
    """WG0880 at the first member of the object `value` whose key is not one of `keys`."""
    for key, span in value.keys.items():
        if key not in keys:
            raise _Bad(codes.RENDER_TARGET_INVALID(span, f"unknown member '{key}' of {what} (expected one of "
                                                         f"{', '.join(keys)})"))


def _read(value: Located) -> RenderTarget:
    if not isinstance(value.value, dict):
        raise _fail(value, "\"render_target\" is an object (\"width\", \"height\", \"colors\", \"depth\", ...)")
    members: dict[str, Located] = value.value
    _known_members(value, KEYS, "\"render_target\"")
    target = RenderTarget()
    for key in ("width", "height"):
        if key in members:
            item = members[key]
            if isinstance(item.value, bool) or not isinstance(item.value, int) or not 1 <= item.value <= MAX_SIZE:
                raise _fail(item, f"\"{key}\" is a whole number from 1 to {MAX_SIZE}")
            setattr(target, key, item.value)
    if "colors" in members:
        colors = members["colors"]
        if not isinstance(colors.value, list) or not 1 <= len(colors.value) <= 8:
            raise _fail(colors, "\"colors\" is a list of 1 to 8 colour attachments (SV_Target0 .. SV_Target7)")
        target.colors = [_color(item, i) for i, item in enumerate(colors.value)]
        names = [c.name for c in target.colors]
        for i, name in enumerate(names):
            if name in names[:i] or name == "depth":
                raise _fail(colors.value[i], f"two attachments are named '{name}'" if name != "depth" else
                            "'depth' names the depth attachment")
    if "depth" in members:
        target.depth = _depth(members["depth"])
    for key, table in (("cull", CULL_MODES), ("front_face", FRONT_FACES), ("blend", {b: 0 for b in BLENDS})):
        if key in members:
            setattr(target, key, _choice(members[key], table, f"\"{key}\""))
    if "pixel_shader" in members:
        item = members["pixel_shader"]
        if not isinstance(item.value, str):
            raise _fail(item, "\"pixel_shader\" is the name of a pixel shader of the library")
        target.pixel_shader = item.value
    return target


def _choice(value: Located, table: dict[str, int], what: str) -> str:
    if not isinstance(value.value, str) or value.value not in table:
        raise _fail(value, f"{what} is one of {', '.join(repr(k) for k in table)}")
    return value.value


def _color(item: Located, index: int) -> ColorAttachment:
    if not isinstance(item.value, dict):
        raise _fail(item, "a colour attachment is an object (\"name\", \"format\", \"clear\")")
    members: dict[str, Located] = item.value
    _known_members(item, COLOR_KEYS, "a colour attachment")
    name = f"SV_Target{index}"
    if "name" in members:
        if not isinstance(members["name"].value, str) or not members["name"].value:
            raise _fail(members["name"], "\"name\" is a non-empty string")
        name = members["name"].value
    format_ = FORMATS["R8G8B8A8_UNORM"]
    if "format" in members:
        spelled = members["format"].value
        if not isinstance(spelled, str) or spelled not in FORMATS:
            raise _fail(members["format"], f"unknown colour format {spelled!r}",
                        notes=(f"the formats: {', '.join(FORMATS)}",))
        format_ = FORMATS[spelled]
    clear: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0)
    if "clear" in members:
        value = members["clear"]
        parts = value.value if isinstance(value.value, list) else None
        if parts is None or len(parts) != 4 or any(isinstance(p.value, bool) or not isinstance(p.value, (int, float))
                                                   for p in parts):
            raise _fail(value, "\"clear\" is a list of 4 numbers (R, G, B, A)")
        clear = tuple(float(p.value) for p in parts)
        if format_.reads != "float" and any(c != int(c) for c in clear):
            raise _fail(value, f"{format_.name} holds integers: its clear value is 4 whole numbers")
    return ColorAttachment(name, format_, clear)


def _depth(item: Located) -> DepthAttachment:
    if not isinstance(item.value, dict):
        raise _fail(item, "\"depth\" is an object (\"format\", \"clear\", \"test\", \"write\")")
    members: dict[str, Located] = item.value
    _known_members(item, DEPTH_KEYS, "the depth attachment")
    depth = DepthAttachment("D32_FLOAT")
    if "format" in members:
        depth.format = _choice(members["format"], {k: 0 for k in DEPTH_FORMATS}, "a depth \"format\"")
    if "clear" in members:
        value = members["clear"].value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise _fail(members["clear"], "a depth \"clear\" is a number from 0 to 1")
        depth.clear = float(value)
    if "test" in members:
        depth.test = _choice(members["test"], COMPARE_OPS, "\"test\"")
    if "write" in members:
        if not isinstance(members["write"].value, bool):
            raise _fail(members["write"], "\"write\" is true or false")
        depth.write = members["write"].value
    return depth
