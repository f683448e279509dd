"""``decompose_padding``: split a padding block into "fill with the pad value" and "copy in-bounds".

A padding block stores ``buf[...] = T.if_then_else(cond, value, pad)`` with a constant
``pad``.  ``decompose_padding(block, loop)`` places, just before ``loop``, a copy of the
loops from ``loop`` down with a block ``<name>_pad_const`` that writes ``pad`` everywhere,
and trims the original block to the in-bound part, where ``cond`` holds:

* each block iterator's in-bound range comes from ``cond`` (a conjunction of bounds on the
  iterators' bindings, e.g. ``3 <= h and h < 228``): the iterator is renumbered from 0
  (``h = h' + 3``), so the block computes ``buf[h' + 3] = value[h := h' + 3]``;
* an iterator bound directly to a loop of the single-child loop chain above the block
  (up to ``loop``) shrinks that loop; otherwise the binding is shifted and ``cond``, in
  loop variables, becomes the block's predicate.

Refused: a block that is not a padding computation (body, value, non-constant pad), a
condition that is always true (nothing to decompose), conditions that couple several
iterators, and a loop that is not above the block.
"""

from __future__ import annotations

from ember.arith.analyzer import Analyzer
from ember.ir import GE, GT, LE, LT, And, Call, FloatImm, IntImm, Range, Var, const, replace
from ember.tir.buffer import BufferRegion
from ember.tir.functor import substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, seq

from .analysis import path_to, replace_stmts, vars_in
from .errors import ScheduleError

__all__ = ["decompose_padding", "can_decompose_padding"]


def can_decompose_padding(func, realize: BlockRealize, loop: For) -> bool:
    try:
        decompose_padding(func, realize, loop)
    except ScheduleError:
        return False
    return True


def decompose_padding(func, realize: BlockRealize, loop: For):
    """Returns (func, name of the pad-filling block)."""
    block = realize.block
    if block.init is not None or any(iv.iter_type != IterVarType.DataPar for iv in block.iter_vars):
        raise ScheduleError(f"decompose_padding: block {block.name_hint!r} is not a complete block (only "
                            "spatial iterators, no init)", func, block=block)
    path = path_to(func.body, realize) or []
    loops = []  # innermost first, up to the enclosing block
    for s in reversed(path):
        if isinstance(s, Block | BlockRealize):
            break
        if isinstance(s, For):
            loops.append(s)
    if not any(lp is loop for lp in loops):
        raise ScheduleError(f"decompose_padding: loop {loop.loop_var.name!r} is not above block "
                            f"{block.name_hint!r}", func, block=block)
    ana = Analyzer()
    for lp in loops:
        ana.bind(lp.loop_var, Range(lp.min, lp.extent), allow_override=True)
    store, value, pad, pred = _match(func, realize)
    region = _in_bound_region(func, realize, pred, ana)
    in_bound_pos = _in_bound_position(loops, loop)
    const_nest, const_name = _const_nest(realize, store, pad, loops, loop, ana)
    in_bound_nest = _in_bound_nest(realize, store, value, pred, region, loops, in_bound_pos, ana)
    body = _place(func, loop, in_bound_pos, const_nest, in_bound_nest)
    return body, const_name


def _match(func, realize: BlockRealize):
    block = realize.block
    store = block.body

    def fail(msg):
        return ScheduleError(f"decompose_padding: block {block.name_hint!r} does not match the padding pattern "
                             f"buf[...] = T.if_then_else(cond, value, pad): {msg}", func, block=block)

    if not isinstance(store, BufferStore):
        raise fail("its body is not a single BufferStore")
    call = store.value
    if not (isinstance(call, Call) and getattr(call.op, "name", "") == "tir.if_then_else"):
        raise fail("the stored value is not a T.if_then_else")
    cond, value, pad = call.args
    if not isinstance(pad, IntImm | FloatImm):
        raise fail(f"the pad value {pad} is not a constant")
    binding = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
    pred = _conjuncts(substitute(cond, binding)) + _conjuncts(realize.predicate)
    return store, value, pad, pred


