"""BlockBuilder: building an MLP and a small CNN, scoping rules, normalisation, errors."""

import numpy as np
import pytest
from relax_sinfo_helpers import T

from ember import relax, tir
from ember.ir import IRModule
from ember.relax import op as R
from ember.relax.analysis import well_formed
from ember.relax.reference import run


def build_mlp():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T([n, 784]))
    w0, b0 = relax.Var("w0", T([784, 128])), relax.Var("b0", T([128]))
    w1, b1 = relax.Var("w1", T([128, 10])), relax.Var("b1", T([10]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(R.add(R.matmul(x, w0), b0))
            lv1 = bb.emit(R.nn.relu(lv0))
            lv2 = bb.emit(R.add(R.matmul(lv1, w1), b1))
            gv = bb.emit_output(R.nn.log_softmax(lv2))
        bb.emit_func_output(gv)
    return bb.get(), n


def test_mlp_structure_and_numerics():
    mod, n = build_mlp()
    func = mod["main"]
    assert func.attrs["global_symbol"] == "main"
    assert func.ret_struct_info.shape.values[0] is n
    (block,) = func.body.blocks
    assert isinstance(block, relax.DataflowBlock)
    assert [type(b.var).__name__ for b in block.bindings] == ["DataflowVar"] * 5 + ["Var"]
    assert well_formed(mod)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in [(3, 784), (784, 128), (128,), (128, 10), (10,)]]
    out = run(mod, *args)
    h = np.maximum(args[0] @ args[1] + args[2], 0) @ args[3] + args[4]
    ref = h - np.log(np.exp(h - h.max(-1, keepdims=True)).sum(-1, keepdims=True)) - h.max(-1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_small_cnn():
    x = relax.Var("x", T([1, 3, 16, 16]))
    w = relax.Var("w", T([8, 3, 3, 3]))
    fc = relax.Var("fc", T([10, 8]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, fc]):
        with bb.dataflow():
            c = bb.emit(R.nn.conv2d(x, w, padding=1))
            r = bb.emit(R.nn.relu(c))
            p = bb.emit(R.nn.max_pool2d(r, 2, 2))
            g = bb.emit(R.nn.adaptive_avg_pool2d(p, 1))
            f = bb.emit(R.reshape(g, (1, -1)))
            gv = bb.emit_output(R.linear(f, fc))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert [int(d) for d in mod["main"].ret_struct_info.shape.values] == [1, 10]
    rng = np.random.default_rng(1)
    a, b, c_ = (rng.standard_normal(s).astype("float32") for s in [(1, 3, 16, 16), (8, 3, 3, 3), (10, 8)])
    out = run(mod, a, b, c_)
    xp = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 8, 16, 16), "float32")
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i : i + 16, j : j + 16], b[:, :, i, j])
    pooled = np.maximum(conv, 0).reshape(1, 8, 8, 2, 8, 2).max(axis=(3, 5))
    ref = pooled.mean(axis=(2, 3)) @ c_.T
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_nested_calls_are_emitted_in_anf():
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        gv = bb.emit(R.exp(R.add(x, x)))
        bb.emit_func_output(gv)
    func = bb.get()["f"]
    bindings = func.body.blocks[0].bindings
    assert [b.value.op.name for b in bindings] == ["relax.add", "relax.exp"]
    assert bindings[1].value.args[0] is bindings[0].var


def test_params_given_at_output_and_private():
    x = relax.Var("x", T([2]))
    bb = relax.BlockBuilder()
    with bb.function("helper", private=True):
        y = bb.emit(R.negative(x))
        bb.emit_func_output(y, params=[x])
    func = bb.get()["helper"]
    assert func.params == (x,) and "global_symbol" not in func.attrs


def test_match_cast_and_tuple_output():
    x = relax.Var("x", relax.TensorStructInfo(ndim=2, dtype="float32"))
    m = tir.Var("m", "int64")
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.match_cast(x, T([m, 4]))
            s = bb.emit(R.sum(y, axis=1))
            gv = bb.emit_output((y, s))
        bb.emit_func_output(gv)
    func = bb.get()["main"]
    assert isinstance(func.body.blocks[0].bindings[0], relax.MatchCast)
    assert isinstance(func.ret_struct_info, relax.TupleStructInfo)
    # m is defined inside the function, so the return info forgets it (keeps ndim)
    assert func.ret_struct_info.fields[1].shape is None and func.ret_struct_info.fields[1].ndim == 1
    assert func.body.blocks[0].bindings[1].var.struct_info.shape.values[0] is m
    out = run(func, np.ones((3, 4), "float32"))
    assert out[1].tolist() == [4.0, 4.0, 4.0]


def test_scoping_errors():
    bb = relax.BlockBuilder()
    x = relax.Var("x", T([2]))
    with pytest.raises(RuntimeError, match="must be called inside BlockBuilder.function"):
        bb.emit(R.exp(x))
    with pytest.raises(RuntimeError, match="emit_output must be called inside a dataflow block"):
        with bb.function("f", [x]):
            bb.emit_output(R.exp(x))
    with pytest.raises(RuntimeError, match="after leaving the dataflow block"):
        with bb.function("g", [x]):
            with bb.dataflow():
                bb.emit_func_output(x)
    with pytest.raises(RuntimeError, match="left without emit_func_output"):
        with bb.function("h", [x]):
            pass


