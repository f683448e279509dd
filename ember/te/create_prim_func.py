"""``create_prim_func``: lower a te graph to a block-based TensorIR PrimFunc.

The result has TVM's shape: parameters are the listed tensors (then any free scalar
Vars), a root block allocating the intermediate tensors, and for each compute op, in
dependency order, a nest of serial loops around one block named after the op.  The
block binds spatial/reduce iterators to the loops, declares the regions it reads and
writes, and (for reductions) an ``init`` storing the identity and a body storing
``combine(out, value)``.  Multi-output reductions bind the combined values with
``LetStmt`` first so no store clobbers an input of another.

Block names are the op names, made unique with ``_1``, ``_2`` …; ``T.reads`` /
``T.writes`` come from ``tir.analysis.block_access_regions`` (reads leave out the
buffers the block writes, as TVM prints them); data-parallel bodies are simplified
with the block iterators' ranges known, as TVM does.
"""

from __future__ import annotations

import logging

from ember.ir import DataType, IntImm, Let, PrimExpr, Range, Var, const, replace
from ember.tir import (
    Block, BlockRealize, Buffer, BufferLoad, BufferRegion, BufferStore, For, ForKind, IfThenElse,
    IRMutator, IterVar, IterVarType, LetStmt, PrimFunc, decl_buffer, seq,
)
from ember.tir.analysis import block_access_regions

from .index_dtype import override_index_dtype
from .reduce import Reduce
from .tensor import ComputeOp, ExternOp, Operation, PlaceholderOp, Tensor, walk_expr

__all__ = ["create_prim_func", "lower_te"]

_log = logging.getLogger(__name__)


def _topo_ops(tensors: list[Tensor]) -> list[Operation]:
    order: list[Operation] = []
    seen: set[int] = set()

    def visit(op: Operation) -> None:
        stack = [(op, iter(op.input_tensors))]
        seen.add(id(op))
        while stack:
            current, inputs = stack[-1]
            for t in inputs:
                if id(t.op) not in seen:
                    seen.add(id(t.op))
                    stack.append((t.op, iter(t.op.input_tensors)))
                    break
            else:
                stack.pop()
                order.append(current)

    for t in tensors:
        if id(t.op) not in seen:
            visit(t.op)
    return order


class _Lowerer(IRMutator):
    """ProducerLoad → BufferLoad and te axis Vars → block iterator Vars."""

    def __init__(self, buffers: dict, vmap: dict):
        super().__init__()
        self.buffers, self.vmap = buffers, vmap

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    def visit_ProducerLoad(self, load):
        buffer = self.buffers[load.producer]
        return BufferLoad(buffer, tuple(self.visit(i) for i in load.indices))


def _loop_nest(iter_vars: tuple, block: Block, loop_vars: list[Var]) -> object:
    body = BlockRealize(tuple(loop_vars), const(True), block)
    for iv, lv in reversed(list(zip(iter_vars, loop_vars))):
        body = For(lv, iv.dom.min, iv.dom.extent, ForKind.SERIAL, body)
    return body


def _block_iters(axes) -> tuple[list[IterVar], list[Var], dict]:
    iters, loops, vmap = [], [], {}
    for iv in axes:
        name, dtype = iv.var.name, iv.var.dtype
        block_var = Var(f"v_{name}", dtype)
        vmap[iv.var] = block_var
        iters.append(IterVar(Range(iv.dom.min, iv.dom.extent), block_var, iv.iter_type))
        loops.append(Var(name, dtype))
    return iters, loops, vmap


def _simplifier(iters):
    """Simplify data-parallel bodies with the block iterators' ranges known, as TVM does
    (``A[(i * 4 + j) // 4 // 3, …]`` becomes ``A[i // 3, …]``)."""
    from ember.arith import Analyzer

    def simplify(expr):
        try:
            analyzer = Analyzer()
            for iv in iters:
                analyzer.bind(iv.var, iv.dom)
            out = analyzer.simplify(expr)
        except Exception as err:  # noqa: BLE001 - an unsimplified body is still correct
            _log.debug("create_prim_func: body left unsimplified (%s: %s)", type(err).__name__, err)
            return expr
        if out.dtype != expr.dtype:
            _log.debug("create_prim_func: simplifier changed %s to %s; body left as is", expr.dtype, out.dtype)
            return expr
        return out

    return simplify


