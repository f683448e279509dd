"""HoistInvariantDivision: compute a loop-invariant integer division once, outside the loop.

A loop fused over symbolic extents (``sch.fuse`` of softmax's ``batch * 12 * seq`` rows)
leaves flat indices such as ``f // (seq * 12) * K + f % (seq * 12) // seq * L + f % seq * seq
+ j`` in its inner loops.  A division by a constant is a multiply, but one by a symbolic
value is a hardware divide (tens of cycles), and LLVM does not move it out of a loop when
it sits under a condition (a vectorised row's tail guard): a divide may trap, so LLVM
does not execute one speculatively.  The LLVM code generator's divisions are total
(``x // 0`` is 0, never a trap), so this pass may move them itself.

Every largest pure integer sub-expression (variables, constants, + - * // % min max) that
divides by a non-constant and depends on nothing bound inside the loop around its use is
bound by a ``LetStmt`` just inside the innermost loop or let it depends on (or at the top
of the function), once per distinct expression there, and read through that variable.

First, a sum that spells a fused index out digit by digit is put back together
(``merge_index_digits``: the offset above is ``f * seq + j``), so no divide is left to hoist;
and a sum whose divisions vary in an outer loop than some of its terms is regrouped so that
they are bound there (``f % (12*b) // 12 * K + r * L`` in a row loop ``r``: once per ``f``).

Runs on lowered flat TIR after VectorizeLoop (vector lanes are Ramps by then); CPU targets
only, since it relies on the LLVM code generator's total division.
"""

from __future__ import annotations

from ember.ir import (Add, Div, FloorDiv, FloorMod, IntImm, Let, Max, Min, Mod, Mul, PrimExpr, Sub, Var, fields_of,
                      replace, structural_equal)
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..stmt import AttrStmt, For, LetStmt, While
from .merge_index_digits import merge_index_digits, sum_of, summands

__all__ = ["HoistInvariantDivision", "hoist_invariant_division"]

_PURE = (Var, IntImm, Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max)
_DIVISIONS = (FloorDiv, FloorMod, Div, Mod)


class _Site:
    """A place a LetStmt can go: the function's top, a loop's body or a let's body."""

    def __init__(self, is_loop: bool):
        self.is_loop = is_loop
        self.lets: list[tuple[PrimExpr, Var]] = []


