"""The three facts TVM's ScheduleState keeps per block (``CachedFlags``), computed on demand.

* ``affine_binding``: the block's iterator bindings are an affine (surjective) map of the
  loops between the block and its parent block, under its predicate.  A block without
  loops above it (the root) counts as affine when it has no iterators.
* ``region_cover``: for each buffer the block reads, the producers in its scope (blocks
  it depends on read-after-write) write, together, at least the region it reads.  Regions
  are compared below the lowest common ancestor of producer and consumer, so a producer
  computed at a loop of its consumer covers only what one iteration of that loop reads.
  The root block counts as covered.
* ``stage_pipeline``: (for a scope block) no child depends on another write-after-read or
  opaquely and every child's reads are covered by its producers, i.e. every buffer inside
  the scope is produced before it is consumed.

Regions are relaxed over loop ranges (block predicates ignored) and clipped to the buffer
shape, as TVM does; a union of several producers' regions is their hull when they touch or
overlap (a lower bound of the covered set).
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.arith.analyzer import Analyzer
from ember.arith.int_set import IntSet, eval_set
from ember.arith.iter_map import detect_iter_map
from ember.ir import IntImm, Range
from ember.tir.functor import substitute
from ember.tir.stmt import Block, BlockRealize, For

from .analysis import path_to, stmt_children

__all__ = ["CachedFlags", "cached_flags"]


@dataclass(frozen=True)
class CachedFlags:
    """TVM's ``tir.schedule.state.CachedFlags``."""

    affine_binding: bool
    region_cover: bool
    stage_pipeline: bool


def cached_flags(func, block: Block) -> CachedFlags:
    """The cached flags of ``block`` (a Block of ``func``)."""
    path, realize = _locate(func, block)
    return CachedFlags(affine_binding=_affine_binding(path, realize),
                       region_cover=_region_cover(func, path, realize),
                       stage_pipeline=stage_pipeline(func, block))


def _locate(func, block: Block):
    """(statements above the block's realize, the realize) — ([], None) for a bare root."""
    body = func.body
    if body is block:
        return [], None
    stack = [body]
    while stack:
        s = stack.pop()
        if isinstance(s, BlockRealize) and s.block is block:
            return path_to(body, s) or [], s
        stack.extend(stmt_children(s))
    raise ValueError(f"block {block.name_hint!r} is not in the function")


def _loops_to_block(path: list) -> list[For]:
    """The loops directly above a statement, up to the nearest enclosing block."""
    loops = []
    for s in reversed(path):
        if not isinstance(s, For):
            if isinstance(s, BlockRealize | Block):
                break
            continue
        loops.append(s)
    return loops


def _affine_binding(path: list, realize: BlockRealize | None) -> bool:
    if realize is None or not path:
        block = realize.block if realize is not None else None
        return block is None or not block.iter_vars
    loops = _loops_to_block(path)
    if not loops:
        return True
    doms = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    res = detect_iter_map(list(realize.iter_values), doms, realize.predicate, "surjective",
                          simplify_trivial_iterators=False)
    if not res.indices:
        return False
    return all(not s.args or _is_one(s.args[0].scale) for s in res.indices)


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


# -- stage pipeline and region cover ------------------------------------------------------

def stage_pipeline(func, block: Block) -> bool:
    from .block_scope import BlockScope, DepKind  # block_scope imports state, which imports this module

    from .analysis import child_blocks

    scope = BlockScope(func, block)
    if any(d.kind in (DepKind.WAR, DepKind.OPAQUE) for deps in scope.dst2deps.values() for d in deps):
        return False
    # a consumer whose producers do not cover what it reads breaks the pipeline too
    for child in child_blocks(block.body):
        if id(child.block) in scope.dst2deps:
            path, realize = _locate(func, child.block)
            if not _region_cover(func, path, realize):
                return False
    return True


