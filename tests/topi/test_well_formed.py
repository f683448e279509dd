"""Every topi PrimFunc is well-formed TIR and survives a TVMScript print/parse round trip."""

import pytest

from ember import te, topi
from ember.ir import assert_structural_equal
from ember.tir.analysis import verify_well_formed

X = te.placeholder((1, 3, 6, 6), name="X")
W = te.placeholder((4, 3, 3, 3), name="W")
V = te.placeholder((3, 6), name="V")
I = te.placeholder((3, 6), name="I", dtype="int32")
N = te.var("n")
S = te.placeholder((N, 6), name="S")

CATALOG = {
    "conv2d": ([X, W], lambda: topi.nn.conv2d(X, W, 2, 1, 1)),
    "group_conv2d": ([X, W], lambda: topi.nn.conv2d(X, te.placeholder((3, 1, 3, 3), name="W"), 1, 1, 1, groups=3)),
    "avg_pool": ([X], lambda: topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (1, 1, 1, 1), "avg", False, "NCHW", False)),
    "adaptive_max": ([X], lambda: topi.nn.adaptive_pool(X, (4, 4), "max")),
    "argmax": ([V], lambda: topi.argmax(V, 1)),
    "softmax": ([V], lambda: topi.nn.softmax(V)),
    "log_softmax_symbolic": ([S], lambda: topi.nn.log_softmax(S)),
    "scatter_add": ([V, I], lambda: topi.scatter_elements(V, I, V, 1, "add")),
    "resize": ([X], lambda: topi.image.resize2d(X, None, (3, 9))),
    "concat": ([V], lambda: topi.concatenate([V, V], 1)),
    "cumsum": ([V], lambda: topi.cumsum(V, 1)),
    "layer_norm": ([V], lambda: topi.nn.layer_norm(V, None, None, [1])),
    "dense": ([V], lambda: topi.nn.dense(V, V)),
    "take": ([V, I], lambda: topi.take(V, I, axis=1)),
    "strided_slice": ([V], lambda: topi.strided_slice(V, [0, 1], [3, 5], [1, 2])),
    "reshape_transpose": ([V], lambda: topi.transpose(topi.reshape(V, (2, 9)))),
}


def _func(name):
    ins, make = CATALOG[name]
    out = make()
    extra = [t for t in out.op.input_tensors if isinstance(t.op, te.PlaceholderOp) and t not in ins]
    return te.create_prim_func(ins + extra + [out])


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_well_formed(name):
    verify_well_formed(_func(name))


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_script_round_trip(name):
    try:
        from ember.script import from_source
    except ImportError:
        pytest.skip("the TVMScript parser is not available")
    func = _func(name)
    assert_structural_equal(from_source(func.script()), func)
