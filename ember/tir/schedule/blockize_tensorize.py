"""blockize and tensorize.

``blockize(loop)`` wraps the loop nest rooted at ``loop`` (one block inside) in a new
outer block ``<name>_o``: each inner binding ``e`` is split into an outer part
(loops outside ``loop``) and an inner part ranging over ``[0, E)``; the outer block
gets an iterator ``vo = outer / E`` and the inner binding becomes ``vo * E + inner``.
When a reduction crosses ``loop`` the init moves to the outer block.
``tensorize(block_or_loop, name)`` blockizes (for a loop), checks that the block's
computation matches the intrinsic's description (same loop extents, same expression
tree up to buffers and indices, region shapes equal to the description's buffers),
then replaces the body by the implementation, binding its buffers to the block's
regions with ``match_buffers``.
"""

from __future__ import annotations

from ember.ir import IntImm, Range, Var, const, replace
from ember.tir.buffer import BufferLoad, BufferRegion, MatchBufferRegion
from ember.tir.functor import substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType

from . import _arith
from .analysis import child_blocks, infer_regions, loops_above, path_to, replace_stmts, unique_name, vars_in
from .cache import ReplaceBuffer
from .errors import ScheduleError
from .tensor_intrin import TensorIntrin

__all__ = ["blockize", "tensorize", "tensorize_loop"]


