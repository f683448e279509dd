"""Layout primitives: transform_layout and transform_block_layout.

``transform_layout(block, buffer, index_map)`` gives a buffer a new shape
(``index_map.map_shape``) and rewrites every access ``B[idx]`` to
``B'[index_map(idx)]`` across the function (parameters included, as in TVM).  When
the new shape is larger (non-dividing tiles) the extra elements are padding; with
``pad_value`` a stage ``<buf>_pad`` fills the whole buffer first.
``transform_block_layout(block, index_map)`` remaps a block's iteration space
(needs a bijective map and trivial bindings) and regenerates its loops.
"""

from __future__ import annotations

import math

import numpy as np

from ember.ir import Range, Var, as_expr, const, replace
from ember.tir.buffer import BufferLoad
from ember.tir.functor import IRMutator, substitute
from ember.tir.op import cast
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, seq

from . import _arith
from .analysis import infer_regions, loops_above, replace_stmts, unique_name, vars_in
from .compute_inline import subtree_root
from .errors import ScheduleError
from .index_map import IndexMap

__all__ = ["transform_layout", "transform_block_layout", "resolve_buffer", "set_axis_separator"]


def resolve_buffer(func, block: Block, buffer):
    """A buffer named by ("read"|"write", index), by name, or given as a Buffer."""
    if isinstance(buffer, tuple | list) and len(buffer) == 2 and buffer[0] in ("read", "write"):
        regions = block.reads if buffer[0] == "read" else block.writes
        if not 0 <= buffer[1] < len(regions):
            raise ScheduleError(f"transform_layout: block {block.name_hint!r} has no {buffer[0]} buffer "
                                f"{buffer[1]} (it has {len(regions)})", func, block=block)
        return regions[buffer[1]].buffer
    if isinstance(buffer, str):
        for r in block.reads + block.writes:
            if r.buffer.name == buffer:
                return r.buffer
        names = sorted({r.buffer.name for r in block.reads + block.writes})
        raise ScheduleError(f"transform_layout: block {block.name_hint!r} accesses no buffer named "
                            f"{buffer!r} (it accesses {names})", func, block=block)
    if hasattr(buffer, "shape") and hasattr(buffer, "data"):
        return buffer
    raise ScheduleError(f"transform_layout: buffer must be ('read'|'write', index), a name or a Buffer, "
                        f"got {buffer!r}", func, block=block)


class _Relayout(IRMutator):
    def __init__(self, old, new, index_map: IndexMap, bounds: dict | None = None):
        super().__init__()
        self.old, self.new, self.map = old, new, index_map
        self.bounds = bounds or {}
        # a variable of a single value is that value (v * n with v in [0, 1) is 0)
        self.fixed = {v: const(lo, v.dtype) for v, (lo, hi) in self.bounds.items() if lo == hi}

    def _mapped(self, indices) -> tuple:
        """The new indices, simplified within the loops' and iterators' ranges (as TVM).  An
        index of another integer type than the map's input (an int32 iterator indexing an
        int64-shaped buffer) is cast to it first, so the map's arithmetic has one type."""
        indices = tuple(cast(i, v.dtype) for i, v in zip(indices, self.map.initial_indices))
        return tuple(_arith.simplify(substitute(e, self.fixed), self.bounds) for e in self.map.map_indices(indices))

    def visit_Buffer(self, buf):
        return self.new if buf is self.old else buf

    def visit_BufferLoad(self, load):
        indices = self.visit(load.indices)
        if load.buffer is self.old:
            return BufferLoad(self.new, self._mapped(indices))
        return load if indices is load.indices else BufferLoad(load.buffer, indices)

    def visit_BufferStore(self, store):
        value, indices = self.visit(store.value), self.visit(store.indices)
        if store.buffer is self.old:
            return BufferStore(self.new, value, self._mapped(indices))
        return replace(store, value=value, indices=indices)

    def visit_Block(self, block):
        touched = any(r.buffer is self.old for r in block.reads + block.writes)
        new = self.generic_visit(block)
        if touched and block.name_hint != "root":
            reads, writes = infer_regions(new)
            new = replace(new, reads=reads, writes=writes)
        return new


