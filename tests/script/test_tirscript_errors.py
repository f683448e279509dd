"""Parse errors: the message, the file, the line, the source line and a caret."""

import pytest

import ember
from ember.script import ParserError
from ember.script import tir as T


def _parse(body: str, params: str = 'A: T.Buffer((8,), "float32")'):
    text = f"@T.prim_func\ndef f({params}):\n" + "\n".join("    " + line for line in body.splitlines())
    return ember.script.from_source(text, filename="kernel.py")


def test_error_shows_file_line_source_and_caret():
    with pytest.raises(ParserError) as info:
        _parse("for i in range(8):\n    A[i] = undefined_name + 1")
    err = info.value
    assert err.filename == "kernel.py" and err.lineno == 4
    text = str(err)
    assert "error: name 'undefined_name' is not defined" in text
    assert "--> kernel.py:4:16" in text
    assert "4 |         A[i] = undefined_name + 1" in text
    assert text.splitlines()[-1] == "  |                ^^^^^^^^^^^^^^"


def test_error_in_decorated_function_points_into_this_file():
    with pytest.raises(ParserError, match=r"test_tirscript_errors\.py:\d+:\d+") as info:
        @T.prim_func
        def bad(A: T.Buffer((4,), "float32")):
            for i, j, k in T.grid(4, 4):  # noqa: B007
                A[i] = T.float32(0)

    assert "the loop makes 2 variables but 3 names are given" in str(info.value)
    assert "for i, j, k in T.grid(4, 4):" in str(info.value)


def test_remap_kinds_must_be_s_or_r():
    with pytest.raises(ParserError, match=r"T.axis.remap: 'kinds' must be a string of S and R, got 'SX'"):
        _parse('for i, j in T.grid(8, 8):\n    with T.block("b"):\n'
               '        vi, vj = T.axis.remap("SX", [i, j])\n        A[vi] = T.float32(0)')


def test_remap_binding_must_be_a_loop_var():
    with pytest.raises(ParserError, match="binding .* is not the variable of an enclosing loop"):
        _parse('with T.block("b"):\n    vi = T.axis.remap("S", [3])\n    A[vi] = T.float32(0)')


def test_statement_word_outside_block():
    with pytest.raises(ParserError, match=r"T.reads must be used inside a `with T.block\(...\)` body"):
        _parse("T.reads(A[0])\nA[0] = T.float32(0)")


def test_statement_word_inside_expression():
    with pytest.raises(ParserError, match="T.grid is a statement and cannot be used inside an expression"):
        _parse("A[0] = T.grid(3)")


def test_missing_parameter_annotation():
    with pytest.raises(ParserError, match="parameter 'x' needs a type annotation") as info:
        _parse("A[0] = T.float32(0)", params='A: T.Buffer((8,), "float32"), x')
    assert info.value.lineno == 2


def test_bad_parameter_annotation():
    with pytest.raises(ParserError, match="parameter 'x': expected T.Buffer"):
        _parse("A[0] = T.float32(0)", params='x: 5')


def test_wrong_number_of_indices():
    with pytest.raises(ParserError, match="buffer A has 1 dimensions but the store gives 2 indices"):
        _parse("A[0, 1] = T.float32(0)")


def test_bad_loop_iterable():
    with pytest.raises(ParserError, match=r"a loop must iterate over range\(...\), T.grid"):
        _parse("for i in [1, 2]:\n    A[i] = T.float32(0)")


def test_unsupported_with_and_statement():
    with pytest.raises(ParserError, match="expected T.block, T.init"):
        _parse("with open('x'):\n    A[0] = T.float32(0)")
    with pytest.raises(ParserError, match="Try statements are not supported"):
        _parse("try:\n    A[0] = T.float32(0)\nexcept Exception:\n    pass")


def test_thread_binding_needs_thread():
    with pytest.raises(ParserError, match="T.thread_binding: 'thread' must name a thread axis"):
        _parse("for i in T.thread_binding(8):\n    A[i] = T.float32(0)")


