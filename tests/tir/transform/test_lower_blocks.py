"""LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock: before/expected pairs and numerics."""

import pytest
from tir_lower_builders import (
    as_mod, assert_same_results, block_elementwise_2d, func_of, loop, matmul_add,
)

from ember.ir import assert_structural_equal, const
from ember.tir import (
    Allocate, Block, BlockRealize, BufferRegion, BufferStore, DeclBuffer, ForKind, IfThenElse,
    IterVar, IterVarType, MatchBufferRegion, Range, Var, decl_buffer, seq,
)
from ember.tir import transform as T
from ember.tir.functor import collect


def _reduce_block():
    """C[vi] = sum_k A[vi, vk] with init C[vi] = 0 (block TIR)."""
    A = decl_buffer((4, 8), "float32", "A")
    C = decl_buffer((4,), "float32", "C")
    i, k, vi, vk = Var("i"), Var("k"), Var("vi"), Var("vk")
    ivs = (IterVar(Range(0, 4), vi, IterVarType.DataPar), IterVar(Range(0, 8), vk, IterVarType.CommReduce))
    body = BufferStore(C, C[vi] + A[vi, vk], (vi,))
    init = BufferStore(C, const(0.0), (vi,))
    block = Block(ivs, (), (), "C", body, init)
    realize = BlockRealize((i, k), const(True), block)
    return (A, C, i, k, vi, vk, ivs, body, init), func_of([A, C], loop(i, 4, loop(k, 8, realize)))


def test_lower_init_block_guards_init_with_reduce_iters_at_start():
    (A, C, i, k, vi, vk, ivs, body, init), func = _reduce_block()
    after = T.lower_init_block(func)
    block = Block(ivs, (), (), "C", seq(IfThenElse(vk == const(0), init), body))
    expected = func_of([A, C], loop(i, 4, loop(k, 8, BlockRealize((i, k), const(True), block))))
    assert_structural_equal(after, expected)
    assert_same_results(func, after)


def test_lower_init_block_without_reduce_iters_runs_init_always():
    A = decl_buffer((4,), "float32", "A")
    vi, i = Var("vi"), Var("i")
    init = BufferStore(A, const(0.0), (vi,))
    body = BufferStore(A, A[vi] + const(1.0), (vi,))
    block = Block((IterVar(Range(0, 4), vi),), (), (), "b", body, init)
    func = func_of([A], loop(i, 4, BlockRealize((i,), const(True), block)))
    after = T.lower_init_block(func)
    assert after.body.body.block.body.seq[0] is init


def test_convert_blocks_to_opaque_substitutes_iter_vars():
    func = block_elementwise_2d()
    after = T.convert_blocks_to_opaque(func)
    blocks = collect(after.body, lambda n: isinstance(n, Block))
    assert all(not b.iter_vars for b in blocks)
    store = collect(after.body, lambda n: isinstance(n, BufferStore))[0]
    loops = [after.body.block.body, after.body.block.body.body]
    assert store.indices[0] is loops[0].loop_var and store.indices[1] is loops[1].loop_var
    assert_same_results(func, after)


def test_lower_opaque_block_removes_blocks_and_keeps_loop_kinds():
    func = block_elementwise_2d()
    outer = func.body.block.body
    from ember.ir import replace

    func = func.with_body(replace(func.body, block=replace(func.body.block, body=replace(outer, kind=ForKind.PARALLEL, annotations={"pragma_x": 1}))))
    after = T.lower_opaque_block(T.convert_blocks_to_opaque(func))
    assert not collect(after.body, lambda n: isinstance(n, Block | BlockRealize))
    # pragma annotations become attributes around the loop, as in TVM
    assert after.body.attr_key == "pragma_x" and after.body.value.value == 1
    assert after.body.body.kind == ForKind.PARALLEL and not after.body.body.annotations
    assert_same_results(func, after)


