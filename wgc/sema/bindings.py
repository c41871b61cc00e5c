"""Semantic analysis, bindings: Vulkan descriptor (set, binding) for every resource and uniform block.

Input: one `BindingRequest` per global resource or uniform block, in
declaration order (the variable, its `register(...)`, its `[[vk::binding]]`
with folded arguments, and the span of its name), plus the `-fvk-{b,t,u,s}-shift`
options as `BindingShift`s and the `-fvk-bind-register` options as a register -> (set, binding) map.
Output: `variable.binding` set on every request except push-constant blocks (an `ir.Binding`:
set, binding, the rule that decided it, and the `register(...)` slot and space as written), and
the diagnostics (INVALID_BINDING, BINDING_CLASH, VK_BINDING_OVERLAP, VK_BINDING_INCOMPATIBLE)
in request order. For the metadata: `descriptor_type_of` (the Vulkan descriptor type of a
resource or block; an acceleration structure is its own type), `VULKAN_DESCRIPTOR_TYPES` and
`written_register` (the register as written, parsed).

The rules are those of dxc's SPIR-V back end:
1. `[[vk::binding(B, S)]]` wins: set S (default 0), binding B; source "vk::binding".
   With -fvk-bind-register (`bound`, dxc's rule): every resource and block needs a `register()`,
   and its (class, number, space) takes the set and binding the option gives, `[[vk::binding]]`
   or not; one without a register or without an option is INVALID_BINDING.
2. Else `register(xN, spaceM)`: set M (default 0), binding N plus the shift of
   class x for space M (a shift for one space beats one for "all"); source
   "register".  The class must suit the resource: b = constant buffers,
   t = read-only resources (SRVs, tbuffers), u = RW/Append/Consume (UAVs),
   s = samplers; letters are case-insensitive.
3. Else, once every explicit binding is placed, in declaration order: the lowest
   binding in set 0 that nothing uses yet; source "auto".
4. Push-constant blocks get no binding; at most one may exist and it may carry
   neither a register nor a vk::binding.
5. Two variables on one (set, binding) (reported at the later one; dxc is silent, Vulkan allows
   aliasing when one descriptor type serves every variable):
   - placed by `register()` (at least one of them): warning VK_BINDING_OVERLAP, with the
     -fvk-*-shift note when the register classes differ (b0, t0, u0 all land on binding 0);
   - both by `[[vk::binding]]`: silent when one descriptor type serves both (the same type, or a
     sampled image and a sampler: a combined image sampler); otherwise DefaultError
     VK_BINDING_INCOMPATIBLE (no descriptor set layout can hold the binding).

Invariants:
- An annotation that cannot be used (malformed, wrong class, non-constant
  arguments, already diagnosed or diagnosed here) is ignored and the variable
  falls through to the next rule, so every non-push-constant variable ends up
  with a binding and no clash is reported because of an earlier error.
- Arrays of resources take one binding (dxc without -fspv-flatten-resource-arrays).

6. Counters (`variable.counter_binding`): a counted structured buffer (RW, Append,
   Consume) gets a second binding in its own descriptor set, `[[vk::counter_binding(N)]]`
   when written (checked like a binding number), else the first binding after the
   buffer's that no resource and no earlier counter takes (wgc's choice: every counted
   buffer reserves one, in declaration order, so numbers do not depend on the code).
   A counter on a binding a resource or an earlier counter holds is a BINDING_CLASH at
   the counter's attribute.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from wgc import codes
from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic, Label
from wgc.source import Span
from wgc.syntax import ast

_MAX_U32 = 2**32 - 1
_SLOT = re.compile(r"([A-Za-z])(\d+)")
_SPACE = re.compile(r"(?i:space)(\d+)")


@dataclass(frozen=True)
class BindingShift:
    """`-fvk-<class>-shift <shift> <space>`; `space` None is dxc's `all`."""

    register_class: str
    """"b", "t", "u" or "s"."""
    shift: int
    space: int | None


@dataclass(frozen=True)
class BindingRequest:
    """A resource or uniform block to place, with what was written on its declaration."""

    variable: ir.Variable
    register: ast.RegisterBinding | None
    vk_binding: ir.Attribute | None
    span: Span
    """Where diagnostics point (the declaration's name)."""


def _resource_kind(variable: ir.Variable) -> t.ResourceKind | None:
    """The kind of resource `variable` (or each element of its array) is; None if it is none."""
    type_ = t.innermost_element(variable.type)
    return type_.kind if isinstance(type_, t.ResourceType) else None


