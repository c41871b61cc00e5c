"""`wgc.cached_dataclass`: the same classes as `dataclasses.dataclass`, with the methods' code cached.

Every behaviour is compared with the standard library's decorator applied to the same class
body (the expected values come from `dataclasses`, not from the code under test): random class
specifications (hypothesis) and the error cases one by one; then the code cache across
processes (hit, miss after an edit, corrupt file).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wgc import cached_dataclass
from wgc.cached_dataclass import dataclass, field

ROOT = Path(__file__).resolve().parents[1]

FIELD_KINDS = ("plain", "default", "factory", "field_plain", "field_default", "no_init_default",
               "no_init_factory")


def _field_value(kind: str, compare: bool, shown: bool) -> object:
    """The class-body value of a field of `kind` (a fresh Field each time: decorators fill them in)."""
    options = {"compare": compare, "repr": shown}
    return {
        "plain": dataclasses.MISSING,
        "default": 7,
        "factory": dataclasses.field(default_factory=list, **options),
        "field_plain": dataclasses.field(**options),
        "field_default": dataclasses.field(default=(1, 2), **options),
        "no_init_default": dataclasses.field(default=5, init=False, **options),
        "no_init_factory": dataclasses.field(default_factory=dict, init=False, **options),
    }[kind]


def build(decorate, name: str, fields, options: dict, base=None, extra: dict | None = None):
    """Class `name` with `fields` [(name, kind, compare, repr)] made by `decorate(**options)`."""
    namespace: dict = {"__annotations__": {}, "__module__": __name__, "__qualname__": name}
    for field_name, kind, compare, shown in fields:
        namespace["__annotations__"][field_name] = "int" if kind in ("plain", "default") else "object"
        value = _field_value(kind, compare, shown)
        if value is not dataclasses.MISSING:
            namespace[field_name] = value
    namespace.update(extra or {})
    return decorate(**options)(type(name, (base,) if base is not None else (), namespace))


def outcome(function):
    """What calling `function` gives: ("ok", value) or (exception type, message)."""
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - the exception is the observed behaviour
        return (type(error), str(error))


def describe_fields(cls):
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash, f.kw_only)
            for f in dataclasses.fields(cls)]


field_specs = st.lists(
    st.tuples(st.sampled_from(FIELD_KINDS), st.booleans(), st.booleans()), max_size=4,
).map(lambda specs: [(f"f{i}", *spec) for i, spec in enumerate(specs)])
option_specs = st.fixed_dictionaries({"eq": st.booleans(), "order": st.booleans(), "frozen": st.booleans(),
                                      "slots": st.booleans()})


def pair(fields, options, base_fields=None, base_options=None, extra=None):
    """The class made by dataclasses and by wgc's decorator (or the error each raised)."""
    made = []
    for decorate in (dataclasses.dataclass, dataclass):
        def make(decorate=decorate):
            base = None
            if base_fields is not None:
                base = build(decorate, "Base", base_fields, base_options)
            return build(decorate, "Made", fields, options, base, dict(extra or {}))
        made.append(outcome(make))
    return made


def instances(cls, values):
    """Instances of `cls` from `values`: every __init__ argument given (twice, shifted), or only the
    required ones, and a copy of the first."""
    params = list(inspect.signature(cls).parameters.values())
    required = [p for p in params if p.default is inspect.Parameter.empty]
    made = [cls(*[values[(offset + i) % len(values)] for i in range(len(params))]) for offset in (0, 1)]
    made.append(cls(*[values[i % len(values)] for i in range(len(required))]))
    made.append(copy.copy(made[0]))
    return made


def _class_default(cls, name):
    value = getattr(cls, name, "<absent>")
    return "<slot>" if isinstance(value, type(PickledFrozen.a)) else value


