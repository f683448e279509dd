"""ConvertLayout: convolutions rewritten to the layouts asked for, and the new layout carried
through the operators after them (TVM's ``relax.transform.ConvertLayout``).

``desired_layouts`` maps an operator to its ``[data_layout, kernel_layout]``, e.g.
``{"relax.nn.conv2d": ["NHWC", "OHWI"]}`` or ``{"relax.nn.conv2d": ["NCHW16c", "OIHW16o"]}``
(sub-indexed layouts split a dimension into blocks, see ``ember.tir.data_layout``).  Each
``conv2d`` whose shapes allow it (split channel counts divisible by their block) reads its
data and weight through ``relax.layout_transform`` into those layouts and produces its output
in the desired data layout.  The result then *stays* in that layout through every operator
that can take it:

- elementwise unary operators and activations (``relu``, ``tanh``, ``clip``, …);
- binary elementwise operators, whose other operand is transformed the same way when it has
  the same rank (or is a scalar); a lower-rank *constant* (``(C, 1, 1)``, as importers write a
  folded batch norm) is first given the full rank, an extension of TVM's rule;
- ``max_pool2d`` / ``avg_pool2d`` / ``adaptive_avg_pool2d`` (height and width not split);
- ``concat`` of tensors that are all in the same layout (along any axis, split ones too);
- another converted ``conv2d`` (no transform in between);
- operators whose attributes name axes, renumbered for the new layout: reductions (``sum``,
  ``mean``, ``max``, … over the logical axes and their sub axes; without ``keepdims`` the
  result is in the remaining axes' layout), ``softmax`` / ``log_softmax`` and
  ``strided_slice`` over unsplit axes, ``layer_norm`` when its axes keep their order, and
  ``permute_dims`` (straight back to its original result order).  BlockedConvLayout (which
  passes ``choose``) does not use these yet;
- an LRN kernel (``call_tir`` of a PrimFunc marked ``ember.lrn``) on ``NCHW{b}c`` data, which
  is computed in that layout (``blocked_lrn``, an ember extension).

Constant operands (weights, a folded batch norm's scale) are transformed at once with numpy,
as FoldConstant would.  Any other use gets the tensor transformed back to its original layout, once per tensor per
block.  A dataflow block's output variable is bound to the transform back, so a function's
results keep their layouts.  Transforms into and back out of a layout are therefore only
placed where the layout really changes, never between two layers that agree.  The index maps
use ``int32`` indices, as TVM's pass does.

Operators the pass declines are logged on ``logging.getLogger("ember.relax.convert_layout")``.
"""

from __future__ import annotations

import logging

import numpy as np

from ember.ir import IRModule, Op, replace
from ember.tir.data_layout import Layout, layout, layout_index_map, relayout_array
from ember.transform import Pass, module_pass

from ..expr import Call, Constant, DataflowVar, Tuple, Var, VarBinding, const
from ..expr_functor import ExprMutator
from ..op.elementwise import BINARY_OPS, UNARY_OPS
from ..op.manipulate import permute_dims
from ..op.manipulate_extra import layout_transform
from ..struct_info import TensorStructInfo, shape_values
from .blocked_lrn import blocked_lrn
from .pass_wrappers import rewrite_functions

__all__ = ["ConvertLayout"]

_log = logging.getLogger("ember.relax.convert_layout")

_UNARY = frozenset({f"relax.{n}" for n in UNARY_OPS} | {
    "relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.silu", "relax.nn.leakyrelu",
    "relax.clip", "relax.astype"})
_BINARY = frozenset(f"relax.{n}" for n in BINARY_OPS)
_POOLS = frozenset({"relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.nn.adaptive_avg_pool2d"})
# operators whose attributes name axes of their first argument: the method that renumbers them
_AXIS_RULES = {
    **{f"relax.{n}": "_reduce" for n in ("sum", "mean", "max", "min", "prod", "variance", "std")},
    "relax.nn.softmax": "_softmax", "relax.nn.log_softmax": "_softmax",
    "relax.strided_slice": "_strided_slice", "relax.permute_dims": "_permute",
    "relax.nn.layer_norm": "_layer_norm",
}