def _region_cover(func, path: list, realize: BlockRealize | None) -> bool:
    if realize is None:
        return True
    scope_index = next((k for k in range(len(path) - 1, -1, -1) if isinstance(path[k], BlockRealize | Block)),
                       None)
    if scope_index is None:
        return True
    scope = path[scope_index]
    scope_block = scope.block if isinstance(scope, BlockRealize) else scope
    from .block_scope import BlockScope, DepKind
    deps = BlockScope(func, scope_block).dst2deps.get(id(realize.block), [])
    producers = [d.src.stmt for d in deps if d.kind == DepKind.RAW]
    if not producers:
        return True
    ancestors = [s for s in path[scope_index:] if isinstance(s, For | BlockRealize | Block)]
    by_lca: dict[int, list] = {}
    for producer in producers:
        ppath, prealize = _locate(func, producer)
        lca = next(k for k in range(len(ancestors) - 1, -1, -1)
                   if any(s is ancestors[k] for s in ppath))
        by_lca.setdefault(lca, []).append((ppath, prealize))
    ana = Analyzer()
    for lca, prods in by_lca.items():
        lca_stmt = ancestors[lca]
        for region in realize.block.reads:
            buffer = region.buffer
            produced = []
            for ppath, prealize in prods:
                for w in prealize.block.writes:
                    if w.buffer is buffer:
                        produced.append(_eval_region(w.region, ppath, prealize, lca_stmt, buffer))
            if not produced:
                continue
            consumed = _eval_region(region.region, path, realize, lca_stmt, buffer)
            if not _covers(buffer.shape, _union_lower_bound(produced, ana), consumed, ana):
                return False
    return True


def _eval_region(region, path, realize: BlockRealize, lca_stmt, buffer) -> list:
    """The region (block iterators replaced by their bindings) relaxed over the loops
    between the block and ``lca_stmt`` (and thread loops the buffer's scope shares)."""
    binding = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    dom = {}
    k = len(path) - 1  # the loops up to the LCA; a SeqStmt between two of them does not end the walk
    while k >= 0 and path[k] is not lca_stmt and not isinstance(path[k], Block | BlockRealize):
        if isinstance(path[k], For):
            dom[path[k].loop_var] = Range(path[k].min, path[k].extent)
        k -= 1
    scope = getattr(buffer, "scope", lambda: "global")
    scope = scope() if callable(scope) else scope
    if scope not in ("global", ""):
        for s in path[: k + 1]:
            if isinstance(s, For) and s.thread_binding is not None and _can_relax(scope, s.thread_binding.thread_tag):
                dom[s.loop_var] = Range(s.min, s.extent)
    out = []
    for rng in region:
        lo = substitute(rng.min, binding)
        hi = substitute(rng.min + rng.extent - 1, binding)
        out.append(IntSet(eval_set(lo, dom).min_value, eval_set(hi, dom).max_value))
    return out


_STORAGE_RANK = {"global": 0, "shared": 1, "shared.dyn": 1, "warp": 2, "local": 3}


def _can_relax(scope: str, tag: str) -> bool:
    rank = _STORAGE_RANK.get(scope.split(".")[0] if scope != "shared.dyn" else scope, 0)
    if rank == 2:
        return tag == "threadIdx.x"
    thread_rank = 0 if tag.startswith("blockIdx") else 1
    return rank <= thread_rank


def _union_lower_bound(regions: list, ana: Analyzer) -> list:
    out = []
    for dim in range(len(regions[0])):
        lo, hi = regions[0][dim].min_value, regions[0][dim].max_value
        for region in regions[1:]:
            nlo, nhi = region[dim].min_value, region[dim].max_value
            apart = ana.can_prove(nlo - hi >= 2) or ana.can_prove(lo - nhi >= 2)
            if not apart:
                lo, hi = ana.simplify(_min(lo, nlo)), ana.simplify(_max(hi, nhi))
        out.append(IntSet(lo, hi))
    return out


def _min(a, b):
    from ember.ir import Min

    return Min(a, b)


def _max(a, b):
    from ember.ir import Max

    return Max(a, b)


def _covers(shape, produced: list, consumed: list, ana: Analyzer) -> bool:
    for extent, p, c in zip(shape, produced, consumed):
        zero = IntImm(extent.dtype, 0) if hasattr(extent, "dtype") else 0
        plo, phi = ana.simplify(_max(p.min_value, zero)), ana.simplify(_min(p.max_value, extent - 1))
        clo, chi = ana.simplify(_max(c.min_value, zero)), ana.simplify(_min(c.max_value, extent - 1))
        try:
            if not ana.can_prove(plo - clo <= 0) or not ana.can_prove(chi - phi <= 0):
                return False
        except TypeError:  # infinite ends
            return False
    return True
