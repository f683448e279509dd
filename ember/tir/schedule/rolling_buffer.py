"""``rolling_buffer``: keep only a sliding window of an intermediate buffer along one axis.

After a producer is computed at a tile loop of its consumers, each tile usually needs
a window of the intermediate that overlaps the previous tile's (a convolution's halo).
``rolling_buffer(block, write_buffer_index)`` shrinks the buffer the block writes to that
window along one axis — the *rolling axis* — and indexes it modulo the window, so a tile
reuses what the previous one computed:

* The written region, relaxed over the loops between the block and the lowest common
  ancestor of the block and its consumers (which must be a loop), has per dimension a
  start ``v * s`` (``v`` a loop variable; also ``v``, or ``(v * c) // d`` with step
  ``ceil(c / d)``) or a constant.  A dimension whose window (extent ``e``) is longer than
  its step overlaps by ``e - s``.  The rolling axis is the overlapping dimension whose
  loop is outermost; the buffer's extent there becomes ``e``.
* Every access of the buffer indexes the rolling axis modulo ``e``; block regions of the
  buffer are inferred again from the accesses; block iterators bound through the rolling
  loop become opaque (their iterations carry a dependence through the buffer).
* The producer skips what the previous iteration computed: for each overlapping
  dimension, ``v < 1 or overlap <= (index - v * s)`` is added to its predicate.

Refused: an output block, a block with other than read-after-write dependences, a
buffer without an overlapping dimension, and a producer not computed under a loop
shared with its consumers.
"""

from __future__ import annotations

from ember.arith.analyzer import Analyzer
from ember.arith.int_set import eval_set
from ember.ir import FloorDiv, IntImm, Mul, Range, Var, replace
from ember.tir.analysis import block_access_regions
from ember.tir.buffer import BufferRegion
from ember.tir.functor import IRMutator, substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, IterVarType

from . import _arith
from .analysis import child_blocks, path_to, scope_of, vars_in
from .errors import ScheduleError

__all__ = ["rolling_buffer"]


def rolling_buffer(func, realize: BlockRealize, write_buffer_index: int):
    block = realize.block
    if not isinstance(write_buffer_index, int) or not 0 <= write_buffer_index < len(block.writes):
        raise ScheduleError(f"rolling_buffer: block {block.name_hint!r} has no write buffer {write_buffer_index} "
                            f"(it has {len(block.writes)})", func, block=block)
    region = block.writes[write_buffer_index]
    buffer = region.buffer
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"rolling_buffer: block {block.name_hint!r} writes the output buffer "
                            f"{buffer.name!r}; only an intermediate buffer can roll", func, block=block)
    scope = scope_of(func, realize)
    consumers = _check_raw_only(func, scope, realize)
    lca = _lowest_common_ancestor(func, [realize] + consumers)
    if not isinstance(lca, For):
        raise ScheduleError(f"rolling_buffer: the accesses of {buffer.name!r} by block {block.name_hint!r} and its "
                            "consumers meet at no common loop; compute the block at a tile loop of its consumers "
                            "first", func, block=block)
    path = path_to(func.body, realize) or []
    start = next(k for k, s in enumerate(path) if s is lca)
    relaxed = [s for s in path[start + 1:] if isinstance(s, For)]
    # a loop of one iteration never rolls: its variable is its start
    units = {s.loop_var: s.min for s in path[:start + 1] if isinstance(s, For) and _arith.is_const(s.extent, 1)}
    dims = _relaxed_region(realize, region, relaxed, units)
    bounds = [_rolling_pattern(lo) for lo, _ in dims]
    if any(b is False for b in bounds):
        raise _match_error(func, block, buffer)
    overlaps, axis_vars = [], []
    for (_lo, extent), b in zip(dims, bounds):
        var, step = b if b else (None, 0)
        overlap = extent - step if var is not None and extent is not None else 0
        overlaps.append(overlap)
        axis_vars.append(var if overlap > 0 else None)
    loops = [s for s in path if isinstance(s, For)]
    axis = next((k for lp in loops for k, v in enumerate(axis_vars) if v is lp.loop_var), None)
    if axis is None:
        raise _match_error(func, block, buffer)
    extent = dims[axis][1]
    new_shape = list(buffer.shape)
    new_shape[axis] = IntImm(buffer.shape[axis].dtype, extent)
    new_buffer = replace(buffer, shape=tuple(new_shape))
    writers = {id(block)}
    rewriter = _Roll(buffer, new_buffer, axis, extent, axis_vars[axis], writers, overlaps, axis_vars)
    return replace(func, body=rewriter.visit(func.body))


def _match_error(func, block, buffer) -> ScheduleError:
    return ScheduleError(f"rolling_buffer: no dimension of the region of {buffer.name!r} written by block "
                         f"{block.name_hint!r} follows a rolling pattern such as `outer * stride + inner` with "
                         "windows of consecutive iterations overlapping", func, block=block)


def _check_raw_only(func, scope, realize) -> list:
    """The consumers of the block; refuse any dependence but read-after-write."""
    block = realize.block
    written = {id(w.buffer) for w in block.writes}
    read = {id(r.buffer) for r in block.reads}
    siblings = child_blocks(scope) if scope is not None else []
    k = next(i for i, s in enumerate(siblings) if s is realize)
    consumers = []
    for j, other in enumerate(siblings):
        if j == k:
            continue
        o_reads = {id(r.buffer) for r in other.block.reads}
        o_writes = {id(w.buffer) for w in other.block.writes}
        waw = written & o_writes
        war = (written & o_reads) if j < k else (read & o_writes)
        if waw or war:
            raise ScheduleError(f"rolling_buffer: block {block.name_hint!r} must have only read-after-write "
                                f"dependences, but block {other.block.name_hint!r} also writes a buffer it "
                                "accesses", func, block=block)
        if j > k and written & o_reads:
            consumers.append(other)
    return consumers


