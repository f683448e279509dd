"""LegalizeOps keeps symbolic dims: one kernel per op serves every size (VM at two sizes,
compared with the numpy reference)."""

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.relax import op as R
from ember.relax import reference
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform import LegalizeOps

N = tir.Var("n", "int64")

# name → (builder over params, param shapes with N symbolic, numpy shapes as functions of n)
CASES = {
    "add_broadcast": (lambda x, y: R.add(x, y), [(N, 4), (4,)]),
    "exp": (lambda x: R.exp(x), [(N, 3)]),
    "sum": (lambda x: R.sum(x, axis=[1]), [(N, 3)]),
    "mean_keepdims": (lambda x: R.mean(x, axis=[0], keepdims=True), [(N, 3)]),
    "argmax": (lambda x: R.argmax(x, axis=0), [(N, 3)]),
    "softmax": (lambda x: R.nn.softmax(x, axis=-1), [(N, 5)]),
    "layer_norm": (lambda x, g, b: R.nn.layer_norm(x, g, b, axes=[-1]), [(N, 4), (4,), (4,)]),
    "permute_dims": (lambda x: R.permute_dims(x, [1, 0]), [(N, 3)]),
    "reshape": (lambda x: R.reshape(x, (N * 3,)), [(N, 3)]),
    "flatten": (lambda x: R.flatten(x), [(N, 2, 3)]),
    "expand_dims": (lambda x: R.expand_dims(x, [1]), [(N, 3)]),
    "concat": (lambda x, y: R.concat([x, y], axis=0), [(N, 3), (2, 3)]),
    "take": (lambda x, i: R.take(x, i, axis=0), [(N, 3), (2,)]),
    "matmul_batched": (lambda x, w: R.matmul(x, w), [(N, 2, 3), (3, 4)]),
    "conv2d": (lambda x, w: R.nn.conv2d(x, w, padding=1), [(N, 2, 5, 5), (3, 2, 3, 3)]),
    "max_pool2d": (lambda x: R.nn.max_pool2d(x, 2, 2), [(N, 2, 4, 4)]),
    "where": (lambda c, x, y: R.where(c, x, y), [(N, 3), (N, 3), (3,)]),
    "astype": (lambda x: R.astype(x, "int32"), [(N, 3)]),
    "zeros_like": (lambda x: R.zeros_like(x), [(N, 3)]),
}


def _sinfo(shape, i, name):
    dtype = "bool" if name == "where" and i == 0 else "int64" if name == "take" and i == 1 else "float32"
    return TensorStructInfo(list(shape), dtype)


def _array(shape, n, sinfo, rng):
    dims = [n if d is N else d for d in shape]
    if str(sinfo.dtype) == "bool":
        return rng.random(dims) > 0.5
    if str(sinfo.dtype) == "int64":
        return rng.integers(0, 2, dims).astype("int64")
    return (rng.random(dims) + 0.5).astype("float32")


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbolic_kernel_runs_at_two_sizes(name):
    build, shapes = CASES[name]
    params = [relax.Var(f"a{i}", _sinfo(s, i, name)) for i, s in enumerate(shapes)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(build(*params))
        bb.emit_func_output(out)
    mod = bb.get()
    legal = LegalizeOps()(mod)
    relax.analysis.check_well_formed(legal)
    assert "n" in legal.script()  # the kernel is symbolic, not specialised
    vm = relax.VirtualMachine(relax.build(legal, "llvm"), ember.cpu())
    rng = np.random.default_rng(0)
    for n in (2, 5):
        inputs = [_array(s, n, p.struct_info, rng) for s, p in zip(shapes, params)]
        want = reference.run(mod, *inputs)
        got = vm["main"](*[ember.nd.array(a) for a in inputs]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
