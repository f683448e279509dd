"""Reduction primitives: decompose_reduction and rfactor.

``decompose_reduction(block, loop)`` moves a reduction block's ``init`` into its own
block ``<name>_init`` (with copies of the spatial loops from ``loop`` inwards, named
``<loop>_init``), placed right before ``loop``; the update block is renamed
``<name>_update``.  ``rfactor(loop, factor_axis)`` turns a reduction over ``loop``
into a partial reduction ``<name>_rf`` into a new buffer ``<buf>_rf`` that keeps
``loop`` as an extra (spatial) dimension, followed by a block that reduces that
dimension into the original output.
"""

from __future__ import annotations

from ember.ir import Add, And, Max, Min, Mul, Range, Var, const, replace, structural_equal
from ember.tir.buffer import BufferLoad, BufferRegion, decl_buffer
from ember.tir.functor import ir_transform, substitute
from ember.tir.stmt import BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, seq

from .analysis import (
    blocks_under, child_blocks, infer_regions, is_true, loops_above, replace_stmts, scope_of, unique_name,
    vars_in,
)
from .cached_flags import stage_pipeline
from .errors import ScheduleError

__all__ = ["decompose_reduction", "rfactor"]

_REDUCERS = (Add, Mul, Min, Max)


def _copy_loops(loops, keep, suffix: str) -> tuple[list, dict]:
    """Fresh copies of the loops in ``loops`` whose vars are in ``keep``, and the var map."""
    copies, vmap = [], {}
    for lp in loops:
        if lp.loop_var in keep:
            var = Var(lp.loop_var.name + suffix, lp.loop_var.dtype)
            vmap[lp.loop_var] = var
            copies.append((var, lp))
    return copies, vmap


def _wrap(copies, vmap, body, keep_kind: bool = False):
    """``body`` under the copied loops: serial, or (``keep_kind``) with each loop's kind,
    thread binding and annotations, as TVM copies them."""
    for var, lp in reversed(copies):
        lo, ext = substitute(lp.min, vmap), substitute(lp.extent, vmap)
        body = replace(lp, loop_var=var, min=lo, extent=ext, body=body,
                       thread_binding=_fresh_binding(lp.thread_binding)) if keep_kind else \
            For(var, lo, ext, ForKind.SERIAL, body)
    return body


def _fresh_binding(iv):
    """A copied loop's own thread IterVar (each bound loop defines its thread variable)."""
    return None if iv is None else replace(iv, var=Var(iv.var.name, iv.var.dtype))


def _conjuncts(pred) -> list:
    if isinstance(pred, And):
        return _conjuncts(pred.a) + _conjuncts(pred.b)
    return [pred]


def _predicate_for(pred, available: set, vmap: dict):
    """The conjuncts of ``pred`` that only use ``available`` loops, renamed by ``vmap``."""
    out = const(True)
    for c in _conjuncts(pred):
        if is_true(c) or any(v not in available for v in vars_in(c)):
            continue
        c = substitute(c, vmap)
        out = c if is_true(out) else And(out, c)
    return out


