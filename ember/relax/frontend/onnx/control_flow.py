"""ONNX control flow: If, Loop and Scan.

- ``If``: a condition known at import inlines the chosen branch; otherwise both branches
  are converted into nested scopes of a Relax ``If`` (the VM jumps on the condition at
  run time).  Several branch outputs travel as one tuple.
- ``Loop``: the body becomes a private recursive Relax function
  ``loop_body(i, [M], cond, carried..., captured...) -> (carried..., scans...)``: it
  tests ``cond and i < M``; when true it runs the body, calls itself with ``i + 1`` and
  prepends this iteration's scan values to the scan outputs the call returns; otherwise
  it returns the carried values and empty scans.  Outer-scope values the body reads
  (its free names) become extra parameters, constants stay constants.  Trip count and
  condition may both be run-time values; scan outputs have a run-time leading dim.
  Each iteration is one VM call frame: 1000 iterations run, a few thousand raise
  RecursionError (a VM-level loop would lift this).
- ``Scan``: unrolled over the scanned axis, whose length must be known at import
  (opset 8's batched form runs each batch row on its own).
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx

from ember import tir
from ember.ir import GlobalVar, structural_equal
from ember.relax import op as R

from ...expr import Call, Constant, Function, If, SeqExpr, ShapeExpr, Tuple, TupleGetItem, Var, const
from ...struct_info import TensorStructInfo, TupleStructInfo
from .common import ONNXImportError, shape_of
from .registry import converter

__all__ = ["graph_free_names", "select_at_run_time"]

_loop_ids = itertools.count()


# -- helpers ------------------------------------------------------------------------------

def graph_free_names(graph: onnx.GraphProto) -> list[str]:
    """Names ``graph`` (and its nested subgraphs) read but does not define, in first-use order."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    free: dict[str, None] = {}
    for node in graph.node:
        for name in node.input:
            if name and name not in defined:
                free.setdefault(name)
        for attr in node.attribute:
            subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
            for sub in subs:
                for name in graph_free_names(sub):
                    if name not in defined:
                        free.setdefault(name)
        defined.update(node.output)
    for out in graph.output:
        if out.name not in defined:
            free.setdefault(out.name)
    return list(free)


def _scope_seq(ctx, build):
    """Run ``build()`` (which emits bindings and returns the result expr) in a nested scope;
    return a ``SeqExpr`` of what it emitted."""
    bb = ctx.bb
    bb.begin_scope()
    try:
        bb.begin_binding_block()
        result = bb.normalize(build())
        block = bb.end_block()
    finally:
        bb.end_scope()
    return SeqExpr([block] if block.bindings else [], result)


def _pack(values: list):
    return values[0] if len(values) == 1 else Tuple(list(values))


def _scalar(ctx, x, dtype: str):
    """``x`` as a 0-d tensor of ``dtype`` (ONNX allows shape [1] for conditions and counts)."""
    if x.struct_info.dtype is not None and str(x.struct_info.dtype) != dtype:
        x = ctx.emit(R.astype(x, dtype))
    if x.struct_info.ndim != 0:
        x = ctx.emit(R.reshape(x, ShapeExpr([])))
    return x


def _erase(sinfo):
    """``sinfo`` with its shape forgotten (rank and dtype kept)."""
    if isinstance(sinfo, TensorStructInfo):
        return TensorStructInfo(None, sinfo.dtype, ndim=sinfo.ndim)
    if isinstance(sinfo, TupleStructInfo):
        return TupleStructInfo([_erase(f) for f in sinfo.fields])
    return sinfo


# -- If -----------------------------------------------------------------------------------

@converter("If", since=1)
def if_(ctx, node, inputs, attrs):
    then_g, else_g = attrs["then_branch"], attrs["else_branch"]
    cond = inputs[0]
    known = ctx.const_value(cond)
    if known is not None:
        return ctx.convert_subgraph(then_g if bool(np.asarray(known).reshape(-1)[0]) else else_g, {})
    cond = _scalar(ctx, cond, "bool")
    n = len(node.output)
    then_seq = _scope_seq(ctx, lambda: _pack(ctx.convert_subgraph(then_g, {})))
    else_seq = _scope_seq(ctx, lambda: _pack(ctx.convert_subgraph(else_g, {})))
    result = ctx.emit(If(cond, then_seq, else_seq))
    if n == 1:
        return [result]
    return [ctx.emit(TupleGetItem(result, i)) for i in range(n)]


