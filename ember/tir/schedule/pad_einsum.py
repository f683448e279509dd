"""``pad_einsum``: round the iteration space of an einsum block up to multiples of given factors.

An einsum block reads and writes its buffers only at plain iterators
(``C[i, j] = C[i, j] + A[i, k] * B[j, k]``), each iterator bound directly to a loop of its
extent.  ``pad_einsum(block, padding)`` rounds the extent of iterator ``d`` up to a
multiple of ``padding[d]`` (``(n + 31) // 32 * 32`` when symbolic).  Every buffer with a
dimension indexed by a grown iterator gets a padded copy ``<name>_pad`` (allocated in the
scope root): an input is copied into it by a block ``<name>_pad`` before the einsum, zeros
outside the original shape; the output is computed in it and copied back by a block
``<name>_pad`` after the einsum.  The einsum's loops, iterator domains, regions and
accesses switch to the padded sizes and buffers.

Refused: a block that is not an einsum (an index other than a plain iterator, iterators
not bound to loops of their extent, more than one output), and non-positive factors.
"""

from __future__ import annotations

from ember.ir import IntImm, LT, And, Range, Var, const, replace
from ember.tir.buffer import BufferLoad, decl_buffer
from ember.tir.functor import IRMutator, collect
from ember.tir.op import if_then_else
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, seq

from . import _arith
from .analysis import find_block, infer_regions, path_to, replace_stmts, scope_of
from .cache import ReplaceBuffer
from .errors import ScheduleError

__all__ = ["pad_einsum"]


def pad_einsum(func, realize: BlockRealize, padding: list):
    block = realize.block
    ivs = block.iter_vars
    if len(padding) != len(ivs):
        raise ScheduleError(f"pad_einsum: {len(padding)} padding factors given for the {len(ivs)} iterators of "
                            f"block {block.name_hint!r}", func, block=block)
    for k, p in enumerate(padding):
        if not isinstance(p, int) or p <= 0:
            raise ScheduleError(f"pad_einsum: padding factor {k} is {p}; factors must be positive integers",
                                func, block=block)
    if len(block.writes) != 1:
        raise ScheduleError(f"pad_einsum: block {block.name_hint!r} is not an einsum: it writes "
                            f"{len(block.writes)} buffers (expected one)", func, block=block)
    new_extent = [_rounded(iv.dom.extent, p) for iv, p in zip(ivs, padding)]
    grown = [ne is not iv.dom.extent for iv, ne in zip(ivs, new_extent)]
    extents = _bound_loops(func, realize, grown, new_extent)
    dims = _buffer_dims(func, block)
    out_buf = block.writes[0].buffer
    inputs = [r.buffer for r in block.reads if r.buffer is not out_buf]
    padded = {}
    for buf in [*inputs, out_buf]:
        if id(buf) in padded:
            continue
        iters = dims[id(buf)]
        if not any(grown[k] for k in iters):
            continue
        shape = tuple(new_extent[k] if grown[k] else s for k, s in zip(iters, buf.shape))
        padded[id(buf)] = (buf, decl_buffer(shape, buf.dtype, f"{buf.name}_pad", scope=buf.scope()), iters)
    if not padded:
        return func, None
    # the einsum itself: padded loops, domains and buffers
    mapper = ReplaceBuffer({b: nb for b, nb, _ in padded.values()})
    new_ivs = tuple(replace(iv, dom=Range(iv.dom.min, ne)) if g else iv for iv, ne, g in zip(ivs, new_extent, grown))
    new_block = mapper.visit(replace(block, iter_vars=new_ivs))
    path = path_to(func.body, realize) or []
    top = next((x for x in path if isinstance(x, For)), realize)
    nest = _GrowNest(extents, realize, replace(realize, block=new_block)).visit(top)
    before, after = [], []
    for b, nb, iters in padded.values():
        if b is out_buf:
            after.append(_copy_block(b.name + "_pad", nb, b, b.shape, None))
        else:
            cond = [k for k, it in enumerate(iters) if grown[it]]
            before.append(_copy_block(b.name + "_pad", b, nb, nb.shape, (cond, b.shape)))
    scope = scope_of(func, realize)
    func = replace_stmts(func, {top: seq(*before, nest, *after)})
    root = find_block(func, scope.block.name_hint).block
    allocs = root.alloc_buffers + tuple(nb for _, nb, _ in padded.values())
    return replace_stmts(func, {root: replace(root, alloc_buffers=allocs)}), None


