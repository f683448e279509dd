"""TensorIR statements: loops, blocks, stores, control flow and allocation."""

from __future__ import annotations

import enum
from dataclasses import InitVar

from ember.ir import DataType, Node, PrimExpr, Range, Var, node

from .buffer import Buffer

__all__ = [
    "Stmt", "ForKind", "IterVarType", "IterVar", "BufferStore", "For", "While", "Block",
    "BlockRealize", "SeqStmt", "IfThenElse", "LetStmt", "Allocate", "DeclBuffer", "Evaluate",
    "AssertStmt", "AttrStmt", "BufferRealize", "Prefetch", "seq", "stmt_list",
]


class Stmt(Node):
    """Base of TIR statements."""

    __slots__ = ()


def _coerce(obj, exprs=(), seqs=(), strings=()) -> None:
    """Accept plain Python values where TVM's constructors do: numbers and bools in
    expression fields become constants, lists become tuples, text messages StringImms."""
    from ember.ir import StringImm, as_expr

    for name in exprs:
        v = getattr(obj, name)
        if isinstance(v, bool | int | float):
            object.__setattr__(obj, name, as_expr(v))
    for name in seqs:
        v = getattr(obj, name)
        if v is None or isinstance(v, list):
            object.__setattr__(obj, name, tuple(v or ()))
    for name in strings:
        v = getattr(obj, name)
        if isinstance(v, str):
            object.__setattr__(obj, name, StringImm(v))


def _exprs(values) -> tuple:
    from ember.ir import as_expr

    return tuple(as_expr(v) if isinstance(v, bool | int | float) else v for v in values)


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

    _def_fields = ("var",)  # structural equality: where variables are defined

    dom: Range | None
    var: Var
    iter_type: IterVarType = IterVarType.DataPar
    thread_tag: str = ""

    DataPar = IterVarType.DataPar
    ThreadIndex = IterVarType.ThreadIndex
    CommReduce = IterVarType.CommReduce
    Ordered = IterVarType.Ordered
    DimInfo = IterVarType.DimInfo
    Opaque = IterVarType.Opaque
    Unrolled = IterVarType.Unrolled
    Vectorized = IterVarType.Vectorized
    Parallelized = IterVarType.Parallelized
    Tensorized = IterVarType.Tensorized

    def __post_init__(self):
        if isinstance(self.dom, list | tuple):  # (begin, end), as TVM accepts
            from ember.ir import as_expr

            lo, hi = (as_expr(x) for x in self.dom)
            object.__setattr__(self, "dom", Range(lo, hi - lo if not _is_zero(lo) else hi))
        if isinstance(self.var, str):
            dtype = self.dom.extent.dtype if self.dom is not None else "int32"
            object.__setattr__(self, "var", Var(self.var, dtype))
        if not isinstance(self.iter_type, IterVarType):
            object.__setattr__(self, "iter_type", IterVarType(self.iter_type))

    def as_prim_expr(self) -> Var:
        return self.var


@node
class BufferStore(Stmt):
    buffer: Buffer
    value: PrimExpr
    indices: tuple
    predicate: InitVar[object] = None  # TVM's predicate mask: checked, not supported yet

    def __post_init__(self, predicate=None):
        if isinstance(self.value, bool | int | float):
            from ember.ir import as_expr

            object.__setattr__(self, "value", as_expr(self.value, self.buffer.dtype))
        if not isinstance(self.indices, tuple) or any(isinstance(i, int) for i in self.indices):
            object.__setattr__(self, "indices", _exprs(self.indices))
        if predicate is not None:
            from .buffer import check_predicate

            check_predicate(predicate, self.value.dtype, "store")


@node
class For(Stmt):
    _def_fields = ("loop_var",)  # structural equality: where variables are defined

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
        _coerce(self, exprs=("min", "extent"))
        if not isinstance(self.kind, ForKind):
            object.__setattr__(self, "kind", ForKind(self.kind))