def decompose_reduction(func, realize: BlockRealize, loop: For):
    block = realize.block
    if block.init is None:
        raise ScheduleError(f"decompose_reduction: block {block.name_hint!r} is not a reduction block "
                            "(it has no init)", func, block=block)
    loops = loops_above(func, realize)
    if loop not in loops:
        raise ScheduleError(f"decompose_reduction: loop {loop.loop_var.name!r} is not a loop above block "
                            f"{block.name_hint!r}", func, loop=loop)
    inner = loops[loops.index(loop):]
    reduce_vars = {x for iv, v in zip(block.iter_vars, realize.iter_values)
                   if iv.iter_type == IterVarType.CommReduce for x in vars_in(v)}
    for outer in loops[:loops.index(loop)]:
        if outer.loop_var in reduce_vars:
            raise ScheduleError(f"decompose_reduction: loop {outer.loop_var.name!r} outside loop "
                                f"{loop.loop_var.name!r} feeds a reduction iterator of block "
                                f"{block.name_hint!r}; the init would run more than once", func, loop=outer)
    spatial = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
               if iv.iter_type == IterVarType.DataPar]
    used = {x for _, v in spatial for x in vars_in(v)}
    copies, vmap = _copy_loops(inner, used, "_init")
    new_ivs = [IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), iv.iter_type) for iv, _ in spatial]
    ivmap = {iv.var: n.var for (iv, _), n in zip(spatial, new_ivs)}
    init_body = substitute(block.init, ivmap)
    init_block = replace(block, iter_vars=tuple(new_ivs), reads=(), writes=(), name_hint=unique_name(func, block.name_hint + "_init"),
                         body=init_body, init=None, alloc_buffers=(), match_buffers=())  # annotations kept (TVM)
    init_block = replace(init_block, writes=infer_regions(init_block)[1])
    available = {lp.loop_var for lp in loops[:loops.index(loop)]} | set(vmap)
    # symbolic shape vars (n in `i < n`) are not loops: conjuncts over them stay
    loop_vars = {lp.loop_var for lp in loops}
    available |= {v for v in vars_in(realize.predicate) if v not in loop_vars}
    pred = _predicate_for(realize.predicate, available, vmap)
    init_realize = BlockRealize(tuple(substitute(v, vmap) for _, v in spatial), pred, init_block)
    # without its init the update reads what it accumulates into (TVM lists those first)
    known = {id(r.buffer) for r in block.reads}
    update_reads = tuple(w for w in block.writes if id(w.buffer) not in known) + tuple(block.reads)
    update = replace(block, init=None, reads=update_reads,
                     name_hint=unique_name(func, block.name_hint + "_update"))
    new_loop = replace_stmts(loop, {block: update})
    func = replace_stmts(func, {loop: seq(_wrap(copies, vmap, init_realize, keep_kind=True), new_loop)})
    return func, (init_block.name_hint, update.name_hint)


def _without_lets(block):
    """``block`` with a body of ``let x = e`` bindings ending in a store rewritten as the
    store alone (``x`` replaced by ``e``): the form rfactor matches, as TVM does."""
    from ember.tir.stmt import LetStmt

    body, vmap = block.body, {}
    while isinstance(body, LetStmt):
        vmap[body.var] = substitute(body.value, vmap)
        body = body.body
    if not vmap or not isinstance(body, BufferStore):
        return block
    return replace(block, body=BufferStore(body.buffer, substitute(body.value, vmap),
                                           tuple(substitute(i, vmap) for i in body.indices)))


def _reducer(func, block):
    body = block.body
    ok = isinstance(body, BufferStore) and isinstance(body.value, _REDUCERS)
    if ok:
        lhs = body.value.a
        ok = isinstance(lhs, BufferLoad) and lhs.buffer is body.buffer and all(
            a is b for a, b in zip(lhs.indices, body.indices))
    if not ok or block.init is None or not isinstance(block.init, BufferStore):
        raise ScheduleError(
            f"rfactor: block {block.name_hint!r} must be a reduction of the form "
            "`C[...] = C[...] op value` (op one of +, *, min, max) with an init", func, block=block)
    init = block.init
    if init.buffer is not body.buffer or len(init.indices) != len(body.indices) or not all(
            structural_equal(a, b, map_free_vars=False) for a, b in zip(init.indices, body.indices)):
        raise ScheduleError(f"rfactor: the init and the update of block {block.name_hint!r} must write the "
                            "same element of the same buffer", func, block=block)
    op = type(body.value)
    if not _is_identity(op, init.value):
        raise ScheduleError(f"rfactor: the init value {init.value!r} of block {block.name_hint!r} is not the "
                            f"identity of its reduction ({op.__name__})", func, block=block)
    reduce_vars = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
    if any(v in reduce_vars for i in body.indices for v in vars_in(i)):
        raise ScheduleError(f"rfactor: block {block.name_hint!r} writes an element chosen by a reduction "
                            "iterator; its output must be indexed by spatial iterators only", func, block=block)
    return op, body.value.b


def _is_identity(op, value) -> bool:
    """Whether ``value`` is the identity of the reduction ``op`` (TVM's reducer patterns)."""
    v = getattr(value, "value", None)
    if v is None:
        return False
    if op is Add:
        return v == 0
    if op is Mul:
        return v == 1
    dtype = value.dtype
    if dtype.is_float:
        lowest, highest = float("-inf"), float("inf")
        limit = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}.get(dtype.bits)
        return v in ((highest, limit) if op is Min else (lowest, -limit if limit else lowest))
    bits, signed = dtype.bits, not str(dtype).startswith("uint")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return v == (hi if op is Min else lo)