def _multi_output_blocks(op: ComputeOp, buffers: dict, name: str) -> object:
    """A data-parallel compute with several outputs: one block per output (``name.v0``,
    ``name.v1`` …) under one shared loop nest, as TVM lowers it."""
    loops = None
    realizes = []
    for k, expr in enumerate(op.body):
        iters, block_loops, vmap = _block_iters(op.axis)
        loops = loops or block_loops
        out = buffers[op.output(k)]
        indices = tuple(vmap[iv.var] for iv in op.axis)
        value = _simplifier(iters)(_Lowerer(buffers, vmap).visit(expr))
        block = Block(tuple(iters), (), (), f"{name}.v{k}", BufferStore(out, value, indices),
                      annotations=_annotations(op))
        reads, writes = block_access_regions(block, exclude_written_from_reads=True)
        realizes.append(BlockRealize(tuple(loops), const(True), replace(block, reads=reads, writes=writes)))
    body = seq(*realizes)
    for iv, lv in reversed(list(zip(iters, loops))):
        body = For(lv, iv.dom.min, iv.dom.extent, ForKind.SERIAL, body)
    return body


def _compute_block(op: ComputeOp, buffers: dict, name: str) -> object:
    if op.num_outputs > 1 and op.axis and not isinstance(op.body[0], Reduce):
        return _multi_output_blocks(op, buffers, name)
    from .nested_reduce import domains_depend_on_axes, nested_reduce_blocks

    if domains_depend_on_axes(op):  # a reduction domain uses another iterator: nested blocks
        return nested_reduce_blocks(op, buffers, name, lambda vmap: _Lowerer(buffers, vmap),
                                    _annotations(op))
    iters, loops, vmap = _block_iters(op.axis + op.reduce_axis)
    lower = _Lowerer(buffers, vmap)
    outs = [buffers[op.output(i)] for i in range(op.num_outputs)]
    indices = tuple(vmap[iv.var] for iv in op.axis)
    init = None
    first = op.body[0]
    if isinstance(first, Reduce):
        sources = tuple(lower.visit(s) for s in first.source)
        current = tuple(BufferLoad(b, indices) for b in outs)
        combined = first.combiner(current, sources)
        starts = first.init or first.combiner.identity_element
        init = seq(*[BufferStore(b, lower.visit(v), indices) for b, v in zip(outs, starts)])
        if len(outs) == 1:
            body = BufferStore(outs[0], combined[0], indices)
        else:
            lets = [Var(f"v_{b.name}", b.dtype) for b in outs]
            body = seq(*[BufferStore(b, v, indices) for b, v in zip(outs, lets)])
            for v, value in reversed(list(zip(lets, combined))):
                body = LetStmt(v, value, body)
        condition = lower.visit(first.condition)
        if not (isinstance(condition, IntImm) and condition.value):
            body = IfThenElse(condition, body)
    else:
        simplify = _simplifier(iters)
        body = seq(*[BufferStore(b, simplify(lower.visit(e)), indices) for b, e in zip(outs, op.body)])
    scalar = not iters  # a zero-dimensional output: one unit iterator bound to 0, as TVM
    if scalar:
        iters = [IterVar(Range(const(0, "int32"), const(1, "int32")), Var("vi", "int32"), IterVarType.DataPar)]
    block = Block(tuple(iters), (), (), name, body, init, annotations=_annotations(op))
    reads, writes = block_access_regions(block, exclude_written_from_reads=True)
    block = replace(block, reads=reads, writes=writes)
    if scalar:
        return BlockRealize((const(0, "int32"),), const(True), block)
    return _loop_nest(tuple(iters), block, loops)


