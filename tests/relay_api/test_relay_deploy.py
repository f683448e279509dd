"""The classic deploy flow (relay.build → export → graph_runtime) with an ONNX model."""

import numpy as np
import pytest

import ember as tvm
from ember import relay
from ember.contrib import graph_executor, graph_runtime

from onnx_models import run_onnxruntime, small_cnn


@pytest.fixture(scope="module")
def built():
    model = small_cnn()
    mod, params = relay.frontend.from_onnx(model, {"data": (1, 3, 8, 8)})
    with relay.build_config(opt_level=3):
        factory = relay.build(mod, "llvm", params=params)
    return model, factory


def test_from_onnx_returns_params():
    mod, params = relay.frontend.from_onnx(small_cnn(), {"data": (1, 3, 8, 8)})
    names = [p.name_hint for p in mod["main"].params]
    assert names[0] == "data" and set(params) == set(names[1:])
    assert all(isinstance(v, tvm.runtime.NDArray) for v in params.values())


def test_seed_style_deploy_flow(built, tmp_path):
    """Export lib/graph/params to files, load them back, run: matches ONNX Runtime."""
    model, factory = built
    graph, lib, params = factory
    lib.export_library(str(tmp_path / "deploy_lib.so"))
    (tmp_path / "deploy_graph.json").write_text(graph)
    (tmp_path / "deploy_param.params").write_bytes(relay.save_param_dict(params))

    loaded_json = (tmp_path / "deploy_graph.json").read_text()
    loaded_lib = tvm.runtime.load_module(str(tmp_path / "deploy_lib.so"))
    loaded_params = bytearray((tmp_path / "deploy_param.params").read_bytes())
    module = graph_runtime.create(loaded_json, loaded_lib, tvm.cpu())
    module.load_params(loaded_params)
    x = np.random.default_rng(0).random((1, 3, 8, 8), dtype="float32")
    module.set_input("data", tvm.nd.array(x))
    module.set_input(**params)  # the parameters bound at build time are accepted unchanged
    module.run()
    timer = module.module.time_evaluator("run", tvm.cpu(0), number=1, repeat=2)
    assert len(timer().results) == 2
    assert module.get_num_outputs() == 1
    np.testing.assert_allclose(module.get_output(0).asnumpy(), run_onnxruntime(model, {"data": x})[0],
                               rtol=1e-5, atol=1e-6)


def test_factory_default_and_loaded_default(built, tmp_path):
    model, factory = built
    x = np.random.default_rng(1).random((1, 3, 8, 8), dtype="float32")
    expected = run_onnxruntime(model, {"data": x})[0]
    gmod = graph_executor.GraphModule(factory["default"](tvm.cpu(0)))
    gmod.set_input("data", x)
    gmod.run()
    np.testing.assert_allclose(gmod.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)
    factory.export_library(str(tmp_path / "net.so"))
    loaded = tvm.runtime.load_module(str(tmp_path / "net.so"))
    gmod = graph_executor.GraphModule(loaded["default"](tvm.cpu()))
    gmod.run(data=x)
    out = tvm.nd.empty((1, 5), "float32")
    gmod.get_output(0, out)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert factory.get_graph_json() == factory.graph_json and factory.get_lib() is factory.lib
    assert set(factory.get_params()) == set(factory.params)


def test_param_dict_round_trip():
    params = {"w": np.arange(6, dtype="float32").reshape(2, 3), "i": np.array([1, 2], "int64")}
    loaded = relay.load_param_dict(relay.save_param_dict(params))
    for name, value in params.items():
        np.testing.assert_array_equal(loaded[name].numpy(), value)
    with pytest.raises(ValueError, match="truncated"):
        relay.load_param_dict(relay.save_param_dict(params)[:-4])
    with pytest.raises(TypeError, match="binary mode"):
        relay.load_param_dict("not bytes")


def test_errors_are_clear(built):
    model, factory = built
    gmod = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    with pytest.raises(ValueError, match="'data' were not set"):
        gmod.run()
    with pytest.raises(KeyError, match="no input named 'x'"):
        gmod.set_input("x", np.zeros(3, "float32"))
    with pytest.raises(ValueError, match=r"expected shape \(1, 3, 8, 8\) dtype float32, got shape \(2, 2\)"):
        gmod.set_input("data", np.zeros((2, 2), "float32"))
    name = next(iter(factory.params))
    with pytest.raises(ValueError, match="bound into the library"):
        gmod.set_input(name, factory.params[name].numpy() + 1)
    gmod.set_input(name, factory.params[name])  # the bound value itself is accepted
    with pytest.raises(RuntimeError, match="call run"):
        gmod.get_output(0)
    with pytest.raises(ValueError, match="not parameters of main"):
        mod, params = relay.frontend.from_onnx(model, {"data": (1, 3, 8, 8)})
        relay.build(mod, "llvm", params={"nope": np.zeros(1, "float32")})
    with pytest.raises(ValueError, match="runs on the CPU"):
        graph_executor.GraphModule(factory["default"](tvm.gpu(0)))
    with pytest.raises(ValueError, match="not written by ember"):
        graph_runtime.create('{"nodes": []}', factory.lib, tvm.cpu())


def test_pass_context_names():
    with relay.build_config(opt_level=3) as ctx:
        assert ctx.opt_level == 3
    assert relay.transform.PassContext is tvm.transform.PassContext
