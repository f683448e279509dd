"""meta_schedule.testing.te_workload: the standard workloads compute what numpy does."""

import numpy as np

import ember
from ember import te
from ember.meta_schedule.testing import te_workload


def _run(tensors, *arrays):
    func = te.create_prim_func(list(tensors))
    out = tensors[-1]
    result = ember.nd.array(np.zeros([int(s) for s in out.shape], str(out.dtype)))
    ember.build(func, target="llvm")(*[ember.nd.array(a) for a in arrays], result)
    return result.numpy()


def test_matmul_and_relu():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 5)).astype("float32"), rng.standard_normal((5, 6)).astype("float32")
    np.testing.assert_allclose(_run(te_workload.matmul(8, 6, 5), a, b), a @ b, rtol=1e-5)
    np.testing.assert_allclose(_run(te_workload.matmul_relu(8, 6, 5), a, b), np.maximum(a @ b, 0), rtol=1e-5)


def test_batch_matmul_nkkm():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 4, 3)).astype("float32"), rng.standard_normal((2, 3, 5)).astype("float32")
    np.testing.assert_allclose(_run(te_workload.batch_matmul_nkkm(2, 4, 5, 3), x, y), x @ y, rtol=1e-5)


def test_conv2d_nhwc_padded_strided():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 7, 7, 3)).astype("float32")
    w = rng.standard_normal((3, 3, 3, 4)).astype("float32")
    got = _run(te_workload.conv2d_nhwc(1, 7, 7, 3, 4, 3, stride=2, padding=1), x, w)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((1, 4, 4, 4), "float32")
    for oh in range(4):
        for ow in range(4):
            patch = xp[0, oh * 2:oh * 2 + 3, ow * 2:ow * 2 + 3, :]
            want[0, oh, ow] = np.tensordot(patch, w, axes=3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv2d_nhwc_grouped():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 4, 4, 4)).astype("float32")
    w = rng.standard_normal((1, 1, 2, 6)).astype("float32")  # 2 groups: 2 in, 3 out channels each
    got = _run(te_workload.conv2d_nhwc(1, 4, 4, 4, 6, 1, groups=2), x, w)
    want = np.concatenate([x[..., :2] @ w[0, 0, :, :3], x[..., 2:] @ w[0, 0, :, 3:]], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
