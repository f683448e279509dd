"""Checks for integer-constraint solvers, under TVM's ``tvm.testing`` names.

``check_bool_expr_is_true(expr, vranges, cond)`` evaluates a boolean PrimExpr on every
point of the box ``vranges`` (Var → Range with constant bounds) with numpy — on a random
sample of the box when it has more than ``MAX_POINTS`` points — and fails with a
counterexample where ``cond`` holds but ``expr`` does not.
``check_int_constraints_trans_consistency(trans, vranges)`` checks that an
``IntConstraintsTransform`` maps the solutions of its source system onto solutions of its
destination system and back, both ways.
"""

from __future__ import annotations

import numpy as np

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Call, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Max, Min,
    Mod, Mul, Not, Or, Select, Sub, Var,
)

__all__ = ["check_bool_expr_is_true", "check_int_constraints_trans_consistency", "MAX_POINTS"]

MAX_POINTS = 1 << 18


def _safe(b):
    return np.where(b == 0, 1, b)


def _trunc_div(a, b):
    q = np.abs(a) // _safe(np.abs(b))
    return np.where((a >= 0) == (b >= 0), q, -q)


_BINARY = {
    Add: np.add, Sub: np.subtract, Mul: np.multiply, Min: np.minimum, Max: np.maximum,
    FloorDiv: lambda a, b: np.floor_divide(a, _safe(b)),
    FloorMod: lambda a, b: np.mod(a, _safe(b)),
    Div: _trunc_div,
    Mod: lambda a, b: a - b * _trunc_div(a, b),
    LT: np.less, LE: np.less_equal, GT: np.greater, GE: np.greater_equal, EQ: np.equal,
    NE: np.not_equal, And: np.logical_and, Or: np.logical_or,
}


def _eval(e, env: dict):
    cls = type(e)
    if cls is IntImm:
        return np.int64(e.value)
    if cls is FloatImm:
        return np.float64(e.value)
    if isinstance(e, Var):
        if e not in env:
            raise KeyError(f"check_bool_expr_is_true: no range for the variable {e.name!r}")
        return env[e]
    fn = _BINARY.get(cls)
    if fn is not None:
        return fn(_eval(e.a, env), _eval(e.b, env))
    if cls is Not:
        return np.logical_not(_eval(e.a, env))
    if cls is Select:
        return np.where(_eval(e.condition, env), _eval(e.true_value, env), _eval(e.false_value, env))
    if cls is Cast:
        value = _eval(e.value, env)
        return value.astype(bool) if e.dtype.is_bool else value
    if cls is Call and getattr(e.op, "name", None) == "tir.if_then_else":
        c, t, f = (_eval(a, env) for a in e.args)
        return np.where(c, t, f)
    raise TypeError(f"check_bool_expr_is_true: cannot evaluate a {cls.__name__} node")


def _points(vranges: dict, rng) -> dict:
    bounds = []
    for var, r in vranges.items():
        if type(r.min) is not IntImm or type(r.extent) is not IntImm:
            raise ValueError(f"check_bool_expr_is_true: the range of {var.name} is not constant: {r!r}")
        bounds.append((r.min.value, r.extent.value))
    total = 1
    for _, ext in bounds:
        total *= max(ext, 0)
    if total <= MAX_POINTS:
        grids = np.meshgrid(*[np.arange(lo, lo + ext, dtype=np.int64) for lo, ext in bounds],
                            indexing="ij")
        return {v: g.ravel() for v, g in zip(vranges, grids)}
    return {v: rng.integers(lo, lo + ext, size=MAX_POINTS, dtype=np.int64)
            for v, (lo, ext) in zip(vranges, bounds)}


def check_bool_expr_is_true(bool_expr, vranges: dict, cond=None, seed: int = 0) -> None:
    """Fail unless ``bool_expr`` holds at every point of ``vranges`` where ``cond`` holds."""
    if cond is not None and type(cond) is IntImm and not cond.value:
        return  # nothing to check where nothing holds
    env = _points(dict(vranges), np.random.default_rng(seed))
    size = len(next(iter(env.values()))) if env else 1
    ok = np.broadcast_to(_eval(bool_expr, env), (size,))
    if cond is not None:
        ok = ok | ~np.broadcast_to(np.asarray(_eval(cond, env), dtype=bool), (size,))
    if not ok.all():
        i = int(np.argmin(ok))
        point = {v.name: int(env[v][i]) for v in env}
        raise AssertionError(f"{bool_expr!r} is false at {point}" + (f" where {cond!r} holds" if cond is not None else ""))


def _all(conds):
    out = IntImm("bool", 1)
    for c in conds:
        out = And(out, c)
    return out


def _check_one_way(src, dst, forward: dict, backward: dict, vranges: dict) -> None:
    from ember.arith import Analyzer
    from ember.tir import substitute

    ana = Analyzer()
    box = dict(vranges)
    box.update(src.ranges)
    same_point = []
    for v in src.variables:
        if v in forward:  # going there and back gives the same point
            same_point.append(EQ(v, ana.simplify(substitute(forward[v], backward))))
    there = list(dst.relations)
    for v in dst.variables:
        r = dst.ranges.get(v)
        if r is not None:
            there += [GE(v, r.min), LT(v, r.min + r.extent)]
    holds_there = ana.simplify(substitute(_all(there), backward))
    check_bool_expr_is_true(_all([holds_there, *same_point]), box,
                            cond=ana.simplify(_all(src.relations)))


def check_int_constraints_trans_consistency(const_trans, vranges: dict | None = None) -> None:
    """Check both directions of an ``IntConstraintsTransform`` on every point of its boxes."""
    vranges = dict(vranges or {})
    t = const_trans
    _check_one_way(t.src, t.dst, t.src_to_dst, t.dst_to_src, vranges)
    _check_one_way(t.dst, t.src, t.dst_to_src, t.src_to_dst, vranges)
