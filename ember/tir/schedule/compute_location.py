"""compute_at and reverse_compute_at: move a block's loop nest under another loop.

``compute_at(P, L)``: the region of P's output that the consumers under loop L read
(in terms of the loops outside L, relaxing L and the loops inside it) becomes P's new
iteration domain; P's old loops are removed and new loops ``ax0, ax1, …`` over that
region are inserted into L's body before the first consumer.  ``reverse_compute_at``
is the mirror image: a consumer C covers exactly what the producers under L wrote,
inserted after the last producer.  A bounds predicate is added when the region may
fall outside the buffer (non-divisible splits).
"""

from __future__ import annotations

from ember.ir import And, Cast, IntImm, Range, Var, const, replace
from ember.tir.functor import collect, pre_order_visit, substitute
from ember.tir.stmt import BlockRealize, For, ForKind, IterVarType, SeqStmt, seq

from . import _arith
from .analysis import (
    blocks_under, child_blocks, path_to, replace_stmts, scope_of, vars_in,
)
from .compute_inline import subtree_root
from .errors import ScheduleError

__all__ = ["compute_at", "reverse_compute_at"]


def _all_bounds(func) -> dict:
    bounds = {}
    for s in _walk_loops(func.body):
        lo, _ = _arith.const_bound(s.min)
        _, hi = _arith.const_bound(s.min + s.extent - 1)
        if lo is not None and hi is not None:
            bounds[s.loop_var] = (lo, hi)
    return bounds


def _walk_loops(s):
    from .analysis import walk

    return [x for x in walk(s) if isinstance(x, For)]


def _region_under(func, loop: For, realizes, buffer, access: str, bounds: dict):
    """Union over ``realizes`` (under ``loop``) of their ``access`` region of ``buffer``,
    in terms of loops outside ``loop``: a list of (lo, extent) per dimension."""
    lows, highs = None, None
    for realize in realizes:
        block = realize.block
        regions = block.reads if access == "read" else block.writes
        path = path_to(loop, realize) or []
        relax = {lp.loop_var: (lp.min, _arith.simplify(lp.min + lp.extent - 1))
                 for lp in path[1:] + [realize] if isinstance(lp, For)}
        relax.update(_threads_sharing(func, loop, buffer))
        binding = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
        for region in regions:
            if region.buffer is not buffer:
                continue
            for d, rng in enumerate(region.region):
                lo_e = substitute(rng.min, binding)
                hi_e = substitute(rng.min + rng.extent - 1, binding)
                try:
                    lo, _ = _arith.relax_bound(lo_e, relax, bounds)
                    _, hi = _arith.relax_bound(hi_e, relax, bounds)
                except _arith.BoundError:  # data-dependent index: the whole dimension
                    lo, hi = const(0, "int32"), _arith.simplify(buffer.shape[d] - 1)
                if lows is None:
                    lows, highs = [None] * len(region.region), [None] * len(region.region)
                lows[d] = lo if lows[d] is None else _arith.min_expr(lows[d], lo, bounds)
                highs[d] = hi if highs[d] is None else _arith.max_expr(highs[d], hi, bounds)
    if lows is None:  # no region of the buffer has a dimension: a 0-d (scalar) buffer
        if len(buffer.shape):
            raise ScheduleError(f"no block under loop {loop.loop_var.name!r} accesses {buffer.name!r}", func)
        return []
    return [(lo, _arith.simplify(hi - lo + 1, bounds)) for lo, hi in zip(lows, highs)]


# storage scopes and thread tags by rank: a buffer of scope rank r is shared by all the
# threads of tags with rank >= r (global: every thread; shared: threadIdx; local: none)
_SCOPE_RANK = {"global": 0, "shared": 1, "shared.dyn": 1, "warp": 2, "local": 3}


