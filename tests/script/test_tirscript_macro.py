"""@T.macro: TVMScript bodies pasted at their call, hygienic or not."""

import pytest

from ember.ir import assert_structural_equal
from ember.script import tir as T

OFFSET = 3


@T.macro
def add_offset(A, B, i):
    B[i] = A[i] + OFFSET


@T.prim_func(private=True)
def with_macro(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        add_offset(A, B, i)


@T.prim_func(private=True)
def without_macro(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        B[i] = A[i] + 3


def test_macro_body_is_pasted():
    assert_structural_equal(with_macro, without_macro)


def test_hygiene_decides_where_free_names_resolve():
    k = 5

    @T.macro(hygienic=True)
    def at_definition(A):
        A[0] = k

    @T.macro(hygienic=False)
    def at_call(A):
        A[0] = k

    @T.prim_func(private=True)
    def use(A: T.Buffer((8,), "int32")):
        for k in range(2):  # noqa: B007
            at_definition(A)
            at_call(A)

    first, second = use.body.body.seq
    assert int(first.value) == 5
    assert second.value is use.body.loop_var


def test_macro_signature_with_keywords():
    @T.macro
    def fill(*bufs, value, **named):
        bufs[0][0] = value
        named["last"][0] = value

    @T.prim_func(private=True)
    def use(A: T.Buffer((1,), "int32"), B: T.Buffer((1,), "int32")):
        fill(A, value=7, last=B)

    assert len(use.body.seq) == 2


def test_macro_outside_a_function_and_bad_decorator_arguments():
    with pytest.raises(RuntimeError, match="only be called inside"):
        add_offset(1, 2, 3)
    with pytest.raises(ValueError, match="only the keyword argument hygienic"):
        T.macro(True)