def _conjuncts(e) -> list:
    if isinstance(e, And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    if isinstance(e, Call) and getattr(e.op, "name", "") == "tir.likely":
        return _conjuncts(e.args[0])
    if isinstance(e, IntImm) and e.value:
        return []
    return [e]


def _in_bound_region(func, realize: BlockRealize, pred: list, ana: Analyzer) -> list:
    """Per block iterator, the Range of its binding's values where every conjunct holds."""
    values = list(realize.iter_values)
    lows, highs = [], []
    for v in values:
        b = ana.const_int_bound(v)
        lows.append(b.min_value)
        highs.append(b.max_value)
    trivial = True
    for c in pred:
        if not vars_in(c):
            continue
        if ana.can_prove(c):
            continue
        trivial = False
        bound = _as_bound(c, values, ana)
        if bound is None:
            raise ScheduleError(f"decompose_padding: the padding condition {c} is not a bound on one block "
                                "iterator (the block iterators are not independent with respect to it)",
                                func, block=realize.block)
        k, lo, hi = bound
        if lo is not None:
            lows[k] = max(lows[k], lo)
        if hi is not None:
            highs[k] = min(highs[k], hi)
    if trivial:
        raise ScheduleError(f"decompose_padding: the padding condition of block {realize.block.name_hint!r} is "
                            "always true; there is no padding to decompose", func, block=realize.block)
    out = []
    for v, lo, hi in zip(values, lows, highs):
        out.append(Range(const(lo, v.dtype), const(max(hi - lo + 1, 0), v.dtype)))
    return out


def _as_bound(c, values, ana: Analyzer):
    """(iterator index, inclusive lower or None, inclusive upper or None) for ``c``."""
    if not isinstance(c, LT | LE | GT | GE):
        return None
    a, b = c.a, c.b
    if isinstance(c, GT | GE):  # a > b  ==  b < a
        a, b = b, a
    strict = isinstance(c, LT | GT)
    ca, cb = ana.simplify(a), ana.simplify(b)
    for k, v in enumerate(values):
        if isinstance(cb, IntImm):  # v + d < cb
            d = ana.simplify(ca - v)
            if isinstance(d, IntImm):
                return k, None, cb.value - d.value - (1 if strict else 0)
        if isinstance(ca, IntImm):  # ca < v + d
            d = ana.simplify(cb - v)
            if isinstance(d, IntImm):
                return k, ca.value - d.value + (1 if strict else 0), None
    return None


def _in_bound_position(loops: list[For], loop: For) -> For:
    """The highest loop, not above ``loop``, of the single-child loop chain above the block."""
    pos = None
    for lp in loops:  # innermost first
        if lp is loop:
            return lp if pos is None or _single(loops, lp) else pos
        if not isinstance(lp.body, For | BlockRealize):
            return pos if pos is not None else lp
        pos = lp
    return pos


def _single(loops, lp) -> bool:
    """Whether every loop from the innermost up to (excluding) ``lp`` is the only child of its parent."""
    for x in loops:
        if x is lp:
            return True
        if not isinstance(x.body, For | BlockRealize):
            return False
    return True


def _const_nest(realize: BlockRealize, store: BufferStore, pad, loops, top: For, ana: Analyzer):
    block = realize.block
    repl = {}
    ivs = []
    for iv in block.iter_vars:
        var = Var(iv.var.name, iv.var.dtype)
        ivs.append(IterVar(iv.dom, var, IterVarType.DataPar))
        repl[iv.var] = var
    chain = []
    for lp in loops:
        var = Var(lp.loop_var.name, lp.loop_var.dtype)
        repl[lp.loop_var] = var
        chain.append((lp, var))
        if lp is top:
            break

    def rw(e):
        return ana.simplify(substitute(e, repl))

    write = block.writes[0]
    writes = (BufferRegion(write.buffer, tuple(Range(rw(r.min), rw(r.extent)) for r in write.region)),)
    new_store = replace(store, value=pad, indices=tuple(rw(i) for i in store.indices))
    name = block.name_hint + "_pad_const"
    new_block = Block(tuple(ivs), (), writes, name, new_store)
    nest = BlockRealize(tuple(rw(v) for v in realize.iter_values), rw(realize.predicate), new_block)
    for lp, var in chain:
        nest = For(var, lp.min, lp.extent, ForKind.SERIAL, nest)
    return nest, name


def _in_bound_nest(realize: BlockRealize, store: BufferStore, value, pred, region, loops, pos: For,
                   ana: Analyzer):
    block = realize.block
    ranges = {}
    for lp in loops:
        ranges[lp.loop_var] = Range(lp.min, lp.extent)
        if lp is pos:
            break
    repl, ivs, bindings = {}, [], []
    for iv, v, rng in zip(block.iter_vars, realize.iter_values, region):
        var = Var(iv.var.name, iv.var.dtype)
        new_range = Range(const(0, var.dtype), rng.extent)
        ivs.append(IterVar(new_range, var, IterVarType.DataPar))
        repl[iv.var] = var + rng.min
        if isinstance(v, Var) and v in ranges:
            # the binding is a loop of the chain: shrink the loop instead of a predicate
            ranges[v] = new_range
            bindings.append(v)
            repl[v] = v + rng.min
            ana.bind(v, new_range, allow_override=True)
        else:
            bindings.append(ana.simplify(v - rng.min))

    def rw(e):
        return ana.simplify(substitute(e, repl))

    def rw_region(r):
        return BufferRegion(r.buffer, tuple(Range(rw(x.min), rw(x.extent)) for x in r.region))

    new_store = replace(store, value=rw(value), indices=tuple(rw(i) for i in store.indices))
    new_block = Block(tuple(ivs), tuple(rw_region(r) for r in block.reads),
                      tuple(rw_region(r) for r in block.writes), block.name_hint, new_store)
    predicate = None
    for c in pred:
        predicate = c if predicate is None else And(predicate, c)
    predicate = const(True, "bool") if predicate is None else predicate
    nest = BlockRealize(tuple(bindings), rw(predicate), new_block)
    for lp in loops:
        rng = ranges.get(lp.loop_var)
        nest = replace(lp, min=rng.min, extent=rng.extent, body=nest)
        if lp is pos:
            break
    return nest


def _place(func, const_pos: For, in_bound_pos: For, const_nest, in_bound_nest):
    if const_pos is in_bound_pos:
        return replace_stmts(func, {const_pos: seq(const_nest, in_bound_nest)})
    func = replace_stmts(func, {in_bound_pos: in_bound_nest})
    from .analysis import find_loop

    top = find_loop(func, const_pos.loop_var)
    return replace_stmts(func, {top: seq(const_nest, top)})
