"""normalize_to_iter_sum: unfused iterator splits ordered by scale, the rest in the base."""

import itertools

from ember import tir
from ember.arith import evaluate, normalize_iter_map_to_expr, normalize_to_iter_sum
from ember.ir import Range


def _value(s, env):
    total = evaluate(s.base, env)
    for a in s.args:
        total += evaluate(normalize_iter_map_to_expr(a), env)
    return total


def test_terms_sorted_by_scale_and_merged():
    x, y, z = (tir.Var(n, "int32") for n in "xyz")
    dom = {x: Range(0, 8), y: Range(0, 3), z: Range(0, 4)}
    index = z * 2 + y * 6 + (x // 4) * 4 + x % 4 + 5
    s = normalize_to_iter_sum(index, dom)
    assert [a.scale.value for a in s.args] == [6, 2, 1]
    assert s.args[2].extent.value == 8  # x // 4 * 4 + x % 4 merged back into x
    for point in itertools.product(range(8), range(3), range(4)):
        env = dict(zip((x, y, z), point))
        assert _value(s, env) == evaluate(index, env)


def test_non_affine_terms_stay_in_the_base():
    x, a = tir.Var("x", "int32"), tir.Var("a", "int32")
    index = tir.max(x, a) + x * 3
    s = normalize_to_iter_sum(index, {x: Range(0, 5)})
    assert len(s.args) == 1 and s.args[0].scale.value == 3
    for xv, av in itertools.product(range(5), range(-2, 3)):
        env = {x: xv, a: av}
        assert _value(s, env) == evaluate(index, env)


def test_division_rounds_the_extent_up():
    x = tir.Var("x", "int64")
    s = normalize_to_iter_sum(x // 5, {x: Range(0, 4096)})
    (split,) = s.args
    assert (split.lower_factor.value, split.extent.value) == (5, 820)
