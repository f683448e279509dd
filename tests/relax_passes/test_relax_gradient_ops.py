"""Each operator's gradient rule (``FPrimalGradient``), compiled and run, against central
finite differences of the compiled forward op (float64, so the differences are exact enough).

One module holds every case (forward ``f_<case>`` and gradient ``g_<case>``) and is built once.
The scalar differentiated is ``sum(w * op(inputs))`` for a random weight ``w``."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.ir import Op
from ember.relax import op as R
from ember.relax.transform import LegalizeOps

RNG = np.random.default_rng(7)


def _u(shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype("float64")


def _apart(shape):
    """Values no two of which are closer than 0.01 (max / min / pooling are not differentiable at ties)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.01 + 0.5).reshape(shape).astype("float64")


# name -> (build(*params), inputs, indices of the inputs without a gradient)
CASES = {
    "abs": (R.abs, [_u((3, 4))], []),
    "exp": (R.exp, [_u((3, 4))], []),
    "log": (R.log, [_u((3, 4), 0.5, 2.0)], []),
    "sqrt": (R.sqrt, [_u((3, 4), 0.5, 2.0)], []),
    "sigmoid": (R.sigmoid, [_u((3, 4))], []),
    "tanh": (R.tanh, [_u((3, 4))], []),
    "cos": (R.cos, [_u((3, 4))], []),
    "square": (R.square, [_u((3, 4))], []),
    "rsqrt": (R.rsqrt, [_u((3, 4), 0.5, 2.0)], []),
    "log1p": (R.log1p, [_u((3, 4), -0.5, 1.0)], []),
    "sinh": (R.sinh, [_u((3, 4))], []),
    "tan": (R.tan, [_u((3, 4))], []),
    "erf": (R.erf, [_u((3, 4))], []),
    "clip": (lambda x: R.clip(x, -0.5, 0.5), [(_apart((3, 4)) - 0.553) * 20], []),
    "tril": (lambda x: R.tril(x, 1), [_u((3, 4))], []),
    "max_axis": (lambda x: R.max(x, axis=[1]), [_apart((3, 4))], []),
    "min_keepdims": (lambda x: R.min(x, axis=[0], keepdims=True), [_apart((3, 4))], []),
    "add_broadcast": (R.add, [_u((3, 1)), _u((4,))], []),
    "subtract_broadcast": (R.subtract, [_u((2, 3, 4)), _u((3, 1))], []),
    "multiply_broadcast": (R.multiply, [_u((3, 4)), _u((1, 4))], []),
    "divide": (R.divide, [_u((3, 4)), _u((3, 4), 1.0, 2.0)], []),
    "power": (R.power, [_u((3, 4), 1.0, 2.0), _u((3, 4), 1.0, 2.0)], []),
    "maximum": (R.maximum, [_apart((3, 4)), _apart((3, 4)) + 0.005], []),
    "greater": (R.greater, [_u((3, 4)), _u((3, 4))], [0, 1]),
    "sum_axis": (lambda x: R.sum(x, axis=[0, 2]), [_u((2, 3, 4))], []),
    "mean_keepdims": (lambda x: R.mean(x, axis=[1], keepdims=True), [_u((2, 3, 4))], []),
    "variance": (lambda x: R.variance(x, axis=[1]), [_u((3, 4))], []),
    "reshape": (lambda x: R.reshape(x, (4, 3, 2)), [_u((2, 3, 4))], []),
    "permute_dims": (lambda x: R.permute_dims(x, [2, 0, 1]), [_u((2, 3, 4))], []),
    "expand_dims": (lambda x: R.expand_dims(x, [0, 2]), [_u((3, 4))], []),
    "broadcast_to": (lambda x: R.broadcast_to(x, (2, 3, 4)), [_u((3, 1))], []),
    "split": (lambda x: R.split(x, [1, 3], axis=1), [_u((2, 5))], []),
    "cumsum": (lambda x: R.cumsum(x, axis=0), [_u((3, 4))], []),
    "cumsum_flat": (R.cumsum, [_u((3, 4))], []),
    "take": (lambda x, i: R.take(x, i, axis=1), [_u((2, 4)), np.array([[3, 0], [3, 1]], "int64")], [1]),
    "where": (R.where, [_u((3, 4)) > 0, _u((3, 4)), _u((1, 4))], [0]),
    "matmul": (R.matmul, [_u((2, 3)), _u((3, 4))], []),
    "matmul_vector_batch": (R.matmul, [_u((4,)), _u((2, 4, 3))], []),
    "matmul_batch_broadcast": (R.matmul, [_u((2, 1, 2, 3)), _u((3, 3, 2))], []),
    "relu": (R.nn.relu, [_apart((3, 4)) - 0.055], []),
    "leakyrelu": (lambda x: R.nn.leakyrelu(x, 0.2), [_apart((3, 4)) - 0.055], []),
    "gelu": (R.nn.gelu, [_u((3, 4), -3.0, 3.0)], []),
    "layer_norm": (lambda x, g, b: R.nn.layer_norm(x, g, b, axes=[-2, -1]),
                   [_u((2, 3, 4)), _u((3, 4), 0.5, 1.5), _u((3, 4))], []),
    "silu": (R.nn.silu, [_u((3, 4), -3.0, 3.0)], []),
    "softmax": (lambda x: R.nn.softmax(x, axis=0), [_u((3, 4))], []),
    "log_softmax": (R.nn.log_softmax, [_u((3, 4))], []),
    "cross_entropy": (R.nn.cross_entropy_with_logits, [_u((2, 3)), _u((2, 3))], []),
    "nll_loss_mean": (lambda p, t, w: R.nn.nll_loss(p, t, w, "mean", 2),
                      [_u((2, 3, 4)), np.array([[0, 2, 1, 1], [2, 0, 0, 1]], "int64"), _u((3,), 1.0, 2.0)], [1, 2]),
    "nll_loss_none": (lambda p, t: R.nn.nll_loss(p, t, reduction="none"),
                      [_u((2, 3)), np.array([2, 0], "int64")], [1]),
    "max_pool2d": (lambda x: R.nn.max_pool2d(x, (3, 3), strides=(2, 2), padding=(1, 1)), [_apart((1, 2, 6, 6))], []),
    "avg_pool2d": (lambda x: R.nn.avg_pool2d(x, (3, 3), strides=(2, 2), padding=(1, 2), ceil_mode=True),
                   [_u((1, 2, 6, 7))], []),
    "conv2d": (R.nn.conv2d, [_u((2, 2, 5, 5)), _u((3, 2, 3, 3))], []),
    "conv2d_strided_wide_pad": (lambda x, w: R.nn.conv2d(x, w, strides=(2, 1), padding=(3, 2)),
                                [_u((1, 2, 6, 5)), _u((2, 2, 3, 2))], []),
    "conv2d_groups_dilated": (lambda x, w: R.nn.conv2d(x, w, strides=2, padding=(1, 2, 0, 1), dilation=(2, 1), groups=2),
                              [_u((2, 4, 7, 6)), _u((4, 2, 2, 3))], []),
    "avg_pool2d_pad": (lambda x: R.nn.avg_pool2d(x, (2, 2), padding=(1, 1), count_include_pad=True),
                       [_u((1, 1, 4, 4))], []),
}


