"""Acceptance: an MLP written with relax.frontend.nn (784 → 256 → ReLU → 10), exported,
optimised with the "zero" pipeline, built for llvm and run on the VM."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.relax.frontend import nn
from ember.runtime.vm import PooledAllocator


class MLPModel(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(self.relu1(self.fc1(x)))


def _weights(param_spec, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-0.1, 0.1, size=s.shape).astype(s.dtype) for _, s in param_spec]


def _reference(x, w1, b1, w2, b2):
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


@pytest.fixture(scope="module")
def symbolic_mlp():
    mod, param_spec = MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("batch", 784), "float32")}})
    exe = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    return exe, param_spec


def test_static_mlp_tutorial_flow():
    mod, param_spec = MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
    mod = relax.get_pipeline("zero")(mod)
    ex = relax.build(mod, target="llvm")
    dev = ember.cpu()
    vm = relax.VirtualMachine(ex, dev)
    data = ember.nd.array(np.random.default_rng(1).random((1, 784)).astype("float32"), dev)
    params = _weights(param_spec)
    out = vm["forward"](data, *[ember.nd.array(p, dev) for p in params]).numpy()
    np.testing.assert_allclose(out, _reference(data.numpy(), *params), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("batch", [1, 32])
def test_symbolic_batch(symbolic_mlp, batch):
    exe, param_spec = symbolic_mlp
    vm = relax.VirtualMachine(exe, ember.cpu())
    params = _weights(param_spec, seed=batch)
    x = np.random.default_rng(batch).standard_normal((batch, 784)).astype("float32")
    out = vm["forward"](x, *params).numpy()
    assert out.shape == (batch, 10)
    np.testing.assert_allclose(out, _reference(x, *params), rtol=1e-4, atol=1e-5)


def test_weights_from_state_dict():
    """Weights loaded into the module come back out in param_spec order."""
    model = MLPModel()
    rng = np.random.default_rng(3)
    model.load_state_dict({n: rng.uniform(-0.1, 0.1, p.shape).astype("float32")
                           for n, p in model.named_parameters()})
    mod, param_spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor((4, 784), "float32")}})
    sd = model.state_dict()
    params = [sd[name].data for name, _ in param_spec]
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), ember.cpu())
    x = rng.standard_normal((4, 784)).astype("float32")
    out = vm["forward"](x, *params).numpy()
    np.testing.assert_allclose(out, _reference(x, *(p.numpy() for p in params)), rtol=1e-4, atol=1e-5)


def test_second_call_allocates_no_intermediates(symbolic_mlp):
    """Acceptance: with planned memory, a second VM call takes every intermediate from the pool."""
    exe, param_spec = symbolic_mlp
    pool = PooledAllocator()
    vm = relax.VirtualMachine(exe, ember.cpu(), allocator=pool)
    params = _weights(param_spec)
    x = np.ones((32, 784), "float32")
    vm["forward"](x, *params)
    first = pool.stats.fresh_allocations
    assert first >= 1  # the intermediates of the first call
    out = vm["forward"](x, *params)
    assert pool.stats.fresh_allocations == first
    assert pool.stats.reused >= first
    np.testing.assert_allclose(out.numpy(), _reference(x, *params), rtol=1e-4, atol=1e-5)
