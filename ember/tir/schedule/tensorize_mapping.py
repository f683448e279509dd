"""Which loops of a block a tensor intrinsic's description covers (``tvm.tir.schedule.analysis``).

``get_tensorize_loop_mapping(sch, block, desc)`` pairs the description's block iterators
with the target block's:

1. The two block bodies must have the same shape: the stored buffer corresponds to the
   description's output, and the loads in the stored value correspond, in order, to the
   description's loads (dtypes may differ, as TVM allows: a float32 matmul maps onto a
   float16 intrinsic's loops).
2. A description iterator is characterised by the buffers in whose *trailing* dimensions
   (as many as the description's buffer has) it appears, and by its kind (spatial or
   reduction).  A target iterator with the same characterisation corresponds to it; when
   several do, the innermost one (the last block iterator) is taken.  So in
   ``C[i, j] += A[i, k] * B[k, j]`` against ``C[i, j] += A[i, k] * B[j, k]``, ``j`` is the
   iterator of ``C`` and ``B`` whatever its position in ``B``.
3. Each corresponding target iterator must be bound to one loop; its extent must be a
   multiple of the description's, or, with ``allow_padding``, it is padded up to one
   (``block_iter_paddings`` says by what multiple, ``1`` for iterators left alone, in the
   block's iterator order — what ``Schedule.pad_einsum`` takes).

The answer is ``None`` when any step fails.

``get_auto_tensorize_mapping_info(sch, block, desc)`` is the layout-rewriting variant: the
block's iterators are grouped by the set of buffers they index (anywhere, not only in
trailing dims) — the iterators of each description iterator's group are fused, in block
order, into one index (``n*256 + h*16 + w`` for a conv's ``n, h, w`` against a matmul's
``i``); iterators that match no group (a batch axis indexing every buffer) come first,
unchanged.  ``mappings`` holds that one IndexMap over the block's iterators.

``suggest_index_map`` proposes a buffer layout that a loop nest walks in order (below).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import Var
from ember.tir.buffer import BufferLoad
from ember.tir.functor import collect
from ember.tir.stmt import BlockRealize, BufferStore, For

from . import analysis as A

__all__ = ["TensorizeInfo", "AutoTensorizeMappingInfo", "get_tensorize_loop_mapping", "is_output_block", "suggest_index_map",
           "get_auto_tensorize_mapping_info"]


@dataclass
class TensorizeInfo:
    """``loop_map``: target loop sref -> description For; ``desc_loop_indexer``: description
    For -> its position among the description's loops; ``block_iter_paddings``: see above."""

    loop_map: dict = field(default_factory=dict)
    desc_loop_indexer: dict = field(default_factory=dict)
    block_iter_paddings: list | None = None


def _compute_realize(func) -> BlockRealize | None:
    """The description's one block with iterators (under its root block)."""
    found = [r for r in A.blocks_under(func.body) if r.block.iter_vars]
    return found[0] if len(found) == 1 else None


def _paired_accesses(target: BlockRealize, desc: BlockRealize) -> list | None:
    """[(target access, desc access)] of the stores and the loads in the stored values."""
    t_body, d_body = target.block.body, desc.block.body
    if not isinstance(t_body, BufferStore) or not isinstance(d_body, BufferStore):
        return None
    loads = [collect(s.value, lambda n: isinstance(n, BufferLoad)) for s in (t_body, d_body)]
    if len(loads[0]) != len(loads[1]):
        return None
    return [(t_body, d_body), *zip(*loads)]


def _signatures(pairs, iter_vars, side: int, trailing: bool = True) -> dict:
    """iterator var -> frozenset of description buffers it indexes: in the dims the description
    buffer covers (the access's trailing ones), or in any dim when ``trailing`` is False."""
    sig = {iv.var: set() for iv in iter_vars}
    for pair in pairs:
        access, d_buf = pair[side], pair[1].buffer
        indices = access.indices
        if trailing:
            indices = indices[len(indices) - len(d_buf.shape):] if d_buf.shape else ()
        for index in indices:
            for v in A.vars_in(index):
                if v in sig:
                    sig[v].add(id(d_buf))
    return {v: frozenset(x) for v, x in sig.items()}