def _threads_sharing(func, loop: For, buffer) -> dict:
    """Thread-bound loops around ``loop`` whose threads all share ``buffer`` (threadIdx
    loops for a shared buffer, every thread loop for a global one): a stage computed
    under ``loop`` fills the buffer for all of them together, so their whole range is
    relaxed (TVM's rule, so cooperative fetches into shared memory cover the block's tile;
    virtual threads count as threadIdx)."""
    scope = buffer.scope() if hasattr(buffer, "scope") else "global"
    rank = _SCOPE_RANK.get(scope, 3)
    if rank >= 2:
        return {}
    out = {}
    for lp in (path_to(func.body, loop) or []) + [loop]:
        if not isinstance(lp, For) or lp.thread_binding is None:
            continue
        tag = lp.thread_binding.thread_tag
        thread_rank = 1 if tag.startswith(("threadIdx", "vthread")) else 0 if tag.startswith("blockIdx") else None
        if thread_rank is not None and rank <= thread_rank:
            out[lp.loop_var] = (lp.min, _arith.simplify(lp.min + lp.extent - 1))
    return out


def _dim_of_iters(func, block, indices, what: str) -> dict:
    """Map each block iterator used as an index to its buffer dimension."""
    ivars = {id(iv.var): iv for iv in block.iter_vars}
    out = {}
    for d, index in enumerate(indices):
        if not isinstance(index, Var) or id(index) not in ivars or id(index) in out:
            raise ScheduleError(
                f"{what} supports blocks whose accesses of the moved buffer use distinct block "
                f"iterators as indices; block {block.name_hint!r} uses "
                f"[{', '.join(repr(i) for i in indices)}]", func, block=block)
        out[id(index)] = d
    return out


def _new_nest(func, realize: BlockRealize, dims: dict, region, buffer, preserve_unit_loops: bool,
              bounds: dict):
    """A loop nest running ``realize``'s block over ``region`` (dims from iterators)."""
    block = realize.block
    loops, values, conds = [], [], []
    bounds = dict(bounds)
    # a loop of one iteration is its start in the new bindings (TVM's analyzer folds them)
    units = {v: const(lo, v.dtype) for v, (lo, hi) in bounds.items() if lo == hi}
    for iv in block.iter_vars:
        d = dims.get(id(iv.var))
        if d is not None:
            lo, extent = _clip_to_domain(region[d], iv)
        else:
            lo, extent = iv.dom.min, iv.dom.extent
        if units and any(v in units for v in vars_in(lo)):
            lo = _arith.simplify(substitute(lo, units), bounds)
        if _arith.as_int(extent) == 1 and not preserve_unit_loops:
            value = _in_dtype(lo, iv.var.dtype)
        else:
            if extent.dtype != iv.var.dtype:  # e.g. int32 iterators over a symbolic int64 extent
                ext = _arith.as_int(extent)
                extent = Cast(iv.var.dtype, extent) if ext is None else const(ext, iv.var.dtype)
            value = _new_loop(loops, bounds, lo, extent, iv.var.dtype)
        values.append(value)
        if d is not None:
            lo_c, hi_c = _arith.const_bound(value, bounds)
            if (lo_c is None or lo_c < 0) and not (lo_c is None and _symbolic(func, loops).can_prove(value >= 0)):
                from ember.arith import Analyzer  # TVM's simplified form: `16 <= i`, not `i - 16 >= 0`

                conds.append(Analyzer().simplify(value >= 0))
            dim = _arith.as_int(buffer.shape[d])
            if (hi_c is None or dim is None or hi_c >= dim) and not (
                    (hi_c is None or dim is None) and _symbolic(func, loops).can_prove(value < buffer.shape[d])):
                dim_end = buffer.shape[d]
                conds.append(value < (dim_end if dim_end.dtype == value.dtype else Cast(value.dtype, dim_end)))
            # a region of a larger (padded) buffer can reach past the block's own domain
            end = _arith.simplify(iv.dom.min + iv.dom.extent)
            if _arith.expr_key(end) != _arith.expr_key(buffer.shape[d]):
                end_c = _arith.as_int(end)
                if hi_c is None or end_c is None or hi_c >= end_c:
                    conds.append(value < (end if end.dtype == value.dtype else Cast(value.dtype, end)))
    conds += _kept_predicate(realize, block, dims, values)
    return _realize_in_loops(block, values, conds, loops)


