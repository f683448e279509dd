"""``solve_linear_equations``: exact integer solution of linear equations (Smith form).

The equations ``A x = b`` (integer coefficients; ``b`` may be symbolic in variables that
are not solved for) are brought to a diagonal form ``S = U A V`` by unimodular row and
column operations (a Smith-style diagonalisation using extended gcds).  With ``x = V y``
the system reads ``S y = U b``: each diagonal entry fixes one ``y_i`` (a divisibility
condition is kept when the entry is not ±1), zero rows become conditions on ``b``, and
columns past the rank become fresh free variables ``n0, n1, …``.  The result is an
``IntConstraintsTransform`` from the original system to one over the free variables,
with ranges of the free variables inferred from the original ranges and the original
ranges kept as relations where the new ranges do not already imply them.
"""

from __future__ import annotations

from fractions import Fraction

from ember.ir import EQ, LE, FloorDiv, FloorMod, IntImm, PrimExpr, Range, Var, as_expr
from ember.runtime.dtype import DataType

from .analyzer import Analyzer
from .int_constraints import IntConstraints, IntConstraintsTransform
from .linear_equation import detect_linear_equation

__all__ = ["solve_linear_equations"]


def solve_linear_equations(equations, variables=None, ranges=None) -> IntConstraintsTransform:
    """Solve the equalities among ``equations`` for ``variables`` over the integers.

    ``equations`` is a list of boolean PrimExprs (relations that are not linear equations
    in ``variables`` are carried over, substituted) or an ``IntConstraints``.
    """
    if isinstance(equations, IntConstraints):
        system = equations
    else:
        system = IntConstraints(list(variables or ()), dict(ranges or {}), list(equations))
    if not system.variables:
        return IntConstraintsTransform(system, system, {}, {})
    return _Solver(system).solve()


class _Infeasible(Exception):
    pass


class _Solver:
    def __init__(self, system: IntConstraints):
        self.system = system
        self.vars = list(system.variables)
        self.dtype = self.vars[0].dtype
        self.ana = Analyzer()  # knows the ranges of parameters (not of solved variables)
        solved = set(self.vars)
        for var, rng in system.ranges.items():
            if var not in solved:
                self.ana.bind(var, rng)

    def simplify(self, e) -> PrimExpr:
        return self.ana.simplify(as_expr(e))

    def const(self, value: int) -> IntImm:
        return IntImm(self.dtype, value)

    # -- splitting the system ------------------------------------------------------------
    def linear_rows(self):
        rows, rhs, others = [], [], []
        for rel in self.system.relations:
            row = None
            if type(rel) is EQ:
                diff = self.simplify(rel.a - rel.b)
                coeffs = detect_linear_equation(diff, self.vars)
                if coeffs and all(type(c) is IntImm for c in coeffs[:-1]):
                    row = [c.value for c in coeffs[:-1]]
                    rhs.append(self.simplify(self.const(0) - coeffs[-1]))
            if row is None:
                others.append(rel)
            else:
                rows.append(row)
        return rows, rhs, others

    # -- solving -------------------------------------------------------------------------
    def solve(self) -> IntConstraintsTransform:
        rows, rhs, others = self.linear_rows()
        n = len(self.vars)
        S = [list(r) for r in rows]
        V = [[int(i == j) for j in range(n)] for i in range(n)]
        rank = _diagonalise(S, V, rhs, self.simplify)
        try:
            conditions, ys = self.solve_diagonal(S, rhs, rank)
        except _Infeasible:
            return self.infeasible()
        fresh = [Var(f"n{k}", self.dtype) for k in range(n - rank)]
        ys += fresh
        src_to_dst = {}
        for i, x in enumerate(self.vars):
            # free variables first, then the fixed part: the sum reads ``n0 + 10``
            total = self.const(0)
            for j in [*range(rank, n), *range(rank)]:
                if V[i][j]:
                    total = total + ys[j] * self.const(V[i][j])
            src_to_dst[x] = self.simplify(total)
        Vinv = _inverse(V)
        dst_to_src = {}
        for k, nv in enumerate(fresh):
            total = self.const(0)
            for i, x in enumerate(self.vars):
                if Vinv[rank + k][i]:
                    total = total + x * self.const(Vinv[rank + k][i])
            dst_to_src[nv] = self.simplify(total)
        try:
            ranges, relations = self.dst_system(fresh, src_to_dst, dst_to_src, conditions, others)
        except _Infeasible:
            return self.infeasible()
        dst = IntConstraints(fresh, ranges, relations)
        return IntConstraintsTransform(self.system, dst, src_to_dst, dst_to_src)

    def solve_diagonal(self, S, rhs, rank):
        conditions, ys = [], []
        for i in range(rank):
            p = S[i][i]
            if abs(p) == 1:
                ys.append(self.simplify(rhs[i] * self.const(p)))
                continue
            self.keep(conditions, EQ(FloorMod(rhs[i], self.const(abs(p))), self.const(0)))
            ys.append(self.simplify(FloorDiv(rhs[i], self.const(p))))
        for i in range(rank, len(rhs)):
            self.keep(conditions, EQ(rhs[i], self.const(0)))
        return conditions, ys

    def keep(self, out: list, cond: PrimExpr, ana: Analyzer | None = None) -> None:
        """Append the simplified ``cond`` unless it is provably true; raise if false."""
        cond = (ana or self.ana).simplify(cond)
        if type(cond) is IntImm:
            if not cond.value:
                raise _Infeasible
            return
        out.append(cond)

    def dst_system(self, fresh, src_to_dst, dst_to_src, conditions, others):
        from ember.tir import substitute

        ranges = {}
        src_ranges = self.system.ranges
        for nv in fresh:
            rng = self.infer_range(dst_to_src[nv])
            if rng is not None:
                ranges[nv] = rng
        for var, rng in src_ranges.items():
            if var not in src_to_dst:
                ranges.setdefault(var, rng)
        dst_ana = Analyzer()
        for var, rng in ranges.items():
            dst_ana.bind(var, rng)
        relations = list(conditions)
        for x in self.vars:
            rng = src_ranges.get(x)
            if rng is None:
                continue
            value = src_to_dst[x]
            lo = self.simplify(rng.min)
            hi = self.simplify(rng.min + rng.extent - 1)
            if not dst_ana.can_prove(value >= lo):
                relations.append(LE(lo, value))
            if not dst_ana.can_prove(value <= hi):
                relations.append(LE(value, hi))
        for rel in others:
            self.keep(relations, substitute(rel, src_to_dst), dst_ana)
        return ranges, relations

    def infer_range(self, expr: PrimExpr) -> Range | None:
        """The range of ``expr`` over the original variables' ranges, when bounded."""
        ana = Analyzer()
        for var, rng in self.system.ranges.items():
            ana.bind(var, rng)
        bound = ana.const_int_bound(expr)
        lo, hi = bound.min_value, bound.max_value
        info = DataType(str(self.dtype))
        limit = 1 << (info.bits - 1)
        if lo <= -limit or hi >= limit - 1:
            return None
        return Range(self.const(lo), self.const(hi - lo + 1))

    def infeasible(self) -> IntConstraintsTransform:
        false = IntImm(DataType("bool"), 0)
        return IntConstraintsTransform(self.system, IntConstraints([], {}, [false]), {}, {})