def rfactor(func, loop: For, factor_axis: int):
    realizes = blocks_under(loop)
    if len(realizes) != 1:
        raise ScheduleError(f"rfactor: loop {loop.loop_var.name!r} must contain exactly one block, found "
                            f"{len(realizes)}", func, loop=loop)
    realize = realizes[0]
    block = _without_lets(realize.block)  # realize stays the statement in func (found by identity)
    from .rfactor_tuple import tuple_reduction

    multi = tuple_reduction(func, block)  # argmax-like: several accumulators updated by selects
    op, rhs = _reducer(func, block) if multi is None else (None, None)
    scope = scope_of(func, realize)
    if scope is not None and not stage_pipeline(func, scope.block):
        raise ScheduleError(f"rfactor: the scope block {scope.block.name_hint!r} of block {block.name_hint!r} "
                            "is not a stage pipeline (a block reads what no block before it writes, or "
                            "blocks depend write-after-read)", func, block=block)
    lv = loop.loop_var
    kinds = [iv.iter_type for iv, v in zip(block.iter_vars, realize.iter_values) if lv in vars_in(v)]
    if any(k != IterVarType.CommReduce for k in kinds):  # a loop no iterator uses is allowed, as TVM
        raise ScheduleError(f"rfactor: loop {lv.name!r} must be bound to reduction iterators only of "
                            f"block {block.name_hint!r}", func, loop=loop)
    _check_rfactor_loops(func, realize, loops_above(func, realize))
    _check_first_child(func, realize, loops_above(func, realize))
    store = block.body if multi is None else multi.stores[0]
    out = store.buffer
    outs = [out] if multi is None else multi.buffers
    ndim = len(out.shape)
    if any(len(b.shape) != ndim or not all(_same_dim(x, y) for x, y in zip(b.shape, out.shape)) for b in outs):
        raise ScheduleError(f"rfactor: the accumulators of block {block.name_hint!r} must have one shape",
                            func, block=block)
    axis = factor_axis + ndim + 1 if factor_axis < 0 else factor_axis
    if not 0 <= axis <= ndim:
        raise ScheduleError(f"rfactor: factor_axis must be in [{-ndim - 1}, {ndim}], got {factor_axis}",
                            func, loop=loop)
    rf_name = unique_name(func, block.name_hint + "_rf")
    rf_bufs = [decl_buffer(b.shape[:axis] + (loop.extent,) + b.shape[axis:], b.dtype,
                           unique_name(func, b.name + "_rf"), scope=b.scope()) for b in outs]
    rf_buf = rf_bufs[0]
    vrf = Var("v" + lv.name, lv.dtype)

    def rf_index(indices, v):
        return tuple(indices[:axis]) + (v,) + tuple(indices[axis:])

    idx = rf_index(store.indices, vrf)
    # the rf block gets one iterator per loop feeding the reduction: ``loop`` becomes the
    # spatial ``vrf``; every other such loop a reduction iterator over its own range
    loops = loops_above(func, realize)
    reduce_pairs = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
                    if iv.iter_type == IterVarType.CommReduce]
    reduce_loops = {x for _, v in reduce_pairs for x in vars_in(v)}
    # reduction iterators the rfactor loop does not drive stay as they are (TVM); the others
    # give way to one reduction iterator per loop that drives them
    touched = [(iv, v) for iv, v in reduce_pairs if lv in vars_in(v)]
    touched_loops = {x for _, v in touched for x in vars_in(v)}
    spatial_loops = {x for iv, v in zip(block.iter_vars, realize.iter_values)
                     if iv.iter_type != IterVarType.CommReduce for x in vars_in(v)}
    for lp in loops:
        if lp.loop_var in reduce_loops and lp.loop_var in spatial_loops:
            raise ScheduleError(f"rfactor: loop {lp.loop_var.name!r} feeds both spatial and reduction "
                                f"iterators of block {block.name_hint!r}", func, loop=lp)
    rvars = {lp.loop_var: Var("v" + lp.loop_var.name, lp.loop_var.dtype) for lp in loops
             if lp.loop_var in touched_loops and lp is not loop}
    rvars[lv] = vrf if is_true(loop.min == 0) else vrf + loop.min
    new_reduce = [IterVar(Range(lp.min, lp.extent), rvars[lp.loop_var], IterVarType.CommReduce)
                  for lp in loops if lp.loop_var in rvars and lp is not loop]
    kept_pairs = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
                  if not any(iv is t for t, _ in touched)]
    red_map = {iv.var: substitute(v, rvars) for iv, v in touched}
    if multi is not None:
        rf_body, rf_init = multi.rf_parts(rf_bufs, idx, red_map)
    elif new_reduce or any(iv.iter_type == IterVarType.CommReduce for iv, _ in kept_pairs):
        rf_body, rf_init = BufferStore(rf_buf, op(BufferLoad(rf_buf, idx), substitute(rhs, red_map)), idx), \
            BufferStore(rf_buf, block.init.value, idx)
    else:  # nothing left to reduce: the rf block is spatial, a plain store (TVM)
        rf_body, rf_init = BufferStore(rf_buf, substitute(rhs, red_map), idx), None
    rf_block = replace(
        block, name_hint=rf_name,
        iter_vars=(IterVar(Range(0, loop.extent), vrf, IterVarType.DataPar),)
        + tuple(iv for iv, _ in kept_pairs) + tuple(new_reduce),
        body=rf_body, init=rf_init)
    reads, writes = infer_regions(rf_block)
    if multi is not None:  # as TVM: the block's own reads (rebound), the partials written in order
        reads = tuple(BufferRegion(r.buffer, tuple(Range(substitute(x.min, red_map), x.extent) for x in r.region))
                      for r in block.reads if all(r.buffer is not b for b in outs))
        writes = tuple(w for b in rf_bufs for w in writes if w.buffer is b)
    rf_block = replace(rf_block, reads=reads, writes=writes)
    binding = lv if is_true(loop.min == 0) else lv - loop.min
    rf_values = (binding,) + tuple(v for _, v in kept_pairs) + tuple(
        lp.loop_var for lp in loops if lp.loop_var in rvars and lp is not loop)
    rf_realize = BlockRealize(rf_values, realize.predicate, rf_block)

    # the write-back block: reduce the rf dimension into the original buffer.  As in TVM it
    # takes the original block's place (the other reduction loops dropped), and the rf block
    # runs first under fresh copies of all the loops, before the outermost one.
    spatial = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
               if iv.iter_type == IterVarType.DataPar]
    new_ivs = [IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), iv.iter_type) for iv, _ in spatial]
    wrf = Var("v" + lv.name, lv.dtype)
    ivmap = {iv.var: n.var for (iv, _), n in zip(spatial, new_ivs)}
    out_idx = tuple(substitute(i, ivmap) for i in store.indices)
    if multi is not None:
        wb_body, wb_init = multi.wb_parts(rf_bufs, out_idx, rf_index(out_idx, wrf), ivmap, func, block)
    else:
        wb_body = BufferStore(out, op(BufferLoad(out, out_idx), BufferLoad(rf_buf, rf_index(out_idx, wrf))),
                              out_idx)
        wb_init = substitute(block.init, ivmap)
    wb_block = replace(
        block, iter_vars=(IterVar(Range(0, loop.extent), wrf, IterVarType.CommReduce),) + tuple(new_ivs),
        body=wb_body, init=wb_init, alloc_buffers=(), match_buffers=())
    reads, writes = infer_regions(wb_block)
    if multi is not None:
        reads = tuple(r for b in rf_bufs for r in reads if r.buffer is b)
        writes = tuple(w for b in outs for w in writes if w.buffer is b)
    wb_block = replace(wb_block, reads=reads, writes=writes)
    values = (binding,) + tuple(v for _, v in spatial)  # TVM's order
    dropped = [lp for lp in loops if lp.loop_var in reduce_loops and lp.loop_var is not lv]
    keep = {lp.loop_var for lp in loops} - {lp.loop_var for lp in dropped}
    loop_vars = {lp.loop_var for lp in loops}
    available = keep | {v for v in vars_in(realize.predicate) if v not in loop_vars}
    pred = _predicate_for(realize.predicate, available, {})
    for cond in _rf_reached(func, realize, loop, loops, keep):  # skip partials never initialised
        pred = cond if is_true(pred) else And(pred, cond)
    for lp in dropped:
        if len(blocks_under(lp)) != 1:
            raise ScheduleError(f"rfactor: loop {lp.loop_var.name!r} feeds a reduction iterator of block "
                                f"{block.name_hint!r} and holds other blocks too", func, loop=lp)
    top = loops[0]
    rf_copies, rf_vmap = _copy_loops(loops, loop_vars, "")
    rf_realize = replace(rf_realize, iter_values=tuple(substitute(v, rf_vmap) for v in rf_realize.iter_values),
                         predicate=substitute(rf_realize.predicate, rf_vmap))
    rf_nest = rf_realize
    for var, lp in reversed(rf_copies):  # full copies: kind, thread binding, annotations kept
        rf_nest = replace(lp, loop_var=var, min=substitute(lp.min, rf_vmap),
                          extent=substitute(lp.extent, rf_vmap), body=rf_nest,
                          thread_binding=_fresh_binding(lp.thread_binding))
    drop = {lp.loop_var for lp in dropped}
    new_top = replace_stmts(top, {realize: BlockRealize(values, pred, wb_block)})
    new_top = ir_transform(new_top, None, lambda n: n.body if n.loop_var in drop else None, only_enable=["For"])
    scope = scope_of(func, realize)
    func = replace_stmts(func, {top: seq(rf_nest, new_top)})
    sb = _find_scope_block(func, scope.block.name_hint)
    func = replace_stmts(func, {sb: replace(sb, alloc_buffers=sb.alloc_buffers + tuple(rf_bufs))})
    return func, rf_block.name_hint


