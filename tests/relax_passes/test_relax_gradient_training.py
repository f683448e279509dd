"""relax.training: loss functions (compiled, against numpy), AppendLoss (form and errors), and
a model + loss differentiated with Gradient."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.error import TVMError
from ember.relax import op as R
from ember.relax.training import AppendLoss, loss
from ember.relax.transform import Gradient, LegalizeOps

RNG = np.random.default_rng(11)


def _run(func, *args):
    mod = ember.IRModule({"f": func}) if not isinstance(func, ember.IRModule) else func
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(mod), "llvm"), ember.cpu())
    return vm["f"](*[ember.nd.array(a) for a in args]).numpy()


def _sinfo(a):
    return relax.TensorStructInfo(a.shape, str(a.dtype))


def _log_softmax(p):
    shifted = p - p.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def test_losses_match_numpy():
    p, t = RNG.uniform(-1, 1, (3, 5)).astype("float32"), RNG.uniform(-1, 1, (3, 5)).astype("float32")
    np.testing.assert_allclose(_run(loss.L1Loss()(_sinfo(p), _sinfo(t)), p, t), np.abs(p - t).mean(), rtol=1e-5)
    np.testing.assert_allclose(_run(loss.MSELoss("sum")(_sinfo(p), _sinfo(t)), p, t), ((p - t) ** 2).sum(), rtol=1e-5)
    labels = np.array([4, 0, 2], "int64")
    weights = RNG.uniform(0.5, 1.5, (5,)).astype("float32")
    ce = loss.CrossEntropyLoss(reduction="sum")(_sinfo(p), _sinfo(labels), _sinfo(weights))
    expected = -(weights[labels] * _log_softmax(p)[np.arange(3), labels]).sum()
    np.testing.assert_allclose(_run(ce, p, labels, weights), expected, rtol=1e-5)
    onehot = np.eye(5, dtype="int64")[labels]
    cce = loss.CategoricalCrossEntropyLoss()(_sinfo(p), _sinfo(onehot))
    np.testing.assert_allclose(_run(cce, p, onehot), (-_log_softmax(p) * onehot).mean(), rtol=1e-5)
    assert ce.attrs["global_symbol"] == "cross_entropy_loss"
    with pytest.raises(ValueError, match="reduction"):
        loss.L1Loss("max")


def _model():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float64"))
    w = relax.Var("w", relax.TensorStructInfo((3, 4), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("forward", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, w))
            extra = bb.emit_output(R.sum(x))
        bb.emit_func_output(relax.Tuple([out, extra]))
    return bb.get()


def test_append_loss_then_gradient():
    model = _model()
    out_sinfo = model["forward"].ret_struct_info.fields[0]
    mse = loss.MSELoss(reduction="sum")
    mod = AppendLoss("forward", mse(out_sinfo, out_sinfo), mse.num_backbone_outputs)(model)
    joined = mod["forward_loss"]
    assert [p.name_hint for p in joined.params] == ["x", "w", "targets"]
    assert len(joined.ret_struct_info.fields) == 2  # the loss, then the model's other output
    mod = Gradient("forward_loss", require_grads=joined.params[1])(mod)
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(mod), "llvm"), ember.cpu())
    x, w, t = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3, 4)), RNG.uniform(-1, 1, (2, 4))
    (value, extra), (gw,) = vm["forward_loss_adjoint"](*[ember.nd.array(a) for a in (x, w, t)])
    np.testing.assert_allclose(value.numpy(), ((x @ w - t) ** 2).sum())
    np.testing.assert_allclose(extra.numpy(), x.sum())
    np.testing.assert_allclose(gw.numpy(), x.T @ (2 * (x @ w - t)))


def test_append_loss_errors():
    model = _model()
    scalar = relax.TensorStructInfo((), "float64")
    with pytest.raises(TVMError, match="struct info"):
        AppendLoss("forward", loss.L1Loss()(scalar, scalar))(model)
    out_sinfo = model["forward"].ret_struct_info.fields[0]
    with pytest.raises(TVMError, match="num_backbone_outputs"):
        AppendLoss("forward", loss.L1Loss()(out_sinfo, out_sinfo), 3)(model)
    with pytest.raises(TVMError, match="scalar"):
        AppendLoss("forward", loss.L1Loss("none")(out_sinfo, out_sinfo))(model)
    with pytest.raises(ValueError, match="no function named"):
        AppendLoss("backward", loss.L1Loss()(out_sinfo, out_sinfo))(model)
