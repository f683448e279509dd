"""InlinePrivateFunctions: replace calls of private Relax functions by their bodies.

Private (no ``global_symbol``), non-recursive Relax functions are inlined at every direct
call: the callee's bindings are emitted in the caller's block with fresh variables (of the
caller block's kind) and the parameters replaced by the arguments; the call's variable takes
the callee's last binding when that binding is the result.  Callees whose body holds an
``If`` are not inlined into dataflow blocks.  Functions no longer referenced are removed.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule
from ember.transform import Pass, module_pass

from ..analysis.recursion import detect_recursion
from ..analysis.vars import all_global_vars
from ..expr import Call, DataflowVar, Function, If, MatchCast, SeqExpr, Var, VarBinding
from ..expr_functor import ExprMutator

__all__ = ["InlinePrivateFunctions"]


def _bindings(func: Function):
    body = func.body
    if not isinstance(body, SeqExpr):
        return [], body
    return [b for block in body.blocks for b in block.bindings], body.body


class _Substitute(ExprMutator):
    def __init__(self, mapping: dict):
        super().__init__()
        for old, new in mapping.items():
            self.var_remap_[id(old)] = new


class _Inliner(ExprMutator):
    def __init__(self, mod: IRModule, inline: dict):
        super().__init__(mod)
        self.inline = inline
        self.inlined: set = set()

    def _can_inline(self, callee: Function) -> bool:
        bindings, _ = _bindings(callee)
        return not (self.builder_._is_dataflow and any(isinstance(b.value, If) for b in bindings))

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        callee = self.inline.get(value.op.name_hint) if isinstance(value, Call) and \
            isinstance(value.op, GlobalVar) else None
        if callee is None or not self._can_inline(callee):
            super().visit_var_binding_(binding)
            return
        self.inlined.add(value.op.name_hint)
        args = [self.visit_expr(a) for a in value.args]
        sub = _Substitute(dict(zip(callee.params, args)))
        bindings, result = _bindings(callee)
        kind = DataflowVar if self.builder_._is_dataflow else Var
        last = bindings[-1].var if bindings else None
        for k, b in enumerate(bindings):
            new_value = self.builder_.normalize(sub.visit_expr(b.value))
            is_result = k == len(bindings) - 1 and result is last and not isinstance(b, MatchCast)
            if is_result:
                var = self.with_struct_info(self.visit_var_def(binding.var), new_value.struct_info)
                if var is not binding.var:
                    self.set_var_remap(binding.var, var)
                self.builder_.emit_normalized(VarBinding(var, new_value))
                return
            sinfo = b.struct_info if isinstance(b, MatchCast) else new_value.struct_info
            var = kind(b.var.name_hint, sinfo)
            sub.var_remap_[id(b.var)] = var
            if isinstance(b, MatchCast):
                self.builder_.emit_normalized(MatchCast(var, new_value, b.struct_info))
            else:
                self.builder_.emit_normalized(VarBinding(var, new_value))
        out = self.builder_.normalize(sub.visit_expr(result))
        var = self.with_struct_info(self.visit_var_def(binding.var), out.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, out))


def _inline(mod: IRModule, ctx) -> IRModule:
    recursive = {gv.name_hint for group in detect_recursion(mod) for gv in group}
    inline = {gv.name_hint: f for gv, f in mod.functions.items()
              if isinstance(f, Function) and "global_symbol" not in (f.attrs or {}) and gv.name_hint not in recursive
              and not (f.attrs or {}).get("Primitive") and not (f.attrs or {}).get("Codegen")}
    if not inline:
        return mod
    functions = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function) and gv.name_hint not in inline:
            func = _Inliner(mod, inline).visit_expr(func)
        functions[gv] = func
    used = {g.name_hint for f in functions.values() if isinstance(f, Function) for g in all_global_vars(f)}
    kept = {gv: f for gv, f in functions.items() if gv.name_hint not in inline or gv.name_hint in used}
    return IRModule(kept, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def InlinePrivateFunctions() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_inline, opt_level=0, name="InlinePrivateFunctions")