def test_current_and_add_func_dedup():
    assert relax.BlockBuilder.current() is None
    bb = relax.BlockBuilder()
    x = relax.Var("x", T([2]))
    with bb.function("main", [x]):
        assert relax.BlockBuilder.current() is bb
        bb.emit_func_output(x)
    assert relax.BlockBuilder.current() is None
    y = relax.Var("y", T([2]))
    f = relax.Function([y], relax.SeqExpr([], y), T([2]))
    gv1 = bb.add_func(f, "ident")
    y2 = relax.Var("y", T([2]))
    gv2 = bb.add_func(relax.Function([y2], relax.SeqExpr([], y2), T([2])), "ident")
    assert gv1.name_hint == gv2.name_hint == "ident"
    z = relax.Var("z", T([3]))
    gv3 = bb.add_func(relax.Function([z], relax.SeqExpr([], z), T([3])), "ident")
    assert gv3.name_hint == "ident1"


def test_call_global_function_binds_symbolic_shapes():
    n = tir.Var("n", "int64")
    p = relax.Var("p", T([n]))
    bb = relax.BlockBuilder()
    with bb.function("double", [p]):
        bb.emit_func_output(bb.emit(R.add(p, p)))
    x = relax.Var("x", T([5]))
    with bb.function("main", [x]):
        gv = bb.emit(relax.Call(bb.get().get_global_var("double"), [x]))
        bb.emit_func_output(gv)
    ret = bb.get()["main"].ret_struct_info
    assert int(ret.shape.values[0]) == 5
    np.testing.assert_allclose(run(bb.get(), np.ones(5, "float32")), 2 * np.ones(5))


def test_from_expr_and_const():
    x = relax.Var("x", T([3]))
    c = relax.const([1.0, 2.0, 3.0])
    bb = relax.BlockBuilder()
    body = bb.normalize(R.add(x, c))
    func = relax.Function([x], relax.SeqExpr([], body), body.struct_info)
    mod = IRModule.from_expr(func)
    assert "main" in mod and "global_symbol" not in mod["main"].attrs  # as TVM's IRModule.FromExpr
    assert c.struct_info.dtype == "float32" and relax.const(3).struct_info.dtype == "int32"
    np.testing.assert_allclose(run(mod, np.zeros(3, "float32")), [1, 2, 3])


def test_unnormalised_struct_info_error():
    with pytest.raises(ValueError, match="has no struct_info yet"):
        _ = R.exp(relax.Var("x", T([2]))).struct_info


def test_emit_te():
    te = pytest.importorskip("ember.te")
    if not hasattr(te, "create_prim_func"):
        pytest.skip("ember.te.create_prim_func not available")
    n = tir.Var("n", "int64")
    x = relax.Var("x", T([n, 4]))
    y = relax.Var("y", T([n, 4]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit_te(lambda a, b: te.compute(a.shape, lambda i, j: a[i, j] + b[i, j], name="te_add"), x, y)
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    mod = bb.get()
    assert "te_add" in mod
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.op.name == "relax.call_tir" and call.args[0].name_hint == "te_add"
    assert call.struct_info.shape.values[0] is n
    a, b = np.ones((3, 4), "float32"), np.full((3, 4), 2, "float32")
    np.testing.assert_allclose(run(mod, a, b), a + b)


def test_expr_operators():
    x, y = relax.Var("x", T([2, 3])), relax.Var("y", T([3]))
    bb = relax.BlockBuilder()
    cases = {
        "relax.add": x + y, "relax.subtract": x - 1, "relax.multiply": 2 * x, "relax.divide": x / y,
        "relax.negative": -x, "relax.less": x < y, "relax.power": x ** 2, "relax.astype": x.astype("int8"),
    }
    for name, call in cases.items():
        assert call.op.name == name
        bb.normalize(call)
    assert (x - 1).args[1].struct_info.dtype == "float32"
    assert isinstance(relax.Var("t", relax.TupleStructInfo([T([1])]))[0], relax.TupleGetItem)


def test_emit_te_repeated_and_tuple_arguments():
    te = pytest.importorskip("ember.te")
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            sq = bb.emit_te(lambda a, b: te.compute(a.shape, lambda i: a[i] * b[i], name="sq"), x, x)
            pair = bb.emit((x, sq))
            total = bb.emit_te(lambda ts: te.compute((4,), lambda i: ts[0][i] + ts[1][i], name="tsum"), pair)
            gv = bb.emit_output(total)
        bb.emit_func_output(gv)
    mod = bb.get()
    sq_call = mod["main"].body.blocks[0].bindings[0].value
    assert len(sq_call.args[1].fields) == 1  # x passed once
    a = np.arange(4, dtype="float32")
    np.testing.assert_allclose(run(mod, a), a + a * a)
