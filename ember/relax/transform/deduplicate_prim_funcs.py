"""DeduplicatePrimFuncs: structurally equal PrimFuncs of a module become one.

FuseTIR makes one PrimFunc per fused group, so a network that repeats a block (ResNet's
bottlenecks, a transformer's layers) carries many kernels that differ only in their names
(``fused_conv2d16_multiply7_add9_relu71``, ``…72`` …).  Each one would be scheduled,
lowered and compiled by LLVM on its own.  This pass keeps the first PrimFunc of every class
of structurally equal ones (``global_symbol`` ignored; buffers and variables compared by
position) and points every reference in the module's Relax functions at it.  Compile time
drops with the number of distinct kernels; what runs is unchanged.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, replace, structural_equal, structural_hash
from ember.tir import PrimFunc
from ember.transform import Pass, module_pass

from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["DeduplicatePrimFuncs", "deduplicate_prim_funcs"]


def _comparable(func: PrimFunc) -> PrimFunc:
    attrs = dict(func.attrs or {})
    if "global_symbol" not in attrs:
        return func
    attrs.pop("global_symbol")
    return replace(func, attrs=attrs)


class _Redirect(ExprMutator):
    def __init__(self, mod: IRModule, target: dict):
        super().__init__(mod)
        self._target = target

    def visit_global_var_(self, op: GlobalVar):
        return self._target.get(op, op)


def deduplicate_prim_funcs(mod: IRModule) -> IRModule:
    """``mod`` with one PrimFunc per class of structurally equal ones (see module docstring)."""
    classes: dict[int, list] = {}
    target: dict = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            continue
        key = _comparable(func)
        bucket = classes.setdefault(structural_hash(key), [])
        kept = next((k for k, f in bucket if structural_equal(f, key)), None)
        if kept is None:
            bucket.append((gv, key))
        else:
            target[gv] = kept
    if not target:
        return mod
    mutator = _Redirect(mod, target)
    out = IRModule({gv: f for gv, f in mod.functions.items() if gv not in target}, mod.attrs, mod.global_infos)
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            out[gv] = mutator.visit_expr(func)
    return out


def DeduplicatePrimFuncs() -> Pass:  # noqa: N802 - named like TVM's passes
    """Merge structurally equal PrimFuncs (fewer kernels to schedule and compile)."""
    return module_pass(lambda mod, ctx: deduplicate_prim_funcs(mod), opt_level=0, name="DeduplicatePrimFuncs")
