"""Semantic analysis, scopes: what names mean where (global, namespace, struct, function, block).

Input: declarations as sema meets them (`Scope.declare`).  Output: lookups
(`Scope.lookup`, qualified `Scope.lookup_qualified`, where a leading "" is the
global namespace of `::name`), the previous declaration
when a name is declared twice in one scope, and spelling suggestions for
undeclared names ("did you mean 'count'?").

Invariants:
- A scope maps a name to a list of `Symbol`s: several entries only for function
  overloads; anything else declared twice in one scope is a redefinition.
- Inner scopes shadow outer ones; lookups walk outwards to the global scope (a
  derived struct: its own members, its bases' members, then where it was declared).
- Names are case-sensitive (HLSL identifiers are); suggestions are
  deterministic (`wgc.suggest.closest`: clang's edit-distance threshold, then alphabetical).
"""

from __future__ import annotations

import enum
from typing import Any

from wgc.cached_dataclass import dataclass, field
from wgc.suggest import closest


class SymbolKind(enum.Enum):
    VARIABLE = "variable"
    PARAMETER = "parameter"
    FUNCTION = "function"
    TYPE = "type"
    NAMESPACE = "namespace"
    ENUMERATOR = "enumerator"
    FIELD = "field"


class ScopeKind(enum.Enum):
    GLOBAL = "global"
    NAMESPACE = "namespace"
    STRUCT = "struct"
    FUNCTION = "function"
    BLOCK = "block"


@dataclass(eq=False)
class Symbol:
    """A declared name: what it is, its IR entity (type, variable, function...), where."""

    name: str
    kind: SymbolKind
    entity: Any
    span: Any = field(default=None, repr=False)


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    parent: Scope | None = None
    name: str | None = None
    """The namespace or struct name, for qualified lookups and messages."""
    symbols: dict[str, list[Symbol]] = field(default_factory=dict)
    lexical: Scope | None = None
    """A derived struct's scope: its parent is the base's member scope, and this is the scope the
    struct was declared in (searched after the bases, for types, constants and template parameters)."""

    def child(self, kind: ScopeKind, name: str | None = None) -> Scope:
        return Scope(kind, self, name)

    def declare(self, symbol: Symbol) -> Symbol | None:
        """Add `symbol`; return the earlier declaration it clashes with, if any (then not added).

        Functions may be overloaded (several functions of one name); namespaces may be
        reopened (the existing namespace symbol is returned as no clash).
        """
        existing = self.symbols.get(symbol.name)
        if existing:
            first = existing[0]
            if symbol.kind is SymbolKind.FUNCTION and first.kind is SymbolKind.FUNCTION:
                existing.append(symbol)
                return None
            if symbol.kind is SymbolKind.NAMESPACE and first.kind is SymbolKind.NAMESPACE:
                return None
            return first
        self.symbols[symbol.name] = [symbol]
        return None

    def hide(self, name: str) -> None:
        """Forget `name` here (a derived struct's member hides the inherited one it re-declares)."""
        self.symbols.pop(name, None)

    def local(self, name: str) -> list[Symbol]:
        return self.symbols.get(name, [])

    def lookup(self, name: str) -> list[Symbol]:
        """The symbols `name` denotes here: the innermost scope that declares it wins."""
        scope: Scope | None = self
        while scope is not None:
            found = scope.symbols.get(name)
            if found:
                return found
            if scope.lexical is not None:  # a derived struct: its bases' members, then where it was declared
                base = scope.parent
                while base is not None and base.kind is ScopeKind.STRUCT:
                    found = base.symbols.get(name)
                    if found:
                        return found
                    base = base.parent if base.lexical is not None else None
                scope = scope.lexical
                continue
            scope = scope.parent
        return []

    def lookup_qualified(self, parts: tuple[str, ...]) -> list[Symbol]:
        """`ns::inner::name` or `Struct::member`: resolve the first part here, the rest inside.

        A first part "" is the global namespace (`::name`, `::ns::name`).
        """
        if parts and parts[0] == "":
            root = self
            while root.kind is not ScopeKind.GLOBAL and root.parent is not None:
                root = root.parent
            return root.lookup_qualified(parts[1:])
        if len(parts) == 1:
            return self.lookup(parts[0])
        found = self.lookup(parts[0])
        for part in parts[1:]:
            inner = inner_scope(found)
            if inner is None:
                return []
            found = inner.local(part)
        return found

    def visible_names(self) -> set[str]:
        names: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            names.update(scope.symbols)
            scope = scope.parent
        return names

    def suggest(self, name: str, extra: set[str] | frozenset[str] = frozenset()) -> str | None:
        """The visible name (or one of `extra`, e.g. intrinsics) closest to a misspelled `name`."""
        close = closest(name, sorted(self.visible_names() | set(extra)))
        return close[0] if close else None


def inner_scope(symbols: list[Symbol]) -> Scope | None:
    """The scope a namespace or struct symbol opens (its entity carries it as `.scope`)."""
    if len(symbols) != 1 or symbols[0].kind not in (SymbolKind.NAMESPACE, SymbolKind.TYPE):
        return None
    return getattr(symbols[0].entity, "scope", None)
