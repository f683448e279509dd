"""subspace_divide: bindings split into outer and inner parts (for blockize)."""

from __future__ import annotations

from ember import tir
from ember.arith import evaluate, normalize_iter_map_to_expr, subspace_divide
from ember.ir import Range

i, j, k, f = (tir.Var(c) for c in ("i", "j", "k", "f"))


def _parts(res):
    return [(normalize_iter_map_to_expr(o.source), o.extent, normalize_iter_map_to_expr(n.source), n.extent)
            for o, n in res[:-1]]


def test_fused_binding_divides_into_outer_and_inner():
    iters = {i: Range(0, 16), j: Range(0, 8), k: Range(0, 4)}
    res = subspace_divide([i * 8 + j, k], iters, [j, k])
    assert len(res) == 3
    (o0, e0, n0, m0), (o1, e1, n1, m1) = _parts(res)
    assert o0 is i and e0.value == 16 and n0 is j and m0.value == 8
    assert o1.value == 0 and e1.value == 1 and n1 is k and m1.value == 4
    assert res[-1][0].extent.value == 1 and res[-1][1].extent.value == 1


def test_division_reconstructs_binding():
    iters = {i: Range(0, 4), j: Range(0, 3), k: Range(0, 2)}
    binding = i * 6 + j * 2 + k
    res = subspace_divide([binding], iters, [j, k])
    ((outer, _, inner, extent),) = _parts(res)
    for a in range(4):
        for b in range(3):
            for c in range(2):
                env = {i: a, j: b, k: c}
                assert evaluate(outer, env) * extent.value + evaluate(inner, env) == evaluate(binding, env)


def test_inner_iterators_must_be_low_order():
    iters = {i: Range(0, 16), j: Range(0, 8)}
    assert subspace_divide([j * 16 + i], iters, [j]) == []


def test_split_of_a_single_loop():
    iters = {f: Range(0, 64)}
    res = subspace_divide([f], iters, [])
    (o, e, n, m), = _parts(res)
    assert o is f and e.value == 64 and m.value == 1


def test_predicate_goes_to_its_side():
    iters = {i: Range(0, 16), j: Range(0, 8)}
    res = subspace_divide([i, j], iters, [j], predicate=j < 6)
    assert res and res[-1][0].extent.value == 1
    assert res[-1][1].extent is not None and not isinstance(res[-1][1].extent, tir.IntImm)


def test_not_affine_gives_empty():
    iters = {i: Range(0, 4), j: Range(0, 4)}
    assert subspace_divide([i * j], iters, [j]) == []
