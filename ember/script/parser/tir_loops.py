"""Parsing ``for`` loops: ``range``, ``T.grid`` and the loop-kind words of ``T``.

Each loop variable takes the dtype of its extent; ``T.thread_binding`` records an
IterVar over the loop's range tagged with the thread axis, as ``Schedule.bind`` does.
"""

from __future__ import annotations

import ast
import builtins

from ember.ir import PrimExpr, Range, Var, as_expr, const
from ember.script.tir import frames as W
from ember.script.tir.exprs import range_from_bounds
from ember.tir.stmt import For, ForKind, IterVar, IterVarType

from .tir_stmts import TIRParser

__all__ = ["FOR_WORDS", "parse_for"]


_LOOP_KINDS = {
    W.serial: ForKind.SERIAL, W.parallel: ForKind.PARALLEL, W.vectorized: ForKind.VECTORIZED,
    W.unroll: ForKind.UNROLLED, W.thread_binding: ForKind.THREAD_BINDING,
}


def _bounds(start, stop) -> tuple[PrimExpr, PrimExpr]:
    """(min, extent) of ``range(start)`` / ``range(start, stop)``."""
    if stop is None:
        extent = as_expr(start)
        return const(0, extent.dtype), extent
    if not isinstance(start, PrimExpr) and isinstance(stop, PrimExpr):
        start = const(start, stop.dtype)
    r = range_from_bounds(start, stop)
    return r.min, r.extent


def _loop_specs(p: TIRParser, call: ast.Call, func) -> list[dict]:
    """One dict (min, extent, kind, thread_binding, annotations) per loop the iterable makes."""
    if func is W.grid:
        args, kwargs = p.eval_args(call)
        if kwargs or not args:
            raise p.error(call, "T.grid expects one or more extents and no keywords")
        return [dict(zip(("min", "extent"), _bounds(e, None)), kind=ForKind.SERIAL) for e in args]
    if func is builtins.range:
        args, kwargs = p.eval_args(call)
        annotations = kwargs.pop("annotations", None)  # range(0, n, annotations={...}), as TVM
        if kwargs or not 1 <= len(args) <= 2:
            raise p.error(call, f"range(...) in TVMScript takes 1 or 2 arguments (and annotations=), "
                                f"got {len(args)}")
        lo, ext = _bounds(args[0], args[1] if len(args) > 1 else None)
        return [dict(min=lo, extent=ext, kind=ForKind.SERIAL, annotations=dict(annotations or {}))]
    args = p.bind(call, func)
    if func is W.thread_binding and isinstance(args["stop"], str) and args["thread"] is None:
        args["stop"], args["thread"] = None, args["stop"]  # T.thread_binding(128, "threadIdx.x")
    lo, ext = _bounds(args["start"], args["stop"])
    spec = dict(min=lo, extent=ext, kind=_LOOP_KINDS[func], annotations=dict(args["annotations"] or {}))
    if func is W.thread_binding:
        thread = args["thread"]
        if not isinstance(thread, str):
            raise p.error(call, f"T.thread_binding: 'thread' must name a thread axis such as "
                                f"\"threadIdx.x\", got {thread!r}")
        spec["thread"] = thread
    return [spec]


FOR_WORDS = set(_LOOP_KINDS) | {W.grid, builtins.range}


def parse_for(p: TIRParser, node: ast.For):
    func = p.callee(node.iter)
    if not any(func is word for word in FOR_WORDS):
        raise p.error(node.iter, "a loop must iterate over range(...), T.grid, T.serial, "
                                 "T.parallel, T.vectorized, T.unroll or T.thread_binding")
    specs = _loop_specs(p, node.iter, func)
    for spec in specs:
        for key in ("extent", "min"):
            dtype = spec[key].dtype
            if not (dtype.is_int or dtype.is_uint) or dtype.lanes != 1:
                raise p.error(node.iter, f"a loop {key} must be an integer, got {spec[key]} of dtype {dtype}")
    names = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
    groups: list[tuple[str, int, int]] = []  # (name, first, count): a name bound to a list of vars
    if len(names) == 1 and len(specs) > 1 and isinstance(names[0], ast.Name):
        names = [ast.Starred(value=names[0])]  # `for idx in T.grid(4, 4):` binds the list
    starred = [k for k, n in enumerate(names) if isinstance(n, ast.Starred)]
    if len(starred) == 1 and len(specs) >= len(names) - 1:
        k = starred[0]  # `for *outer, r in T.grid(...)`: the starred name takes the rest
        star = names[k].value
        if not isinstance(star, ast.Name):
            raise p.error(names[k], "a starred loop target must be a plain name")
        count = len(specs) - (len(names) - 1)
        groups.append((star.id, k, count))
        names = names[:k] + [ast.Name(id=f"{star.id}_{j}", ctx=ast.Store()) for j in range(count)] \
            + names[k + 1:]
    if len(names) != len(specs):
        raise p.error(node.target, f"the loop makes {len(specs)} variables but {len(names)} "
                                   "names are given")
    loop_vars = []
    for name_node, spec in zip(names, specs):
        name = p.target_name(name_node)
        var = Var(name, spec["extent"].dtype)
        p.scope.define(name, var)
        p.loops[id(var)] = (var, spec["min"], spec["extent"])
        loop_vars.append(var)
    for group, first, count in groups:
        p.scope.define(group, list(loop_vars[first:first + count]))
    try:
        body = p.parse_body(node.body)
    finally:
        for var in loop_vars:
            p.loops.pop(id(var), None)
    for var, spec in reversed(list(zip(loop_vars, specs))):
        binding = None
        if "thread" in spec:
            binding = IterVar(Range(spec["min"], spec["extent"]), Var(spec["thread"], var.dtype),
                              IterVarType.ThreadIndex, spec["thread"])
        body = For(var, spec["min"], spec["extent"], spec["kind"], body, binding,
                   spec.get("annotations") or {})
    return body
