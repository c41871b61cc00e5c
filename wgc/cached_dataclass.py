"""`dataclass`, as the standard library's, with the generated methods' code cached on disk.

Stage: none; every stage's data classes (AST, IR, types, diagnostics, ...) are declared with it.

Why: `dataclasses.dataclass` writes the source of `__init__`, `__repr__`, `__eq__`, ... of each
class and compiles it when the class is created, on every start of every process; with some
200 classes that was the largest single cost of a cold `wgc compile` (about a third of its
imports).  This decorator writes the same methods' source, but takes their compiled code from
a cache (`wgc.startup_cache`, name "dataclass-code"): compiling happens once per version of a
class, and a process only compiles (and, at exit, stores) the classes it did not find.

Input: a class with annotated fields, as for `dataclasses.dataclass`, and the options wgc uses:
`eq`, `order`, `frozen`, `slots` (`init`, `repr` and `match_args` are always on; `unsafe_hash`,
`kw_only`, `weakref_slot`, `KW_ONLY` and `InitVar` are not offered).
Output: the class with the methods `dataclasses.dataclass` would give it, behaving the same:
the same `__init__` signature and defaults (`default`, `default_factory`, `init=False`),
`__post_init__` called, `__repr__` (recursion-safe, fields with `repr=False` left out),
`__eq__`/ordering on the fields with `compare=True` (as tuples, same class only), `__hash__`
by the standard table (generated for eq+frozen, None for eq without frozen, an explicit one
kept), frozen `__setattr__`/`__delattr__` raising `dataclasses.FrozenInstanceError`,
`__match_args__`, a new class with `__slots__` (and pickling support when frozen; the `__init__`
of a frozen one sets each slot through its descriptor, where dataclasses calls
`object.__setattr__`: the same effect, in two thirds of the time), fields
inherited from dataclass bases, the same errors for the same mistakes.  The classes are real
dataclasses to the standard library: `dataclasses.fields`, `replace`, `asdict`, `is_dataclass`
work on them (`__dataclass_fields__` holds `dataclasses.Field` objects).
The one difference: no docstring is invented for a class without one (dataclasses makes one
from `inspect.signature`, which is slow).

Invariants:
- The cache is keyed by the methods' source text and the Python version (bytecode format), so a
  class edited in a checkout gets code compiled from its new source, never stale code; the
  values (defaults, factories, the class) are bound when the class is created, not cached.
- Classes of one shape (the same field names and options) share one compiled code.
- Without a usable cache folder everything still works: the code is compiled in process.
"""

from __future__ import annotations

import _thread
import builtins
import dataclasses
import functools
import marshal
import sys
import types
from dataclasses import FrozenInstanceError
from dataclasses import field as field  # re-exported: the field specifier goes with the decorator
from typing import TYPE_CHECKING, Any

from wgc import startup_cache

CACHE_NAME = "dataclass-code"
MAX_CACHED = 600
"""Above this many cached codes (classes edited many times in a checkout, several versions sharing
a cache folder) the cache is rewritten with only the codes the current process used.  A compile
uses about 180 codes (0.6 MB); every process reads the whole file, so a bound of a few versions'
worth keeps that read small (at 4,000, a folder shared by a dozen checkouts grew to 2,900 codes,
7 MB, which added 13 MiB to every compile's peak memory)."""


class _HasDefaultFactory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


class _Params:
    """`__dataclass_params__`: the options the class was made with (as dataclasses records them)."""

    __slots__ = ("init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only", "slots",
                 "weakref_slot")

    def __init__(self, eq: bool, order: bool, frozen: bool, slots: bool) -> None:
        self.init = self.repr = self.match_args = True
        self.unsafe_hash = self.kw_only = self.weakref_slot = False
        self.eq, self.order, self.frozen, self.slots = eq, order, frozen, slots

    def __repr__(self) -> str:
        return ("_DataclassParams(" + ",".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")")


# ------------------------------------------------------------------ the code cache