def _solved_nest(func, realize, loop, blocks, buffer, access: str, preserve_unit_loops: bool, err):
    """The loop nest that recomputes ``realize`` over the iterations that cover the region
    of ``buffer`` that ``blocks`` under ``loop`` access, solving the block's own access
    region of ``buffer`` for its iterators (``iter_domain.solve``); ``err`` is raised
    when that access is beyond the solver."""
    from .iter_domain import Unsolvable, solve

    block = realize.block
    own = block.writes if access == "read" else block.reads
    own = [r for r in own if r.buffer is buffer]
    if len(own) != 1:
        raise err
    bounds = _all_bounds(func)
    region = _region_under(func, loop, blocks, buffer, access, bounds)
    required = [(lo, _arith.simplify(lo + extent - 1, bounds)) for lo, extent in region]
    try:
        ranges = solve(block, own[0], required, bounds)
    except Unsolvable:
        raise err from None
    loop_ranges = {x.loop_var: Range(x.min, x.extent) for x in _walk_loops(func.body)}
    return _ranged_nest(realize, ranges, preserve_unit_loops, bounds, loop_ranges)


def _provably_within(value, lo, end, bounds: dict, loop_ranges: dict) -> bool:
    """Whether ``lo <= value < end`` for every iteration of the loops (``loop_ranges``:
    loop Var -> Range; unit loops are at their start).  Beyond constant bounds this knows
    ``x % n < n`` and ``x // n < c`` for ``x`` a loop over ``n * c`` (a fused shape loop)."""
    from ember.arith import Analyzer
    from ember.ir import FloorDiv, FloorMod

    units = {v: const(a, v.dtype) for v, (a, b) in bounds.items() if a == b}
    value = _arith.simplify(substitute(value, units), bounds) if units else value
    v_lo, v_hi = _arith.const_bound(value, bounds)
    lo_c, end_c = _arith.as_int(lo), _arith.as_int(end)
    if None not in (v_lo, v_hi, lo_c, end_c):
        return lo_c <= v_lo and v_hi < end_c
    ana = Analyzer()
    for var, rng in loop_ranges.items():
        for x in vars_in(rng.extent):
            ana.bind(x, Range(const(1, x.dtype), const(2 ** 31 - 2, x.dtype)))
        ana.bind(var, rng)
    low_ok = ana.can_prove(value >= lo)
    if isinstance(value, FloorMod) and _arith.expr_key(value.b) == _arith.expr_key(end):
        return low_ok
    if isinstance(value, FloorDiv) and isinstance(value.a, Var) and value.a in loop_ranges:
        rng = loop_ranges[value.a]
        if _arith.is_const(rng.min, 0) and _arith.is_const(_arith.simplify(rng.extent - value.b * end), 0):
            return low_ok
    return low_ok and ana.can_prove(value < end)


def _ranged_nest(realize: BlockRealize, ranges: dict, preserve_unit_loops: bool, bounds: dict,
                 loop_ranges: dict):
    """A loop nest running ``realize``'s block with each iterator in ``ranges`` over its
    (lo, hi) (clipped to the iterator's domain when both are constants, else guarded by a
    predicate) and every other iterator over its whole domain."""
    block = realize.block
    bounds = dict(bounds)
    units = {v: const(lo, v.dtype) for v, (lo, hi) in bounds.items() if lo == hi}
    loops, values, conds = [], [], []
    for iv in block.iter_vars:
        dom_lo, dom_hi = iv.dom.min, _arith.simplify(iv.dom.min + iv.dom.extent - 1)
        lo, hi = ranges.get(id(iv.var), (dom_lo, dom_hi))
        if units:
            lo = _arith.simplify(substitute(lo, units), bounds)
            hi = _arith.simplify(substitute(hi, units), bounds)
        los, his, dlo, dhi = (_arith.as_int(x) for x in (lo, hi, dom_lo, dom_hi))
        if None not in (los, his, dlo, dhi):
            lo, hi = const(max(los, dlo), iv.var.dtype), const(min(his, dhi), iv.var.dtype)
        extent = _arith.simplify(hi - lo + 1, bounds)
        if _arith.as_int(extent) == 1 and not preserve_unit_loops:
            value = _in_dtype(lo, iv.var.dtype)
        else:
            value = _new_loop(loops, bounds, lo, extent, iv.var.dtype)
        values.append(value)
        if id(iv.var) in ranges:
            end = _arith.simplify(iv.dom.min + iv.dom.extent)
            if not _provably_within(value, dom_lo, end, bounds, loop_ranges):
                v_lo, _ = _arith.const_bound(value, bounds)
                if dlo is None or v_lo is None or v_lo < dlo:
                    conds.append(value >= dom_lo)
                conds.append(value < end)
    return _realize_in_loops(block, values, conds, loops)


