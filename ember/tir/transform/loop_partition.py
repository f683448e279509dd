"""LoopPartition: split a loop where the conditions in its body change value.

A condition in the body (an ``if``, a ``Select`` or an ``if_then_else``; only those
wrapped in ``likely(...)`` unless the loop carries the ``pragma_loop_partition_hint``
annotation) is split into its ``&&`` terms.  For each term that compares an affine use
of the loop variable, ``arith.deduce_bound`` gives the values of the variable for which
the term holds — and for which it fails — for *every* value of the loops inside.  The
ends of those ranges cut the loop into consecutive pieces; in each piece the terms whose
value is known there are replaced by ``True`` / ``False`` (Simplify and RemoveNoOp then
drop the dead branches), and the piece's loop starts at 0 (its variable shifted in the
body).  A piece of one iteration becomes its body.

Loops with constant bounds are cut at every end found; a loop with symbolic bounds at
the ends of the first term that gives some (pieces clamped to the loop's range).  Which
loops are considered: SERIAL loops with a symbolic extent, every SERIAL loop with the
config ``{"tir.LoopPartition": {"partition_const_loop": True}}``, and loops with the
hint.  With ``unroll_loop_with_partition_hint_no_interval`` a hinted piece in which some
term stays unknown becomes an UNROLLED loop.  ``no_unroll_loop_with_extent_one`` keeps
loops of one iteration.  Pieces repeat the body, so each copy gets fresh variables for
what it defines.
"""

from __future__ import annotations

import contextlib

from ember.arith import Analyzer
from ember.arith.deduce_bound import deduce_bound
from ember.arith.int_set import IntSet
from ember.ir import (
    EQ, GE, GT, LE, LT, NE, And, Call, Cast, IntImm, Max, Min, PrimExpr, Range, Select, Var, const,
    replace, structural_equal,
)
from ember.transform import Pass, PassContext, prim_func_pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect, post_order_visit, substitute
from ..stmt import For, ForKind, IfThenElse, SeqStmt, seq
from ._common import call_op_name, logger
from ._fresh import copy_with_fresh_vars

__all__ = ["loop_partition", "LoopPartition", "HINT"]

HINT = "pragma_loop_partition_hint"
_COMPARE = (LT, LE, GT, GE, EQ, NE)
_FLIP = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}


def _options() -> dict:
    cfg = PassContext.current().config.get("tir.LoopPartition") or {}
    if not isinstance(cfg, dict):
        cfg = {k: getattr(cfg, k) for k in dir(cfg) if not k.startswith("_")}
    return {k: bool(v) for k, v in cfg.items()}


def _terms(cond, likely: bool, out: list) -> None:
    """The ``&&`` terms of ``cond`` (those under ``likely`` only, unless ``likely`` is False)."""
    if call_op_name(cond) == "tir.likely":
        _terms(cond.args[0], False, out)
    elif isinstance(cond, And):
        _terms(cond.a, likely, out)
        _terms(cond.b, likely, out)
    elif isinstance(cond, _COMPARE) and not likely:
        out.append(cond)


def _conditions(body, hinted: bool) -> list:
    """Comparison terms of the conditions in ``body``."""
    found: list = []

    def visit(node):
        cond = None
        if isinstance(node, IfThenElse | Select):
            cond = node.condition
        elif call_op_name(node) == "tir.if_then_else":
            cond = node.args[0]
        if cond is not None:
            _terms(cond, not hinted, found)

    post_order_visit(body, visit)
    out: list = []
    for t in found:
        if not any(structural_equal(t, o, map_free_vars=False) for o in out):
            out.append(t)
    return out


def _inner_loops(body) -> dict:
    loops: dict = {}

    def visit(node):
        if isinstance(node, For):
            loops[node.loop_var] = Range(node.min, node.extent)

    post_order_visit(body, visit)
    return loops


class _Term:
    """A comparison term with the ranges of the loop variable where it holds / fails."""

    def __init__(self, expr, holds, fails):
        self.expr, self.holds, self.fails = expr, holds, fails


def _ranges(var, term, inner: dict, ana):
    used = {id(v) for v in collect(term, lambda x: isinstance(x, Var))}
    if id(var) not in used or collect(term, lambda x: isinstance(x, BufferLoad | Call)):
        return None
    relax = {v: r for v, r in inner.items() if id(v) in used}
    if any(id(var) in {id(u) for u in collect((r.min, r.extent), lambda x: isinstance(x, Var))}
           for r in relax.values()):
        return None  # an inner loop whose range depends on the variable
    holds = deduce_bound(var, term, relax, relax)
    fails = deduce_bound(var, _FLIP[type(term)](term.a, term.b), relax, relax)
    if holds.is_nothing() and fails.is_nothing():
        return None
    return _Term(term, _simplified(holds, ana), _simplified(fails, ana))


