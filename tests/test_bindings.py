"""Descriptor bindings (wgc.sema.bindings): dxc's vk::binding > register+shift > automatic rules, and errors."""

from __future__ import annotations

import pytest

from wgc import codes, ir
from wgc.diagnostics import Label
from wgc.sema.bindings import BindingRequest, BindingShift, assign_bindings, register_class_of
from wgc.source import SourceFile, Span
from wgc.syntax import ast
from wgc.types import FLOAT, UINT, ResourceKind, StructType, array, resource, vector

FILE = SourceFile("test.hlsl", "x" * 1000)
_next_offset = [0]


def span() -> Span:
    start = _next_offset[0]
    _next_offset[0] += 10
    return Span(FILE, start, start + 5)


RW_UINT = resource(ResourceKind.RW_STRUCTURED_BUFFER, UINT)
SRV = resource(ResourceKind.STRUCTURED_BUFFER, UINT)
TEX = resource(ResourceKind.TEXTURE_2D, vector(FLOAT, 4))
SAMPLER = resource(ResourceKind.SAMPLER_STATE, None)
BLOCK = StructType("Params")


def req(name: str, type_=RW_UINT, register: str | None = None, space: str | None = None,
        vk: tuple | None = None, storage: ir.Storage = ir.Storage.RESOURCE,
        block_kind: str | None = None, push_constant: bool = False) -> BindingRequest:
    variable = ir.Variable(name, type_, storage, span(), block_kind=block_kind, push_constant=push_constant)
    reg = ast.RegisterBinding(span(), register, space) if register is not None else None
    attr = None
    if vk is not None:
        attr = ir.Attribute("vk::binding", tuple(ir.AttributeArg(v, span()) for v in vk), span())
    return BindingRequest(variable, reg, attr, span())


def cbuffer(name: str, register: str | None = None, space: str | None = None, **kw) -> BindingRequest:
    return req(name, BLOCK, register, space, storage=ir.Storage.UNIFORM, block_kind="cbuffer", **kw)


def placed(request: BindingRequest) -> tuple[int, int, str]:
    b = request.variable.binding
    assert b is not None
    return b.set, b.binding, b.source


def messages(diags) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diags]


# ---------------------------------------------------------------- explicit bindings


def test_vk_binding_wins_over_register_and_defaults_to_set_0():
    a = req("a", vk=(5, 2), register="u1", space="space3")
    b = req("b", vk=(7,))
    assert assign_bindings([a, b]) == []
    assert placed(a) == (2, 5, "vk::binding")
    assert a.variable.binding.register == "u1"
    assert placed(b) == (0, 7, "vk::binding")
    assert b.variable.binding.register is None


def test_register_with_and_without_space():
    a = req("a", register="u3", space="space1")
    b = req("b", register="U4")  # class letters are case-insensitive
    c = cbuffer("c", register="b2", space="SPACE2")
    d = req("d", SAMPLER, register="s1")
    e = req("e", array(TEX, 4), register="t9")
    assert assign_bindings([a, b, c, d, e]) == []
    assert [placed(r) for r in (a, b, c, d, e)] == [
        (1, 3, "register"), (0, 4, "register"), (2, 2, "register"), (0, 1, "register"), (0, 9, "register")]
    assert b.variable.binding.register == "U4"


def test_shifts_for_one_space_all_spaces_and_specific_wins():
    shifts = [BindingShift("t", 10, None), BindingShift("t", 100, 1), BindingShift("u", 20, 0)]
    t0 = req("t0", SRV, register="t1")                 # "all": 1 + 10
    t1 = req("t1", SRV, register="t1", space="space1")  # space 1 beats "all": 1 + 100
    t2 = req("t2", SRV, register="t1", space="space2")  # "all" again
    u0 = req("u0", register="u1")                      # u, space 0: 1 + 20
    u1 = req("u1", register="u1", space="space1")      # no u shift for space 1
    s0 = req("s0", SAMPLER, register="s1")             # no s shift at all
    vk = req("vk", SRV, vk=(30,), register="t5")       # vk::binding ignores shifts
    assert assign_bindings([t0, t1, t2, u0, u1, s0, vk], shifts) == []
    assert [placed(r)[:2] for r in (t0, t1, t2, u0, u1, s0, vk)] == [
        (0, 11), (1, 101), (2, 11), (0, 21), (1, 1), (0, 1), (0, 30)]