# -- integer matrix helpers --------------------------------------------------------------

def _egcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, s, t)`` with ``s*a + t*b == g``, ``g`` dividing both; ``(a, 1, 0)`` if ``a | b``."""
    if b % a == 0:
        return a, 1, 0
    old_r, r, old_s, s, old_t, t = a, b, 1, 0, 0, 1
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        old_t, t = t, old_t - q * t
    return old_r, old_s, old_t


def _diagonalise(S: list, V: list, rhs: list, simplify) -> int:
    """Make ``S`` diagonal in place by unimodular operations; returns its rank.

    Column operations are applied to ``V`` as well (so that ``A V`` has the same columns
    as ``S``), row operations to the symbolic right-hand sides ``rhs``.
    """
    m = len(S)
    n = len(V)
    for k in range(min(m, n)):
        pivot = _smallest_entry(S, k, m, n)
        if pivot is None:
            return k
        i, j = pivot
        S[k], S[i] = S[i], S[k]
        rhs[k], rhs[i] = rhs[i], rhs[k]
        for row in S + V:
            row[k], row[j] = row[j], row[k]
        # the pivot becomes the gcd of its row and column; each round it shrinks or is done
        while any(S[k][j] for j in range(k + 1, n)) or any(S[i][k] for i in range(k + 1, m)):
            for j in range(k + 1, n):  # clear row k with column operations
                if S[k][j]:
                    _combine_columns(S, V, k, j)
            for i in range(k + 1, m):  # clear column k with row operations
                if S[i][k]:
                    _combine_rows(S, rhs, k, i, simplify)
    return min(m, n)


def _smallest_entry(S, k, m, n):
    best = None
    for i in range(k, m):
        for j in range(k, n):
            if S[i][j] and (best is None or abs(S[i][j]) < abs(S[best[0]][best[1]])):
                best = (i, j)
    return best


def _combine_columns(S, V, k, j):
    a, b = S[k][k], S[k][j]
    g, s, t = _egcd(a, b)
    for mat in (S, V):
        for row in mat:
            ck, cj = row[k], row[j]
            row[k], row[j] = s * ck + t * cj, (b // g) * ck - (a // g) * cj


def _combine_rows(S, rhs, k, i, simplify):
    a, b = S[k][k], S[i][k]
    g, s, t = _egcd(a, b)
    rk, ri = S[k], S[i]
    S[k] = [s * x + t * y for x, y in zip(rk, ri)]
    S[i] = [(b // g) * x - (a // g) * y for x, y in zip(rk, ri)]
    bk, bi = rhs[k], rhs[i]
    dt = bk.dtype
    rhs[k] = simplify(bk * IntImm(dt, s) + bi * IntImm(dt, t))
    rhs[i] = simplify(bk * IntImm(dt, b // g) - bi * IntImm(dt, a // g))


def _inverse(V: list) -> list:
    """The inverse of a unimodular integer matrix (exact, by Gauss-Jordan on fractions)."""
    n = len(V)
    aug = [[Fraction(x) for x in row] + [Fraction(int(i == j)) for j in range(n)]
           for i, row in enumerate(V)]
    for c in range(n):
        p = next(r for r in range(c, n) if aug[r][c] != 0)
        aug[c], aug[p] = aug[p], aug[c]
        piv = aug[c][c]
        aug[c] = [x / piv for x in aug[c]]
        for r in range(n):
            if r != c and aug[r][c] != 0:
                f = aug[r][c]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[c])]
    return [[int(x) for x in row[n:]] for row in aug]
