"""``domain_touched``: the region of a buffer a statement reads and/or writes.

Every load (``consider_loads``) and store (``consider_stores``) of the buffer inside the
statement contributes its indices, each relaxed over the ranges of the loops around it;
the result is one ``Range`` per dimension covering all of them (an empty list when the
statement never touches the buffer that way).  TVM exposes it as
``tvm.arith._ffi_api.DomainTouched``.
"""

from __future__ import annotations

from ember.ir import Range

from .analyzer import Analyzer
from .int_set import IntSet, eval_set, union

__all__ = ["domain_touched"]


def domain_touched(stmt, buffer, consider_loads: bool, consider_stores: bool) -> list:
    """Per-dimension ``Range`` of ``buffer`` touched by ``stmt``."""
    from ember.tir import BufferLoad, BufferStore, For  # statements live a layer above

    per_dim: list[list[IntSet]] = [[] for _ in buffer.shape]
    ana = Analyzer()
    loops: dict = {}

    def touch(indices):
        for d, sets in zip(range(len(per_dim)), eval_set(list(indices), dict(loops), ana)):
            per_dim[d].append(sets)

    def walk(node):
        if isinstance(node, For):
            loops[node.loop_var] = Range(node.min, node.extent)
            walk_children(node)
            del loops[node.loop_var]
            return
        if isinstance(node, BufferLoad) and consider_loads and node.buffer.same_as(buffer):
            touch(node.indices)
        if isinstance(node, BufferStore) and consider_stores and node.buffer.same_as(buffer):
            touch(node.indices)
        walk_children(node)

    def walk_children(node):
        from ember.ir import Node, fields_of

        for name in fields_of(type(node)):
            value = getattr(node, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, Node):
                    walk(item)

    walk(stmt)
    if not any(per_dim):
        return []
    out = []
    for sets in per_dim:
        s = union(sets, ana)
        lo, hi = ana.simplify(s.min_value), ana.simplify(s.max_value)
        out.append(Range(lo, ana.simplify(hi - lo + 1)))
    return out
