"""solve_linear_equations: exact integer solutions, infeasible systems, inferred ranges."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import arith, ir, tir
from ember.arith import evaluate
from ember.testing import check_int_constraints_trans_consistency


def _vars(*names):
    return [tir.Var(n, "int32") for n in names]


def test_unique_solution_is_constant():
    x, y = _vars("x", "y")
    sol = arith.solve_linear_equations([tir.EQ(x + y, 20), tir.EQ(x - y, 10)], [x, y])
    assert sol.dst.variables == ()
    assert sol.src_to_dst[x].value == 15 and sol.src_to_dst[y].value == 5


def test_low_rank_gets_a_free_variable():
    x, y, z = _vars("x", "y", "z")
    sol = arith.solve_linear_equations([tir.EQ(x + y + z, 15), tir.EQ(x + y, 10)], [x, y, z])
    (n0,) = sol.dst.variables
    for k in range(-3, 4):
        env = {n0: k}
        vals = {v: evaluate(sol.src_to_dst[v], env) for v in (x, y, z)}
        assert vals[x] + vals[y] + vals[z] == 15 and vals[x] + vals[y] == 10
        assert evaluate(sol.dst_to_src[n0], vals) == k


def test_divisibility_condition_is_kept():
    x, p = _vars("x", "p")
    sol = arith.solve_linear_equations([tir.EQ(x * 3, p)], [x], {p: ir.Range(0, 10)})
    assert sol.dst.variables == ()
    (cond,) = sol.dst.relations
    for pv in range(10):
        assert evaluate(cond, {p: pv}) == (pv % 3 == 0)
        if pv % 3 == 0:
            assert evaluate(sol.src_to_dst[x], {p: pv}) == pv // 3


def test_inconsistent_system_is_false():
    x, y = _vars("x", "y")
    sol = arith.solve_linear_equations([tir.EQ(x + y, 0), tir.EQ(x - y, 0), tir.EQ(x, 5)], [x, y])
    assert len(sol.dst.relations) == 1 and sol.dst.relations[0].value == 0
    assert sol.src_to_dst == {} and sol.dst_to_src == {}


def test_ranges_of_free_variables_are_inferred():
    x, y = _vars("x", "y")
    ranges = {x: ir.Range.from_min_extent(-5, 10), y: ir.Range.from_min_extent(0, 10)}
    sol = arith.solve_linear_equations([tir.EQ(x + y, 0)], [x, y], ranges)
    (n0,) = sol.dst.variables
    rng = sol.dst.ranges[n0]
    assert (rng.min.value, rng.extent.value) == (-9, 10)
    check_int_constraints_trans_consistency(sol)


def test_no_variables_returns_the_system():
    x, y = _vars("x", "y")
    eqs = [tir.EQ(x + y, 20)]
    sol = arith.solve_linear_equations(eqs)
    assert sol.src is sol.dst and sol.src_to_dst == {}


_coef = st.integers(-4, 4)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_coef, _coef, _coef, st.integers(-6, 6)), min_size=1, max_size=3))
def test_solutions_satisfy_the_equations(rows):
    """Every point of the box that solves the system maps to the solution and back."""
    x, y, z = _vars("x", "y", "z")
    eqs = [tir.EQ(x * a + y * b + z * c, tir.const(d, "int32")) for a, b, c, d in rows]
    box = {v: ir.Range(-4, 5) for v in (x, y, z)}
    sol = arith.solve_linear_equations(eqs, [x, y, z], box)
    check_int_constraints_trans_consistency(sol)
    for point in itertools.product(range(-4, 5), repeat=3):
        env = dict(zip((x, y, z), point))
        if all(a * point[0] + b * point[1] + c * point[2] == d for a, b, c, d in rows):
            dst = {n: evaluate(e, env) for n, e in sol.dst_to_src.items()}
            assert all(evaluate(sol.src_to_dst[v], dst) == env[v] for v in (x, y, z))