def _dims(expr) -> list | None:
    """Static-or-symbolic dims of a tensor expression, None when the rank is unknown."""
    sinfo = expr.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo):
        return None
    return shape_values(sinfo)


def _ndim(expr) -> int:
    sinfo = expr.struct_info_or_none()
    return sinfo.ndim if isinstance(sinfo, TensorStructInfo) else -1


def _splits_fit(dims, initial: str, target: Layout) -> bool:
    """Whether a tensor of ``dims`` in layout ``initial`` can be written in ``target``: every
    split dimension has a static extent its block divides."""
    if dims is None:
        return not target.is_split
    return target.divides(dict(zip(initial, dims)))


def _relayout(value, src, dst, index_dtype: str = "int32") -> Call:
    """``value`` (laid out as ``src``) in layout ``dst``: a ``permute_dims`` when neither
    layout splits a dimension, else a ``layout_transform`` (int32 indices, as in TVM)."""
    src, dst = layout(src), layout(dst)
    if not (src.is_split or dst.is_split):
        return permute_dims(value, [src.index_of(c) for c in dst.primal])
    return layout_transform(value, layout_index_map(src, dst, index_dtype), axis_separators=[],
                            input_axis_separators=[])


class _Converter(ExprMutator):
    def __init__(self, mod: IRModule, desired: dict, choose=None, index_dtype: str = "int32"):
        super().__init__(mod)
        self.index_dtype = index_dtype
        self.desired = {op: [layout(s) for s in ls] for op, ls in desired.items()}
        self.choose = choose  # per-convolution layouts instead of ``desired`` (see convert_layout)
        self.changed = False
        self._converted: dict[int, tuple] = {}  # id(var) → (initial layout, current Layout, var in it)
        self._to: dict[tuple, Var] = {}  # (id(var), layout name) → var transformed into it
        self._back: dict[int, Var] = {}  # id(var) → var transformed back to its initial layout

    # -- transforms -------------------------------------------------------------------------
    def _transform(self, value, src: str | Layout, dst: Layout, key=None):
        if key is not None and (key, dst.name) in self._to:
            return self._to[(key, dst.name)]
        if isinstance(value, Constant):  # transformed at once, as FoldConstant would
            return const(relayout_array(value.numpy(), src, dst))
        out = self.builder_.emit(_relayout(value, src, dst, self.index_dtype))
        if key is not None:
            self._to[(key, dst.name)] = out
        return out

    def _in_layout(self, arg, initial: str, target: Layout):
        """``arg`` (a use in the original program, laid out as ``initial``) in ``target``."""
        if isinstance(arg, Var) and id(arg) in self._converted:
            init, cur, var = self._converted[id(arg)]
            if cur.name == target.name and init == initial:
                return var
            if init == initial and not (cur.is_split and target.is_split):
                return self._transform(var, cur, target, key=id(arg))
            # one blocking to another (NCHW16c → NCHW8c) goes through the original layout
            # (LegalizeOps inverts each map, and a re-blocking's inverse is not a plain split)
            arg = self.visit_expr(arg)
        else:
            arg = self.visit_expr(arg)
        key = id(arg) if isinstance(arg, Var) else None
        return self._transform(arg, layout(initial), target, key=key)

    def visit_var_(self, op: Var):
        if id(op) not in self._converted:
            return super().visit_var_(op)
        if id(op) not in self._back:
            init, cur, var = self._converted[id(op)]
            self._back[id(op)] = self.builder_.emit(_relayout(var, cur, init, self.index_dtype))
        return self._back[id(op)]

    def _rebuild_block(self, block, dataflow: bool):
        saved = (self._converted, self._to, self._back)
        self._converted, self._to, self._back = {}, {}, {}
        try:
            return super()._rebuild_block(block, dataflow)
        finally:
            self._converted, self._to, self._back = saved

    # -- bindings ---------------------------------------------------------------------------
    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        new = None
        if isinstance(value, Call) and isinstance(value.op, Op):
            new = self._convert(value)
        if new is None:
            return super().visit_var_binding_(binding)
        call, initial, current = new
        self.changed = True
        call = self.builder_.normalize(call)
        if current is None:  # the rewritten call gives its result in the original layout
            var = binding.var
            if isinstance(var, DataflowVar):
                var = DataflowVar(var.name_hint, call.struct_info)
                self.var_remap_[id(binding.var)] = var
            self.builder_.emit_normalized(VarBinding(var, call))
            return None
        if isinstance(binding.var, DataflowVar):
            var = DataflowVar(binding.var.name_hint, call.struct_info)
            self.builder_.emit_normalized(VarBinding(var, call))
        else:  # a block output: keep its layout; later uses in the block read the converted one
            var = self.builder_.emit(call)
            back = _relayout(var, current, initial, self.index_dtype)
            self.builder_.emit_normalized(VarBinding(binding.var, self.builder_.normalize(back)))
            self._back[id(binding.var)] = binding.var
        self._converted[id(binding.var)] = (initial, current, var)
        return None

    def _convert(self, call: Call):
        """(new call, initial layout name, Layout) when ``call`` is rewritten, else None."""
        name = call.op.name
        if name == "relax.nn.conv2d" and name in self.desired:
            return self._conv2d(call)
        args = call.args
        if name in _UNARY and args and id(args[0]) in self._converted:
            init, cur, var = self._converted[id(args[0])]
            return Call(call.op, [var, *[self.visit_expr(a) for a in args[1:]]], call.attrs, call.sinfo_args), init, cur
        if name in _BINARY:
            return self._binary(call)
        if name in _POOLS and id(args[0]) in self._converted:
            return self._pool(call)
        if name == "relax.concat" and isinstance(args[0], Tuple):
            return self._concat(call)
        if name == "relax.call_tir" and isinstance(args[1], Tuple) and len(args[1].fields) == 1:
            x = args[1].fields[0]
            if isinstance(x, Var) and id(x) in self._converted:  # an LRN (see blocked_lrn)
                return blocked_lrn(self.builder_, call, *self._converted[id(x)])
        # (BlockedConvLayout, which passes ``choose``, keeps to the rules above for now)
        if self.choose is None and args and isinstance(args[0], Var) and id(args[0]) in self._converted:
            rule = _AXIS_RULES.get(name)
            if rule is not None:
                return getattr(self, rule)(call, *self._converted[id(args[0])])
        return None

    # -- operators whose attributes name axes: the axes are renumbered for the new layout -----
    def _letters(self, init: str, axes) -> list | None:
        n = len(init)
        try:
            return [init[int(a) % n] for a in axes]
        except (TypeError, ValueError):
            return None

    def _reduce(self, call: Call, init: str, cur: Layout, var):
        """sum / mean / max …: reduce the same logical axes (and their sub axes) in ``cur``."""
        a = call.attrs
        letters = None if a.axis is None else self._letters(init, a.axis)
        if not letters:
            return None
        reduced = set(letters)
        if a.keepdims and any(cur.factor_of(c) != -1 for c in reduced):
            _log.debug("ConvertLayout: %s kept in %s: keepdims over a split axis", call.op.name, init)
            return None
        positions = [i for i, (c, _) in enumerate(cur.axes) if c.upper() in reduced]
        new = Call(call.op, [var], replace(a, axis=tuple(positions)), call.sinfo_args)
        if a.keepdims:
            return new, init, cur
        rest = [(c, f) for i, (c, f) in enumerate(cur.axes) if i not in positions]
        rest_name = "".join(c if f is None else f"{f}{c}" for c, f in rest)
        rest_init = "".join(c for c in init if c not in reduced)
        return new, rest_init, (None if rest_name == rest_init else layout(rest_name))

    def _softmax(self, call: Call, init: str, cur: Layout, var):
        (letter,) = self._letters(init, [call.attrs.axis]) or [None]
        if letter is None or cur.factor_of(letter) != -1:
            return None
        return Call(call.op, [var], replace(call.attrs, axis=cur.index_of(letter)), call.sinfo_args), init, cur

    def _strided_slice(self, call: Call, init: str, cur: Layout, var):
        letters = self._letters(init, call.attrs.axes)
        if letters is None or any(cur.factor_of(c) != -1 for c in letters):
            return None
        axes = tuple(cur.index_of(c) for c in letters)
        args = [var, *[self.visit_expr(x) for x in call.args[1:]]]
        return Call(call.op, args, replace(call.attrs, axes=axes), call.sinfo_args), init, cur

    def _permute(self, call: Call, init: str, cur: Layout, var):
        """A transpose of the converted tensor straight into the original result order."""
        if cur.is_split:
            return None
        order = call.attrs.axes if call.attrs.axes is not None else range(len(init) - 1, -1, -1)
        letters = self._letters(init, order)
        if letters is None:
            return None
        new = Call(call.op, [var], replace(call.attrs, axes=tuple(cur.index_of(c) for c in letters)), call.sinfo_args)
        return new, init, None

    def _layer_norm(self, call: Call, init: str, cur: Layout, var):
        """Normalised axes keep their order (gamma and beta follow it) and are not split."""
        letters = self._letters(init, call.attrs.axes)
        if letters is None or any(cur.factor_of(c) != -1 for c in letters):
            return None
        axes = [cur.index_of(c) for c in letters]
        if axes != sorted(axes):
            return None
        args = [var, *[self.visit_expr(x) for x in call.args[1:]]]
        return Call(call.op, args, replace(call.attrs, axes=tuple(axes)), call.sinfo_args), init, cur

    def _conv2d(self, call: Call):
        if self.choose is not None:
            return self._chosen_conv2d(call)
        a = call.attrs
        data_l, kernel_l = self.desired[call.op.name][:2]
        why = None
        dims, wdims = _dims(call.args[0]), _dims(call.args[1])
        if sorted(data_l.primal) != sorted(a.data_layout) or sorted(kernel_l.primal) != sorted(a.kernel_layout):
            why = f"desired layouts {data_l}/{kernel_l} do not match {a.data_layout}/{a.kernel_layout}"
        elif a.out_layout != a.data_layout:
            why = f"out_layout {a.out_layout} differs from data_layout {a.data_layout}"
        elif not (_splits_fit(dims, a.data_layout, data_l) and _splits_fit(wdims, a.kernel_layout, kernel_l)):
            why = "a split dimension is not a multiple of its block"
        elif not _splits_fit(None if wdims is None else [wdims[a.kernel_layout.index("O")]], "C",
                             layout(f"C{data_l.factor_of('C')}c" if data_l.factor_of("C") > 0 else "C")):
            why = "the output channels are not a multiple of the channel block"
        if why:
            _log.debug("ConvertLayout: %s kept in %s: %s", call.op.name, a.data_layout, why)
            return None
        data = self._in_layout(call.args[0], a.data_layout, data_l)
        weight = self._in_layout(call.args[1], a.kernel_layout, kernel_l)
        attrs = replace(a, data_layout=data_l.name, kernel_layout=kernel_l.name, out_layout=data_l.name)
        return Call(call.op, [data, weight], attrs, call.sinfo_args), a.out_layout, data_l

    def _chosen_conv2d(self, call: Call):
        """The layouts ``choose(call, layout of the input or None)`` returns (data, kernel, out)."""
        a = call.attrs
        src = call.args[0]
        state = self._converted.get(id(src)) if isinstance(src, Var) else None
        current = state[1] if state is not None and state[0] == a.data_layout else None
        picked = self.choose(call, current)
        if picked is None:
            return None
        data_l, kernel_l, out_l = (layout(s) for s in picked)
        data = self._in_layout(src, a.data_layout, data_l)
        weight = self._in_layout(call.args[1], a.kernel_layout, kernel_l)
        attrs = replace(a, data_layout=data_l.name, kernel_layout=kernel_l.name, out_layout=out_l.name)
        return Call(call.op, [data, weight], attrs, call.sinfo_args), a.out_layout, out_l

    def _binary(self, call: Call):
        conv = [self._converted[id(x)] for x in call.args if isinstance(x, Var) and id(x) in self._converted]
        if not conv:
            return None
        init, cur, _ = conv[0]
        out_dims = _dims(call)
        if out_dims is None or len(out_dims) != len(init):
            return None
        args = []
        for x in call.args:
            if isinstance(x, Var) and id(x) in self._converted and self._converted[id(x)][0] == init:
                args.append(x)
                continue
            nd = _ndim(x)
            if nd == 0:
                args.append(x)
                continue
            if isinstance(x, Constant) and 0 <= nd < len(init):
                x = const(np.asarray(x.numpy()).reshape((1,) * (len(init) - nd) + tuple(x.numpy().shape)))
                nd = len(init)
            if nd != len(init) or not _splits_fit(_dims(x), init, cur):
                _log.debug("ConvertLayout: %s kept in %s: an operand does not fit %s", call.op.name, init, cur)
                return None
            args.append(x)
        new_args = [self._in_layout(x, init, cur) if _ndim(x) != 0 else self.visit_expr(x) for x in args]
        return Call(call.op, new_args, call.attrs, call.sinfo_args), init, cur

    def _pool(self, call: Call):
        init, cur, var = self._converted[id(call.args[0])]
        a = call.attrs
        if a.layout != init or a.out_layout != init or any(cur.factor_of(c) != -1 for c in "HW"):
            _log.debug("ConvertLayout: %s kept in %s", call.op.name, a.layout)
            return None
        attrs = replace(a, layout=cur.name, out_layout=cur.name)
        return Call(call.op, [var], attrs, call.sinfo_args), init, cur

    def _concat(self, call: Call):
        fields = call.args[0].fields
        states = [self._converted.get(id(f)) if isinstance(f, Var) else None for f in fields]
        if not states or any(s is None for s in states):
            return None
        init, cur, _ = states[0]
        axis = call.attrs.axis
        if axis is None or any(s[0] != init or s[1].name != cur.name for s in states):
            return None
        letter = init[int(axis) % len(init)]
        new_axis = cur.index_of(letter)
        new = Call(call.op, [Tuple([s[2] for s in states])], replace(call.attrs, axis=new_axis), call.sinfo_args)
        return new, init, cur


def convert_layout(mod: IRModule, desired_layouts: dict, choose=None, index_dtype: str = "int32") -> IRModule:
    """``mod`` with its convolutions in ``desired_layouts`` (see module docstring).  ``choose``
    (an ember extension for pipelines), when given, picks each conv2d's layouts itself:
    ``choose(call, input_layout) -> (data, kernel, out layout names) | None`` where
    ``input_layout`` is the ``Layout`` the input already has, or None when it is unconverted.
    ``index_dtype``: of the transforms' index maps (TVM's pass writes int32)."""
    mutator = _Converter(mod, desired_layouts, choose, index_dtype)
    return rewrite_functions(mod, mutator)


def ConvertLayout(desired_layouts: dict) -> Pass:  # noqa: N802 - TVM's pass name
    """TVM's ``relax.transform.ConvertLayout``: ``{"relax.nn.conv2d": [data_layout, kernel_layout]}``."""
    desired = {op: list(ls) for op, ls in desired_layouts.items()}
    return module_pass(lambda mod, ctx: convert_layout(mod, desired), opt_level=0, name="ConvertLayout")
