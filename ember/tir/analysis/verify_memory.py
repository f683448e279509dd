"""verify_memory: on a GPU, every access to a global buffer must run inside GPU threads.

A load or store of a ``global`` buffer that is not under a thread-bound loop
(``T.thread_binding`` / ``sch.bind``) or a ``thread_extent`` attribute would run on the
host, which cannot touch device memory.  The error names the function, the block
(when the IR still has blocks) or the innermost loop around the access, the buffer,
and how to bind it.  Works on scheduled (block) and on lowered TIR.
"""

from __future__ import annotations

from ember.ir import IRModule

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRVisitor
from ..stmt import AttrStmt, Block, BufferStore, For, ForKind

__all__ = ["verify_memory", "UnboundGPULoopError"]


class UnboundGPULoopError(ValueError):
    """A GPU function touches global memory outside the thread-bound loops."""


class _Finder(IRVisitor):
    def __init__(self):
        self.threads = 0
        self.loops: list[For] = []
        self.blocks: list[Block] = []
        self.problem: tuple | None = None

    def visit_For(self, node: For) -> None:
        bound = node.kind == ForKind.THREAD_BINDING
        self.threads += bound
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()
        self.threads -= bound

    def visit_AttrStmt(self, node: AttrStmt) -> None:
        bound = node.attr_key in ("thread_extent", "virtual_thread")
        self.threads += bound
        self.generic_visit(node)
        self.threads -= bound

    def visit_Block(self, node: Block) -> None:
        self.blocks.append(node)
        self.generic_visit(node)
        self.blocks.pop()

    def _access(self, node, kind: str) -> None:
        if self.threads or self.problem is not None or node.buffer.scope() != "global":
            return
        self.problem = (kind, node.buffer.name, self.loops[-1] if self.loops else None,
                        self.blocks[-1] if self.blocks and self.blocks[-1].name_hint != "root" else None)

    def visit_BufferStore(self, node: BufferStore) -> None:
        self._access(node, "store to")
        self.generic_visit(node)

    def visit_BufferLoad(self, node: BufferLoad) -> None:
        self._access(node, "load from")
        self.generic_visit(node)


def verify_memory(func_or_mod, name: str | None = None) -> None:
    """Raise :class:`UnboundGPULoopError` if a global buffer is accessed outside GPU threads."""
    if isinstance(func_or_mod, IRModule):
        for gv, func in func_or_mod.functions.items():
            if isinstance(func, PrimFunc):
                verify_memory(func, gv.name_hint)
        return
    if not isinstance(func_or_mod, PrimFunc):
        raise TypeError(f"verify_memory: expected a PrimFunc or IRModule, got {type(func_or_mod).__name__}")
    finder = _Finder()
    finder.visit(func_or_mod.body)
    if finder.problem is None:
        return
    kind, buffer, loop, block = finder.problem
    name = name or func_or_mod.attrs.get("global_symbol", "main")
    where = []
    if block is not None:
        where.append(f"in block {block.name_hint!r}")
    if loop is not None:
        where.append(f"in loop {loop.loop_var.name!r}")
    place = " ".join(where) if where else "at the top level of the function"
    fix = (f"bind loop {loop.loop_var.name!r} (or a loop it is split into) to GPU threads, e.g. "
           f"sch.bind(loop, \"threadIdx.x\") or s[C].bind(axis, te.thread_axis(\"threadIdx.x\"))"
           if loop is not None else
           "put the access inside a loop bound to GPU threads, e.g. sch.bind(loop, \"threadIdx.x\")")
    raise UnboundGPULoopError(
        f"PrimFunc {name!r}: the {kind} global buffer {buffer!r} {place} is not bound to GPU threads "
        f"(no enclosing blockIdx/threadIdx loop), so it would run on the host; {fix}. "
        "Did you forget to bind?")
