"""Semantic analysis, shared state: what the checkers of declarations, statements and
expressions share while they walk one translation unit.

Input: `SemaOptions` (the parts of the command line that change meaning) and
the scopes being built.  Output: the `ir.Module` under construction and the
diagnostics collected so far.

What a scope symbol's `entity` is, by symbol kind:
- VARIABLE / PARAMETER: the `ir.Variable`, or a `BlockMember` for a member of
  a cbuffer/tbuffer (used as a plain name, accessed as a field of the block), or an
  `ErroneousVariable` for a variable whose declaration had an error;
- FIELD: a `FieldEntity` (inside member functions, names of fields);
- FUNCTION: a `FunctionEntity` (one per overload; templates instantiate);
- TYPE: a `TypeEntity` (structs and enums carry the scope of their members), or an
  `ErroneousType` for a typedef whose declaration had an error;
- NAMESPACE: a `NamespaceEntity`;
- ENUMERATOR: an `EnumeratorEntity` (also the `Barrier` flag constants).

Also shared: `node_handlers`, the checkers' dispatch tables (an AST class -> the checker's
method `_ClassName` for it).

Invariants: diagnostics are only appended (never raised); the current scope
and function are restored by `scope_of` and `in_function` even on early exit.
"""

from __future__ import annotations

from typing import Any

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, DiagnosticKind, Label
from wgc.sema.scope import Scope, ScopeKind
from wgc.source import Span
from wgc.syntax import ast


MAX_SUGGESTIONS = 100
"""'did you mean' notes per compile (more than -ferror-limit shows by default)."""


@dataclass(frozen=True)
class SemaOptions:
    profile: str = "lib_6_9"
    """lib_6_8 and lib_6_9: the released work-graph rules (Work Graphs 1.0; SM 6.9 changed none); or a
    non-library profile (`ps_6_6`), whose stage is `entry_stage`."""
    entry_stage: str | None = None
    """A non-library profile's stage ("pixel", "compute", "mesh", "amplification", "vertex", ...): the
    function named `entry` is that stage's entry point ([Shader] implied, as DXC); None for lib_6_x."""
    entry: str = "main"
    max_records_per_node: bool = False
    """-fmax-records-per-node: proposal 0025's rules (an output array needs [MaxRecordsPerNode], WG0425)."""
    work_graph_loops: bool = False
    """-fwork-graph-loops: the Work Graph Loops proposal's rules (loop entries, depth 48 counting neither
    recursion nor loop iterations, NodeMaxRecursionDepth up to 2^24-2, fewer than 2^24-1 node-ID slots)."""

    @property
    def loops(self) -> bool:
        """The loops proposal applies: opted in, and not Work Graphs 1.0 (lib_6_8)."""
        return self.work_graph_loops and self.profile != "lib_6_8"

    @property
    def requires_max_records_per_node(self) -> bool:
        """Proposal 0025 applies: opted in, and not Work Graphs 1.0 (lib_6_8)."""
        return self.max_records_per_node and self.profile != "lib_6_8"
    enable_16bit_types: bool = False
    default_row_major: bool = False
    """-Zpr: matrices without row_major/column_major are row-major."""
    use_dx_layout: bool = False
    """-fvk-use-dx-layout: cbuffers use FXC packing."""
    use_scalar_layout: bool = False
    """-fvk-use-scalar-layout: buffers and cbuffers use scalar layout."""
    binding_shifts: tuple[Any, ...] = ()
    """`bindings.BindingShift`s from -fvk-{b,t,u,s}-shift."""
    spec_values: tuple[tuple[int, int], ...] = ()
    """(constant_id, value) pairs that replace the defaults of `[[vk::constant_id]]` constants (bools as
    0 or 1): `wgc run` compiles a graph with the values its dispatch specialises, so that attributes
    the emulated target lays out by them fold to those values."""
    bound_registers: tuple[tuple[str, int, int, int, int], ...] = ()
    """-fvk-bind-register: (register class, number, space, binding, set) each."""
    pipeline_names: bool = False
    """-spirv: a program written for Vulkan, whose pipeline names the nodes (WG0535 instead of WG0511)."""


# ---------------------------------------------------------------- scope entities


@dataclass(eq=False)
class TypeEntity:
    type: t.Type
    scope: Scope | None = None
    """Structs and enums: the scope of their members (for `S::f`, `E::A`)."""


