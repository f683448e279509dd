"""TensorIR statements: loops, blocks, stores, control flow and allocation."""

from __future__ import annotations

import enum

from ember.ir import DataType, Node, PrimExpr, Range, Var, node

from .buffer import Buffer

__all__ = [
    "Stmt", "ForKind", "IterVarType", "IterVar", "BufferStore", "For", "While", "Block",
    "BlockRealize", "SeqStmt", "IfThenElse", "LetStmt", "Allocate", "DeclBuffer", "Evaluate",
    "AssertStmt", "AttrStmt", "seq",
]


class Stmt(Node):
    """Base of TIR statements."""

    __slots__ = ()


class ForKind(enum.IntEnum):
    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


class IterVarType(enum.IntEnum):
    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    DimInfo = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8


@node
class IterVar(Node):
    """A block iterator (``var`` over ``dom``; spatial, reduce, …) or a thread axis."""

    dom: Range | None
    var: Var
    iter_type: IterVarType = IterVarType.DataPar
    thread_tag: str = ""

    def as_prim_expr(self) -> Var:
        return self.var


@node
class BufferStore(Stmt):
    buffer: Buffer
    value: PrimExpr
    indices: tuple


@node
class For(Stmt):
    loop_var: Var
    min: PrimExpr
    extent: PrimExpr
    kind: ForKind
    body: Stmt
    thread_binding: IterVar | None = None
    annotations: dict = None

    def __post_init__(self):
        if self.annotations is None:
            object.__setattr__(self, "annotations", {})


@node
class While(Stmt):
    condition: PrimExpr
    body: Stmt


@node
class Block(Stmt):
    """A unit of computation with iterators, buffer regions read/written and a body.

    ``init`` (if any) runs once before the first reduction iteration.
    """

    iter_vars: tuple
    reads: tuple
    writes: tuple
    name_hint: str
    body: Stmt
    init: Stmt | None = None
    alloc_buffers: tuple = ()
    match_buffers: tuple = ()
    annotations: dict = None

    def __post_init__(self):
        if self.annotations is None:
            object.__setattr__(self, "annotations", {})


@node
class BlockRealize(Stmt):
    """Runs ``block`` with its iterators bound to ``iter_values`` when ``predicate`` holds."""

    iter_values: tuple
    predicate: PrimExpr
    block: Block


@node
class SeqStmt(Stmt):
    seq: tuple

    def __getitem__(self, i):
        return self.seq[i]

    def __len__(self):
        return len(self.seq)


@node
class IfThenElse(Stmt):
    condition: PrimExpr
    then_case: Stmt
    else_case: Stmt | None = None


@node
class LetStmt(Stmt):
    var: Var
    value: PrimExpr
    body: Stmt


@node
class Allocate(Stmt):
    """Allocate ``extents`` elements of ``dtype`` for ``buffer_var`` around ``body``."""

    buffer_var: Var
    dtype: DataType
    extents: tuple
    condition: PrimExpr
    body: Stmt
    annotations: dict = None

    def __post_init__(self):
        if self.annotations is None:
            object.__setattr__(self, "annotations", {})


@node
class DeclBuffer(Stmt):
    buffer: Buffer
    body: Stmt


@node
class Evaluate(Stmt):
    value: PrimExpr


@node
class AssertStmt(Stmt):
    condition: PrimExpr
    message: PrimExpr
    body: Stmt


@node
class AttrStmt(Stmt):
    node: object
    attr_key: str
    value: PrimExpr
    body: Stmt


def seq(*stmts) -> Stmt:
    """A SeqStmt of the given statements, flattening nested ones; one statement stays itself."""
    flat: list[Stmt] = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, list | tuple):
            s = seq(*s)
            if s is None:
                continue
        if isinstance(s, SeqStmt):
            flat.extend(s.seq)
        else:
            flat.append(s)
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else SeqStmt(tuple(flat))


