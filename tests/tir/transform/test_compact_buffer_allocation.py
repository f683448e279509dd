"""CompactBufferAllocation: temporaries move to where they are used and shrink."""

import numpy as np
import pytest
from tir_lower_builders import assert_same_results, func_of, loop

from ember import te, tir
from ember.ir import const
from ember.tir import Allocate, BufferStore, DeclBuffer, ForKind, Var, decl_buffer, seq
from ember.tir import transform as T
from ember.tir.functor import collect
from ember.tir.stmt import For

pytest.importorskip("ember.arith")


def _staged(reads_previous=False, kind=ForKind.SERIAL):
    """for i: {for j: T[i, j] = A[i, j] * 2}; for j: B[i, j] = T[i, j] (+ T[i-1, j])."""
    A = decl_buffer((4, 8), "float32", "A")
    B = decl_buffer((4, 8), "float32", "B")
    Tb = decl_buffer((4, 8), "float32", "T")
    i, j, k = Var("i"), Var("j"), Var("k")
    produce = loop(j, 8, BufferStore(Tb, A[i, j] * const(2.0), (i, j)))
    value = Tb[i, k]
    if reads_previous:
        value = value + tir.if_then_else(i > 0, Tb[tir.max(i - 1, 0), k], const(0.0))
    consume = loop(k, 8, BufferStore(B, value, (i, k)))
    body = loop(i, 4, seq(produce, consume), kind)
    return func_of([A, B], Allocate(Tb.data, Tb.dtype, Tb.shape, const(True), DeclBuffer(Tb, body)))


def _allocs(func):
    return collect(func.body, lambda n: isinstance(n, Allocate))


def test_cache_stage_moves_into_loop_and_shrinks():
    func = _staged()
    after = T.compact_buffer_allocation(func)
    (alloc,) = _allocs(after)
    assert [e.value for e in alloc.extents] == [1, 8]
    assert isinstance(after.body, For) and after.body.body is alloc  # inside the i loop
    assert_same_results(func, after)


def test_parallel_loop_gets_private_temporary():
    func = _staged(kind=ForKind.PARALLEL)
    after = T.compact_buffer_allocation(func)
    assert isinstance(after.body, For) and isinstance(after.body.body, Allocate)


def test_value_carried_across_iterations_stays_outside():
    func = _staged(reads_previous=True)
    after = T.compact_buffer_allocation(func)
    (alloc,) = _allocs(after)
    assert after.body is alloc and [e.value for e in alloc.extents] == [4, 8]
    assert_same_results(func, after)


def test_sequence_range_and_untouched_statements():
    A = decl_buffer((8,), "float32", "A")
    Tb = decl_buffer((8,), "float32", "T")
    i, j = Var("i"), Var("j")
    other = loop(j, 8, BufferStore(A, A[j] + const(1.0), (j,)))
    produce = loop(i, 4, BufferStore(Tb, A[i + 4], (i + 4,)))
    consume = loop(j, 4, BufferStore(A, Tb[j + 4] * const(3.0), (j,)))
    body = Allocate(Tb.data, Tb.dtype, Tb.shape, const(True), DeclBuffer(Tb, seq(other, produce, consume)))
    func = func_of([A], body)
    after = T.compact_buffer_allocation(func)
    assert after.body.seq[0] is other
    alloc = after.body.seq[1]
    assert isinstance(alloc, Allocate) and [e.value for e in alloc.extents] == [4]
    assert_same_results(func, after)


def test_escaping_buffer_is_left_alone():
    Tb = decl_buffer((8,), "float32", "T")
    i = Var("i")
    body = Allocate(Tb.data, Tb.dtype, Tb.shape, const(True), DeclBuffer(Tb, seq(
        loop(i, 2, BufferStore(Tb, const(1.0), (i,))),
        tir.Evaluate(tir.call_extern("int32", "use", Tb.data)),
    )))
    func = func_of([], body)
    assert T.compact_buffer_allocation(func) is func


def test_schedule_compute_at_pipeline_matches_numpy():
    A = te.placeholder((16, 32), name="A")
    Bt = te.compute((16, 32), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 32), lambda i, j: Bt[i, j] + 1.0, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    i, j = sch.get_loops(sch.get_block("C"))
    jo, ji = sch.split(j, factors=[None, 8])
    sch.compute_at(sch.get_block("B"), jo)
    sch.vectorize(ji)
    mod = T.lower_for_codegen(sch.mod, verify=True)
    T.check_lowered(mod)
    (alloc,) = _allocs(mod["main"])
    assert [e.value for e in alloc.extents] == [8]
    a = np.random.default_rng(0).random((16, 32), dtype="float32")
    c = np.zeros((16, 32), "float32")
    tir.interpreter.run(mod["main"], a, c)
    np.testing.assert_allclose(c, a * 2 + 1)