def _extern_block(op: ExternOp, buffers: dict, name: str) -> object:
    from ember.tir import substitute

    outs = [buffers[op.output(i)] for i in range(op.num_outputs)]
    ins = [buffers[t] for t in op.inputs]
    bmap = dict(zip(op.input_placeholders, ins))
    bmap.update(zip(op.output_placeholders, outs))

    class _Rebind(IRMutator):
        def visit_Buffer(self, b):
            return bmap.get(b, b)

    body = _Rebind().visit(op.body)
    body = substitute(body, {p.data: b.data for p, b in bmap.items() if p.data is not b.data})
    reads = tuple(BufferRegion.full_region(b) for b in ins)
    writes = tuple(BufferRegion.full_region(b) for b in outs)
    block = Block((), reads, writes, name, body, annotations=_annotations(op))
    return BlockRealize((), const(True), block)


_LAYOUT_FREE = "layout_free_placeholders"


def _annotations(op) -> dict:
    """The op's attrs as block annotations (``layout_free_placeholders`` goes to the function)."""
    return {k: v for k, v in op.attrs.items() if k != _LAYOUT_FREE}


def _layout_free_params(order, args) -> list[int]:
    """Indices of the parameters some op marks as layout-free (weights a tuner may repack)."""
    marked = []
    for op in order:
        for t in (getattr(op, "attrs", None) or {}).get(_LAYOUT_FREE, ()):
            if t not in marked:
                marked.append(t)
    return [i for i, a in enumerate(args) if isinstance(a, Tensor) and a in marked]


def _mark_layout_free_intermediates(stmts, order, args, buffers, block_names) -> list:
    """Layout-free tensors that are not parameters stay on their consumer's block as a
    ``layout_free_placeholders`` annotation of buffers (parameters go to the function)."""
    from ember.tir.functor import ir_transform

    marks = {}
    for op in order:
        inner = [buffers[t] for t in (getattr(op, "attrs", None) or {}).get(_LAYOUT_FREE, ())
                 if t in buffers and not any(t is a for a in args)]
        if inner and op in block_names:
            marks[block_names[op]] = inner
    if not marks:
        return stmts

    def post(node):
        if isinstance(node, Block) and node.name_hint in marks:
            return replace(node, annotations={**node.annotations, _LAYOUT_FREE: marks[node.name_hint]})
        return None

    return [ir_transform(s, None, post) for s in stmts]


_BLOCK_BUILDERS = {ComputeOp: _compute_block, ExternOp: _extern_block}


def _free_vars(ops, shape_vars: set, bound: set) -> list[Var]:
    found: dict[Var, None] = {}

    def visit(x):
        if isinstance(x, Reduce):  # the combiner's own Vars are bound by it
            for part in x.source + (x.condition,) + tuple(x.init):
                walk_expr(part, visit)
            return False
        if isinstance(x, Let):  # a Let binds its own Var
            let_bound.add(x.var)
        if isinstance(x, Var) and x not in shape_vars and x not in bound and not x.dtype.is_handle:
            found.setdefault(x, None)
        return None

    let_bound: set = set()

    for op in ops:
        if isinstance(op, ComputeOp):
            for e in op.body:
                walk_expr(e, visit)
    return [v for v in found if v not in let_bound]


def _unique(name: str, used: set) -> str:
    fresh, k = name, 0
    while fresh in used:
        k += 1
        fresh = f"{name}_{k}"
    used.add(fresh)
    return fresh


def _extern_buffers(order) -> dict:
    """The buffers ``te.extern`` declared for its inputs and outputs, by tensor: as in TVM,
    a parameter tensor an extern op reads or writes takes that buffer (its symbolic
    ``elem_offset`` included; the last extern op wins). Intermediates are allocated anew."""
    found = {}
    for op in order:
        if isinstance(op, ExternOp):
            found.update(zip(op.inputs, op.input_placeholders))
            found.update((op.output(i), b) for i, b in enumerate(op.output_placeholders))
    return found


