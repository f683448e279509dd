"""relax.transform.Gradient: the adjoint function's form, its values (compiled, against finite
differences of the compiled forward function) and the errors it reports; the relax.grad ops."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.error import TVMError
from ember.ir import assert_structural_equal
from ember.relax import op as R
from ember.relax.transform import Gradient, LegalizeOps
from ember.script import ir as I
from ember.script import relax as RS


@I.ir_module
class scale_and_sum:  # noqa: N801 - fixture name
    @RS.function
    def main(x: RS.Tensor((2, 3), "float32"), y: RS.Tensor((2, 3), "float32")):
        with RS.dataflow():
            lv = RS.multiply(x, y)
            gv = RS.sum(lv)
            RS.output(gv)
        return gv


@I.ir_module
class scale_and_sum_adjoint_x:  # noqa: N801 - fixture name
    @RS.function
    def main_adjoint(x: RS.Tensor((2, 3), "float32"), y: RS.Tensor((2, 3), "float32")):
        with RS.dataflow():
            lv = RS.multiply(x, y)
            gv = RS.sum(lv)
            gv_adjoint = RS.ones(RS.shape([]), "float32")
            lv_adjoint = RS.broadcast_to(gv_adjoint, RS.shape([2, 3]))
            x_adjoint = RS.multiply(lv_adjoint, y)
            x_adjoint_out = x_adjoint
            RS.output(gv, x_adjoint_out)
        return (gv, (x_adjoint_out,))


def test_adjoint_function_form():
    after = Gradient("main", require_grads=scale_and_sum["main"].params[0])(scale_and_sum)
    assert_structural_equal(after["main"], scale_and_sum["main"])
    assert_structural_equal(after["main_adjoint"], scale_and_sum_adjoint_x["main_adjoint"])
    assert after["main_adjoint"].params[0] is not scale_and_sum["main"].params[0]  # fresh variables
    assert relax.analysis.well_formed(after)


def _mlp():
    x = relax.Var("x", relax.TensorStructInfo((4, 3), "float64"))
    w = relax.Var("w", relax.TensorStructInfo((3, 2), "float64"))
    b = relax.Var("b", relax.TensorStructInfo((2,), "float64"))
    pair = relax.Var("pair", relax.TupleStructInfo([relax.TensorStructInfo((4, 2), "float64")] * 2))
    unused = relax.Var("unused", relax.TensorStructInfo((2,), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, b, pair, unused]):
        with bb.dataflow():
            h = bb.emit(R.tanh(R.add(R.matmul(x, w), b)))
            h = bb.emit(R.multiply(h, bb.emit(relax.TupleGetItem(pair, 1))))
            s = bb.emit(R.nn.log_softmax(R.add(h, h)))
            loss = bb.emit_output(R.mean(R.multiply(s, s)))
        bb.emit_func_output(loss)
    return bb.get()


def test_gradients_match_finite_differences():
    mod = Gradient("main")(_mlp())
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(mod), "llvm"), ember.cpu())
    rng = np.random.default_rng(3)
    x, w, b = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2,))
    pair = [rng.uniform(-1, 1, (4, 2)) for _ in range(2)]
    unused = rng.uniform(-1, 1, (2,))

    def run(fname, values):
        x, w, b, pair, unused = values
        args = [ember.nd.array(v) for v in (x, w, b)] + [tuple(ember.nd.array(p) for p in pair), ember.nd.array(unused)]
        return vm[fname](*args)

    values = [x, w, b, pair, unused]
    loss, grads = run("main_adjoint", values)
    assert np.isclose(loss.numpy(), run("main", values).numpy())
    flat = [x, w, b, pair[0], pair[1], unused]
    got = [grads[0].numpy(), grads[1].numpy(), grads[2].numpy(), grads[3][0].numpy(), grads[3][1].numpy(),
           grads[4].numpy()]
    for array, grad in zip(flat, got):
        numeric = np.zeros(array.shape)
        for i in np.ndindex(array.shape):
            old = array[i]
            array[i] = old + 1e-6
            up = float(run("main", values).numpy())
            array[i] = old - 1e-6
            down = float(run("main", values).numpy())
            array[i] = old
            numeric[i] = (up - down) / 2e-6
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)
    assert not got[3].any() and not got[5].any()  # pair[0] and unused do not reach the loss


def test_target_index_and_intermediate_require_grads():
    x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            doubled = bb.emit(R.add(x, x))
            total = bb.emit_output(R.sum(doubled))
            other = bb.emit_output(R.sum(x))
        bb.emit_func_output(relax.Tuple([other, total]))
    mod = bb.get()
    after = Gradient("main", require_grads=[x, doubled], target_index=1)(mod)
    sinfo = after["main_adjoint"].ret_struct_info
    assert len(sinfo.fields[1].fields) == 2
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(after), "llvm"), ember.cpu())
    (_, _), (gx, gd) = vm["main_adjoint"](ember.nd.array(np.ones(3, "float32")))
    np.testing.assert_allclose(gx.numpy(), [2, 2, 2])
    np.testing.assert_allclose(gd.numpy(), [1, 1, 1])


def _one(body, dtype="float32", shape=(3,)):
    x = relax.Var("x", relax.TensorStructInfo(shape, dtype))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(body(x))
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize("body, dtype, message", [
    (lambda x: R.add(x, x), "float32", "scalar tensor"),
    (lambda x: R.sum(x), "int32", "float"),
    (lambda x: relax.Tuple([R.sum(x)]), "float32", "scalar tensor"),
])
def test_bad_target_is_reported(body, dtype, message):
    with pytest.raises(TVMError, match=message):
        Gradient("main")(_one(body, dtype))


def test_bad_requests_are_reported():
    mod = _one(R.sum)
    with pytest.raises(ValueError, match="no function named 'other'"):
        Gradient("other")(mod)
    with pytest.raises(TVMError, match="does not occur"):
        Gradient("main", require_grads=relax.Var("z", relax.TensorStructInfo((3,), "float32")))(mod)
    with pytest.raises(TVMError, match="target_index must be 0"):
        Gradient("main", target_index=1)(mod)
    x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit(R.sum(x))
        bb.emit_func_output(out)
    with pytest.raises(TVMError, match="one dataflow block"):
        Gradient("main")(bb.get())


def test_operator_without_gradient_is_named():
    with pytest.raises(TVMError, match="relax.argmax has no gradient"):
        Gradient("main")(_one(lambda x: R.sum(R.astype(R.argmax(x), "float32"))))


def test_grad_ops_struct_info_and_identities():
    x = relax.Var("x", relax.TensorStructInfo((2, 3, 5, 5), "float32"))
    g = relax.Var("g", relax.TensorStructInfo((2, 3, 2, 2), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, g]):
        with bb.dataflow():
            back = bb.emit(R.grad.max_pool2d_backward(g, x, (3, 3), (2, 2)))
            kept = bb.emit(R.grad.end_checkpoint(bb.emit(R.grad.start_checkpoint(back))))
            out = bb.emit_output(R.grad.no_grad(kept))
        bb.emit_func_output(out)
    assert_structural_equal(back.struct_info, x.struct_info)
    with pytest.raises(TVMError, match="must be a variable"):
        bb.normalize(R.grad.start_checkpoint(relax.const(1.0, "float32")))
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(bb.get()), "llvm"), ember.cpu())
    data = np.arange(150, dtype="float32").reshape(2, 3, 5, 5)
    result = vm["main"](ember.nd.array(data), ember.nd.array(np.ones((2, 3, 2, 2), "float32"))).numpy()
    expected = np.zeros_like(data)
    expected[:, :, [2, 2, 4, 4], [2, 4, 2, 4]] = 1  # each window's maximum is its bottom-right corner
    np.testing.assert_array_equal(result, expected)


def test_transposed_products_are_simplified():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float64"))
    y = relax.Var("y", relax.TensorStructInfo((4, 2), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            prod = bb.emit(R.matmul(bb.emit(R.permute_dims(x)), bb.emit(R.permute_dims(y))))
            loss = bb.emit_output(R.sum(R.multiply(prod, prod)))
        bb.emit_func_output(loss)
    after = Gradient("main")(bb.get())
    ops = [b.value.op.name for b in after["main_adjoint"].body.blocks[0].bindings
           if isinstance(b.value, relax.Call)]
    assert ops.count("relax.matmul") == 3  # the forward product and one per operand's gradient
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(after), "llvm"), ember.cpu())
    rng = np.random.default_rng(5)
    xv, yv = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (4, 2))
    _, (gx, gy) = vm["main_adjoint"](ember.nd.array(xv), ember.nd.array(yv))
    p = xv.T @ yv.T
    np.testing.assert_allclose(gx.numpy(), (2 * p @ yv).T, rtol=1e-10)
    np.testing.assert_allclose(gy.numpy(), (xv @ (2 * p)).T, rtol=1e-10)


def _checkpointed_cube(use_checkpoint: bool):
    from ember.relax.testing import nn

    def body(x):
        return R.multiply(R.multiply(x, x), R.exp(x))

    x = relax.Var("x", relax.TensorStructInfo((4,), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            mid = nn.emit_checkpoint(body, x) if use_checkpoint else bb.emit(body(x))
            loss = bb.emit_output(R.sum(R.sin(mid)))
        bb.emit_func_output(loss)
    return bb.get()


def test_checkpointed_values_are_recomputed():
    plain = Gradient("main")(_checkpointed_cube(False))
    marked = Gradient("main")(_checkpointed_cube(True))
    bindings = marked["main_adjoint"].body.blocks[0].bindings
    names = [b.var.name_hint for b in bindings]
    assert any(n.endswith("_cp") for n in names)
    assert not any(isinstance(b.value, relax.Call) and b.value.op.name.startswith("relax.grad.") for b in bindings)
    data = ember.nd.array(np.linspace(-1, 1, 4))
    results = []
    for mod in (plain, marked):
        vm = relax.VirtualMachine(relax.build(LegalizeOps()(mod), "llvm"), ember.cpu())
        results.append(vm["main_adjoint"](data)[1][0].numpy())
    x = np.linspace(-1, 1, 4)
    expected = np.cos(x * x * np.exp(x)) * (2 * x + x * x) * np.exp(x)
    np.testing.assert_allclose(results[0], expected, rtol=1e-10)
    np.testing.assert_allclose(results[1], expected, rtol=1e-10)


def test_call_tir_with_registered_te_gradient():
    from ember import te
    from ember.relax.training.utils import register_te_gradient

    @register_te_gradient("test_gradient_pass_scale_grad")
    def scale_grad(output_grad, src, k):
        return [te.compute(src.shape, lambda *i: output_grad(*i) * k, name="scale_grad")]

    x = relax.Var("x", relax.TensorStructInfo((4,), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            scaled = bb.emit(bb.call_te_with_grad(lambda s: te.compute(s.shape, lambda *i: s(*i) * 3.0, name="scale"),
                                                  x, te_grad_name="test_gradient_pass_scale_grad",
                                                  te_grad_kwargs={"k": 3.0}))
            loss = bb.emit_output(R.sum(R.multiply(scaled, scaled)))
        bb.emit_func_output(loss)
    after = Gradient("main")(bb.get())
    ops = {b.value.op.name for b in after["main_adjoint"].body.blocks[0].bindings if isinstance(b.value, relax.Call)}
    assert "relax.call_tir_with_grad" not in ops and "relax.call_tir" in ops
    assert "test_gradient_pass_scale_grad" in [gv.name_hint for gv in after.get_global_vars()]
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(after), "llvm"), ember.cpu())
    data = np.arange(4.0)
    _, (grad,) = vm["main_adjoint"](ember.nd.array(data))
    np.testing.assert_allclose(grad.numpy(), 18 * data)  # d/dx sum((3x)^2)
    assert isinstance(vm["main_adjoint"](ember.nd.array(data)), ember.ir.Array)  # TVM's container name


def test_unregistered_te_gradient_is_named():
    from ember import te

    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(bb.call_te_with_grad(lambda s: te.compute(s.shape, lambda *i: s(*i), name="copy"), x,
                                             te_grad_name="no_such_gradient"))
            loss = bb.emit_output(R.sum(y))
        bb.emit_func_output(loss)
    with pytest.raises(TVMError, match="no_such_gradient"):
        Gradient("main")(bb.get())


def test_call_tir_with_grad_prints_and_parses_back():
    from ember import te
    from ember.script import from_source
    from ember.script import tir as T

    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit_output(bb.call_te_with_grad(lambda s: te.compute(s.shape, lambda *i: s(*i), name="copy"), x,
                                                    te_grad_name="copy_grad", te_grad_kwargs={"k": 2}))
        bb.emit_func_output(y)
    mod = bb.get()
    text = mod.script()
    assert 'te_grad_name="copy_grad"' in text and "out_sinfo=" in text
    assert_structural_equal(from_source(text, {"R": RS, "T": T, "I": I}), mod)