def register_class_of(variable: ir.Variable) -> str | None:
    """The register class ("b", "t", "u", "s") that suits `variable`; None if it is no resource."""
    if variable.storage is ir.Storage.UNIFORM:
        if variable.block_kind in ("tbuffer", "TextureBuffer"):
            return "t"
        return "b"
    kind = _resource_kind(variable)
    if kind is None:
        return None
    if kind.is_sampler:
        return "s"
    if kind.writable:
        return "u"
    if kind is t.ResourceKind.CONSTANT_BUFFER:
        return "b"
    return "t"


def _describe(variable: ir.Variable) -> str:
    """The declared type as the user wrote it, for messages."""
    kind = variable.block_kind
    if variable.storage is ir.Storage.UNIFORM and kind is not None:
        if kind in ("cbuffer", "tbuffer"):
            return kind
        if not isinstance(variable.type, t.ResourceType):
            return f"{kind}<{variable.type}>"
    return str(variable.type)


def _shift_for(shifts: Sequence[BindingShift], register_class: str, space: int) -> int:
    """dxc's lookup: a shift for this class and space, else the class's "all" shift, else 0."""
    specific = everywhere = None
    for shift in shifts:  # later options override earlier ones, as on dxc's command line
        if shift.register_class.lower() != register_class:
            continue
        if shift.space is None:
            everywhere = shift.shift
        elif shift.space == space:
            specific = shift.shift
    if specific is not None:
        return specific
    return everywhere if everywhere is not None else 0


def _from_vk_binding(request: BindingRequest, diags: list[Diagnostic]) -> tuple[int, int] | None:
    """(set, binding) from `[[vk::binding(B[, S])]]`; None if it cannot be used."""
    attribute = request.vk_binding
    assert attribute is not None
    values = attribute.values()
    if not 1 <= len(values) <= 2:
        diags.append(codes.INVALID_BINDING(
            request.span, f"'vk::binding' takes a binding number and an optional descriptor set, "
                          f"not {len(values)} argument{'s' if len(values) != 1 else ''}"))
        return None
    if any(value is None for value in values):
        return None  # not a constant: already diagnosed
    for what, value in zip(("binding number", "descriptor set"), values):
        if type(value) is not int or not 0 <= value <= _MAX_U32:
            diags.append(codes.INVALID_BINDING(
                request.span, f"'vk::binding' {what} must be a non-negative 32-bit integer, not {value!r}"))
            return None
    binding = values[0]
    set_ = values[1] if len(values) == 2 else 0
    assert isinstance(binding, int) and isinstance(set_, int)     # checked just above
    return set_, binding


def _from_register(request: BindingRequest, shifts: Sequence[BindingShift],
                   diags: list[Diagnostic]) -> tuple[int, int] | None:
    """(set, binding) from `register(xN[, spaceM])` plus the shift; None if it cannot be used."""
    register = request.register
    assert register is not None
    variable = request.variable
    slot = _SLOT.fullmatch(register.slot)
    if slot is None:
        diags.append(codes.INVALID_BINDING(
            request.span, f"malformed register '{register.slot}' "
                          f"(expected a register class letter and a number, e.g. 'u0')"))
        return None
    register_class, number = slot.group(1).lower(), int(slot.group(2))
    space = 0
    if register.space is not None:
        space_match = _SPACE.fullmatch(register.space)
        if space_match is None:
            diags.append(codes.INVALID_BINDING(
                request.span, f"malformed register space '{register.space}' (expected e.g. 'space1')"))
            return None
        space = int(space_match.group(1))
    expected = register_class_of(variable)
    if register_class not in ("b", "t", "u", "s") or (expected is not None and register_class != expected):
        suffix = f" (expected '{expected}')" if expected is not None else ""
        diags.append(codes.INVALID_BINDING(
            request.span, f"invalid register class '{slot.group(1)}' for '{_describe(variable)}'{suffix}"))
        return None
    binding = number + _shift_for(shifts, register_class, space)
    if not 0 <= binding <= _MAX_U32 or space > _MAX_U32:
        diags.append(codes.INVALID_BINDING(
            request.span, f"register '{register.slot}' with its shift gives binding {binding}, "
                          f"outside the 32-bit range"))
        return None
    return space, binding