def select_at_run_time(ctx, key, choices: list[int], build):
    """``build(c)`` for the ``c`` in ``choices`` equal to the 0-d int64 tensor ``key`` at run
    time (the last choice when none is): a chain of Relax Ifs, each branch built in its scope."""
    if len(choices) == 1:
        return build(choices[0])
    pick = ctx.emit(R.equal(key, const(np.array(choices[0], "int64"))))
    then_seq = _scope_seq(ctx, lambda: build(choices[0]))
    else_seq = _scope_seq(ctx, lambda: select_at_run_time(ctx, key, choices[1:], build))
    return ctx.emit(If(pick, then_seq, else_seq))


# -- Loop ---------------------------------------------------------------------------------

class _LoopPlan:
    """The parameters of one Loop node's body function."""

    def __init__(self, ctx, node, inputs, body: onnx.GraphProto, carried_sinfo):
        self.body = body
        self.has_m, self.has_cond = inputs[0] is not None, inputs[1] is not None
        self.i = Var("iter", TensorStructInfo([], "int64"))
        self.m = Var("max_trip", TensorStructInfo([], "int64")) if self.has_m else None
        self.cond = Var("cond", TensorStructInfo([], "bool"))
        self.carried = [Var(f"carried{k}", s) for k, s in enumerate(carried_sinfo)]
        # outer values the body reads: constants stay, everything else is passed in
        inner = {i.name for i in body.input}
        self.captured_names, self.captured_outer, self.captured = [], [], []
        for name in graph_free_names(body):
            if name in inner:
                continue
            try:
                value = ctx.value(name)
            except KeyError:
                raise ONNXImportError(f"Loop {node.name!r}: the body reads {name!r}, which no outer node "
                                      "defines") from None
            if isinstance(value, Constant):
                continue
            self.captured_names.append(name)
            self.captured_outer.append(value)
            self.captured.append(Var(f"outer_{len(self.captured)}", value.struct_info))

    @property
    def params(self) -> list[Var]:
        head = [self.i] + ([self.m] if self.has_m else []) + [self.cond]
        return head + self.carried + self.captured


def _build_loop(ctx, node, plan: _LoopPlan, gv: GlobalVar):
    """The body function's Function (plus the carried/scan struct info the body produced)."""
    body = plan.body
    n_carried = len(plan.carried)
    produced: dict = {}

    def then_branch():
        bound = {body.input[0].name: plan.i, body.input[1].name: plan.cond}
        bound.update({vi.name: v for vi, v in zip(body.input[2:], plan.carried)})
        bound.update(dict(zip(plan.captured_names, plan.captured)))
        outs = ctx.convert_subgraph(body, bound)
        cond_out = _scalar(ctx, outs[0], "bool")
        carried_out, scans = outs[1:1 + n_carried], outs[1 + n_carried:]
        scans = [_with_declared_shape(ctx, s, vi) for s, vi in zip(scans, body.output[1 + n_carried:])]
        produced["carried"] = [c.struct_info for c in carried_out]
        produced["scans"] = [s.struct_info for s in scans]
        ret = _loop_ret(plan, produced["scans"])
        produced["ret"] = ret
        nxt = ctx.emit(R.add(plan.i, const(np.array(1, "int64"))))
        args = [nxt] + ([plan.m] if plan.has_m else []) + [cond_out] + list(carried_out) + plan.captured
        rest = ctx.emit(Call(gv, args, sinfo_args=[ret]))
        finals = [ctx.emit(TupleGetItem(rest, k)) for k in range(n_carried)]
        scan_outs = []
        for j, s in enumerate(scans):
            dims = shape_of(s)
            tail = ctx.emit(TupleGetItem(rest, n_carried + j))
            tail = ctx.bb.match_cast(tail, TensorStructInfo([tir.Var("n", "int64")] + dims, s.struct_info.dtype))
            scan_outs.append(ctx.emit(R.concat([ctx.emit(R.expand_dims(s, 0)), tail], axis=0)))
        return Tuple(finals + scan_outs)

    def else_branch():
        empties = []
        for s in produced["scans"]:
            dims = _sinfo_dims(s)
            empties.append(ctx.emit(R.zeros(ShapeExpr([0] + dims), s.dtype)))
        return Tuple(list(plan.carried) + empties)

    def function_body():
        go = plan.cond
        if plan.has_m:
            go = ctx.emit(R.logical_and(go, ctx.emit(R.less(plan.i, plan.m))))
        then_seq = _scope_seq(ctx, then_branch)
        else_seq = _scope_seq(ctx, else_branch)
        return ctx.emit(If(go, then_seq, else_seq))

    seq = _scope_seq(ctx, function_body)
    return Function(plan.params, seq, produced["ret"], True, {}), produced


