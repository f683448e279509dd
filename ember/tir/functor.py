"""Generic visitors and mutators over TIR (statements, expressions, buffers).

Both walk a node's dataclass fields, so a pass only writes methods for the node types
it cares about: ``visit_<ClassName>(self, node)``.  The mutator rebuilds a node only
when a field changed (otherwise the very same object comes back) and memoises binding
nodes (Vars, Buffers), so a buffer used in many places is rewritten to one new buffer.
"""

from __future__ import annotations

from ember.ir import Node, fields_of, replace

__all__ = [
    "IRVisitor", "IRMutator", "post_order_visit", "pre_order_visit", "substitute",
    "ir_transform", "collect",
]


# what a walk descends into (tuples, not ``A | B`` unions: those are built again at every call)
_CHILDREN = (Node, tuple, list, dict)
_SEQUENCES = (tuple, list)


def _method_table(cls) -> dict:
    table = cls.__dict__.get("_dispatch_cache")
    if table is None:
        table = {}
        cls._dispatch_cache = table
    return table


class IRVisitor:
    """Pre-order walk; override ``visit_<ClassName>`` and call ``self.generic_visit``."""

    def visit(self, x) -> None:
        if isinstance(x, Node):
            cls = type(x)
            table = _method_table(type(self))
            method = table.get(cls)
            if method is None:
                method = _find_method(type(self), cls, "generic_visit")
                table[cls] = method
            method(self, x)
        elif isinstance(x, _SEQUENCES):
            for e in x:
                self.visit(e)
        elif isinstance(x, dict):
            for k, v in x.items():
                self.visit(k)
                self.visit(v)

    def generic_visit(self, x: Node) -> None:
        for name in fields_of(type(x)):
            value = getattr(x, name)
            if isinstance(value, _CHILDREN):
                self.visit(value)


class IRMutator:
    """Post-order rebuild; override ``visit_<ClassName>`` returning the new node."""

    def __init__(self):
        self._memo: dict[int, Node] = {}

    def visit(self, x):
        if isinstance(x, Node):
            cls = type(x)
            binding = getattr(x, "_binding", False)
            if binding:
                done = self._memo.get(id(x))
                if done is not None:
                    return done[1]
            table = _method_table(type(self))
            method = table.get(cls)
            if method is None:
                method = _find_method(type(self), cls, "generic_visit")
                table[cls] = method
            result = method(self, x)
            if binding:
                self._memo[id(x)] = (x, result)  # keep x alive so its id stays unique
            return result
        if isinstance(x, tuple):
            out = tuple(self.visit(e) for e in x)
            return x if all(a is b for a, b in zip(out, x)) else out
        if isinstance(x, list):
            return [self.visit(e) for e in x]
        if isinstance(x, dict):
            out = {self.visit(k): self.visit(v) for k, v in x.items()}
            same = len(out) == len(x) and all(
                a is b and out[a] is x[b] for a, b in zip(out, x)
            )
            return x if same else out
        return x

    def generic_visit(self, x: Node):
        changes = {}
        for name in fields_of(type(x)):
            value = getattr(x, name)
            if isinstance(value, _CHILDREN):
                new = self.visit(value)
                if new is not value:
                    changes[name] = new
        return replace(x, **changes) if changes else x


def _find_method(visitor_cls, node_cls, default: str):
    for klass in node_cls.__mro__:
        method = getattr(visitor_cls, "visit_" + klass.__name__, None)
        if method is not None:
            return method
    return getattr(visitor_cls, default)


class _FnVisitor(IRVisitor):
    def __init__(self, fn, pre: bool):
        self.fn, self.pre = fn, pre

    def generic_visit(self, x):
        if self.pre:
            if self.fn(x) is False:
                return
            super().generic_visit(x)
        else:
            super().generic_visit(x)
            self.fn(x)


def post_order_visit(node, fn) -> None:
    """Call ``fn`` on every node under ``node`` (children first)."""
    _FnVisitor(fn, pre=False).visit(node)


def pre_order_visit(node, fn) -> None:
    """Call ``fn`` on every node (parents first); ``fn`` returning False skips children."""
    _FnVisitor(fn, pre=True).visit(node)


def collect(node, predicate) -> list:
    """All nodes under ``node`` (pre-order, duplicates removed) for which ``predicate`` holds."""
    found: dict[int, Node] = {}

    def visit(x):
        if predicate(x) and id(x) not in found:
            found[id(x)] = x

    post_order_visit(node, visit)
    return list(found.values())


class _Substituter(IRMutator):
    def __init__(self, vmap):
        super().__init__()
        self.vmap = vmap

    def visit_Var(self, v):
        new = self.vmap(v) if callable(self.vmap) else self.vmap.get(v)
        return v if new is None else new


def substitute(node, vmap):
    """Replace Vars by the mapping (a dict Var → expr, or a function returning None to keep)."""
    if not callable(vmap):
        from ember.ir import as_expr

        vmap = {k: as_expr(v) for k, v in vmap.items()}
        if not vmap:
            return node
    return _Substituter(vmap).visit(node)


class _Transformer(IRMutator):
    def __init__(self, preorder, postorder, only):
        super().__init__()
        self.preorder, self.postorder, self.only = preorder, postorder, only

    def generic_visit(self, x):
        applies = self.only is None or type(x).__name__ in self.only
        if applies and self.preorder is not None:
            out = self.preorder(x)
            if out is not None:
                return out
        x = super().generic_visit(x)
        if applies and self.postorder is not None:
            out = self.postorder(x)
            if out is not None:
                return out
        return x


def ir_transform(node, preorder, postorder, only_enable=None):
    """Rewrite with callbacks: ``preorder(n)`` returning non-None replaces ``n`` unvisited,
    then ``postorder(n)`` on the rebuilt node; ``only_enable`` lists class names to call on."""
    only = None if only_enable is None else {s.split(".")[-1] for s in only_enable}
    return _Transformer(preorder, postorder, only).visit(node)


