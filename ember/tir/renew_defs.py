"""``renew_defs(func)``: a copy of a PrimFunc in which every variable and buffer the
function defines is a fresh object (structurally equal, sharing no definitions), so the
copy can sit next to the original — e.g. both inlined into one module — without clashes.

Defined here: parameters; parameter buffers with their data and symbolic shape, stride
and offset variables; loop, let and block iterator variables; buffers allocated,
matched or declared inside, with their data variables.  Variables used but defined
elsewhere (free variables) are kept.
"""

from __future__ import annotations

from ember.ir import Var
from ember.tir.functor import IRVisitor, substitute
from ember.tir.stmt import Allocate, Block, DeclBuffer, For, LetStmt

__all__ = ["renew_defs", "renew_stmt_defs"]


class _Defs(IRVisitor):
    def __init__(self) -> None:
        self.vars: dict[int, Var] = {}

    def add(self, v) -> None:
        if isinstance(v, Var):
            self.vars.setdefault(id(v), v)

    def add_buffer(self, buf, data_too: bool = True) -> None:
        if data_too:
            self.add(buf.data)
        for e in tuple(buf.shape) + tuple(buf.strides or ()) + (buf.elem_offset,):
            self.add(e)

    def visit_For(self, s: For) -> None:  # noqa: N802
        self.add(s.loop_var)
        self.generic_visit(s)

    def visit_LetStmt(self, s: LetStmt) -> None:  # noqa: N802
        self.add(s.var)
        self.generic_visit(s)

    def visit_Let(self, e) -> None:  # noqa: N802
        self.add(e.var)
        self.generic_visit(e)

    def visit_Allocate(self, s: Allocate) -> None:  # noqa: N802
        self.add(s.buffer_var)
        self.generic_visit(s)

    def visit_DeclBuffer(self, s: DeclBuffer) -> None:  # noqa: N802
        self.add_buffer(s.buffer, data_too=False)  # its data comes from an Allocate or a parameter
        self.generic_visit(s)

    def visit_Block(self, b: Block) -> None:  # noqa: N802
        for iv in b.iter_vars:
            self.add(iv.var)
        for buf in b.alloc_buffers:
            self.add_buffer(buf)
        for m in b.match_buffers:
            self.add_buffer(m.buffer)
        self.generic_visit(b)


def renew_defs(func):
    """``func`` with fresh definitions (see the module docstring)."""
    defs = _Defs()
    for p in func.params:
        defs.add(p)
    for buf in func.buffer_map.values():
        defs.add_buffer(buf)
    defs.visit(func.body)
    fresh = {v: Var(v.name, v.dtype, v.type_annotation) for v in defs.vars.values()}
    return substitute(func, fresh)


def renew_stmt_defs(stmt, extra: dict | None = None):
    """``stmt`` with fresh loop/let/block-iterator variables and inner buffers (as
    ``renew_defs``), after replacing the Vars of ``extra`` (Var → expr)."""
    defs = _Defs()
    defs.visit(stmt)
    fresh = {v: Var(v.name, v.dtype, v.type_annotation) for v in defs.vars.values()}
    return substitute(stmt, {**fresh, **(extra or {})})
