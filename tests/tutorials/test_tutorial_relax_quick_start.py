"""Tutorial: Relax quick start, ``import ember as tvm``.

An MLP written with ``relax.frontend.nn`` is exported with ``export_tvm``, lowered by the
"zero" pipeline, built with ``relax.build`` / ``tvm.compile`` and run on the Relax VM.
"""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.relax.frontend import nn


class MLPModel(nn.Module):
    def __init__(self):
        super(MLPModel, self).__init__()  # noqa: UP008 - the tutorial's spelling
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


def _reference(x: np.ndarray, params: list[np.ndarray]) -> np.ndarray:
    w1, b1, w2, b2 = params
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


@pytest.fixture(scope="module")
def exported():
    spec = {"forward": {"x": nn.spec.Tensor((1, 784), "float32")}}
    return MLPModel().export_tvm(spec=spec)


def test_export_shows_and_lists_params(exported, capsys):
    mod, param_spec = exported
    mod.show()
    assert "def forward" in capsys.readouterr().out
    assert [name for name, _ in param_spec] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert tuple(param_spec[0][1].shape) == (256, 784)


@pytest.mark.parametrize("builder", ["relax.build", "tvm.compile"])
def test_zero_pipeline_build_and_run(exported, builder):
    mod, param_spec = exported
    mod = relax.get_pipeline("zero")(mod)
    target = tvm.target.Target("llvm")
    ex = relax.build(mod, target) if builder == "relax.build" else tvm.compile(mod, target="llvm")
    device = tvm.cpu()
    vm = relax.VirtualMachine(ex, device)
    rng = np.random.default_rng(0)
    data = rng.random((1, 784)).astype("float32")
    params = [(rng.random(tuple(p.shape)).astype("float32") - 0.5) / 10 for _, p in param_spec]
    out = vm["forward"](tvm.nd.array(data, device=device), *[tvm.nd.array(p, device) for p in params])
    tvm.testing.assert_allclose(out.numpy(), _reference(data, params), rtol=1e-4, atol=1e-5)


def test_symbolic_batch():
    spec = {"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}}
    mod, param_spec = MLPModel().export_tvm(spec=spec)
    ex = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(1)
    params = [(rng.random(tuple(p.shape)).astype("float32") - 0.5) / 10 for _, p in param_spec]
    for batch in (1, 7):
        data = rng.random((batch, 784)).astype("float32")
        out = vm["forward"](tvm.nd.array(data), *[tvm.nd.array(p) for p in params])
        tvm.testing.assert_allclose(out.numpy(), _reference(data, params), rtol=1e-4, atol=1e-5)


def test_export_executable_and_load_module(exported, tmp_path):
    mod, param_spec = exported
    ex = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    path = str(tmp_path / "mlp.so")
    ex.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    rng = np.random.default_rng(2)
    data = rng.random((1, 784)).astype("float32")
    params = [(rng.random(tuple(p.shape)).astype("float32") - 0.5) / 10 for _, p in param_spec]
    out = vm["forward"](tvm.nd.array(data), *[tvm.nd.array(p) for p in params])
    tvm.testing.assert_allclose(out.numpy(), _reference(data, params), rtol=1e-4, atol=1e-5)


def test_default_pipeline_as_relax_pipeline(exported):
    mod, param_spec = exported
    target = tvm.target.Target("llvm")
    ex = relax.build(mod, target, relax_pipeline=relax.get_default_pipeline(target))
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(3)
    data = rng.random((1, 784)).astype("float32")
    params = [(rng.random(tuple(p.shape)).astype("float32") - 0.5) / 10 for _, p in param_spec]
    out = vm["forward"](tvm.nd.array(data), *[tvm.nd.array(p) for p in params])
    tvm.testing.assert_allclose(out.numpy(), _reference(data, params), rtol=1e-4, atol=1e-5)


def test_build_without_legalizing_names_the_ops(exported):
    mod, _ = exported
    with pytest.raises(ValueError, match="relax.matmul.*get_pipeline"):
        relax.build(mod, target="llvm", relax_pipeline=None)


def test_build_legalizes_by_default_like_tvm(exported):
    mod, _ = exported
    ex = relax.build(mod, target="llvm")  # no zero pipeline by hand: relax.build runs the default one
    assert "forward" in ex.functions