def _with_declared_shape(ctx, value, vi: onnx.ValueInfoProto):
    """``value`` cast to the static shape the body declares for it, when its own is unknown."""
    if shape_of(value) is not None or not vi.type.HasField("tensor_type"):
        return value
    dims = vi.type.tensor_type.shape.dim
    if not vi.type.tensor_type.HasField("shape") or not all(d.HasField("dim_value") for d in dims):
        return value
    return ctx.bb.match_cast(value, TensorStructInfo([d.dim_value for d in dims], value.struct_info.dtype))


def _sinfo_dims(sinfo) -> list:
    dims = getattr(sinfo, "shape", None)
    values = getattr(dims, "values", None)
    if values is None:
        raise ONNXImportError("Loop: a scan output's shape must be known at import")
    return [int(v.value) if hasattr(v, "value") else v for v in values]


def _loop_ret(plan: _LoopPlan, scan_sinfo) -> TupleStructInfo:
    scans = []
    for s in scan_sinfo:
        if not isinstance(s, TensorStructInfo) or s.ndim < 0:
            raise ONNXImportError("Loop: scan outputs must be tensors of known rank")
        scans.append(TensorStructInfo(None, s.dtype, ndim=s.ndim + 1))
    return TupleStructInfo([v.struct_info for v in plan.carried] + scans)


@converter("Loop", since=1)
def loop(ctx, node, inputs, attrs):
    body = attrs["body"]
    inputs = list(inputs) + [None] * (2 - len(inputs))
    m, cond, initial = inputs[0], inputs[1], list(inputs[2:])
    if m is None and cond is None:
        raise ONNXImportError(f"Loop {node.name!r}: neither a trip count nor a condition is given "
                              "(an infinite loop)")
    if len(body.input) != 2 + len(initial):
        raise ONNXImportError(f"Loop {node.name!r}: the body takes {len(body.input)} inputs, expected "
                              f"2 + {len(initial)} loop-carried values")
    carried_sinfo = [v.struct_info for v in initial]
    name = f"loop_body{next(_loop_ids)}"
    for attempt in range(2):
        gv = GlobalVar(name)
        plan = _LoopPlan(ctx, node, inputs, body, carried_sinfo)
        func, produced = _build_loop(ctx, node, plan, gv)
        changed = [not structural_equal(a, b) for a, b in zip(carried_sinfo, produced["carried"])]
        if not any(changed):
            break
        if attempt == 1:
            raise ONNXImportError(f"Loop {node.name!r}: loop-carried values change type between iterations")
        carried_sinfo = [_erase(s) if c else s for s, c in zip(carried_sinfo, changed)]
    ctx.bb.update_func(gv, func)
    i0 = const(np.array(0, "int64"))
    args = [i0]
    if plan.has_m:
        args.append(_scalar(ctx, m, "int64"))
    args.append(_scalar(ctx, cond, "bool") if cond is not None else const(np.array(True)))
    result = ctx.emit(Call(gv, args + initial + plan.captured_outer))
    n = len(node.output)
    outs = [ctx.emit(TupleGetItem(result, k)) for k in range(n)]
    # scan outputs: a run-time number of iterations stacked on the element shape
    n_carried = len(plan.carried)
    for j, sinfo in enumerate(produced["scans"]):
        k = n_carried + j
        if k < n:
            dims = [tir.Var("loop_trips", "int64")] + _sinfo_dims(sinfo)
            outs[k] = ctx.bb.match_cast(outs[k], TensorStructInfo(dims, sinfo.dtype))
    return outs


