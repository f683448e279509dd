"""``solve_linear_inequalities``: bounds of each variable by Fourier-Motzkin elimination.

Every relation is normalised to ``e <= 0`` (``==`` gives two of them).  Variables are
eliminated in the order given: the relations linear in ``v`` with a constant coefficient
become lower bounds ``c*v >= L`` and upper bounds ``c*v <= U`` (all scaled to one common
coefficient); bounds that others imply (under the variables' ranges) are dropped; bounds
that are both a lower and an upper bound are equalities; every lower/upper pair gives
the relation ``L <= U`` on the remaining variables.  What cannot be eliminated stays as
``e <= 0``; a relation that is constant false means there is no solution.

The result is read three ways: as a list of conditions (TVM's
``SolveInequalitiesAsCondition``), as ranges per variable (``IntConstraints``, last
variable first, so each range may use the variables after it), or, with
``deskew_range=True``, as a change of variables to ranges that start at 0
(``IntConstraintsTransform``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ember.ir import (
    EQ, GE, GT, LE, LT, And, FloorDiv, IntImm, Max, PrimExpr, Range, Var, as_expr,
)
from ember.runtime.dtype import DataType

from .analyzer import Analyzer
from .int_constraints import IntConstraints, IntConstraintsTransform
from .linear_equation import detect_linear_equation

__all__ = ["solve_linear_inequalities", "solve_inequalities_as_condition"]

_BOOL = DataType("bool")


@dataclass
class _Bounds:
    """``coef * var`` lies between every lower and every upper bound; equals are both."""

    coef: int
    lower: list = field(default_factory=list)
    equal: list = field(default_factory=list)
    upper: list = field(default_factory=list)


@dataclass
class _Partial:
    bounds: dict  # Var -> _Bounds, in the order the variables were given
    others: list  # what could not be eliminated (``e <= 0`` or non-linear relations)
    feasible: bool = True


def _normalise(rel: PrimExpr, ana: Analyzer, out: list, others: list) -> None:
    cls = type(rel)
    if cls is And:
        _normalise(rel.a, ana, out, others)
        _normalise(rel.b, ana, out, others)
        return
    if cls in (LE, LT, GE, GT, EQ) and rel.a.dtype.is_integer:
        a, b = (rel.a, rel.b) if cls in (LE, LT, EQ) else (rel.b, rel.a)
        diff = a - b + 1 if cls in (LT, GT) else a - b
        out.append(ana.simplify(diff))
        if cls is EQ:
            out.append(ana.simplify(b - a))
        return
    others.append(rel)


def _keep(exprs: list, ana: Analyzer, better) -> list:
    """``exprs`` without duplicates and without those another one makes redundant."""
    unique = []
    for e in exprs:
        if not any(ana.can_prove_equal(e, u) for u in unique):
            unique.append(e)
    return [e for i, e in enumerate(unique)
            if not any(j != i and ana.can_prove(better(o, e)) for j, o in enumerate(unique))]


def _partial_solve(variables, ranges: dict, relations) -> _Partial:
    ana = Analyzer()
    for var, rng in ranges.items():
        ana.bind(var, rng)
    plain = Analyzer()  # simplification only: bounds must stay valid without the ranges
    current, others = [], []
    for rel in relations:
        _normalise(as_expr(rel), plain, current, others)
    result = _Partial({}, others)
    for v in variables:
        rng = ranges.get(v)
        if rng is not None:
            current.append(plain.simplify(rng.min - v))
            current.append(plain.simplify(v - (rng.min + rng.extent - 1)))
        lows, ups, rest = [], [], []
        for e in current:
            coeffs = detect_linear_equation(e, [v])
            if not coeffs or type(coeffs[0]) is not IntImm or coeffs[0].value == 0:
                rest.append(e)
                continue
            c, r = coeffs[0].value, coeffs[1]
            if c > 0:
                ups.append((c, plain.simplify(0 - r)))
            else:
                lows.append((-c, r))
        coef = math.lcm(*[c for c, _ in lows + ups]) if lows or ups else 1
        lower = _keep([plain.simplify(b * (coef // c)) for c, b in lows], ana, lambda o, e: o >= e)
        upper = _keep([plain.simplify(b * (coef // c)) for c, b in ups], ana, lambda o, e: o <= e)
        equal = [e for e in lower if any(plain.can_prove_equal(e, u) for u in upper)]
        equal.sort(key=lambda e: type(e) is not IntImm)
        for lo in lower:
            for up in upper:
                if any(lo is q for q in equal) and any(plain.can_prove_equal(up, q) for q in equal) \
                        and plain.can_prove_equal(lo, up):
                    continue
                cond = plain.simplify(lo - up)
                if type(cond) is IntImm:
                    if cond.value > 0:
                        result.feasible = False
                    continue
                rest.append(cond)
        result.bounds[v] = _Bounds(
            coef,
            [e for e in lower if not any(e is q for q in equal)],
            equal,
            [e for e in upper if not any(plain.can_prove_equal(e, q) for q in equal)],
        )
        current = rest
    for e in current:
        cond = ana.simplify(e <= 0)
        if type(cond) is IntImm:
            if not cond.value:
                result.feasible = False
            continue
        result.others.append(LE(e, IntImm(e.dtype, 0)))
    return result


def _exact(b: _Bounds) -> _Bounds:
    """With a coefficient above 1, ``c*v == e`` is ``ceil(e/c) <= v <= floor(e/c)``."""
    if b.coef == 1 or not b.equal:
        return b
    return _Bounds(b.coef, b.lower + b.equal, [], b.upper + b.equal)


def _div_floor(e: PrimExpr, coef: int, ana: Analyzer) -> PrimExpr:
    return e if coef == 1 else ana.simplify(FloorDiv(e, IntImm(e.dtype, coef)))


def _div_ceil(e: PrimExpr, coef: int, ana: Analyzer) -> PrimExpr:
    if coef == 1:
        return e
    return ana.simplify(FloorDiv(e + IntImm(e.dtype, coef - 1), IntImm(e.dtype, coef)))


def solve_inequalities_as_condition(variables, ranges, relations) -> list:
    """The system as conditions, per variable ``v >= L``, ``v <= U``, ``v == E``, then the rest."""
    part = _partial_solve(list(variables), dict(ranges or {}), list(relations))
    if not part.feasible:
        return [IntImm(_BOOL, 0)]
    ana = Analyzer()
    out = []
    for v, b in part.bounds.items():
        b = _exact(b)
        out += [EQ(v, e) for e in b.equal]
        out += [GE(v, _div_ceil(e, b.coef, ana)) for e in b.lower]
        out += [LE(v, _div_floor(e, b.coef, ana)) for e in b.upper]
    return out + part.others


def solve_linear_inequalities(equations, variables=None, ranges=None, deskew_range=False):
    """Ranges of ``variables`` under the inequalities (``IntConstraints``), or with
    ``deskew_range`` an ``IntConstraintsTransform`` to variables whose ranges start at 0."""
    if isinstance(equations, IntConstraints):
        system = equations
    else:
        system = IntConstraints(list(variables or ()), dict(ranges or {}), list(equations))
    solved = _ranges(system)
    if not deskew_range:
        return solved
    return _deskew(system, solved)


def _ranges(system: IntConstraints) -> IntConstraints:
    part = _partial_solve(system.variables, system.ranges, system.relations)
    if not part.feasible:
        return IntConstraints([], {}, [IntImm(_BOOL, 0)])
    ana = Analyzer()
    for var, rng in system.ranges.items():
        if var not in part.bounds:
            ana.bind(var, rng)
    new_ranges, relations = {}, []
    for v in reversed(list(part.bounds)):  # later variables first: earlier bounds use them
        b = _exact(part.bounds[v])
        lower = _dedup([_div_ceil(ana.simplify(e), b.coef, ana) for e in b.lower], ana)
        upper = _dedup([_div_floor(ana.simplify(e), b.coef, ana) for e in b.upper], ana)
        equal = _dedup([_div_floor(ana.simplify(e), b.coef, ana) for e in b.equal], ana)
        mine = []
        rng = _choose_range(lower, upper, equal, ana)
        if rng is not None:
            new_ranges[v] = rng
            ana.bind(v, rng)
        for e in equal[1:] if rng is not None and equal else equal:
            mine.append(EQ(v, e))
        for e in lower:
            if rng is None or not ana.can_prove(rng.min >= e):
                mine.append(GE(v, e))
        for e in upper:
            if rng is None or not ana.can_prove(rng.min + rng.extent - 1 <= e):
                mine.append(LE(v, e))
        relations = mine + relations
    ordered = {v: new_ranges[v] for v in system.variables if v in new_ranges}
    return IntConstraints(system.variables, ordered, relations + part.others)


def _dedup(exprs: list, ana: Analyzer) -> list:
    out = []
    for e in exprs:
        if not any(ana.can_prove_equal(e, o) for o in out):
            out.append(e)
    return out


def _choose_range(lower, upper, equal, ana: Analyzer) -> Range | None:
    if equal:
        return Range(equal[0], IntImm(equal[0].dtype, 1))
    if not lower or not upper:
        return None
    lo = lower[0]
    for e in lower[1:]:
        lo = ana.simplify(Max(lo, e))
    best = None
    for up in upper:
        hi = ana.const_int_bound(ana.simplify(up - lo + 1)).max_value
        if best is None or hi < best:
            best = hi
    if best is None or best >= (1 << (lo.dtype.bits - 1)) - 1:
        return None
    return Range(lo, IntImm(lo.dtype, max(int(best), 0)))


def _deskew(system: IntConstraints, solved: IntConstraints) -> IntConstraintsTransform:
    from ember.tir import substitute

    if any(type(r) is IntImm and not r.value for r in solved.relations):
        return IntConstraintsTransform(system, IntConstraints([], {}, [IntImm(_BOOL, 0)]), {}, {})
    ana = Analyzer()
    src_to_dst, dst_to_src, new_vars, new_ranges = {}, {}, [], {}
    for v in reversed(list(system.variables)):
        rng = solved.ranges.get(v)
        if rng is None:
            src_to_dst[v] = v
            new_vars.append(v)
            continue
        lo = substitute(rng.min, src_to_dst)
        if type(rng.extent) is IntImm and rng.extent.value == 1:
            src_to_dst[v] = lo
            continue
        nv = Var(v.name + "_shifted", v.dtype)
        zero = type(lo) is IntImm and lo.value == 0
        src_to_dst[v] = nv if zero else nv + lo
        dst_to_src[nv] = ana.simplify(v - rng.min)
        new_vars.append(nv)
        new_ranges[nv] = Range(IntImm(v.dtype, 0), rng.extent)
    relations = []
    for rel in solved.relations:
        r = ana.simplify(substitute(rel, src_to_dst))
        if type(r) is IntImm:
            if not r.value:
                return IntConstraintsTransform(system, IntConstraints([], {}, [IntImm(_BOOL, 0)]), {}, {})
            continue
        relations.append(r)
    new_vars.reverse()
    dst = IntConstraints(new_vars, {v: new_ranges[v] for v in new_vars if v in new_ranges}, relations)
    order = {v: i for i, v in enumerate(system.variables)}
    src_to_dst = dict(sorted(src_to_dst.items(), key=lambda kv: order[kv[0]]))
    return IntConstraintsTransform(system, dst, src_to_dst, dict(reversed(list(dst_to_src.items()))))
