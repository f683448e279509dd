"""The document tree of printed Python: expressions and statements as nodes (``tvm.script.printer.doc``).

A printer of IR can build these nodes instead of text, and ``doc_printer.to_python_script``
renders them with Python's precedence and indentation. Every node may carry
``source_paths`` (``ObjectPath``s of the IR objects it stands for), which the renderer uses
to underline those objects; statements may carry a ``comment``.

Nodes are small mutable records (``comment`` and ``source_paths`` are set after
construction, as TVM's API does); sequences are stored as tuples.
"""

from __future__ import annotations

import enum

__all__ = [
    "Doc", "ExprDoc", "StmtDoc", "StmtBlockDoc", "LiteralDoc", "IdDoc", "AttrAccessDoc",
    "IndexDoc", "CallDoc", "OperationKind", "OperationDoc", "LambdaDoc", "TupleDoc", "ListDoc",
    "DictDoc", "SliceDoc", "AssignDoc", "IfDoc", "WhileDoc", "ForDoc", "ScopeDoc", "ExprStmtDoc",
    "AssertDoc", "ReturnDoc", "FunctionDoc", "ClassDoc", "CommentDoc", "DocStringDoc",
]


class Doc:
    """Base of every node: where in the IR the node comes from (``source_paths``)."""

    __slots__ = ("_source_paths", "__dict__")

    @property
    def source_paths(self) -> tuple:
        return getattr(self, "_source_paths", ())

    @source_paths.setter
    def source_paths(self, paths) -> None:
        self._source_paths = tuple(paths or ())


class ExprDoc(Doc):
    """An expression; ``x.attr("a")``, ``x[i]`` and ``x.call(...)`` build bigger ones."""

    __slots__ = ()

    def attr(self, name: str) -> AttrAccessDoc:
        return AttrAccessDoc(self, name)

    def call(self, *args, **kwargs) -> CallDoc:
        return CallDoc(self, *args, **kwargs)

    def __getitem__(self, indices) -> IndexDoc:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return IndexDoc(self, indices)

    def __iter__(self):  # an ExprDoc is not a sequence (``__getitem__`` would make it look like one)
        raise TypeError(f"{type(self).__name__} is not iterable")


class StmtDoc(Doc):
    """A statement; ``comment`` prints after it (one line) or above it (compound statements)."""

    __slots__ = ("comment",)

    def __init__(self):
        self.comment = None


class StmtBlockDoc(Doc):
    """Statements one after another, at one indentation level."""

    __slots__ = ("stmts",)

    def __init__(self, stmts):
        self.stmts = tuple(stmts)


class LiteralDoc(ExprDoc):
    """``None``, a bool, an int, a float or a string."""

    __slots__ = ("value",)

    def __init__(self, value, path=None):
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise TypeError(f"LiteralDoc: unsupported literal of type {type(value).__name__}")
        self.value = value
        if path is not None:
            self.source_paths = [path]


class IdDoc(ExprDoc):
    """A name."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class AttrAccessDoc(ExprDoc):
    """``value.name``."""

    __slots__ = ("value", "name")

    def __init__(self, value: ExprDoc, name: str):
        self.value, self.name = value, name


class IndexDoc(ExprDoc):
    """``value[indices]``; an index is an expression or a ``SliceDoc``."""

    __slots__ = ("value", "indices")

    def __init__(self, value: ExprDoc, indices):
        self.value, self.indices = value, tuple(indices)


class CallDoc(ExprDoc):
    """``callee(*args, **kwargs)``, keyword names kept in order."""

    __slots__ = ("callee", "args", "kwargs_keys", "kwargs_values")

    def __init__(self, callee: ExprDoc, *args, **kwargs):
        self.callee, self.args = callee, tuple(args)
        self.kwargs_keys, self.kwargs_values = tuple(kwargs), tuple(kwargs.values())


class OperationKind(enum.IntEnum):
    """Operators of ``OperationDoc``, grouped (the ``_…Start/_…End`` markers bound the groups)."""

    _UnaryStart = 0
    USub = 1
    Invert = 2
    Not = 3
    _UnaryEnd = 4
    _BinaryStart = 5
    Add = 6
    Sub = 7
    Mult = 8
    Div = 9
    FloorDiv = 10
    Mod = 11
    Pow = 12
    LShift = 13
    RShift = 14
    BitAnd = 15
    BitOr = 16
    BitXor = 17
    Lt = 18
    LtE = 19
    Eq = 20
    NotEq = 21
    Gt = 22
    GtE = 23
    And = 24
    Or = 25
    _BinaryEnd = 26
    _SpecialStart = 27
    IfThenElse = 28
    _SpecialEnd = 29


class OperationDoc(ExprDoc):
    """A unary, binary or special (``a if c else b``: operands ``[c, a, b]``) operation."""

    __slots__ = ("kind", "operands")

    def __init__(self, kind: OperationKind, operands):
        self.kind, self.operands = OperationKind(kind), tuple(operands)


class LambdaDoc(ExprDoc):
    """``lambda args: body``."""

    __slots__ = ("args", "body")

    def __init__(self, args, body: ExprDoc):
        self.args, self.body = tuple(args), body


class TupleDoc(ExprDoc):
    __slots__ = ("elements",)

    def __init__(self, elements=()):
        self.elements = tuple(elements)


class ListDoc(ExprDoc):
    __slots__ = ("elements",)

    def __init__(self, elements=()):
        self.elements = tuple(elements)


class DictDoc(ExprDoc):
    """``{k: v, ...}`` with expression keys, in insertion order."""

    __slots__ = ("keys", "values")

    def __init__(self, content=None):
        content = dict(content or {})
        self.keys, self.values = tuple(content), tuple(content.values())


class SliceDoc(Doc):
    """``start:stop:step`` inside an index; each part may be absent."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start=None, stop=None, step=None):
        self.start, self.stop, self.step = start, stop, step