def _checked_pad_value(func, block, buf, pad_value):
    """A Python number becomes a constant of the buffer's dtype (as TVM); anything else must
    already have that dtype."""
    from ember.ir import FloatImm, IntImm, PrimExpr

    if pad_value is None or callable(pad_value) and not isinstance(pad_value, PrimExpr):
        return pad_value
    dtype = str(buf.dtype)
    if isinstance(pad_value, int) and not isinstance(pad_value, bool) and "int" in dtype:
        return IntImm(dtype, pad_value)
    if isinstance(pad_value, float) and "float" in dtype:
        return FloatImm(dtype, pad_value)
    value = as_expr(pad_value)
    if str(value.dtype) != dtype:
        raise ScheduleError(f"transform_layout: pad_value {pad_value!r} has dtype {value.dtype}, but buffer "
                            f"{buf.name!r} holds {dtype}", func, block=block)
    return value


def _fill_stage(buffer, value, name: str):
    loops = [Var(f"ax{d}", "int32") for d in range(len(buffer.shape))]
    ivs = [IterVar(Range(0, s), Var(f"v{d}", "int32"), IterVarType.DataPar) for d, s in enumerate(buffer.shape)]
    idx = tuple(iv.var for iv in ivs)
    block = Block(tuple(ivs), (), (), name, BufferStore(buffer, as_expr(value, buffer.dtype), idx))
    block = replace(block, writes=infer_regions(block)[1])
    body = BlockRealize(tuple(loops), const(True), block)
    for var, s in reversed(list(zip(loops, buffer.shape))):
        body = For(var, const(0, "int32"), s, ForKind.SERIAL, body)
    return body


def transform_layout(func, realize: BlockRealize, buffer, index_map, pad_value=None,
                     assume_injective_transform: bool = False):
    block = realize.block
    buf = resolve_buffer(func, block, buffer)
    imap = IndexMap.from_func(index_map, ndim=len(buf.shape))
    if imap.ndim != len(buf.shape):
        raise ScheduleError(f"transform_layout: the index map takes {imap.ndim} indices but buffer "
                            f"{buf.name!r} has {len(buf.shape)} dimensions", func, block=block)
    try:
        new_shape = imap.map_shape(buf.shape)
    except ValueError as err:
        raise ScheduleError(f"transform_layout: {err}", func, block=block) from None
    if not assume_injective_transform:  # the caller vouches for it (TVM's flag of that name)
        _check_injective(func, block, buf, imap)
    new_buf = replace(buf, shape=tuple(new_shape), strides=())
    padded = not imap.is_bijective_on(buf.shape)
    if padded and pad_value is None and not assume_injective_transform:
        raise ScheduleError(f"transform_layout: the index map {imap.to_python()} pads buffer {buf.name!r} "
                            f"(shape {tuple(str(x) for x in buf.shape)} -> {tuple(str(x) for x in new_shape)}); "
                            "give pad_value= to fill the padding, or assume_injective_transform=True if "
                            "nothing reads it", func, block=block)
    pad_value = _checked_pad_value(func, block, buf, pad_value)
    from .cache_stage import _loop_bounds

    mut = _Relayout(buf, new_buf, imap, _loop_bounds(func))
    body = mut.visit(func.body)
    buffer_map = {p: (new_buf if b is buf else b) for p, b in func.buffer_map.items()}
    func = replace(func, body=body, buffer_map=buffer_map)
    if padded and pad_value is not None:
        writer = next((r for r in _blocks(func) if any(w.buffer is new_buf for w in r.block.writes)), None)
        if writer is None:
            raise ScheduleError(f"transform_layout: pad_value needs a block writing {buf.name!r}", func,
                                block=block)
        top = subtree_root(func, writer)
        func = replace_stmts(func, {top: seq(_fill_stage(new_buf, pad_value, unique_name(func, buf.name + "_pad")), top)})
    return func


_ENUMERATE_LIMIT = 1 << 22  # points checked one by one when iter-map detection cannot decide