class _Hoister(IRMutator):
    def __init__(self, scoped_vars: set[int]):
        super().__init__()
        self.sites = [_Site(False)]
        self.depth: dict[int, int] = {}  # id(var) -> index of the site that binds it
        self.scoped = scoped_vars  # every variable bound inside the function
        self.count = 0

    # -- statements that open a site -------------------------------------------------------
    def visit_For(self, s: For):
        return self._open(s, s.loop_var, True)

    def visit_LetStmt(self, s: LetStmt):
        return self._open(s, s.var, False)

    def visit_While(self, s: While):
        return self._open(s, None, True)

    def visit_AttrStmt(self, s: AttrStmt):
        return self._open(s, None, True)  # a thread extent repeats its body as a loop does

    def _open(self, s, var: Var | None, is_loop: bool):
        changes = {name: self.visit(getattr(s, name)) for name in fields_of(type(s)) if name != "body"}
        self.sites.append(_Site(is_loop))
        if var is not None:
            self.depth[id(var)] = len(self.sites) - 1
        try:
            body = self.visit(s.body)
        finally:
            site = self.sites.pop()
            if var is not None:
                del self.depth[id(var)]
        body = _wrap(site, body)
        changes = {k: v for k, v in changes.items() if v is not getattr(s, k)}
        if body is not s.body:
            changes["body"] = body
        return replace(s, **changes) if changes else s

    # -- expressions -----------------------------------------------------------------------
    def visit(self, x):
        if isinstance(x, PrimExpr) and not isinstance(x, Var | IntImm):
            target = self._target(x)
            if target is not None and isinstance(x, Add):
                merged = merge_index_digits(x)  # f // (s*12) * (s*12) + f % (s*12) → f
                if merged is not x:
                    return self.visit(merged)
                split = self._split_by_level(x, target)
                if split is not None:
                    return self.visit(split)
            # (i // n * K) + j: the division part can rise above j's loop, so split there
            if target is not None and not any(
                    (t := self._target(c)) is not None and t < target for c in _operands(x)):
                return self._bind(target, x)
        return super().visit(x)

    def _target(self, e: PrimExpr) -> int | None:
        """The site ``e`` can be bound at, if it is worth hoisting there; else None."""
        if e.dtype.lanes != 1 or not (e.dtype.is_int or e.dtype.is_uint):
            return None
        nodes = collect(e, lambda n: True)
        if not all(isinstance(n, _PURE) or not isinstance(n, PrimExpr) for n in nodes):
            return None
        if not any(isinstance(n, _DIVISIONS) and not isinstance(n.b, IntImm) for n in nodes):
            return None
        level = self._level_of(n for n in nodes if isinstance(n, Var))
        if level is None:
            return None
        return level if any(site.is_loop for site in self.sites[level + 1:]) else None

    def _split_by_level(self, e: Add, target: int) -> Add | None:
        """``e``'s summands regrouped as (those bound outside ``target``'s loop) + (the rest),
        when a division is among the outer ones: ``f % (12*b) // 12 * K + r * L + f % 12 * M``
        in a row loop ``r`` then divides once per ``f``, not once per row.  None: no such split."""
        terms = summands(e)
        if len(terms) < 3:
            return None  # a + b: visit's operand check already splits it
        levels = [self._level(t) for t in terms]
        if any(lv is None for lv in levels):
            return None
        outer = [t for t, lv in zip(terms, levels) if lv < target]
        inner = [t for t, lv in zip(terms, levels) if lv >= target]
        if not inner or not any(self._target(t) is not None for t in outer):
            return None
        if len(summands(e.a)) == len(outer) and all(a is b for a, b in zip(summands(e.a), outer)):
            return None  # already (outer) + (inner)
        return Add(sum_of(outer), sum_of(inner))

    def _level(self, e: PrimExpr) -> int | None:
        """The innermost site binding a variable of ``e`` (0: none), None for one not tracked."""
        return self._level_of(collect(e, lambda n: isinstance(n, Var)))

    def _level_of(self, variables) -> int | None:
        level = 0
        for v in variables:
            if id(v) in self.depth:
                level = max(level, self.depth[id(v)])
            elif id(v) in self.scoped:  # bound by something this pass does not track
                return None
        return level

    def _bind(self, level: int, e: PrimExpr) -> Var:
        site = self.sites[level]
        for value, var in site.lets:
            if structural_equal(value, e, map_free_vars=False):
                return var
        var = Var(f"hoisted_div{self.count}", e.dtype)
        self.count += 1
        site.lets.append((e, var))
        return var


def _operands(e: PrimExpr) -> tuple:
    return (e.a, e.b) if isinstance(e, Add | Sub | Mul | Min | Max) else ()


def _wrap(site: _Site, body):
    for value, var in reversed(site.lets):
        body = LetStmt(var, value, body)
    return body


def hoist_invariant_division(func: PrimFunc) -> PrimFunc:
    if not collect(func.body, lambda n: isinstance(n, _DIVISIONS) and not isinstance(n.b, IntImm)):
        return func  # only constant divisors (static shapes): nothing to hoist, and one walk instead of many
    scoped = {id(n.loop_var) for n in collect(func.body, lambda n: isinstance(n, For))}
    scoped |= {id(n.var) for n in collect(func.body, lambda n: isinstance(n, LetStmt | Let))}
    hoister = _Hoister(scoped)
    body = _wrap(hoister.sites[0], hoister.visit(func.body))
    return func if body is func.body else replace(func, body=body)


def HoistInvariantDivision() -> Pass:  # noqa: N802 (TVM-style pass constructor)
    from ._common import make_pass

    return make_pass(hoist_invariant_division, "tir.HoistInvariantDivision")