def test_later_shift_option_overrides_an_earlier_one():
    r = req("r", register="u0")
    assign_bindings([r], [BindingShift("u", 5, None), BindingShift("U", 7, None)])
    assert placed(r) == (0, 7, "register")


# ---------------------------------------------------------------- automatic bindings


def test_automatic_bindings_skip_numbers_used_in_set_0_only():
    a = req("a")
    x = req("x", register="u0")
    b = req("b", SAMPLER)
    y = req("y", vk=(2,))
    z = req("z", register="u1", space="space1")  # set 1: does not block binding 1 in set 0
    c = cbuffer("c")
    d = req("d", TEX)
    assert assign_bindings([a, x, b, y, z, c, d]) == []
    assert [placed(r) for r in (a, b, c, d)] == [(0, 1, "auto"), (0, 3, "auto"), (0, 4, "auto"), (0, 5, "auto")]
    assert placed(x) == (0, 0, "register") and placed(y) == (0, 2, "vk::binding")


# ---------------------------------------------------------------- clashes


def test_clash_names_both_and_points_at_the_earlier_one():
    a = req("g_A", register="u3")
    b = req("g_B", vk=(3, 0))
    c = req("g_C", register="u3", space="space1")
    diags = assign_bindings([a, b, c])
    assert messages(diags) == [
        ("WG0360", "'g_B' and 'g_A' are both bound to descriptor set 0, binding 3")]
    assert diags[0].span == b.span
    assert diags[0].labels == (Label(a.span, "'g_A' is bound here"),)
    assert placed(b) == (0, 3, "vk::binding") and placed(c) == (1, 3, "register")


@pytest.mark.parametrize("first, second, code", [
    (TEX, SAMPLER, None),            # a combined image sampler: one descriptor type serves both
    (SAMPLER, TEX, None),
    (SRV, SRV, None),                # the same descriptor type: Vulkan allows the aliasing
    (TEX, RW_UINT, "WG0361"),        # sampled image and storage buffer: no one descriptor type
    (SAMPLER, SRV, "WG0361"),
])
def test_vk_binding_aliasing_follows_vulkans_descriptor_types(first, second, code):
    diags = assign_bindings([req("a", first, vk=(2,)), req("b", second, vk=(2,))])
    assert [d.code for d in diags] == ([code] if code else [])


def test_clash_through_a_shift_and_each_later_one_reported():
    a = req("a", SRV, register="t0")  # 0 + 10
    b = req("b", SRV, vk=(10,))
    c = req("c", SRV, register="t0")
    diags = assign_bindings([a, b, c], [BindingShift("t", 10, 0)])
    assert [d.code for d in diags] == ["WG0360", "WG0360"]
    assert [d.span for d in diags] == [b.span, c.span]
    assert all(d.labels[0].span == a.span for d in diags)


# ---------------------------------------------------------------- invalid annotations


@pytest.mark.parametrize("type_, block_kind, register, message", [
    (RW_UINT, None, "t0", "invalid register class 't' for 'RWStructuredBuffer<uint>' (expected 'u')"),
    (SRV, None, "u0", "invalid register class 'u' for 'StructuredBuffer<uint>' (expected 't')"),
    (resource(ResourceKind.APPEND_STRUCTURED_BUFFER, UINT), None, "t0",
     "invalid register class 't' for 'AppendStructuredBuffer<uint>' (expected 'u')"),
    (TEX, None, "s0", "invalid register class 's' for 'Texture2D<float4>' (expected 't')"),
    (SAMPLER, None, "T0", "invalid register class 'T' for 'SamplerState' (expected 's')"),
    (RW_UINT, None, "c0", "invalid register class 'c' for 'RWStructuredBuffer<uint>' (expected 'u')"),
    (RW_UINT, None, "q3", "invalid register class 'q' for 'RWStructuredBuffer<uint>' (expected 'u')"),
    (BLOCK, "cbuffer", "t0", "invalid register class 't' for 'cbuffer' (expected 'b')"),
    (BLOCK, "tbuffer", "b0", "invalid register class 'b' for 'tbuffer' (expected 't')"),
    (BLOCK, "ConstantBuffer", "u0", "invalid register class 'u' for 'ConstantBuffer<Params>' (expected 'b')"),
])
def test_wrong_register_class(type_, block_kind, register, message):
    storage = ir.Storage.UNIFORM if block_kind else ir.Storage.RESOURCE
    r = req("r", type_, register, storage=storage, block_kind=block_kind)
    diags = assign_bindings([r])
    assert messages(diags) == [("WG0324", message)]
    assert diags[0].span == r.span
    assert placed(r) == (0, 0, "auto")  # the bad register is ignored: no cascade of clashes