def _check_injective(func, block: Block, buf, imap: IndexMap) -> None:
    """Two elements of ``buf`` must never land on one element of the new layout: the map is
    proven injective by iter-map detection (each index used whole, without overlap), or,
    for padded layouts, by evaluating it on every index of the (constant) shape."""
    from ember.arith.iter_map import detect_iter_map

    dom = {v: Range(const(0, v.dtype), s) for v, s in zip(imap.initial_indices, buf.shape)}
    if detect_iter_map(list(imap.final_indices), dom, check_level="bijective").indices:
        return
    if _has_left_inverse(imap, buf.shape):
        return
    sizes = [_arith.as_int(s) for s in buf.shape]
    if None in sizes or math.prod(sizes) > _ENUMERATE_LIMIT:
        raise ScheduleError(f"transform_layout: cannot prove that the index map {imap.to_python()} is injective "
                            f"on buffer {buf.name!r} of shape {tuple(str(s) for s in buf.shape)}; two elements "
                            "might share one place", func, block=block)
    from ember.tir.interpreter.expr import compile_expr

    total = math.prod(sizes)
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in sizes], indexing="ij")
    env = {v: g.ravel().astype(np.dtype(str(v.dtype))) for v, g in zip(imap.initial_indices, grids)}
    outs = np.stack([np.broadcast_to(np.asarray(compile_expr(e)(env), dtype=np.int64), (total,))
                     for e in imap.final_indices], axis=1)
    _, first, counts = np.unique(outs, axis=0, return_index=True, return_counts=True)
    if total and counts.max() > 1:
        target = outs[first[np.argmax(counts)]]
        a, b = np.flatnonzero((outs == target).all(axis=1))[:2]
        pa, pb = (tuple(int(g.ravel()[k]) for g in grids) for k in (a, b))
        raise ScheduleError(f"transform_layout: the index map {imap.to_python()} is not injective on buffer "
                            f"{buf.name!r}: indices {pa} and {pb} both map to {tuple(int(x) for x in target)}",
                            func, block=block)


def _has_left_inverse(imap: IndexMap, shape) -> bool:
    """Whether ``imap``'s inverse, applied after ``imap``, gives every index back (padded
    splits such as ``(j // 16, k, j % 16)`` on a non-multiple of 16)."""
    try:
        inverse = imap.non_surjective_inverse(shape)[0]
    except Exception:  # noqa: BLE001 - no inverse found: not proven this way
        return False
    if len(inverse.initial_indices) != len(imap.final_indices):
        return False
    bounds = {}
    for v, s in zip(imap.initial_indices, shape):
        n = _arith.as_int(s)
        if n is not None:
            bounds[v] = (0, n - 1)
    back = {v: e for v, e in zip(inverse.initial_indices, imap.final_indices)}
    for var, e in zip(imap.initial_indices, inverse.final_indices):
        if _arith.simplify(substitute(e, back), bounds) is not var:
            return False
    return len(inverse.final_indices) == len(imap.initial_indices)


def _blocks(func):
    from .analysis import blocks_under

    return blocks_under(func.body)


class _SimplifyIndices(IRMutator):
    """Simplifies the indices of every buffer access under the given variable bounds."""

    def __init__(self, bounds: dict):
        super().__init__()
        self.bounds = bounds

    def _indices(self, indices) -> tuple:
        return tuple(_arith.simplify(self.visit(i), self.bounds) for i in indices)

    def visit_BufferLoad(self, load):
        return BufferLoad(load.buffer, self._indices(load.indices))

    def visit_BufferStore(self, store):
        return replace(store, value=self.visit(store.value), indices=self._indices(store.indices))


