"""LowerCrossThreadReduction: reductions whose reduction loop is bound to GPU threads.

A reduction block ``B[i] = B[i] + f(i, k)`` under ``k`` bound to ``threadIdx.x`` would
have every thread update ``B[i]`` at once.  This pass (GPU targets only; run on
scheduled TIR, before LowerInitBlock) rewrites the perfect loop nest from the
outermost reduction loop down to the block into:

* each thread folds its share into a one-element ``local`` buffer (the serial
  reduction loops stay, the block predicate selects the identity);
* the threads of a group combine their partials: with warp shuffles
  (``__shfl_down_sync``) when the reduction runs over ``threadIdx.x`` with a
  power-of-two extent up to the warp size, else with a tree in ``shared`` memory
  (the CUDA code generator's ThreadSync inserts the barriers);
* the thread at reduction index 0 writes ``init ⊕ total`` to the output.

Reducers recognised: sum, product, max, min (the update must read the output at the
same indices).  A thread-bound reduction that does not fit raises an error saying why.
"""

from __future__ import annotations

import math

from ember.ir import Add, And, Call, DataType, EQ, IntImm, LT, Max, Min, Mul, Op, Select, StringImm, Var, const
from ember.ir import replace, structural_equal
from ember.transform import Pass

from ..buffer import BufferLoad, decl_buffer
from ..function import PrimFunc
from ..functor import post_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, ForKind, IfThenElse, IterVarType, LetStmt, SeqStmt, seq
from ._common import make_pass

__all__ = ["lower_cross_thread_reduction", "LowerCrossThreadReduction", "CrossThreadReductionError"]

_REDUCERS = {Add: "sum", Mul: "prod", Max: "max", Min: "min"}
WARP = 32


class CrossThreadReductionError(ValueError):
    """A reduction over GPU threads that this pass cannot lower; the message says why."""


def _identity(kind: str, dtype: DataType):
    if kind == "sum":
        return const(0, dtype)
    if kind == "prod":
        return const(1, dtype)
    if dtype.is_float:
        return const(-math.inf if kind == "max" else math.inf, dtype)
    bits = dtype.bits
    low, high = (0, (1 << bits) - 1) if dtype.is_uint else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return const(low if kind == "max" else high, dtype)


def _combine(kind: str, a, b):
    return {"sum": Add, "prod": Mul, "max": Max, "min": Min}[kind](a, b)


def _is_thread(loop: For, prefix: str = "threadIdx") -> bool:
    return loop.kind == ForKind.THREAD_BINDING and loop.thread_binding is not None and \
        loop.thread_binding.thread_tag.startswith(prefix)


