"""relay.testing workloads: built in code, deterministic, runnable through relay.build."""

import numpy as np
import pytest

import ember
from ember import relay
from ember.contrib import graph_executor


def test_mlp_matches_numpy():
    mod, params = relay.testing.mlp.get_workload(batch_size=2)
    lib = relay.build(mod, "llvm", params=params)
    gmod = graph_executor.GraphModule(lib["default"](ember.cpu()))
    x = np.random.default_rng(0).random((2, 1, 28, 28), dtype="float32")
    gmod.set_input("data", x)
    gmod.run()
    h = x.reshape(2, -1)
    for layer in ("fc1", "fc2"):
        h = np.maximum(h @ params[layer + "_weight"].T + params[layer + "_bias"], 0)
    logits = h @ params["fc3_weight"].T + params["fc3_bias"]
    expected = np.exp(logits - logits.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(gmod.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layers, count", [(18, 102), (50, 267)])
def test_resnet_structure(layers, count):
    mod, params = relay.testing.resnet.get_workload(num_layers=layers, batch_size=1)
    assert mod["main"].params[0].name_hint == "data"
    assert len(params) == count and params["fc1_weight"].shape == (1000, 2048 if layers == 50 else 512)
    again, params2 = relay.testing.resnet.get_workload(num_layers=layers)
    np.testing.assert_array_equal(params["conv0_weight"], params2["conv0_weight"])


def test_mobilenet_structure():
    mod, params = relay.testing.mobilenet.get_workload(batch_size=1)
    assert params["separable1_depthwise_weight"].shape == (32, 1, 3, 3)
    assert params["fc_weight"].shape == (1000, 1024)


def test_bad_layers_is_reported():
    with pytest.raises(ValueError, match="num_layers must be one of"):
        relay.testing.resnet.get_workload(num_layers=19)


@pytest.mark.slow
def test_resnet18_runs():
    mod, params = relay.testing.resnet.get_workload(num_layers=18, batch_size=1)
    gmod = graph_executor.GraphModule(relay.build(mod, "llvm", params=params)["default"](ember.cpu()))
    gmod.set_input("data", np.random.default_rng(0).random((1, 3, 224, 224), dtype="float32"))
    gmod.run()
    out = gmod.get_output(0).numpy()
    assert out.shape == (1, 1000) and abs(out.sum() - 1) < 1e-4
