"""StructInfo: construction, is_base_of, lca, static types, erasure, error messages."""

import pytest

from ember import relax, tir
from ember.ir import structural_equal
from ember.relax import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo,
    TupleStructInfo,
)
from ember.relax.struct_info import (
    ShapeType, TensorType, TupleType, get_static_type, is_base_of, struct_info_lca,
)
from ember.relax.struct_info_subst import erase_to_well_defined, substitute_sinfo

n = tir.Var("n", "int64")
m = tir.Var("m", "int64")


def test_tensor_construction():
    t = TensorStructInfo([n, 4], "float32")
    assert t.ndim == 2 and t.dtype == "float32" and t.shape.values[0] is n
    assert int(t.shape.values[1]) == 4 and str(t.shape.values[1].dtype) == "int64"
    u = TensorStructInfo(ndim=3, dtype=None)
    assert u.shape is None and u.dtype is None and u.is_unknown_dtype
    assert TensorStructInfo(dtype="void").dtype is None
    with pytest.raises(ValueError, match="ndim=3 but the shape has 2 dims"):
        TensorStructInfo([1, 2], "float32", ndim=3)
    with pytest.raises(TypeError, match="shape must be a list/tuple of dims or a ShapeExpr"):
        TensorStructInfo(5, "float32")
    with pytest.raises(TypeError, match="shape values must be ints or PrimExprs"):
        TensorStructInfo([1.5], "float32")


def test_shape_and_prim():
    s = ShapeStructInfo([n, 2])
    assert s.ndim == 2
    assert ShapeStructInfo(ndim=3).values is None
    p = PrimStructInfo(value=n)
    assert p.dtype == "int64" and p.value is n
    assert PrimStructInfo("float32").value is None


def test_var_requires_struct_info_type():
    with pytest.raises(TypeError, match="Var 'x': struct_info must be a StructInfo, got int"):
        relax.Var("x", 3)


@pytest.mark.parametrize(
    "base,derived,expected",
    [
        (ObjectStructInfo(), TensorStructInfo([2], "float32"), True),
        (TensorStructInfo(ndim=1, dtype="float32"), TensorStructInfo([2], "float32"), True),
        (TensorStructInfo(ndim=-1, dtype=None), TensorStructInfo([2], "int8"), True),
        (TensorStructInfo([2], "float32"), TensorStructInfo(ndim=1, dtype="float32"), False),
        (TensorStructInfo([2], "float32"), TensorStructInfo([3], "float32"), False),
        (TensorStructInfo([n], "float32"), TensorStructInfo([n], "float32"), True),
        (TensorStructInfo([n], "float32"), TensorStructInfo([m], "float32"), False),
        (TensorStructInfo([2], "int32"), TensorStructInfo([2], "float32"), False),
        (ShapeStructInfo(ndim=2), ShapeStructInfo([1, 2]), True),
        (PrimStructInfo("int64"), PrimStructInfo(value=n), True),
        (TupleStructInfo([ObjectStructInfo()]), TupleStructInfo([ShapeStructInfo(ndim=1)]), True),
        (TupleStructInfo([ObjectStructInfo()]), TupleStructInfo([]), False),
        (TensorStructInfo([2], "float32"), ShapeStructInfo([2]), False),
    ],
)
def test_is_base_of(base, derived, expected):
    assert is_base_of(base, derived) is expected
    assert base.is_base_of(derived) is expected


def test_func_is_base_of_contravariant():
    narrow = TensorStructInfo([2], "float32")
    wide = TensorStructInfo(ndim=1, dtype="float32")
    f_wide_in = FuncStructInfo([wide], narrow)
    f_narrow_in = FuncStructInfo([narrow], narrow)
    assert is_base_of(f_narrow_in, f_wide_in)
    assert not is_base_of(f_wide_in, f_narrow_in)
    assert is_base_of(FuncStructInfo.opaque_func(), f_wide_in)
    assert not is_base_of(FuncStructInfo([narrow], narrow, purity=True), FuncStructInfo([narrow], narrow, purity=False))


def test_lca():
    a, b = TensorStructInfo([2, 3], "float32"), TensorStructInfo([2, 4], "float32")
    lca = struct_info_lca(a, b)
    assert lca.ndim == 2 and lca.shape is None and lca.dtype == "float32"
    assert struct_info_lca(a, TensorStructInfo([2], "int8")).ndim == -1
    assert isinstance(struct_info_lca(a, ShapeStructInfo([1])), ObjectStructInfo)
    t = struct_info_lca(TupleStructInfo([a, a]), TupleStructInfo([a, b]))
    assert t.fields[0] is a and t.fields[1].shape is None


def test_static_type():
    assert get_static_type(TensorStructInfo([n, 2], "float32")) == TensorType(2, "float32") or \
        structural_equal(get_static_type(TensorStructInfo([n, 2], "float32")), TensorType(2, relax.struct_info.DataType("float32")))
    t = get_static_type(TupleStructInfo([ShapeStructInfo(ndim=2)]))
    assert isinstance(t, TupleType) and isinstance(t.fields[0], ShapeType) and t.fields[0].ndim == 2


def test_substitute_and_erase():
    t = TensorStructInfo([n, n * 2], "float32")
    s = substitute_sinfo(t, {n: tir.const(3, "int64")})
    assert [int(v) for v in s.shape.values] == [3, 6]
    erased = erase_to_well_defined(TupleStructInfo([t, TensorStructInfo([4], "int8")]), {m: m})
    assert erased.fields[0].shape is None and erased.fields[0].ndim == 2
    assert erased.fields[1].shape is not None
    kept = erase_to_well_defined(t, {n: n})
    assert kept.shape.values[0] is n


def test_structural_equality_of_sinfo():
    k = tir.Var("k", "int64")
    assert structural_equal(TensorStructInfo([n, 2], "float32"), TensorStructInfo([k, 2], "float32"))
    assert not structural_equal(TensorStructInfo([n, n], "float32"), TensorStructInfo([k, m], "float32"))
    assert not structural_equal(TensorStructInfo([2], "float32"), TensorStructInfo([2], "float16"))