def create_prim_func(ops, index_dtype_override=None) -> PrimFunc:
    """The PrimFunc computing the listed tensors (inputs and outputs, in parameter order)."""
    return lower_te(ops, index_dtype_override)[0]


def lower_te(ops, index_dtype_override=None) -> tuple[PrimFunc, dict]:
    """``create_prim_func`` that also returns the block name given to each operation
    (names are made unique with ``_1``, ``_2`` … suffixes)."""
    args = list(ops) if isinstance(ops, list | tuple) else [ops]
    tensors = [a for a in args if isinstance(a, Tensor)]
    for pos, a in enumerate(args):
        if not isinstance(a, Tensor | Var):
            raise TypeError(
                f"create_prim_func: argument {pos} must be a te.Tensor or a Var, got {type(a).__name__}"
            )
    order = _topo_ops(tensors)
    buffers: dict[Tensor, Buffer] = {}
    params, buffer_map = [], {}
    listed_vars = [a for a in args if isinstance(a, Var)]
    declared = _extern_buffers(order)
    for a in args:
        if isinstance(a, Var):
            params.append(a)
            continue
        if a in buffers:
            raise ValueError(f"create_prim_func: tensor {a.name!r} is listed twice")
        buf = declared.get(a) or decl_buffer(a.shape, a.dtype, name=a.name)
        buffers[a] = buf
        param = Var(a.name, "handle")
        params.append(param)
        buffer_map[param] = buf
    for op in order:  # every operation must be one this lowering knows, before anything else
        if not isinstance(op, PlaceholderOp) and type(op) not in _BLOCK_BUILDERS:
            raise TypeError(f"create_prim_func: Unsupported Operation: {type(op).__name__}. Only "
                            f"PlaceholderOp, ComputeOp and ExternOp are supported ({op.name!r})")
    allocs = []
    stmts = []
    block_names: dict = {}
    used = {"root"}
    for op in order:
        if isinstance(op, PlaceholderOp):
            if op.output(0) not in buffers:
                listed = ", ".join(t.name for t in tensors)
                raise ValueError(
                    f"create_prim_func: the input placeholder {op.name!r} is used but not in the "
                    f"argument list ({listed}); list every input tensor"
                )
            continue
        builder = _BLOCK_BUILDERS.get(type(op))
        if builder is None:
            raise TypeError(f"create_prim_func: cannot lower operation {type(op).__name__} ({op.name!r})")
        for i in range(op.num_outputs):
            t = op.output(i)
            if t not in buffers:
                buffers[t] = decl_buffer(t.shape, t.dtype, name=t.name)
                allocs.append(buffers[t])
        block_names[op] = _unique(op.name, used)
        stmts.append(builder(op, buffers, block_names[op]))
    shape_vars = _shape_vars(buffers.values())
    bound = {iv.var for op in order if isinstance(op, ComputeOp) for iv in op.axis + op.reduce_axis}
    params.extend(v for v in _free_vars(order, shape_vars, bound) if v not in listed_vars)
    stmts = _mark_layout_free_intermediates(stmts, order, args, buffers, block_names)
    root = Block((), (), (), "root", seq(*stmts), alloc_buffers=tuple(allocs))
    body = BlockRealize((), const(True), root)
    attrs = {"global_symbol": "main", "tir.noalias": True}
    layout_free = _layout_free_params(order, args)
    if layout_free:
        attrs["layout_free_buffers"] = layout_free
    func = PrimFunc(tuple(params), body, None, buffer_map, attrs)
    if index_dtype_override is not None:
        func = override_index_dtype(func, DataType(index_dtype_override))
    return func, block_names


def _shape_vars(buffers) -> set:
    from ember.tir import post_order_visit

    found: set = set()
    for b in buffers:
        for dim in b.shape:
            if isinstance(dim, PrimExpr):
                post_order_visit(dim, lambda x: found.add(x) if isinstance(x, Var) else None)
    return found