def _same_dim(a, b) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _check_rfactor_loops(func, realize, loops) -> None:
    """The bindings must be affine in the loops, and loops feeding reduction iterators serial."""
    from . import _arith

    block = realize.block

    for iv, v in zip(block.iter_vars, realize.iter_values):
        if not _arith.is_quasi_affine(v, {lp.loop_var for lp in loops}):
            raise ScheduleError(f"rfactor: the binding {v!r} of iterator {iv.var.name!r} of block "
                                f"{block.name_hint!r} is not affine in the loops", func, block=block)
    reduce_loops = {x for iv, v in zip(block.iter_vars, realize.iter_values)
                    if iv.iter_type == IterVarType.CommReduce for x in vars_in(v)}
    for lp in loops:
        if lp.loop_var in reduce_loops and (lp.kind != ForKind.SERIAL or lp.thread_binding is not None):
            raise ScheduleError(f"rfactor: loop {lp.loop_var.name!r} feeds a reduction iterator of block "
                                f"{block.name_hint!r} but is {lp.kind.name.lower()}, not serial",
                                func, loop=lp)


def _check_first_child(func, realize, loops) -> None:
    """As TVM: the block must be the first block under its outermost loop, since the rf
    nest runs before that loop; a block after others there (say, a consumer moved in by
    reverse_compute_at) would read their results before they exist."""
    first = child_blocks(loops[0])[0] if loops else realize
    if first is not realize:
        raise ScheduleError(f"rfactor: block {realize.block.name_hint!r} must be the first block under its "
                            f"outermost loop {loops[0].loop_var.name!r}, which runs block "
                            f"{first.block.name_hint!r} before it", func, block=realize.block)