# -- Scan ---------------------------------------------------------------------------------

def _take_step(ctx, x, axis: int, t: int):
    return ctx.emit(R.squeeze(ctx.emit(R.strided_slice(x, [axis], [t], [t + 1])), [axis]))


def _scan(ctx, node, states, scans, attrs):
    body = attrs["body"]
    n_in = len(scans)
    in_axes = list(attrs.get("scan_input_axes") or [0] * n_in)
    in_dirs = list(attrs.get("scan_input_directions") or [0] * n_in)
    steps = None
    for x, axis in zip(scans, in_axes):
        dims = shape_of(x)
        if dims is None:
            raise ONNXImportError(f"Scan {node.name!r}: scan inputs need a known rank")
        axis = axis + len(dims) if axis < 0 else axis
        if not isinstance(dims[axis], int):
            raise ONNXImportError(f"Scan {node.name!r}: the scanned length must be known at import, "
                                  f"got {dims[axis]}")
        steps = dims[axis]
    n_states = len(states)
    n_out = len(body.output) - n_states
    out_axes = list(attrs.get("scan_output_axes") or [0] * n_out)
    out_dirs = list(attrs.get("scan_output_directions") or [0] * n_out)
    collected = [[] for _ in range(n_out)]
    for t in range(steps):
        bound = {vi.name: s for vi, s in zip(body.input[:n_states], states)}
        for vi, x, axis, rev in zip(body.input[n_states:], scans, in_axes, in_dirs):
            axis = axis + x.struct_info.ndim if axis < 0 else axis
            bound[vi.name] = _take_step(ctx, x, axis, steps - 1 - t if rev else t)
        outs = ctx.convert_subgraph(body, bound)
        states = list(outs[:n_states])
        for j, y in enumerate(outs[n_states:]):
            collected[j].append(y)
    results = list(states)
    for j, ys in enumerate(collected):
        if out_dirs[j]:
            ys = ys[::-1]
        rank = ys[0].struct_info.ndim + 1
        axis = out_axes[j] + rank if out_axes[j] < 0 else out_axes[j]
        results.append(ctx.emit(R.concat([ctx.emit(R.expand_dims(y, axis)) for y in ys], axis=axis)))
    return results


@converter("Scan", since=9)
def scan(ctx, node, inputs, attrs):
    k = int(attrs["num_scan_inputs"])
    n_states = len(inputs) - k
    return _scan(ctx, node, list(inputs[:n_states]), list(inputs[n_states:]), attrs)


@converter("Scan", since=8)
def scan8(ctx, node, inputs, attrs):
    """Opset 8: a leading batch axis on states and scans, and optional sequence_lens."""
    k = int(attrs["num_scan_inputs"])
    seq_lens, rest = inputs[0], list(inputs[1:])
    n_states = len(rest) - k
    states, scans = rest[:n_states], rest[n_states:]
    dims = shape_of(scans[0]) if scans else None
    if dims is None or not isinstance(dims[0], int):
        raise ONNXImportError(f"Scan {node.name!r}: opset 8 needs a batch size known at import")
    if seq_lens is not None:
        lens = ctx.const_value(seq_lens)
        if lens is None or not np.all(np.asarray(lens) == dims[1]):
            raise ONNXImportError(f"Scan {node.name!r}: sequence_lens shorter than the scanned axis "
                                  "are not supported")
    a9 = dict(attrs)
    a9["scan_input_directions"] = attrs.get("directions")
    per_row = []
    for b in range(dims[0]):
        row = [_take_step(ctx, x, 0, b) for x in states + scans]
        per_row.append(_scan(ctx, node, row[:n_states], row[n_states:], a9))
    return [ctx.emit(R.concat([ctx.emit(R.expand_dims(r[j], 0)) for r in per_row], axis=0))
            for j in range(len(per_row[0]))]
