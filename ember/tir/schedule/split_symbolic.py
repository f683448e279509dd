"""split with symbolic factors (``4 * T.vscale()`` for scalable vectors, a shape variable).

The loop becomes one loop per factor, bound as ``((v0 * f1 + v1) * f2 + v2) …``.  A
``None`` factor is inferred as ``ceildiv(extent, product of the others)``.  Without a
``None`` the factors must provably cover the extent; for an expression with
``vscale`` that proof substitutes the values vscale can take (1 to 16, TVM's rule) and
is only attempted when the current target is AArch64 with SVE.  A predicate
``binding < extent`` guards the blocks unless the product is the extent itself or
``disable_predication`` is set.
"""

from __future__ import annotations

import sys

from ember.arith import Analyzer
from ember.ir import Call, IntImm, Mul, PrimExpr, Var, const
from ember.tir.functor import collect, substitute
from ember.tir.stmt import For, ForKind

from . import _arith
from .analysis import replace_stmts
from .errors import ScheduleError

__all__ = ["split_symbolic"]

_VSCALE_VALUES = (1, 2, 4, 8, 16)


def _canon(e):
    """The factor in TVM's written form: a constant multiplier on the right."""
    e = Analyzer().simplify(e) if isinstance(e, PrimExpr) else e
    if isinstance(e, Mul) and isinstance(e.a, IntImm) and not isinstance(e.b, IntImm):
        return Mul(e.b, e.a)
    return e


def _has_vscale(e) -> bool:
    return bool(collect(e, lambda n: isinstance(n, Call) and getattr(n.op, "name", "") == "tir.vscale"))


def _with_vscale(e, value: int):
    from ember.tir.functor import ir_transform

    def post(n):
        if isinstance(n, Call) and getattr(n.op, "name", "") == "tir.vscale":
            return const(value, n.dtype)
        return None

    return ir_transform(e, None, post)


def _sve_target() -> bool:
    from ember.target import Target

    target = Target.current(allow_none=True)
    return target is not None and "+sve" in (getattr(target, "mattr", ()) or ())


def _covers(func, loop: For, product, extent) -> None:
    ana = Analyzer()
    if ana.can_prove(product >= extent):
        return
    if _has_vscale(product) or _has_vscale(extent):
        if _sve_target():
            checks = [ana.simplify(_with_vscale(product >= extent, v)) for v in _VSCALE_VALUES]
            if all(_arith.as_int(c) == 1 or getattr(c, "value", None) is True for c in checks):
                return
        else:
            from ember.target import Target

            target = Target.current(allow_none=True)
            print("Warning: The expression contains scalable values. An attempt to prove by substituting "
                  "with known values of vscale was not performed. This proof currently only supports "
                  f"AArch64 SVE targets, but the target was {target}", file=sys.stderr)
    raise ScheduleError(f"The product of factors is not larger than or equal to the extent of loop "
                        f"{loop.loop_var.name!r}: the factors multiply to {product}, the extent is {extent}",
                        func, loop=loop)


def split_symbolic(func, loop: For, factors: list, preserve_unit_iters: bool, disable_predication: bool):
    """``split`` where some factor is a non-constant expression; returns (func, new loop vars)."""
    dtype = loop.loop_var.dtype
    factors = [None if f is None else (const(f, dtype) if isinstance(f, int) else _canon(f)) for f in factors]
    for f in factors:
        if f is not None and not f.dtype.is_integer:
            raise ScheduleError(f"split factors must be integers, got {f!r}", func, loop=loop)
    known = [f for f in factors if f is not None]
    product = known[0]
    for f in known[1:]:
        product = product * f
    extent = loop.extent
    if any(f is None for f in factors):
        inferred = _canon(Analyzer().simplify((extent + product - 1) // product))
        factors = [inferred if f is None else f for f in factors]
        product = factors[0]
        for f in factors[1:]:
            product = product * f
    else:
        _covers(func, loop, product, extent)
    name = loop.loop_var.name
    new_vars = [Var(f"{name}_{k}", dtype) for k in range(len(factors))]
    expr = None
    for v, f in zip(new_vars, factors):
        if expr is not None and not _arith.is_const(f, 1):
            expr = expr * f
        if preserve_unit_iters or not _arith.is_const(f, 1):
            expr = v if expr is None else expr + v
    expr = const(0, dtype) if expr is None else expr
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
        expr = loop.min + expr
    body = substitute(loop.body, {loop.loop_var: expr})
    exact = _arith.is_const(Analyzer().simplify(product - extent), 0)
    if not exact and not disable_predication:
        from .loop_transformation import _add_predicate

        bound = extent if isinstance(loop.min, IntImm) and loop.min.value == 0 else loop.min + extent
        body = _add_predicate(body, expr < _canon(bound))
    for v, f in reversed(list(zip(new_vars, factors))):
        body = For(v, const(0, dtype), f, ForKind.SERIAL, body)
    return replace_stmts(func, {loop: body}), new_vars