def _simplified(s, ana):
    """``s`` with its ends simplified knowing the enclosing loops (an outer unit loop is 0)."""
    if s.is_nothing():
        return s
    lo = ana.simplify(s.min_value) if s.has_lower_bound() else s.min_value
    hi = ana.simplify(s.max_value) if s.has_upper_bound() else s.max_value
    return IntSet(lo, hi)


def _outside(point_set, first, last, ana) -> bool:
    """Whether the single point of ``point_set`` lies outside ``[first, last]``."""
    if point_set.is_nothing() or not point_set.is_single_point():
        return False
    p = point_set.min_value
    return ana.can_prove(p < first) or ana.can_prove(last < p)


def _const_cuts(terms, lo: int, hi: int) -> list[int]:
    """Constant ends of the terms' ranges strictly inside ``(lo, hi)``."""
    cuts = set()
    for t in terms:
        for s in (t.holds, t.fails):
            if s.is_nothing():
                continue
            if s.has_lower_bound() and isinstance(s.min_value, IntImm):
                cuts.add(s.min_value.value)
            if s.has_upper_bound() and isinstance(s.max_value, IntImm):
                cuts.add(s.max_value.value + 1)
    return sorted(c for c in cuts if lo < c < hi)


def _covers(s, first, last, ana) -> bool:
    if s.is_nothing():
        return False
    ok_lo = not s.has_lower_bound() or ana.can_prove(s.min_value <= first)
    ok_hi = not s.has_upper_bound() or ana.can_prove(last <= s.max_value)
    return ok_lo and ok_hi


class _Replace(IRMutator):
    def __init__(self, known: list):
        super().__init__()
        self.known = known  # (term expr, bool)

    def visit(self, x):
        if isinstance(x, PrimExpr) and isinstance(x, _COMPARE):
            for term, value in self.known:
                if structural_equal(x, term, map_free_vars=False):
                    return const(value, "bool")
        return super().visit(x)


