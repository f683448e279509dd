"""High-level Relax ops → get_pipeline("zero") → relax.build → VM (needs LegalizeOps)."""

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.relax import BlockBuilder

legalize_ops = pytest.importorskip("ember.relax.transform.legalize_ops")


def _softmax_mlp():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 16], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([16, 8], "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            a = bb.emit(relax.op.matmul(x, w))
            b = bb.emit(relax.op.nn.relu(a))
            c = bb.emit(relax.op.add(b, relax.const(1.0, "float32")))
            out = bb.emit_output(relax.op.nn.softmax(c, axis=-1))
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize("batch", [1, 7])
def test_high_level_graph_through_zero_and_build(batch):
    assert "LegalizeOps" in [p.info.name for p in relax.get_pipeline("zero").passes]
    exe = relax.build(relax.get_pipeline("zero")(_softmax_mlp()), "llvm")
    vm = relax.VirtualMachine(exe, ember.cpu())
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 16), dtype="float32")
    w = rng.standard_normal((16, 8), dtype="float32")
    c = np.maximum(x @ w, 0) + 1
    ref = np.exp(c - c.max(-1, keepdims=True))
    ref /= ref.sum(-1, keepdims=True)
    np.testing.assert_allclose(vm["main"](x, w).numpy(), ref, rtol=1e-5, atol=1e-6)


def test_build_without_zero_names_the_ops():
    with pytest.raises(ValueError, match=r"relax\.add \(x1\), relax\.matmul \(x1\), relax\.nn\.relu \(x1\), "
                                         r"relax\.nn\.softmax \(x1\)"):
        relax.build(_softmax_mlp(), relax_pipeline=None)


def test_customize_optimization_tutorial_flow():
    """TVMScript module mixing a PyTorch extern (call_dps_packed) with a high-level op."""
    torch = pytest.importorskip("torch")
    from ember.script import ir as I
    from ember.script import relax as R

    @ember.register_func("env.linear", override=True)
    def torch_linear(x, w, b, out):
        x, w, b, out = (torch.from_dlpack(t) for t in (x, w, b, out))
        torch.matmul(x, w.T, out=out)
        torch.add(out, b, out=out)

    @I.ir_module
    class MyModule:
        @R.function
        def main(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((128, 784), "float32"),
                 b: R.Tensor((128,), "float32")):
            with R.dataflow():
                lv0 = R.call_dps_packed("env.linear", (x, w, b), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                lv1 = R.nn.relu(lv0)
                R.output(lv1)
            return lv1

    ex = relax.build(relax.get_pipeline("zero")(MyModule), target="llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    rng = np.random.default_rng(0)
    x, w, b = (rng.random(s, dtype="float32") for s in ((1, 784), (128, 784), (128,)))
    out = vm["main"](ember.nd.array(x), ember.nd.array(w), ember.nd.array(b)).numpy()
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-4)


def test_small_cnn_matches_pytorch():
    torch = pytest.importorskip("torch")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([1, 3, 16, 16], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([8, 3, 3, 3], "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            c = bb.emit(relax.op.nn.conv2d(x, w, padding=1))
            r = bb.emit(relax.op.nn.relu(c))
            p = bb.emit(relax.op.nn.max_pool2d(r, pool_size=2, strides=2))
            f = bb.emit(relax.op.reshape(p, [1, 8 * 8 * 8]))
            out = bb.emit_output(relax.op.nn.softmax(f, axis=-1))
        bb.emit_func_output(out)
    exe = relax.build(relax.get_pipeline("zero")(bb.get()))
    assert exe.memory_plans["main"].storages  # intermediates are planned
    rng = np.random.default_rng(5)
    x_np, w_np = rng.standard_normal((1, 3, 16, 16), dtype="float32"), rng.standard_normal((8, 3, 3, 3), dtype="float32")
    tx, tw = torch.from_numpy(x_np), torch.from_numpy(w_np)
    ref = torch.softmax(torch.nn.functional.max_pool2d(torch.relu(torch.nn.functional.conv2d(tx, tw, padding=1)), 2)
                        .reshape(1, -1), -1).numpy()
    got = relax.VirtualMachine(exe, ember.cpu())["main"](x_np, w_np).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)
