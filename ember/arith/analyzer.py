"""``Analyzer``: what is known about variables, and the questions asked against it.

An analyzer holds the facts a pass has established — variable ranges (``bind``),
bounds and modular sets (``update``), conditions assumed inside a
``constraint_scope`` — and answers: ``simplify``, ``const_int_bound``,
``modular_set``, ``can_prove``, ``int_set``.  All sub-analyses share one set of
memo tables, dropped whenever the facts change, so repeated questions are cheap.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from ember.ir import IntImm, PrimExpr, Range, Var, as_expr

from .const_int_bound import ConstIntBound, bound_of, from_public, to_public
from .extension import Extension
from .facts import FactSet
from .keys import StructKeys
from .linear import is_int_scalar
from .modular_set import ModularSet, intersect_modular, make_modular, modular_of
from .simplifier import Simplifier

__all__ = ["Analyzer"]

_CACHE_LIMIT = 200_000
_CACHE_NAMES = ("_seen", "_simplify_cache", "_bound_cache", "_modular_cache", "_linear_cache")


class Analyzer:
    """Arithmetic facts about variables and the simplifier/provers that use them."""

    def __init__(self):
        self._keys = StructKeys()
        self._var_bounds: dict[Var, tuple] = {}
        self._var_modular: dict[Var, ModularSet] = {}
        self._var_values: dict[Var, PrimExpr] = {}
        self._var_ranges: dict[Var, Range] = {}
        self._facts = FactSet()
        self._opaque_facts: list[PrimExpr] = []
        self._saved: list[list] = []  # memo tables of the enclosing constraint scopes
        self.enabled_extensions = Extension.NoExtensions
        self._reset_caches()

    # -- caches ---------------------------------------------------------------------
    def _reset_caches(self) -> None:
        self._seen: set[int] = set()  # ids of the variables the memo tables depend on
        self._simplify_cache: dict[int, tuple] = {}
        self._bound_cache: dict[int, tuple] = {}
        self._modular_cache: dict[int, tuple] = {}
        self._linear_cache: dict[int, tuple] = {}
        if len(self._keys) > _CACHE_LIMIT and not len(getattr(self, "_facts", ())):
            self._keys = StructKeys()  # facts hold keys: renumber only when there are none
            for saved in self._saved:  # saved linear forms use the old numbering
                saved[0] = None

    def _save_caches(self) -> list:
        return [getattr(self, name) for name in _CACHE_NAMES]

    def _restore_caches(self, saved: list) -> None:
        if saved[0] is None:
            self._reset_caches()
            return
        for name, value in zip(_CACHE_NAMES, saved):
            setattr(self, name, value)

    def _changed(self, var: Var) -> None:
        """Knowledge about ``var`` changed: drop memoised results that may depend on it.

        Every analysis notes the variables it looks at in ``_seen``; when ``var`` was never
        looked at (the usual case: a loop variable bound before its body is simplified),
        no memoised result can depend on it and the memo tables stay.  The same holds for
        the tables saved by enclosing constraint scopes.
        """
        if id(var) in self._seen:
            self._reset_caches()
        for saved in self._saved:
            if saved[0] is not None and id(var) in saved[0]:
                saved[0] = None

    def _check_cache_size(self) -> None:
        if len(self._simplify_cache) > _CACHE_LIMIT or len(self._keys) > _CACHE_LIMIT:
            self._reset_caches()

    # -- simplification --------------------------------------------------------------
    def rewrite_simplify(self, expr) -> PrimExpr:
        """Apply the rewrite rules (linear sums, div/mod, min/max, logic) to a fixpoint; the
        result is spelled as TVM's rewrite simplifier writes it (``x + -1``, ``0 - y``)."""
        from .rewrite_form import to_rewrite_form

        self._check_cache_size()
        return to_rewrite_form(Simplifier(self).visit(as_expr(expr)))

    def canonical_simplify(self, expr) -> PrimExpr:
        """Bring integer sums to canonical linear form.

        ember has one engine for both: the rule table always rebuilds integer sums in
        canonical linear form; ``rewrite_simplify`` and ``canonical_simplify`` only spell
        its result the way TVM's two simplifiers do (terms by scale, ``y*2 + 1 - x*2``).
        """
        from .canonical_form import to_canonical_form

        return to_canonical_form(self._simplify_once(expr))

    def _simplify_once(self, expr) -> PrimExpr:
        self._check_cache_size()
        return Simplifier(self).visit(as_expr(expr))

    def simplify(self, expr, steps: int = 2) -> PrimExpr:
        """Simplify ``expr``; ``steps`` rounds of rewrite + canonical simplification."""
        expr = as_expr(expr)
        for _ in range(max(1, steps)):
            new = self._simplify_once(expr)
            if new is expr:
                break
            expr = new
        return expr

    # -- analyses ---------------------------------------------------------------------
    def const_int_bound(self, expr) -> ConstIntBound:
        """The constant interval holding every value of ``expr``."""
        expr = as_expr(expr)
        self._check_cache_size()
        return to_public(bound_of(self, expr))

    def modular_set(self, expr) -> ModularSet:
        """``ModularSet(coeff, base)``: every value of ``expr`` is ``coeff*k + base``."""
        expr = as_expr(expr)
        return modular_of(self, expr)

    def can_prove(self, cond, strength=None) -> bool:
        """True when ``cond`` provably holds (False means "could not prove").

        ``strength`` is accepted for TVM compatibility; symbolic bounds are always used.
        """
        cond = as_expr(cond)
        if not cond.dtype.is_bool:
            raise TypeError(f"can_prove: cond must be a boolean expression, got {cond.dtype}: {cond!r}")
        result = self.simplify(cond)
        return type(result) is IntImm and bool(result.value)

    def can_prove_equal(self, lhs, rhs) -> bool:
        """True when ``lhs == rhs`` provably holds."""
        lhs, rhs = as_expr(lhs), as_expr(rhs)
        if is_int_scalar(lhs.dtype) and is_int_scalar(rhs.dtype):
            diff = self.simplify(lhs - rhs)
            return type(diff) is IntImm and diff.value == 0
        a, b = self.simplify(lhs), self.simplify(rhs)
        return Simplifier(self).same(a, b)

    def int_set(self, expr, dom_map=None):
        """The IntSet of ``expr`` when the variables of ``dom_map`` range over their sets."""
        from .int_set import eval_set

        return eval_set(expr, dom_map or {}, analyzer=self)

    # -- learning facts ------------------------------------------------------------------
    def bind(self, var: Var, expr, allow_override: bool = False) -> None:
        """Tell the analyzer ``var`` ranges over a ``Range`` or equals an expression."""
        if not isinstance(var, Var):
            raise TypeError(f"bind: var must be a tir.Var, got {type(var).__name__}: {var!r}")
        if isinstance(expr, Range):
            self._bind_range(var, expr, allow_override)
        else:
            value = self.simplify(as_expr(expr, var.dtype))
            old = self._var_values.get(var)
            if old is not None and not allow_override and not Simplifier(self).same(old, value):
                raise ValueError(
                    f"bind: variable {var.name!r} is already bound to {old!r}; "
                    f"cannot rebind it to {value!r} without allow_override=True"
                )
            self._var_values[var] = value
            self._var_bounds[var] = bound_of(self, value)
            self._changed(var)

    def _bind_range(self, var: Var, rng: Range, allow_override: bool) -> None:
        lo = self.simplify(rng.min)
        extent = self.simplify(rng.extent)
        if type(extent) is IntImm and extent.value == 1:
            self.bind(var, lo, allow_override)
            return
        known = self._var_ranges.get(var)
        if known is not None and known.min is lo and known.extent is extent:
            return  # the same range again
        hi = self.simplify(lo + extent - 1)
        b_lo, b_hi = bound_of(self, lo)[0], bound_of(self, hi)[1]
        self._update_bound(var, (b_lo, b_hi), allow_override)
        self._var_ranges[var] = Range(lo, extent)
        if is_int_scalar(var.dtype) and not (type(lo) is IntImm and type(hi) is IntImm):
            s = Simplifier(self)
            v = s.linear(var)
            self._facts.add(s.linear(lo).plus(v, -1))  # lo - var <= 0
            self._facts.add(v.plus(s.linear(hi), -1))  # var - hi <= 0
        self._changed(var)

    def update(self, var: Var, info, override: bool = False) -> None:
        """Record ``info`` (a ConstIntBound, ModularSet, Range or expression) about ``var``."""
        if isinstance(info, ConstIntBound):
            self._update_bound(var, from_public(info), override)
        elif isinstance(info, ModularSet):
            old = self._var_modular.get(var)
            if old is not None and old != info and not override:
                raise ValueError(
                    f"update: variable {var.name!r} already has modular set {old}; "
                    f"pass override=True to replace it with {info}"
                )
            self._var_modular[var] = make_modular(info.coeff, info.base)
        elif isinstance(info, Range | PrimExpr | int):
            self.bind(var, info, allow_override=override)
            return
        else:
            raise TypeError(
                f"update: info must be a ConstIntBound, ModularSet, Range or PrimExpr, "
                f"got {type(info).__name__}"
            )
        self._changed(var)

    def _update_bound(self, var: Var, bound: tuple, override: bool) -> None:
        old = self._var_bounds.get(var)
        if old is not None and old != bound and not override:
            raise ValueError(
                f"update: variable {var.name!r} is already bounded to {to_public(old)}; "
                f"cannot change it to {to_public(bound)} without override=True"
            )
        self._var_bounds[var] = bound

    @contextlib.contextmanager
    def constraint_scope(self, cond):
        """Inside the ``with`` block, assume ``cond`` holds."""
        cond = as_expr(cond)
        if not cond.dtype.is_bool:
            raise TypeError(f"constraint_scope: cond must be boolean, got {cond.dtype}: {cond!r}")
        cond = self.simplify(cond)
        saved = self._save_caches()  # valid again once the scope is left
        self._saved.append(saved)
        self._reset_caches()
        undo = self._assume(cond)
        old_modular = self._assume_residues(cond)
        try:
            yield self
        finally:
            for var, old in old_modular.items():
                if old is None:
                    self._var_modular.pop(var, None)
                else:
                    self._var_modular[var] = old
            old_bounds, facts, opaque = undo
            for var, bound in old_bounds.items():
                if bound is None:
                    self._var_bounds.pop(var, None)
                else:
                    self._var_bounds[var] = bound
            self._facts.remove({id(f) for f in facts})
            dropped = {id(c) for c in opaque}
            self._opaque_facts = [c for c in self._opaque_facts if id(c) not in dropped]
            self._saved.pop()
            self._restore_caches(saved)

    def _assume_residues(self, cond: PrimExpr) -> dict:
        """Learn ``v % c == k`` conjuncts as modular sets of ``v`` (intersected with what is
        known); returns the previous modular sets, to restore."""
        from ember.ir import EQ, And, FloorMod, Mod

        old: dict = {}
        stack = [cond]
        while stack:
            c = stack.pop()
            if isinstance(c, And):
                stack += [c.a, c.b]
                continue
            if not isinstance(c, EQ):
                continue
            lhs, rhs = (c.a, c.b) if isinstance(c.b, IntImm) else (c.b, c.a)
            if not (isinstance(lhs, FloorMod | Mod) and isinstance(lhs.a, Var) and isinstance(lhs.b, IntImm)
                    and isinstance(rhs, IntImm) and lhs.b.value > 0):
                continue
            var = lhs.a
            known = self._var_modular.get(var, ModularSet(1, 0))
            both = intersect_modular(known, make_modular(lhs.b.value, rhs.value))
            if both is not None:
                old.setdefault(var, self._var_modular.get(var))
                self._var_modular[var] = both
                self._changed(var)
        return old

    def enter_constraint_scope(self, cond) -> Callable[[], None]:
        """Non-``with`` form of ``constraint_scope``: returns the function that leaves it."""
        scope = self.constraint_scope(cond)
        scope.__enter__()
        return lambda: scope.__exit__(None, None, None)

    def _assume(self, cond: PrimExpr) -> tuple:
        """Add ``cond`` to the facts; returns what to undo (old bounds, facts, opaque facts)."""
        from .rules_logic import as_facts

        s = Simplifier(self)
        linear, opaque = as_facts(s, cond)
        self._opaque_facts.extend(opaque)
        old_bounds: dict = {}
        for f in linear:
            self._facts.add(f)
            if len(f.terms) == 1:  # c*v + k <= 0 bounds a single atom
                (atom, c), = f.terms.values()
                if isinstance(atom, Var):
                    if atom not in old_bounds:
                        old_bounds[atom] = self._var_bounds.get(atom)
                    lo, hi = bound_of(self, atom)
                    if c > 0:
                        hi = min(hi, (-f.const) // c)
                    else:
                        lo = max(lo, _ceil_div(f.const, -c))
                    self._var_bounds[atom] = (lo, hi)
                    self._bound_cache.pop(id(atom), None)
        self._reset_caches()
        return old_bounds, linear, opaque

    # -- helpers for scoped bindings used by the simplifier ---------------------------
    def _with_value(self, var: Var, value: PrimExpr, fn: Callable):
        old = self._var_values.get(var)
        self._var_values[var] = value
        try:
            return fn()
        finally:
            if old is None:
                self._var_values.pop(var, None)
            else:
                self._var_values[var] = old

    def _with_bound(self, var: Var, bound: tuple, fn: Callable):
        old = self._var_bounds.get(var)
        self._var_bounds[var] = bound
        try:
            return fn()
        finally:
            if old is None:
                self._var_bounds.pop(var, None)
            else:
                self._var_bounds[var] = old


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)

