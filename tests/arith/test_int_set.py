"""IntSet algebra and eval_set over symbolic loop domains."""

from __future__ import annotations

import pytest

from ember import tir
from ember.arith import IntSet, eval_set, intersect, neg_inf, pos_inf, union
from ember.ir import IntImm, Range, structural_equal

i, j, n, m = tir.Var("i"), tir.Var("j"), tir.Var("n"), tir.SizeVar("m", "int32")


def same(a, b) -> bool:
    b = tir.const(b) if isinstance(b, int) else b
    return structural_equal(a, b, map_free_vars=False)


def test_constructors_and_queries():
    s = IntSet.interval(0, 7)
    assert s.min_value.value == 0 and s.max_value.value == 7
    assert not s.is_single_point() and s.has_lower_bound() and s.has_upper_bound()
    p = IntSet.single_point(n)
    assert p.is_single_point() and p.point_value() is n
    e = IntSet.everything()
    assert e.is_everything() and e.min_value is neg_inf() and e.max_value is pos_inf()
    assert IntSet.nothing().is_nothing()
    assert IntSet.interval(3, 1).is_nothing()


def test_point_value_of_interval_is_an_error():
    with pytest.raises(ValueError, match="point_value: the set .* is not a single point"):
        IntSet.interval(0, 3).point_value()


def test_union_and_intersect():
    a, b = IntSet.interval(0, 7), IntSet.interval(4, 12)
    u, x = union([a, b]), intersect([a, b])
    assert same(u.min_value, 0) and same(u.max_value, 12)
    assert same(x.min_value, 4) and same(x.max_value, 7)
    assert a.union(IntSet.everything()).is_everything()
    assert same(a.intersect(IntSet.everything()).max_value, 7)
    assert union([IntSet.nothing(), a]).max_value.value == 7
    sym = union([IntSet.interval(0, n), IntSet.interval(0, n + 1)])
    assert same(sym.max_value, n + 1)


def test_cover_range():
    r = IntSet.interval(2, n + 5).cover_range(Range(0, 10))
    assert same(r.min, 2) and same(r.extent, n + 4)
    r = IntSet.everything().cover_range(Range(0, 10))
    assert same(r.min, 0) and same(r.extent, 10)


@pytest.mark.parametrize("expr, dom, lo, hi", [
    (i * 4 + 3, {i: Range(0, n)}, 3, n * 4 - 1),
    (i + j, {i: Range(0, 4), j: Range(0, 8)}, 0, 10),
    (i - j, {i: Range(0, 4), j: Range(0, 8)}, -7, 3),
    (i * -2, {i: Range(0, 4)}, -6, 0),
    (i // 4, {i: Range(0, 16)}, 0, 3),
    (i % 4, {i: Range(0, 16)}, 0, 3),
    (i % 8, {i: Range(8, 4)}, 0, 3),
    (tir.min(i, 5), {i: Range(0, 16)}, 0, 5),
    (tir.max(i, j), {i: Range(0, 4), j: Range(2, 8)}, 2, 9),
    (tir.Select(i < 2, i, j), {i: Range(0, 4), j: Range(10, 2)}, 0, 11),
    (i * j, {i: Range(0, 4), j: Range(-2, 4)}, -6, 3),
    (n + i, {i: Range(0, 4)}, n, n + 3),
    (i * m + j, {i: Range(0, n), j: Range(0, m)}, 0, n * m - 1),
    (i * tir.Var("w"), {i: Range(0, 4)}, None, None),
])
def test_eval_set(expr, dom, lo, hi):
    s = eval_set(expr, dom)
    if lo is None:
        assert s.is_everything()
        return
    assert same(s.min_value, lo), s
    if hi is not None:
        assert same(s.max_value, hi), s


def test_eval_set_accepts_intsets_and_lists():
    s = eval_set([i + 1, i * 2], {i: IntSet.interval(0, 3)})
    assert same(s[0].max_value, 4) and same(s[1].max_value, 6)


def test_eval_set_opaque_use_is_everything():
    s = eval_set(tir.call_extern("int32", "f", i), {i: Range(0, 4)})
    assert s.is_everything()
    p = eval_set(tir.call_extern("int32", "f", n), {i: Range(0, 4)})
    assert p.is_single_point()


def test_eval_set_unbounded_domain():
    s = eval_set(i + 1, {i: IntSet(IntImm(i.dtype, 0), pos_inf())})
    assert same(s.min_value, 1) and s.max_value is pos_inf()
    s = eval_set(0 - i, {i: IntSet(IntImm(i.dtype, 0), pos_inf())})
    assert s.min_value is neg_inf() and same(s.max_value, 0)


def test_eval_set_rejects_bad_domains():
    with pytest.raises(TypeError, match=r"eval_set: dom_map\[i\] must be an IntSet or a Range, got int"):
        eval_set(i, {i: 4})
    with pytest.raises(TypeError, match="eval_set: dom_map keys must be Vars, got str"):
        eval_set(i, {"i": Range(0, 4)})
