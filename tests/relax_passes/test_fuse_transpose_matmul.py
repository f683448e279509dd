"""FuseTransposeMatmul: ``matmul(x, permute_dims(w))`` becomes one ``NT_matmul`` kernel
(IR), the "zero" pipeline run after it fuses the Linear epilogue into that kernel, numerics
match numpy through ``relax.build`` + VM, and transposes it must not touch are left alone."""

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import relax, tir
from ember.ir import Op
from ember.relax import op as R
from ember.relax import reference
from ember.relax.frontend import nn
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform import FuseTransposeMatmul
from relax_fusion_builders import dataflow_function

RNG = np.random.default_rng(0)


class MLP(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(24, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def mlp_module(batch):
    mod, spec = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((batch, 24), "float32")}})
    return mod, spec


def _ops(func):
    return [b.value.op.name for blk in func.body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, Op)]


def _prim_funcs(mod):
    return {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, tir.PrimFunc)}


def _zero(mod):
    """FuseTransposeMatmul, then the "zero" pipeline (whose Normalize/LegalizeOps/... follow)."""
    return relax.get_pipeline("zero")(FuseTransposeMatmul()(mod))


def _run(mod, *args):
    vm = relax.VirtualMachine(relax.build(_zero(mod), target="llvm"), ember.cpu())
    name = "forward" if "forward" in mod else "main"
    return vm[name](*[ember.nd.array(a) for a in args]).numpy()


def linear(x_shape, n=6, out_dtype=None, dtype="float32", axes=None):
    k = x_shape[-1]
    x = relax.Var("x", TensorStructInfo(list(x_shape), dtype))
    w = relax.Var("w", TensorStructInfo([n, k], dtype))
    return dataflow_function([x, w], lambda bb, x, w: bb.emit(R.matmul(x, bb.emit(R.permute_dims(w, axes)),
                                                              out_dtype=out_dtype)))


def test_transpose_of_linear_is_folded_into_nt_matmul():
    mod, _ = mlp_module("n")
    fused = FuseTransposeMatmul()(mod)
    relax.analysis.check_well_formed(fused)
    assert "relax.permute_dims" not in _ops(fused["forward"])
    assert "relax.matmul" not in _ops(fused["forward"])
    kernels = _prim_funcs(fused)
    assert sorted(kernels) == ["NT_matmul", "NT_matmul1"]
    assert all(f.attrs["op_pattern"] == 4 for f in kernels.values())


def test_zero_pipeline_gives_one_fused_kernel_per_linear():
    mod, _ = mlp_module(2)
    lowered = _zero(mod)
    relax.analysis.check_well_formed(lowered)
    names = sorted(_prim_funcs(lowered))
    assert names == ["fused_NT_matmul1_add1", "fused_NT_matmul_add_relu"]
    assert not any("permute" in n or "transpose" in n for n in names)


@pytest.mark.parametrize("batch", [3, "n"])
def test_mlp_numerics_static_and_symbolic(batch):
    mod, spec = mlp_module(batch)
    params = [RNG.standard_normal(s.shape).astype("float32") for _, s in spec]
    x = RNG.standard_normal((3, 24)).astype("float32")
    w1, b1, w2, b2 = params
    want = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    np.testing.assert_allclose(_run(mod, x, *params), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("x_shape", [(12,), (4, 12), (2, 3, 12)])
def test_any_rank_of_x(x_shape):
    mod = linear(x_shape, axes=[1, 0])
    fused = FuseTransposeMatmul()(mod)
    assert _ops(fused["main"]) == ["relax.call_tir"]
    assert fused["main"].body.body.struct_info.shape.values[-1].value == 6
    x = RNG.standard_normal(x_shape).astype("float32")
    w = RNG.standard_normal((6, 12)).astype("float32")
    np.testing.assert_allclose(_run(mod, x, w), x @ w.T, rtol=1e-4, atol=1e-4)


def test_out_dtype_is_kept():
    mod = linear((3, 8), out_dtype="float32", dtype="float16")
    fused = FuseTransposeMatmul()(mod)
    assert str(fused["main"].body.body.struct_info.dtype) == "float32"
    x = RNG.standard_normal((3, 8)).astype("float16")
    w = RNG.standard_normal((6, 8)).astype("float16")
    out = _run(mod, x, w)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, x.astype("float32") @ w.astype("float32").T, rtol=1e-3, atol=1e-3)


def test_transpose_with_other_uses_is_left_alone(caplog):
    x = relax.Var("x", TensorStructInfo([3, 8], "float32"))
    w = relax.Var("w", TensorStructInfo([6, 8], "float32"))

    def body(bb, x, w):
        wt = bb.emit(R.permute_dims(w))
        return bb.emit(R.add(bb.emit(R.matmul(x, wt)), bb.emit(R.sum(wt, axis=[0]))))

    mod = dataflow_function([x, w], body)
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse_transpose_matmul"):
        assert FuseTransposeMatmul()(mod) is mod
    assert "not fused: lv has 2 uses" in caplog.text
    xv, wv = RNG.standard_normal((3, 8)).astype("float32"), RNG.standard_normal((6, 8)).astype("float32")
    np.testing.assert_allclose(_run(mod, xv, wv), xv @ wv.T + wv.T.sum(0), rtol=1e-4, atol=1e-4)


def test_transpose_as_first_operand_or_of_3d_weight_is_left_alone(caplog):
    a = relax.Var("a", TensorStructInfo([8, 3], "float32"))
    b = relax.Var("b", TensorStructInfo([8, 6], "float32"))
    first = dataflow_function([a, b], lambda bb, a, b: bb.emit(R.matmul(bb.emit(R.permute_dims(a)), b)))
    assert FuseTransposeMatmul()(first) is first

    x = relax.Var("x", TensorStructInfo([2, 3, 8], "float32"))
    w = relax.Var("w", TensorStructInfo([2, 6, 8], "float32"))
    batched = dataflow_function([x, w], lambda bb, x, w: bb.emit(R.matmul(x, bb.emit(R.permute_dims(w, [0, 2, 1])))))
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse_transpose_matmul"):
        assert FuseTransposeMatmul()(batched) is batched
    assert "not of a 2-D tensor with its two axes swapped" in caplog.text


def test_module_without_pattern_is_returned_unchanged():
    mod = _zero(mlp_module(2)[0])
    assert FuseTransposeMatmul()(mod) is mod


@settings(max_examples=15, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), m=st.integers(1, 4), k=st.integers(1, 5),
       n=st.integers(1, 5), vector=st.booleans())
def test_property_fused_equals_unfused(batch, m, k, n, vector):
    x_shape = (k,) if vector else (*batch, m, k)
    mod = linear(x_shape, n=n)
    fused = FuseTransposeMatmul()(mod)
    assert _ops(fused["main"]) == ["relax.call_tir"]
    x = RNG.standard_normal(x_shape).astype("float32")
    w = RNG.standard_normal((n, k)).astype("float32")
    np.testing.assert_allclose(reference.run(fused, x, w), x @ w.T, rtol=1e-5, atol=1e-5)