class _CodeCache:
    """Compiled method code by source text: loaded from the cache file on first use, new entries
    written back when the process ends (`startup_cache.flush`)."""

    def __init__(self) -> None:
        self.key = f"python {sys.hexversion:x} {sys.implementation.cache_tag}"
        self.codes: dict[str, types.CodeType] | None = None
        self.used: dict[str, types.CodeType] = {}
        self.missed = False
        self.compiled = 0
        """How many codes this process compiled (not found in the cache)."""

    def code(self, source: str) -> types.CodeType:
        if self.codes is None:
            self.codes = self._load()
            if len(self.codes) > MAX_CACHED:
                self._save_at_exit()   # grown past its bound: rewritten with the codes used here
        code = self.codes.get(source)
        if code is None:
            code = compile(source, "<wgc dataclass>", "exec")
            self.compiled += 1
            self.codes[source] = code
            self._save_at_exit()
        self.used[source] = code
        return code

    def _save_at_exit(self) -> None:
        if not self.missed:
            self.missed = True
            startup_cache.at_exit(self.save)

    def _load(self) -> dict[str, types.CodeType]:
        payload = startup_cache.read(CACHE_NAME, self.key)
        if payload is None:
            return {}
        try:
            codes = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            return {}
        if not isinstance(codes, dict) or not all(
                isinstance(source, str) and isinstance(code, types.CodeType) for source, code in codes.items()):
            return {}
        return codes

    def save(self) -> None:
        """Store the codes compiled here, with those another process stored meanwhile."""
        if not self.missed or self.codes is None:
            return
        self.missed = False
        merged = {**self._load(), **self.codes}
        if len(merged) > MAX_CACHED:
            merged = dict(self.used)
        startup_cache.write(CACHE_NAME, self.key, marshal.dumps(merged))


_CODE_CACHE = _CodeCache()


# ------------------------------------------------------------------ the decorator

def _dataclass(cls: Any = None, /, *, eq: bool = True, order: bool = False, frozen: bool = False,
               slots: bool = False) -> Any:
    """`dataclasses.dataclass` with these options (see the module docstring)."""

    def wrap(cls: Any) -> Any:
        return _process_class(cls, eq, order, frozen, slots)

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:  # to type checkers it is the standard decorator, whose behaviour it has
    from dataclasses import dataclass as dataclass
else:
    dataclass = _dataclass


