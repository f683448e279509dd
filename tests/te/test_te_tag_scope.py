"""te.tag_scope tags the computes made inside a with-block or a decorated function."""

import pytest

from ember import te


@te.tag_scope(tag="conv")
def tagged_compute(A):
    return te.compute(A.shape, lambda i: A[i] * 2, name="B")


def test_with_block_tags_compute():
    A = te.placeholder((4,), name="A")
    with te.tag_scope(tag="gemm"):
        B = te.compute((4,), lambda i: A[i] + 1)
    C = te.compute((4,), lambda i: B[i] + 1)
    assert B.op.tag == "gemm"
    assert C.op.tag == ""


def test_decorator_tags_compute_and_explicit_tag_wins():
    A = te.placeholder((4,), name="A")
    assert tagged_compute(A).op.tag == "conv"
    with te.tag_scope(tag="x"):
        assert te.compute((4,), lambda i: A[i], tag="mine").op.tag == "mine"


def test_nested_scopes_are_refused():
    A = te.placeholder((4,), name="A")
    with pytest.raises(ValueError, match="do not nest"):
        with te.tag_scope(tag="outer"):
            tagged_compute(A)
