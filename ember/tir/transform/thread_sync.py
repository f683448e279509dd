"""ThreadSync: insert ``tvm_storage_sync`` barriers where GPU threads hand memory to each other.

Walks each statement sequence inside a kernel and tracks the accesses to buffers of
the synchronised scopes (``shared``, ``shared.dyn``, ``warp``) since the last barrier.
A barrier goes before a statement that reads what was written, or writes what was
read, unless both accesses use the same index and that index depends on the thread
(each thread then touches only its own element).  Two writes in a row are not
ordered.  All ``shared.dyn`` buffers count as one (they share the dynamic memory).
A serial loop whose end conflicts with its beginning gets a barrier at the end of its
body (for the next iteration).  Barriers are only placed where every thread of the
block arrives: a statement under a condition that depends on the thread (including
a thread loop narrower than the launch extent) is one unit, with barriers around it.

Used by the CUDA code generator on each kernel; ``ThreadSync(scope)`` is the pass
over lowered PrimFuncs, as TVM names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import Call, DataType, IntImm, Op, StringImm, Var, replace, structural_equal
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import post_order_visit
from ..stmt import (
    Allocate, AttrStmt, BufferStore, DeclBuffer, Evaluate, For, ForKind, IfThenElse, IterVar, LetStmt, SeqStmt,
    Stmt, seq,
)
from ._common import make_pass

__all__ = ["thread_sync", "ThreadSync", "thread_tag", "storage_sync"]

SYNC_SCOPES = ("shared", "shared.dyn", "warp")


def storage_sync(scope: str = "shared") -> Evaluate:
    """The barrier statement ``T.tvm_storage_sync(scope)``."""
    return Evaluate(Call(DataType("int32"), Op.get("tir.tvm_storage_sync"), (StringImm(scope),)))


def thread_tag(stmt) -> str | None:
    """The thread tag a statement binds (For THREAD_BINDING / AttrStmt thread_extent), else None."""
    if isinstance(stmt, For) and stmt.kind == ForKind.THREAD_BINDING:
        iv = stmt.thread_binding
        return iv.thread_tag if iv is not None and iv.thread_tag else "threadIdx.x"
    if isinstance(stmt, AttrStmt) and stmt.attr_key in ("thread_extent", "virtual_thread"):
        node = stmt.node
        return node.thread_tag if isinstance(node, IterVar) else "vthread"
    return None


def _same(a, b) -> bool:
    """Equal expressions over the very same variables."""
    return structural_equal(a, b, map_free_vars=False)


def _scope(var: Var) -> str:
    ann = var.type_annotation
    return ann.storage_scope if ann is not None else "global"


@dataclass
class _Access:
    """Accesses by memory key: key -> [(data var, index)] read and written."""

    reads: dict = field(default_factory=dict)
    writes: dict = field(default_factory=dict)

    def add(self, other: _Access) -> None:
        for mine, theirs in ((self.reads, other.reads), (self.writes, other.writes)):
            for key, items in theirs.items():
                mine.setdefault(key, []).extend(items)

    def copy(self) -> _Access:
        out = _Access()
        out.add(self)
        return out


@dataclass
class _Summary:
    """Accesses before the first barrier (head), after the last (tail), and whether one exists."""

    head: _Access
    tail: _Access
    synced: bool


class _Planner:
    def __init__(self, body, launch: dict, scopes: tuple[str, ...]):
        self.launch = launch
        self.scopes = scopes
        self.thread_vars: set[int] = set()
        self.varying: set[int] = set()  # vars whose value differs between threads of a block

        def find_threads(n):
            tag = thread_tag(n)
            if tag is not None and tag.startswith("threadIdx"):
                self.thread_vars.add(id(n.loop_var if isinstance(n, For) else n.node.var))

        post_order_visit(body, find_threads)

    # -- accesses ----------------------------------------------------------------------------
    def _key(self, var: Var) -> object | None:
        scope = _scope(var)
        if scope not in self.scopes:
            return None
        return "shared.dyn" if scope == "shared.dyn" else id(var)

    def accesses(self, node) -> _Access:
        acc = _Access()

        def visit(n):
            if isinstance(n, BufferStore | BufferLoad):
                key = self._key(n.buffer.data)
                if key is not None:
                    table = acc.writes if isinstance(n, BufferStore) else acc.reads
                    table.setdefault(key, []).append((n.buffer.data, n.indices))
            elif isinstance(n, Call) and isinstance(n.op, Op) and n.op.name == "tir.tvm_access_ptr":
                # a pointer handed to an intrinsic (wmma load/store): a region, never a thread's own element
                data, mask = n.args[1], n.args[4]
                key = self._key(data) if isinstance(data, Var) else None
                if key is not None:
                    mask = mask.value if isinstance(mask, IntImm) else 3
                    for bit, table in ((1, acc.reads), (2, acc.writes)):
                        if mask & bit:
                            table.setdefault(key, []).append((data, ()))

        post_order_visit(node, visit)
        return acc

    def _own_element(self, a, b) -> bool:
        """Same buffer, same index, and the index depends on the thread: a thread's own element."""
        if a[0] is not b[0] or len(a[1]) != len(b[1]):
            return False
        if not all(_same(x, y) for x, y in zip(a[1], b[1])):
            return False
        found = []
        post_order_visit(a[1], lambda n: found.append(n) if isinstance(n, Var) and id(n) in self.thread_vars else None)
        return bool(found)

    def conflicts(self, earlier: _Access, later: _Access) -> bool:
        for first, second in ((earlier.writes, later.reads), (earlier.reads, later.writes)):
            for key, items in second.items():
                for a in first.get(key, ()):
                    if any(not self._own_element(a, b) for b in items):
                        return True
        return False

    # -- planning ----------------------------------------------------------------------------
    def _varies(self, expr) -> bool:
        found = []

        def visit(n):
            if (isinstance(n, Var) and (id(n) in self.varying or id(n) in self.thread_vars)) or \
                    isinstance(n, BufferLoad):
                found.append(n)

        post_order_visit(expr, visit)
        return bool(found)

    def _leaf(self, stmt) -> tuple[Stmt, _Summary]:
        acc = self.accesses(stmt)
        return stmt, _Summary(acc, acc.copy(), False)

    def plan(self, stmt) -> tuple[Stmt, _Summary]:
        if isinstance(stmt, SeqStmt):
            return self.plan_seq(list(stmt.seq))
        tag = thread_tag(stmt)
        if tag is not None:
            if tag.startswith("threadIdx"):
                extent = stmt.extent if isinstance(stmt, For) else stmt.value
                launch = self.launch.get(tag)
                if launch is not None and not (launch is extent or _same(launch, extent)):
                    return self._leaf(stmt)  # guarded by the thread index: no barrier inside
            return self._body(stmt, self.plan(stmt.body))
        if isinstance(stmt, For):
            if self._varies(stmt.min) or self._varies(stmt.extent):
                self.varying.add(id(stmt.loop_var))
                return self._leaf(stmt)
            body, summary = self.plan(stmt.body)
            if self.conflicts(summary.tail, summary.head):
                body = seq(body, storage_sync(self.scopes[0]))
                summary = _Summary(summary.head, _Access(), True)
            return replace(stmt, body=body), summary
        if isinstance(stmt, LetStmt):
            if self._varies(stmt.value):
                self.varying.add(id(stmt.var))
            new, summary = self._body(stmt, self.plan(stmt.body))
            let_reads = self.accesses(stmt.value)
            head = let_reads.copy()
            head.add(summary.head)
            tail = summary.tail if summary.synced else head.copy()
            return new, _Summary(head, tail, summary.synced)
        if isinstance(stmt, Allocate | DeclBuffer | AttrStmt):
            return self._body(stmt, self.plan(stmt.body))
        if isinstance(stmt, IfThenElse) and not self._varies(stmt.condition):
            then, s1 = self.plan(stmt.then_case)
            other, s2 = (None, _Summary(_Access(), _Access(), False)) if stmt.else_case is None \
                else self.plan(stmt.else_case)
            head, tail = _Access(), _Access()
            for s in (s1, s2):
                head.add(s.head)
                tail.add(s.tail)
            if s1.synced != s2.synced:  # only one branch syncs: what precedes may meet what follows
                head.add(tail)
                tail = head.copy()
            return IfThenElse(stmt.condition, then, other), _Summary(head, tail, s1.synced and s2.synced)
        return self._leaf(stmt)

    @staticmethod
    def _body(stmt, planned) -> tuple[Stmt, _Summary]:
        body, summary = planned
        return (stmt if body is stmt.body else replace(stmt, body=body)), summary

    def plan_seq(self, stmts: list) -> tuple[Stmt, _Summary]:
        out: list[Stmt] = []
        head, pending, synced = _Access(), _Access(), False
        for child in stmts:
            new, summary = self.plan(child)
            if self.conflicts(pending, summary.head):
                out.append(storage_sync(self.scopes[0]))
                if not synced:
                    head = pending
                synced, pending = True, _Access()
            out.append(new)
            if summary.synced:
                if not synced:
                    head = pending.copy()
                    head.add(summary.head)
                synced, pending = True, summary.tail.copy()
            else:
                pending.add(summary.head)
        if not synced:
            head = pending.copy()
        return seq(*out) or Evaluate(IntImm(DataType("int32"), 0)), _Summary(head, pending, synced)


def thread_sync(body, launch: dict | None = None, scopes: tuple[str, ...] = SYNC_SCOPES) -> Stmt:
    """``body`` (a kernel, or a function body holding kernels) with the barriers it needs.

    ``launch`` maps thread tags to launch extents (a narrower thread loop is guarded);
    ``scopes`` are the storage scopes to synchronise; the barrier names the first.
    """
    planner = _Planner(body, launch or {}, tuple(scopes))
    if not planner.accesses(body).writes:
        return body
    return planner.plan(body)[0]


def ThreadSync(storage_scope: str = "shared") -> Pass:  # noqa: N802 - TVM's pass name
    """Insert ``tvm_storage_sync(storage_scope)`` barriers for buffers of that scope."""
    if storage_scope not in SYNC_SCOPES:
        raise ValueError(f"ThreadSync: storage_scope must be one of {SYNC_SCOPES}, got {storage_scope!r}")

    def run(func: PrimFunc) -> PrimFunc:
        body = thread_sync(func.body, None, (storage_scope,))
        return func if body is func.body else replace(func, body=body)

    return make_pass(run, "ThreadSync")