def _reduce_vars(realize: BlockRealize) -> set[int]:
    found: set[int] = set()
    for iv, value in zip(realize.block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.CommReduce:
            post_order_visit(value, lambda n: found.add(id(n)) if isinstance(n, Var) else None)
    return found


def _chain(loop: For) -> tuple[list[For], BlockRealize | None]:
    """The perfectly nested loops from ``loop`` down, and the block at the bottom (or None)."""
    loops, node = [], loop
    while isinstance(node, For):
        loops.append(node)
        node = node.body
    return loops, node if isinstance(node, BlockRealize) else None


def _stores(stmt) -> tuple[dict, list] | None:
    """(let var → value, stores) of ``let …; S1; S2 …`` (a tuple reducer's body), else None."""
    lets: dict[int, object] = {}
    while isinstance(stmt, LetStmt):
        lets[id(stmt.var)] = stmt.value
        stmt = stmt.body
    stores = list(stmt.seq) if isinstance(stmt, SeqStmt) else [stmt]
    if not all(isinstance(st, BufferStore) for st in stores):
        return None
    return lets, stores


def _same(a, b) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _refers_to(expr, buffers: set[int], lets: dict) -> bool:
    found = []

    def visit(n):
        if (isinstance(n, BufferLoad) and id(n.buffer) in buffers) or (isinstance(n, Var) and id(n) in lets):
            found.append(n)

    post_order_visit(expr, visit)
    return bool(found)


def _split_update(block: Block):
    """[(kind, output store, init value, other operand)] for each slot of ``B[idx] = B[idx] ⊕ x``
    (several slots for tuple reducers such as sum and sum of squares), or None."""
    body, init = _stores(block.body), _stores(block.init) if block.init is not None else None
    if body is None or init is None or init[0] or len(init[1]) != len(body[1]):
        return None
    lets, stores = body
    inits = {id(st.buffer): st.value for st in init[1]}
    outputs = {id(st.buffer) for st in stores}
    slots = []
    for store in stores:
        value = lets.get(id(store.value), store.value) if isinstance(store.value, Var) else store.value
        kind = _REDUCERS.get(type(value))
        if kind is None or id(store.buffer) not in inits:
            return None
        own = BufferLoad(store.buffer, store.indices)
        a, b = value.a, value.b
        if isinstance(a, BufferLoad) and a.buffer is store.buffer and _same(a, own):
            operand = b
        elif isinstance(b, BufferLoad) and b.buffer is store.buffer and _same(b, own):
            operand = a
        else:
            return None
        if _refers_to(operand, outputs, lets):  # an argmax-style reducer: slots depend on each other
            return None
        slots.append((kind, store, inits[id(store.buffer)], operand))
    return slots


def _linear(loops: list[For]):
    index = const(0, "int32")
    for loop in loops:
        index = index * int(loop.extent.value) + loop.loop_var
    return index


def _lower(chain: list[For], realize: BlockRealize, path: list[For]):
    block = realize.block
    parts = _split_update(block)
    if parts is None:
        raise CrossThreadReductionError(
            f"block {block.name_hint!r} reduces over GPU threads but is not a sum/product/max/min update of its "
            "output (B[i] = B[i] + x) with independent slots; rewrite it, or do not bind its reduction loop to threads")
    threads = [lp for lp in chain if lp.kind == ForKind.THREAD_BINDING]
    serial = [lp for lp in chain if lp.kind != ForKind.THREAD_BINDING]
    reduce_ids = _reduce_vars(realize)
    for lp in chain:
        if id(lp.loop_var) not in reduce_ids:
            raise CrossThreadReductionError(
                f"block {block.name_hint!r}: spatial loop {lp.loop_var.name!r} lies inside its thread-bound reduction "
                "loops; reorder it above the reduction loops")
        if lp.kind == ForKind.THREAD_BINDING and not _is_thread(lp):
            raise CrossThreadReductionError(
                f"block {block.name_hint!r}: reduction loop {lp.loop_var.name!r} is bound to "
                f"{lp.thread_binding.thread_tag}; a reduction can only be split across threadIdx, not blocks")
    for lp in threads + [p for p in path if _is_thread(p)]:
        if not isinstance(lp.extent, IntImm):
            raise CrossThreadReductionError(f"block {block.name_hint!r}: thread loop {lp.loop_var.name!r} needs a "
                                            "constant extent for a cross-thread reduction")
    vmap = {iv.var: value for iv, value in zip(block.iter_vars, realize.iter_values)}
    predicate = substitute(realize.predicate, vmap)
    always = isinstance(predicate, IntImm) and predicate.value
    extent = math.prod(int(lp.extent.value) for lp in threads)
    r_index = _linear(threads)
    group_loops = [p for p in path if _is_thread(p)]
    groups = math.prod(int(p.extent.value) for p in group_loops)
    block_threads = extent * groups
    shuffle = (len(threads) == 1 and threads[0].thread_binding.thread_tag == "threadIdx.x" and extent <= WARP
               and extent & (extent - 1) == 0 and (block_threads % WARP == 0 or groups == 1))
    zero = (const(0, "int32"),)
    locals_, updates, body, allocs, results = [], [], [], [], []
    for kind, store, _, operand in parts:
        dtype = store.buffer.dtype
        local = decl_buffer((1,), dtype, f"{store.buffer.name}_red_local", scope="local")
        locals_.append(local)
        allocs.append(local)
        identity = _identity(kind, dtype)
        value = substitute(operand, vmap)
        contribution = value if always else Select(predicate, value, identity)
        body.append(BufferStore(local, identity, zero))
        updates.append(BufferStore(local, _combine(kind, BufferLoad(local, zero), contribution), zero))
    update = seq(*updates)
    for lp in reversed(serial):
        update = replace(lp, body=update)
    body.append(update)
    for (kind, store, _, _), local in zip(parts, locals_):
        dtype = store.buffer.dtype
        if shuffle:
            mask = 0xFFFFFFFF if block_threads >= WARP else (1 << block_threads) - 1
            offset = extent // 2
            while offset >= 1:
                other = Call(dtype, Op.get("tir.call_extern"), (
                    StringImm("__shfl_down_sync"), IntImm(DataType("uint32"), mask), BufferLoad(local, zero),
                    const(offset, "int32"), const(extent, "int32")))
                body.append(BufferStore(local, _combine(kind, BufferLoad(local, zero), other), zero))
                offset //= 2
            results.append(BufferLoad(local, zero))
            continue
        shared = decl_buffer((groups * extent,), dtype, f"{store.buffer.name}_red_shared", scope="shared")
        allocs.append(shared)
        base = _linear(group_loops) * extent
        body.append(BufferStore(shared, BufferLoad(local, zero), (base + r_index,)))
        step = 1 << (extent - 1).bit_length() - 1 if extent > 1 else 0
        while step >= 1:
            mine, theirs = (base + r_index,), (base + r_index + step,)
            cond = LT(r_index, const(step, "int32"))
            if 2 * step > extent:  # some partner index would be past the end
                cond = And(cond, LT(r_index + step, const(extent, "int32")))
            body.append(IfThenElse(cond, BufferStore(shared, _combine(
                kind, BufferLoad(shared, mine), BufferLoad(shared, theirs)), mine)))
            step //= 2
        results.append(BufferLoad(shared, (base,)))
    write_cond = EQ(r_index, const(0, "int32"))
    if not always:
        start = {lp.loop_var: lp.min for lp in chain}
        write_cond = And(write_cond, substitute(predicate, start))
    writes = []
    for (kind, store, init_value, _), result in zip(parts, results):
        indices = tuple(substitute(i, vmap) for i in store.indices)
        writes.append(BufferStore(store.buffer, _combine(kind, substitute(init_value, vmap), result), indices))
    body.append(IfThenElse(write_cond, seq(*writes)))
    new_block = Block((), (), (), f"{block.name_hint}_cross_thread", seq(*body), alloc_buffers=tuple(allocs))
    out = BlockRealize((), const(True, "bool"), new_block)
    for lp in reversed(threads):
        out = replace(lp, body=out)
    return out


def _rewrite(stmt, path: list[For]):
    if isinstance(stmt, For):
        loops, realize = _chain(stmt)
        if realize is not None and realize.block.init is not None:
            reduce_ids = _reduce_vars(realize)
            crosses = any(_is_thread(lp) and id(lp.loop_var) in reduce_ids for lp in loops)
            if crosses and id(stmt.loop_var) in reduce_ids:
                return _lower(loops, realize, path)
        body = _rewrite(stmt.body, path + [stmt])
        return stmt if body is stmt.body else replace(stmt, body=body)
    if isinstance(stmt, SeqStmt):
        new = tuple(_rewrite(s, path) for s in stmt.seq)
        return stmt if all(a is b for a, b in zip(new, stmt.seq)) else SeqStmt(new)
    if isinstance(stmt, BlockRealize):
        body = _rewrite(stmt.block.body, path)
        return stmt if body is stmt.block.body else replace(stmt, block=replace(stmt.block, body=body))
    if hasattr(stmt, "body") and not isinstance(stmt, Block):
        body = _rewrite(stmt.body, path)
        return stmt if body is stmt.body else replace(stmt, body=body)
    if isinstance(stmt, IfThenElse):
        then = _rewrite(stmt.then_case, path)
        other = None if stmt.else_case is None else _rewrite(stmt.else_case, path)
        if then is stmt.then_case and other is stmt.else_case:
            return stmt
        return IfThenElse(stmt.condition, then, other)
    return stmt


def lower_cross_thread_reduction(func: PrimFunc) -> PrimFunc:
    body = _rewrite(func.body, [])
    return func if body is func.body else replace(func, body=body)


def LowerCrossThreadReduction() -> Pass:  # noqa: N802 - TVM's pass-constructor name
    return make_pass(lower_cross_thread_reduction, "LowerCrossThreadReduction")