def test_lower_opaque_block_predicate_and_alloc_buffers():
    A = decl_buffer((10,), "float32", "A")
    T0 = decl_buffer((10,), "float32", "T0")
    i, j = Var("i"), Var("j")
    store = BufferStore(T0, A[i * 4 + j], (i * 4 + j,))
    inner = BlockRealize((), (i * 4 + j) < 10, Block((), (), (), "b", store))
    root = BlockRealize((), const(True), Block((), (), (), "root", loop(i, 3, loop(j, 4, inner)), alloc_buffers=(T0,)))
    func = func_of([A], root)
    after = T.lower_opaque_block(func)
    expected_body = Allocate(
        T0.data, T0.dtype, T0.shape, const(True),
        DeclBuffer(T0, loop(i, 3, loop(j, 4, IfThenElse((i * 4 + j) < 10, store)))),
    )
    assert_structural_equal(after, func_of([A], expected_body))


def test_lower_opaque_block_inlines_match_buffer():
    A = decl_buffer((4, 8), "float32", "A")
    sub = decl_buffer((4,), "float32", "sub")
    i, j = Var("i"), Var("j")
    src = BufferRegion(A, (Range(i, 1), Range(4, 4)))
    block = Block((), (), (), "b", BufferStore(sub, sub[j] * const(2.0), (j,)),
                  match_buffers=(MatchBufferRegion(sub, src),))
    body = loop(i, 4, BlockRealize((), const(True), Block((), (), (), "outer", loop(j, 4, BlockRealize((), const(True), block)))))
    func = func_of([A], body)
    after = T.lower_opaque_block(func)
    expected = func_of([A], loop(i, 4, loop(j, 4, BufferStore(A, A[i, 4 + j] * const(2.0), (i, 4 + j)))))
    assert_structural_equal(after, expected)
    assert_same_results(func, after)


def test_lower_opaque_block_match_buffer_rank_error():
    A = decl_buffer((4,), "float32", "A")
    sub = decl_buffer((2, 2), "float32", "sub")
    block = Block((), (), (), "b", BufferStore(sub, const(1.0), (const(0), const(0))),
                  match_buffers=(MatchBufferRegion(sub, BufferRegion(A, (Range(0, 4),))),))
    func = func_of([A], BlockRealize((), const(True), block))
    with pytest.raises(ValueError, match="match_buffer 'sub': expected a source region of at least 2"):
        T.lower_opaque_block(func)


def test_lower_opaque_block_refuses_iterators_and_init():
    func = block_elementwise_2d()
    with pytest.raises(ValueError, match="block 'B' still has iterators; run ConvertBlocksToOpaque"):
        T.lower_opaque_block(func)
    _, reduce_func = _reduce_block()
    with pytest.raises(ValueError, match="block 'C' still has an init statement; run LowerInitBlock"):
        T.lower_opaque_block(T.convert_blocks_to_opaque(reduce_func))


def test_convert_blocks_to_opaque_arity_error():
    func = block_elementwise_2d()
    from ember.ir import replace

    inner = collect(func.body, lambda n: isinstance(n, BlockRealize) and n.block.name_hint == "B")[0]
    bad = replace(inner, iter_values=inner.iter_values[:1])
    from ember.tir import ir_transform

    func = func.with_body(ir_transform(func.body, lambda n: bad if n is inner else None, None))
    with pytest.raises(ValueError, match="block 'B': expected one iter value per block iterator \\(2\\), got 1"):
        T.convert_blocks_to_opaque(func)


def test_each_block_pass_preserves_matmul_results():
    func = matmul_add()
    step1 = T.lower_init_block(func)
    step2 = T.convert_blocks_to_opaque(step1)
    step3 = T.lower_opaque_block(step2)
    for after in (step1, step2, step3):
        assert_same_results(func, after)
    assert not collect(step3.body, lambda n: isinstance(n, Block))


def test_pass_objects_run_on_modules():
    mod = as_mod(matmul_add())
    out = T.LowerBlocks()(mod)
    assert not collect(out["main"].body, lambda n: isinstance(n, Block))
    assert T.LowerInitBlock().info.name == "tir.LowerInitBlock"
