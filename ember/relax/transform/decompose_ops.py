"""DecomposeOpsForInference: rewrite ``nn.batch_norm`` into plain arithmetic with the
moving statistics (TVM's pass of that name; the importers then need no batch-norm kernel).

``batch_norm(x, gamma, beta, mean, var)`` becomes
``((x - mean) * rsqrt(var + eps) * gamma + beta, mean, var)`` with the per-channel
tensors reshaped to broadcast along ``axis``; ``center``/``scale`` drop ``beta``/``gamma``.
"""

from __future__ import annotations

from ember.ir import IRModule, Op
from ember.transform import Pass, module_pass

from ..expr import Call, Function, Tuple, const
from ..expr_functor import ExprMutator

__all__ = ["DecomposeOpsForInference"]


class _Decomposer(ExprMutator):
    def visit_call_(self, op: Call):
        call = self.visit_expr_post_order(op)
        if not (isinstance(call.op, Op) and call.op.name == "relax.nn.batch_norm"):
            return call
        from .. import op as R

        bb = self.builder_
        x, gamma, beta, mean, var = call.args
        a = call.attrs
        ndim = x.struct_info.ndim
        axis = a.axis + ndim if a.axis < 0 else a.axis
        shape = [1] * ndim
        shape[axis] = -1
        dtype = str(x.struct_info.dtype)

        def channel(t):
            return bb.emit(R.reshape(t, shape))

        import numpy as np

        eps = const(np.array(a.epsilon, dtype))
        inv = bb.emit(R.rsqrt(bb.emit(R.add(var, eps))))
        out = bb.emit(R.multiply(bb.emit(R.subtract(x, channel(mean))), channel(inv)))
        if a.scale:
            out = bb.emit(R.multiply(out, channel(gamma)))
        if a.center:
            out = bb.emit(R.add(out, channel(beta)))
        return Tuple([out, mean, var])


def DecomposeOpsForInference(func_name: str | None = None) -> Pass:  # noqa: N802 - TVM's pass name
    """Batch norm as inference arithmetic in every Relax function (or only ``func_name``)."""

    def run(mod: IRModule, ctx) -> IRModule:
        mutator = _Decomposer(mod)
        funcs = {gv: f for gv, f in mod.functions.items() if isinstance(f, Function)
                 and (func_name is None or gv.name_hint == func_name)}
        new = {gv: mutator.visit_expr(f) for gv, f in funcs.items()}
        out = mutator.builder_.get()
        for gv, f in new.items():
            out[gv.name_hint] = f
        return out

    return module_pass(run, opt_level=0, name="DecomposeOpsForInference")
