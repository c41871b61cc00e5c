"""Memos that make sema cheaper (issue 16): each answers what the computation it replaces answers.

- `types.scalar`/`vector`/`matrix` keep their types in a strong table (`_SHAPES`) besides the weak
  interning table: both give the same object for a key;
- `typeref.builtin_scalar_or_shape` keeps its answers that are types: every scalar keyword and its
  vector and matrix forms, with and without 16-bit types, resolve as the uncached function does;
- `methods._symbol` makes the node-object types of an object's record (`NodeOutput<R>`, ...) when it
  meets them, instead of `_environment` making (and dropping) them on every method call.
The uniformity replay, the children kept with a body's walk and the path reports kept on a
function are tested in tests/test_uniformity.py.
"""

from __future__ import annotations

import itertools

from wgc import types as t
from wgc.sema import methods, typeref
from wgc.types import NodeObjectKind as NK

SCALAR_KEYWORDS = ["bool", "int", "uint", "dword", "float", "double", "half", "min16float", "min10float",
                   "min16int", "min12int", "min16uint", "int16_t", "uint16_t", "float16_t", "int32_t",
                   "uint32_t", "float32_t", "int64_t", "uint64_t", "float64_t"]


def test_shapes_are_the_interned_types() -> None:
    """A strongly kept scalar, vector or matrix is the object the weak interning table holds for its key."""
    for kind, bits in [(t.ScalarKind.INT, 32), (t.ScalarKind.FLOAT, 16), (t.ScalarKind.UINT, 64)]:
        scalar = t.scalar(kind, bits)
        assert t._INTERNED[("scalar", kind, bits, scalar.spelling, False)] is scalar
        for count in range(1, 5):
            vector = t.vector(scalar, count)
            assert t._INTERNED[("vector", scalar, count)] is vector and t.vector(scalar, count) is vector
            assert (vector.element, vector.count) == (scalar, count)
        for rows, columns in itertools.product(range(1, 5), repeat=2):
            matrix = t.matrix(scalar, rows, columns)
            assert t._INTERNED[("matrix", scalar, rows, columns)] is matrix and t.matrix(scalar, rows, columns) is matrix
            assert (matrix.element, matrix.rows, matrix.columns) == (scalar, rows, columns)
    relaxed = t.scalar(t.ScalarKind.FLOAT, 32, "min16float", relaxed=True)
    assert relaxed is not t.FLOAT and relaxed.relaxed and t.scalar(t.ScalarKind.FLOAT, 32) is t.FLOAT


def test_builtin_shapes_equal_the_uncached_resolution() -> None:
    names = [f"{scalar}{shape}" for scalar in SCALAR_KEYWORDS
             for shape in ["", "1", "4", "2x3", "4x4"]] + ["float5", "floatx", "Rec", "int8_t4_packed", "vector"]
    resolved = 0
    for sixteen in (False, True):
        for name in names:
            expected = typeref._scalar_or_shape(name, sixteen)
            for _ in range(2):   # the first answer may be computed, the second is kept
                assert typeref.builtin_scalar_or_shape(name, sixteen) is expected, (name, sixteen)
            resolved += expected is not None
    assert resolved > 150
    assert typeref.builtin_scalar_or_shape("half", True) is t.scalar(t.ScalarKind.FLOAT, 16)
    assert typeref.builtin_scalar_or_shape("half", False) is t.scalar(t.ScalarKind.FLOAT, 32, "half")
    assert typeref.builtin_scalar_or_shape("min16uint3", False) is t.vector(
        t.scalar(t.ScalarKind.UINT, 32, "min16uint", relaxed=True), 3)


def test_record_node_objects_are_made_when_met() -> None:
    """For a node object with a record R, the symbols `ThreadNodeOutputRecords<R>`,
    `GroupNodeOutputRecords<R>` and `NodeOutput<R>` mean those node objects of R (what the eager
    environment held); without a record (or for a resource) they mean nothing."""
    record = t.StructType("Rec", [t.Field("x", t.UINT)])
    output = t.node_object(NK.NODE_OUTPUT, record)
    env = methods._environment(output)
    for kind in (NK.THREAD_NODE_OUTPUT_RECORDS, NK.GROUP_NODE_OUTPUT_RECORDS, NK.NODE_OUTPUT):
        assert methods._symbol(f"{kind.value}<R>", env) is t.node_object(kind, record)
    assert methods._symbol("R", env) is record and methods._symbol("uint", env) is t.UINT
    for other in (t.node_object(NK.EMPTY_NODE_OUTPUT, None), t.resource(t.ResourceKind.RW_BUFFER, t.UINT)):
        assert methods._symbol("NodeOutput<R>", methods._environment(other)) is None
