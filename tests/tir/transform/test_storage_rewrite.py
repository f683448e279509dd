"""StorageRewrite (lite): sibling temporaries of one dtype/scope share one allocation."""

from tir_lower_builders import assert_same_results, func_of, loop

from ember.ir import const
from ember.tir import Allocate, BufferStore, Var, decl_buffer, seq
from ember.tir import transform as T
from ember.tir.buffer import BufferLoad
from ember.tir.functor import collect


def _stage(A, B, tmp, n, scale):
    i, j = Var("i"), Var("j")
    return Allocate(tmp.data, tmp.dtype, (const(n),), const(True), seq(
        loop(i, n, BufferStore(tmp, A[i] * const(scale), (i,))),
        loop(j, n, BufferStore(B, B[j] + tmp[j], (j,))),
    ))


def _two_stages(scope2="global"):
    A = decl_buffer((8,), "float32", "A")
    B = decl_buffer((8,), "float32", "B")
    t1 = decl_buffer((4,), "float32", "t1")
    t2 = decl_buffer((8,), "float32", "t2", scope=scope2)
    mid = BufferStore(B, const(0.5), (const(0),))
    body = seq(_stage(A, B, t1, 4, 2.0), mid, _stage(A, B, t2, 8, 3.0))
    return func_of([A, B], body), t1, t2, mid


def test_sibling_temporaries_share_memory():
    func, t1, t2, mid = _two_stages()
    after = T.storage_rewrite(func)
    allocs = collect(after.body, lambda n: isinstance(n, Allocate))
    assert len(allocs) == 1 and allocs[0].buffer_var is t1.data and allocs[0].extents[0].value == 8
    datas = {id(n.buffer.data) for n in collect(after.body, lambda n: isinstance(n, BufferLoad)) if n.buffer.name.startswith("t")}
    assert datas == {id(t1.data)}
    assert mid in allocs[0].body.seq
    assert_same_results(func, after)


def test_different_scope_is_not_shared():
    func, *_ = _two_stages(scope2="local")
    after = T.storage_rewrite(func)
    assert after is func
