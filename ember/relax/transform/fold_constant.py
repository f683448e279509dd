"""FoldConstant: evaluate calls whose arguments are all constants, at compile time.

Operators run through the numpy reference evaluator (``relax.reference.ops``);
``call_tir`` of a PrimFunc through the TIR reference interpreter.  Creation ops without
tensor arguments (zeros, ones, full, arange) are left alone so that large constants are
not materialised; ``TupleGetItem`` of a constant tuple folds to the field.  A call the
evaluator cannot run is left unchanged (and logged at debug level).
"""

from __future__ import annotations

import logging

import numpy as np

from ember.ir import GlobalVar, Op
from ember.transform import Pass

from ..expr import Call, Constant, PrimValue, ShapeExpr, Tuple, TupleGetItem
from ..expr_functor import ExprMutator
from ..struct_info import TensorStructInfo
from .pass_wrappers import relax_module_pass

__all__ = ["FoldConstant"]

_log = logging.getLogger(__name__)
_NEVER = {"relax.call_dps_packed", "relax.call_pure_packed", "relax.print", "relax.assert_op",
          "relax.nn.dropout", "relax.null_value"}


def _const_value(e):
    """The numpy value of a constant argument, or None when ``e`` is not constant."""
    if isinstance(e, Constant):
        return e.numpy()
    if isinstance(e, ShapeExpr):
        ints = [getattr(v, "value", None) for v in e.values]
        return None if any(not isinstance(i, int) for i in ints) else tuple(ints)
    if isinstance(e, PrimValue):
        v = getattr(e.value, "value", None)
        return v if isinstance(v, int | float) else None
    if isinstance(e, Tuple):
        vals = [_const_value(f) for f in e.fields]
        return None if any(v is None for v in vals) else tuple(vals)
    return None


def _has_tensor(e) -> bool:
    return isinstance(e, Constant) or (isinstance(e, Tuple) and any(_has_tensor(f) for f in e.fields))


def _to_expr(value):
    if isinstance(value, tuple):
        return Tuple([_to_expr(v) for v in value])
    return Constant(np.asarray(value))


class _Folder(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.mod = mod
        self.in_dataflow = False  # high-level ops fold only inside dataflow blocks (as TVM)

    def visit_dataflow_block_(self, block):
        outer, self.in_dataflow = self.in_dataflow, True
        try:
            return super().visit_dataflow_block_(block)
        finally:
            self.in_dataflow = outer

    def visit_var_(self, op):
        """A variable bound to a constant is replaced by the constant."""
        op = super().visit_var_(op)
        bound = self.lookup_binding(op)
        return bound if isinstance(bound, Constant) else op

    def visit_tuple_getitem_(self, op: TupleGetItem):
        new = self.visit_expr_post_order(op)
        tup = new.tuple_value
        if isinstance(tup, Tuple) and all(isinstance(f, Constant) for f in tup.fields):
            return tup.fields[new.index]
        return new

    def visit_call_(self, op: Call):
        call = self.visit_expr_post_order(op)
        if not isinstance(call.op, Op) or call.op.name in _NEVER:
            return call
        try:
            if call.op.name == "relax.call_tir":
                return self._fold_call_tir(call)
            if not self.in_dataflow or not any(_has_tensor(a) for a in call.args):
                return call
            args = [_const_value(a) for a in call.args]
            if any(a is None for a in args):
                return call
            from ..reference.ops import evaluate_op

            return _to_expr(evaluate_op(call.op.name, args, call.attrs))
        except Exception as err:  # noqa: BLE001 - an op we cannot evaluate stays a call
            _log.debug("not folded: %s (%s)", call.op.name, err)
            return call

    def _fold_call_tir(self, call: Call):
        gv = call.args[0]
        args = _const_value(call.args[1])
        out = call.sinfo_args[0]
        if args is None or not isinstance(gv, GlobalVar) or not isinstance(out, TensorStructInfo) or len(call.args) > 2:
            return call
        dims = [getattr(v, "value", None) for v in (out.shape.values if out.shape is not None else [None])]
        if any(not isinstance(d, int) for d in dims):
            return call
        from ember.tir import interpreter

        result = np.zeros(dims, dtype=out.dtype.numpy())
        interpreter.run(self.mod[gv.name_hint], *[np.ascontiguousarray(a) for a in args], result)
        return Constant(result)


def _fold(func, mod):
    from ..analysis.vars import remove_all_unused

    new = _Folder(mod).visit_expr(func)
    return new if new is func else remove_all_unused(new, mod)  # folded bindings left unused go (as TVM)


def FoldConstant() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(_fold, "FoldConstant", 0)