def _rounded(extent, p: int):
    if p == 1:
        return extent
    n = _arith.as_int(extent)
    if n is not None:
        m = -(-n // p) * p
        return extent if m == n else IntImm(extent.dtype, m)
    return (extent + (p - 1)) // p * p


def _bound_loops(func, realize: BlockRealize, grown: list, new_extent: list) -> dict:
    """{id(loop var): new extent} for the loops of the grown iterators, each of which must be
    bound to a loop of its extent starting at 0."""
    block = realize.block
    path = path_to(func.body, realize) or []
    by_var = {id(s.loop_var): s for s in path if isinstance(s, For)}
    out = {}
    for iv, value, g, ne in zip(block.iter_vars, realize.iter_values, grown, new_extent):
        if not g:
            continue
        loop = by_var.get(id(value)) if isinstance(value, Var) else None
        if loop is None or not _arith.is_const(loop.min, 0) or \
                not _arith.is_const(_arith.simplify(loop.extent - iv.dom.extent), 0):
            raise ScheduleError(f"pad_einsum: iterator {iv.var.name!r} of block {block.name_hint!r} is not bound "
                                "to a loop of its extent", func, block=block)
        out[id(loop.loop_var)] = ne
    return out


def _buffer_dims(func, block: Block) -> dict:
    """For each buffer the block accesses, the iterator index behind each dimension."""
    index = {id(iv.var): k for k, iv in enumerate(block.iter_vars)}
    dims: dict = {}
    for node in collect(block, lambda n: isinstance(n, BufferLoad | BufferStore)):
        iters = []
        for e in node.indices:
            if not isinstance(e, Var) or id(e) not in index:
                raise ScheduleError(f"pad_einsum: block {block.name_hint!r} is not an einsum: buffer "
                                    f"{node.buffer.name!r} is indexed by {e}, not by a block iterator",
                                    func, block=block)
            iters.append(index[id(e)])
        old = dims.setdefault(id(node.buffer), iters)
        if old != iters:
            raise ScheduleError(f"pad_einsum: block {block.name_hint!r} accesses buffer {node.buffer.name!r} "
                                "with different iterators", func, block=block)
    return dims


class _GrowNest(IRMutator):
    """Grow the einsum's loops and swap in its new block."""

    def __init__(self, extents: dict, realize, new_realize):
        super().__init__()
        self.extents, self.realize, self.new_realize = extents, realize, new_realize

    def visit_BlockRealize(self, r):  # noqa: N802
        return self.new_realize if r is self.realize else r

    def visit_For(self, loop):  # noqa: N802
        body = self.visit(loop.body)
        ne = self.extents.get(id(loop.loop_var))
        return replace(loop, body=body, extent=ne if ne is not None else loop.extent)


def _copy_block(name: str, src, dst, shape, guard):
    """A nest over ``shape`` copying ``src`` into ``dst`` (zeros where ``guard`` fails)."""
    dtypes = [str(getattr(s, "dtype", "int32")) for s in shape]
    loop_vars = [Var(f"i{d}", dt) for d, dt in enumerate(dtypes)]
    iv_vars = [Var(f"v{d}", dt) for d, dt in enumerate(dtypes)]
    idx = tuple(iv_vars)
    value = BufferLoad(src, idx)
    if guard is not None:
        cond_dims, old_shape = guard
        cond = None
        for d in cond_dims:
            c = LT(iv_vars[d], old_shape[d])
            cond = c if cond is None else And(cond, c)
        value = if_then_else(cond, value, const(0, str(src.dtype)))
    ivs = tuple(IterVar(Range(const(0, dt), s), v, IterVarType.DataPar) for v, s, dt in zip(iv_vars, shape, dtypes))
    block = Block(ivs, (), (), name, BufferStore(dst, value, idx))
    reads, writes = infer_regions(block)
    body = BlockRealize(tuple(loop_vars), const(True, "bool"), replace(block, reads=reads, writes=writes))
    for v, s, dt in reversed(list(zip(loop_vars, shape, dtypes))):
        body = For(v, const(0, dt), s, ForKind.SERIAL, body)
    return body
