"""UnrollLoop: expand loops into straight-line copies of their bodies.

* A loop of kind UNROLLED with a constant extent of at most ``explicit_max_extent``
  (default 256) is fully unrolled; a longer or symbolic one stays an UNROLLED loop
  (the codegen may hint it) and the reason is logged.
* Under a ``pragma_auto_unroll_max_step`` annotation (on an enclosing loop, or an
  ``AttrStmt`` of that key) a SERIAL loop with constant extent whose body has no
  loop left is unrolled when extent × statements in its body ≤ the limit.  The
  PassContext config ``{"tir.UnrollLoop": {"auto_max_step": n}}`` sets a default
  limit for the whole function, ``"explicit_unroll": False`` keeps UNROLLED loops.

Each copy gets fresh variables for the loops, lets and allocations it defines.
Assumes VectorizeLoop ran (a VECTORIZED loop is never unrolled here).
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import Var, replace
from ember.transform import Pass, PassContext, prim_func_pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import AttrStmt, BufferStore, Evaluate, For, ForKind, SeqStmt, seq
from ._common import as_const_int, logger, no_op
from ._fresh import copy_with_fresh_vars

__all__ = ["unroll_loop", "UnrollLoop"]

AUTO_KEY = "pragma_auto_unroll_max_step"
EXPLICIT_KEY = "pragma_unroll_explicit"


def _steps(stmt) -> int:
    """Leaf statements executed by ``stmt`` when loop-free (a rough code-size measure)."""
    if isinstance(stmt, SeqStmt):
        return sum(_steps(s) for s in stmt.seq)
    if isinstance(stmt, BufferStore | Evaluate):
        return 1
    if isinstance(stmt, For) and stmt.kind == ForKind.UNROLLED and as_const_int(stmt.extent):
        return as_const_int(stmt.extent) * _steps(stmt.body)  # a kept unrolled loop's copies
    body = getattr(stmt, "body", None)
    then_case = getattr(stmt, "then_case", None)
    if then_case is not None:
        return _steps(then_case) + (_steps(stmt.else_case) if stmt.else_case is not None else 0)
    return 1 + (_steps(body) if body is not None else 0)


def _has_loop(stmt, count_unrolled: bool = True) -> bool:
    """Whether ``stmt`` holds a loop (with ``count_unrolled=False``, a constant-extent
    UNROLLED loop does not count: it stands for copies of its body)."""
    from ..functor import collect

    def is_loop(n) -> bool:
        if not isinstance(n, For):
            return False
        return count_unrolled or not (n.kind == ForKind.UNROLLED and as_const_int(n.extent))

    return bool(collect(stmt, is_loop))


class _Unroller(IRMutator):
    def __init__(self, auto_max_step: int, explicit: bool, explicit_max_extent: int):
        super().__init__()
        self.auto_max_step = auto_max_step
        self.explicit = explicit
        self.explicit_max_extent = explicit_max_extent

    def visit_AttrStmt(self, attr: AttrStmt):
        if attr.attr_key == EXPLICIT_KEY:  # LowerOpaqueBlock's form of the loop annotation
            saved_explicit, self.explicit = self.explicit, bool(as_const_int(attr.value))
            try:
                return self.visit(attr.body)
            finally:
                self.explicit = saved_explicit
        if attr.attr_key != AUTO_KEY:
            return self.generic_visit(attr)
        saved, self.auto_max_step = self.auto_max_step, int(as_const_int(attr.value) or 0)
        try:
            return self.visit(attr.body)
        finally:
            self.auto_max_step = saved

    def visit_SeqStmt(self, stmt: SeqStmt):
        items = [self.visit(s) for s in stmt.seq]
        if all(a is b for a, b in zip(items, stmt.seq)):
            return stmt
        return seq(*items)  # a loop replaced by several statements joins the sequence

    def visit_For(self, loop: For):
        saved = (self.auto_max_step, self.explicit)
        annotations = loop.annotations
        if AUTO_KEY in annotations:
            self.auto_max_step = int(as_const_int(annotations[AUTO_KEY]) or 0)
        if EXPLICIT_KEY in annotations:
            self.explicit = bool(as_const_int(annotations[EXPLICIT_KEY]))
        try:
            body = self.visit(loop.body)
        finally:
            auto_max_step, explicit = self.auto_max_step, self.explicit
            self.auto_max_step, self.explicit = saved
        kept = {k: v for k, v in annotations.items() if k not in (AUTO_KEY, EXPLICIT_KEY)}
        loop = replace(loop, body=body, annotations=kept if len(kept) != len(annotations) else annotations)
        extent = as_const_int(loop.extent)
        if extent is None and not isinstance(loop.extent, Var):  # (n + 2) - n is 2
            extent = as_const_int(Analyzer().simplify(loop.extent))
        if loop.kind == ForKind.UNROLLED:
            if extent is None or extent > self.explicit_max_extent or not explicit:
                logger.debug(
                    "loop %s kept as an unrolled-kind loop: extent %s (limit %d, explicit %s)",
                    loop.loop_var.name, loop.extent, self.explicit_max_extent, explicit,
                )
                return loop
            return _expand(loop, extent)
        if (
            loop.kind == ForKind.SERIAL
            and extent is not None
            and auto_max_step > 0
            and not _has_loop(body, count_unrolled=explicit)
            and extent * _steps(body) <= auto_max_step
        ):
            # without explicit unrolling the loop is only marked, for the code generator (TVM)
            return _expand(loop, extent) if explicit else replace(loop, kind=ForKind.UNROLLED)
        return loop


def _expand(loop: For, extent: int):
    if extent <= 0:
        return no_op()
    copies = [copy_with_fresh_vars(loop.body, {loop.loop_var: loop.min + i}) for i in range(extent)]
    return seq(*copies)


def unroll_loop(func: PrimFunc, auto_max_step: int = 0, explicit_unroll: bool = True,
                explicit_max_extent: int = 256) -> PrimFunc:
    """Unroll the UNROLLED (and auto-unrollable) loops of ``func``."""
    unroller = _Unroller(auto_max_step, explicit_unroll, explicit_max_extent)
    return func.with_body(unroller.visit(func.body))


def UnrollLoop() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`unroll_loop`, configured by ``PassContext.config["tir.UnrollLoop"]``."""

    def run(func, mod, ctx: PassContext):
        cfg = dict(ctx.config.get("tir.UnrollLoop", {}) or {})
        return unroll_loop(
            func,
            auto_max_step=int(cfg.get("auto_max_step", 0)),
            explicit_unroll=bool(cfg.get("explicit_unroll", True)),
            explicit_max_extent=int(cfg.get("explicit_max_extent", 256)),
        )

    return prim_func_pass(run, name="tir.UnrollLoop")