def behaviour(cls, values):
    """Everything observable about `cls` and its instances, in a comparable form."""
    shown = {
        "signature": str(inspect.signature(cls)),
        "fields": describe_fields(cls),
        "match_args": getattr(cls, "__match_args__", None),
        "hash is None": cls.__hash__ is None,
        "slots": cls.__dict__.get("__slots__"),
        "class defaults": [_class_default(cls, f.name) for f in dataclasses.fields(cls)],
        "methods": sorted(name for name in vars(cls) if name not in ("__doc__", "__dataclass_params__")),
        "params": {name: getattr(cls.__dataclass_params__, name) for name in ("eq", "order", "frozen")},
    }
    objects = instances(cls, values)
    shown["repr"] = [repr(o) for o in objects]
    shown["state"] = [[getattr(o, f.name) for f in dataclasses.fields(cls)] for o in objects]
    shown["eq"] = [[outcome(lambda: a == b) for b in objects] for a in objects]
    shown["ne"] = [[outcome(lambda: a != b) for b in objects] for a in objects]
    shown["lt"] = [[outcome(lambda: a < b) for b in objects] for a in objects]
    shown["ge"] = [[outcome(lambda: a >= b) for b in objects] for a in objects]
    shown["hash"] = [outcome(lambda: hash(o)) if cls.__hash__ not in (None, object.__hash__) else None
                     for o in objects]
    target = objects[0]
    names = [f.name for f in dataclasses.fields(cls)]
    shown["setattr field"] = outcome(lambda: setattr(target, names[0], 99)) if names else None
    shown["setattr other"] = outcome(lambda: setattr(target, "other", 1))
    shown["delattr field"] = outcome(lambda: delattr(objects[1], names[0])) if names else None
    shown["asdict"] = outcome(lambda: dataclasses.asdict(objects[2]))
    init_names = [f.name for f in dataclasses.fields(cls) if f.init]
    shown["replace"] = outcome(lambda: repr(dataclasses.replace(objects[2], **{n: 3 for n in init_names[:1]})))
    shown["has dict"] = hasattr(objects[2], "__dict__")
    return shown


@settings(max_examples=300, deadline=None)
@given(fields=field_specs, options=option_specs, values=st.lists(st.integers(-3, 3), min_size=1, max_size=4))
def test_random_classes_behave_as_the_standard_librarys(fields, options, values):
    expected, got = pair(fields, options)
    assert expected[0] == got[0], (expected, got)
    if expected[0] != "ok":
        assert expected == got
        return
    assert behaviour(got[1], values) == behaviour(expected[1], values)


@settings(max_examples=150, deadline=None)
@given(base_fields=field_specs, fields=field_specs, options=option_specs, base_frozen=st.booleans(),
       values=st.lists(st.integers(-3, 3), min_size=1, max_size=4))
def test_random_subclasses_behave_as_the_standard_librarys(base_fields, fields, options, base_frozen, values):
    base_fields = [(f"b{name}", *rest) for name, *rest in base_fields]
    expected, got = pair(fields, options, base_fields, {"frozen": base_frozen})
    assert expected[0] == got[0], (expected, got)
    if expected[0] != "ok":
        assert expected == got
        return
    assert behaviour(got[1], values) == behaviour(expected[1], values)


def _explicit_methods(*names):
    body = {"__eq__": lambda self, other: "explicit eq", "__hash__": lambda self: 1234,
            "__lt__": lambda self, other: "explicit lt", "__repr__": lambda self: "explicit repr",
            "__setattr__": lambda self, name, value: None, "__init__": lambda self: None}
    return {name: body[name] for name in names}


@pytest.mark.parametrize("extra", [("__eq__",), ("__hash__",), ("__eq__", "__hash__"), ("__repr__",),
                                   ("__lt__",), ("__setattr__",), ("__init__",)])
@pytest.mark.parametrize("options", [{}, {"eq": False}, {"frozen": True}, {"frozen": True, "order": True},
                                     {"frozen": True, "eq": False}, {"order": True}])
def test_methods_the_class_defines_are_kept_or_refused_as_by_dataclasses(extra, options):
    """Explicit methods: kept (eq, repr, init), hash by the standard table, errors for order/frozen."""
    fields = [("a", "plain", True, True), ("b", "default", True, True)]
    expected, got = pair(fields, options, extra=_explicit_methods(*extra))
    assert expected[0] == got[0] and (expected[0] == "ok" or expected == got), (expected, got)
    if expected[0] == "ok":
        std, mine = expected[1], got[1]
        for name in ("__eq__", "__hash__", "__lt__", "__repr__", "__setattr__", "__init__"):
            from_class = [name in vars(c) and getattr(vars(c)[name], "__qualname__", None) == "<lambda>"
                          for c in (std, mine)]
            assert from_class[0] == from_class[1], name
        assert (std.__hash__ is None) == (mine.__hash__ is None)


@pytest.mark.parametrize("fields, options", [
    ([("a", "default", True, True), ("b", "plain", True, True)], {}),   # non-default after default
    ([("a", "plain", True, True)], {"order": True, "eq": False}),      # order needs eq
])
def test_the_same_errors_for_the_same_mistakes(fields, options):
    expected, got = pair(fields, options)
    assert expected[0] != "ok" and expected == got