def transform_block_layout(func, realize: BlockRealize, index_map):
    block = realize.block
    loops = loops_above(func, realize)
    imap = IndexMap.from_func(index_map, ndim=len(block.iter_vars))
    if imap.ndim != len(block.iter_vars):
        raise ScheduleError(f"transform_block_layout: the index map takes {imap.ndim} indices but block "
                            f"{block.name_hint!r} has {len(block.iter_vars)} iterators", func, block=block)
    loop_vars = [lp.loop_var for lp in loops]
    trivial = len(loops) == len(block.iter_vars) and all(
        isinstance(v, Var) and v in loop_vars and _arith.as_int(lp.extent) == _arith.as_int(iv.dom.extent)
        for iv, v, lp in zip(block.iter_vars, realize.iter_values,
                             [loops[loop_vars.index(v)] if v in loop_vars else loops[0]
                              for v in realize.iter_values]))
    if not trivial or subtree_root(func, realize) is not (loops[0] if loops else realize):
        raise ScheduleError(f"transform_block_layout: block {block.name_hint!r} must have trivial bindings "
                            "(each iterator bound to its own loop) and a loop nest of its own",
                            func, block=block)
    extents = [iv.dom.extent for iv in block.iter_vars]
    if not imap.is_bijective_on(extents):
        raise ScheduleError("transform_block_layout: the index map must be bijective on the block's "
                            "iteration space", func, block=block)
    try:
        inverse = imap.inverse(extents)
    except ValueError as err:
        raise ScheduleError(f"transform_block_layout: {err}", func, block=block) from None
    new_extents = imap.map_shape(extents)
    kinds = []
    for e in imap.final_indices:
        used = {iv.iter_type for iv, v in zip(block.iter_vars, imap.initial_indices) if v in vars_in(e)}
        if len(used) > 1:
            raise ScheduleError("transform_block_layout: an output mixes spatial and reduction iterators",
                                func, block=block)
        kinds.append(used.pop() if used else IterVarType.DataPar)
    new_ivs = [IterVar(Range(const(0, ext.dtype), ext), Var(f"v{k}", ext.dtype), kind)
               for k, (ext, kind) in enumerate(zip(new_extents, kinds))]
    old = inverse.map_indices([iv.var for iv in new_ivs])
    vmap = {iv.var: e for iv, e in zip(block.iter_vars, old)}
    bounds = {iv.var: (0, _arith.as_int(iv.dom.extent) - 1) for iv in new_ivs
              if _arith.as_int(iv.dom.extent) is not None}

    def moved(stmt):  # the old iterators' expressions, simplified within the new iterators' ranges
        return _SimplifyIndices(bounds).visit(substitute(stmt, vmap))

    new_block = replace(block, iter_vars=tuple(new_ivs), body=moved(block.body),
                        init=None if block.init is None else moved(block.init))
    reads, writes = infer_regions(new_block)
    new_block = replace(new_block, reads=reads, writes=writes)
    new_loops = [Var(f"ax{k}", ext.dtype) for k, ext in enumerate(new_extents)]  # int64 extents: int64 loops
    body = BlockRealize(tuple(new_loops), realize.predicate, new_block)
    for var, ext in reversed(list(zip(new_loops, new_extents))):
        body = For(var, const(0, var.dtype), ext, ForKind.SERIAL, body)
    top = loops[0] if loops else realize
    return replace_stmts(func, {top: body})




def set_axis_separator(func, realize: BlockRealize, buffer, axis_separators):
    """Record where a buffer's flattened axes split (``axis_separators``) on the buffer."""
    block = realize.block
    buf = resolve_buffer(func, block, buffer)
    seps = tuple(int(x) for x in (axis_separators or ()))
    if any(not 0 < s < len(buf.shape) for s in seps) or list(seps) != sorted(set(seps)):
        raise ScheduleError(f"set_axis_separator: axis_separators must be increasing positions in "
                            f"(0, {len(buf.shape)}), got {list(seps)}", func, block=block)
    from .cache import ReplaceBuffer

    new = replace(buf, axis_separators=seps)
    body = ReplaceBuffer({buf: new}).visit(func.body)
    body = _MatchedSeparators(new).visit(body)
    buffer_map = {p: (new if b is buf else b) for p, b in func.buffer_map.items()}
    return replace(func, body=body, buffer_map=buffer_map)


class _MatchedSeparators(IRMutator):
    """``T.match_buffer`` views of ``source`` take its separators, counted from the last
    axis (a view of fewer dimensions keeps the trailing ones; clipped at 0)."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    def visit_Block(self, block):  # noqa: N802
        block = self.generic_visit(block)
        views = {}
        for m in block.match_buffers:
            if m.source.buffer is self.source:
                drop = len(self.source.shape) - len(m.buffer.shape)
                seps = tuple(sorted({max(s - drop, 0) for s in self.source.axis_separators}))
                views[m.buffer] = replace(m.buffer, axis_separators=seps)
        if not views:
            return block
        from .cache import ReplaceBuffer

        return ReplaceBuffer(views).visit(block)