def _new_loop(loops: list, bounds: dict, lo, extent, dtype):
    """A new loop ``ax<k>`` over ``extent``, appended to ``loops`` (and its range to
    ``bounds`` when constant); the moved iterator's value ``lo + ax<k>``."""
    var = Var(f"ax{len(loops)}", dtype)
    loops.append((var, extent))
    ext = _arith.as_int(extent)
    if ext is not None:
        bounds[var] = (0, ext - 1)
    return _arith.simplify(_in_dtype(lo, dtype) + var, bounds)


def _in_dtype(e, dtype):
    """``e`` as an iterator of ``dtype`` binds it: an int64 region start (from a consumer's
    int64 indices) bound to an int32 iterator is cast, so the binding has the iterator's
    type (lowering substitutes it into the block, ``1 <= v`` included)."""
    if e.dtype == dtype:
        return e
    v = _arith.as_int(e)
    return const(v, dtype) if v is not None else Cast(dtype, e)


def _realize_in_loops(block, values, conds, loops):
    """``block`` realized at ``values`` under the conjunction of ``conds``, inside new serial
    loops ``(var, extent)``, outermost first."""
    pred = const(True)
    for c in conds:
        pred = c if isinstance(pred, IntImm) else And(pred, c)
    body = BlockRealize(tuple(values), pred, block)
    for var, extent in reversed(loops):
        body = For(var, const(0, var.dtype), extent, ForKind.SERIAL, body)
    return body


def _symbolic(func, new_loops):
    """An analyzer that knows every loop of ``func`` and the new loops ``(var, extent)``
    over their (possibly symbolic) ranges, the shape variables in them taken positive:
    ``k_0 * 32 + ax0 < n * 32`` for ``k_0 < n``, ``ax0 < 32``."""
    from ember.arith import Analyzer

    ana = Analyzer()
    ranges = [(x.loop_var, Range(x.min, x.extent)) for x in _walk_loops(func.body)]
    ranges += [(var, Range(const(0, var.dtype), extent)) for var, extent in new_loops]
    loop_vars = {var for var, _ in ranges}
    shape_vars = {x for _, rng in ranges for x in vars_in(rng.extent) if x not in loop_vars}
    for x in shape_vars:
        ana.bind(x, Range(const(1, x.dtype), const(2 ** 31 - 2, x.dtype)))
    for var, rng in ranges:
        ana.bind(var, rng, allow_override=True)
    return ana


def _clip_to_domain(rng, iv):
    """A constant region clipped to the iterator's constant domain (TVM intersects the two:
    a consumer over 32 values of a dimension of extent 1 needs the producer's one value)."""
    lo, extent = rng
    vals = [_arith.as_int(x) for x in (lo, extent, iv.dom.min, iv.dom.extent)]
    if None in vals:
        return lo, extent
    lo_c, ext_c, dmin, dext = vals
    new_lo, new_hi = max(lo_c, dmin), min(lo_c + ext_c - 1, dmin + dext - 1)
    if new_hi < new_lo or (new_lo, new_hi) == (lo_c, lo_c + ext_c - 1):
        return lo, extent
    return const(new_lo, lo.dtype), const(new_hi - new_lo + 1, extent.dtype)


def _kept_predicate(realize: BlockRealize, block, dims: dict, values: list) -> list:
    """Conjuncts of the block's old predicate that bound iterators the new nest runs over
    their whole domain (a split reduction's ``k_0 * 16 + k_1 < n``, after ``rfactor``),
    rewritten in the new loops; the region's bounds cover the other iterators."""
    if isinstance(realize.predicate, IntImm):
        return []
    vmap, whole = {}, set()
    for iv, old, new in zip(block.iter_vars, realize.iter_values, values):
        if isinstance(old, Var):
            vmap[old] = new
            if dims.get(id(iv.var)) is None:
                whole.add(old)
    loop_vars = {v for value in realize.iter_values for v in collect(value, lambda n: isinstance(n, Var))}
    kept = []
    stack = [realize.predicate]
    while stack:
        c = stack.pop()
        if isinstance(c, And):
            stack += [c.a, c.b]
            continue
        used = set(collect(c, lambda n: isinstance(n, Var)))
        if used & whole and all(v in vmap for v in used & loop_vars):
            kept.append(substitute(c, vmap))
    return kept