def test_a_mutable_default_and_a_field_without_annotation_are_refused_as_by_dataclasses():
    for namespace in ({"__annotations__": {"a": "list"}, "a": []},
                      {"__annotations__": {}, "a": dataclasses.field(default=1)}):
        results = [outcome(lambda d=d: d(type("Bad", (), dict(namespace, a=copy.copy(namespace.get("a"))))))
                   for d in (dataclasses.dataclass, dataclass)]
        assert results[0][0] in (ValueError, TypeError) and results[0] == results[1]


def test_frozen_and_non_frozen_bases_do_not_mix_as_in_dataclasses():
    for base_frozen, frozen in ((True, False), (False, True)):
        expected, got = pair([("a", "plain", True, True)], {"frozen": frozen},
                             [("b", "plain", True, True)], {"frozen": base_frozen})
        assert expected[0] is TypeError and expected == got


def test_post_init_is_called_after_the_fields_are_set():
    calls = []

    @dataclass(frozen=True)
    class Checked:
        a: int
        b: list = field(default_factory=list)

        def __post_init__(self) -> None:
            calls.append((self.a, self.b))

    Checked(1)
    Checked(2, [3])
    assert calls == [(1, []), (2, [3])]


def test_a_field_named_self_works_as_in_dataclasses():
    expected, got = pair([("self", "plain", True, True), ("x", "default", True, True)], {"frozen": True})
    assert expected[0] == got[0] == "ok"
    assert str(inspect.signature(got[1])) == str(inspect.signature(expected[1]))
    assert repr(got[1](1, 2)) == repr(expected[1](1, 2))


def test_recursive_repr_prints_dots_as_dataclasses_does():
    made = []
    for decorate in (dataclasses.dataclass, dataclass):
        @decorate
        class Cell:
            items: list

        cell = Cell([])
        cell.items.append(cell)
        made.append(repr(cell))
    assert made[0] == made[1]
    assert made[0].endswith(".<locals>.Cell(items=[...])")


@dataclass(frozen=True, slots=True)
class PickledFrozen:
    a: int
    b: tuple = (1,)


@dataclass(order=True)
class PickledPlain:
    a: int
    b: list = field(default_factory=list)


def test_instances_pickle_and_copy_as_dataclasses_instances_do():
    for obj in (PickledFrozen(3, (4,)), PickledPlain(5, [6])):
        assert pickle.loads(pickle.dumps(obj)) == obj
        assert copy.deepcopy(obj) == obj
    assert not hasattr(PickledFrozen(1), "__dict__")


def test_frozen_slotted_classes_set_each_field_in_its_own_slot():
    """A frozen class with slots sets its fields through the slots' own setters (a speed-up): a field
    inherited from a slotted base goes to the base's slot, and a field that a mixin shadows with a
    class attribute is set as `object.__setattr__` sets it, as in dataclasses (read back the same)."""
    made = []
    for decorate in (dataclasses.dataclass, dataclass):
        @decorate(frozen=True, slots=True)
        class Base:
            a: int
            b: str = "b"

        class Mixin:
            b = "shadowed"

        @decorate(frozen=True, slots=True)
        class Leaf(Mixin, Base):
            c: tuple = ()
            d: int = 4

        leaf = Leaf(1, "two", (3,), 5)
        base = Base(6)
        made.append(((leaf.a, leaf.b, leaf.c, leaf.d), (base.a, base.b), Leaf.__slots__, hasattr(leaf, "__dict__"),
                     outcome(lambda: setattr(leaf, "c", 0)), outcome(lambda: setattr(base, "a", 0))))
    assert made[0] == made[1]
    assert made[1][0] == (1, "two", (3,), 5)


def test_match_statements_see_the_fields_in_order():
    match PickledPlain(1, [2]):
        case PickledPlain(a, [b]):
            assert (a, b) == (1, 2)
        case _:
            raise AssertionError("no match")


def test_no_module_of_wgc_uses_the_standard_decorator():
    """Every data class of the package is made by the cached decorator (the start-up cost it saves)."""
    offenders = []
    for path in sorted((ROOT / "wgc").rglob("*.py")):
        if path.name == "cached_dataclass.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"^\s*from dataclasses import [^\n]*\bdataclass\b", text, re.M) or "@dataclasses.dataclass" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


