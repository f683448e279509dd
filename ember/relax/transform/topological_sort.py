"""TopologicalSort: reorder the bindings of every dataflow block in a chosen topological order.

``order`` is "depth-first" or "breadth-first"; ``direction`` is "from-inputs" (walk forward
from the block's inputs: parameters, variables bound before the block, then bindings that
need nothing) or "from-outputs" (walk backward from the block's outputs, in the order the
code after the block first uses them, then from bindings nobody uses, and reverse the walk).
Ties keep the existing order.  A binding is emitted only once everything it needs is, so the
result is always legal.  Only dataflow blocks are sorted: their bindings are pure.
"""

from __future__ import annotations

from collections import deque

from ember.transform import Pass

from ..analysis.symbolic_vars import tir_vars_in_struct_info
from ..analysis.vars import free_vars
from ..expr import DataflowBlock, DataflowVar, Function, MatchCast, SeqExpr, Var
from .pass_wrappers import relax_module_pass

__all__ = ["TopologicalSort"]

_ORDERS = ("depth-first", "breadth-first")
_DIRECTIONS = ("from-inputs", "from-outputs")


def _expr_var_uses(expr) -> list:
    """Relax vars an expression reads, in order of first appearance (nested functions included)."""
    return free_vars(expr)


def _dependencies(bindings) -> list[list[int]]:
    """For each binding, the indices of earlier bindings of the block it reads (in argument order)."""
    index_of_var = {b.var: i for i, b in enumerate(bindings)}
    index_of_tir_var = {}
    deps = []
    for i, b in enumerate(bindings):
        found: list[int] = []
        for v in _expr_var_uses(b.value):
            j = index_of_var.get(v)
            if j is not None and j not in found:
                found.append(j)
        sinfo = b.var.struct_info_or_none()
        for tv in tir_vars_in_struct_info(sinfo) if sinfo is not None else ():
            j = index_of_tir_var.get(tv)
            if j is not None and j != i and j not in found:
                found.append(j)
        if isinstance(b, MatchCast):
            for tv in tir_vars_in_struct_info(b.struct_info):
                index_of_tir_var.setdefault(tv, i)
        deps.append(found)
    return deps


def _walk(roots: list[int], children: list[list[int]], parents: list[list[int]], depth_first: bool,
          n: int) -> list[int]:
    """Kahn's walk: a node is released once all its parents are out; ties by list order."""
    remaining = [len(set(p)) for p in parents]
    order: list[int] = []
    pending = deque()

    def release(nodes):
        ready = [c for c in nodes if remaining[c] == 0]
        if depth_first:
            pending.extend(reversed(ready))
        else:
            pending.extend(ready)

    release(roots)
    while pending:
        node = pending.pop() if depth_first else pending.popleft()
        order.append(node)
        newly = []
        for c in children[node]:
            remaining[c] -= 1
            if remaining[c] == 0:
                newly.append(c)
        release(newly)
    if len(order) != n:  # a cycle cannot happen in SSA; keep every binding anyway
        order += [i for i in range(n) if i not in order]
    return order


def _sort_from_inputs(bindings, deps, inputs: list, depth_first: bool) -> list[int]:
    n = len(bindings)
    # node ids: bindings 0..n-1, then one node per outside input
    input_ids = {v: n + k for k, v in enumerate(inputs)}
    total = n + len(inputs)
    parents: list[list[int]] = [[] for _ in range(total)]
    children: list[list[int]] = [[] for _ in range(total)]
    for i, b in enumerate(bindings):
        ups = list(deps[i])
        for v in _expr_var_uses(b.value):
            k = input_ids.get(v)
            if k is not None and k not in ups:
                ups.append(k)
        parents[i] = ups
        for u in ups:
            children[u].append(i)
    roots = [input_ids[v] for v in inputs] + [i for i in range(n) if not parents[i]]
    order = _walk(roots, children, parents, depth_first, total)
    return [i for i in order if i < n]


def _sort_from_outputs(bindings, deps, output_order: list[int], depth_first: bool) -> list[int]:
    n = len(bindings)
    users: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in deps[i]:
            users[j].append(i)
    sink = n  # stands for "used after the block"
    parents = [list(u) for u in users] + [[]]
    children = [list(d) for d in deps] + [[]]
    for i in output_order:
        parents[i].append(sink)
    unused = [i for i in range(n) if not users[i] and i not in output_order]
    children[sink] = list(output_order)
    # the backward walk takes the last candidate first, so that reversing it puts the first first
    rev_children = [list(reversed(c)) for c in children]
    roots = list(reversed(unused + [sink]))
    order = _walk(roots, rev_children, parents, depth_first, n + 1)
    return [i for i in reversed(order) if i < n]


def _uses_after(blocks, body) -> list:
    """Vars read after a block (later bindings, then the body) in order of first use."""
    seen: list = []
    marks: set = set()
    for block in blocks:
        for b in block.bindings:
            for v in _expr_var_uses(b.value):
                if v not in marks:
                    marks.add(v)
                    seen.append(v)
    for v in _expr_var_uses(body):
        if v not in marks:
            marks.add(v)
            seen.append(v)
    return seen


def _sort_block(block, params, earlier_vars, later_uses, order: str, direction: str):
    bindings = list(block.bindings)
    if len(bindings) < 2:
        return block
    deps = _dependencies(bindings)
    depth_first = order == "depth-first"
    if direction == "from-inputs":
        bound = {b.var for b in bindings}
        inputs = list(params) + [v for v in earlier_vars if v not in params]
        extra = [v for b in bindings for v in _expr_var_uses(b.value) if v not in bound and v not in inputs]
        inputs += list(dict.fromkeys(extra))
        new_order = _sort_from_inputs(bindings, deps, inputs, depth_first)
    else:
        position = {b.var: i for i, b in enumerate(bindings)}
        outputs = [position[v] for v in later_uses if v in position]
        outputs += [i for i, b in enumerate(bindings) if not isinstance(b.var, DataflowVar)
                    and i not in outputs]
        new_order = _sort_from_outputs(bindings, deps, outputs, depth_first)
    if new_order == list(range(len(bindings))):
        return block
    return DataflowBlock([bindings[i] for i in new_order])


def _sort_function(func: Function, order: str, direction: str) -> Function:
    body = func.body
    if not isinstance(body, SeqExpr):
        return func
    blocks = list(body.blocks)
    changed = False
    earlier: list = []
    for k, block in enumerate(blocks):
        if isinstance(block, DataflowBlock):
            later = _uses_after(blocks[k + 1:], body.body) if direction == "from-outputs" else []
            new = _sort_block(block, func.params, earlier, later, order, direction)
            if new is not block:
                blocks[k] = new
                changed = True
        earlier += [b.var for b in block.bindings if isinstance(b.var, Var)]
    if not changed:
        return func
    return Function(func.params, SeqExpr(blocks, body.body), func.ret_struct_info, func.is_pure, func.attrs)


def TopologicalSort(order: str = "depth-first", direction: str = "from-inputs") -> Pass:  # noqa: N802
    """Sort each dataflow block's bindings (see the module docstring)."""
    if order not in _ORDERS:
        raise ValueError(f"TopologicalSort: order must be one of {_ORDERS}, got {order!r}")
    if direction not in _DIRECTIONS:
        raise ValueError(f"TopologicalSort: direction must be one of {_DIRECTIONS}, got {direction!r}")
    return relax_module_pass(lambda f, mod: _sort_function(f, order, direction), "TopologicalSort")
