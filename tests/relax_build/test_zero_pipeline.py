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
        relax.build(_softmax_mlp())
