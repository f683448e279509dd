"""The VM pipeline's ToNonDataflow: dataflow blocks become ordinary binding blocks.

The lowering to the VM emits impure calls (allocations, destination-passing kernel
calls), which dataflow blocks must not contain, so it first turns every
``DataflowBlock`` into a ``BindingBlock`` and every ``DataflowVar`` into a ``Var``.
``ToNonDataflowIfNeeded()`` returns the Relax engineer's ``ToNonDataflow`` pass when
it exists in ``ember.relax.transform`` and this fallback otherwise.
"""

from __future__ import annotations

from ember.ir import IRModule

from ..backend.ir_util import substitute
from ..expr import BindingBlock, DataflowBlock, DataflowVar, Function, SeqExpr, Var

__all__ = ["ToNonDataflowIfNeeded", "to_non_dataflow"]


def _dataflow_vars(expr, found: dict) -> None:
    if isinstance(expr, SeqExpr):
        for block in expr.blocks:
            for b in block.bindings:
                if isinstance(b.var, DataflowVar) and b.var not in found:
                    found[b.var] = Var(b.var.name_hint, b.var.struct_info)
                _dataflow_vars(b.value, found)
        _dataflow_vars(expr.body, found)
    elif hasattr(expr, "true_branch"):
        _dataflow_vars(expr.true_branch, found)
        _dataflow_vars(expr.false_branch, found)


def _unblock(expr):
    if isinstance(expr, SeqExpr):
        blocks = [BindingBlock(b.bindings) if isinstance(b, DataflowBlock) else b for b in expr.blocks]
        return SeqExpr(blocks, expr.body)
    return expr


def to_non_dataflow(func: Function) -> Function:
    """``func`` without dataflow blocks (top level; nested scopes never hold them)."""
    mapping: dict = {}
    _dataflow_vars(func.body, mapping)
    has_blocks = isinstance(func.body, SeqExpr) and any(isinstance(b, DataflowBlock) for b in func.body.blocks)
    if not mapping and not has_blocks:
        return func
    body = _unblock(substitute(func.body, mapping))
    return Function(func.params, body, func.ret_struct_info, func.is_pure, func.attrs)


def _fallback(mod: IRModule, ctx) -> IRModule:
    funcs = {gv: to_non_dataflow(f) if isinstance(f, Function) else f for gv, f in mod.functions.items()}
    if all(funcs[gv] is f for gv, f in mod.functions.items()):
        return mod
    return mod.with_functions(funcs)


def ToNonDataflowIfNeeded():  # noqa: N802 - pass constructor
    try:
        from ember.relax.transform import ToNonDataflow

        return ToNonDataflow()
    except (ImportError, AttributeError):
        from ember.transform import module_pass

        return module_pass(_fallback, opt_level=0, name="ToNonDataflow")
