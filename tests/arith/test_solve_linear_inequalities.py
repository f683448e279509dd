"""solve_linear_inequalities: Fourier-Motzkin bounds, ranges, deskewed variables."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import arith, ir, tir
from ember.arith import evaluate
from ember.arith._ffi_api import SolveInequalitiesAsCondition
from ember.testing import check_int_constraints_trans_consistency


def _vars(*names):
    return [tir.Var(n, "int32") for n in names]


def _dual():
    x, y = _vars("x", "y")
    ranges = {x: ir.Range.from_min_extent(-100, 200), y: ir.Range.from_min_extent(0, 10)}
    return x, y, ranges, [tir.LE(x + y, 20), tir.GE(x - y, 10)]


def test_conditions_per_variable():
    x, y, ranges, problem = _dual()
    conds = SolveInequalitiesAsCondition([x, y], ranges, problem)
    assert [type(c).__name__ for c in conds] == ["GE", "LE", "GE", "LE"]
    assert conds[3].b.value == 5  # 2y <= 10 from eliminating x; y <= 9 is weaker


def test_ranges_use_later_variables():
    x, y, ranges, problem = _dual()
    sol = arith.solve_linear_inequalities(problem, [x, y], ranges)
    assert (sol.ranges[y].min.value, sol.ranges[y].extent.value) == (0, 6)
    assert sol.ranges[x].extent.value == 11
    for yv in range(0, 6):
        assert evaluate(sol.ranges[x].min, {y: yv}) == yv + 10


def test_deskew_is_consistent():
    x, y, ranges, problem = _dual()
    sol = arith.solve_linear_inequalities(problem, [x, y], ranges, deskew_range=True)
    assert all(r.min.value == 0 for r in sol.dst.ranges.values())
    check_int_constraints_trans_consistency(sol)


def test_fixed_point_and_no_solution():
    x, y = _vars("x", "y")
    sol = arith.solve_linear_inequalities([x + y >= 10, x - y >= 2, x <= 6], [x, y], deskew_range=True)
    assert sol.dst.variables == () and sol.src_to_dst[x].value == 6 and sol.src_to_dst[y].value == 4
    sol = arith.solve_linear_inequalities([x * 4 <= 6, x >= 5], [x], {x: ir.Range(-20, 41)})
    assert len(sol.relations) == 1 and sol.relations[0].value == 0


_coef = st.integers(-2, 2)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_coef, _coef, st.integers(-4, 4), st.sampled_from(["le", "ge", "eq"])),
                min_size=1, max_size=3))
def test_conditions_have_the_same_solutions(rows):
    """The conditions hold exactly at the points of the box where the inequalities hold."""
    x, y = _vars("x", "y")
    make = {"le": tir.LE, "ge": tir.GE, "eq": tir.EQ}
    problem = [make[op](x * a + y * b, tir.const(c, "int32")) for a, b, c, op in rows]
    box = {x: ir.Range(-3, 7), y: ir.Range(-3, 7)}
    conds = SolveInequalitiesAsCondition([x, y], box, problem)
    for px, py in itertools.product(range(-3, 4), repeat=2):
        env = {x: px, y: py}
        want = all(evaluate(p, env) for p in problem)
        assert all(evaluate(c, env) for c in conds) == want, (px, py)