def _lowest_common_ancestor(func, realizes):
    paths = [[s for s in path_to(func.body, r) or [] if isinstance(s, For | Block)] for r in realizes]
    lca = None
    for level in zip(*paths):
        if all(s is level[0] for s in level):
            lca = level[0]
        else:
            break
    return lca


def _relaxed_region(realize: BlockRealize, region: BufferRegion, loops: list[For], units: dict) -> list:
    """(start expression, constant extent or None) per dimension of the region relaxed over ``loops``."""
    binding = {iv.var: substitute(v, units) for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    dom = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    ana = Analyzer()
    out = []
    for rng, size in zip(region.region, region.buffer.shape):
        lo = eval_set(substitute(rng.min, binding), dom).min_value
        hi = eval_set(substitute(rng.min + rng.extent - 1, binding), dom).max_value
        lo = ana.simplify(lo)
        # clip to the buffer (TVM's CoverRange of [0, shape))
        extent = _arith.as_int(ana.simplify(hi - lo + 1))
        n = _arith.as_int(size)
        if extent is not None and n is not None:
            extent = min(extent, n)
        out.append((lo, extent))
    return out


def _rolling_pattern(lo):
    """``(var, step)`` for ``v``, ``v * s``, ``(v * c) // d``; None for a constant; False otherwise."""
    if isinstance(lo, IntImm):
        return None
    if isinstance(lo, Var):
        return lo, 1
    if isinstance(lo, Mul):
        a, b = (lo.a, lo.b) if isinstance(lo.a, Var) else (lo.b, lo.a)
        if isinstance(a, Var) and isinstance(b, IntImm):
            return a, b.value
    if isinstance(lo, FloorDiv) and isinstance(lo.b, IntImm) and isinstance(lo.a, Mul):
        inner = _rolling_pattern(lo.a)
        if inner:
            return inner[0], -(-inner[1] // lo.b.value)
    return False


class _Roll(IRMutator):
    """Swap the buffer, index its rolling axis modulo the window, fix regions, iterators
    and the producer's predicate."""

    def __init__(self, old, new, axis, extent, roll_var, writers, overlaps, axis_vars):
        super().__init__()
        self.old, self.new, self.axis, self.extent = old, new, axis, extent
        self.roll_var, self.writers = roll_var, writers
        self.overlaps, self.axis_vars = overlaps, axis_vars

    def _indices(self, indices):
        out = list(indices)
        out[self.axis] = out[self.axis] % IntImm(out[self.axis].dtype, self.extent)
        return tuple(out)

    def visit_BufferLoad(self, e):  # noqa: N802
        hit = e.buffer is self.old
        e = self.generic_visit(e)
        if hit:
            return replace(e, buffer=self.new, indices=self._indices(e.indices))
        return e

    def visit_BufferStore(self, s):  # noqa: N802
        hit = s.buffer is self.old
        s = self.generic_visit(s)
        if hit:
            return replace(s, buffer=self.new, indices=self._indices(s.indices))
        return s

    def visit_Buffer(self, buf):  # noqa: N802 - allocations and regions outside blocks' own lists
        return self.new if buf is self.old else buf

    def visit_BlockRealize(self, realize: BlockRealize):  # noqa: N802
        old_block = realize.block
        new = self.generic_visit(realize)
        block = new.block
        if not old_block.iter_vars and not _touches(old_block, self.old):
            return new
        ivs = tuple(replace(iv, iter_type=IterVarType.Opaque)
                    if any(v is self.roll_var for v in vars_in(value)) else iv
                    for iv, value in zip(block.iter_vars, new.iter_values))
        block = replace(block, iter_vars=ivs)
        if _touches(old_block, self.old):
            reads, writes = block_access_regions(block)
            block = replace(block, reads=_regions(block.reads, reads, self.new),
                            writes=_regions(block.writes, writes, self.new))
        predicate = new.predicate
        if id(old_block) in self.writers:
            predicate = self._skip_overlap(old_block, new)
        return replace(new, block=block, predicate=predicate)

    def _skip_overlap(self, old_block: Block, realize: BlockRealize):
        store = next(s for s in _stores(old_block) if s.buffer is self.old)
        binding = {iv.var: v for iv, v in zip(old_block.iter_vars, realize.iter_values)}
        ana = Analyzer()
        cond = realize.predicate
        for dim, (var, overlap) in enumerate(zip(self.axis_vars, self.overlaps)):
            if var is None or overlap <= 0:
                continue
            index = substitute(store.indices[dim], binding)
            offset = ana.simplify(substitute(index, {var: IntImm(var.dtype, 0)}))
            clause = (var < 1) | (IntImm(offset.dtype, overlap) <= offset)
            cond = clause if _arith.is_const(cond, 1) or cond is True else cond & clause
        return ana.simplify(cond) if not isinstance(cond, bool) else cond


def _touches(block: Block, buffer) -> bool:
    return any(r.buffer is buffer for r in (*block.reads, *block.writes))


def _regions(old_regions, inferred, new_buffer) -> tuple:
    fresh = [r for r in inferred if r.buffer is new_buffer]
    out = []
    for r in old_regions:
        if r.buffer is new_buffer and fresh:
            out.append(fresh[0])
        else:
            out.append(r)
    return tuple(out)


def _stores(block: Block) -> list:
    from ember.tir.functor import collect

    return collect(block, lambda n: isinstance(n, BufferStore))