def _process_class(cls: Any, eq: bool, order: bool, frozen: bool, slots: bool) -> Any:
    fields: dict[str, dataclasses.Field[Any]] = {}
    any_frozen_base = has_dataclass_bases = False
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is not None:
            has_dataclass_bases = True
            fields.update((f.name, f) for f in base_fields.values())
            if base.__dataclass_params__.frozen:
                any_frozen_base = True
    cls.__dataclass_params__ = _Params(eq, order, frozen, slots)

    annotations = cls.__dict__.get("__annotations__", {})
    for name, annotation in annotations.items():
        if _is_classvar(annotation):
            continue
        f = _make_field(cls, name, annotation)
        fields[name] = f
        if isinstance(cls.__dict__.get(name), dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if has_dataclass_bases and any_frozen_base and not frozen:
        raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
    if has_dataclass_bases and not any_frozen_base and frozen:
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    cls.__dataclass_fields__ = fields

    class_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
    has_explicit_hash = not (class_hash is dataclasses.MISSING
                             or (class_hash is None and "__eq__" in cls.__dict__))
    if order and not eq:
        raise ValueError("eq must be true if order is true")

    field_list = list(fields.values())
    methods = _Methods(cls, field_list, frozen, slots)
    methods.init(has_post_init=hasattr(cls, "__post_init__"))
    methods.repr([f for f in field_list if f.repr])
    compared = [f for f in field_list if f.compare]
    if eq:
        methods.compare("__eq__", "==", compared)
    if order:
        for name, op in (("__lt__", "<"), ("__le__", "<="), ("__gt__", ">"), ("__ge__", ">=")):
            methods.compare(name, op, compared)
    if frozen:
        methods.frozen()
    hash_action = None
    if eq and not has_explicit_hash:
        hash_action = "add" if frozen else "none"
    if hash_action == "add":
        methods.hash([f for f in field_list if (f.compare if f.hash is None else f.hash)])
    created = methods.create()

    _set_new_attribute(cls, "__init__", created["__init__"])
    _set_new_attribute(cls, "__repr__", _recursive_repr(created["__repr__"]))
    if eq:
        _set_new_attribute(cls, "__eq__", created["__eq__"])
    if order:
        for name in ("__lt__", "__le__", "__gt__", "__ge__"):
            if _set_new_attribute(cls, name, created[name]):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if _set_new_attribute(cls, name, created[name]):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if hash_action == "add":
        cls.__hash__ = created["__hash__"]
    elif hash_action == "none":
        cls.__hash__ = None
    _set_new_attribute(cls, "__match_args__", tuple(f.name for f in field_list if f.init))
    if slots:
        cls = _add_slots(cls, frozen)
        if frozen:
            methods.bind_slot_setters(cls)
    return cls


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.replace(" ", "").startswith(("ClassVar", "typing.ClassVar"))
    typing = sys.modules.get("typing")
    return typing is not None and (annotation is typing.ClassVar
                                   or getattr(annotation, "__origin__", None) is typing.ClassVar)


def _make_field(cls: Any, name: str, annotation: Any) -> dataclasses.Field[Any]:
    if isinstance(annotation, str) and annotation.replace(" ", "").startswith(
            ("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")) \
            or annotation is dataclasses.KW_ONLY or isinstance(annotation, dataclasses.InitVar):
        raise TypeError(f"field {name!r}: wgc.cached_dataclass does not offer InitVar or KW_ONLY")
    default: Any = getattr(cls, name, dataclasses.MISSING)
    if isinstance(default, dataclasses.Field):
        f = default
    else:
        if isinstance(default, types.MemberDescriptorType):  # a field in __slots__: no default
            default = dataclasses.MISSING
        f = field(default=default)
    f.name = name
    f.type = annotation
    f._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # what dataclasses.fields() lists
    if f.kw_only is dataclasses.MISSING:
        f.kw_only = False
    if f.kw_only:
        raise TypeError(f"field {name!r}: wgc.cached_dataclass does not offer keyword-only fields")
    if f.default.__class__.__hash__ is None:  # unhashable stands for mutable, as in dataclasses
        raise ValueError(f"mutable default {type(f.default)} for field {f.name} is not allowed: "
                         "use default_factory")
    return f


def _set_new_attribute(cls: Any, name: str, value: Any) -> bool:
    if name in cls.__dict__:
        return True
    setattr(cls, name, value)
    return False


def _slot_setter(name: str) -> str:
    """The name the generated `__init__` calls to set field `name` of a frozen class with slots."""
    return f"__dataclass_set_{name}__"


class _GenericSetter:
    """`object.__setattr__` for one attribute, with a slot descriptor's `__set__` signature."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __set__(self, obj: Any, value: Any) -> None:
        object.__setattr__(obj, self.name, value)


def _tuple_str(obj: str, fields: list[dataclasses.Field[Any]]) -> str:
    if not fields:
        return "()"
    return f'({",".join(f"{obj}.{f.name}" for f in fields)},)'


class _Methods:
    """The source of one class's methods and the values it refers to, then the functions."""

    def __init__(self, cls: Any, fields: list[dataclasses.Field[Any]], frozen: bool, slots: bool) -> None:
        self.cls, self.fields, self.is_frozen, self.slots = cls, fields, frozen, slots
        self.lines: list[str] = []
        self.names: list[str] = []
        self.globals: dict[str, Any] = {
            "__builtins__": builtins, "__name__": cls.__module__, "_cls": cls,
            "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY, "_object_setattr": object.__setattr__,
            "FrozenInstanceError": FrozenInstanceError,
        }

    def _def(self, name: str, params: str, body: list[str]) -> None:
        self.names.append(name)
        self.lines.append(f"def {name}({params}):")
        self.lines.extend(f" {line}" for line in body)

    def _assign(self, self_name: str, name: str, value: str) -> str:
        if self.is_frozen and self.slots:
            # the slot's own setter, bound by `bind_slot_setters` once the class with the slots exists:
            # cheaper per field than `object.__setattr__`
            return f"{_slot_setter(name)}({self_name},{value})"
        if self.is_frozen:
            return f"_object_setattr({self_name},{name!r},{value})"
        return f"{self_name}.{name}={value}"

    def bind_slot_setters(self, slotted: Any) -> None:
        """Bind the setters the `__init__` of a frozen class with slots calls (`_assign`): each field's
        slot descriptor's `__set__` (the slot may be a base class's)."""
        for f in self.fields:
            descriptor = next((klass.__dict__[f.name] for klass in slotted.__mro__ if f.name in klass.__dict__), None)
            if not isinstance(descriptor, types.MemberDescriptorType):   # not a slot: set as dataclasses does
                descriptor = _GenericSetter(f.name)
            self.globals[_slot_setter(f.name)] = descriptor.__set__

    def init(self, has_post_init: bool) -> None:
        self_name = "__dataclass_self__" if any(f.name == "self" for f in self.fields) else "self"
        params, body = [self_name], []
        seen_default = False
        for f in self.fields:
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if f.init:
                if has_default:
                    seen_default = True
                elif seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
            default_name = f"_dflt_{f.name}"
            if f.default_factory is not dataclasses.MISSING:
                self.globals[default_name] = f.default_factory
                if f.init:
                    params.append(f"{f.name}=_HAS_DEFAULT_FACTORY")
                    value = f"{default_name}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
                else:
                    value = f"{default_name}()"
            elif f.init:
                if f.default is not dataclasses.MISSING:
                    self.globals[default_name] = f.default
                    params.append(f"{f.name}={default_name}")
                else:
                    params.append(f.name)
                value = f.name
            elif self.slots and f.default is not dataclasses.MISSING:
                self.globals[default_name] = f.default
                value = default_name
            else:
                continue  # the class attribute holds the default
            body.append(self._assign(self_name, f.name, value))
        if has_post_init:
            body.append(f"{self_name}.__post_init__()")
        self._def("__init__", ",".join(params), body or ["pass"])

    def repr(self, fields: list[dataclasses.Field[Any]]) -> None:
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields)
        self._def("__repr__", "self", ['return self.__class__.__qualname__ + f"(' + shown + ')"'])

    def compare(self, name: str, op: str, fields: list[dataclasses.Field[Any]]) -> None:
        self._def(name, "self,other", ["if other.__class__ is self.__class__:",
                                       f" return {_tuple_str('self', fields)}{op}{_tuple_str('other', fields)}",
                                       "return NotImplemented"])

    def frozen(self) -> None:
        names = "(" + ",".join(repr(f.name) for f in self.fields) + ",)" if self.fields else "()"
        for name, verb, params in (("__setattr__", "assign to", "name, value"), ("__delattr__", "delete", "name")):
            self._def(name, f"self,{params}", [f"if type(self) is _cls or name in {names}:",
                                               f' raise FrozenInstanceError(f"cannot {verb} field {{name!r}}")',
                                               f"super(_cls, self).{name}({params})"])

    def hash(self, fields: list[dataclasses.Field[Any]]) -> None:
        self._def("__hash__", "self", [f"return hash({_tuple_str('self', fields)})"])

    def create(self) -> dict[str, Any]:
        """The functions, from the cached code of this source (compiled on a miss)."""
        namespace: dict[str, Any] = {}
        exec(_CODE_CACHE.code("\n".join(self.lines) + "\n"), self.globals, namespace)  # noqa: S102
        qualname = self.cls.__qualname__
        for name in self.names:
            namespace[name].__qualname__ = f"{qualname}.{name}"
        init = namespace["__init__"]
        init.__annotations__ = {f.name: f.type for f in self.fields if f.init} | {"return": None}
        return namespace


