"""Scopes: shadowing, overloads, redefinitions, qualified lookup and suggestions."""

from __future__ import annotations

from types import SimpleNamespace

from wgc.sema.scope import Scope, ScopeKind, Symbol, SymbolKind


def var(name: str, entity: object = None) -> Symbol:
    return Symbol(name, SymbolKind.VARIABLE, entity)


def test_inner_scopes_shadow_outer_ones():
    globals_ = Scope(ScopeKind.GLOBAL)
    outer = var("x", "global x")
    globals_.declare(outer)
    block = globals_.child(ScopeKind.FUNCTION).child(ScopeKind.BLOCK)
    assert block.lookup("x") == [outer]
    inner = var("x", "local x")
    assert block.declare(inner) is None
    assert block.lookup("x") == [inner]
    assert globals_.lookup("x") == [outer]
    assert block.lookup("y") == []


def test_redefinition_returns_the_first_declaration():
    scope = Scope(ScopeKind.BLOCK)
    first = var("count")
    scope.declare(first)
    assert scope.declare(var("count")) is first
    assert scope.lookup("count") == [first]


def test_functions_overload_and_namespaces_reopen():
    scope = Scope(ScopeKind.GLOBAL)
    f1 = Symbol("f", SymbolKind.FUNCTION, "f(int)")
    f2 = Symbol("f", SymbolKind.FUNCTION, "f(float)")
    assert scope.declare(f1) is None and scope.declare(f2) is None
    assert scope.lookup("f") == [f1, f2]
    ns = Symbol("ns", SymbolKind.NAMESPACE, SimpleNamespace(scope=scope.child(ScopeKind.NAMESPACE, "ns")))
    assert scope.declare(ns) is None
    assert scope.declare(Symbol("ns", SymbolKind.NAMESPACE, None)) is None
    assert scope.declare(var("f")) is f1  # a variable may not reuse a function's name


def test_qualified_lookup_through_namespaces_and_structs():
    globals_ = Scope(ScopeKind.GLOBAL)
    ns_scope = globals_.child(ScopeKind.NAMESPACE, "ns")
    struct_scope = ns_scope.child(ScopeKind.STRUCT, "S")
    member = Symbol("helper", SymbolKind.FUNCTION, "S::helper")
    struct_scope.declare(member)
    ns_scope.declare(Symbol("S", SymbolKind.TYPE, SimpleNamespace(scope=struct_scope)))
    globals_.declare(Symbol("ns", SymbolKind.NAMESPACE, SimpleNamespace(scope=ns_scope)))
    block = globals_.child(ScopeKind.BLOCK)
    assert block.lookup_qualified(("ns", "S", "helper")) == [member]
    assert block.lookup_qualified(("ns", "missing")) == []
    assert block.lookup_qualified(("nope", "S")) == []


def test_did_you_mean():
    scope = Scope(ScopeKind.GLOBAL)
    for name in ("recordCount", "recordIndex", "outputs"):
        scope.declare(var(name))
    block = scope.child(ScopeKind.BLOCK)
    assert block.suggest("recordCont") == "recordCount"
    assert block.suggest("OUTPUTS") == "outputs"
    assert block.suggest("lerpp", extra={"lerp", "length"}) == "lerp"
    assert block.suggest("zzz") is None