def _insert(loop: For, nest, lo: int, hi: int, index: int, func, what: str) -> For:
    children = list(loop.body.seq) if isinstance(loop.body, SeqStmt) else [loop.body]
    if index == -1:
        pos = hi
    elif index == -2:
        pos = lo
    elif lo <= index <= hi:
        pos = index
    else:
        raise ScheduleError(f"{what}: index {index} is not a legal insertion point; legal positions are "
                            f"{lo}..{hi} (or -1 for the last, -2 for the first)", func, loop=loop)
    children.insert(pos, nest)
    return replace(loop, body=seq(*children))


def _common_checks(func, realize, loop, what):
    block = realize.block
    if path_to(loop, realize) is not None:
        raise ScheduleError(f"{what}: block {block.name_hint!r} is already under loop "
                            f"{loop.loop_var.name!r} (the loop is an ancestor of block "
                            f"{block.name_hint!r})", func, loop=loop)
    if path_to(realize, loop) is not None:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is inside block {block.name_hint!r}",
                            func, loop=loop)
    if scope_of(func, realize) is not scope_of(func, loop):
        raise ScheduleError(f"{what}: block {block.name_hint!r} and loop {loop.loop_var.name!r} are not "
                            "in the same block scope", func, block=block)
    for w in block.writes:
        others = [r.block.name_hint for r in blocks_under(func.body) if r is not realize
                  and r.block.name_hint != "root" and path_to(r, realize) is None
                  and path_to(realize, r) is None and any(x.buffer is w.buffer for x in r.block.writes)]
        if others:
            raise ScheduleError(f"{what}: block {block.name_hint!r} is not a complete block: it is not "
                                f"the only writer of {w.buffer.name!r} (also written by {others})",
                                func, block=block)
    root = subtree_root(func, realize)
    parent = (path_to(func.body, root) or [None])[-1]
    if isinstance(parent, For):
        raise ScheduleError(f"{what}: block {block.name_hint!r} shares its loops with other statements; "
                            "only a block with a loop nest of its own can be moved", func, block=block)
    return root


def _check_not_under_reduction(func, loop: For, writers, what: str, block) -> None:
    """A consumer must not be placed under a loop (``loop`` or one around it) that drives a
    reduction iterator of a producer under ``loop``: it would read partial results."""
    scope = scope_of(func, loop)
    outer = path_to(scope.block.body if scope is not None else func.body, loop) or []
    loops = [x for x in outer if isinstance(x, For)] + [loop]
    for w in writers:
        for iv, value in zip(w.block.iter_vars, w.iter_values):
            if iv.iter_type != IterVarType.CommReduce:
                continue
            used = {id(v) for v in collect(value, lambda n: isinstance(n, Var))}
            bad = next((lp for lp in loops if id(lp.loop_var) in used), None)
            if bad is not None:
                raise ScheduleError(
                    f"{what}: loop {bad.loop_var.name!r} drives the reduction iterator {iv.var.name!r} of block "
                    f"{w.block.name_hint!r}; block {block.name_hint!r} under it would read partial results",
                    func, loop=bad)


def _check_inputs_ready(func, realize: BlockRealize, loop: For, what: str) -> None:
    """Every buffer the moved block reads must be fully written before its new place: its
    writers outside ``loop`` must come before ``loop`` in program order."""
    order: dict[int, int] = {}  # node id -> its position in program (pre-)order

    def number(node) -> None:
        order.setdefault(id(node), len(order))

    pre_order_visit(func.body, number)
    scope = scope_of(func, realize)
    at = order[id(loop)]
    for other in blocks_under(scope.block.body if scope is not None else func.body):
        if other is realize or path_to(loop, other) is not None or path_to(other, realize) is not None:
            continue
        if any(w.buffer is r.buffer for w in other.block.writes for r in realize.block.reads) \
                and order[id(subtree_root(func, other))] > at:
            raise ScheduleError(
                f"{what}: block {realize.block.name_hint!r} reads what block {other.block.name_hint!r} writes, "
                f"which runs after loop {loop.loop_var.name!r}; the block would read it before it is written",
                func, block=realize.block)


