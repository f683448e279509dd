"""``RewriteParallelVectorizeUnroll``: turns the root block's ``meta_schedule.parallel /
vectorize / unroll_*`` marks into loop kinds on every loop nest of the root scope.

* parallel: the leading loops that are spatial for every block below are fused until
  their product reaches the limit, and run in parallel;
* vectorize: each innermost loop whose variable indexes the last dimension of its block's
  output (a spatial iterator) is vectorised; one longer than the limit is split first by
  its largest divisor within the limit that is a multiple of 16, 8 or 4;
* unroll: the outermost loop of each nest gets ``pragma_auto_unroll_max_step`` (and
  ``pragma_unroll_explicit``), which UnrollLoop honours.
A mark that cannot be honoured on a nest is skipped there (the candidate stays valid)."""

from __future__ import annotations

from ember.tir import Block, BlockRealize, For, IterVarType, Var, post_order_visit
from ember.tir.schedule import Schedule, ScheduleError

from ..schedule_rule.parallel_vectorize_unroll import PARALLEL, UNROLL_EXPLICIT, UNROLL_IMPLICIT, VECTORIZE
from ..utils import prim_func_of


def _root_nests(func) -> list[For]:
    root = func.body.block if isinstance(func.body, BlockRealize) else None
    body = root.body if root is not None else func.body
    out = []

    def walk(s):
        if isinstance(s, For):
            out.append(s)
        elif hasattr(s, "seq"):
            for x in s.seq:
                walk(x)

    walk(body)
    return out


def _leaf_blocks(func) -> list[str]:
    names = []
    post_order_visit(func.body, lambda n: names.append(n.name_hint)
                     if isinstance(n, Block) and n.name_hint != "root" else None)
    return names


def _spatial_for_all(loop: For) -> bool:
    ok = [True]

    def visit(n):
        if isinstance(n, BlockRealize):
            for iv, value in zip(n.block.iter_vars, n.iter_values):
                if iv.iter_type != IterVarType.DataPar:
                    used = []
                    post_order_visit(value, lambda v, used=used: used.append(v) if v is loop.loop_var else None)
                    if used:
                        ok[0] = False

    post_order_visit(loop.body, visit)
    return ok[0]


class RewriteParallelVectorizeUnroll:
    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self):
        return self

    def apply(self, sch: Schedule) -> bool:
        root = sch.get_block("root")
        ann = dict(sch.get(root).annotations)
        keys = [k for k in (PARALLEL, VECTORIZE, UNROLL_EXPLICIT, UNROLL_IMPLICIT) if k in ann]
        if not keys:
            return True
        for k in keys:
            sch.unannotate(root, k)
        if PARALLEL in ann:
            self._parallel(sch, int(ann[PARALLEL]))
        if VECTORIZE in ann:
            self._vectorize(sch, int(ann[VECTORIZE]))
        unroll = int(ann.get(UNROLL_EXPLICIT, ann.get(UNROLL_IMPLICIT, 0)) or 0)
        if unroll > 0:
            for name in self._nest_heads(sch):
                loop = sch.get_loops(sch.get_block(name))[0]
                sch.annotate(loop, "pragma_auto_unroll_max_step", unroll)
                sch.annotate(loop, "pragma_unroll_explicit", int(UNROLL_EXPLICIT in ann))
        return True

    @staticmethod
    def _nest_heads(sch: Schedule) -> list[str]:
        """One leaf block name per root loop nest (to reach the nest's loops through it)."""
        out = []
        for nest in _root_nests(prim_func_of(sch.mod)[1]):
            names = []
            post_order_visit(nest, lambda n, names=names: names.append(n.name_hint) if isinstance(n, Block) else None)
            if names:
                out.append(names[0])
        return out

    def _parallel(self, sch: Schedule, limit: int) -> None:
        for name in self._nest_heads(sch):
            loops = sch.get_loops(sch.get_block(name))
            chosen, prod = [], 1
            for lp in loops:
                node = sch.get(lp)
                if prod >= limit or not hasattr(node.extent, "value") or node.kind.name != "SERIAL" \
                        or not _spatial_for_all(node):
                    break
                if chosen and sch.get(chosen[-1]).body is not node:
                    break
                chosen.append(lp)
                prod *= int(node.extent.value)
            if not chosen:
                continue
            try:  # legal by construction (perfectly nested, spatial for every block below)
                fused = sch.fuse(*chosen) if len(chosen) > 1 else chosen[0]
                sch.parallel(fused)
            except ScheduleError:
                pass  # e.g. a loop-carried dependence: the nest stays serial

    def _vectorize(self, sch: Schedule, limit: int) -> None:
        from ember.tir.schedule.analysis import find_block

        for name in _leaf_blocks(prim_func_of(sch.mod)[1]):
            block = sch.get_block(name)
            loops = sch.get_loops(block)
            if not loops:
                continue
            node = sch.get(loops[-1])
            realize = find_block(prim_func_of(sch.mod)[1], name)
            blk = realize.block
            if node.kind.name != "SERIAL" or not hasattr(node.extent, "value") or \
                    int(node.extent.value) < 2 or not blk.writes or not isinstance(node.body, BlockRealize):
                continue
            last = blk.writes[0].region[-1].min
            iters = {iv.var for iv, v in zip(blk.iter_vars, realize.iter_values) if _uses(v, node.loop_var)}
            if not any(_uses(last, v) for v in iters) or \
                    any(iv.iter_type != IterVarType.DataPar for iv in blk.iter_vars if iv.var in iters):
                continue
            extent, loop = int(node.extent.value), loops[-1]
            try:
                if extent > limit:  # a long row: vectorise a divisor-sized inner part
                    lanes = _vector_part(extent, limit)
                    if lanes is None:
                        continue
                    loop = sch.split(loop, factors=[None, lanes])[1]
                sch.vectorize(loop)
            except ScheduleError:
                pass


def _vector_part(extent: int, limit: int) -> int | None:
    """The largest divisor of ``extent`` up to ``limit`` that fills whole vectors (a
    multiple of 16, else 8, else 4), or None."""
    for unit in (16, 8, 4):
        for d in range(limit - limit % unit, unit - 1, -unit):
            if extent % d == 0:
                return d
    return None


def _uses(expr, var: Var) -> bool:
    found = []
    post_order_visit(expr, lambda n: found.append(n) if n is var else None)
    return bool(found)
