# ruff: noqa: F821, F841 - TVMScript bodies name cls and declare symbolic vars
"""Relax TVMScript: golden printed text, and print → parse → structurally equal."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import relax, tir
from ember.ir import IRModule, assert_structural_equal
from ember.relax import op as rop
from ember.script import from_source
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T
from ember.script.errors import ParserError


def roundtrip(mod):
    text = mod.script()
    parsed = from_source(text, {"R": R})
    assert_structural_equal(mod, parsed)
    return text


def Ten(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def mlp_module():
    n = tir.Var("n", "int64")
    x = relax.Var("x", Ten([n, 784]))
    w = relax.Var("w", Ten([784, 10]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit(rop.matmul(x, w))
            lv1 = bb.emit(rop.nn.relu(lv))
            gv = bb.emit_output(rop.nn.softmax(lv1, axis=-1))
        bb.emit_func_output(gv)
    return bb.get()


MLP_TEXT = '''# from ember.script import ir as I
# from ember.script import relax as R
# from ember.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w: R.Tensor((784, 10), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, 10), dtype="float32") = R.matmul(x, w, out_dtype=None)
            lv1: R.Tensor((n, 10), dtype="float32") = R.nn.relu(lv)
            gv: R.Tensor((n, 10), dtype="float32") = R.nn.softmax(lv1, axis=-1)
            R.output(gv)
        return gv'''


def test_golden_mlp_text():
    assert mlp_module().script() == MLP_TEXT


def test_mlp_roundtrip():
    roundtrip(mlp_module())


def test_cnn_roundtrip_with_attrs():
    x = relax.Var("x", Ten([1, 3, 8, 8]))
    w = relax.Var("w", Ten([4, 3, 3, 3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            c = bb.emit(rop.nn.conv2d(x, w, strides=2, padding=1, out_dtype="float32"))
            p = bb.emit(rop.nn.max_pool2d(c, 2, 1, ceil_mode=True))
            f = bb.emit(rop.reshape(p, (1, -1)))
            s = bb.emit(rop.split(f, 2, axis=1))
            t = bb.emit(rop.concat([relax.TupleGetItem(s, 1), relax.TupleGetItem(s, 0)], axis=1))
            gv = bb.emit_output(rop.strided_slice(t, [1], [0], [4], [2]))
        bb.emit_func_output(gv)
    text = roundtrip(bb.get())
    assert "R.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1, 1, 1)" in text


def test_constants_tuples_and_private_functions():
    x = relax.Var("x", Ten([3]))
    bb = relax.BlockBuilder()
    with bb.function("helper", [relax.Var("y", Ten([3]))], private=True) as _:
        pass_through = bb.emit(rop.multiply(bb._func.params[0], relax.const(np.float32(2))))
        bb.emit_func_output(pass_through)
    helper = bb.get().get_global_var("helper")
    with bb.function("main", [x], attrs={"num_input": 1}):
        with bb.dataflow():
            a = bb.emit(rop.add(x, relax.const(np.array([1, 2, 3], "float32"))))
            b = bb.emit(relax.Call(helper, [a]))
            gv = bb.emit_output((a, b, relax.ShapeExpr([3]), relax.PrimValue(tir.const(4, "int64"))))
        bb.emit_func_output(gv)
    text = roundtrip(bb.get())
    assert "@R.function(private=True)" in text and 'R.func_attr({"num_input": 1})' in text
    assert "cls.helper(lv)" in text


def test_match_cast_and_if():
    x = relax.Var("x", relax.TensorStructInfo(ndim=2, dtype="float32"))
    c = relax.Var("c", Ten([], "bool"))
    m = tir.Var("m", "int64")
    bb = relax.BlockBuilder()
    with bb.function("main", [x, c]):
        y = bb.match_cast(x, Ten([m, 4]))
        bb.begin_scope()
        bb.begin_binding_block()
        t = bb.emit(rop.exp(y))
        tb = bb.end_block()
        bb.end_scope()
        branch_t = relax.SeqExpr([tb], t)
        cond = bb.emit(relax.If(c, branch_t, relax.SeqExpr([], y)))
        bb.emit_func_output(cond)
    mod = bb.get()
    text = roundtrip(mod)
    assert "m = T.int64()" in text and "R.match_cast(x, R.Tensor((m, 4)" in text
    out = relax.reference.run(mod, np.zeros((2, 4), "float32"), np.array(True))
    np.testing.assert_allclose(out, np.ones((2, 4)))


def test_call_tir_with_prim_func_roundtrip():
    te = pytest.importorskip("ember.te")
    n = tir.Var("n", "int64")
    x = relax.Var("x", Ten([n]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit_te(lambda a: te.compute(a.shape, lambda i: a[i] * 2.0, name="double"), x)
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    mod = bb.get()
    text = mod.script()
    assert 'R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((n,), dtype="float32"))' in text
    assert "@T.prim_func(private=True)" in text
    roundtrip(mod)


def test_impure_function_and_packed_calls():
    x = relax.Var("x", Ten([2]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=False):
        y = bb.emit(relax.call_dps_packed("my_func", [x], Ten([2])))
        z = bb.emit(relax.call_pure_packed("other", y, sinfo_args=Ten([2])))
        bb.emit_func_output(z)
    text = roundtrip(bb.get())
    assert "@R.function(pure=False)" in text
    assert 'R.call_dps_packed("my_func", (x,), out_sinfo=R.Tensor((2,), dtype="float32"))' in text


def test_parse_decorated_module():
    @I.ir_module
    class Module:
        @T.prim_func(private=True)
        def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("b"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            with R.dataflow():
                lv = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
                gv = R.nn.relu(lv)
                R.output(gv)
            return gv

    assert isinstance(Module, IRModule) and isinstance(Module["main"], relax.Function)
    out = relax.reference.run(Module, np.array([-3, -1, 0, 2], "float32"))
    np.testing.assert_allclose(out, [0, 0, 1, 3])
    roundtrip(Module)


def test_standalone_function_with_symbolic_dims():
    @R.function
    def f(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("m", "n"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        y = R.permute_dims(x)
        return y

    assert isinstance(f, relax.Function)
    xs = f.params[0].struct_info.shape.values
    assert f.ret_struct_info.shape.values[0] is xs[1]
    assert f.attrs["global_symbol"] == "f"


def test_parser_errors():
    bad_shape = '''
@R.function
def f(x: R.Tensor((2, 3), dtype="float32")):
    y = R.add(x, R.const([1.0, 2.0], "float32"))
    return y
'''
    with pytest.raises(ParserError, match=r"cannot broadcast shapes \(2, 3\) and \(2,\)"):
        from_source(bad_shape, {"R": R})
    no_ann = '''
@R.function
def f(x):
    return x
'''
    with pytest.raises(ParserError, match="parameter 'x' needs a struct info annotation"):
        from_source(no_ann, {"R": R})
    bad_if = '''
@R.function
def f(c: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="float32")):
    if c:
        y = x
    else:
        z = x
    return y
'''
    with pytest.raises(ParserError, match="both branches must assign the same name"):
        from_source(bad_if, {"R": R})


def test_fragment_repr():
    x = relax.Var("x", Ten([2, 3]))
    assert repr(rop.add(x, x)) == "R.add(x, x)"
    assert repr(Ten([2, 3], "int8")) == 'R.Tensor((2, 3), dtype="int8")'
    assert repr(relax.TupleStructInfo([relax.ObjectStructInfo(), relax.ShapeStructInfo(ndim=2)])) == \
        "R.Tuple(R.Object, R.Shape(ndim=2))"


@pytest.mark.parametrize("name", sorted(__import__("relax_op_cases").CASES))
def test_every_op_roundtrips(name):
    from relax_op_cases import CASES, v

    build, inputs = CASES[name]
    params = [v(f"a{i}", a) for i, a in enumerate(inputs)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(build(*params))
        bb.emit_func_output(gv)
    roundtrip(bb.get())


def test_creation_ops_roundtrip():
    n = tir.Var("n", "int64")
    x = relax.Var("x", Ten([n, 2]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(rop.zeros((n, 2), "float32"))
            b = bb.emit(rop.full((n, 2), relax.const(np.float32(3))))
            c = bb.emit(rop.arange(0, 8, 2, "int64"))
            s = bb.emit(rop.shape_of(x))
            f = bb.emit(rop.reshape(x, (-1,)))
            gv = bb.emit_output((a, b, c, s, f, rop.ones((3,), "int8")))
        bb.emit_func_output(gv)
    text = roundtrip(bb.get())
    assert "R.Tensor((n * 2,)" in text


def test_shape_and_prim_params_roundtrip():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    s = relax.Var("s", relax.ShapeStructInfo([n, m]))
    k = relax.Var("k", relax.PrimStructInfo(value=n))
    x = relax.Var("x", relax.TensorStructInfo(s, "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [s, k, x]):
        y = bb.emit(rop.reshape(x, s))
        bb.emit_func_output(y)
    text = roundtrip(bb.get())
    assert 's: R.Shape(["n", "m"])' in text and 'k: R.Prim(value="n")' in text
    assert 'x: R.Tensor(s, dtype="float32")' in text


@I.ir_module
class PrimParamModule:
    @R.function
    def main(k: R.Prim(value="n"), x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        return x


def test_decorated_prim_value_param():
    f = PrimParamModule["main"]
    assert f.params[0].struct_info.value is f.params[1].struct_info.shape.values[0]


@I.ir_module
class TVMScriptModule:
    @T.prim_func
    def addone(A_handle: T.handle, B_handle: T.handle) -> None:
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(A_handle, (n, m), "float32")
        B = T.match_buffer(B_handle, (n, m), "float32")
        T.func_attr({"global_symbol": "addone"})
        for i, j in T.grid(n, m):
            with T.block("addone"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")):
        n, m = T.int64(), T.int64()
        gv0 = R.call_tir(TVMScriptModule.addone, (x,), R.Tensor((n, m), dtype="float32"))
        return gv0


def test_tvm_tutorial_module():
    mod = TVMScriptModule
    main = mod["main"]
    n, m = main.params[0].struct_info.shape.values
    assert main.ret_struct_info.shape.values[0] is n and main.ret_struct_info.shape.values[1] is m
    out = relax.reference.run(mod, np.zeros((2, 3), "float32"))
    np.testing.assert_allclose(out, np.ones((2, 3)))
    roundtrip(mod)


def test_local_function_roundtrip_and_closure():
    x = relax.Var("x", Ten([2]))
    y = relax.Var("y", Ten([2]))
    bb = relax.BlockBuilder()
    body = bb.normalize(rop.multiply(y, x))
    inner = relax.Function([y], relax.SeqExpr([], body), body.struct_info)
    with bb.function("main", [x]):
        f = bb.emit(inner, "scale")
        bb.emit_func_output(bb.emit(relax.Call(f, [x])))
    mod = bb.get()
    text = roundtrip(mod)
    assert "@R.function(private=True)\n        def scale(" in text
    np.testing.assert_allclose(relax.reference.run(mod, np.array([2, 3], "float32")), [4, 9])


def test_attribute_order_roundtrips():
    x = relax.Var("x", Ten([2]))
    for attrs in ({"num_input": 1, "global_symbol": "main"}, {"global_symbol": "main", "num_input": 1},
                  {"global_symbol": "other_name"}):
        func = relax.Function([x], relax.SeqExpr([], x), Ten([2]), attrs=attrs)
        roundtrip(IRModule({"main": func}))
    func = relax.Function([x], relax.SeqExpr([], x), Ten([2]))
    roundtrip(IRModule.from_expr(func))


_step = st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))


@settings(max_examples=30, deadline=None)
@given(st.lists(_step, min_size=1, max_size=8), st.booleans())
def test_random_graphs_roundtrip(steps, symbolic):
    n = tir.Var("n", "int64") if symbolic else 2
    x = relax.Var("x", Ten([n, 3]))
    unary = [rop.exp, rop.negative, rop.nn.relu, lambda a: rop.sum(a, axis=1, keepdims=True)]
    binary = [rop.add, rop.multiply, rop.maximum]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            values = [x, relax.const(np.full((1, 3), 0.25, "float32"))]
            last = x
            for kind, a, b, c in steps:
                if kind in (0, 1):
                    last = bb.emit(unary[a % len(unary)](values[b % len(values)]))
                    values.append(last)
                elif kind == 2:
                    last = bb.emit(binary[a % len(binary)](values[b % len(values)], values[c % len(values)]))
                    values.append(last)
                else:  # a tuple value: used only as the output
                    last = bb.emit((values[b % len(values)], values[c % len(values)]))
            gv = bb.emit_output(last)
        bb.emit_func_output(gv)
    roundtrip(bb.get())


def test_runtime_ops_roundtrip():
    x = relax.Var("x", Ten([2]))
    c = relax.Var("c", Ten([], "bool"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, c], pure=False):
        bb.emit(rop.print(x, format="x={}"))
        bb.emit(rop.assert_op(c, [x, x], format="bad {} {}"))
        bb.emit(rop.null_value())
        a = bb.emit(rop.builtin.alloc_tensor((2, 3), "float32", 0))
        s = bb.emit(rop.shape_of(a))
        b = bb.emit(rop.call_builtin_with_ctx("vm.builtin.copy", [x], sinfo_args=Ten([2])))
        bb.emit_func_output((s, b))
    text = roundtrip(bb.get())
    assert 'R.assert_op(c, x, x, format="bad {} {}")' in text
    assert 'R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), R.prim_value(T.int64(0)), R.str("global"))' in text