@node
class While(Stmt):
    condition: PrimExpr
    body: Stmt

    def __post_init__(self):
        _coerce(self, exprs=("condition",))


@node
class Block(Stmt):
    """A unit of computation with iterators, buffer regions read/written and a body.

    ``init`` (if any) runs once before the first reduction iteration.  As in TVM, the
    name is not part of structural equality (a renamed block is the same computation).
    """

    _ignore_fields = ("name_hint",)
    _def_fields = ("iter_vars", "alloc_buffers", "match_buffers")
    _structural_order = ("iter_vars", "name_hint", "alloc_buffers", "match_buffers", "reads", "writes",
                         "body", "init", "annotations")  # definitions first

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
        _coerce(self, seqs=("iter_vars", "reads", "writes", "alloc_buffers", "match_buffers"))


@node
class BlockRealize(Stmt):
    """Runs ``block`` with its iterators bound to ``iter_values`` when ``predicate`` holds."""

    iter_values: tuple
    predicate: PrimExpr
    block: Block

    def __post_init__(self):
        _coerce(self, exprs=("predicate",), seqs=("iter_values",))


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

    def __post_init__(self):
        _coerce(self, exprs=("condition",))


@node
class LetStmt(Stmt):
    _def_fields = ("var",)  # structural equality: where variables are defined

    var: Var
    value: PrimExpr
    body: Stmt

    def __post_init__(self):
        _coerce(self, exprs=("value",))


@node
class Allocate(Stmt):
    """Allocate ``extents`` elements of ``dtype`` for ``buffer_var`` around ``body``."""

    _def_fields = ("buffer_var",)  # structural equality: where variables are defined

    buffer_var: Var
    dtype: DataType
    extents: tuple
    condition: PrimExpr
    body: Stmt
    annotations: dict = None

    def __post_init__(self):
        if self.annotations is None:
            object.__setattr__(self, "annotations", {})
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if not isinstance(self.extents, tuple) or any(isinstance(e, int) for e in self.extents):
            object.__setattr__(self, "extents", _exprs(self.extents))
        _coerce(self, exprs=("condition",))


@node
class DeclBuffer(Stmt):
    _def_fields = ("buffer",)  # structural equality: where variables are defined

    buffer: Buffer
    body: Stmt


@node
class BufferRealize(Stmt):
    """TVM's pre-schedule marker that ``buffer`` is realized over ``bounds`` (one Range per
    dimension) around ``body`` when ``condition`` holds; lowered away before codegen."""

    buffer: Buffer
    bounds: tuple
    condition: PrimExpr
    body: Stmt

    def __post_init__(self):
        _coerce(self, exprs=("condition",), seqs=("bounds",))


@node
class Prefetch(Stmt):
    """A hint that the region ``bounds`` of ``buffer`` will be read soon."""

    buffer: Buffer
    bounds: tuple

    def __post_init__(self):
        _coerce(self, seqs=("bounds",))


@node
class Evaluate(Stmt):
    value: PrimExpr

    def __post_init__(self):
        _coerce(self, exprs=("value",))


@node
class AssertStmt(Stmt):
    condition: PrimExpr
    message: PrimExpr
    body: Stmt

    def __post_init__(self):
        _coerce(self, exprs=("condition",), strings=("message",))


@node
class AttrStmt(Stmt):
    node: object
    attr_key: str
    value: PrimExpr
    body: Stmt

    def __post_init__(self):
        _coerce(self, exprs=("value",), strings=("value",))


def _is_zero(e) -> bool:
    return getattr(e, "value", None) == 0


def stmt_list(stmt) -> list:
    """The statements of ``stmt`` in order (a SeqStmt's, nested ones flattened; else ``[stmt]``)."""
    if isinstance(stmt, SeqStmt):
        return [s for part in stmt.seq for s in stmt_list(part)]
    return [stmt]


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


