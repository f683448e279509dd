"""PeelGuardedTail: a loop whose whole body is ``if v*c + d < n: A else: B`` runs A, then B.

VectorizeLoop turns a vectorised loop with a tail predicate over a symbolic extent (a softmax
row of ``seq`` values, 16 lanes) into ``for v in range(ceil(seq / 16)): if v*16 + 15 < seq:
<vector body> else: <lane-by-lane tail>``.  The condition holds for a prefix of the
iterations and fails for the rest, so the loop is split there::

    for v in range(k): <vector body>                  # k = clamp(ceil((n - d) / c), 0, extent)
    for v in range(k, extent): <lane-by-lane tail>

and the common case runs without a test per vector (LLVM can unroll a loop without a branch).
Only SERIAL loops whose whole body is such an ``IfThenElse`` (c a positive constant, d a
constant, n free of v and of loads and calls) are rewritten; runs on lowered flat TIR after
VectorizeLoop.  A loop of constant extent with a constant bound is left to Simplify.
"""

from __future__ import annotations

from ember.ir import LT, Add, Call, IntImm, Max, Min, Mul, Var, const, replace
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect, substitute
from ..stmt import For, ForKind, IfThenElse, LetStmt, SeqStmt

__all__ = ["PeelGuardedTail", "peel_guarded_tail"]


def _linear(e, var) -> tuple[int, int] | None:
    """(c, d) when ``e`` is ``var * c + d`` (c, d constants), else None."""
    d = 0
    if isinstance(e, Add) and isinstance(e.b, IntImm):
        e, d = e.a, e.b.value
    if e is var:
        return 1, d
    if isinstance(e, Mul) and e.a is var and isinstance(e.b, IntImm):
        return e.b.value, d
    return None


def _split_point(cond, var):
    """(c, d, n) when ``cond`` is ``var * c + d < n`` with c > 0 and n free of var, loads, calls."""
    if not isinstance(cond, LT):
        return None
    form = _linear(cond.a, var)
    if form is None or form[0] <= 0:
        return None
    n = cond.b
    if collect(n, lambda x: x is var or isinstance(x, BufferLoad | Call)):
        return None
    return form[0], form[1], n


class _Peeler(IRMutator):
    def __init__(self):
        super().__init__()
        self.count = 0

    def visit_For(self, s: For):
        s = self.generic_visit(s)
        body = s.body
        if s.kind != ForKind.SERIAL or not isinstance(body, IfThenElse) or body.else_case is None:
            return s
        if not isinstance(s.min, IntImm) or s.min.value != 0:
            return s
        found = _split_point(body.condition, s.loop_var)
        if found is None or (isinstance(s.extent, IntImm) and isinstance(found[2], IntImm)):
            return s
        c, d, n = found
        dtype = s.extent.dtype
        if n.dtype != dtype:
            return s
        # v*c + d < n  <=>  v < ceil((n - d) / c)
        first = (n - const(d, dtype) + const(c - 1, dtype)) // const(c, dtype) if c != 1 else n - const(d, dtype)
        k = Var(f"{s.loop_var.name}_peel{self.count}", dtype)
        self.count += 1
        head = replace(s, extent=k, body=body.then_case)
        tail_var = Var(s.loop_var.name, dtype)
        tail = replace(s, loop_var=tail_var, min=k, extent=s.extent - k,
                       body=substitute(body.else_case, {s.loop_var: tail_var}))
        bound = Max(Min(first, s.extent), const(0, dtype))
        return LetStmt(k, bound, SeqStmt((head, tail)))


def peel_guarded_tail(func: PrimFunc) -> PrimFunc:
    body = _Peeler().visit(func.body)
    return func if body is func.body else replace(func, body=body)


def PeelGuardedTail() -> Pass:  # noqa: N802 (TVM-style pass constructor)
    from ._common import make_pass

    return make_pass(peel_guarded_tail, "tir.PeelGuardedTail")
