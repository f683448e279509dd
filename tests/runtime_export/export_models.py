"""Small compiled models for the export tests (built once per process)."""

import functools

import numpy as np

import ember
from ember import relax
from ember.relax.frontend import nn
from ember.relax.transform.bind_params import bind_params


class MLP(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


@functools.cache
def mlp_executable(batch: int | str = 2):
    """(executable, params in order, reference function) for a 16→32→4 MLP; the weights are
    bound as constants, so ``forward(x)`` takes the input only."""
    spec = {"forward": {"x": nn.spec.Tensor((batch, 16), "float32")}}
    mod, param_spec = MLP().export_tvm(spec=spec)
    rng = np.random.default_rng(0)
    params = {name.replace(".", "_"): rng.uniform(-0.5, 0.5, size=s.shape).astype("float32")
              for name, s in param_spec}
    mod = bind_params(mod, params, "forward")
    ex = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    w1, b1, w2, b2 = params.values()

    def reference(x):
        return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2

    return ex, reference


def run_vm(ex, x):
    return relax.VirtualMachine(ex, ember.cpu())["forward"](x).numpy()
