"""ConvertToDataflow: gather runs of pure bindings into dataflow blocks.

Within every sequence of bindings (function bodies, If branches, nested functions) a run
of consecutive pure bindings — no impure call, no If — becomes one dataflow block when it
holds at least ``min_size`` bindings or includes bindings of an existing dataflow block
(existing blocks grow by the pure bindings beside them and are never dissolved).  Other
bindings stay in ordinary blocks.  CanonicalizeBindings then turns the variables used only
inside their new block into DataflowVars, as TVM's pass does.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, Sequential, module_pass

from ..analysis.vars import is_pure_call
from ..expr import BindingBlock, DataflowBlock, Function, If, MatchCast, SeqExpr, VarBinding
from .canonicalize_bindings import CanonicalizeBindings

__all__ = ["ConvertToDataflow"]


class _Extractor:
    def __init__(self, mod: IRModule, min_size: int):
        self.mod, self.min_size = mod, min_size

    def expr(self, e):
        if isinstance(e, SeqExpr):
            return self.seq(e)
        if isinstance(e, Function):
            body = self.expr(e.body)
            return e if body is e.body else Function(e.params, body, e.ret_struct_info, e.is_pure, e.attrs)
        if isinstance(e, If):
            t, f = self.expr(e.true_branch), self.expr(e.false_branch)
            return e if t is e.true_branch and f is e.false_branch else If(e.cond, t, f)
        return e

    def binding(self, b):
        value = self.expr(b.value)
        if value is b.value:
            return b
        if isinstance(b, MatchCast):
            return MatchCast(b.var, value, b.struct_info)
        return VarBinding(b.var, value)

    def eligible(self, b) -> bool:
        return not isinstance(b.value, If) and is_pure_call(b.value, self.mod, unknown=False)

    def seq(self, seq: SeqExpr) -> SeqExpr:
        items = [(self.binding(b), isinstance(block, DataflowBlock)) for block in seq.blocks for b in block.bindings]
        blocks: list = []
        run: list = []
        run_has_dataflow = False
        plain: list = []

        def flush_run():
            nonlocal run, run_has_dataflow
            if run and (run_has_dataflow or len(run) >= self.min_size):
                flush_plain()
                blocks.append(DataflowBlock(run))
            else:
                plain.extend(run)
            run, run_has_dataflow = [], False

        def flush_plain():
            nonlocal plain
            if plain:
                blocks.append(BindingBlock(plain))
                plain = []

        for b, in_dataflow in items:
            if in_dataflow or self.eligible(b):
                run.append(b)
                run_has_dataflow |= in_dataflow
            else:
                flush_run()
                plain.append(b)
        flush_run()
        flush_plain()
        body = self.expr(seq.body)
        same = (len(blocks) == len(seq.blocks) and body is seq.body
                and all(type(a) is type(b) and a.bindings == b.bindings for a, b in zip(blocks, seq.blocks)))
        return seq if same else SeqExpr(blocks, body)


def ConvertToDataflow(min_size: int = 2) -> Pass:  # noqa: N802 - TVM's name
    """Pure runs of at least ``min_size`` bindings become dataflow blocks (see the module docstring)."""
    if min_size < 1:
        raise ValueError(f"ConvertToDataflow: min_size must be at least 1, got {min_size}")

    def run(mod: IRModule, ctx) -> IRModule:
        extractor = _Extractor(mod, min_size)
        functions = {}
        changed = False
        for gv, func in mod.functions.items():
            new = extractor.expr(func) if isinstance(func, Function) else func
            changed |= new is not func
            functions[gv] = new
        return mod.with_functions(functions) if changed else mod

    extract = module_pass(run, opt_level=0, name="ConvertToDataflowExtract")
    return Sequential([extract, CanonicalizeBindings()], name="ConvertToDataflow")
