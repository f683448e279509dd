"""The Relax MLP the CUDA VM tests build, its inputs and reference, and the skips."""

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.runtime.cuda_driver import nvrtc_available

needs_nvrtc = pytest.mark.skipif(not nvrtc_available(), reason="NVRTC is not installed (pip install 'ember[cuda]')")
no_gpu = not ember.cuda().exist


def needs_gpu(test):
    return pytest.mark.gpu(pytest.mark.skipif(no_gpu, reason="no CUDA GPU on this machine")(test))


def mlp_module(batch="n", dtype="float32"):
    """x @ w1 + b1 → relu → @ w2 (high-level ops; the batch symbolic when a str)."""
    n = tir.Var(batch, "int64") if isinstance(batch, str) else batch
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((n, 64), dtype))
    w1 = relax.Var("w1", relax.TensorStructInfo((64, 128), dtype))
    b1 = relax.Var("b1", relax.TensorStructInfo((128,), dtype))
    w2 = relax.Var("w2", relax.TensorStructInfo((128, 32), dtype))
    with bb.function("main", [x, w1, b1, w2]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w1), b1)))
            out = bb.emit_output(bb.emit(relax.op.matmul(h, w2)))
        bb.emit_func_output(out)
    return bb.get()


def mlp_inputs(batch=24, dtype="float32"):
    rng = np.random.default_rng(0)
    shapes = [(batch, 64), (64, 128), (128,), (128, 32)]
    return [(rng.standard_normal(s) * 0.5).astype(dtype) for s in shapes]


def mlp_reference(x, w1, b1, w2):
    f = [a.astype("float64") for a in (x, w1, b1, w2)]
    return np.maximum(f[0] @ f[1] + f[2], 0) @ f[3]
