"""Relax flavours of the pass decorators: ``function_pass`` applies only to
``relax.Function``s of a module; ``dataflowblock_pass`` to every dataflow block;
``rewrite_functions`` runs one mutator over every Relax function of a module."""

from __future__ import annotations

from collections.abc import Sequence

from ember.transform import module_pass
from ember.transform.pass_infra import _make_decorator

from ..expr import DataflowBlock, Function, SeqExpr

__all__ = ["function_pass", "dataflowblock_pass", "relax_module_pass", "rewrite_functions"]


def function_pass(pass_func=None, opt_level: int = 0, name: str | None = None,
                  required: Sequence[str] = (), traceable: bool = False):
    """Like ``ember.transform.function_pass`` but only over the module's Relax functions."""
    return _make_decorator("function", Function)(pass_func, opt_level, name, required, traceable)


def dataflowblock_pass(pass_func=None, opt_level: int = 0, name: str | None = None,
                       required: Sequence[str] = (), traceable: bool = False):
    """``fn(block, mod, ctx) -> DataflowBlock`` applied to every top-level dataflow block."""

    def create(fn):
        pass_name = name or getattr(fn, "__name__", "dataflowblock_pass")

        def run_on_func(func, mod, ctx):
            body = func.body
            if not isinstance(body, SeqExpr):
                return func
            blocks = [fn(b, mod, ctx) if isinstance(b, DataflowBlock) else b for b in body.blocks]
            if all(a is b for a, b in zip(blocks, body.blocks)):
                return func
            return Function(func.params, SeqExpr(blocks, body.body), func.ret_struct_info, func.is_pure, func.attrs)

        return function_pass(run_on_func, opt_level=opt_level, name=pass_name, required=required,
                             traceable=traceable)

    return create if pass_func is None else create(pass_func)


def relax_module_pass(fn, name: str, opt_level: int = 0):
    """A module pass rewriting each Relax function with ``fn(func, mod) -> func``."""

    def run(mod, ctx):
        functions = {}
        changed = False
        for gv, func in mod.functions.items():
            new = fn(func, mod) if isinstance(func, Function) else func
            changed |= new is not func
            functions[gv] = new
        return mod.with_functions(functions) if changed else mod

    return module_pass(run, opt_level=opt_level, name=name)


def rewrite_functions(mod, mutator, funcs=None):
    """Run ``mutator`` (a ``PyExprMutator`` built on ``mod``, with a ``changed`` flag) over
    ``funcs`` (default: every Relax function of ``mod``); returns ``mod`` itself when nothing
    changed, else the mutator's module (with the PrimFuncs it added) holding the new functions."""
    if funcs is None:
        funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    new_funcs = {gv: mutator.visit_expr(f) for gv, f in funcs}
    if not getattr(mutator, "changed", True):
        return mod
    out = mutator.builder_.get()
    for gv, f in new_funcs.items():
        out[gv.name_hint] = f
    return out
