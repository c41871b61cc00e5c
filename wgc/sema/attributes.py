"""Semantic analysis, attributes as written: unknown attributes and duplicates, for every declaration
and statement of a translation unit.

Input: the `ast.TranslationUnit` (every node that carries `attributes` or `annotations`: functions,
parameters, struct declarations and members, variables, cbuffers, statements).
Output: diagnostics, in source order of the walk:
- WG0343 (warning, `unknown-attributes`, clang's convention): an attribute neither HLSL (dxc's
  attribute list, shader stages wgc does not compile included) nor the Vulkan `vk::` namespace
  defines, with "did you mean" when a known spelling is close (`difflib`, as `Scope.suggest`);
- WG0341 (error): an attribute written twice on one declaration or statement with different
  arguments (`[NumThreads(64,1,1)] [NumThreads(32,1,1)]`), the same for two semantics or two
  `register(...)` of one register class; reported at each earlier one, labelled at the one written
  last (dxc's order for its `[shader]` and `WaveSize` conflicts);
- WG0342 (warning, `ignored-attributes`, dxc's `warn_duplicate_attribute_exact` text "attribute X is
  already applied"): `NodeDispatchGrid`/`NodeMaxDispatchGrid` repeated (identically, or with other
  values, where the one written last is used), the only attributes dxc warns about, and a semantic
  or register written twice identically. Other attributes written twice identically are silent,
  as in dxc (`[MaxRecords(3)] [MaxRecords(3)]`: harmless).

Invariants: pure (the AST is not modified); never raises. Arguments are compared as written
(literals by value, other expressions by structure), before folding: `[NumThreads(64,1,1)]` and
`[NumThreads(8*8,1,1)]` count as different. Names compare case-insensitively, as HLSL matches them.
`[[vk::ext_capability]]` and `[[vk::ext_extension]]` may repeat (each adds one). The meaning of
the known attributes (where they are allowed, their values) is checked where they are used
(`nodes.py`, `bindings.py`, `declarations.py`).
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, get_args

from wgc import codes
from wgc.diagnostics import Diagnostic, FixIt, Label
from wgc.sema import node_attributes
from wgc.syntax import ast
from wgc.source import Span

_HLSL_ATTRIBUTES = (
    # entry points of every stage (dxc's HLSL attributes; wgc only compiles node shaders, but
    # valid library code for other stages must not be warned about)
    # (those node rules read, `Shader`, `NumThreads`, `WaveSize`, `OutputTopology`, are in the node table)
    "GroupSharedLimit", "RootSignature", "noinline", "Experimental",
    "domain", "earlydepthstencil", "instance", "maxtessfactor", "outputcontrolpoints",
    "partitioning", "patchconstantfunc", "maxvertexcount", "clipplanes",
    # work graphs: functions, parameters, records (Work Graphs 1.0, MaxRecordsPerNode, loops, mesh nodes)
    *(row.name for row in node_attributes.TABLE),
    # statements
    "unroll", "loop", "fastopt", "allow_uav_condition", "branch", "flatten", "forcecase", "call",
)
_VULKAN_ATTRIBUTES = (
    "binding", "counter_binding", "location", "index", "builtin", "push_constant", "input_attachment_index",
    "constant_id", "image_format", "offset", "shader_record_nv", "shader_record_ext", "combinedImageSampler",
    "post_depth_coverage", "early_and_late_tests", "depth_unchanged", "depth_greater", "depth_less",
    "stencil_ref_unchanged_front", "stencil_ref_greater_equal_front", "stencil_ref_less_equal_front",
    "stencil_ref_unchanged_back", "stencil_ref_greater_equal_back", "stencil_ref_less_equal_back",
    "ext_instruction", "ext_reference", "ext_literal", "ext_type_def", "ext_capability", "ext_extension",
    "ext_storage_class", "ext_builtin_input", "ext_builtin_output", "spvexecutionmode",
)
KNOWN_ATTRIBUTES: dict[str, str] = {
    name.lower(): name for name in (*_HLSL_ATTRIBUTES, *(f"vk::{n}" for n in _VULKAN_ATTRIBUTES))
}
"""Every attribute wgc knows, lower-cased -> the usual spelling (for suggestions)."""
_KNOWN_NAMES = frozenset(KNOWN_ATTRIBUTES)

REPEATABLE_ATTRIBUTES = frozenset({"vk::ext_capability", "vk::ext_extension"})
LAST_ONE_WINS = node_attributes.LAST_ONE_WINS
"""Attributes dxc only warns about when repeated with other values (`warn_duplicate_attribute_exact`,
SemaHLSL.cpp DiagnoseHLSLDecl): the one written last is used."""


def check_written_attributes(unit: ast.TranslationUnit) -> list[Diagnostic]:
    """The diagnostics of the module docstring for every node of `unit`, in source order (pre-order)."""
    diagnostics: list[Diagnostic] = []
    for node in _carriers(unit):
        attributes = getattr(node, "attributes", None)
        if attributes:
            _check_attributes(attributes, diagnostics)
            _check_places(node, attributes, diagnostics)
        annotations = getattr(node, "annotations", None)
        if annotations:
            _check_annotations(annotations, diagnostics)
    return diagnostics


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The names of an AST class's fields but its span, last first (looked up once per class)."""
    names = tuple(reversed([f.name for f in fields(cls) if f.name != "span"]))
    _FIELD_NAMES[cls] = names
    return names