def _positions(loop: For, pred) -> list[int]:
    children = loop.body.seq if isinstance(loop.body, SeqStmt) else (loop.body,)
    return [k for k, c in enumerate(children) if any(pred(r) for r in blocks_under(c))]


def compute_at(func, realize: BlockRealize, loop: For, preserve_unit_loops: bool = False,
               index: int = -1):
    what = "compute_at"
    block = realize.block
    root = _common_checks(func, realize, loop, what)
    if len(block.writes) != 1:
        raise ScheduleError(f"{what}: block {block.name_hint!r} must write exactly one buffer",
                            func, block=block)
    buffer = block.writes[0].buffer
    readers = [r for r in child_blocks(loop) if any(x.buffer is buffer for x in r.block.reads)]
    if not readers:
        output = any(b is buffer for b in func.buffer_map.values())
        raise ScheduleError(f"{what}: block {block.name_hint!r} is not a producer of any block under "
                            f"loop {loop.loop_var.name!r} (none reads {buffer.name!r})"
                            + ("; it is an output block (it writes a function parameter)" if output else ""),
                            func, loop=loop)
    _check_others_under(func, realize, loop, buffer, what, "read")
    _check_order(func, root, loop, what, block, before=True)
    _check_inputs_ready(func, realize, loop, what)
    try:
        dims = _dim_of_iters(func, block, _write_indices(func, block, buffer, what), what)
        nest = _nest_under(func, realize, loop, readers, buffer, "read", dims, preserve_unit_loops)
    except ScheduleError as err:  # indices other than plain iterators: solve for the iterators
        nest = _solved_nest(func, realize, loop, readers, buffer, "read", preserve_unit_loops, err)
    first = _positions(loop, lambda r: any(x.buffer is buffer for x in r.block.reads))[0]
    new_loop = _insert(loop, nest, 0, first, index, func, what)
    return replace_stmts(func, {root: None, loop: new_loop})


def _check_others_under(func, realize, loop, buffer, what, access: str) -> None:
    """Every other block of the scope that accesses (``access``: "read" / "write") ``buffer``
    the same way must be under ``loop``."""
    scope = scope_of(func, realize)
    for other in child_blocks(scope) if scope is not None else []:
        regions = other.block.reads if access == "read" else other.block.writes
        if other is not realize and any(x.buffer is buffer for x in regions) \
                and path_to(loop, other) is None:
            role = "consumer" if access == "read" else "producer"
            raise ScheduleError(f"{what}: block {other.block.name_hint!r} also {access}s {buffer.name!r} "
                                f"but is not under loop {loop.loop_var.name!r} ({what} requires all the "
                                f"{role} blocks to be under the loop)", func, block=other.block)


def _nest_under(func, realize, loop, blocks, buffer, access: str, dims, preserve_unit_loops):
    """The loop nest that recomputes ``realize`` over the region of ``buffer`` that ``blocks``
    under ``loop`` access (``access``: "read" / "write")."""
    bounds = _all_bounds(func)
    region = _region_under(func, loop, blocks, buffer, access, bounds)
    return _new_nest(func, realize, dims, region, buffer, preserve_unit_loops, bounds)


def _check_order(func, root, loop, what, block, before: bool) -> None:
    """The moved nest must precede (compute_at) / follow (reverse_compute_at) the loop."""
    scope = scope_of(func, loop)
    body = scope.block.body if scope is not None else func.body
    children = list(body.seq) if isinstance(body, SeqStmt) else [body]

    def top(x):
        return next((k for k, c in enumerate(children) if c is x or path_to(c, x) is not None), None)

    a, b = top(root), top(loop)
    if a is None or b is None or a == b:
        return
    if before and a > b:
        raise ScheduleError(f"{what}: block {block.name_hint!r} comes after loop {loop.loop_var.name!r}, so "
                            "it is not a producer of the blocks under it", func, block=block)
    if not before and a < b:
        raise ScheduleError(f"{what}: block {block.name_hint!r} comes before loop {loop.loop_var.name!r}, so "
                            "it is not a consumer of the blocks under it", func, block=block)


def _write_indices(func, block, buffer, what):
    from ember.tir.functor import collect
    from ember.tir.stmt import BufferStore

    stores = collect(block.body, lambda n: isinstance(n, BufferStore) and n.buffer is buffer)
    if len(stores) != 1:
        raise ScheduleError(f"{what}: block {block.name_hint!r} must store to {buffer.name!r} once",
                            func, block=block)
    return stores[0].indices