# ------------------------------------------------------------------ the code cache across processes

_COUNT = ("import sys; sys.path.insert(0, {root!r}); sys.path.insert(0, {folder!r}); import classes; "
          "from wgc import cached_dataclass; print(cached_dataclass._CODE_CACHE.compiled)")


def _classes_module(folder: Path, second_field: str) -> None:
    (folder / "classes.py").write_text(
        "from wgc.cached_dataclass import dataclass\n\n"
        "@dataclass(frozen=True)\nclass One:\n    a: int\n\n"
        f"@dataclass\nclass Two:\n    x: int\n    {second_field}: str = 'y'\n"
        f"assert repr(Two(1)) == \"Two(x=1, {second_field}='y')\", repr(Two(1))\n")


def _compiled(folder: Path, cache: Path) -> int:
    """How many method codes a fresh process importing `classes` (and wgc) compiled."""
    env = dict(os.environ, WGC_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _COUNT.format(root=str(ROOT), folder=str(folder))],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def _cache_file(cache: Path) -> Path:
    (found,) = cache.glob(f"{cached_dataclass.CACHE_NAME}-*.cache")
    return found


def test_a_second_process_compiles_nothing(tmp_path):
    _classes_module(tmp_path, "y")
    cache = tmp_path / "cache"
    assert _compiled(tmp_path, cache) == 2          # One and Two (importing wgc makes no data class)
    assert _cache_file(cache).stat().st_size > 0
    assert _compiled(tmp_path, cache) == 0


def test_an_edited_class_gets_code_compiled_from_its_new_source(tmp_path):
    _classes_module(tmp_path, "y")
    cache = tmp_path / "cache"
    _compiled(tmp_path, cache)
    _classes_module(tmp_path, "renamed")     # the module asserts that repr shows the new field name
    assert _compiled(tmp_path, cache) == 1   # only class Two's methods changed
    assert _compiled(tmp_path, cache) == 0


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "other version"])
def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path, damage):
    _classes_module(tmp_path, "y")
    cache = tmp_path / "cache"
    first = _compiled(tmp_path, cache)
    path = _cache_file(cache)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # a file of this name whose header names another key (Python version)
        key = cached_dataclass._CODE_CACHE.key
        path.write_bytes(data.replace(key.encode(), key.replace("python", "pyth0n").encode(), 1))
    assert _compiled(tmp_path, cache) == first
    assert _compiled(tmp_path, cache) == 0


_STALE = ("import marshal, sys; sys.path.insert(0, {root!r}); from wgc import cached_dataclass, startup_cache; "
          "c = cached_dataclass._CODE_CACHE; codes = c._load(); "
          "codes.update((f'# stale {{i}}', compile('pass', 'x', 'exec')) for i in range({count})); "
          "startup_cache.write(cached_dataclass.CACHE_NAME, c.key, marshal.dumps(codes))")
_CACHED = ("import sys; sys.path.insert(0, {root!r}); from wgc import cached_dataclass; "
           "print(len(cached_dataclass._CODE_CACHE._load()))")


def _run(script: str, cache: Path) -> str:
    out = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, WGC_CACHE_DIR=str(cache)),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_cache_grown_past_its_bound_keeps_only_the_codes_in_use(tmp_path):
    """Codes of other versions pile up in a shared folder; past MAX_CACHED the next process
    rewrites the file with only the codes it used, whether it compiled one (the edited Two) or
    found them all."""
    _classes_module(tmp_path, "y")
    cache = tmp_path / "cache"
    _compiled(tmp_path, cache)
    stale = _STALE.format(root=str(ROOT), count=cached_dataclass.MAX_CACHED)
    _run(stale, cache)
    assert int(_run(_CACHED.format(root=str(ROOT)), cache)) == cached_dataclass.MAX_CACHED + 2
    assert _compiled(tmp_path, cache) == 0
    assert int(_run(_CACHED.format(root=str(ROOT)), cache)) == 2
    _run(stale, cache)
    _classes_module(tmp_path, "renamed")
    assert _compiled(tmp_path, cache) == 1
    assert int(_run(_CACHED.format(root=str(ROOT)), cache)) == 2
    assert _compiled(tmp_path, cache) == 0


def test_an_unwritable_cache_folder_only_costs_compiling(tmp_path):
    _classes_module(tmp_path, "y")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    assert _compiled(tmp_path, blocker) > 0
    assert _compiled(tmp_path, blocker) > 0
