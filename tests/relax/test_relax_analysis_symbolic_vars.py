"""relax.analysis: symbolic variables of struct info and functions, erase_to_well_defined,
struct_info_lca (Prims, signatures) and get_static_type."""

from ember import relax as rx
from ember import tir
from ember.ir import assert_structural_equal
from ember.relax import analysis as A

n, m = tir.Var("n", "int64"), tir.Var("m", "int64")


def test_tir_vars_and_definable_vars():
    sinfo = rx.TupleStructInfo([rx.TensorStructInfo([1, n, 2 * m], "float32"), rx.PrimStructInfo(value=m)])
    assert [v.name for v in A.tir_vars_in_struct_info(sinfo)] == ["n", "m"]
    assert [v.name for v in A.definable_tir_vars_in_struct_info(sinfo)] == ["n", "m"]
    only_used = rx.ShapeStructInfo([n + 1, m])
    assert [v.name for v in A.definable_tir_vars_in_struct_info(only_used)] == ["m"]


def test_non_negative_expressions_are_the_dims():
    sinfo = rx.TensorStructInfo([n, n, m + 1], "float32")
    dims = A.collect_non_negative_expressions(sinfo)
    assert len(dims) == 2


def test_defined_and_free_symbolic_vars():
    x = rx.Var("x", rx.TensorStructInfo([n], "float32"))
    f = rx.Function([x], x, rx.TensorStructInfo([n], "float32"))
    assert [v.name for v in A.defined_symbolic_vars(f)] == ["n"]
    assert A.free_symbolic_vars(f) == []
    y = rx.Var("y", rx.TensorStructInfo([n + m], "float32"))
    g = rx.Function([y], y, rx.TensorStructInfo([n + m], "float32"))
    assert [v.name for v in A.free_symbolic_vars(g)] == ["n", "m"]


def test_constant_dims_need_no_check():
    sinfo = rx.TensorStructInfo([4, n, m - 2, 4], "float32")
    assert [str(d) for d in A.collect_non_negative_expressions(sinfo)] == ["n", "m - T.int64(2)"]


def test_free_symbolic_vars_of_bindings():
    k = tir.Var("k", "int64")
    x = rx.Var("x", rx.TensorStructInfo([n], "float32"))
    bb = rx.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit(rx.call_dps_packed("opaque", x, rx.TensorStructInfo([k], "float32")))
        bb.emit_func_output(x)
    assert [v.name for v in A.free_symbolic_vars(bb.get()["main"])] == ["k"]


def test_erase_to_well_defined():
    s = rx.ShapeStructInfo([1, n + 1, m])
    assert_structural_equal(A.erase_to_well_defined(s), rx.ShapeStructInfo(ndim=3))
    assert_structural_equal(A.erase_to_well_defined(s, {n: 2, m: m + 1}), rx.ShapeStructInfo([1, 3, m + 1]))
    t = rx.TensorStructInfo([m + 1, n], "float32")
    assert_structural_equal(A.erase_to_well_defined(t, {m: m}), rx.TensorStructInfo(ndim=2, dtype="float32"))
    shape_var = rx.Var("shape", rx.ShapeStructInfo(ndim=2))
    u = rx.TensorStructInfo(shape_var, "int32")
    assert_structural_equal(A.erase_to_well_defined(u), rx.TensorStructInfo(ndim=2, dtype="int32"))
    assert_structural_equal(A.erase_to_well_defined(u, None, {shape_var: rx.ShapeExpr([1, 2])}),
                            rx.TensorStructInfo([1, 2], "int32"))


def test_prim_lca():
    assert_structural_equal(rx.analysis.struct_info_lca(rx.PrimStructInfo("int8"), rx.PrimStructInfo("int32")),
                            rx.ObjectStructInfo())
    zero = rx.PrimStructInfo(value=tir.const(0, "int32"))
    assert_structural_equal(rx.analysis.struct_info_lca(zero, zero), zero)
    one = rx.PrimStructInfo(value=tir.const(1, "int32"))
    assert_structural_equal(rx.analysis.struct_info_lca(zero, one), rx.PrimStructInfo("int32"))


def test_lca_of_signatures_joins_parameters():
    def signature(c):
        a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
        return rx.FuncStructInfo([rx.TensorStructInfo([c, a, b], "float32")], rx.TensorStructInfo([c, a], "float32"))

    joined = A.struct_info_lca(signature(1), signature(2))
    assert [p.ndim for p in joined.params] == [3] and joined.params[0].shape is None
    assert joined.ret.ndim == 2 and joined.ret.shape is None
    same = signature(2)
    assert A.struct_info_lca(same, signature(2)) is same
    opaque = rx.FuncStructInfo.opaque_func(ret=rx.TensorStructInfo(ndim=2, dtype="float32"))
    assert A.struct_info_lca(opaque, signature(1)).params is None


def test_static_type_of_a_prim_is_the_ir_prim_type():
    from ember.ir import PrimType

    assert A.get_static_type(rx.PrimStructInfo("float32")) == PrimType("float32")
