"""UnswitchGuardedLoops: a serial loop whose whole body is ``if i < n: S`` gets an unguarded copy.

``rfactor`` over a split with a tail predicate leaves the partial results' combine as
``for k in range(16): if k < seq: acc = acc + acc_rf[k]`` (a softmax row of symbolic
length).  Every iteration tests a bound that does not change in the loop, and the code
generator turns the sixteen guarded adds into masked moves.  The loop becomes
``if 16 <= seq: for k in range(16): acc = acc + acc_rf[k]`` with the guarded loop as the
else branch: the common case runs without the tests and keeps its constant trip count
(bounding the loop by ``min(16, seq)`` instead kept ``acc_rf`` out of registers, 1.5x
slower).

Only SERIAL loops of constant extent starting at 0 with no else branch and a condition
``i < n`` (or ``n > i``) where ``n`` does not depend on ``i`` and reads no buffer are rewritten; runs on
lowered flat TIR before VectorizeLoop (VECTORIZED loops keep their guard, which
VectorizeLoop turns into a whole-vector test).
"""

from __future__ import annotations

from ember.ir import GT, LE, LT, Call, IntImm, replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..buffer import BufferLoad
from ..stmt import For, ForKind, IfThenElse

__all__ = ["UnswitchGuardedLoops", "unswitch_guarded_loops"]


def _bound(cond, var):
    """``n`` when ``cond`` is ``var < n`` or ``n > var`` with ``n`` free of ``var``."""
    if isinstance(cond, LT) and cond.a is var:
        bound = cond.b
    elif isinstance(cond, GT) and cond.b is var:
        bound = cond.a
    else:
        return None
    # a load or call could change inside the loop (the body may store to what it reads)
    return None if collect(bound, lambda n: n is var or isinstance(n, BufferLoad | Call)) else bound


class _Unswitcher(IRMutator):
    def visit_For(self, s: For):
        s = self.generic_visit(s)
        body = s.body
        if s.kind != ForKind.SERIAL or not isinstance(s.min, IntImm) \
                or s.min.value != 0 or not isinstance(body, IfThenElse) or body.else_case is not None:
            return s
        bound = _bound(body.condition, s.loop_var)
        if bound is None or bound.dtype != s.extent.dtype or not isinstance(s.extent, IntImm):
            return s
        # the loop keeps its constant trip count (unrolled, its accumulators in registers)
        return IfThenElse(LE(s.extent, bound), replace(s, body=body.then_case), s)


def unswitch_guarded_loops(func: PrimFunc) -> PrimFunc:
    body = _Unswitcher().visit(func.body)
    return func if body is func.body else replace(func, body=body)


def UnswitchGuardedLoops() -> Pass:  # noqa: N802 (TVM-style pass constructor)
    from ._common import make_pass

    return make_pass(unswitch_guarded_loops, "tir.UnswitchGuardedLoops")
