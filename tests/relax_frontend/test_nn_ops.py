"""relax.frontend.nn: operators and modules traced, then evaluated against numpy / PyTorch
with the Relax reference interpreter."""

import numpy as np
import pytest

from ember import relax
from ember.relax.frontend import nn

RNG = np.random.default_rng(0)


def _rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _run_fn(fn, *arrays):
    """Trace ``fn`` over tensors shaped like ``arrays`` and evaluate it on them."""
    names = [f"a{i}" for i in range(len(arrays))]

    class Fn(nn.Module):
        pass

    def forward(self, *args):
        return fn(*args)

    Fn.forward = _with_arg_names(forward, names)
    spec = {n: nn.spec.Tensor(a.shape, str(a.dtype)) for n, a in zip(names, arrays)}
    mod, _ = Fn().export_tvm(spec={"forward": spec})
    return relax.reference.run(mod, *arrays, func_name="forward")


def _with_arg_names(forward, names):
    src = f"def forward(self, {', '.join(names)}):\n    return impl(self, {', '.join(names)})\n"
    scope = {"impl": forward}
    exec(src, scope)  # noqa: S102 - a signature with the argument names the spec uses
    return scope["forward"]


def _run_module(module, *arrays):
    names = [f"a{i}" for i in range(len(arrays))]
    spec = {n: nn.spec.Tensor(a.shape, str(a.dtype)) for n, a in zip(names, arrays)}

    class Wrapper(nn.Module):
        def __init__(self):
            self.m = module

    Wrapper.forward = _with_arg_names(lambda self, *xs: self.m(*xs), names)
    mod, params = Wrapper().export_tvm(spec={"forward": spec})
    values = [param_value for _, param_value in _param_values(module)]
    assert len(values) == len(params)
    return relax.reference.run(mod, *arrays, *values, func_name="forward")


def _param_values(module):
    out = []
    for name, p in module.named_parameters():
        if p.data is None:
            p.data = _rand(*p.shape, dtype=p.dtype)
        out.append((name, p.numpy()))
    return out


# -- Tensor operators and nn.op -------------------------------------------------------------
@pytest.mark.parametrize("fn, ref", [
    (lambda a, b: a + b, lambda a, b: a + b),
    (lambda a, b: a - b, lambda a, b: a - b),
    (lambda a, b: a * b, lambda a, b: a * b),
    (lambda a, b: a / b, lambda a, b: a / b),
    (lambda a, b: nn.op.maximum(a, b), np.maximum),
    (lambda a, b: nn.op.where(a < b, a, b), lambda a, b: np.where(a < b, a, b)),
    (lambda a, b: (a >= b).astype("float32"), lambda a, b: (a >= b).astype("float32")),
])
def test_binary_operators(fn, ref):
    a, b = _rand(3, 4), _rand(3, 4) + 3
    np.testing.assert_allclose(_run_fn(fn, a, b), ref(a, b), rtol=1e-6)


def test_scalars_take_the_tensor_dtype():
    a = _rand(3, 4)
    out = _run_fn(lambda x: (2 * x - 1.0) / 4 + 0.5, a)
    np.testing.assert_allclose(out, (2 * a - 1) / 4 + 0.5, rtol=1e-6)
    np.testing.assert_allclose(_run_fn(lambda x: 1 - x, a), 1 - a, rtol=1e-6)
    np.testing.assert_allclose(_run_fn(lambda x: -x, a), -a)


def test_matmul_operator_and_shape_properties():
    seen = {}

    def fn(a, b):
        seen.update(shape=a.shape, ndim=a.ndim, dtype=a.dtype)
        return a @ b

    a, b = _rand(2, 3, 4), _rand(4, 5)
    np.testing.assert_allclose(_run_fn(fn, a, b), a @ b, rtol=1e-5)
    assert seen == {"shape": [2, 3, 4], "ndim": 3, "dtype": "float32"}


@pytest.mark.parametrize("name, ref", [
    ("relu", lambda x: np.maximum(x, 0)),
    ("silu", lambda x: x / (1 + np.exp(-x))),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("tanh", np.tanh),
    ("exp", np.exp),
    ("square", np.square),
])
def test_unary_ops(name, ref):
    a = _rand(4, 5)
    np.testing.assert_allclose(_run_fn(getattr(nn.op, name), a), ref(a), rtol=1e-5, atol=1e-6)