_WITHOUT_ATTRIBUTES = (*get_args(ast.Expr), ast.TypeRef)
"""Expressions and written types: neither they nor anything inside them (expressions, types) carries
attributes or annotations (HLSL has no statement inside an expression, and an inline struct is a
`StructType`, not a `TypeRef`)."""


def _nodes(root: Any, skipped: tuple[type, ...] = ()) -> list[Any]:
    """Every AST node below `root` (itself included) that is no instance of a `skipped` class
    and lies below none, pre-order."""
    return _walk(root, _FIELD_NAMES, _field_names, skipped)


def _walk(root: Any, known: dict[type, tuple[str, ...]], field_names: Any,
          skipped: tuple[type, ...] = ()) -> list[Any]:
    """The AST nodes that the fields `field_names(cls)` (kept in `known`, last field first) reach
    from `root` (itself included), skipping instances of `skipped` and what lies below them, pre-order."""
    found: list[Any] = []
    stack = [root]
    pop, push, keep = stack.pop, stack.append, found.append
    while stack:
        node = pop()
        keep(node)
        names = known.get(type(node))
        for name in names if names is not None else field_names(type(node)):  # last field first: pre-order
            value = getattr(node, name)
            if isinstance(value, tuple):
                for item in reversed(value):
                    if isinstance(item, ast.Node) and not isinstance(item, skipped):
                        push(item)
            elif isinstance(value, ast.Node) and not isinstance(value, skipped):
                push(value)
    return found


_CARRY_NOTHING = frozenset({
    *(cls.__name__ for cls in get_args(ast.Expr)), "Expr", "TypeRef", "TemplateArg", "ScopeArgs", "Attribute",
    "Annotation", "Semantic", "RegisterBinding", "PackOffset", "TemplateParam", "Enumerator",
    "str", "int", "bool", "float", "None", "tuple", "Span",
})
"""The names in field annotations of what holds no node that carries attributes or annotations
(expressions and written types as `_WITHOUT_ATTRIBUTES`; an attribute's arguments, annotations, template
parameters and enumerators hold only those): a field annotated with nothing else is not walked."""
_CARRIER_FIELDS: dict[type, tuple[str, ...]] = {}


def _carrier_fields(cls: type) -> tuple[str, ...]:
    """The names of an AST class's fields that may lead to a node carrying attributes or annotations,
    last first (looked up once per class)."""
    names = tuple(reversed([f.name for f in fields(cls)
                            if not set(re.findall(r"\w+", str(f.type))) <= _CARRY_NOTHING]))
    _CARRIER_FIELDS[cls] = names
    return names


