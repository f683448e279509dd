"""CombineParallelMatmul: matmuls sharing their left operand become one wider matmul.

Within a dataflow block, the branches ``x @ w_i`` (each optionally followed by ``+ b_i`` and
then by the same activation) that share ``x``, whose weights have the same rank (and the same
batch dims), are merged: ``concat(w_i)`` along the last axis, one matmul (plus
``concat(b_i)``, plus the activation), then ``split`` back into the branch results.  The split
points must be static, so static-width weights come first and at most one weight of symbolic
width joins a group.  ``check(x, weights, biases, activations)`` may veto a group.  Each
branch result is read from the split where the branch used to end; the combined computation
is emitted before the first of them.
"""

from __future__ import annotations

from ember.ir import IntImm, Op, structural_equal
from ember.transform import Pass

from ..expr import Call, DataflowBlock, Function, TupleGetItem, Var, VarBinding
from ..expr_functor import ExprMutator
from ..op import add, concat, matmul, split
from ..struct_info import shape_values
from .pass_wrappers import relax_module_pass

__all__ = ["CombineParallelMatmul"]

_ACTIVATIONS = ("relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.silu", "relax.sigmoid")


def _op(expr) -> str | None:
    return expr.op.name if isinstance(expr, Call) and isinstance(expr.op, Op) else None


class _Branch:
    def __init__(self, matmul_binding):
        self.matmul = matmul_binding
        self.bindings = [matmul_binding]
        self.bias = None
        self.activation = None

    @property
    def x(self):
        return self.matmul.value.args[0]

    @property
    def weight(self):
        return self.matmul.value.args[1]

    @property
    def output(self):
        return self.bindings[-1].var


def _static(d) -> bool:
    return isinstance(d, IntImm) or isinstance(d, int)


def _branches(block: DataflowBlock) -> list:
    users: dict = {}
    for b in block.bindings:
        for a in getattr(b.value, "args", ()):
            if isinstance(a, Var):
                users.setdefault(a, []).append(b)
    found = []
    for b in block.bindings:
        if _op(b.value) != "relax.matmul" or not isinstance(b.value.args[0], Var):
            continue
        br = _Branch(b)
        nxt = users.get(b.var, [])
        if len(nxt) == 1 and _op(nxt[0].value) == "relax.add" and nxt[0].value.args[0] is b.var:
            bias = nxt[0].value.args[1]
            if getattr(bias.struct_info_or_none(), "ndim", -1) == 1:
                br.bias = bias
                br.bindings.append(nxt[0])
                nxt = users.get(nxt[0].var, [])
        if len(nxt) == 1 and _op(nxt[0].value) in _ACTIVATIONS:
            br.activation = _op(nxt[0].value)
            br.bindings.append(nxt[0])
        found.append(br)
    return found


def _width(br):
    return shape_values(br.weight.struct_info_or_none())[-1]


def _groups(block: DataflowBlock, check) -> list:
    by_key: dict = {}
    for br in _branches(block):
        w_shape = shape_values(br.weight.struct_info_or_none())
        if w_shape is None or len(w_shape) < 2:
            continue
        by_key.setdefault((br.x, len(w_shape)), []).append(br)
    groups = []
    for members in by_key.values():
        if len(members) < 2:
            continue
        batch = [tuple(shape_values(m.weight.struct_info)[:-2]) for m in members]
        if any(not all(structural_equal(a, b) for a, b in zip(batch[0], bt)) for bt in batch[1:]):
            continue  # same rank, different batch dims: none is combined
        static = [m for m in members if _static(_width(m))]
        dynamic = [m for m in members if not _static(_width(m))]
        chosen = static + dynamic[:1]
        if len(chosen) < 2:
            continue
        if check is not None and not check(chosen[0].x, [m.weight for m in chosen], [m.bias for m in chosen],
                                           [m.activation for m in chosen]):
            continue
        _trim(chosen)
        groups.append(chosen)
    return groups


def _trim(group: list) -> None:
    """Keep in the merged computation only the steps every branch has: the bias when all
    have one, then the activation when all apply the same one after the same steps."""
    with_bias = all(m.bias is not None for m in group)
    same_bias = with_bias or all(m.bias is None for m in group)
    acts = {m.activation for m in group}
    with_act = same_bias and len(acts) == 1 and None not in acts
    for m in group:
        keep = 1 + (1 if with_bias else 0)
        if with_act:
            keep = len(m.bindings)
        m.bindings = m.bindings[:keep]
        if not with_bias:
            m.bias = None
        if not with_act:
            m.activation = None


class _Combiner(ExprMutator):
    def __init__(self, mod, check):
        super().__init__(mod)
        self.check = check

    def visit_dataflow_block_(self, block: DataflowBlock):
        groups = _groups(block, self.check)
        if not groups:
            return super().visit_dataflow_block_(block)
        inner, outputs = set(), {}
        for gi, group in enumerate(groups):
            for k, br in enumerate(group):
                for b in br.bindings[:-1]:
                    inner.add(b.var)
                outputs[br.output] = (gi, k)
        combined: dict = {}
        self.builder_.begin_dataflow_block()
        for b in block.bindings:
            if b.var in inner:
                continue
            if b.var in outputs:
                gi, k = outputs[b.var]
                if gi not in combined:
                    combined[gi] = self._emit_combined(groups[gi])
                value = self.builder_.normalize(TupleGetItem(combined[gi], k))
                var = type(b.var)(b.var.name_hint, value.struct_info)
                self.set_var_remap(b.var, var)
                self.builder_.emit_normalized(VarBinding(var, value))
                continue
            self.visit_binding(b)
        return self.builder_.end_block()

    def _emit_combined(self, group: list):
        first = group[0]
        x = self.visit_expr(first.x)
        weights = [self.visit_expr(m.weight) for m in group]
        axis = len(shape_values(first.weight.struct_info)) - 1
        w = self.builder_.emit(concat(weights, axis=axis))
        out_dtype = first.matmul.var.struct_info.dtype
        y = self.builder_.emit(matmul(x, w, out_dtype=str(out_dtype) if out_dtype is not None else None))
        if first.bias is not None:
            bias = self.builder_.emit(concat([self.visit_expr(m.bias) for m in group], axis=0))
            y = self.builder_.emit(add(y, bias))
        if first.activation is not None:
            act = Op.get(first.activation)
            template = first.bindings[-1].value
            y = self.builder_.emit(Call(act, [y], template.attrs, template.sinfo_args))
        points, total = [], 0
        for m in group[:-1]:
            total += int(_width(m))
            points.append(total)
        out_axis = y.struct_info.ndim - 1
        return self.builder_.emit(split(y, points, axis=out_axis))


def CombineParallelMatmul(check=None) -> Pass:  # noqa: N802 - TVM's name
    """Merge matmuls that share their left operand (see the module docstring)."""
    return relax_module_pass(lambda f, mod: _Combiner(mod, check).visit_expr(f) if isinstance(f, Function) else f,
                             "CombineParallelMatmul")