@dataclass(eq=False)
class NamespaceEntity:
    scope: Scope


@dataclass(eq=False)
class FieldEntity:
    struct: t.StructType
    index: int
    """Index into `struct.all_fields()`."""


@dataclass(eq=False)
class BlockMember:
    block: ir.Variable
    index: int


@dataclass(eq=False)
class EnumeratorEntity:
    type: t.Type
    value: int


@dataclass(eq=False)
class ErroneousVariable:
    """A local whose declaration had an error (an unknown type, a bad array size, ...): the name is
    declared all the same, and a use of it is an error already reported (no "undeclared" cascade)."""

    name: str


@dataclass(eq=False)
class ErroneousType:
    """A typedef whose declaration had an error: the name is declared all the same, and a use of it
    is an error already reported (no "unknown type name" cascade)."""

    name: str
    type: None = None
    scope: None = None


@dataclass(eq=False)
class FunctionEntity:
    """One function overload: its signature, and its IR function once declared.

    A template keeps its AST and instantiates per template-argument tuple.
    """

    decl: ast.FunctionDecl
    function: ir.Function | None
    scope: Scope
    """The scope the function was declared in (templates are instantiated there)."""
    method_of: t.StructType | None = None
    defined: bool = False
    instances: dict[tuple[Any, ...], FunctionEntity | None] = field(default_factory=dict)
    """A template's instances by argument tuple (types, or values of value parameters); None: failed."""
    template_args: tuple[Any, ...] = ()
    redefinition: bool = False
    """A second definition (WG0302): its body is checked for its own errors, then dropped."""

    @property
    def is_template(self) -> bool:
        return bool(self.decl.template_params) and not self.template_args


# ---------------------------------------------------------------- per-function state


@dataclass
class FunctionState:
    function: ir.Function
    this: ir.Variable | None = None
    loops: int = 0
    switches: int = 0
    breakable: list[str] = field(default_factory=list)
    """"loop" / "switch" for each enclosing breakable statement, innermost last."""