def _carriers(root: Any) -> list[Any]:
    """The AST nodes below `root` (itself included) that the fields which may lead to a node carrying
    attributes or annotations reach (`_carrier_fields`), pre-order: every node of `_nodes(root)` that
    carries some is among them, in the same order.  It reads 2 fields per node where `_nodes(root,
    _WITHOUT_ATTRIBUTES)` reads all."""
    return _walk(root, _CARRIER_FIELDS, _carrier_fields)


_CARRIER_PLACES: dict[type, frozenset[str]] = {
    ast.FunctionDecl: frozenset({"node", "shader", "input", "output"}),
    ast.Param: frozenset({"input", "output"}),
    ast.StructDecl: frozenset({"record"}),
}
"""The places of the node-attribute table (`node_attributes`) that an attribute written on a declaration
of each class may have; any other carrier (variables, fields, cbuffers, statements) has none. A function's
input and output attributes are `nodes.py`'s to report (WG0406), so they count as allowed here."""
_PLACE_WORDS = {"node": "node shaders", "shader": "shader entry points", "input": "node inputs",
                "output": "node outputs", "record": "node record structs"}
_CARRIER_WORDS = {ast.FunctionDecl: "a function", ast.Param: "a parameter", ast.StructDecl: "a struct"}


def _check_places(node: Any, attributes: tuple[ast.Attribute, ...], diagnostics: list[Diagnostic]) -> None:
    """WG0346 for each work-graph attribute written on a declaration its row's `places` do not include."""
    allowed = _CARRIER_PLACES.get(type(node), frozenset())
    for attribute in attributes:
        row = node_attributes.ATTRIBUTES.get(attribute.name.lower())
        if row is None or row.places & allowed:
            continue
        words = [_PLACE_WORDS[place] for place in ("node", "shader", "input", "output", "record")
                 if place in row.places]
        where = _CARRIER_WORDS.get(type(node), "a statement" if isinstance(node, get_args(ast.Stmt)) else
                                   "a variable or member" if isinstance(node, ast.VarDecl) else "this declaration")
        diagnostics.append(codes.MISPLACED_WORK_GRAPH_ATTRIBUTE(
            attribute.span, f"attribute '{attribute.name}' only applies to {' or '.join(words)}: it is ignored "
            f"on {where}"))


def _argument_key(expr: Any) -> Any:
    """An argument as compared for duplicates: literals by value (`0x40` is `64`), the rest by structure."""
    if isinstance(expr, (ast.IntLiteral, ast.FloatLiteral, ast.BoolLiteral, ast.StringLiteral)):
        return (type(expr).__name__, expr.value)
    if isinstance(expr, ast.UnaryExpr) and expr.op == "-" and isinstance(expr.operand, (ast.IntLiteral, ast.FloatLiteral)):
        return (type(expr.operand).__name__, -expr.operand.value)
    return expr


def _check_attributes(attributes: tuple[ast.Attribute, ...], diagnostics: list[Diagnostic]) -> None:
    """`_attribute_reports`, which has nothing to report where each attribute is known and none is written
    twice (most declarations: checking that first spares them the full report)."""
    names = {attribute.name.lower() for attribute in attributes}
    if len(names) == len(attributes) and names <= _KNOWN_NAMES:
        return
    _attribute_reports(attributes, diagnostics)


def _respelling(attribute: ast.Attribute, close: list[str]) -> tuple[FixIt, ...]:
    """The fix-it that writes the close known spelling in place of the name (where the name is written
    in the attribute's text: not when a macro wrote it)."""
    span = attribute.span
    if not close or span is None:
        return ()
    at = span.file.text.find(attribute.name, span.start, span.end)
    if at < 0:
        return ()
    known = KNOWN_ATTRIBUTES[close[0]]
    return (FixIt(Span(span.file, at, at + len(attribute.name)), known, f"change to '{known}'"),)


