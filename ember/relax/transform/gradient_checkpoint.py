"""Checkpointing for the Gradient pass: ``relax.grad.start_checkpoint`` / ``end_checkpoint``.

A value computed from a ``start_checkpoint`` marker, up to the ``end_checkpoint`` that closes
its segment, is *not kept* for the backward pass (unless it starts the next segment): when a
gradient needs it, the backward pass recomputes it (``<name>_cp``) from the kept values, once.  The markers
themselves disappear from the adjoint function (uses of a marker become uses of its
operand; a marker bound to a function output becomes a plain assignment).
"""

from __future__ import annotations

from ember.ir import Op, replace

from ..expr import Call, DataflowVar, Expr, Tuple, TupleGetItem, Var, VarBinding

__all__ = ["Checkpoints"]

_MARKERS = ("relax.grad.start_checkpoint", "relax.grad.end_checkpoint")


def _marker(value) -> str | None:
    if isinstance(value, Call) and isinstance(value.op, Op) and value.op.name in _MARKERS:
        return value.op.name
    return None


def substitute_vars(expr: Expr, fn) -> Expr:
    """``expr`` with each variable ``v`` among its operands (through tuples) replaced by ``fn(v)``."""
    if isinstance(expr, Var):
        return fn(expr)
    if isinstance(expr, Tuple):
        fields = [substitute_vars(f, fn) for f in expr.fields]
        return expr if all(a is b for a, b in zip(fields, expr.fields)) else Tuple(fields)
    if isinstance(expr, TupleGetItem):
        inner = substitute_vars(expr.tuple_value, fn)
        return expr if inner is expr.tuple_value else TupleGetItem(inner, expr.index)
    if isinstance(expr, Call):
        args = [substitute_vars(a, fn) for a in expr.args]
        return expr if all(a is b for a, b in zip(args, expr.args)) else replace(expr, args=tuple(args))
    return expr


def _uses(expr: Expr) -> list[Var]:
    found = []
    substitute_vars(expr, lambda v: found.append(v) or v)
    return found


class Checkpoints:
    """The forward bindings without markers, and which variables are recomputed."""

    def __init__(self, bb, bindings):
        self.bb = bb
        self.alias: dict[Var, Var] = {}
        self.inside: set[Var] = set()  # computed inside a segment: recomputed when needed
        self.value_of: dict[Var, Expr] = {}
        self.recomputed: dict[Var, Var] = {}
        self.bindings = []
        opened: set[Var] = set()  # start_checkpoint results
        for b in bindings:
            kind = _marker(b.value) if isinstance(b, VarBinding) else None
            if kind is not None:
                self.alias[b.var] = self.resolve(b.value.args[0])
                if kind == "relax.grad.start_checkpoint":  # its operand is kept
                    opened.add(b.var)
                    self.inside.discard(self.alias[b.var])
                if not isinstance(b.var, DataflowVar):  # an output: keep it, as an assignment
                    self.bindings.append(VarBinding(b.var, self.alias.pop(b.var)))
                continue
            value = substitute_vars(b.value, self.resolve) if self.alias else b.value
            if any(v in opened or v in self.inside for v in _uses(b.value)):
                self.inside.add(b.var)
            if value is not b.value:
                value = bb.normalize(value)
                b = VarBinding(b.var, value)
            self.value_of[b.var] = value
            self.bindings.append(b)

    def resolve(self, var: Var) -> Var:
        """The variable a marker stands for (itself when it is no marker)."""
        return self.alias.get(var, var)

    def recompute(self, expr: Expr) -> Expr:
        """``expr`` with values not kept (inside a segment) recomputed into the backward pass."""
        return substitute_vars(expr, self._recompute_var) if self.inside else expr

    def _recompute_var(self, var: Var) -> Var:
        if var not in self.inside:
            return var
        if var not in self.recomputed:
            value = self.recompute(self.value_of[var])
            self.recomputed[var] = self.bb.emit(value, var.name_hint + "_cp")
        return self.recomputed[var]
