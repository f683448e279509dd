"""relax.training: loss functions (compiled, against numpy), AppendLoss (form and errors), and
a model + loss differentiated with Gradient."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.error import TVMError
from ember.relax import op as R
from ember.relax.training import AppendLoss, loss, optimizer
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


def _step_numpy(name, p, g, state, **kw):
    if name == "SGD":
        return [p - kw["lr"] * (g + kw["wd"] * p)], [state[0] + 1]
    if name == "MomentumSGD":
        grad = g + kw["wd"] * p
        v = kw["mom"] * state[1] + (1 - kw["damp"]) * grad
        step = grad + kw["mom"] * v if kw["nest"] else v
        return [p - kw["lr"] * step], [state[0] + 1, v]
    b1, b2 = kw["betas"]
    grad = g + kw["wd"] * p
    m = b1 * state[3] + (1 - b1) * grad
    v = b2 * state[4] + (1 - b2) * grad * grad
    p1, p2 = state[1] * b1, state[2] * b2
    new = p - kw["lr"] * (m / (1 - p1)) / (np.sqrt(v / (1 - p2)) + kw["eps"])
    return [new], [state[0] + 1, p1, p2, m, v]


@pytest.mark.parametrize("make, name, kw", [
    (lambda: optimizer.SGD(0.1, 0.05), "SGD", {"lr": 0.1, "wd": 0.05}),
    (lambda: optimizer.MomentumSGD(0.1, 0.9, 0.2, 0.05, True), "MomentumSGD",
     {"lr": 0.1, "mom": 0.9, "damp": 0.2, "wd": 0.05, "nest": True}),
    (lambda: optimizer.Adam(0.1, (0.8, 0.9), 1e-6, 0.05), "Adam",
     {"lr": 0.1, "betas": (0.8, 0.9), "eps": 1e-6, "wd": 0.05}),
])
def test_optimizer_steps_match_numpy(make, name, kw):
    w = relax.Var("w", relax.TensorStructInfo((2, 3), "float64"))
    opt = make().init([w])
    func = opt.get_function()
    assert func.attrs["global_symbol"] == name
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(ember.IRModule({"step": func})), "llvm"), ember.cpu())
    p, g = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (2, 3))
    state = [s.numpy() for s in opt.state]
    for _ in range(2):  # two steps, the second from a non-initial state
        new_params, new_state = vm["step"]((ember.nd.array(p),), (ember.nd.array(g),), tuple(ember.nd.array(s) for s in state))
        expected_params, expected_state = _step_numpy(name, p, g, state, **kw)
        np.testing.assert_allclose(new_params[0].numpy(), expected_params[0], rtol=1e-12)
        for got, want in zip(new_state, expected_state):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
        p, state = new_params[0].numpy(), [s.numpy() for s in new_state]


def test_optimizer_errors():
    x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
    with pytest.raises(RuntimeError, match="call init"):
        optimizer.SGD(0.1).get_function()
    with pytest.raises(ValueError, match="duplicates"):
        optimizer.SGD(0.1).init([x, x])
    with pytest.raises(ValueError, match="one dtype"):
        optimizer.SGD(0.1).init([x, relax.Var("y", relax.TensorStructInfo((3,), "float64"))])
    with pytest.raises(ValueError, match="float tensor"):
        optimizer.SGD(0.1).init([relax.Var("i", relax.TensorStructInfo((3,), "int64"))])


def _linear_backbone():
    x = relax.Var("x", relax.TensorStructInfo((1, 3), "float64"))
    w = relax.Var("w", relax.TensorStructInfo((3, 2), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("backbone", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, w))
        bb.emit_func_output(out)
    mod = bb.get()
    mod.attrs.update({"param_num": 1, "state_num": 0})
    return mod


def test_setup_trainer_and_trainer_follow_sgd():
    from ember.relax.training import SetupTrainer, Trainer

    pred = relax.TensorStructInfo((1, 2), "float64")
    train_mod = SetupTrainer(loss.MSELoss("sum"), optimizer.SGD(0.1), [pred, pred])(_linear_backbone())
    assert {"backbone_loss", "backbone_loss_adjoint", "optimizer"} <= {gv.name_hint for gv in train_mod.get_global_vars()}
    assert train_mod.attrs["input_num"] == 1
    vm = relax.VirtualMachine(relax.build(train_mod, "llvm"), ember.cpu())
    trainer = Trainer(train_mod, vm, ember.cpu())
    with pytest.raises(TVMError, match="not initialized"):
        trainer.predict(np.ones((1, 3)))
    w0 = RNG.uniform(-1, 1, (3, 2))
    trainer.load_params({"w": w0})
    x, t = RNG.uniform(-1, 1, (1, 3)), RNG.uniform(-1, 1, (1, 2))
    w = w0.copy()
    for _ in range(3):
        value = trainer.update(x, t).numpy()
        np.testing.assert_allclose(value, ((x @ w - t) ** 2).sum())
        w = w - 0.1 * x.T @ (2 * (x @ w - t))
    np.testing.assert_allclose(trainer.export_params()["w"].numpy(), w)
    np.testing.assert_allclose(trainer.predict(x).numpy(), x @ w)


def test_setup_trainer_needs_module_attributes():
    from ember.relax.training import SetupTrainer

    pred = relax.TensorStructInfo((1, 2), "float64")
    mod = _linear_backbone()
    mod.attrs.clear()
    with pytest.raises(ValueError, match="param_num"):
        SetupTrainer(loss.MSELoss(), optimizer.SGD(0.1), [pred, pred])(mod)
