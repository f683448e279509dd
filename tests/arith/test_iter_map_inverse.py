"""inverse_affine_iter_map: the inputs recovered from a detected iterator map."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import arith, ir, tir
from ember.arith import evaluate


def _iters(*extents):
    vs = [tir.Var(f"l{i}", "int32") for i in range(len(extents))]
    return vs, {v: ir.Range(0, e) for v, e in zip(vs, extents)}


def _check_round_trip(indices, vs, dom):
    found = arith.detect_iter_map(indices, dom, check_level="bijective")
    assert found.indices, found.errors
    outs = [tir.Var(f"o{i}", "int32") for i in range(len(indices))]
    inverse = arith.inverse_affine_iter_map(found.indices, outs)
    for point in itertools.product(*(range(dom[v].extent.value) for v in vs)):
        env = dict(zip(vs, point))
        out_env = {o: evaluate(e, env) for o, e in zip(outs, indices)}
        assert all(evaluate(inverse[v], out_env) == env[v] for v in vs), point


def test_split_and_fuse_round_trip():
    (l0, l1), dom = _iters(16, 8)
    _check_round_trip([(l0 % 4) * 4 + l1 % 4, l0 // 4, l1 // 4], [l0, l1], dom)


def test_constant_index_is_left_out():
    (l0, l1), dom = _iters(8, 8)
    outs = [tir.Var(f"o{i}", "int32") for i in range(3)]
    found = arith.detect_iter_map([tir.const(0, "int32"), l0, l1], dom)
    inverse = arith.inverse_affine_iter_map(found.indices, outs)
    assert set(inverse) == {l0, l1} and inverse[l0] is outs[1]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 4]), st.sampled_from([2, 3]), st.sampled_from([2, 4]))
def test_fused_splits_reproduce_every_point(a, b, c):
    """Split l0 by a, l1 by c, fuse the inner parts (inner of l1 outermost); invert."""
    (l0, l1), dom = _iters(a * b, c * 2)
    fused = (l1 % c) * a + l0 % a
    _check_round_trip([fused, l0 // a, l1 // c], [l0, l1], dom)