class Context:
    """The state of one analysis: options, diagnostics, scopes, the module being built."""

    def __init__(self, options: SemaOptions, global_scope: Scope, skipped_names: frozenset[str] = frozenset()) -> None:
        self.options = options
        self.skipped_names = skipped_names
        """Identifiers of the declarations the parser skipped after a syntax error (reported there)."""
        self.unreported: list[Span] = []
        """Uses of those names: not reported again, but errors all the same for `analyze`'s recovery."""
        self.diagnostics: list[Diagnostic] = []
        self.module = ir.Module(enable_16bit_types=options.enable_16bit_types,
                                default_row_major=options.default_row_major)
        self.scope = global_scope
        self.function: FunctionState | None = None
        self.call_graph: dict[ir.Function, list[tuple[ir.Function, Span]]] = {}
        self.struct_scopes: dict[t.StructType, Scope] = {}
        self.erroneous_fields: dict[t.StructType, set[str]] = {}
        self.struct_depths: dict[t.StructType, int] = {}
        """How many structs deep each declared struct nests (itself included; `declarations`, WG0371)."""
        self.too_deep_structs: set[t.StructType] = set()
        """Structs whose base was already MAX_STRUCT_NESTING deep: reported (WG0371) and declared without
        the base, so that a chain of N derived structs is not N^2/2 inherited fields."""
        """Fields whose declaration had an error: `s.f` is then an error already reported."""
        self.erroneous_uses = 0
        self.suggestions_left = MAX_SUGGESTIONS
        """'did you mean' notes still to be worked out (each compares the name with every visible one)."""
        self.errors_counted = (0, 0)
        """(diagnostics seen, errors among them): `stmt._error_count` counts only the new ones."""
        """Uses of an erroneous variable or field: expressions dropped without a new diagnostic."""
        """The member scope of each struct (fields and member functions; its parent is the base's)."""
        self.templates: Any = None
        """The `templates.Templates` of this analysis (set by the declaration checker; typeref instantiates)."""
        self.extents: list[tuple[Span, ir.Function | t.StructType]] = []
        """The whole declaration (attributes, signature, body or members) of every defined function and
        struct: an error inside it makes the entity unsound for the work-graph rules (`analyze`)."""
        self.broken_function_names: set[str] = set()
        """Names of functions whose signature failed (they are not in the module; a node output may
        still target them, which is then no 'missing node')."""

    def release(self) -> None:
        """Break the analysis's reference cycles once it is over (`analyze`): a scope's symbols point
        at entities that point back at scopes (a function at the scope it was declared in, a struct
        or namespace at its members'), and the checkers reach one another through `templates`. The
        scopes are sema's alone (the `Analysis` keeps none), so their symbols are dropped: reference
        counting then frees the analysis's objects when the compile drops them, and no collection of
        the cyclic garbage collector has to find them (a served compile's worker would pay for it)."""
        self.templates = None
        scopes = [self.scope, *self.struct_scopes.values()]
        while scopes:
            scope = scopes.pop()
            for symbols in scope.symbols.values():
                for symbol in symbols:
                    inner = getattr(symbol.entity, "scope", None)
                    if inner is not None and inner.symbols and inner.parent is not None:
                        scopes.append(inner)
            scope.symbols = {}

    def use_of_skipped(self, name: str, span: Span) -> bool:
        """Whether `name` is one of `skipped_names`; its use at `span` is then an unreported error."""
        if name not in self.skipped_names:
            return False
        self.erroneous_use(span)
        return True

    def erroneous_use(self, span: Span) -> None:
        """A use at `span` of a declaration whose error is reported there (or that the parser skipped):
        not reported again, but the using declaration is unsound (`analyze`), since its IR lacks the
        expression that held the use."""
        self.unreported.append(span)
        self.erroneous_uses += 1

    def suggest(self, name: str, extra: set[str] | frozenset[str] = frozenset()) -> str | None:
        """`Scope.suggest` in the current scope, for the first MAX_SUGGESTIONS misspelt names only: each
        compares the name with every visible one, and thousands of them made a compile quadratic."""
        if self.suggestions_left <= 0:
            return None
        self.suggestions_left -= 1
        return self.scope.suggest(name, extra)

    def report(self, kind: DiagnosticKind, span: Span | None, message: str, *,
               labels: list[Label] | tuple[Label, ...] = (), notes: list[str] | tuple[str, ...] = ()) -> None:
        self.diagnostics.append(kind(span, message, labels=labels, notes=notes))

    def scope_of(self, kind: ScopeKind, name: str | None = None, scope: Scope | None = None) -> _EnteredScope:
        """Enter a new child scope (or the given one) for the duration of the `with`."""
        return _EnteredScope(self, kind, name, scope)

    def in_function(self, state: FunctionState | None) -> _EnteredFunction:
        """Check inside the function of `state` (None: outside any) for the duration of the `with`."""
        return _EnteredFunction(self, state)


class _EnteredScope:
    """`Context.scope_of`'s context manager: the current scope is the entered one until the `with`
    ends, however it ends.  A class, not `contextlib.contextmanager`: sema enters a scope for every
    block, and the generator-based manager cost twice as much per `with`."""

    __slots__ = ("ctx", "kind", "name", "scope", "saved")

    def __init__(self, ctx: Context, kind: ScopeKind, name: str | None, scope: Scope | None) -> None:
        self.ctx, self.kind, self.name, self.scope = ctx, kind, name, scope

    def __enter__(self) -> Scope:
        self.saved = saved = self.ctx.scope
        entered = self.scope if self.scope is not None else saved.child(self.kind, self.name)
        self.ctx.scope = entered
        return entered

    def __exit__(self, *exc_info: object) -> None:
        self.ctx.scope = self.saved


class _EnteredFunction:
    """`Context.in_function`'s context manager (a class, as `_EnteredScope`: cheaper than a generator's)."""

    __slots__ = ("ctx", "state", "saved")

    def __init__(self, ctx: Context, state: FunctionState | None) -> None:
        self.ctx, self.state = ctx, state

    def __enter__(self) -> None:
        self.saved = self.ctx.function
        self.ctx.function = self.state

    def __exit__(self, *exc_info: object) -> None:
        self.ctx.function = self.saved


def node_handlers(checker: type) -> dict[type, Any]:
    """A checker's handlers by the AST class they take: its method `_Name` handles `ast.Name`.

    The checkers dispatch on `type(node)` through this table instead of building the method's name
    and looking it up for every node (a large share of `ExpressionChecker.check`'s own time)."""
    table: dict[type, Any] = {}
    for name, method in vars(checker).items():
        node = getattr(ast, name[1:], None) if name[:1] == "_" else None
        if isinstance(node, type) and issubclass(node, ast.Node):
            table[node] = method
    return table