def _split_binding(func, loop, e, inner_vars: set, bounds: dict, dom_extent):
    """(outer_expr or None, inner_expr, E) with e == outer * E + inner."""
    lin = _arith.linear(e, bounds)
    outer = _arith.Linear(lin.dtype, c=lin.const)
    inner = _arith.Linear(lin.dtype)
    for key, (atom, coeff) in lin.terms.items():
        vs = vars_in(atom)
        has_inner = any(v in inner_vars for v in vs)
        if has_inner and any(v not in inner_vars for v in vs):
            raise ScheduleError(f"blockize: the binding {e!r} mixes loops inside and outside loop "
                                f"{loop.loop_var.name!r} in one term", func, loop=loop)
        (inner if has_inner else outer).terms[key] = [atom, coeff]
    if not inner.terms:
        return outer.to_expr(), const(0, lin.dtype), 1
    ie = inner.to_expr()
    lo, hi = _arith.const_bound(ie, bounds)
    if lo is None or hi is None or lo < 0:
        raise ScheduleError(f"blockize: cannot bound the inner part {ie!r} of binding {e!r}", func, loop=loop)
    extent = hi + 1
    if not outer.terms and outer.const == 0:
        return None, ie, extent
    if any(c % extent for _, c in outer.terms.values()) or outer.const % extent:
        raise ScheduleError(f"blockize: the outer part of binding {e!r} is not a multiple of the inner "
                            f"extent {extent}", func, loop=loop)
    quotient = _arith.Linear(lin.dtype, {k: [a, c // extent] for k, (a, c) in outer.terms.items()},
                             outer.const // extent)
    dom = _arith.as_int(dom_extent)
    if dom is not None and dom % extent:
        raise ScheduleError(f"blockize: the inner extent {extent} does not divide the iterator extent {dom}",
                            func, loop=loop)
    return quotient.to_expr(), ie, extent


def _split_predicate(func, loop, pred, inner_vars: set):
    """(outer, inner) parts of a block predicate: conjuncts over outer loops move out."""
    from ember.ir import And

    def conjuncts(p):
        return conjuncts(p.a) + conjuncts(p.b) if isinstance(p, And) else [p]

    outer, inner = const(True), const(True)
    for c in conjuncts(pred):
        vs = vars_in(c)
        if not vs:
            continue
        if all(v not in inner_vars for v in vs):
            outer = c if isinstance(outer, IntImm) else And(outer, c)
        elif all(v in inner_vars for v in vs):
            inner = c if isinstance(inner, IntImm) else And(inner, c)
        else:
            raise ScheduleError(f"blockize: the predicate {c!r} mixes loops inside and outside loop "
                                f"{loop.loop_var.name!r}", func, loop=loop)
    return outer, inner


def _outer_regions(regions, binding: dict, relax: dict):
    out = []
    for r in regions:
        rng = []
        for x, size in zip(r.region, r.buffer.shape):
            lo, _ = _arith.relax_bound(substitute(x.min, binding), relax)
            _, hi = _arith.relax_bound(substitute(x.min + x.extent - 1, binding), relax)
            n, h = _arith.as_int(size), _arith.as_int(hi)
            if n is not None and h is not None and h >= n:  # a predicated tail: clip to the buffer
                hi = const(n - 1, hi.dtype)
            rng.append(Range(lo, _arith.simplify(hi - lo + 1)))
        out.append(BufferRegion(r.buffer, tuple(rng)))
    return tuple(out)


def blockize(func, loop: For, preserve_unit_iters: bool = True):
    realizes = child_blocks(loop)
    if len(realizes) != 1:
        raise ScheduleError(f"blockize: loop {loop.loop_var.name!r} must contain exactly one block, found "
                            f"{len(realizes)}", func, loop=loop)
    realize = realizes[0]
    block = realize.block
    inner_loops = [s for s in [loop] + (path_to(loop, realize) or [])[1:] if isinstance(s, For)]
    inner_vars = {lp.loop_var for lp in inner_loops}
    bounds = {}
    for lp in inner_loops:
        lo, hi = _arith.as_int(lp.min), _arith.as_int(_arith.simplify(lp.min + lp.extent - 1))
        if lo is None or hi is None:
            raise ScheduleError(f"blockize: loop {lp.loop_var.name!r} must have a constant range",
                                func, loop=lp)
        bounds[lp.loop_var] = (lo, hi)
    values = realize.iter_values
    if not preserve_unit_iters:  # unit loops are constants in the bindings
        units = {lp.loop_var: lp.min for lp in loops_above(func, realize)
                 if _arith.as_int(lp.extent) == 1}
        values = tuple(_arith.simplify(substitute(e, units)) if units else e for e in values)
    # Each iterator v = vo * E + vi: vo iterates the outer block (always, extent 1 included),
    # vi the inner one (dropped when E == 1 and nothing inside moves it).
    outer_ivs, outer_values, inner_ivs, inner_values = [], [], [], []
    to_inner = {}
    for iv, e in zip(block.iter_vars, values):
        outer, inner, extent = _split_binding(func, loop, e, inner_vars, bounds, iv.dom.extent)
        dtype = iv.var.dtype
        if outer is None:  # all inside: the inner iterator covers the domain (a predicate bounds it)
            full = _arith.as_int(iv.dom.extent)
            extent = min(extent, full) if full is not None else extent
            dom = const(1, iv.dom.extent.dtype)
        else:
            dom = _arith.simplify(iv.dom.extent // extent) if extent != 1 else iv.dom.extent
        vo = Var(iv.var.name + "_o", dtype)
        outer_ivs.append(IterVar(Range(const(0, dtype), dom), vo, iv.iter_type))
        outer_values.append(const(0, dtype) if outer is None else outer)
        outer_part = None if _arith.as_int(dom) == 1 else (vo if extent == 1 else vo * extent)
        if extent == 1 and _arith.as_int(inner) is not None:
            to_inner[iv.var] = vo if outer_part is None else outer_part
        else:
            vi = Var(iv.var.name + "_i", dtype)
            inner_ivs.append(IterVar(Range(const(0, dtype), const(extent, dtype)), vi, iv.iter_type))
            inner_values.append(inner)
            to_inner[iv.var] = vi if outer_part is None else outer_part + vi
    to_loops = {iv.var: _loop_form(to_inner[iv.var], inner_ivs, inner_values) for iv in block.iter_vars}
    new_init = None
    outer_pred, inner_pred = _split_predicate(func, loop, realize.predicate, inner_vars)
    inner_block = _substitute_block(block, to_inner, inner_ivs)
    # every reduction iterator has an outer one, so the outer block is a reduction: it owns the init
    if block.init is not None and any(iv.iter_type == IterVarType.CommReduce for iv in block.iter_vars):
        new_init = _outer_init(func, loop, block, inner_ivs, inner_values, to_inner, inner_loops, inner_pred)
        inner_block = replace(inner_block, init=None)
        inner_block = replace(inner_block, reads=infer_regions(inner_block)[0])  # now reads its output
    inner_realize = BlockRealize(tuple(inner_values), inner_pred, inner_block)
    body = replace_stmts(loop, {realize: inner_realize})
    relax = {lp.loop_var: (lp.min, _arith.simplify(lp.min + lp.extent - 1)) for lp in inner_loops}
    outer_block = Block(tuple(outer_ivs), _outer_regions(block.reads, to_loops, relax),
                        _outer_regions(block.writes, to_loops, relax), unique_name(func, block.name_hint + "_o"), body, new_init)
    new = BlockRealize(tuple(outer_values), outer_pred, outer_block)
    return replace_stmts(func, {loop: new}), outer_block.name_hint


def _loop_form(expr, inner_ivs, inner_values):
    """``expr`` over the outer block iterators and the inner loops (inner iterators replaced)."""
    return substitute(expr, {iv.var: v for iv, v in zip(inner_ivs, inner_values)})


def _substitute_block(block, vmap: dict, new_ivs) -> Block:
    """``block`` over ``new_ivs``, its old iterators replaced by ``vmap``'s expressions."""
    def region(r):
        return BufferRegion(r.buffer, tuple(Range(_arith.simplify(substitute(x.min, vmap)),
                                                  _arith.simplify(substitute(x.extent, vmap)))
                                            for x in r.region))

    return replace(block, iter_vars=tuple(new_ivs), body=substitute(block.body, vmap),
                   init=None if block.init is None else substitute(block.init, vmap),
                   reads=tuple(region(r) for r in block.reads), writes=tuple(region(r) for r in block.writes))


def _outer_init(func, loop, block, inner_ivs, inner_values, to_inner, inner_loops, inner_pred):
    """The init of a reduction blockized across its reduction loops, as TVM builds it: loops
    over the inner loops that feed spatial iterators around a block ``<name>_init`` (under
    the inner block's predicate, which must not involve the other inner loops)."""
    spatial = [(iv, v) for iv, v in zip(inner_ivs, inner_values) if iv.iter_type == IterVarType.DataPar]
    used = set().union(*(vars_in(v) for _, v in spatial)) if spatial else set()
    copies = [(Var(lp.loop_var.name + "_init", lp.loop_var.dtype), lp) for lp in inner_loops
              if lp.loop_var in used]
    lmap = {lp.loop_var: var for var, lp in copies}
    ivs = [IterVar(iv.dom, Var(iv.var.name.removesuffix("_i") + "_init", iv.var.dtype), iv.iter_type)
           for iv, _ in spatial]
    imap = {iv.var: niv.var for (iv, _), niv in zip(spatial, ivs)}
    vmap = {old: substitute(e, imap) for old, e in to_inner.items()
            if all(v in imap or v not in {i.var for i in inner_ivs} for v in vars_in(e))}
    init_block = Block(tuple(ivs), (), (), block.name_hint + "_init", substitute(block.init, vmap))
    reads, writes = infer_regions(init_block)
    init_block = replace(init_block, writes=writes)
    pred_vars = [v for v in vars_in(inner_pred) if v in {lp.loop_var for lp in inner_loops}]
    if any(v not in lmap for v in pred_vars):
        raise ScheduleError(f"blockize: the predicate {inner_pred!r} of block {block.name_hint!r} involves "
                            "inner reduction loops, so the init cannot move to the outer block",
                            func, loop=loop)
    body = BlockRealize(tuple(substitute(v, lmap) for _, v in spatial), substitute(inner_pred, lmap), init_block)
    for var, lp in reversed(copies):
        body = For(var, lp.min, lp.extent, ForKind.SERIAL, body)
    return body


# -- tensorize ------------------------------------------------------------------------------

class _Mismatch(Exception):
    pass


class _MatchState:
    """What matching collects: buffer pairs, loop pairs, and each access with the
    bindings in force (block iterators → loop expressions) on both sides."""

    def __init__(self):
        self.bufs: dict = {}
        self.loops: dict = {}
        self.accesses: list = []
        self.a_env: dict = {}
        self.d_env: dict = {}
        self.bounds: dict = {}  # target loop var -> inclusive (lo, hi), to simplify indices


def _match(a, d, st: _MatchState) -> None:
    """Compare target IR ``a`` with description IR ``d`` (buffers paired, indices recorded)."""
    if isinstance(d, BlockRealize):
        if not isinstance(a, BlockRealize):
            raise _Mismatch(f"expected a block, found {type(a).__name__}")
        for iv, v in zip(a.block.iter_vars, a.iter_values):
            st.a_env[iv.var] = substitute(v, st.a_env)
        for iv, v in zip(d.block.iter_vars, d.iter_values):
            st.d_env[iv.var] = substitute(v, st.d_env)
        _match(a.block.body, d.block.body, st)
        if (a.block.init is None) != (d.block.init is None):
            raise _Mismatch("one side has an init and the other does not")
        return
    if type(a) is not type(d):
        raise _Mismatch(f"expected {type(d).__name__}, found {type(a).__name__}")
    if isinstance(d, For):
        if _arith.as_int(a.extent) != _arith.as_int(d.extent) or _arith.as_int(a.min) != _arith.as_int(d.min):
            raise _Mismatch(f"loop (min {a.min!r}, extent {a.extent!r}) differs from the description's "
                            f"(min {d.min!r}, extent {d.extent!r})")
        st.loops[d.loop_var] = a.loop_var
        lo, ext = _arith.as_int(a.min), _arith.as_int(a.extent)
        if lo is not None and ext is not None:
            st.bounds[a.loop_var] = (lo, lo + ext - 1)
        return _match(a.body, d.body, st)
    if isinstance(d, BufferStore | BufferLoad):
        prev = st.bufs.setdefault(d.buffer, a.buffer)
        if prev is not a.buffer or a.buffer.dtype != d.buffer.dtype:
            raise _Mismatch(f"buffer {a.buffer.name!r} does not correspond to {d.buffer.name!r}")
        st.accesses.append((a, d, dict(st.a_env), dict(st.d_env)))
        if isinstance(d, BufferStore):
            _match(a.value, d.value, st)
        return
    if isinstance(d, IntImm) or type(d).__name__ == "FloatImm":
        if d.value != a.value:
            raise _Mismatch(f"constant {a.value} differs from {d.value}")
        return
    try:
        for name in ("a", "b", "value", "condition", "true_value", "false_value"):
            if hasattr(d, name):
                _match(getattr(a, name), getattr(d, name), st)
        if hasattr(d, "args"):
            if len(a.args) != len(d.args) or a.op is not d.op:
                raise _Mismatch("call differs")
            for x, y in zip(a.args, d.args):
                _match(x, y, st)
    except _Mismatch:
        if not _same_value(a, d, st):  # e.g. (v_o*8 + v_i) % 8 against the description's v % 8
            raise


def _same_value(a, d, st: _MatchState) -> bool:
    """Whether two index-like expressions (no buffer loads) of different shapes are equal once
    both sides' iterators are bound to loops (target loop bounds known), as TVM's comparator
    simplifies before comparing."""
    from ember.ir import PrimExpr
    from ember.tir.functor import collect

    def plain(e):
        return isinstance(e, PrimExpr) and not collect(e, lambda n: isinstance(n, BufferLoad))

    if not (plain(a) and plain(d)) or a.dtype != d.dtype or not (a.dtype.is_int or a.dtype.is_uint):
        return False
    lhs = substitute(a, st.a_env)
    rhs = substitute(substitute(d, st.d_env), st.loops)
    return _arith.as_int(_arith.simplify(lhs - rhs, st.bounds)) == 0


def _check_indices(st: _MatchState, regions: dict) -> None:
    """Each target access must hit, relative to its region, the element the description's
    access hits in its buffer (unit dimensions dropped on both sides)."""
    for a, d, a_env, d_env in st.accesses:
        region = regions.get(id(a.buffer))
        if region is None:
            raise _Mismatch(f"buffer {a.buffer.name!r} is not in the block's regions")
        target = [_arith.simplify(substitute(i, a_env) - r.min, st.bounds) for i, r in zip(a.indices, region.region)]
        desc = [substitute(substitute(i, d_env), st.loops) for i in d.indices]
        t_keep = [t for t, r in zip(target, region.region) if _arith.as_int(r.extent) != 1]
        d_keep = [x for x, s in zip(desc, d.buffer.shape) if _arith.as_int(s) != 1]
        dropped = [t for t, r in zip(target, region.region) if _arith.as_int(r.extent) == 1]
        dropped += [x for x, s in zip(desc, d.buffer.shape) if _arith.as_int(s) == 1]
        same = len(t_keep) == len(d_keep) and all(
            _arith.as_int(_arith.simplify(t - x, st.bounds)) == 0 for t, x in zip(t_keep, d_keep))
        if not same or any(_arith.as_int(_arith.simplify(x, st.bounds)) != 0 for x in dropped):
            raise _Mismatch(f"the access {a.buffer.name}[{', '.join(map(repr, a.indices))}] does not "
                            f"correspond to {d.buffer.name}[{', '.join(map(repr, d.indices))}]")


def _fresh_impl(impl):
    """The implementation's root body and params with fresh Buffers / Vars (one per use)."""
    vmap, bmap = {}, {}
    for buf in impl.buffer_map.values():
        fresh = [x for x in (buf.elem_offset, *buf.strides, *buf.shape) if isinstance(x, Var)]
        for v in fresh:
            vmap.setdefault(v, Var(v.name, v.dtype))
        vmap[buf.data] = Var(buf.data.name, "handle", buf.data.type_annotation)
        new = replace(buf, data=vmap[buf.data],
                      elem_offset=substitute(buf.elem_offset, vmap) if buf.elem_offset is not None else None,
                      strides=tuple(substitute(s, vmap) for s in buf.strides),
                      shape=tuple(substitute(s, vmap) for s in buf.shape))
        bmap[buf] = new
    root = impl.body.block if isinstance(impl.body, BlockRealize) else None
    body = root.body if root is not None and root.name_hint == "root" else impl.body
    body = substitute(ReplaceBuffer(bmap).visit(body), vmap)
    return body, [bmap[impl.buffer_map[p]] for p in impl.params]


def _compact(region) -> bool:
    """True when the region is one contiguous run of a row-major buffer: its non-unit
    dimensions are trailing, and all but the first of them span the whole dimension."""
    extents = [_arith.as_int(r.extent) for r in region.region]
    shape = [_arith.as_int(s) for s in region.buffer.shape]
    nonunit = [k for k, e in enumerate(extents) if e != 1]
    if not nonunit:
        return True
    first = nonunit[0]
    if nonunit != list(range(first, len(extents))):
        return False
    return all(extents[k] == shape[k] and shape[k] is not None for k in range(first + 1, len(extents)))


def tensorize(func, realize: BlockRealize, intrin_name: str):
    intrin = TensorIntrin.get(intrin_name)
    block = realize.block
    desc = intrin.desc
    droot = desc.body.block if isinstance(desc.body, BlockRealize) else None
    dbody = droot.body if droot is not None and droot.name_hint == "root" else desc.body
    st = _MatchState()
    regions = {id(r.buffer): r for r in block.reads + block.writes}
    try:
        _match(block.body, dbody, st)
        _check_indices(st, regions)
    except _Mismatch as err:
        raise ScheduleError(f"tensorize: block {block.name_hint!r} does not match the description of "
                            f"{intrin_name!r}: {err}", func, block=block) from None
    bufs = st.bufs
    matches = []
    body, impl_bufs = _fresh_impl(intrin.impl)
    for p, ibuf in zip(desc.params, impl_bufs):
        dbuf = desc.buffer_map[p]
        target = bufs.get(dbuf)
        if target is None or id(target) not in regions:
            raise ScheduleError(f"tensorize: the description's buffer {dbuf.name!r} is not accessed by block "
                                f"{block.name_hint!r}", func, block=block)
        region = regions[id(target)]
        got = [_arith.as_int(r.extent) for r in region.region if _arith.as_int(r.extent) != 1]
        want = [_arith.as_int(s) for s in dbuf.shape if _arith.as_int(s) != 1]
        if got != want:
            raise ScheduleError(f"tensorize: block {block.name_hint!r} accesses a region of shape {got} of "
                                f"{target.name!r}, but {intrin_name!r} expects {want}", func, block=block)
        if not ibuf.strides and not _compact(region):
            raise ScheduleError(f"tensorize: the region of {target.name!r} used by block {block.name_hint!r} "
                                f"is not contiguous, but {intrin_name!r} expects a compact buffer",
                                func, block=block)
        matches.append(MatchBufferRegion(ibuf, region))
    # the implementation's root-block annotations go onto the tensorized block, as TVM
    iroot = intrin.impl.body.block if isinstance(intrin.impl.body, BlockRealize) else None
    annotations = {**block.annotations, **(iroot.annotations if iroot is not None else {})}
    new_block = replace(block, body=body, match_buffers=tuple(matches), annotations=annotations)
    return replace_stmts(func, {block: new_block})




def tensorize_loop(func, loop: For, intrin_name: str, preserve_unit_iters: bool = True):
    """blockize ``loop`` then tensorize the new block, as one step (all or nothing)."""
    from .analysis import find_block

    func, name = blockize(func, loop, preserve_unit_iters)
    return tensorize(func, find_block(func, name), intrin_name)
