"""UnrollLoop: explicit and auto unrolling, limits, fresh variables per copy."""

from tir_lower_builders import as_mod, assert_same_results, elementwise_1d, func_of, loop

from ember.ir import assert_structural_equal, const
from ember.tir import AttrStmt, BufferStore, ForKind, LetStmt, SeqStmt, Var, decl_buffer
from ember.tir import transform as T
from ember.tir.functor import collect
from ember.tir.stmt import For
from ember.transform import PassContext


def test_unrolled_loop_expands_to_copies():
    func = elementwise_1d(3, kind=ForKind.UNROLLED)
    after = T.unroll_loop(func)
    A, B = (func.buffer_map[p] for p in func.params)
    expected = func_of([A, B], SeqStmt(tuple(
        BufferStore(B, A[const(k)] * const(2.0) + const(1.0), (const(k),)) for k in range(3)
    )))
    assert_structural_equal(after, expected)
    assert_same_results(func, after)


def test_unroll_respects_explicit_limit_and_symbolic_extent():
    func = elementwise_1d(16, kind=ForKind.UNROLLED)
    kept = T.unroll_loop(func, explicit_max_extent=8)
    assert isinstance(kept.body, For) and kept.body.kind == ForKind.UNROLLED
    n, i = Var("n"), Var("i")
    A = decl_buffer((16,), "float32", "A")
    sym = func_of([n, A], loop(i, n, BufferStore(A, const(0.0), (i,)), ForKind.UNROLLED))
    assert T.unroll_loop(sym).body.kind == ForKind.UNROLLED


def test_copies_get_fresh_inner_variables():
    A = decl_buffer((4, 4), "float32", "A")
    i, j, x = Var("i"), Var("j"), Var("x", "float32")
    inner = loop(j, 4, LetStmt(x, const(1.0), BufferStore(A, x, (i, j))))
    func = func_of([A], loop(i, 2, inner, ForKind.UNROLLED))
    after = T.unroll_loop(func)
    loops = collect(after.body, lambda n: isinstance(n, For))
    assert len(loops) == 2 and loops[0].loop_var is not loops[1].loop_var
    assert all(lp.loop_var is not j for lp in loops)
    assert_same_results(func, after)


def test_auto_unroll_annotation_and_attr():
    A = decl_buffer((4, 4), "float32", "A")
    i, j = Var("i"), Var("j")
    body = loop(i, 4, loop(j, 4, BufferStore(A, const(1.0), (i, j))), annotations={"pragma_auto_unroll_max_step": 16})
    after = T.unroll_loop(func_of([A], body))
    assert not collect(after.body, lambda n: isinstance(n, For))
    small = loop(i, 4, loop(j, 4, BufferStore(A, const(1.0), (i, j))))
    attr = AttrStmt(const(0), "pragma_auto_unroll_max_step", const(4), small)
    after = T.unroll_loop(func_of([A], attr))
    loops = collect(after.body, lambda n: isinstance(n, For))
    assert len(loops) == 1 and loops[0].loop_var is i  # only the inner loop fits in 4 steps


def test_unroll_pass_reads_pass_context_config():
    func = elementwise_1d(4, kind=ForKind.SERIAL)
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 8}}):
        out = T.UnrollLoop()(as_mod(func))
    assert isinstance(out["main"].body, SeqStmt)
    with PassContext(config={"tir.UnrollLoop": {"explicit_unroll": False}}):
        out = T.UnrollLoop()(as_mod(elementwise_1d(4, kind=ForKind.UNROLLED)))
    assert out["main"].body.kind == ForKind.UNROLLED