def _recursive_repr(function: Any) -> Any:
    """`function` returning "..." when called again for the same object (a cycle), as dataclasses does."""
    running: set[tuple[int, int]] = set()

    @functools.wraps(function)
    def wrapper(self: Any) -> str:
        key = id(self), _thread.get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return function(self)
        finally:
            running.discard(key)
    return wrapper


def _dataclass_getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _dataclass_setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state):
        object.__setattr__(self, f.name, value)


def _get_slots(cls: Any) -> tuple[str, ...]:
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        return ()
    if isinstance(slots, str):
        return (slots,)
    if hasattr(slots, "__next__"):
        raise TypeError(f"Slots of '{cls.__name__}' cannot be determined")
    return tuple(slots)


def _add_slots(cls: Any, frozen: bool) -> Any:
    """A new class like `cls` with `__slots__` for its fields (a class's slots cannot be added later)."""
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    cls_dict = dict(cls.__dict__)
    field_names = tuple(cls.__dataclass_fields__)
    inherited = {slot for base in cls.__mro__[1:-1] for slot in _get_slots(base)}
    cls_dict["__slots__"] = tuple(name for name in field_names if name not in inherited)
    for name in field_names:
        cls_dict.pop(name, None)
    cls_dict.pop("__dict__", None)
    cls_dict.pop("__weakref__", None)
    qualname = cls.__qualname__
    cls = type(cls)(cls.__name__, cls.__bases__, cls_dict)
    cls.__qualname__ = qualname
    if frozen:
        if "__getstate__" not in cls_dict:
            cls.__getstate__ = _dataclass_getstate
        if "__setstate__" not in cls_dict:
            cls.__setstate__ = _dataclass_setstate
    return cls