def _sinfo(a):
    return relax.TensorStructInfo(a.shape, str(a.dtype))


def _weights(sinfo):
    if isinstance(sinfo, relax.TupleStructInfo):
        return [_weights(f) for f in sinfo.fields]
    return RNG.uniform(0.5, 1.5, [int(d) for d in sinfo.shape.values]).astype(str(sinfo.dtype))


@pytest.fixture(scope="module")
def compiled():
    bb = relax.BlockBuilder()
    weights = {}
    for name, (build, inputs, _) in CASES.items():
        params = [relax.Var(f"x{i}", _sinfo(a)) for i, a in enumerate(inputs)]
        with bb.function("f_" + name, params):
            with bb.dataflow():
                out = bb.emit_output(build(*params))
            bb.emit_func_output(out)
        weights[name] = _weights(out.struct_info)
        params = [relax.Var(f"x{i}", _sinfo(a)) for i, a in enumerate(inputs)]
        grad = relax.Var("grad", out.struct_info)
        with bb.function("g_" + name, params + [grad]):
            with bb.dataflow():
                call = build(*params)
                value = bb.emit(call)
                rule = call.op.get_attr("FPrimalGradient")
                grads = rule(value, bb.normalize(call), grad, bb)
                out = bb.emit_output(relax.Tuple(grads))
            bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(bb.get()), "llvm"), ember.cpu())
    return vm, weights


def _numpy(x):
    if isinstance(x, tuple | list):
        return [_numpy(e) for e in x]
    return x.numpy() if hasattr(x, "numpy") else x


def _weighted(vm, name, inputs, weights) -> float:
    out = _numpy(vm["f_" + name](*[ember.nd.array(a) for a in inputs]))
    if isinstance(out, list):
        return float(sum(np.sum(w * o) for w, o in zip(weights, out)))
    return float(np.sum(weights * out))


def _numeric_grad(vm, name, inputs, weights, k, delta=1e-6):
    x = inputs[k]
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + delta
        up = _weighted(vm, name, inputs, weights)
        x[i] = old - delta
        down = _weighted(vm, name, inputs, weights)
        x[i] = old
        grad[i] = (up - down) / (2 * delta)
    return grad


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(compiled, name):
    vm, weights = compiled
    _, inputs, no_grad = CASES[name]
    inputs = [a.copy() for a in inputs]
    w = weights[name]
    args = [ember.nd.array(a) for a in inputs]
    warg = [ember.nd.array(e) for e in w] if isinstance(w, list) else ember.nd.array(w)
    if isinstance(warg, list):
        warg = tuple(warg)
    got = _numpy(vm["g_" + name](*args, warg))
    for k in range(len(inputs)):
        if k in no_grad:
            continue
        expected = _numeric_grad(vm, name, inputs, w, k)
        np.testing.assert_allclose(np.asarray(got[k], "float64"), expected, rtol=1e-4, atol=1e-5,
                                   err_msg=f"gradient of input {k}")


def test_non_differentiable_inputs_get_no_grad():
    x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
    i = relax.Var("i", relax.TensorStructInfo((2,), "int64"))
    g = relax.Var("g", relax.TensorStructInfo((2,), "float32"))
    call = R.take(x, i)
    bb = relax.BlockBuilder()
    with bb.function("f", [x, i, g]):
        y = bb.emit(call)
        grads = Op.get("relax.take").get_attr("FPrimalGradient")(y, bb.normalize(call), g, bb)
        bb.emit_func_output(y)
    assert grads[0].op.name == "relax.grad.take_backward"
    assert grads[1].op.name == "relax.grad.no_grad" and grads[1].args[0] is i