def test_gelu_forms():
    torch = pytest.importorskip("torch")
    a = _rand(4, 5)
    exact = torch.nn.functional.gelu(torch.from_numpy(a)).numpy()
    tanh = torch.nn.functional.gelu(torch.from_numpy(a), approximate="tanh").numpy()
    np.testing.assert_allclose(_run_fn(nn.op.gelu, a), exact, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_run_fn(lambda x: nn.op.gelu(x, approximate="tanh"), a), tanh, rtol=1e-5, atol=1e-6)


def test_softmax_reshape_permute_concat_split():
    a = _rand(2, 3, 4)
    sm = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(_run_fn(nn.op.softmax, a), sm / sm.sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(_run_fn(lambda x: x.reshape(6, 4), a), a.reshape(6, 4))
    np.testing.assert_array_equal(_run_fn(lambda x: nn.op.permute_dims(x, [2, 0, 1]), a), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(_run_fn(lambda x: nn.op.concat([x, x], dim=1), a), np.concatenate([a, a], 1))
    parts = _run_fn(lambda x: nn.op.split(x, 2, axis=2), a)
    np.testing.assert_array_equal(parts[0], a[:, :, :2])
    np.testing.assert_array_equal(parts[1], a[:, :, 2:])


def test_reductions_and_take():
    a = _rand(3, 4)
    np.testing.assert_allclose(_run_fn(lambda x: nn.op.sum(x, axis=1), a), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(_run_fn(lambda x: nn.op.mean(x, axis=0, keepdims=True), a), a.mean(0, keepdims=True),
                               rtol=1e-5)
    idx = np.array([2, 0], dtype="int64")
    np.testing.assert_array_equal(_run_fn(lambda x, i: nn.op.take(x, i, axis=0), a, idx), a[idx])
    np.testing.assert_array_equal(_run_fn(lambda x: nn.op.unsqueeze(x, 0), a), a[None])


def test_op_errors():
    with pytest.raises(RuntimeError, match=r"nn.op.relu: no Relax function is being built"):
        nn.op.relu(nn.Tensor.placeholder((2,), "float32"))
    with pytest.raises(TypeError, match=r"nn.op.add: at least one operand must be an nn.Tensor, got int and int"):
        nn.op.add(1, 2)
    with pytest.raises(TypeError, match=r"nn.op.relu: expected an nn.Tensor, got list"):
        _run_fn(lambda x: nn.op.relu([x]), _rand(2))
    with pytest.raises(ValueError, match=r"nn.op.gelu: approximate must be None or 'tanh', got 'fast'"):
        _run_fn(lambda x: nn.op.gelu(x, approximate="fast"), _rand(2))
    with pytest.raises(TypeError, match=r"nn.op.concat: x must be a non-empty list of nn.Tensor"):
        _run_fn(lambda x: nn.op.concat([], 0), _rand(2))
    with pytest.raises(TypeError, match=r"nn.Tensor: _expr must be a relax expression, got int"):
        nn.Tensor(_expr=3)


# -- modules --------------------------------------------------------------------------------
def test_linear_module():
    m = nn.Linear(5, 3)
    x = _rand(2, 5)
    w, b = (v for _, v in _param_values(m))
    np.testing.assert_allclose(_run_module(m, x), x @ w.T + b, rtol=1e-5, atol=1e-6)
    m2 = nn.Linear(5, 3, bias=False)
    (w2,) = (v for _, v in _param_values(m2))
    np.testing.assert_allclose(_run_module(m2, x), x @ w2.T, rtol=1e-5, atol=1e-6)


def test_conv_modules_match_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    conv = nn.Conv2D(4, 6, 3, stride=2, padding=1, dilation=1, groups=2)
    x = _rand(1, 4, 9, 9)
    w, b = (v for _, v in _param_values(conv))
    ref = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), stride=2, padding=1, groups=2)
    np.testing.assert_allclose(_run_module(conv, x), ref.numpy(), rtol=1e-4, atol=1e-5)
    conv1 = nn.Conv1D(3, 4, 3, padding=2, dilation=2, bias=False)
    x1 = _rand(2, 3, 10)
    (w1,) = (v for _, v in _param_values(conv1))
    ref1 = F.conv1d(torch.from_numpy(x1), torch.from_numpy(w1), padding=2, dilation=2)
    np.testing.assert_allclose(_run_module(conv1, x1), ref1.numpy(), rtol=1e-4, atol=1e-5)


def test_norm_modules_match_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = _rand(2, 6, 5)
    ln = nn.LayerNorm(5)
    w, b = (v for _, v in _param_values(ln))
    ref = F.layer_norm(torch.from_numpy(x), (5,), torch.from_numpy(w), torch.from_numpy(b))
    np.testing.assert_allclose(_run_module(ln, x), ref.numpy(), rtol=1e-4, atol=1e-5)
    gn = nn.GroupNorm(3, 6)
    w, b = (v for _, v in _param_values(gn))
    ref = F.group_norm(torch.from_numpy(x), 3, torch.from_numpy(w), torch.from_numpy(b))
    np.testing.assert_allclose(_run_module(gn, x), ref.numpy(), rtol=1e-4, atol=1e-5)
    rms = nn.RMSNorm(5, bias=False)
    (w,) = (v for _, v in _param_values(rms))
    ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(_run_module(rms, x), ref, rtol=1e-4, atol=1e-5)


def test_embedding_any_rank():
    emb = nn.Embedding(10, 4)
    (table,) = (v for _, v in _param_values(emb))
    ids = np.array([[1, 9, 0], [3, 3, 2]], dtype="int32")
    np.testing.assert_array_equal(_run_module(emb, ids), table[ids])


def test_activation_modules_and_sequential():
    seq = nn.Sequential(nn.Linear(4, 4), nn.SiLU(), nn.Linear(4, 4), nn.GELU(), nn.ReLU())
    x = _rand(3, 4)
    w1, b1, w2, b2 = (v for _, v in _param_values(seq))
    h = x @ w1.T + b1
    h = h / (1 + np.exp(-h))
    h = h @ w2.T + b2
    torch = pytest.importorskip("torch")
    ref = np.maximum(torch.nn.functional.gelu(torch.from_numpy(h)).numpy(), 0)
    np.testing.assert_allclose(_run_module(seq, x), ref, rtol=1e-4, atol=1e-5)


def test_tensor_expr_op_emits_call_tir():
    from ember import topi

    a = _rand(3, 4)
    out = _run_fn(lambda x: nn.op.tensor_expr_op(topi.nn.relu, "my_relu", [x]), a)
    np.testing.assert_array_equal(out, np.maximum(a, 0))


def test_chunk_permute_triangles_cumsum():
    a = _rand(2, 4, 4)
    parts = _run_fn(lambda x: nn.op.chunk(x, 2, dim=1), a)
    np.testing.assert_array_equal(parts[1], a[:, 2:])
    np.testing.assert_array_equal(_run_fn(lambda x: nn.op.permute(x, [1, 2, 0]), a), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(_run_fn(lambda x: nn.op.triu(x, 1), a), np.triu(a, 1))
    np.testing.assert_array_equal(_run_fn(nn.op.tril, a), np.tril(a))
    np.testing.assert_allclose(_run_fn(lambda x: nn.op.cumsum(x, axis=2), a), np.cumsum(a, 2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("is_causal", [False, True])
def test_scaled_dot_product_attention_matches_torch(is_causal):
    torch = pytest.importorskip("torch")
    q, k, v = _rand(1, 5, 2, 4), _rand(1, 5, 2, 4), _rand(1, 5, 2, 4)
    out = _run_fn(lambda a, b, c: nn.op.scaled_dot_product_attention(a, b, c, is_causal=is_causal), q, k, v)
    tq, tk, tv = (torch.from_numpy(t).transpose(1, 2) for t in (q, k, v))  # torch: (batch, heads, seq, dim)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=is_causal).transpose(1, 2)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_norms_without_affine_parameters():
    x = _rand(2, 3, 4)
    ln = nn.LayerNorm(4, elementwise_affine=False)
    assert list(ln.parameters()) == []
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(_run_module(ln, x), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    gn = nn.GroupNorm(3, 3, affine=False)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)  # one channel per group
    np.testing.assert_allclose(_run_module(gn, x), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)


def test_pad_and_pools_match_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = _rand(1, 2, 6, 6)
    t = torch.from_numpy(x)
    np.testing.assert_array_equal(_run_fn(lambda a: nn.op.pad(a, [1, 2]), x), F.pad(t, [1, 2]).numpy())
    np.testing.assert_allclose(_run_fn(lambda a: nn.op.max_pool2d(a, 2), x), F.max_pool2d(t, 2).numpy())
    np.testing.assert_allclose(_run_fn(lambda a: nn.op.avg_pool2d(a, 3, stride=1, padding=1), x),
                               F.avg_pool2d(t, 3, stride=1, padding=1, count_include_pad=False).numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match=r"nn.op.pad: pad must hold \(before, after\) pairs for at most 4 axes"):
        _run_fn(lambda a: nn.op.pad(a, [1]), x)
