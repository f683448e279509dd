"""relax.analysis.well_formed: A-normal form of tuples / TupleGetItem / If, symbolic variables,
binding annotations and call_tir signatures (each rule with a passing and a failing case)."""

import pytest

from ember import relax as rx
from ember import tir
from ember.ir import IRModule
from ember.relax.analysis import check_well_formed, well_formed
from ember.relax.analysis.well_formed import WellFormedError
from ember.relax.expr import _update_struct_info
from ember.script import tir as T

n = tir.Var("n", "int64")


def _func(param, bindings, ret):
    body = rx.SeqExpr([rx.BindingBlock(bindings)], ret)
    return rx.Function([param], body, ret.struct_info)


def test_nested_tuple_get_item_and_call_in_tuple():
    t = rx.Var("t", rx.TupleStructInfo([rx.TupleStructInfo([rx.TensorStructInfo([], "int32")])]))
    r = rx.Var("r", rx.TensorStructInfo([], "int32"))
    assert not well_formed(_func(t, [rx.VarBinding(r, rx.TupleGetItem(rx.TupleGetItem(t, 0), 0))], r),
                           check_struct_info=False)
    x = rx.Var("x", rx.TensorStructInfo([2], "float32"))
    tup = rx.Var("tup", rx.TupleStructInfo([x.struct_info, x.struct_info]))
    assert not well_formed(_func(x, [rx.VarBinding(tup, rx.Tuple([x, rx.op.add(x, x)]))], tup),
                           check_struct_info=False)


def test_if_branches_are_seq_exprs_and_condition_a_leaf():
    x = rx.Var("x", rx.TensorStructInfo([2], "float32"))
    c = rx.Var("c", rx.TensorStructInfo([], "bool"))
    out = rx.Var("out", x.struct_info)
    bad = rx.Function([x, c], rx.SeqExpr([rx.BindingBlock([rx.VarBinding(out, rx.If(c, x, x))])], out),
                      x.struct_info)
    assert not well_formed(bad, check_struct_info=False)
    with pytest.raises(WellFormedError, match="branch of an If is a Var"):
        check_well_formed(bad)


def test_symbolic_var_must_be_defined():
    m = tir.Var("m", "int64")
    x = rx.Var("x", rx.TensorStructInfo([n], "float32"))
    good = rx.Var("good", rx.TensorStructInfo([n], "float32"))
    bad = rx.Var("bad", rx.TensorStructInfo([m], "float32"))
    assert well_formed(_func(x, [rx.VarBinding(good, x)], good))
    assert not well_formed(_func(x, [rx.VarBinding(bad, x)], bad), check_struct_info=False)
    cast = rx.Var("cast", rx.TensorStructInfo([m], "float32"))
    assert well_formed(_func(x, [rx.MatchCast(cast, x, cast.struct_info)], cast))


def test_binding_annotation_may_be_coarser_but_not_contradict():
    a = rx.Var("a", rx.TensorStructInfo([4, 2], "float32"))
    coarse = rx.Var("coarse", rx.TensorStructInfo(ndim=2, dtype="float32"))
    assert well_formed(_func(a, [rx.VarBinding(coarse, a)], coarse))
    for wrong in (rx.TensorStructInfo([4, 2], "int32"), rx.TensorStructInfo(ndim=3),
                  rx.TensorStructInfo([4, 3], "float32"), rx.ShapeStructInfo(ndim=2)):
        v = rx.Var("v", wrong)
        body = rx.SeqExpr([rx.BindingBlock([rx.VarBinding(v, a)])], v)
        _update_struct_info(body, wrong)
        assert not well_formed(rx.Function([a], body)), wrong


def _module(in_shape, out_shape, in_dtype="float16", out_dtype="float16"):
    @T.prim_func(private=True)
    def add_one(A: T.Buffer(16, "float16"), B: T.Buffer(16, "float16")):
        for i in range(16):
            with T.block("compute"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float16(1.0)

    x = rx.Var("x", rx.TensorStructInfo(in_shape, in_dtype))
    bb = rx.BlockBuilder(IRModule({}))
    gv = bb.add_func(add_one, "add_one")
    with bb.function("main", [x]):
        out = bb.emit(rx.call_tir(gv, [x], rx.TensorStructInfo(out_shape, out_dtype)))
        bb.emit_func_output(out)
    return bb.get()


def test_call_tir_arguments_match_the_prim_func():
    assert well_formed(_module([16], [16]))
    for bad in (_module([4, 4], [16]), _module([16], [32]), _module([16], [16], in_dtype="float32"),
                _module([16], [16], out_dtype="float32")):
        assert not well_formed(bad)


def test_call_tir_output_shape_follows_from_symbolic_inputs():
    @T.prim_func(private=True)
    def flatten(a: T.handle, b: T.handle):
        M, N = T.int64(), T.int64()
        A = T.match_buffer(a, [M, N], "float16")
        B = T.match_buffer(b, [M * N], "float16")
        for i in range(M * N):
            with T.block("copy"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi // N, vi % N]

    def module(out):
        x = rx.Var("x", rx.TensorStructInfo([8, 4], "float16"))
        bb = rx.BlockBuilder(IRModule({}))
        gv = bb.add_func(flatten, "flatten")
        with bb.function("main", [x]):
            bb.emit_func_output(bb.emit(rx.call_tir(gv, [x], rx.TensorStructInfo([out], "float16"))))
        return bb.get()

    assert well_formed(module(32))
    assert not well_formed(module(64))


def _printing_function(pure: bool, force_pure: bool, dataflow: bool):
    x = rx.Var("x", rx.TensorStructInfo([], "int32"))
    y = (rx.DataflowVar if dataflow else rx.Var)("y", rx.ObjectStructInfo())
    block = (rx.DataflowBlock if dataflow else rx.BindingBlock)([rx.VarBinding(y, rx.op.print(x, format="{}"))])
    func = rx.Function([x], rx.SeqExpr([block], x), x.struct_info, is_pure=pure)
    func = func.with_attrs({"relax.force_pure": True} if force_pure else {})
    return rx.transform.Normalize()(IRModule.from_expr(func))


def test_purity_flags():
    assert well_formed(_printing_function(pure=False, force_pure=False, dataflow=False))
    assert well_formed(_printing_function(pure=True, force_pure=True, dataflow=False))
    assert not well_formed(_printing_function(pure=True, force_pure=False, dataflow=False))
    # force_pure needs is_pure, and never allows an impure call inside a dataflow block
    assert not well_formed(_printing_function(pure=False, force_pure=True, dataflow=False))
    assert not well_formed(_printing_function(pure=True, force_pure=True, dataflow=True))


def test_call_result_over_undefined_symbolic_vars():
    k = tir.Var("k", "int64")
    x = rx.Var("x", rx.TensorStructInfo([n], "float32"))
    for dim, ok in ((n, True), (k, False)):
        bb = rx.BlockBuilder()
        with bb.function("main", [x]):
            call = rx.call_dps_packed("opaque", x, rx.TensorStructInfo([dim], "float32"))
            bb.emit_func_output(bb.emit(call))
        assert well_formed(bb.get()) == ok

