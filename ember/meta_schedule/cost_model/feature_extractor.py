"""``PerBlockFeature``: numeric features of each leaf block of a scheduled kernel.

For every leaf block (the statement that computes), read off the scheduled TensorIR
(before lowering): the loop nest around it (iterations, depth, innermost extent), its
parallel / vectorised / unrolled extents and auto-unroll limit, its arithmetic per
iteration and in total, and for up to four buffer accesses the stride along the
innermost loop, the reuse (iterations that touch the same element) and the footprint.
All values are log2(1 + x) scaled.  ``PerStoreFeature`` is TVM's name for it."""

from __future__ import annotations

import math

import numpy as np
from ember.tir import (Add, Block, BlockRealize, BufferLoad, Call, Cast, FloatImm, FloorDiv, FloorMod, For,
                       ForKind, IntImm, Max, Min, Mul, Sub, Var, post_order_visit)

from ..utils import prim_func_of

N_ACCESS = 4
N_LOOP = 11
N_PER_ACCESS = 6
N_FEATURES = N_LOOP + N_ACCESS * N_PER_ACCESS


def _log(x: float) -> float:
    return math.log2(1.0 + max(float(x), 0.0))


def _extent(loop: For) -> int:
    return int(loop.extent.value) if isinstance(loop.extent, IntImm) else 1


def coef(expr, var) -> float | None:
    """Coefficient of ``var`` in ``expr`` when ``expr`` is linear in it, else None."""
    if expr is var:
        return 1.0
    if isinstance(expr, Var | IntImm | FloatImm):
        return 0.0
    if isinstance(expr, Cast):
        return coef(expr.value, var)
    if isinstance(expr, Add | Sub):
        a, b = coef(expr.a, var), coef(expr.b, var)
        return None if a is None or b is None else (a + b if isinstance(expr, Add) else a - b)
    if isinstance(expr, Mul):
        for x, y in ((expr.a, expr.b), (expr.b, expr.a)):
            if isinstance(y, IntImm):
                c = coef(x, var)
                return None if c is None else c * y.value
        a, b = coef(expr.a, var), coef(expr.b, var)
        return 0.0 if a == 0 and b == 0 else None
    if isinstance(expr, FloorDiv | FloorMod):
        c = coef(expr.a, var)
        if c == 0:
            return 0.0
        if isinstance(expr, FloorDiv) and isinstance(expr.b, IntImm) and c is not None:
            return c / expr.b.value
        return c if isinstance(expr, FloorMod) else None
    return None


def _ops(block: Block) -> int:
    count = [0]
    arith = (Add, Sub, Mul, Max, Min, Call, FloorDiv, FloorMod)
    post_order_visit(block.body, lambda n: count.__setitem__(0, count[0] + 1) if isinstance(n, arith) else None)
    return count[0]


def _access_rows(block: Block, realize: BlockRealize, loops: list) -> list:
    binding = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
    accesses = []
    post_order_visit(block.body, lambda n: accesses.append(n) if isinstance(n, BufferLoad) else None)
    stores = [block.body] if hasattr(block.body, "buffer") and hasattr(block.body, "value") else []
    rows = []
    inner = loops[-1] if loops else None
    for acc in stores + accesses[:N_ACCESS - len(stores)]:
        shape = [int(d.value) if isinstance(d, IntImm) else 1 for d in acc.buffer.shape]
        strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]

        def loop_coef(loop, acc=acc, strides=strides):
            total = 0.0
            for index, stride in zip(acc.indices, strides):
                for iv, value in binding.items():
                    a = coef(index, iv)
                    if a is None:
                        return None
                    if a:
                        b = coef(value, loop.loop_var)
                        if b is None:
                            return None
                        total += a * b * stride
                b = coef(index, loop.loop_var)
                if b is None:
                    return None
                total += b * stride
            return total

        used, reuse = 1, 1
        for lp in loops:
            c = loop_coef(lp)
            if c == 0:
                reuse *= _extent(lp)
            else:
                used *= _extent(lp)
        stride = loop_coef(inner) if inner is not None else 0.0
        stride = 1e6 if stride is None else abs(stride)
        bytes_ = used * max(acc.buffer.dtype.bits // 8, 1)
        rows.extend([_log(stride), float(stride == 0), float(stride == 1), _log(reuse), _log(bytes_),
                     float(any(acc is s for s in stores))])
    rows.extend([0.0] * (N_ACCESS * N_PER_ACCESS - len(rows)))
    return rows


def block_features(func) -> np.ndarray:
    """One row of ``N_FEATURES`` per leaf block of ``func``."""
    rows = []

    def walk(stmt, loops):
        if isinstance(stmt, For):
            walk(stmt.body, loops + [stmt])
        elif isinstance(stmt, BlockRealize):
            block = stmt.block
            children = []
            post_order_visit(block.body, lambda n: children.append(n) if isinstance(n, BlockRealize) else None)
            if children:
                walk(block.body, loops)
                if block.init is not None:
                    walk(block.init, loops)
                return
            iters = float(np.prod([_extent(lp) for lp in loops])) if loops else 1.0
            kinds = {k: float(np.prod([_extent(lp) for lp in loops if lp.kind == k] or [1]))
                     for k in (ForKind.PARALLEL, ForKind.VECTORIZED, ForKind.UNROLLED)}
            auto = max([int(getattr(lp.annotations.get("pragma_auto_unroll_max_step"), "value",
                                    lp.annotations.get("pragma_auto_unroll_max_step", 0)) or 0) for lp in loops] or [0])
            ops = _ops(block)
            rows.append([_log(iters), float(len(loops)), _log(kinds[ForKind.PARALLEL]),
                         _log(kinds[ForKind.VECTORIZED]), _log(kinds[ForKind.UNROLLED]), _log(auto),
                         _log(_extent(loops[-1]) if loops else 1), float(ops), _log(ops * iters),
                         float(block.init is not None or any(iv.iter_type.name == "CommReduce" for iv in block.iter_vars)),
                         float(len(block.reads) + len(block.writes))] + _access_rows(block, stmt, loops))
        else:
            for child in _children(stmt):
                walk(child, loops)

    walk(func.body, [])
    return np.asarray(rows or [[0.0] * N_FEATURES], dtype=np.float32)


def _children(stmt) -> list:
    if hasattr(stmt, "seq"):
        return list(stmt.seq)
    out = []
    for name in ("body", "then_case", "else_case"):
        child = getattr(stmt, name, None)
        if child is not None and not isinstance(child, list | tuple | str | int):
            out.append(child)
    return out


class PerBlockFeature:
    """``extract_from(context, candidates) -> list[np.ndarray]`` (rows: leaf blocks)."""

    feature_vector_length = N_FEATURES

    def extract_from(self, context, candidates) -> list[np.ndarray]:
        return [block_features(prim_func_of(c.sch.mod)[1]) for c in candidates]


PerStoreFeature = PerBlockFeature


def pooled(features: np.ndarray) -> np.ndarray:
    """A fixed-length vector per candidate: the sum and the max over its blocks."""
    return np.concatenate([features.sum(axis=0), features.max(axis=0)])
