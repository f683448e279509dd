"""FoldBatchnormToConv2D: an inference batch norm after a convolution folded into its weights.

For ``c = conv2d(x, w)`` followed by ``y = batch_norm(c, gamma, beta, mean, var)[0]``, where
the weight and the four statistics are constants and ``c`` has no other use, the normalisation
is an affine map per output channel: ``y = c · s + (beta − mean · s)`` with
``s = gamma / sqrt(var + eps)``.  The scale goes into the weight (``w'[o, …] = w[o, …] · s[o]``,
along the ``O`` axis of the kernel layout), and the shift stays as one broadcast ``add``
(which FuseOps fuses into the convolution's write-back):

    c = conv2d(x, w')          # w' a new constant
    y = add(c, b')             # b' = beta − mean · s, shaped to broadcast along the C axis

The new constants are computed at once with numpy (what FoldConstant would make of the
equivalent Relax arithmetic).  Only the first output of ``batch_norm`` may be used; its
``axis`` must be the convolution's output channel axis.  ``center=False`` / ``scale=False``
mean ``beta = 0`` / ``gamma = 1``, as in the operator.  Anything else is left alone, with the
reason logged on ``logging.getLogger("ember.relax.fold_batchnorm")``.

ONNX models do not need this pass: the ONNX importer already folds a BatchNormalization with
constant statistics into one multiply and one add at import.
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np

from ember.ir import IRModule, Op
from ember.transform import Pass, module_pass

from ..expr import Call, Constant, Function, TupleGetItem, Var, VarBinding, const
from ..expr_functor import ExprMutator, ExprVisitor
from ..op import add
from ..op.nn import conv2d
from .pass_wrappers import rewrite_functions

__all__ = ["FoldBatchnormToConv2D"]

_log = logging.getLogger("ember.relax.fold_batchnorm")


def _is_op(value, name: str) -> bool:
    return isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == name


class _Scan(ExprVisitor):
    """Bindings by var, uses of each var, and which uses are ``v[0]``."""

    def __init__(self):
        self.uses: Counter = Counter()
        self.first_item_uses: Counter = Counter()
        self.values: dict[int, object] = {}

    def visit_var_binding_(self, binding: VarBinding) -> None:
        self.values[id(binding.var)] = binding.value
        value = binding.value
        if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var) and value.index == 0:
            self.first_item_uses[id(value.tuple_value)] += 1
        super().visit_var_binding_(binding)

    def visit_var_(self, op: Var) -> None:
        self.uses[id(op)] += 1


def _why_not(bn: Call, scan: _Scan) -> str | None:
    """None when ``bn`` (a batch_norm call) folds into the convolution that feeds it."""
    data = bn.args[0]
    conv = scan.values.get(id(data)) if isinstance(data, Var) else None
    if not _is_op(conv, "relax.nn.conv2d"):
        return "its input is not a conv2d bound in the same function"
    if scan.uses[id(data)] != 1:
        return f"the convolution's result {data.name_hint} has other uses"
    if not isinstance(conv.args[1], Constant):
        return "the convolution's weight is not a constant"
    if not all(isinstance(a, Constant) for a in bn.args[1:]):
        return "gamma, beta, mean or variance is not a constant"
    out_layout = conv.attrs.out_layout
    if len(out_layout) != 4 or int(bn.attrs.axis) % 4 != out_layout.index("C"):
        return f"batch_norm axis {bn.attrs.axis} is not the channel axis of {out_layout}"
    if "O" not in conv.attrs.kernel_layout or len(conv.attrs.kernel_layout) != 4:
        return f"kernel layout {conv.attrs.kernel_layout}"
    return None


def _folded(conv: Call, bn: Call) -> tuple:
    """(new conv2d call, shift constant) for a foldable pair."""
    gamma, beta, mean, var = (a.numpy().astype("float64") for a in bn.args[1:])
    a = bn.attrs
    if not a.scale:
        gamma = np.ones_like(gamma)
    if not a.center:
        beta = np.zeros_like(beta)
    scale = gamma / np.sqrt(var + float(a.epsilon))
    weight = conv.args[1].numpy()
    o_axis = conv.attrs.kernel_layout.index("O")
    bshape = [1] * 4
    bshape[o_axis] = -1
    new_weight = (weight.astype("float64") * scale.reshape(bshape)).astype(weight.dtype)
    c_axis = conv.attrs.out_layout.index("C")
    shape = [1] * 4
    shape[c_axis] = -1
    dtype = str(conv.struct_info.dtype)
    shift = const((beta - mean * scale).astype(dtype).reshape(shape))
    ca = conv.attrs
    new_conv = conv2d(conv.args[0], const(new_weight), ca.strides, ca.padding, ca.dilation, ca.groups,
                      ca.data_layout, ca.kernel_layout, ca.out_layout, ca.out_dtype)
    return new_conv, shift


class _Folder(ExprMutator):
    def __init__(self, mod: IRModule, scan: _Scan):
        super().__init__(mod)
        self._scan = scan
        self._bn_of_conv: dict[int, Call] = {}  # id(conv var) → its batch_norm call
        self._shift: dict[int, tuple] = {}  # id(batch_norm var) → (conv var, shift)
        self.changed = False
        for vid, value in scan.values.items():
            if not _is_op(value, "relax.nn.batch_norm"):
                continue
            why = _why_not(value, scan)
            if why is None and scan.uses[vid] != scan.first_item_uses[vid]:
                why = "an output other than the first is used"
            if why:
                _log.debug("FoldBatchnormToConv2D: batch_norm not folded: %s", why)
                continue
            self._bn_of_conv[id(value.args[0])] = (vid, value)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        vid, value = id(binding.var), binding.value
        if vid in self._bn_of_conv:
            bn_vid, bn = self._bn_of_conv[vid]
            new_conv, shift = _folded(value, bn)
            new_conv = Call(new_conv.op, [self.visit_expr(value.args[0]), new_conv.args[1]], new_conv.attrs)
            var = self.visit_var_def(binding.var)
            self.builder_.emit_normalized(VarBinding(var, self.builder_.normalize(new_conv)))
            self._shift[bn_vid] = (var, shift)
            self.changed = True
            return None
        if vid in self._shift:  # the batch_norm itself: its only uses are v[0], rewritten below
            return None
        if isinstance(value, TupleGetItem) and id(value.tuple_value) in self._shift:
            conv_var, shift = self._shift[id(value.tuple_value)]
            var = self.visit_var_def(binding.var)
            self.builder_.emit_normalized(VarBinding(var, self.builder_.normalize(add(conv_var, shift))))
            return None
        return super().visit_var_binding_(binding)


def fold_batchnorm_to_conv2d(mod: IRModule) -> IRModule:
    """``mod`` with every foldable conv2d → batch_norm pair folded (see module docstring)."""
    funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    scan = _Scan()
    for _, f in funcs:
        scan.visit_expr(f)
    mutator = _Folder(mod, scan)
    if not mutator._bn_of_conv:
        return mod
    return rewrite_functions(mod, mutator, funcs)


def FoldBatchnormToConv2D() -> Pass:  # noqa: N802 - TVM's pass name
    """TVM's ``relax.transform.FoldBatchnormToConv2D``: constant batch norms after conv2d folded
    into the convolution's weight plus one bias add."""
    return module_pass(lambda mod, ctx: fold_batchnorm_to_conv2d(mod), opt_level=0, name="FoldBatchnormToConv2D")
