"""Acceptance: a small CNN built with ``BlockBuilder.emit_te`` over topi (conv2d, relu, max
pool, flatten, dense, softmax) matches PyTorch; a graph calling a registered PyTorch function
through ``call_dps_packed`` matches too."""

import numpy as np
import pytest

import ember
from ember import relax, topi
from ember.relax import BlockBuilder

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _cnn_module(batch: int = 2):
    """main(x[b,1,12,12], conv_w[4,1,3,3], conv_b[4], fc_w[10,100], fc_b[10]) → softmax logits."""
    def ts(*shape):
        return relax.TensorStructInfo(list(shape), "float32")

    bb = BlockBuilder()
    x, cw, cb = relax.Var("x", ts(batch, 1, 12, 12)), relax.Var("conv_w", ts(4, 1, 3, 3)), relax.Var("conv_b", ts(4))
    fw, fb = relax.Var("fc_w", ts(10, 100)), relax.Var("fc_b", ts(10))
    with bb.function("main", [x, cw, cb, fw, fb]):
        with bb.dataflow():
            h = bb.emit_te(topi.nn.conv2d, x, cw, 1, 0, 1)  # [b, 4, 10, 10]
            h = bb.emit_te(lambda t, b: topi.add(t, topi.reshape(b, (1, 4, 1, 1))), h, cb)
            h = bb.emit_te(topi.nn.relu, h)
            h = bb.emit_te(topi.nn.pool2d, h, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")  # [b, 4, 5, 5]
            h = bb.emit_te(topi.reshape, h, (batch, 100))
            h = bb.emit_te(topi.nn.dense, h, fw, fb)
            out = bb.emit_output(bb.emit_te(topi.nn.softmax, h))
        bb.emit_func_output(out)
    return bb.get()


def _torch_cnn(x, cw, cb, fw, fb):
    t = [torch.from_numpy(a) for a in (x, cw, cb, fw, fb)]
    h = F.max_pool2d(F.relu(F.conv2d(t[0], t[1], t[2])), 2)
    return F.softmax(F.linear(h.flatten(1), t[3], t[4]), dim=-1).numpy()


def test_cnn_matches_pytorch():
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 1, 12, 12), (4, 1, 3, 3), (4,), (10, 100), (10,))]
    ex = relax.build(_cnn_module(), target="llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    out = vm["main"](*[ember.nd.array(a) for a in args]).numpy()
    np.testing.assert_allclose(out, _torch_cnn(*args), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-5)


@ember.register_func("test.relax_e2e.torch_linear", override=True)
def _torch_linear(x, w, b, out):
    """out = x @ w.T + b, computed by PyTorch on zero-copy views of the VM's arrays."""
    tx, tw, tb, tout = (torch.from_dlpack(a) for a in (x, w, b, out))
    torch.addmm(tb, tx, tw.T, out=tout)


def test_call_dps_packed_to_a_pytorch_function():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([3, 16], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([8, 16], "float32"))
    b = relax.Var("b", relax.TensorStructInfo([8], "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            h = bb.emit(relax.call_dps_packed("test.relax_e2e.torch_linear", [x, w, b],
                                              relax.TensorStructInfo([3, 8], "float32")))
            h = bb.emit(relax.op.nn.relu(h))
            out = bb.emit_output(relax.op.nn.softmax(h, axis=-1))
        bb.emit_func_output(out)
    mod = relax.get_pipeline("zero")(bb.get())
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    rng = np.random.default_rng(1)
    xs, ws, bs = (rng.standard_normal(s).astype("float32") for s in ((3, 16), (8, 16), (8,)))
    ref = F.softmax(F.relu(F.linear(*(torch.from_numpy(a) for a in (xs, ws, bs)))), dim=-1).numpy()
    np.testing.assert_allclose(vm["main"](xs, ws, bs).numpy(), ref, rtol=1e-5, atol=1e-6)


def test_nn_frontend_cnn_matches_pytorch():
    """The same kind of CNN written with relax.frontend.nn, weights loaded from a PyTorch model."""
    from ember.relax.frontend import nn

    class CNN(nn.Module):
        def __init__(self):
            self.conv = nn.Conv2D(1, 4, 3, padding=1)
            self.norm = nn.GroupNorm(2, 4)
            self.fc = nn.Linear(4 * 6 * 6, 10)

        def forward(self, x):
            h = nn.op.max_pool2d(nn.op.relu(self.norm(self.conv(x))), 2)
            return nn.op.softmax(self.fc(nn.op.reshape(h, [x.shape[0], -1])), axis=-1)

    class TorchCNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
            self.norm = torch.nn.GroupNorm(2, 4)
            self.fc = torch.nn.Linear(4 * 6 * 6, 10)

        def forward(self, x):
            h = F.max_pool2d(F.relu(self.norm(self.conv(x))), 2)
            return F.softmax(self.fc(h.flatten(1)), dim=-1)

    ref = TorchCNN()
    model = CNN()
    model.load_state_dict(ref.state_dict())
    mod, param_spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor(("n", 1, 12, 12), "float32")}})
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), ember.cpu())
    params = [model.state_dict()[name].data for name, _ in param_spec]
    x = torch.randn(3, 1, 12, 12)
    out = vm["forward"](x.numpy(), *params).numpy()
    np.testing.assert_allclose(out, ref(x).detach().numpy(), rtol=1e-4, atol=1e-6)