def _loop_of(sch, block, value):
    if not isinstance(value, Var):
        return None
    for loop_rv in sch.get_loops(block):
        if sch.get(loop_rv).loop_var is value:
            return loop_rv
    return None


def _paired_blocks(sch, block, desc_func):
    """(``block``'s realize, the description's compute realize, their paired buffer
    accesses), or None when either block is missing or their accesses do not pair."""
    desc = _compute_realize(desc_func)
    target = A.find_block(sch.state.func, sch.get(block).name_hint)
    if desc is None or target is None:
        return None
    pairs = _paired_accesses(target, desc)
    return None if pairs is None else (target, desc, pairs)


def get_tensorize_loop_mapping(sch, block, desc_func, allow_padding: bool = False) -> TensorizeInfo | None:
    """How the loops around ``block`` map onto ``desc_func``'s loops (None: they do not)."""
    found = _paired_blocks(sch, block, desc_func)
    if found is None:
        return None
    target, desc, pairs = found
    t_sig = _signatures(pairs, target.block.iter_vars, 0)
    d_sig = _signatures(pairs, desc.block.iter_vars, 1)
    desc_loops = [x for x in A.walk(desc_func.body) if isinstance(x, For)]
    info, taken = TensorizeInfo(), set()
    paddings = [1] * len(target.block.iter_vars)
    for d_iv, d_value in zip(desc.block.iter_vars, desc.iter_values):
        d_loop = next((lp for lp in desc_loops if lp.loop_var is d_value), None)
        candidates = [k for k, iv in enumerate(target.block.iter_vars)
                      if k not in taken and iv.iter_type == d_iv.iter_type and d_sig[d_iv.var]
                      and t_sig[iv.var] == d_sig[d_iv.var]]
        if d_loop is None or not candidates:
            return None
        k = candidates[-1]
        taken.add(k)
        loop_rv = _loop_of(sch, block, target.iter_values[k])
        extent, d_extent = A._arith.as_int(sch.get(loop_rv).extent) if loop_rv else None, \
            A._arith.as_int(d_loop.extent)
        if extent is None or d_extent is None:
            return None
        if extent % d_extent:
            if not allow_padding:
                return None
            paddings[k] = d_extent
        info.loop_map[sch.get_sref(loop_rv)] = d_loop
    info.desc_loop_indexer = {lp: n for n, lp in enumerate(desc_loops)}
    if any(p != 1 for p in paddings):
        info.block_iter_paddings = paddings
    return info


def is_output_block(sch, block) -> bool:
    """Whether ``block`` writes a buffer of the function's parameters."""
    params = {id(b) for b in sch.state.func.buffer_map.values()}
    return any(id(w.buffer) in params for w in sch.get(block).writes)


