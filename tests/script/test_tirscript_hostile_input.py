"""Issue 15: hostile TVMScript gets a ParserError at the offending line (it used to raise
KeyError / a bare TypeError, or was accepted and crashed code generation)."""

import re

import pytest

from ember.script import from_source
from ember.script import tir as T
from ember.script.errors import ParserError

HEADER = '@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'


def _error(src: str) -> str:
    with pytest.raises(ParserError) as info:
        from_source(src)
    return str(info.value)


def _at(text: str, line: int, message: str) -> None:
    assert message in text, text
    assert re.search(rf"<script>:{line}:\d+", text), text


def test_matmul_augmented_assignment():
    _at(_error(HEADER + "    for i in range(4):\n        A[i] @= 1\n"), 4,
        "augmented assignment @= is not supported; use one of +=, -=, *=, /=, //=, %=")


def test_unknown_decorator_keyword():
    _at(_error('@T.prim_func(foo=1)\ndef f(A: T.Buffer((4,), "float32")):\n    A[0] = T.float32(1)\n'), 1,
        "unknown decorator keyword argument 'foo'; expected one of private, check_well_formed")
    module = ('@I.ir_module\nclass M:\n    @T.prim_func(privat=True)\n'
              '    def f(A: T.Buffer((4,), "float32")):\n        A[0] = T.float32(1)\n')
    _at(_error(module), 3, "unknown decorator keyword argument 'privat'")


def test_unknown_keyword_to_the_python_decorator():
    with pytest.raises(TypeError, match="T.prim_func: unknown keyword argument 'foo'; expected one of private"):
        @T.prim_func(foo=1)
        def f(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)


@pytest.mark.parametrize("stmt", ["A[2.5] = T.float32(1)", "A[0] = A[T.float32(1)]"])
def test_float_index(stmt):
    _at(_error(HEADER + f"    {stmt}\n"), 3, "indices must be integers")


@pytest.mark.parametrize("loop", ["range(2.5)", "T.grid(2.5, 2)", "T.serial(0, 2.5)"])
def test_float_loop_extent(loop):
    _at(_error(HEADER + f"    for i in {loop}:\n        A[0] = T.float32(1)\n"), 3,
        "a loop extent must be an integer, got T.float32(2.5) of dtype float32")


def test_handle_dtype_buffer():
    _at(_error('@T.prim_func\ndef f(A: T.Buffer((4,), "handle")):\n    A[0] = A[1]\n'), 2,
        "parameter 'A': buffers of dtype 'handle' are not supported")


def test_unknown_dtypes_have_locations():
    _at(_error('@T.prim_func\ndef f(A: T.Buffer((4,), "floot32")):\n    A[0] = T.float32(1)\n'), 2,
        "unknown data type 'floot32'")
    _at(_error(HEADER + '    B = T.alloc_buffer((4,), "int33x")\n    A[0] = T.float32(1)\n'), 3,
        "unknown data type 'int33x'")
    _at(_error(HEADER + '    A[0] = T.Cast("flot", A[1])\n'), 3, "unknown data type 'flot'")


def test_expression_errors_have_locations():
    _at(_error(HEADER + '    A[0] = A[0] + "x"\n'), 3, "expected a PrimExpr or a Python number, got str")


def test_float_buffer_shape():
    _at(_error('@T.prim_func\ndef f(A: T.Buffer((4, T.float32(1)), "float32")):\n    A[0, 0] = T.float32(1)\n'), 2,
        "parameter 'A': buffer shape entries must be integers, got T.float32(1.0) of dtype float32")
    _at(_error(HEADER + "    B = T.alloc_buffer((2.5,))\n    A[0] = T.float32(1)\n"), 3,
        "buffer 'B': shape entries must be integers")


def test_bitwise_operator_on_floats():
    _at(_error(HEADER + "    A[0] = A[1] | A[2]\n"), 3, "operator | needs integer or bool operands")
    _at(_error(HEADER + "    A[0] = ~A[1]\n"), 3, "operator ~ needs integer or bool operands")


def test_float_block_binding():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    for i in range(4):\n'
           '        with T.block("B"):\n            v = T.axis.spatial(4, 2.5)\n            A[v] = T.float32(1)\n')
    _at(_error(src), 5, "T.axis.spatial: the binding must be an integer, got 2.5")


@pytest.mark.parametrize("expr", ["1 << 2147483648", "10 ** 100", "(1 << 64) * 2"])
def test_integer_constants_beyond_64_bits(expr):
    _at(_error(HEADER + f"    A[0] = T.float32({expr})\n"), 3, "does not fit in 64 bits")


def test_int_compared_with_a_fraction_round_trips():
    src = (HEADER + "    for i in range(4):\n        if i < 2.5:\n            A[i] = T.float32(1)\n")
    func = from_source(src)
    import ember
    ember.ir.assert_structural_equal(from_source(func.script()), func)
