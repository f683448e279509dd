"""Shared Relax modules for the relax.build tests, built with BlockBuilder + emit_te."""

import numpy as np
import pytest

from ember import relax, tir, topi
from ember.relax import BlockBuilder


def mlp_module(batch=None):
    """main(x[n,16], w1[32,16], b1[32], w2[10,32]) = dense(relu(dense(x, w1) + b1), w2)."""
    n = tir.Var("n", "int64") if batch is None else batch
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 16], "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo([32, 16], "float32"))
    b1 = relax.Var("b1", relax.TensorStructInfo([32], "float32"))
    w2 = relax.Var("w2", relax.TensorStructInfo([10, 32], "float32"))
    with bb.function("main", [x, w1, b1, w2]):
        with bb.dataflow():
            h = bb.emit_te(topi.nn.dense, x, w1)
            h = bb.emit_te(topi.add, h, b1)
            h = bb.emit_te(topi.nn.relu, h)
            out = bb.emit_output(bb.emit_te(topi.nn.dense, h, w2))
        bb.emit_func_output(out)
    return bb.get()


def mlp_reference(x, w1, b1, w2):
    return np.maximum(x @ w1.T + b1, 0) @ w2.T


def mlp_weights(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((32, 16), dtype="float32"), rng.standard_normal(32, dtype="float32"),
            rng.standard_normal((10, 32), dtype="float32"))


def relu_chain_module(length=4, shape=(8, 8), dtype="float32"):
    """main(x) = relu(relu(...relu(x))) with ``length`` kernels."""
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(list(shape), dtype))
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for _ in range(length):
                h = bb.emit_te(topi.nn.relu, h)
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get()


@pytest.fixture(scope="module")
def mlp_exe():
    return relax.build(mlp_module(), "llvm")
