"""TVM-parity ops: collapse_sum_to/like, layout_transform, nn.cross_entropy_with_logits —
struct-info inference, error messages, and legalised kernels checked against numpy."""

import numpy as np
import pytest

from ember import relax, tir
from ember.error import TVMError
from ember.relax import reference
from ember.relax.transform import LegalizeOps


def _var(name, shape, dtype="float32"):
    return relax.Var(name, relax.TensorStructInfo(shape, dtype))


def _run_legalized(build, *arrays):
    params = [_var(f"a{i}", a.shape, str(a.dtype)) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(build(*params))
        bb.emit_func_output(out)
    legal = LegalizeOps()(bb.get())
    text = legal["main"].script()
    assert "R.call_tir" in text
    relax.analysis.check_well_formed(legal)
    res = reference.run(legal, *arrays)
    return np.asarray(res.numpy() if hasattr(res, "numpy") else res)


def _collapse_numpy(x, shape):
    lead = x.ndim - len(shape)
    out = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(k for k, t in enumerate(shape) if t == 1 and out.shape[k] != 1)
    return out.sum(axis=axes, keepdims=True) if axes else out


@pytest.mark.parametrize("shape,target", [((2, 3, 4), (3, 4)), ((2, 3, 4), (1, 4)), ((2, 3, 4), (3, 1)),
                                          ((2, 3, 4), (2, 3, 4)), ((3, 4), (4,)), ((2, 1, 4), (1, 1, 4))])
def test_collapse_sum_to_matches_numpy(shape, target):
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    got = _run_legalized(lambda a: relax.op.collapse_sum_to(a, target), x)
    np.testing.assert_allclose(got, _collapse_numpy(x, target), rtol=1e-5, atol=1e-5)


def test_collapse_sum_like_matches_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3, 4)).astype("float32")
    y = np.zeros((3, 1), "float32")
    got = _run_legalized(relax.op.collapse_sum_like, x, y)
    np.testing.assert_allclose(got, _collapse_numpy(x, (3, 1)), rtol=1e-5, atol=1e-5)


def test_collapse_sum_inference_and_errors():
    bb = relax.BlockBuilder()
    x = _var("x", (2, 3, 4))
    assert bb.normalize(relax.op.collapse_sum_to(x, (3, 4))).struct_info.ndim == 2
    s = relax.Var("s", relax.ShapeStructInfo(ndim=2))
    out = bb.normalize(relax.op.collapse_sum_to(x, s)).struct_info
    assert out.shape is s
    with pytest.raises(TVMError, match=r"relax.collapse_sum_to: cannot collapse shape \(2, 3, 4\) to \(4, 4\)"):
        bb.normalize(relax.op.collapse_sum_to(x, (4, 4)))
    with pytest.raises(TVMError, match="relax.collapse_sum_like: collapse_target must be a Tensor"):
        bb.normalize(relax.op.collapse_sum_like(x, relax.Var("t", relax.ShapeStructInfo((3, 4)))))
    with pytest.raises(TVMError, match="relax.collapse_sum_to: shape must be a Shape"):
        bb.normalize(relax.op.collapse_sum_to(x, x))
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    with pytest.raises(TVMError, match="cannot collapse"):
        bb.normalize(relax.op.collapse_sum_to(_var("z", (3, a, 5)), (3, b, 5)))


@pytest.mark.parametrize("fn,shape,pad", [
    (lambda a, b, c: (a, c, b), (2, 3, 4), None),
    (lambda a, b, c: (a, b // 2, c, b % 2), (2, 4, 3), None),
    (lambda a, b, c: (a, c, b // 3, b % 3), (2, 5, 3), 2.0),
    (lambda a, b: (a * 5 + b,), (3, 5), None),
])
def test_layout_transform_matches_numpy(fn, shape, pad):
    x = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
    got = _run_legalized(lambda a: relax.op.layout_transform(a, fn, pad_value=pad), x)
    want = np.full(got.shape, 0.0 if pad is None else pad, "float32")
    for idx in np.ndindex(*shape):
        want[tuple(int(v) for v in fn(*idx))] = x[idx]
    np.testing.assert_array_equal(got, want)


def test_layout_transform_inference_and_errors():
    bb = relax.BlockBuilder()
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    sinfo = bb.normalize(relax.op.layout_transform(_var("x", (a, b)), lambda i, j: (i, j // 3, j % 3))).struct_info
    assert sinfo.ndim == 3 and int(sinfo.shape.values[2]) == 3
    with pytest.raises(TVMError, match="relax.layout_transform: index_map takes 2 indices but data has 3 dims"):
        bb.normalize(relax.op.layout_transform(_var("y", (10, 20, 30)), lambda i, j: (j, i)))
    with pytest.raises(TVMError, match="pad_value must have the data dtype int32"):
        bb.normalize(relax.op.layout_transform(_var("z", (4, 4), "int32"), lambda i, j: (j, i), pad_value=2.2))
    with pytest.raises(TypeError, match="index_map must be a callable or tir.IndexMap"):
        relax.op.layout_transform(_var("w", (4, 4)), "NCHW")


def test_collapse_sum_prints_and_parses():
    from ember.ir import assert_structural_equal
    from ember.script import from_source
    from ember.script import ir as I
    from ember.script import relax as R
    from ember.script import tir as T

    x, y = _var("x", (2, 3, 4)), _var("y", (3, 1))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        a = bb.emit(relax.op.collapse_sum_to(x, (3, 4)))
        b = bb.emit(relax.op.collapse_sum_like(x, y))
        bb.emit_func_output(relax.Tuple([a, b]))
    mod = bb.get()
    text = mod.script()
    assert "R.collapse_sum_to(x, R.shape([3, 4]))" in text and "R.collapse_sum_like(x, y)" in text
    assert_structural_equal(mod, from_source(text, {"R": R, "I": I, "T": T}))


@pytest.mark.parametrize("shape", [(4,), (3, 5)])
def test_cross_entropy_with_logits_matches_numpy(shape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype("float32")
    y = rng.random(shape).astype("float32")
    got = _run_legalized(relax.op.nn.cross_entropy_with_logits, x, y)
    want = -(x * y).sum() / (shape[0] if len(shape) == 2 else 1)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_cross_entropy_with_logits_errors():
    bb = relax.BlockBuilder()
    x = _var("x", (2, 3))
    assert bb.normalize(relax.op.nn.cross_entropy_with_logits(x, _var("y", (2, 3)))).struct_info.ndim == 0
    with pytest.raises(TVMError, match="predictions must be 1-D or 2-D, got 3 dims"):
        bb.normalize(relax.op.nn.cross_entropy_with_logits(_var("z", (2, 3, 4)), x))
    with pytest.raises(TVMError, match=r"predictions shape \(2, 3\) and labels shape \(2, 4\) differ"):
        bb.normalize(relax.op.nn.cross_entropy_with_logits(x, _var("w", (2, 4))))
    with pytest.raises(TVMError, match="labels must be a Tensor"):
        bb.normalize(relax.op.nn.cross_entropy_with_logits(x, relax.Var("s", relax.ShapeStructInfo((2, 3)))))