def _attribute_reports(attributes: tuple[ast.Attribute, ...], diagnostics: list[Diagnostic]) -> None:
    """WG0343 for each unknown attribute, then WG0341/WG0342 for those written twice."""
    for attribute in attributes:
        key = attribute.name.lower()
        if key not in KNOWN_ATTRIBUTES:
            import difflib  # only for a misspelt name: not imported by every compile

            close = difflib.get_close_matches(key, KNOWN_ATTRIBUTES, n=1, cutoff=0.6)
            notes = (f"did you mean '{KNOWN_ATTRIBUTES[close[0]]}'?",) if close else ()
            diagnostics.append(codes.UNKNOWN_ATTRIBUTE(attribute.span, f"unknown attribute '{attribute.name}' ignored",
                                                       notes=notes, fixes=_respelling(attribute, close)))
    last: dict[str, ast.Attribute] = {}
    found: list[Diagnostic] = []
    for attribute in reversed(attributes):      # as dxc: each earlier one against the one written last
        key = attribute.name.lower()
        if key not in KNOWN_ATTRIBUTES or key in REPEATABLE_ATTRIBUTES:
            continue
        later = last.setdefault(key, attribute)
        if later is attribute:
            continue
        if [_argument_key(a) for a in later.args] == [_argument_key(a) for a in attribute.args]:
            if key not in LAST_ONE_WINS:
                continue
            found.append(codes.DUPLICATE_ATTRIBUTE(
                attribute.span, f"attribute '{attribute.name}' is already applied",
                labels=(Label(later.span, "applied again here"),)))
        elif key in LAST_ONE_WINS:
            found.append(codes.DUPLICATE_ATTRIBUTE(
                attribute.span, f"attribute '{attribute.name}' is already applied with different parameters",
                labels=(Label(later.span, "this one is used"),)))
        else:
            found.append(codes.CONFLICTING_DUPLICATE_ATTRIBUTE(
                attribute.span, f"attribute '{attribute.name}' is applied twice with different arguments",
                labels=(Label(later.span, "conflicting attribute is here"),),
                notes=("remove one of them: wgc does not choose between conflicting values",)))
    diagnostics.extend(reversed(found))


def misspelling_of(name: str) -> str | None:
    """The known attribute (lower case) an unknown attribute name is close to, if one is (what WG0343
    suggests): the rules that would miss that attribute do not cascade from the misspelling."""
    key = name.lower()
    if key in KNOWN_ATTRIBUTES:
        return None
    import difflib  # only for a misspelt name: not imported by every compile

    close = difflib.get_close_matches(key, KNOWN_ATTRIBUTES, n=1, cutoff=0.6)
    return close[0] if close else None


def _check_annotations(annotations: tuple[Any, ...], diagnostics: list[Diagnostic]) -> None:
    """`_annotation_reports`, which has nothing to report for one annotation (most declarations)."""
    if len(annotations) > 1:
        _annotation_reports(annotations, diagnostics)


def _annotation_reports(annotations: tuple[Any, ...], diagnostics: list[Diagnostic]) -> None:
    """Two semantics, or two `register(...)` of one register class (and profile)."""
    seen: dict[tuple[str, ...], Any] = {}
    for annotation in annotations:
        if isinstance(annotation, ast.Semantic):
            key: tuple[str, ...] = ("semantic",)
            what, text = "semantic", f"'{annotation.name}'"
            value: Any = annotation.name.lower()
        elif isinstance(annotation, ast.RegisterBinding):
            register_class = annotation.slot[:1].lower()
            key = ("register", register_class, (annotation.profile or "").lower())
            what, text = f"'{register_class}' register", f"'register({annotation.slot}" + \
                (f", {annotation.space}" if annotation.space else "") + ")'"
            value = (annotation.slot.lower(), (annotation.space or "space0").lower())
        else:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = (annotation, value, text)
            continue
        first_annotation, first_value, first_text = first
        if first_value == value:
            diagnostics.append(codes.DUPLICATE_ATTRIBUTE(
                annotation.span, f"{what} {text} is already applied",
                labels=(Label(first_annotation.span, "already applied here"),)))
        else:
            diagnostics.append(codes.CONFLICTING_DUPLICATE_ATTRIBUTE(
                annotation.span, f"a second {what} {text} conflicts with {first_text}",
                labels=(Label(first_annotation.span, "conflicting annotation is here"),),
                notes=("remove one of them: wgc does not choose between conflicting values",)))

