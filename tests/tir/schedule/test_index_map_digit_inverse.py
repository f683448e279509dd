"""IndexMap.inverse of an output that fuses digits of two inputs (``x1 % 2 * 4 + x2 // 32``,
as suggest_index_map writes a layout dimension that crosses buffer dimensions)."""

import itertools

import pytest

from ember.tir.schedule.index_map import IndexMap


def _eval(index_map, point):
    from ember.arith import Analyzer
    from ember.ir import const
    from ember.tir.functor import substitute

    env = {v: const(x, v.dtype) for v, x in zip(index_map.initial_indices, point)}
    return tuple(int(Analyzer().simplify(substitute(e, env)).value) for e in index_map.final_indices)


def test_cross_dimension_digits_invert_exactly():
    shape = (4, 4, 64)
    fwd = IndexMap.from_func(lambda a, b, c: (a // 2, b // 2, a % 2, b % 2 * 2 + c // 32, c % 32))
    inv = fwd.inverse(shape)
    for point in itertools.product(range(4), range(4), range(0, 64, 7)):
        assert _eval(inv, _eval(fwd, point)) == point


def test_digits_that_do_not_chain_are_refused():
    fwd = IndexMap.from_func(lambda a, b: (a // 2, b % 2 * 3 + a % 2, b // 2))  # weight 3 != extent 2
    with pytest.raises(ValueError, match="cannot invert the output"):
        fwd.non_surjective_inverse((4, 4))
