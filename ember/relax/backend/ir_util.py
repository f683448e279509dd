"""Small walking and rebuilding helpers over Relax expressions for the VM-lowering passes.

``substitute`` replaces variables; ``rewrite_bindings`` lets a pass turn each binding
into a list of bindings (recursing into ``If`` branches and nested functions);
``collect_vars`` lists the Relax variables an expression reads.  Rebuilt calls keep
their struct info, so the result stays normalised without a BlockBuilder.
"""

from __future__ import annotations

from collections.abc import Callable

from ember.ir import replace

from ..expr import Binding, BindingBlock, Call, Expr, Function, If, SeqExpr, Tuple, TupleGetItem, Var

__all__ = ["substitute", "rewrite_bindings", "collect_vars", "rebuild_call", "seq_of"]


def rebuild_call(call: Call, **changes) -> Call:
    """A copy of ``call`` with ``changes`` (op, args, attrs, sinfo_args) and the same struct info."""
    if all(getattr(call, k) is v for k, v in changes.items()):
        return call
    fields = {"op": call.op, "args": call.args, "attrs": call.attrs, "sinfo_args": call.sinfo_args}
    fields.update(changes)
    return Call(fields["op"], fields["args"], fields["attrs"], fields["sinfo_args"],
                struct_info=call.struct_info_or_none())


def substitute(expr: Expr, mapping: dict) -> Expr:
    """``expr`` with every variable in ``mapping`` replaced (bindings of mapped vars too)."""
    if not mapping:
        return expr
    return _Subst(mapping).visit(expr)


class _Subst:
    def __init__(self, mapping: dict):
        self.mapping = mapping

    def visit(self, e):
        if isinstance(e, Var):
            return self.mapping.get(e, e)
        if isinstance(e, Call):
            args = tuple(self.visit(a) for a in e.args)
            op = self.visit(e.op) if isinstance(e.op, Var) else e.op
            changed = op is not e.op or any(a is not b for a, b in zip(args, e.args))
            return rebuild_call(e, op=op, args=args) if changed else e
        if isinstance(e, Tuple):
            fields = tuple(self.visit(f) for f in e.fields)
            return e if all(a is b for a, b in zip(fields, e.fields)) else Tuple(fields)
        if isinstance(e, TupleGetItem):
            tup = self.visit(e.tuple_value)
            return e if tup is e.tuple_value else TupleGetItem(tup, e.index)
        if isinstance(e, If):
            return replace(e, cond=self.visit(e.cond), true_branch=self.visit(e.true_branch),
                           false_branch=self.visit(e.false_branch))
        if isinstance(e, SeqExpr):
            blocks = tuple(self.block(b) for b in e.blocks)
            body = self.visit(e.body)
            if body is e.body and all(a is b for a, b in zip(blocks, e.blocks)):
                return e
            return SeqExpr(blocks, body)
        if isinstance(e, Function):
            body = self.visit(e.body)
            params = tuple(self.mapping.get(p, p) for p in e.params)
            if body is e.body and all(a is b for a, b in zip(params, e.params)):
                return e
            return Function(params, body, e.ret_struct_info, e.is_pure, e.attrs)
        return e

    def block(self, block: BindingBlock) -> BindingBlock:
        bindings = tuple(self.binding(b) for b in block.bindings)
        if all(a is b for a, b in zip(bindings, block.bindings)):
            return block
        return type(block)(bindings)

    def binding(self, b: Binding) -> Binding:
        var = self.mapping.get(b.var, b.var)
        return replace(b, var=var, value=self.visit(b.value))


def seq_of(body: Expr) -> SeqExpr:
    """``body`` as a SeqExpr (a bare expression becomes one without blocks)."""
    return body if isinstance(body, SeqExpr) else SeqExpr((), body)


BindingRewriter = Callable[[Binding], "list[Binding] | None"]


def rewrite_bindings(expr: Expr, fn: BindingRewriter, body_fn=None) -> Expr:
    """Apply ``fn`` to every binding (``None``: keep it; a list: replace it by the list).

    Recurses into the values of bindings (``If`` branches, nested functions) first.
    ``body_fn(seq_body) -> (extra_bindings, new_body) | None`` may rewrite the result
    expression of each SeqExpr (for a call left there by normalisation).
    """
    if isinstance(expr, Function):
        body = rewrite_bindings(expr.body, fn, body_fn)
        return expr if body is expr.body else Function(expr.params, body, expr.ret_struct_info,
                                                       expr.is_pure, expr.attrs)
    if isinstance(expr, If):
        return replace(expr, true_branch=_branch(expr.true_branch, fn, body_fn),
                       false_branch=_branch(expr.false_branch, fn, body_fn))
    if not isinstance(expr, SeqExpr):
        return expr
    changed = False
    blocks = []
    for block in expr.blocks:
        out: list[Binding] = []
        for b in block.bindings:
            value = rewrite_bindings(b.value, fn, body_fn)
            if value is not b.value:
                b, changed = replace(b, value=value), True
            new = fn(b)
            if new is None:
                out.append(b)
            else:
                out.extend(new)
                changed = True
        blocks.append(type(block)(out) if changed else block)
    body = expr.body
    if body_fn is not None:
        res = body_fn(body)
        if res is not None:
            extra, body = res
            if extra:
                blocks.append(BindingBlock(extra))
            changed = True
    if not changed:
        return expr
    return SeqExpr([b for b in blocks if b.bindings], body)


def _branch(e: Expr, fn, body_fn) -> Expr:
    if isinstance(e, SeqExpr):
        return rewrite_bindings(e, fn, body_fn)
    wrapped = SeqExpr((), e)
    out = rewrite_bindings(wrapped, fn, body_fn)
    return e if out is wrapped else out


def collect_vars(expr, out: list | None = None) -> list:
    """The Relax variables read by ``expr`` (in order, with repeats), looking into nested scopes."""
    out = [] if out is None else out
    if isinstance(expr, Var):
        out.append(expr)
    elif isinstance(expr, Call):
        if isinstance(expr.op, Var):
            out.append(expr.op)
        for a in expr.args:
            collect_vars(a, out)
    elif isinstance(expr, Tuple):
        for f in expr.fields:
            collect_vars(f, out)
    elif isinstance(expr, TupleGetItem):
        collect_vars(expr.tuple_value, out)
    elif isinstance(expr, If):
        collect_vars(expr.cond, out)
        collect_vars(expr.true_branch, out)
        collect_vars(expr.false_branch, out)
    elif isinstance(expr, SeqExpr):
        for block in expr.blocks:
            for b in block.bindings:
                collect_vars(b.value, out)
        collect_vars(expr.body, out)
    elif isinstance(expr, Function):
        collect_vars(expr.body, out)
    return out