class AssignDoc(StmtDoc):
    """``lhs: annotation = rhs``; also a function parameter (``x: int = 1``)."""

    __slots__ = ("lhs", "rhs", "annotation")

    def __init__(self, lhs: ExprDoc, rhs=None, annotation=None):
        super().__init__()
        if rhs is None and annotation is None:
            raise ValueError("AssignDoc: a declaration needs a right-hand side or an annotation")
        if isinstance(lhs, TupleDoc) and annotation is not None:
            raise ValueError("AssignDoc: a tuple on the left-hand side cannot be annotated")
        self.lhs, self.rhs, self.annotation = lhs, rhs, annotation


class IfDoc(StmtDoc):
    __slots__ = ("predicate", "then_branch", "else_branch")

    def __init__(self, predicate: ExprDoc, then_branch, else_branch):
        super().__init__()
        if not then_branch and not else_branch:
            raise ValueError("IfDoc: the then branch and the else branch cannot both be empty")
        self.predicate = predicate
        self.then_branch, self.else_branch = tuple(then_branch), tuple(else_branch)


class WhileDoc(StmtDoc):
    __slots__ = ("predicate", "body")

    def __init__(self, predicate: ExprDoc, body):
        super().__init__()
        self.predicate, self.body = predicate, tuple(body)


class ForDoc(StmtDoc):
    """``for lhs in rhs:``."""

    __slots__ = ("lhs", "rhs", "body")

    def __init__(self, lhs: ExprDoc, rhs: ExprDoc, body):
        super().__init__()
        self.lhs, self.rhs, self.body = lhs, rhs, tuple(body)


class ScopeDoc(StmtDoc):
    """``with rhs as lhs:`` (``with rhs:`` when ``lhs`` is None)."""

    __slots__ = ("lhs", "rhs", "body")

    def __init__(self, lhs, rhs: ExprDoc, body):
        super().__init__()
        self.lhs, self.rhs, self.body = lhs, rhs, tuple(body)


class ExprStmtDoc(StmtDoc):
    __slots__ = ("expr",)

    def __init__(self, expr: ExprDoc):
        super().__init__()
        self.expr = expr


class AssertDoc(StmtDoc):
    __slots__ = ("test", "msg")

    def __init__(self, test: ExprDoc, msg=None):
        super().__init__()
        self.test, self.msg = test, msg


class ReturnDoc(StmtDoc):
    __slots__ = ("value",)

    def __init__(self, value: ExprDoc):
        super().__init__()
        self.value = value


class FunctionDoc(StmtDoc):
    """A ``def``: parameters are ``AssignDoc``s without or with a default; its comment is a docstring."""

    __slots__ = ("name", "args", "decorators", "return_type", "body")

    def __init__(self, name: IdDoc, args, decorators, return_type, body):
        super().__init__()
        self.name, self.args, self.decorators = name, tuple(args), tuple(decorators)
        self.return_type, self.body = return_type, tuple(body)


class ClassDoc(StmtDoc):
    __slots__ = ("name", "decorators", "body")

    def __init__(self, name: IdDoc, decorators, body):
        super().__init__()
        self.name, self.decorators, self.body = name, tuple(decorators), tuple(body)


class CommentDoc(StmtDoc):
    """A comment on lines of its own."""

    __slots__ = ()

    def __init__(self, comment: str):
        super().__init__()
        self.comment = comment


class DocStringDoc(StmtDoc):
    """A triple-quoted string statement."""

    __slots__ = ()

    def __init__(self, comment: str):
        super().__init__()
        self.comment = comment