def _from_bound_register(request: BindingRequest, bound: Mapping[tuple[str, int, int], tuple[int, int]],
                         diags: list[Diagnostic]) -> tuple[int, int] | None:
    """(set, binding) that -fvk-bind-register gives the request's register; None (reported) if none does."""
    register = request.register
    if register is None:
        diags.append(codes.INVALID_BINDING(
            request.span, f"-fvk-bind-register requires register annotations on all resources: "
                          f"'{request.variable.name}' has none"))
        return None
    written = _from_register(request, (), diags)
    if written is None:
        return None
    space, number = written
    register_class = register.slot[0].lower()
    location = bound.get((register_class, number, space))
    if location is None:
        diags.append(codes.INVALID_BINDING(
            request.span, f"missing -fvk-bind-register for '{request.variable.name}' at "
                          f"register({register_class}{number}, space{space})"))
    return location


def assign_bindings(requests: Sequence[BindingRequest], shifts: Sequence[BindingShift] = (),
                    bound: Mapping[tuple[str, int, int], tuple[int, int]] | None = None) -> list[Diagnostic]:
    """Set `variable.binding` for every request except push constants; return the diagnostics.
    `bound`: -fvk-bind-register's (class, number, space) -> (set, binding), when given."""
    diags: list[Diagnostic] = []
    placed: dict[tuple[int, int], BindingRequest] = {}
    automatic: list[BindingRequest] = []
    push_constant: BindingRequest | None = None

    for request in requests:
        variable = request.variable
        written = request.register.slot if request.register is not None else None
        space = request.register.space if request.register is not None else None
        if variable.push_constant:
            if push_constant is not None:
                diags.append(codes.INVALID_BINDING(
                    request.span, "only one push-constant block is allowed",
                    labels=[Label(push_constant.span, f"'{push_constant.variable.name}' is a push-constant block")]))
            else:
                push_constant = request
            if request.register is not None or request.vk_binding is not None:
                diags.append(codes.INVALID_BINDING(request.span, "push-constant block cannot have a binding"))
            continue

        location: tuple[int, int] | None = None
        source = ""
        if bound:
            location = _from_bound_register(request, bound, diags)
            if location is None:            # reported; placed automatically so that later stages see a binding
                automatic.append(request)
                continue
            source = "register"
        elif request.vk_binding is not None:
            location, source = _from_vk_binding(request, diags), "vk::binding"
        if location is None and request.register is not None:
            location, source = _from_register(request, shifts, diags), "register"
        if location is None:
            automatic.append(request)
            continue
        set_, binding = location
        variable.binding = ir.Binding(set_, binding, source, written, space)
        first = placed.get(location)
        if first is not None:
            overlap = _overlap(request, first, location)
            if overlap is not None:
                diags.append(overlap)
        else:
            placed[location] = request

    used = {binding for set_, binding in placed if set_ == 0}
    next_binding = 0
    for request in automatic:
        while next_binding in used:
            next_binding += 1
        used.add(next_binding)
        written = request.register.slot if request.register is not None else None
        space = request.register.space if request.register is not None else None
        request.variable.binding = ir.Binding(0, next_binding, "auto", written, space)
    _assign_counter_bindings(requests, diags)
    return diags


def descriptor_type_of(variable: ir.Variable) -> str | None:
    """The Vulkan descriptor type of a resource or uniform block (as dxc's SPIR-V lays them out)."""
    if variable.storage is ir.Storage.UNIFORM:
        return "storage buffer" if variable.block_kind in ("tbuffer", "TextureBuffer") else "uniform buffer"
    kind = _resource_kind(variable)
    if kind is None:
        return None
    if kind.is_sampler:
        return "sampler"
    if kind.is_texture:
        return "storage image" if kind.writable else "sampled image"
    if kind is t.ResourceKind.BUFFER:
        return "uniform texel buffer"
    if kind is t.ResourceKind.RW_BUFFER:
        return "storage texel buffer"
    if kind is t.ResourceKind.RAYTRACING_ACCELERATION_STRUCTURE:
        return "acceleration structure"
    return "uniform buffer" if kind is t.ResourceKind.CONSTANT_BUFFER else "storage buffer"


VULKAN_DESCRIPTOR_TYPES = {
    "uniform buffer": "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER",
    "storage buffer": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER",
    "sampled image": "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE",
    "storage image": "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE",
    "sampler": "VK_DESCRIPTOR_TYPE_SAMPLER",
    "uniform texel buffer": "VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER",
    "storage texel buffer": "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER",
    "acceleration structure": "VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR",
}
"""`descriptor_type_of`'s names -> the VkDescriptorType an application puts in its set layout."""


