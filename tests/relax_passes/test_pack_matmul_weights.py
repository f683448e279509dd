"""PackMatmulWeights: few-row matmuls against a constant weight read it packed in column
panels (IR), match numpy through relax.build + VM (ragged panels, transposed weights, decode
shapes, fused epilogues), and the matmuls it must not touch are left alone."""

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import relax, tir
from ember.ir import Op
from ember.relax import op as R
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform.pack_matmul_weights import MAX_ROWS, PackMatmulWeights, pack_panels
from relax_fusion_builders import dataflow_function

RNG = np.random.default_rng(0)


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, Op)]


def _constant_shapes(mod):
    shapes = []
    for blk in mod["main"].body.blocks:
        for b in blk.bindings:
            for a in getattr(b.value, "args", ()):
                for c in (a.fields if isinstance(a, relax.Tuple) else (a,)):
                    if isinstance(c, relax.Constant):
                        shapes.append(c.data.shape)
    return shapes


def matmul_module(x_shape, w, transposed=False, epilogue=False, extra_use=False):
    """main(x) = x @ W (``transposed``: x @ permute_dims(W), W given as (N, K)); ``epilogue``:
    + 1 then relu; ``extra_use``: the transpose is also returned."""
    x = relax.Var("x", TensorStructInfo(list(x_shape), "float32"))

    def body(bb, x):
        rhs = bb.emit(R.permute_dims(relax.const(w))) if transposed else relax.const(w)
        y = bb.emit(R.matmul(x, rhs))
        if epilogue:
            y = bb.emit(R.nn.relu(bb.emit(R.add(y, relax.const(np.float32(1))))))
        return bb.emit(relax.Tuple([y, rhs])) if extra_use else y

    return dataflow_function([x], body)


def _run(mod, x):
    exe = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(exe, ember.cpu())["main"](ember.nd.array(x))
    return out[0].numpy() if isinstance(out, (tuple, list)) else out.numpy()


def test_panels_hold_the_weight_column_by_column():
    w = RNG.standard_normal((5, 100)).astype("float32")
    wp = pack_panels(w, 48)
    assert wp.shape == (3, 5, 48)
    j = np.arange(100)
    np.testing.assert_array_equal(wp[j // 48, :, j % 48].T, w)
    assert not wp[2, :, 100 - 96:].any()  # the ragged panel is padded with zeros


def test_a_constant_weight_is_packed_and_a_used_transpose_goes():
    w = RNG.standard_normal((6, 24)).astype("float32")  # (N, K), read through a transpose
    mod = PackMatmulWeights("llvm")(matmul_module((8, 24), w, transposed=True))
    relax.analysis.check_well_formed(mod)
    assert _ops(mod) == ["relax.call_tir"]  # no transpose, no matmul op left
    (shape,) = _constant_shapes(mod)
    assert shape[1:] == (24, shape[2]) and shape[0] * shape[2] >= 6
    kernels = [f for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]
    assert len(kernels) == 1 and kernels[0].attrs["op_pattern"] == 4


@pytest.mark.parametrize("x_shape,n,transposed", [
    ((1, 24), 100, False),  # one row, a ragged last panel
    ((8, 24), 96, False),  # 8 rows: the wide 8 x 48 tile
    ((8, 1, 40), 48, False),  # a decode step's (batch, 1, K)
    ((3, 24), 70, True),  # x @ w.T with w (N, K)
    ((MAX_ROWS - 1, 16), 33, True),
])
def test_packed_matmuls_match_numpy(x_shape, n, transposed):
    k = x_shape[-1]
    w = RNG.standard_normal((n, k) if transposed else (k, n)).astype("float32")
    x = RNG.standard_normal(x_shape).astype("float32")
    mod = relax.get_pipeline("zero", target="llvm", blocked_layout=True)(matmul_module(x_shape, w, transposed))
    assert "matmul" in [gv.name_hint for gv in mod.functions if isinstance(mod[gv], tir.PrimFunc)][0]
    got = _run(mod, x)
    np.testing.assert_allclose(got, x @ (w.T if transposed else w), rtol=1e-5, atol=1e-5)


def test_the_epilogue_fuses_into_the_packed_kernel():
    w = RNG.standard_normal((32, 80)).astype("float32")
    x = RNG.standard_normal((4, 32)).astype("float32")
    mod = relax.get_pipeline("zero", target="llvm", blocked_layout=True)(matmul_module((4, 32), w, epilogue=True))
    assert len([f for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]) == 1
    np.testing.assert_allclose(_run(mod, x), np.maximum(x @ w + 1, 0), rtol=1e-5, atol=1e-5)


def test_many_rows_and_shared_transposes_are_left_alone(caplog):
    w = RNG.standard_normal((16, 24)).astype("float32")
    with caplog.at_level(logging.DEBUG, logger="ember.relax.pack_matmul_weights"):
        many = PackMatmulWeights("llvm")(matmul_module((MAX_ROWS, 24), w.T.copy()))
        shared = PackMatmulWeights("llvm")(matmul_module((2, 24), w, transposed=True, extra_use=True))
    assert "relax.matmul" in _ops(many) and "relax.matmul" in _ops(shared)
    assert "relax.permute_dims" in _ops(shared)
    assert f"{MAX_ROWS} rows: the kernel packs per call itself" in caplog.text
    assert "its transpose has other uses" in caplog.text
    x = RNG.standard_normal((2, 24)).astype("float32")
    np.testing.assert_allclose(_run(relax.get_pipeline("zero")(shared), x), x @ w.T, rtol=1e-5, atol=1e-5)


def test_gpu_targets_are_left_alone():
    w = RNG.standard_normal((24, 16)).astype("float32")
    assert "relax.matmul" in _ops(PackMatmulWeights("cuda")(matmul_module((2, 24), w)))


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, MAX_ROWS - 1), k=st.integers(1, 40), n=st.integers(1, 130))
def test_property_packed_matmul_computes_x_at_w(rows, k, n):
    w = RNG.standard_normal((k, n)).astype("float32")
    x = RNG.standard_normal((rows, k)).astype("float32")
    mod = relax.get_pipeline("zero", target="llvm", blocked_layout=True)(matmul_module((rows, k), w))
    np.testing.assert_allclose(_run(mod, x), x @ w, rtol=1e-4, atol=1e-4)


def test_a_tied_weight_is_not_copied(caplog):
    w = relax.const(RNG.standard_normal((16, 24)).astype("float32"))  # (N, K), also gathered from
    x = relax.Var("x", TensorStructInfo([2, 24], "float32"))
    mod = dataflow_function([x], lambda bb, x: bb.emit(relax.Tuple([
        bb.emit(R.matmul(x, bb.emit(R.permute_dims(w)))), bb.emit(R.take(w, relax.const(np.array([1], "int64")), axis=0))])))
    with caplog.at_level(logging.DEBUG, logger="ember.relax.pack_matmul_weights"):
        out = PackMatmulWeights("llvm")(mod)
    assert "relax.matmul" in _ops(out) and "used elsewhere too" in caplog.text
