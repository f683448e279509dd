"""Printing with underlines and comments on chosen objects or object paths."""

import pytest

from ember.ir import assert_structural_equal
from ember.ir.structural import StructuralMismatch
from ember.runtime import ObjectPath
from ember.script import from_source

TEXT = '''@T.prim_func
def main(a: T.int32, b: T.int32):
    T.evaluate(a)
    T.evaluate(b)
    T.evaluate(a + b)
'''
HEADER = "# from ember.script import tir as T\n\n"


def test_underline_uses_of_an_object_but_not_its_definition():
    f = from_source(TEXT)
    assert f.script(obj_to_underline=[f.params[0]]) == HEADER + (
        "@T.prim_func\ndef main(a: T.int32, b: T.int32):\n"
        "    T.evaluate(a)\n               ^\n    T.evaluate(b)\n    T.evaluate(a + b)\n               ^")


def test_underline_a_statement_by_path_and_the_whole_function():
    f = from_source(TEXT)
    path = ObjectPath.root().attr("body").attr("seq").array_index(1)
    text = f.script(path_to_underline=[path])
    assert "    T.evaluate(b)\n    ^^^^^^^^^^^^^\n" in text
    whole = f.script(path_to_underline=[ObjectPath.root()])
    assert whole.startswith(HEADER + "@T.prim_func\n^^^^^^^^^^^^\ndef main")


def test_annotations_are_trailing_comments_of_simple_statements():
    f = from_source(TEXT)
    text = f.script(obj_to_annotate={f.body.seq[0]: "first"},
                    path_to_annotate={ObjectPath.root().attr("body").attr("seq").array_index(2): "sum"})
    assert "    T.evaluate(a)  # first\n    T.evaluate(b)\n    T.evaluate(a + b)  # sum" in text


def test_structural_mismatch_underlines_the_difference_in_both_functions():
    f = from_source(TEXT.replace("T.evaluate(b)", "T.evaluate(b + 7)"))
    g = from_source(TEXT.replace("T.evaluate(b)", "T.evaluate(b + 9)"))
    with pytest.raises(StructuralMismatch) as info:
        assert_structural_equal(f, g)
    message = str(info.value)
    assert "caused by lhs at <root>.body.seq[1].value.b.value:" in message
    assert "    T.evaluate(b + 7)\n                   ^\n" in message
    assert "and rhs at <root>.body.seq[1].value.b.value:" in message
    assert message.endswith("    T.evaluate(b + 9)\n                   ^\n    T.evaluate(a + b)")


def test_a_shared_object_is_underlined_wherever_it_is_used():
    # paths resolve to objects: a path ending at a variable marks every use of it
    f = from_source(TEXT)
    text = f.script(path_to_underline=[ObjectPath.root().attr("body").attr("seq").array_index(1)
                                       .attr("value")])
    assert text.endswith("    T.evaluate(b)\n               ^\n    T.evaluate(a + b)\n                   ^")