def _rf_reached(func, realize, loop, loops, kept: set) -> list:
    """Conditions (over the kept loops) under which a value of the rfactor loop runs at
    least one reduction step.  A value that never runs one leaves its partial result
    uninitialised, so the write-back block must skip it.  Only ``x < n`` conjuncts that
    grow with the dropped loops are understood: with those loops at their minimum the
    conjunct says exactly whether any step runs.  Conjuncts that provably always hold
    there give no condition."""
    from ember.ir import LT

    from . import _arith

    lv = loop.loop_var
    reached = []
    for c in _conjuncts(realize.predicate):
        if lv not in vars_in(c):
            continue
        if not (isinstance(c, LT) and all(coeff >= 0 for _, coeff in _arith.linear(c.a).terms.values())):
            raise ScheduleError(f"rfactor: cannot tell which values of loop {lv.name!r} run a reduction "
                                f"step under the predicate {c!r}", func, loop=loop)
        at_start = {lp.loop_var: lp.min for lp in loops if lp.loop_var not in kept}
        worst = {lp.loop_var: lp.min for lp in loops if lp.loop_var is not lv}
        worst[lv] = _arith.simplify(loop.min + loop.extent - 1)
        value = _arith.as_int(_arith.simplify(substitute(c.a, worst))), _arith.as_int(c.b)
        if None in value or value[0] >= value[1]:
            reached.append(_arith.simplify(substitute(c, at_start)))
    return reached


def _find_scope_block(func, name):
    from .analysis import find_block

    return find_block(func, name).block
