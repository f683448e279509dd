"""The document tree (ember.script.printer.doc) and its Python renderer (doc_printer)."""

import pytest

from ember.runtime import ObjectPath
from ember.script.printer.doc import (
    AssignDoc, CallDoc, ClassDoc, CommentDoc, DictDoc, ExprStmtDoc, ForDoc, FunctionDoc, IdDoc,
    IfDoc, LambdaDoc, LiteralDoc, OperationDoc, OperationKind, ReturnDoc, ScopeDoc, SliceDoc,
    StmtBlockDoc, TupleDoc,
)
from ember.script.printer.doc_printer import to_python_script

K = OperationKind
a, b, c = IdDoc("a"), IdDoc("b"), IdDoc("c")


def op(kind, *operands):
    return OperationDoc(kind, list(operands))


@pytest.mark.parametrize("doc, text", [
    (op(K.Sub, a, op(K.Sub, b, c)), "a - (b - c)"),
    (op(K.Sub, op(K.Sub, a, b), c), "a - b - c"),
    (op(K.Pow, op(K.Pow, a, b), c), "(a ** b) ** c"),
    (op(K.Pow, a, op(K.USub, b)), "a ** -b"),
    (op(K.FloorDiv, op(K.BitOr, a, b), c), "(a | b) // c"),
    (op(K.Not, op(K.Or, a, b)), "not (a or b)"),
    (op(K.IfThenElse, a, b, op(K.Add, b, c)), "b if a else b + c"),
    (op(K.USub, a).attr("x"), "(-a).x"),
    (LambdaDoc([a], op(K.Mult, a, a)).call(LiteralDoc(3)), "(lambda a: a * a)(3)"),
    (a[SliceDoc(None, LiteralDoc(4), LiteralDoc(2)), b], "a[:4:2, b]"),
    (CallDoc(IdDoc("f"), a, key=LiteralDoc("v")), 'f(a, key="v")'),
    (DictDoc({LiteralDoc("k"): TupleDoc([a])}), '{"k": (a,)}'),
    (LiteralDoc('say "hi"\n'), r'"say \"hi\"\n"'),
    (op(K.Add, LiteralDoc(-1), LiteralDoc(2.5)), "-1 + 2.5"),
])
def test_expressions_render_with_minimal_parentheses(doc, text):
    assert to_python_script(doc) == text


def test_statements_render_with_indentation_comments_and_docstrings():
    loop = ForDoc(TupleDoc([a, b]), CallDoc(IdDoc("zip"), a, b), [ExprStmtDoc(a)])
    loop.comment = "pairs"
    ret = ReturnDoc(a)
    ret.comment = "done"
    func = FunctionDoc(IdDoc("f"), [AssignDoc(a, None, IdDoc("int")), AssignDoc(b, LiteralDoc(1))],
                       [IdDoc("dec")], IdDoc("int"),
                       [loop, IfDoc(a, [], [ScopeDoc(None, CallDoc(IdDoc("ctx")), [])]), ret])
    func.comment = "line one\n\nline three"
    cls = ClassDoc(IdDoc("M"), [], [func, func])
    assert to_python_script(cls, indent_spaces=2) == '''class M:
  @dec
  def f(a: int, b=1) -> int:
    """
    line one

    line three
    """
    # pairs
    for a, b in zip(a, b):
      a
    if a:
      pass
    else:
      with ctx():
        pass
    return a  # done

  @dec
  def f(a: int, b=1) -> int:
    """
    line one

    line three
    """
    # pairs
    for a, b in zip(a, b):
      a
    if a:
      pass
    else:
      with ctx():
        pass
    return a  # done'''
    assert to_python_script(CommentDoc("x\ny")) == "# x\n# y"


@pytest.mark.parametrize("make, word", [
    (lambda: AssignDoc(a, None, None), "AssignDoc"),
    (lambda: AssignDoc(TupleDoc([a, b]), c, IdDoc("int")), "AssignDoc"),
    (lambda: IfDoc(a, [], []), "IfDoc"),
])
def test_invalid_docs_are_refused(make, word):
    with pytest.raises(ValueError, match=word):
        make()


def test_one_line_statement_refuses_a_multiline_comment():
    stmt = ExprStmtDoc(a)
    stmt.comment = "1\n2"
    with pytest.raises(ValueError, match="cannot have newline"):
        to_python_script(stmt)


def _named(name, path):
    doc = IdDoc(name)
    doc.source_paths = [ObjectPath.root().attr(path)]
    return doc


def test_underline_picks_the_longest_matching_path_and_keeps_context():
    stmts = [ExprStmtDoc(_named(f"v{i}", "other")) for i in range(8)]
    stmts[5] = ExprStmtDoc(op(K.Add, _named("p", "parent"), _named("target", "leaf")))
    stmts[5].expr.operands[1].source_paths = [ObjectPath.root().attr("parent").attr("x")]
    wanted = [ObjectPath.root().attr("parent").attr("x").attr("y")]
    text = to_python_script(StmtBlockDoc(stmts), print_line_numbers=True, num_context_lines=1,
                            path_to_underline=wanted)
    assert text == "(... 4 lines skipped ...)\n5 v4\n6 p + target\n      ^^^^^^\n7 v6\n8 v7"


def test_doc_fields_and_comment_are_attributes():
    stmt = ExprStmtDoc(a)
    assert stmt.comment is None
    stmt.comment = "c"
    assert "comment" not in stmt.__dict__ and stmt.comment == "c"
    a2 = IdDoc("a")
    a2.source_paths = [ObjectPath.root()]
    assert a2.source_paths == (ObjectPath.root(),)
    call = a2.call(b, k=c)
    assert call.args == (b,) and call.kwargs_keys == ("k",) and call.kwargs_values == (c,)
