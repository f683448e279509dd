"""ThreadSync: insert ``__syncthreads()`` where threads hand shared memory to each other.

Walks each statement sequence inside a kernel and tracks the shared buffers read and
written since the last barrier.  A barrier goes before a statement that reads what
was written, or writes what was read (other threads may be at either access); two
writes in a row are not ordered (threads write their own parts).  A serial loop
whose end conflicts with its beginning gets a barrier at the end of its body (for
the next iteration).  Barriers are only placed where every thread of the block
arrives: a statement under a condition that depends on the thread (including a
thread loop narrower than the launch) is treated as one unit, and the barrier goes
around it.  Conservative: same-thread reuse also gets a barrier.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import Call, DataType, IntImm, Op, StringImm, Var
from ember.tir import (
    Allocate, AttrStmt, BufferStore, DeclBuffer, Evaluate, For, IfThenElse, LetStmt, SeqStmt, Stmt,
    post_order_visit, seq,
)
from ember.tir.buffer import BufferLoad

from .split_host_device import thread_tag

__all__ = ["thread_sync", "SYNC"]

SYNC = Evaluate(Call(DataType("int32"), Op.get("tir.tvm_storage_sync"), (StringImm("shared"),)))


def _is_shared(var: Var) -> bool:
    ann = var.type_annotation
    return ann is not None and ann.storage_scope.split(".")[0] in ("shared", "warp")


@dataclass
class _Access:
    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)

    def conflicts(self, later: _Access) -> bool:
        return bool(later.reads & self.writes or later.writes & self.reads)

    def merge(self, other: _Access) -> None:
        self.reads |= other.reads
        self.writes |= other.writes

    def empty(self) -> bool:
        return not (self.reads or self.writes)


@dataclass
class _Summary:
    """Shared accesses before the first barrier (head), after the last (tail), and whether one exists."""

    head: _Access
    tail: _Access
    synced: bool


def _accesses(node) -> _Access:
    acc = _Access()

    def visit(n):
        if isinstance(n, BufferStore) and _is_shared(n.buffer.data):
            acc.writes.add(n.buffer.data)
        elif isinstance(n, BufferLoad) and _is_shared(n.buffer.data):
            acc.reads.add(n.buffer.data)

    post_order_visit(node, visit)
    return acc


class _Planner:
    def __init__(self, launch: dict):
        self.launch = launch
        self.varying: set[int] = set()  # vars whose value differs between threads of a block

    def _varies(self, expr) -> bool:
        found = []

        def visit(n):
            if (isinstance(n, Var) and id(n) in self.varying) or isinstance(n, BufferLoad):
                found.append(n)

        post_order_visit(expr, visit)
        return bool(found)

    def _leaf(self, stmt) -> tuple[Stmt, _Summary]:
        acc = _accesses(stmt)
        return stmt, _Summary(acc, _Access(set(acc.reads), set(acc.writes)), False)

    def plan(self, stmt) -> tuple[Stmt, _Summary]:
        if isinstance(stmt, SeqStmt):
            return self.plan_seq(list(stmt.seq))
        tag = thread_tag(stmt)
        if tag is not None:
            var = stmt.loop_var if isinstance(stmt, For) else stmt.node.var
            if tag.startswith("threadIdx"):
                self.varying.add(id(var))
                extent = stmt.extent if isinstance(stmt, For) else stmt.value
                launch = self.launch.get(tag)
                if launch is not None and not (launch is extent or (
                        isinstance(launch, IntImm) and isinstance(extent, IntImm) and launch.value == extent.value)):
                    return self._leaf(stmt)  # guarded by the thread index: no barrier inside
            return self._body(stmt, self.plan(stmt.body))
        if isinstance(stmt, For):
            if self._varies(stmt.min) or self._varies(stmt.extent):
                self.varying.add(id(stmt.loop_var))
                return self._leaf(stmt)
            body, summary = self.plan(stmt.body)
            if summary.tail.conflicts(summary.head):
                body = seq(body, SYNC)
                summary = _Summary(summary.head, _Access(), True)
            return _replace_body(stmt, body), summary
        if isinstance(stmt, LetStmt):
            if self._varies(stmt.value):
                self.varying.add(id(stmt.var))
            return self._body(stmt, self.plan(stmt.body))
        if isinstance(stmt, Allocate | DeclBuffer | AttrStmt):
            return self._body(stmt, self.plan(stmt.body))
        if isinstance(stmt, IfThenElse) and not self._varies(stmt.condition):
            then, s1 = self.plan(stmt.then_case)
            other, s2 = (None, _Summary(_Access(), _Access(), False)) if stmt.else_case is None \
                else self.plan(stmt.else_case)
            head, tail = _Access(), _Access()
            for s in (s1, s2):
                head.merge(s.head)
                tail.merge(s.tail)
            if s1.synced != s2.synced:  # only one branch syncs: what precedes may meet what follows
                head.merge(tail)
                tail = _Access(set(head.reads), set(head.writes))
            return IfThenElse(stmt.condition, then, other), _Summary(head, tail, s1.synced and s2.synced)
        return self._leaf(stmt)

    @staticmethod
    def _body(stmt, planned) -> tuple[Stmt, _Summary]:
        body, summary = planned
        return _replace_body(stmt, body), summary

    def plan_seq(self, stmts: list) -> tuple[Stmt, _Summary]:
        out: list[Stmt] = []
        head, pending, synced = _Access(), _Access(), False
        for child in stmts:
            new, summary = self.plan(child)
            if pending.conflicts(summary.head):
                out.append(SYNC)
                if not synced:
                    head = pending
                synced, pending = True, _Access()
            out.append(new)
            if summary.synced:
                if not synced:
                    head = _Access(pending.reads | summary.head.reads, pending.writes | summary.head.writes)
                synced, pending = True, _Access(set(summary.tail.reads), set(summary.tail.writes))
            else:
                pending.merge(summary.head)
        if not synced:
            head = _Access(set(pending.reads), set(pending.writes))
        return seq(*out) or Evaluate(IntImm(SYNC.value.dtype, 0)), _Summary(head, pending, synced)


def _replace_body(stmt, body):
    from ember.ir import replace

    return replace(stmt, body=body)


def thread_sync(body, launch: dict | None = None) -> Stmt:
    """``body`` (a kernel, or a function body holding kernels) with the needed barriers."""
    if not _accesses(body).writes:
        return body
    return _Planner(launch or {}).plan(body)[0]
