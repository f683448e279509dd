"""``detect_buffer_access_lca``: for each buffer, the innermost Block or For enclosing
every access to it (``None`` when that is the function body itself).

Accesses are loads, stores, uses of a buffer's data variable (opaque accesses such as
``T.tvm_fill_fragment(B.data, …)``) and the source regions of ``T.match_buffer``.  As in
TVM, two rules lift the answer higher: a buffer written by a reduction block must be
live across the block's reduction loops (its LCA is above the outermost loop bound to a
reduction iterator), and a global buffer used under a ``blockIdx`` loop is placed at or
above that loop.  Buffers declared with ``T.match_buffer`` inside blocks are not reported.
"""

from __future__ import annotations

from ember.ir.expr import Var
from ember.tir.buffer import BufferLoad
from ember.tir.functor import IRVisitor
from ember.tir.stmt import BlockRealize, BufferStore, For, ForKind, IterVarType

__all__ = ["detect_buffer_access_lca"]


class _Scope:
    __slots__ = ("stmt", "parent", "depth")

    def __init__(self, stmt, parent, depth: int) -> None:
        self.stmt, self.parent, self.depth = stmt, parent, depth


def _lca(a: _Scope | None, b: _Scope) -> _Scope:
    if a is None:
        return b
    while a.depth > b.depth:
        a = a.parent
    while b.depth > a.depth:
        b = b.parent
    while a is not b:
        a, b = a.parent, b.parent
    return a


class _Detector(IRVisitor):
    def __init__(self, func) -> None:
        self.root = _Scope(None, None, 0)
        self.stack = [self.root]
        self.lca: dict[int, tuple] = {}  # id(buffer) -> (buffer, scope)
        self.by_data: dict[int, object] = {id(b.data): b for b in func.buffer_map.values()}
        self.loop_scope: dict[int, _Scope] = {}
        self.matched: set = set()
        self.blockidx: list[_Scope] = []

    def update(self, buffer, scope: _Scope) -> None:
        old = self.lca.get(id(buffer))
        self.lca[id(buffer)] = (buffer, _lca(None if old is None else old[1], scope))

    def visit_For(self, s: For) -> None:  # noqa: N802
        scope = _Scope(s, self.stack[-1], len(self.stack))
        self.loop_scope[id(s.loop_var)] = scope
        if s.kind == ForKind.THREAD_BINDING and s.thread_binding is not None \
                and s.thread_binding.thread_tag.startswith("blockIdx"):
            self.blockidx.append(scope)
        self.visit((s.min, s.extent))
        self.stack.append(scope)
        self.visit(s.body)
        self.stack.pop()

    def visit_BlockRealize(self, s: BlockRealize) -> None:  # noqa: N802
        self.visit((s.iter_values, s.predicate))
        block = s.block
        for buf in block.alloc_buffers:
            self.by_data[id(buf.data)] = buf
        scope = _Scope(block, self.stack[-1], len(self.stack))
        self.stack.append(scope)
        reduce_dom = self._reduction_dominator(s)
        if reduce_dom is not None:
            for region in block.writes:
                self.update(region.buffer, reduce_dom)
        for m in block.match_buffers:
            self.update(m.source.buffer, scope)
            self.matched.add(id(m.buffer))
            self.by_data[id(m.buffer.data)] = m.buffer
        self.visit(block.init)
        self.visit(block.body)
        self.stack.pop()

    def _reduction_dominator(self, s: BlockRealize) -> _Scope | None:
        best = None
        for iv, value in zip(s.block.iter_vars, s.iter_values):
            if iv.iter_type == IterVarType.DataPar:
                continue
            for v in _vars(value):
                loop = self.loop_scope.get(id(v))
                if loop is not None and (best is None or loop.parent.depth < best.depth):
                    best = loop.parent
        return best

    def visit_BufferLoad(self, e: BufferLoad) -> None:  # noqa: N802
        self.update(e.buffer, self.stack[-1])
        self.visit(e.indices)

    def visit_BufferStore(self, s: BufferStore) -> None:  # noqa: N802
        self.update(s.buffer, self.stack[-1])
        self.visit((s.value, s.indices))

    def visit_Var(self, v: Var) -> None:  # noqa: N802
        buf = self.by_data.get(id(v))
        if buf is not None:
            self.update(buf, self.stack[-1])

    def result(self) -> dict:
        out = {}
        for buffer, scope in self.lca.values():
            if id(buffer) in self.matched:
                continue
            if buffer.scope().startswith("global"):
                for bx in self.blockidx:
                    if _lca(scope, bx) is bx:  # used under this blockIdx loop: not below it
                        scope = bx
            out[buffer] = scope.stmt
        return out


def _vars(e) -> list:
    from ember.tir.functor import collect

    return collect(e, lambda n: isinstance(n, Var))


def detect_buffer_access_lca(func) -> dict:
    """``{buffer: Block | For | None}`` (see the module docstring)."""
    from ember.tir.function import PrimFunc

    if not isinstance(func, PrimFunc):
        raise TypeError(f"detect_buffer_access_lca: expected a PrimFunc, got {type(func).__name__}")
    d = _Detector(func)
    d.visit(func.body)
    return d.result()
