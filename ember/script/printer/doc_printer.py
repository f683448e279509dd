"""Render a ``doc`` tree as Python source (``to_python_script``), optionally underlining the
parts that stand for given IR objects.

Expressions get the fewest parentheses Python's precedence allows (left-associative binary
operators keep a same-level right operand in parentheses, ``**`` the other way round);
statements are indented by ``indent_spaces``. While rendering, each node with
``source_paths`` records the span of text it produced; ``underline.render_lines`` then marks
the spans whose paths lead to ``path_to_underline``.
"""

from __future__ import annotations

from .doc import (
    AssertDoc, AssignDoc, AttrAccessDoc, CallDoc, ClassDoc, CommentDoc, DictDoc, Doc, DocStringDoc,
    ExprStmtDoc, ForDoc, FunctionDoc, IdDoc, IfDoc, IndexDoc, LambdaDoc, ListDoc, LiteralDoc,
    OperationDoc, OperationKind, ReturnDoc, ScopeDoc, SliceDoc, StmtBlockDoc, StmtDoc, TupleDoc,
    WhileDoc,
)
from .underline import Span, render_lines

__all__ = ["to_python_script", "DocPrinter"]

K = OperationKind

# Precedence levels, loosest first (Python's reference, "Operator precedence").
LAMBDA, IF_ELSE, OR, AND, NOT, COMPARE, BIT_OR, BIT_XOR, BIT_AND, SHIFT, ADD, MULT, UNARY, POW, \
    POSTFIX, ATOM = range(16)