def test_gpu_scopes_shared_per_block_local_per_thread():
    A = te.placeholder((64, 32), name="A")
    B = te.placeholder((32, 64), name="B")
    r = te.reduce_axis((0, 32), name="r")
    C = te.compute((64, 64), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    c = sch.get_block("C")
    i, j, _ = sch.get_loops(c)
    io, ii = sch.split(i, [None, 16])
    jo, ji = sch.split(j, [None, 16])
    sch.reorder(io, jo, ii, ji)
    for lp, tag in ((io, "blockIdx.x"), (jo, "blockIdx.y"), (ii, "threadIdx.y"), (ji, "threadIdx.x")):
        sch.bind(lp, tag)
    sch.reverse_compute_at(sch.cache_write(c, 0, "local"), ji)
    sch.compute_at(sch.cache_read(c, 0, "shared"), ji)
    func = T.lower_for_codegen(sch.mod, verify=True)["main"]
    allocs = {a.buffer_var.type_annotation.storage_scope: a for a in _allocs(func)}
    assert allocs["shared"].extents[0].value == 16 * 32 and allocs["local"].extents[0].value == 1

    def tags_above(target):
        found = []

        def walk(node, stack):
            if node is target:
                found.extend(stack)
                return
            for child in (getattr(node, "body", None),):
                if child is not None:
                    walk(child, stack + ([node.thread_binding.thread_tag] if isinstance(node, For) and node.thread_binding else []))
            for item in getattr(node, "seq", ()):
                walk(item, stack)

        walk(func.body, [])
        return found

    # shared memory is one buffer per block: it may sit inside the thread loops (TVM places
    # it at its users' common loop), never outside the block loops
    assert tags_above(allocs["shared"])[:2] == ["blockIdx.x", "blockIdx.y"]
    assert tags_above(allocs["local"])[-1] == "threadIdx.x"
    rng = np.random.default_rng(1)
    a, b = rng.random((64, 32), dtype="float32"), rng.random((32, 64), dtype="float32")
    out = np.zeros((64, 64), "float32")
    tir.interpreter.run(func, a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)


def test_storage_align_gives_compacted_buffer_strides():
    A = te.placeholder((64, 32), name="A")
    B = te.compute((64, 32), lambda i, j: A[i, j] + 1.0, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    b = sch.get_block("B")
    cache = sch.cache_read(b, 0, "global")
    i, _ = sch.get_loops(b)
    io, _ = sch.split(i, [None, 4])
    sch.compute_at(cache, io)
    sch.storage_align(cache, 0, axis=0, factor=16, offset=1)
    func = T.lower_for_codegen(sch.mod, verify=True)["main"]
    (alloc,) = _allocs(func)
    assert alloc.extents[0].value == 4 * 33  # 4 rows of 32 with a row stride of 33
    assert "buffer_dim_align" not in alloc.annotations
    a = np.random.default_rng(2).random((64, 32), dtype="float32")
    out = np.zeros((64, 32), "float32")
    tir.interpreter.run(func, a, out)
    np.testing.assert_allclose(out, a + 1)


def test_symbolic_shape_compacts_to_constant_tile():
    n = te.var("n")
    A = te.placeholder((n, 8), name="A")
    Bt = te.compute((n, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 8), lambda i, j: Bt[i, j] + 1.0, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    i, _ = sch.get_loops(sch.get_block("C"))
    io, _ = sch.split(i, [None, 4])
    sch.compute_at(sch.get_block("B"), io)
    func = T.lower_for_codegen(sch.mod, verify=True)["main"]
    (alloc,) = _allocs(func)
    assert [e.value for e in alloc.extents] == [32]
    a = np.random.default_rng(3).random((10, 8), dtype="float32")
    out = np.zeros_like(a)
    tir.interpreter.run(func, a, out)
    np.testing.assert_allclose(out, 2 * a + 1)


def test_non_constant_size_is_not_moved_into_a_loop():
    n = Var("n")
    A = decl_buffer((n,), "float32", "A")
    Tb = decl_buffer((n,), "float32", "T")
    i, j = Var("i"), Var("j")
    body = loop(i, n, seq(
        loop(j, i + 1, BufferStore(Tb, A[j], (j,))),
        BufferStore(A, Tb[i] * const(2.0), (i,)),
    ))
    func = func_of([n, A], Allocate(Tb.data, Tb.dtype, Tb.shape, const(True), DeclBuffer(Tb, body)))
    after = T.compact_buffer_allocation(func)
    (alloc,) = _allocs(after)
    assert after.body is alloc