@pytest.mark.parametrize("slot, space, message", [
    ("u", None, "malformed register 'u' (expected a register class letter and a number, e.g. 'u0')"),
    ("uX", None, "malformed register 'uX' (expected a register class letter and a number, e.g. 'u0')"),
    ("3", None, "malformed register '3' (expected a register class letter and a number, e.g. 'u0')"),
    ("u-1", None, "malformed register 'u-1' (expected a register class letter and a number, e.g. 'u0')"),
    ("u1", "spacex", "malformed register space 'spacex' (expected e.g. 'space1')"),
    ("u1", "space", "malformed register space 'space' (expected e.g. 'space1')"),
    ("u1", "1", "malformed register space '1' (expected e.g. 'space1')"),
])
def test_malformed_register(slot, space, message):
    r = req("r", register=slot, space=space)
    assert messages(assign_bindings([r])) == [("WG0324", message)]
    assert placed(r)[2] == "auto"


def test_bad_vk_binding_arguments():
    non_constant = req("a", vk=(None,), register="u4")  # already diagnosed: silently falls through
    negative = req("b", vk=(-1,))
    not_int = req("c", vk=(1.5,))
    bad_set = req("d", vk=(1, "x"))
    too_many = req("e", vk=(1, 2, 3))
    diags = assign_bindings([non_constant, negative, not_int, bad_set, too_many])
    assert messages(diags) == [
        ("WG0324", "'vk::binding' binding number must be a non-negative 32-bit integer, not -1"),
        ("WG0324", "'vk::binding' binding number must be a non-negative 32-bit integer, not 1.5"),
        ("WG0324", "'vk::binding' descriptor set must be a non-negative 32-bit integer, not 'x'"),
        ("WG0324", "'vk::binding' takes a binding number and an optional descriptor set, not 3 arguments"),
    ]
    assert placed(non_constant) == (0, 4, "register")
    assert [placed(r)[1:] for r in (negative, not_int, bad_set, too_many)] == [
        (0, "auto"), (1, "auto"), (2, "auto"), (3, "auto")]


def test_binding_out_of_32_bit_range():
    r = req("r", register="u4294967295")
    assert messages(assign_bindings([r], [BindingShift("u", 1, None)])) == [
        ("WG0324", "register 'u4294967295' with its shift gives binding 4294967296, outside the 32-bit range")]


# ---------------------------------------------------------------- push constants


def test_push_constant_gets_no_binding_and_takes_no_number():
    pc = cbuffer("pc", push_constant=True)
    a = req("a")
    assert assign_bindings([pc, a]) == []
    assert pc.variable.binding is None
    assert placed(a) == (0, 0, "auto")


def test_only_one_push_constant_block():
    first = cbuffer("first", push_constant=True)
    second = cbuffer("second", push_constant=True)
    diags = assign_bindings([first, second])
    assert messages(diags) == [("WG0324", "only one push-constant block is allowed")]
    assert diags[0].span == second.span
    assert diags[0].labels == (Label(first.span, "'first' is a push-constant block"),)


@pytest.mark.parametrize("annotation", [{"register": "b0"}, {"vk": (0,)}])
def test_push_constant_cannot_have_a_binding(annotation):
    pc = cbuffer("pc", push_constant=True, **annotation)
    diags = assign_bindings([pc])
    assert messages(diags) == [("WG0324", "push-constant block cannot have a binding")]
    assert pc.variable.binding is None


def test_register_class_of():
    assert register_class_of(req("a", resource(ResourceKind.CONSTANT_BUFFER, BLOCK)).variable) == "b"
    assert register_class_of(req("a", resource(ResourceKind.TEXTURE_BUFFER, BLOCK)).variable) == "t"
    assert register_class_of(req("a", resource(ResourceKind.RW_BYTE_ADDRESS_BUFFER, None)).variable) == "u"
    assert register_class_of(req("a", array(SAMPLER, None)).variable) == "s"
    assert register_class_of(req("a", FLOAT).variable) is None
    assert codes.INVALID_BINDING.code == "WG0324" and codes.BINDING_CLASH.code == "WG0323"
