"""RemovePurityChecking: mark every Relax function ``relax.force_pure`` (TVM's pass).

The VM lowering makes a pure function call impure things (allocations, kernels writing
their outputs); the function stays pure seen from outside.  ``relax.force_pure = True``
records that, so checks of purity (well-formedness) accept the lowered body.  Runs
before CallTIRRewrite in "default_build".
"""

from __future__ import annotations

from ember.ir import IRModule

from ..expr import Function

__all__ = ["RemovePurityChecking", "FORCE_PURE"]

FORCE_PURE = "relax.force_pure"


def _mark(func):
    if not isinstance(func, Function) or not func.is_pure or func.attrs.get(FORCE_PURE):
        return func
    return func.with_attr(FORCE_PURE, True)


def RemovePurityChecking():  # noqa: N802 - TVM's pass name
    from ember.transform import module_pass

    def run(mod: IRModule, ctx) -> IRModule:
        funcs = {gv: _mark(f) for gv, f in mod.functions.items()}
        if all(funcs[gv] is f for gv, f in mod.functions.items()):
            return mod
        return mod.with_functions(funcs)

    return module_pass(run, opt_level=0, name="RemovePurityChecking")
