"""``detect_recursion``: the groups of Relax functions of a module that call themselves,
directly or through each other (the strongly connected components of the call graph
that contain a cycle), each group a list of GlobalVars."""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule

from ..expr import Function
from .vars import all_global_vars

__all__ = ["detect_recursion"]


def _call_graph(mod: IRModule) -> dict[str, list[str]]:
    names = {gv.name_hint for gv, f in mod.functions.items() if isinstance(f, Function)}
    graph: dict[str, list[str]] = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            graph[gv.name_hint] = [g.name_hint for g in all_global_vars(func) if g.name_hint in names]
    return graph


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (call graphs can be deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)
    return groups


def detect_recursion(mod: IRModule) -> list[list[GlobalVar]]:
    """Every set of (mutually) recursive Relax functions of ``mod``."""
    graph = _call_graph(mod)
    recursive = [g for g in _strongly_connected(graph) if len(g) > 1 or g[0] in graph[g[0]]]
    return [[mod.get_global_var(name) for name in group] for group in recursive]