def written_register(binding: ir.Binding) -> tuple[str, int, int] | None:
    """(class, number, space) of the `register(...)` written on a declaration (space 0 when not
    written); None when none was written or it is malformed (reported by `assign_bindings`)."""
    if binding.register is None:
        return None
    slot = _SLOT.fullmatch(binding.register)
    space = _SPACE.fullmatch(binding.space) if binding.space is not None else None
    if slot is None or (binding.space is not None and space is None):
        return None
    return slot.group(1).lower(), int(slot.group(2)), int(space.group(1)) if space is not None else 0


def _one_descriptor_serves(first: str | None, second: str | None) -> bool:
    """Vulkan: variables may alias one binding when one descriptor type serves them all."""
    return first == second or {first, second} == {"sampled image", "sampler"}


def _overlap(request: BindingRequest, first: BindingRequest, location: tuple[int, int]) -> Diagnostic | None:
    """Rule 5: two variables on one (set, binding)."""
    variable, other = request.variable, first.variable
    assert variable.binding is not None and other.binding is not None
    where = f"descriptor set {location[0]}, binding {location[1]}"
    label = Label(first.span, f"'{other.name}' is bound here")
    types = descriptor_type_of(variable), descriptor_type_of(other)
    if "register" in (variable.binding.source, other.binding.source):
        notes = []
        if register_class_of(variable) != register_class_of(other):
            notes.append("b, t, u and s registers share one Vulkan binding space: separate them with "
                         "-fvk-b-shift/-fvk-t-shift/-fvk-u-shift/-fvk-s-shift or [[vk::binding]]")
        return codes.VK_BINDING_OVERLAP(request.span, f"'{variable.name}' and '{other.name}' are both bound to "
                                        f"{where}", labels=[label], notes=notes)
    if _one_descriptor_serves(*types):
        return None                     # deliberate aliasing, e.g. a combined image sampler
    return codes.VK_BINDING_INCOMPATIBLE(
        request.span, f"'{variable.name}' ({types[0]}) and '{other.name}' ({types[1]}) are both bound to {where}, "
                      "but no Vulkan descriptor type serves both", labels=[label],
        notes=["Vulkan lets variables share a binding only when one descriptor type serves them all (the same "
               "type, or a sampled image and a sampler)"])


COUNTED_KINDS = (t.ResourceKind.RW_STRUCTURED_BUFFER, t.ResourceKind.APPEND_STRUCTURED_BUFFER,
                 t.ResourceKind.CONSUME_STRUCTURED_BUFFER)


def _counted(variable: ir.Variable) -> bool:
    type_ = variable.type
    type_ = t.innermost_element(type_)
    return variable.storage is ir.Storage.RESOURCE and isinstance(type_, t.ResourceType) \
        and type_.kind in COUNTED_KINDS


def _assign_counter_bindings(requests: Sequence[BindingRequest], diags: list[Diagnostic]) -> None:
    """Rule 6: `counter_binding` of every counted structured buffer."""
    owners: dict[tuple[int, int], str] = {}
    for request in requests:
        binding = request.variable.binding
        if binding is not None:
            owners.setdefault((binding.set, binding.binding), f"'{request.variable.name}' is bound there")
    counted = [r for r in requests if r.variable.binding is not None and _counted(r.variable)]
    automatic = []
    for request in counted:
        variable = request.variable
        assert variable.binding is not None
        attribute = ir.find_attribute(variable.attributes, "vk::counter_binding")
        values = attribute.values() if attribute is not None else ()
        if attribute is None or not values or values[0] is None:
            automatic.append(request)
            continue
        if len(values) != 1 or type(values[0]) is not int or not 0 <= values[0] <= _MAX_U32:
            diags.append(codes.INVALID_BINDING(
                attribute.span, "'vk::counter_binding' takes one non-negative 32-bit binding number"))
            automatic.append(request)
            continue
        key = (variable.binding.set, values[0])
        variable.counter_binding = ir.Binding(*key, "vk::counter_binding")
        if key in owners:
            diags.append(codes.BINDING_CLASH(
                attribute.span, f"the counter of '{variable.name}' cannot take binding {key[1]} of descriptor "
                                f"set {key[0]}: {owners[key]}"))
        else:
            owners[key] = f"the counter of '{variable.name}' is bound there"
    for request in automatic:
        variable = request.variable
        assert variable.binding is not None
        key = (variable.binding.set, variable.binding.binding + 1)
        while key in owners:
            key = (key[0], key[1] + 1)
        owners[key] = f"the counter of '{variable.name}' is bound there"
        variable.counter_binding = ir.Binding(*key, "auto")