def _piece(x, low: int, high: int, size: int):
    """Digits ``[low, high)`` of ``x`` (``0 <= x < size``): ``x // low % (high // low)``,
    without the ``//`` when ``low`` is 1 and without the ``%`` when ``high`` is ``size``."""
    e = x if low == 1 else x // low
    return e if high == size else e % (high // low)


def _leaf_splits(total) -> list:
    """The splits of an iterator sum, with a whole fused mark (a split covering a mark whose
    source is itself a sum) opened up into its parts, scaled."""
    from ember.arith.iter_map_nodes import IterSplitExpr, IterSumExpr

    out = []
    for split in total.args:
        inner = split.source.source
        whole = (A._arith.as_int(split.lower_factor) == 1
                 and A._arith.as_int(split.extent) == A._arith.as_int(split.source.extent))
        if isinstance(inner, IterSumExpr) and whole:
            scale = A._arith.as_int(split.scale)
            out += [IterSplitExpr(x.source, x.lower_factor, x.extent, A._arith.as_int(x.scale) * scale)
                    for x in _leaf_splits(inner)]
        else:
            out.append(split)
    return out


def suggest_index_map(buffer, indices, loops, predicate=True):
    """A layout for ``buffer`` in which ``indices`` (over ``loops``) walk it in loop order.

    The access is flattened (row-major) and detected as an affine iterator map; each of its
    splits (iterator digits, adjacent ones of one iterator already fused) becomes one
    dimension of the new layout, ordered by loop and, within a loop, outer digits first.
    Each new dimension is written over the buffer's own indices.  None when the flattened
    access is not affine in the loops or the shape is not constant."""
    from ember.arith import detect_iter_map
    from ember.ir import Range

    from .index_map import IndexMap

    shape = [A._arith.as_int(s) for s in buffer.shape]
    if any(s is None for s in shape):
        return None
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    flat = None
    for index, stride in zip(indices, strides):
        term = index * stride if stride != 1 else index
        flat = term if flat is None else flat + term
    iters = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    found = detect_iter_map([flat], iters, predicate, check_level="surjective")
    if not found.indices:
        return None
    order = {lp.loop_var: n for n, lp in enumerate(loops)}

    def key(split):
        where = [order[v] for v in A.vars_in(split.source.source) if v in order]
        return (min(where) if where else len(loops), -A._arith.as_int(split.lower_factor))

    splits = sorted((x for x in _leaf_splits(found.indices[0]) if A._arith.as_int(x.extent) != 1), key=key)
    xs = [Var(f"i{d}", "int32") for d in range(len(shape))]
    finals = []
    for split in splits:
        lo = A._arith.as_int(split.scale)
        hi = lo * A._arith.as_int(split.extent)
        value = None
        for x, stride, size in zip(xs, strides, shape):
            a, b = max(lo, stride), min(hi, stride * size)
            if a >= b:
                continue
            if a % stride or b % stride or (stride * (a // stride)) % lo:
                return None
            part = _piece(x, a // stride, b // stride, size)
            weight = a // lo
            part = part * weight if weight != 1 else part
            value = part if value is None else value + part
        finals.append(value)
    return IndexMap(tuple(xs), tuple(finals))


@dataclass
class AutoTensorizeMappingInfo:
    """``mappings``: IndexMaps from the block's iterators (``lhs_iters``) to the fused
    iteration space whose trailing dims are the description's iterators (``rhs_iters``);
    ``lhs_buffer_map``: target buffer -> description buffer."""

    mappings: list
    lhs_buffer_map: dict
    lhs_iters: list
    rhs_iters: list


def get_auto_tensorize_mapping_info(sch, block, desc_func) -> AutoTensorizeMappingInfo | None:
    """The fused layout under which ``block`` becomes the description's computation (None:
    there is none — a description iterator no block iterator matches)."""
    from .index_map import IndexMap

    found = _paired_blocks(sch, block, desc_func)
    if found is None:
        return None
    target, desc, pairs = found
    t_sig = _signatures(pairs, target.block.iter_vars, 0, trailing=False)
    d_sig = _signatures(pairs, desc.block.iter_vars, 1, trailing=False)
    groups = {d_iv.var: [] for d_iv in desc.block.iter_vars}
    leading = []
    for iv in target.block.iter_vars:
        match = [d for d in desc.block.iter_vars if d.iter_type == iv.iter_type and d_sig[d.var] == t_sig[iv.var]]
        (groups[match[0].var] if match else leading).append(iv)
    if any(not g for g in groups.values()):
        return None
    fresh = {iv.var: Var(iv.var.name, iv.var.dtype) for iv in target.block.iter_vars}
    finals = [fresh[iv.var] for iv in leading]
    for group in groups.values():
        fused = None
        for iv in group:
            fused = fresh[iv.var] if fused is None else fused * iv.dom.extent + fresh[iv.var]
        finals.append(fused)
    index_map = IndexMap(tuple(fresh.values()), tuple(finals))
    buffer_map = {pair[0].buffer: pair[1].buffer for pair in pairs}
    return AutoTensorizeMappingInfo([index_map], buffer_map, [iv.var for iv in target.block.iter_vars],
                                    [iv.var for iv in desc.block.iter_vars])