def test_bad_word_arguments_name_the_word():
    with pytest.raises(ParserError, match="T.block: too many positional arguments"):
        _parse("with T.block('a', False, 3):\n    A[0] = T.float32(0)")
    with pytest.raises(ParserError, match="T.axis.spatial: missing a required argument: 'binding'"):
        _parse("with T.block('a'):\n    vi = T.axis.spatial(8)\n    A[vi] = T.float32(0)")
    with pytest.raises(ParserError, match="T.func_attr expects a dict, got list"):
        _parse("T.func_attr([1])\nA[0] = T.float32(0)")


def test_symbolic_condition_in_python_ternary():
    with pytest.raises(ParserError, match=r"use T.Select\(c, a, b\)"):
        _parse("for i in range(8):\n    A[i] = T.float32(1) if i < 3 else T.float32(0)")


def test_ill_formed_result_is_reported():
    with pytest.raises(ParserError, match="is not well-formed"):
        _parse("m = T.int32()\nA[m] = T.float32(0)")


def test_invalid_python_syntax():
    with pytest.raises(ParserError, match="invalid Python syntax") as info:
        ember.script.from_source("@T.prim_func\ndef f(:\n    pass\n", filename="x.py")
    assert info.value.lineno == 2


def test_source_without_function():
    with pytest.raises(ParserError, match="defines no @T.prim_func function or @I.ir_module class"):
        ember.script.from_source("x = 1\n")


def test_unknown_module_function_and_decorator():
    text = ("@I.ir_module\nclass M:\n    @T.prim_func\n    def main(A: T.Buffer((1,), 'float32')):\n"
            "        T.evaluate(cls.missing(A.data))\n")
    with pytest.raises(ParserError, match="the module has no function 'missing'"):
        ember.script.from_source(text)
    text = "@I.ir_module\nclass M:\n    @staticmethod\n    def main():\n        pass\n"
    with pytest.raises(ParserError, match="unknown function decorator"):
        ember.script.from_source(text)


def test_parser_only_words_raise_outside_a_script():
    with pytest.raises(RuntimeError, match="T.reads can only be used inside a @T.prim_func"):
        T.reads()


@pytest.mark.parametrize("body, message", [
    ("    A = T.alloc_buffer((4,))\n    A = T.alloc_buffer((4,))\n", "allocated twice"),
    ("    for i in range(4):\n        with T.block():\n            vi = T.axis.S(4, i)\n"
     "            vi = T.axis.S(4, i)\n            T.evaluate(0)\n", "iterator 'vi' twice"),
    ("    for i in range(4):\n        with T.block():\n            vi = T.axis.S(4, i)\n"
     "            T.where(vi < 2)\n            T.where(vi < 3)\n            T.evaluate(0)\n", "T.where is given twice"),
    ("    for i in range(4):\n        with T.block():\n            T.block_attr({})\n"
     "            T.block_attr({})\n            T.evaluate(0)\n", "T.block_attr is given twice"),
    ("    with T.block(\"root\") as x:\n        T.evaluate(0)\n", "binds no name"),
    ("    A = T.alloc_buffer((8,))\n    A[0] = A[0:2] + T.float32(1)\n", "2-lane value"),
    ("    A = T.alloc_buffer((8,))\n    for i in range(2):\n        with T.block():\n"
     "            B = T.match_buffer(A[i * 4:i * 4 + 4], (5,))\n            T.evaluate(0)\n",
     "holds 4 elements"),
])
def test_malformed_blocks_and_stores_are_reported(body, message):
    from ember.script import ParserError, from_source

    with pytest.raises(ParserError, match=message):
        from_source("@T.prim_func\ndef f():\n" + body)


def test_load_with_wrong_number_of_indices_is_refused():
    from ember.script import from_source

    text = '''@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in T.grid(16, 16):
        T.evaluate(A[i])
'''
    with pytest.raises(ParserError, match="buffer A has 1 dimensions but the load gives 2 indices"):
        from_source(text)
