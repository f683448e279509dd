"""TVMScript's env_thread / launch_thread statement form parses to thread_extent attributes
and prints back in a form that parses to the same function."""

import pytest

from ember.ir import structural_equal
from ember.script import from_source
from ember.script import tir as T
from ember.script.errors import ParserError
from ember.tir import AttrStmt


@T.prim_func
def scale_on_threads(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (16,), "float32")
    B = T.match_buffer(b, (16,), "float32")
    tx = T.env_thread("threadIdx.x")
    bx = T.env_thread("blockIdx.x")
    T.launch_thread(bx, 4)
    T.launch_thread(tx, 4)
    B[bx * 4 + tx] = A[bx * 4 + tx] * T.float32(2)


def test_env_thread_launch_builds_thread_extents():
    outer = scale_on_threads.body
    assert isinstance(outer, AttrStmt) and outer.attr_key == "thread_extent"
    assert outer.node.thread_tag == "blockIdx.x"
    assert outer.body.node.thread_tag == "threadIdx.x"


def test_env_thread_round_trips():
    again = from_source(scale_on_threads.script())
    assert structural_equal(again, scale_on_threads)


def test_launch_thread_of_a_non_thread_is_an_error():
    src = '''
@T.prim_func
def bad(A: T.Buffer((4,), "float32")):
    T.launch_thread(3, 4)
    A[0] = T.float32(1)
'''
    with pytest.raises(ParserError, match="T.env_thread"):
        from_source(src)