class _Partitioner(IRMutator):
    def __init__(self, options: dict):
        super().__init__()
        self.options = options
        self.analyzer = Analyzer()

    def visit_SeqStmt(self, stmt: SeqStmt):
        items = [self.visit(s) for s in stmt.seq]
        if all(a is b for a, b in zip(items, stmt.seq)):
            return stmt
        return seq(*items)  # a loop replaced by several statements joins the sequence

    def visit_AttrStmt(self, stmt):
        # LowerOpaqueBlock turns a loop's pragma annotation into AttrStmt(loop var, key, value)
        if stmt.attr_key == HINT and isinstance(stmt.body, For) and stmt.node is stmt.body.loop_var:
            return self.visit_For(stmt.body, hinted=True)
        return self.generic_visit(stmt)

    def visit_For(self, loop: For, hinted: bool = False):
        hinted = hinted or bool(loop.annotations.get(HINT))
        candidate = loop.kind == ForKind.SERIAL or hinted
        const_loop = isinstance(loop.min, IntImm) and isinstance(loop.extent, IntImm)
        if candidate and (hinted or not const_loop or self.options.get("partition_const_loop")):
            out = self._partition(loop, hinted, const_loop)
            if out is not None:
                return out
        if hinted:
            loop = replace(loop, annotations={k: v for k, v in loop.annotations.items() if k != HINT})
        with self._bound(loop.loop_var, loop.min, loop.extent):
            return self.generic_visit(loop)

    def _bound(self, var, lo, extent):
        """Inside the loop its variable ranges over ``[lo, lo + extent)``."""
        if not var.dtype.is_int:
            return contextlib.nullcontext()
        return self.analyzer.constraint_scope(And(LE(lo, var), LT(var, lo + extent)))

    def _partition(self, loop: For, hinted: bool, const_loop: bool):
        v = loop.loop_var
        inner = _inner_loops(loop.body)
        terms = [t for t in (_ranges(v, c, inner, self.analyzer) for c in _conditions(loop.body, hinted)) if t is not None]
        unroll = hinted and self.options.get("unroll_loop_with_partition_hint_no_interval")
        annotations = {k: val for k, val in loop.annotations.items() if k != HINT}
        if not terms:
            if hinted:
                kind = ForKind.UNROLLED if unroll and const_loop else loop.kind
                return replace(loop, kind=kind, annotations=annotations, body=self.visit(loop.body))
            return None
        begin, end = loop.min, self.analyzer.simplify(loop.min + loop.extent)
        if const_loop:
            cuts = _const_cuts(terms, begin.value, end.value)
            if not cuts and not any(_covers(t.holds, begin, end - 1, self.analyzer) or
                                    _covers(t.fails, begin, end - 1, self.analyzer) for t in terms):
                if hinted:
                    kind = ForKind.UNROLLED if unroll else loop.kind
                    return replace(loop, kind=kind, annotations=annotations, body=self.visit(loop.body))
                return None
            bounds = [begin] + [const(c, begin.dtype) for c in cuts] + [end]
            inside = None
        else:
            found = self._symbolic_bounds(terms, begin, end)
            if found is None:
                return None
            bounds, inside = found
        pieces = []
        for n, (first, stop) in enumerate(zip(bounds, bounds[1:])):
            given = inside[1] if inside is not None and inside[0] == n else []
            piece = self._piece(loop, terms, first, stop, annotations, unroll, fresh=n > 0, given=given)
            if piece is not None:
                pieces.append(piece)
        logger.debug("LoopPartition: loop %s cut into %d pieces", v.name, len(pieces))
        return seq(*pieces) if pieces else replace(loop, body=self.visit(loop.body))

    def _symbolic_bounds(self, terms, begin, end):
        """Cuts around the range where every term with a known range holds (else where the
        first term with one fails), and which piece lies inside it by construction."""
        ana = self.analyzer
        for kind in ("holds", "fails"):
            chosen = [t for t in terms if not getattr(t, kind).is_nothing() and not getattr(t, kind).is_everything()]
            if kind == "fails":
                chosen = chosen[:1]
            if not chosen:
                continue
            lows = [getattr(t, kind).min_value for t in chosen if getattr(t, kind).has_lower_bound()]
            highs = [ana.simplify(getattr(t, kind).max_value + 1) for t in chosen if getattr(t, kind).has_upper_bound()]
            cuts = []
            if lows:
                cuts.append(_fold(Max, lows))
            if highs:
                cuts.append(_fold(Min, highs))
            out, prev = [begin], begin
            for c in cuts:
                c = c if c.dtype == begin.dtype else Cast(begin.dtype, c)
                c = ana.simplify(Max(prev, Min(c, end)))
                out.append(c)
                prev = c
            out.append(end)
            given = [(t.expr, kind == "holds") for t in chosen]
            return out, (1 if lows else 0, given)
        return None

    def _piece(self, loop, terms, first, stop, annotations, unroll, fresh, given=()):
        ana = self.analyzer
        extent = ana.simplify(stop - first)
        if isinstance(extent, IntImm) and extent.value <= 0:
            return None
        last = ana.simplify(stop - 1)
        known, unknown = list(given), False
        with ana.constraint_scope(first <= stop):
            for t in terms:
                if any(k is t.expr for k, _ in given):
                    continue
                if _covers(t.holds, first, last, ana) or _outside(t.fails, first, last, ana):
                    known.append((t.expr, True))
                elif _covers(t.fails, first, last, ana) or _outside(t.holds, first, last, ana):
                    known.append((t.expr, False))
                else:
                    unknown = True
        body = _Replace(known).visit(loop.body) if known else loop.body
        v = loop.loop_var
        one = isinstance(extent, IntImm) and extent.value == 1
        if one and not self.options.get("no_unroll_loop_with_extent_one") and not annotations:
            body = substitute(body, {v: first})
            return self.visit(copy_with_fresh_vars(body) if fresh else body)
        new_var = Var(v.name, v.dtype) if fresh else v
        body = substitute(body, {v: new_var + first if not _is_zero(first) else new_var})
        if fresh:
            body = copy_with_fresh_vars(body)
        kind = ForKind.UNROLLED if unroll and unknown and isinstance(extent, IntImm) else loop.kind
        return For(new_var, const(0, v.dtype), extent, kind, self.visit(body), loop.thread_binding, annotations)


def _fold(op, items):
    out = items[0]
    for x in items[1:]:
        out = op(out, x)
    return out


def _is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def loop_partition(func: PrimFunc, options: dict | None = None) -> PrimFunc:
    """Split ``func``'s loops where their conditions change value (module docstring)."""
    return func.with_body(_Partitioner(options if options is not None else _options()).visit(func.body))


def LoopPartition() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`loop_partition`; options from the PassContext's
    ``"tir.LoopPartition"`` config (read when the pass runs)."""
    return prim_func_pass(lambda func, mod, ctx: loop_partition(func), opt_level=0, name="tir.LoopPartition")

