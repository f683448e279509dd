"""TVM's quick-start tutorial, line for line, with ``import ember as tvm``; plus the
exported functions' extra inputs (``nn.spec.Int``, ``debug=True`` effects) on the VM."""

import numpy as np

import ember as tvm
from ember import relax
from ember.relax.frontend import nn


class MLPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


def test_quick_start_tutorial(capsys):
    mod, param_spec = MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
    mod.show()
    assert "def forward(x: R.Tensor((1, 784)" in capsys.readouterr().out
    mod = relax.get_pipeline("zero")(mod)
    target = tvm.target.Target("llvm")
    ex = tvm.compile(mod, target)
    device = tvm.cpu()
    vm = relax.VirtualMachine(ex, device)
    data = np.random.rand(1, 784).astype("float32")
    tvm_data = tvm.nd.array(data, device=device)
    params = [np.random.rand(*param.shape).astype("float32") for _, param in param_spec]
    params = [tvm.nd.array(param, device=device) for param in params]
    out = vm["forward"](tvm_data, *params).numpy()
    w1, b1, w2, b2 = (p.numpy() for p in params)
    np.testing.assert_allclose(out, np.maximum(data @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4)


def test_int_spec_input_runs():
    class Head(nn.Module):
        def forward(self, x, n):
            return nn.op.reshape(x, [n, -1])

    mod, _ = Head().export_tvm(spec={"forward": {"x": nn.spec.Tensor((6, 4), "float32"), "n": nn.spec.Int()}})
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), tvm.cpu())
    x = np.arange(24, dtype="float32").reshape(6, 4)
    np.testing.assert_array_equal(vm["forward"](x, 3).numpy(), x.reshape(3, 8))


def test_debug_effects_run():
    class Tiny(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

    mod, _ = Tiny().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 4), "float32")}}, debug=True)
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), tvm.cpu())
    effects = vm["_initialize_effect"]()
    out, new_effects = vm["forward"](np.ones((1, 4), "float32"), effects[0], np.ones((2, 4), "float32"),
                                     np.full(2, 0.5, "float32"))
    np.testing.assert_array_equal(out.numpy(), [[4.5, 4.5]])
    assert len(new_effects) == 1