def reverse_compute_at(func, realize: BlockRealize, loop: For, preserve_unit_loops: bool = False,
                       index: int = -1):
    what = "reverse_compute_at"
    block = realize.block
    root = _common_checks(func, realize, loop, what)
    under = child_blocks(loop)
    writers = [r for r in under if any(w.buffer is x.buffer for w in r.block.writes for x in block.reads)]
    if not writers:
        raise ScheduleError(f"{what}: no block under loop {loop.loop_var.name!r} produces a buffer that "
                            f"block {block.name_hint!r} reads", func, loop=loop)
    buffer = next(x.buffer for x in block.reads if any(w.buffer is x.buffer for w in writers[0].block.writes))
    _check_others_under(func, realize, loop, buffer, what, "write")
    _check_order(func, root, loop, what, block, before=False)
    _check_not_under_reduction(func, loop, writers, what, block)
    _check_inputs_ready(func, realize, loop, what)
    for read in block.reads:  # every producer of the block must be under the loop, as TVM requires
        _check_others_under(func, realize, loop, read.buffer, what, "write")
    loads = _read_indices(func, block, buffer, what)
    try:
        dims = _dim_of_iters(func, block, loads, what)
    except ScheduleError as err:  # indices other than plain iterators: solve for the iterators
        dims, nest = None, _solved_nest(func, realize, loop, writers, buffer, "write", preserve_unit_loops, err)
    if dims is not None:  # a reduction iterator may index it too: the block then reduces in chunks, as in TVM
        nest = _nest_under(func, realize, loop, writers, buffer, "write", dims, preserve_unit_loops)
    _check_covers_domain(func, nest, block, loop, what)
    last = _positions(loop, lambda r: any(w.buffer is buffer for w in r.block.writes))[-1]
    n = len(loop.body.seq) if isinstance(loop.body, SeqStmt) else 1
    new_loop = _insert(loop, nest, last + 1, n, index, func, what)
    return replace_stmts(func, {root: None, loop: new_loop})


def _check_covers_domain(func, nest, block, loop: For, what: str) -> None:
    """The moved consumer runs only the iterations that read what the producers under
    ``loop`` write: an iterator whose values over all iterations of every loop fall
    provably short of its domain (a padding block's border, which reads no produced
    element) would lose those iterations, so the move is refused."""
    bounds = _all_bounds(func)
    for s in _walk_loops(nest):
        lo, _ = _arith.const_bound(s.min, bounds)
        _, hi = _arith.const_bound(s.min + s.extent - 1, bounds)
        if lo is not None and hi is not None:
            bounds[s.loop_var] = (lo, hi)
    realize = nest
    while isinstance(realize, For):
        realize = realize.body
    if not isinstance(realize, BlockRealize):
        return
    for iv, value in zip(realize.block.iter_vars, realize.iter_values):
        v_lo, v_hi = _arith.const_bound(value, bounds)
        d_lo, d_ext = _arith.as_int(iv.dom.min), _arith.as_int(iv.dom.extent)
        if None in (v_lo, v_hi, d_lo, d_ext):
            continue
        if v_lo > d_lo or v_hi < d_lo + d_ext - 1:
            raise ScheduleError(f"{what}: under loop {loop.loop_var.name!r}, block {block.name_hint!r} would "
                                f"run iterator {iv.var.name!r} over [{max(v_lo, d_lo)}, {min(v_hi, d_lo + d_ext - 1) + 1}) "
                                f"only, not its whole domain [{d_lo}, {d_lo + d_ext}): the other iterations "
                                "read nothing the loop produces (a padding border) and would be lost",
                                func, block=block)


def _read_indices(func, block, buffer, what):
    from ember.tir.buffer import BufferLoad
    from ember.tir.functor import collect

    loads = collect(block.body, lambda n: isinstance(n, BufferLoad) and n.buffer is buffer)
    keys = {tuple(_arith.expr_key(i) for i in ld.indices) for ld in loads}
    if len(keys) != 1:
        raise ScheduleError(f"{what}: block {block.name_hint!r} must read {buffer.name!r} at exactly one "
                            "place", func, block=block)
    return loads[0].indices