_BINARY = {
    K.Add: ("+", ADD), K.Sub: ("-", ADD), K.Mult: ("*", MULT), K.Div: ("/", MULT),
    K.FloorDiv: ("//", MULT), K.Mod: ("%", MULT), K.Pow: ("**", POW), K.LShift: ("<<", SHIFT),
    K.RShift: (">>", SHIFT), K.BitAnd: ("&", BIT_AND), K.BitOr: ("|", BIT_OR),
    K.BitXor: ("^", BIT_XOR), K.Lt: ("<", COMPARE), K.LtE: ("<=", COMPARE), K.Eq: ("==", COMPARE),
    K.NotEq: ("!=", COMPARE), K.Gt: (">", COMPARE), K.GtE: (">=", COMPARE), K.And: ("and", AND),
    K.Or: ("or", OR),
}
_UNARY = {K.USub: ("-", UNARY), K.Invert: ("~", UNARY), K.Not: ("not ", NOT)}

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _string_literal(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def precedence(doc) -> int:
    """How tightly ``doc`` binds as an operand."""
    if isinstance(doc, OperationDoc):
        if doc.kind in _UNARY:
            return _UNARY[doc.kind][1]
        if doc.kind in _BINARY:
            return _BINARY[doc.kind][1]
        return IF_ELSE
    if isinstance(doc, LambdaDoc):
        return LAMBDA
    if isinstance(doc, (AttrAccessDoc, IndexDoc, CallDoc)):
        return POSTFIX
    if isinstance(doc, LiteralDoc) and isinstance(doc.value, (int, float)) and not isinstance(
            doc.value, bool) and doc.value < 0:
        return UNARY  # a negative number reads as a negation
    return ATOM


class DocPrinter:
    """Accumulates the text of a doc tree and the spans of nodes that have source paths."""

    def __init__(self, indent_spaces: int = 4):
        self.indent_spaces = indent_spaces
        self.parts: list[str] = []
        self.pos = 0
        self.level = 0
        self.spans: list[Span] = []

    # -- output -------------------------------------------------------------------------
    def write(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)

    def newline(self) -> None:
        self.write("\n" + " " * (self.indent_spaces * self.level))

    def text(self) -> str:
        return "".join(self.parts)

    # -- dispatch -----------------------------------------------------------------------
    def print(self, doc: Doc) -> None:
        start = self.pos
        method = getattr(self, "print_" + type(doc).__name__, None)
        if method is None:
            raise TypeError(f"to_python_script: cannot print {type(doc).__name__}")
        method(doc)
        if doc.source_paths:
            self.spans.append(Span(start, self.pos, doc.source_paths))

    def operand(self, doc, parenthesize: bool) -> None:
        if parenthesize:
            self.write("(")
            self.print(doc)
            self.write(")")
        else:
            self.print(doc)

    def join(self, docs, sep: str = ", ") -> None:
        for i, doc in enumerate(docs):
            if i:
                self.write(sep)
            self.print(doc)

    # -- expressions --------------------------------------------------------------------
    def print_LiteralDoc(self, doc: LiteralDoc) -> None:
        value = doc.value
        if value is None or isinstance(value, bool):
            self.write(str(value))
        elif isinstance(value, str):
            self.write(_string_literal(value))
        elif isinstance(value, float):
            self.write(repr(value))
        else:
            self.write(str(int(value)))

    def print_IdDoc(self, doc: IdDoc) -> None:
        self.write(doc.name)

    def print_AttrAccessDoc(self, doc: AttrAccessDoc) -> None:
        self.operand(doc.value, precedence(doc.value) < POSTFIX)
        self.write("." + doc.name)

    def print_IndexDoc(self, doc: IndexDoc) -> None:
        self.operand(doc.value, precedence(doc.value) < POSTFIX)
        self.write("[")
        if doc.indices:
            self.join(doc.indices)
        else:
            self.write("()")
        self.write("]")

    def print_SliceDoc(self, doc: SliceDoc) -> None:
        if doc.start is not None:
            self.print(doc.start)
        self.write(":")
        if doc.stop is not None:
            self.print(doc.stop)
        if doc.step is not None:
            self.write(":")
            self.print(doc.step)

    def print_CallDoc(self, doc: CallDoc) -> None:
        self.operand(doc.callee, precedence(doc.callee) < POSTFIX)
        self.write("(")
        self.join(doc.args)
        for i, (key, value) in enumerate(zip(doc.kwargs_keys, doc.kwargs_values)):
            if i or doc.args:
                self.write(", ")
            self.write(f"{key}=")
            self.print(value)
        self.write(")")

    def print_OperationDoc(self, doc: OperationDoc) -> None:
        ops = doc.operands
        if doc.kind in _UNARY:
            token, level = _UNARY[doc.kind]
            self.write(token)
            self.operand(ops[0], precedence(ops[0]) < level)
        elif doc.kind in _BINARY:
            token, level = _BINARY[doc.kind]
            if doc.kind == K.Pow:  # right-associative; a unary operand on the right needs none
                left_parens = precedence(ops[0]) <= level
                right_parens = precedence(ops[1]) < UNARY
            else:
                left_parens = precedence(ops[0]) < level
                right_parens = precedence(ops[1]) <= level
            self.operand(ops[0], left_parens)
            self.write(f" {token} ")
            self.operand(ops[1], right_parens)
        elif doc.kind == K.IfThenElse:
            cond, then, other = ops
            self.operand(then, precedence(then) < IF_ELSE)
            self.write(" if ")
            self.operand(cond, precedence(cond) <= IF_ELSE)
            self.write(" else ")
            self.operand(other, precedence(other) <= IF_ELSE)
        else:
            raise ValueError(f"OperationDoc: unknown operation kind {doc.kind!r}")

    def print_LambdaDoc(self, doc: LambdaDoc) -> None:
        self.write("lambda ")
        self.join(doc.args)
        self.write(": ")
        self.print(doc.body)

    def print_TupleDoc(self, doc: TupleDoc) -> None:
        self.write("(")
        self.join(doc.elements)
        if len(doc.elements) == 1:
            self.write(",")
        self.write(")")

    def print_ListDoc(self, doc: ListDoc) -> None:
        self.write("[")
        self.join(doc.elements)
        self.write("]")

    def print_DictDoc(self, doc: DictDoc) -> None:
        self.write("{")
        for i, (key, value) in enumerate(zip(doc.keys, doc.values)):
            if i:
                self.write(", ")
            self.print(key)
            self.write(": ")
            self.print(value)
        self.write("}")

    # -- statements ---------------------------------------------------------------------
    def block(self, stmts) -> None:
        """Statements one level deeper than the current line; ``pass`` when there are none."""
        self.level += 1
        if not stmts:
            self.newline()
            self.write("pass")
        self.stmts(stmts)
        self.level -= 1

    def stmts(self, stmts) -> None:
        for stmt in stmts:
            self.newline()
            self.print(stmt)
            if isinstance(stmt, (FunctionDoc, ClassDoc)):
                self.write("\n")  # a blank line after a definition

    def trailing_comment(self, doc: StmtDoc) -> None:
        if doc.comment:
            if "\n" in doc.comment:
                raise ValueError(f"{type(doc).__name__}: the comment of a one-line statement "
                                 "cannot have newline")
            self.write(f"  # {doc.comment}")

    def leading_comment(self, doc: StmtDoc) -> None:
        if doc.comment:
            for line in doc.comment.split("\n"):
                self.write(f"# {line}" if line else "#")
                self.newline()

    def docstring(self, text: str) -> None:
        self.write('"""')
        for line in text.split("\n"):
            self.newline()
            self.write(line)
        self.newline()
        self.write('"""')

    def print_StmtBlockDoc(self, doc: StmtBlockDoc) -> None:
        for i, stmt in enumerate(doc.stmts):
            if i:
                self.newline()
            self.print(stmt)
            if isinstance(stmt, (FunctionDoc, ClassDoc)) and i + 1 < len(doc.stmts):
                self.write("\n")

    def print_AssignDoc(self, doc: AssignDoc) -> None:
        if isinstance(doc.lhs, TupleDoc) and doc.lhs.elements:
            self.join(doc.lhs.elements)  # ``x, y = …`` without the tuple's parentheses
        else:
            self.print(doc.lhs)
        if doc.annotation is not None:
            self.write(": ")
            self.print(doc.annotation)
        if doc.rhs is not None:
            self.write(" = " if doc.annotation is not None or not self._in_params else "=")
            self.print(doc.rhs)
        self.trailing_comment(doc)

    _in_params = False

    def print_ExprStmtDoc(self, doc: ExprStmtDoc) -> None:
        self.print(doc.expr)
        self.trailing_comment(doc)

    def print_AssertDoc(self, doc: AssertDoc) -> None:
        self.write("assert ")
        self.print(doc.test)
        if doc.msg is not None:
            self.write(", ")
            self.print(doc.msg)
        self.trailing_comment(doc)

    def print_ReturnDoc(self, doc: ReturnDoc) -> None:
        self.write("return ")
        self.print(doc.value)
        self.trailing_comment(doc)

    def print_IfDoc(self, doc: IfDoc) -> None:
        self.leading_comment(doc)
        self.write("if ")
        self.print(doc.predicate)
        self.write(":")
        self.block(doc.then_branch)
        if doc.else_branch:
            self.newline()
            self.write("else:")
            self.block(doc.else_branch)

    def print_WhileDoc(self, doc: WhileDoc) -> None:
        self.leading_comment(doc)
        self.write("while ")
        self.print(doc.predicate)
        self.write(":")
        self.block(doc.body)

    def print_ForDoc(self, doc: ForDoc) -> None:
        self.leading_comment(doc)
        self.write("for ")
        if isinstance(doc.lhs, TupleDoc) and doc.lhs.elements:
            self.join(doc.lhs.elements)
        else:
            self.print(doc.lhs)
        self.write(" in ")
        self.print(doc.rhs)
        self.write(":")
        self.block(doc.body)

    def print_ScopeDoc(self, doc: ScopeDoc) -> None:
        self.leading_comment(doc)
        self.write("with ")
        self.print(doc.rhs)
        if doc.lhs is not None:
            self.write(" as ")
            self.print(doc.lhs)
        self.write(":")
        self.block(doc.body)

    def decorators(self, decorators) -> None:
        for decorator in decorators:
            self.write("@")
            self.print(decorator)
            self.newline()

    def body_with_docstring(self, doc) -> None:
        if not doc.comment:
            self.block(doc.body)
            return
        self.level += 1
        self.newline()
        self.docstring(doc.comment)
        if not doc.body:
            self.newline()
            self.write("pass")
        self.stmts(doc.body)
        self.level -= 1

    def print_FunctionDoc(self, doc: FunctionDoc) -> None:
        self.decorators(doc.decorators)
        self.write("def ")
        self.print(doc.name)
        self.write("(")
        self._in_params = True
        try:
            self.join(doc.args)
        finally:
            self._in_params = False
        self.write(")")
        if doc.return_type is not None:
            self.write(" -> ")
            self.print(doc.return_type)
        self.write(":")
        self.body_with_docstring(doc)

    def print_ClassDoc(self, doc: ClassDoc) -> None:
        self.decorators(doc.decorators)
        self.write("class ")
        self.print(doc.name)
        self.write(":")
        self.body_with_docstring(doc)

    def print_CommentDoc(self, doc: CommentDoc) -> None:
        if doc.comment:
            for i, line in enumerate(doc.comment.split("\n")):
                if i:
                    self.newline()
                self.write(f"# {line}" if line else "#")

    def print_DocStringDoc(self, doc: DocStringDoc) -> None:
        if doc.comment:
            self.docstring(doc.comment)


def to_python_script(doc: Doc, indent_spaces: int = 4, print_line_numbers: bool = False,
                     num_context_lines: int | None = None, path_to_underline=None) -> str:
    """Python source of ``doc``; the parts whose source paths lead to any of
    ``path_to_underline`` are marked with ``^`` on the line below. ``num_context_lines``
    keeps only that many lines around each marked line (when something is marked)."""
    printer = DocPrinter(indent_spaces)
    printer.print(doc)
    return render_lines(printer.text(), printer.spans, list(path_to_underline or ()),
                        print_line_numbers, num_context_lines)
