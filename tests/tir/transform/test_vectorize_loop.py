"""VectorizeLoop: vector code for safe loops, serial fallback (with a logged reason) otherwise."""

import logging

from hypothesis import given, settings
from hypothesis import strategies as st
from tir_lower_builders import assert_same_results, elementwise_1d, func_of, loop

from ember import tir
from ember.ir import Broadcast, DataType, Ramp, Select, assert_structural_equal, const
from ember.tir import BufferStore, ForKind, IfThenElse, LetStmt, Var, decl_buffer
from ember.tir import transform as T
from ember.tir.buffer import BufferLoad
from ember.tir.functor import collect
from ember.tir.stmt import For

V = ForKind.VECTORIZED


def _is_serial_loop(func):
    loops = collect(func.body, lambda n: isinstance(n, For))
    return len(loops) == 1 and loops[0].kind == ForKind.SERIAL


def test_elementwise_becomes_ramp_and_broadcast():
    func = elementwise_1d(16)
    after = T.vectorize_loop(func)
    A, B = (func.buffer_map[p] for p in func.params)
    ramp = Ramp(const(0), const(1), 16)
    expected = func_of([A, B], BufferStore(B, BufferLoad(A, (ramp,)) * const(2.0) + const(1.0), (ramp,)))
    assert_structural_equal(after, expected)
    assert_same_results(func, after)


def test_affine_indices_stay_ramps():
    A = decl_buffer((64,), "float32", "A")
    B = decl_buffer((64,), "float32", "B")
    i = Var("i")
    func = func_of([A, B], loop(i, 8, BufferStore(B, A[i + 3] + A[i * 2], (i * 4 + 1,)), V))
    after = T.vectorize_loop(func)
    store = after.body
    assert isinstance(store.indices[0], Ramp)
    assert store.indices[0].stride.value == 4 and store.indices[0].base.value == 1
    loads = collect(store.value, lambda n: isinstance(n, BufferLoad))
    assert [(x.indices[0].base.value, x.indices[0].stride.value) for x in loads] == [(3, 1), (0, 2)]
    args_check = func.with_body(func.body)
    assert_same_results(args_check, after)


def test_math_select_cast_and_let_vectorize():
    def fn(a, i):
        return tir.exp(a) + Select(i < 4, a, const(0.0)) + tir.Cast(DataType("float32"), i)

    func = elementwise_1d(8, fn=fn)
    after = T.vectorize_loop(func)
    assert not collect(after.body, lambda n: isinstance(n, For))
    call = collect(after.body, lambda n: isinstance(n, tir.Call))[0]
    assert str(call.dtype) == "float32x8"
    assert_same_results(func, after)

    A, B = (func.buffer_map[p] for p in func.params)
    i, x = Var("i"), Var("x", "float32")
    let_func = func_of([A, B], loop(i, 8, LetStmt(x, A[i] * const(3.0), BufferStore(B, x + x, (i,))), V))
    after = T.vectorize_loop(let_func)
    assert str(after.body.var.dtype) == "float32x8"
    assert_same_results(let_func, after)


def test_if_then_else_without_loads_becomes_select():
    func = elementwise_1d(8, fn=lambda a, i: a + tir.if_then_else(i < 3, const(1.0), const(2.0)))
    after = T.vectorize_loop(func)
    assert collect(after.body, lambda n: isinstance(n, Select))
    assert_same_results(func, after)


def test_lane_invariant_if_is_kept_inside_vector_code():
    A = decl_buffer((8,), "float32", "A")
    n, i = Var("n"), Var("i")
    func = func_of([n, A], loop(i, 8, IfThenElse(n > 0, BufferStore(A, const(1.0), (i,))), V))
    after = T.vectorize_loop(func)
    assert isinstance(after.body, IfThenElse)
    assert isinstance(after.body.then_case.value, Broadcast)


def test_extent_one_substitutes_min():
    func = elementwise_1d(1)
    after = T.vectorize_loop(func)
    assert isinstance(after.body, BufferStore) and after.body.indices[0].value == 0


def _fallback_cases():
    A = decl_buffer((16,), "float32", "A")
    S = decl_buffer((16,), "float32", "S")
    i, n = Var("i"), Var("n")
    reduction = loop(i, 8, BufferStore(S, S[0] + A[i], (const(0),)), V)
    shifted = loop(i, 8, BufferStore(S, S[i] + const(1.0), (i + 1,)), V)
    lane_if = loop(i, 8, IfThenElse(i % 2 == 0, BufferStore(S, A[i], (i,))), V)  # not an interval of lanes
    extern = loop(i, 8, BufferStore(S, tir.call_extern("float32", "f", A[i]), (i,)), V)
    pure_extern = loop(i, 8, BufferStore(S, tir.call_pure_extern("float32", "f", A[i]), (i,)), V)
    divide = loop(i, 8, BufferStore(S, tir.if_then_else(i > 0, tir.Cast(S.dtype, 8 // i), const(0.0)), (i,)), V)
    guarded_load = loop(i, 8, BufferStore(S, tir.if_then_else(i > 0, A[i - 1], const(0.0)), (i,)), V)
    symbolic = loop(i, n, BufferStore(S, A[i], (i,)), V)
    gather_store = loop(i, 8, BufferStore(S, A[i], (i % 3,)), V)
    return {
        "reduction": (reduction, "does not depend on the loop variable"),
        "shifted": (shifted, "accessed at another index"),
        "lane_if": (lane_if, "an if condition depends on the lane"),
        "extern": (extern, "has side effects"),
        "pure_extern": (pure_extern, "is not elementwise"),
        "divide": (divide, "branches read memory or divide"),
        "guarded_load": (guarded_load, "branches read memory"),
        "symbolic": (symbolic, "is not a constant"),
        "gather_store": (gather_store, "is not a ramp of the loop variable"),
    }, A, S, n


def test_unsafe_loops_fall_back_to_serial_with_reason(caplog):
    cases, A, S, n = _fallback_cases()
    for name, (body, reason) in cases.items():
        func = func_of([n, A, S], body)
        with caplog.at_level(logging.DEBUG, logger="ember.tir.transform"):
            caplog.clear()
            after = T.vectorize_loop(func)
        assert _is_serial_loop(after), name
        assert after.body.body is body.body, name
        assert reason in caplog.text, (name, caplog.text)


def test_fallback_keeps_serial_semantics():
    import numpy as np

    from ember.tir.interpreter import run

    cases, A, S, n = _fallback_cases()
    for name in ("reduction", "shifted"):
        func = func_of([A, S], cases[name][0])
        a = np.arange(16, dtype="float32")
        s1, s2 = np.ones(16, "float32"), np.ones(16, "float32")
        run(func, a, s1)
        run(T.vectorize_loop(func), a, s2)
        np.testing.assert_array_equal(s1, s2)


def test_disabled_vectorize_makes_loops_serial():
    from tir_lower_builders import as_mod

    out = T.VectorizeLoop(enable_vectorize=False)(as_mod(elementwise_1d(8)))
    assert out["main"].body.kind == ForKind.SERIAL


@settings(max_examples=30, deadline=None)
@given(
    lanes=st.sampled_from([2, 4, 8]),
    scale=st.integers(0, 3),
    offset=st.integers(0, 5),
    modulus=st.integers(1, 9),
)
def test_vectorized_gathers_match_serial(lanes, scale, offset, modulus):
    A = decl_buffer((64,), "float32", "A")
    B = decl_buffer((64,), "float32", "B")
    i = Var("i")
    value = A[i * scale + offset] + A[(i + offset) % modulus] * A[(i * 3) // 2]
    func = func_of([A, B], loop(i, lanes, BufferStore(B, value, (i * 2 + offset,)), V))
    after = T.vectorize_loop(func)
    assert not collect(after.body, lambda n: isinstance(n, For))
    assert_same_results(func, after)


def test_long_loop_is_vectorized_in_chunks():
    func = elementwise_1d(192)
    after = T.vectorize_loop(func)
    assert isinstance(after.body, For) and after.body.kind == ForKind.SERIAL
    assert after.body.extent.value == 3 and after.body.body.indices[0].lanes == 64
    assert_same_results(func, after)
    odd = elementwise_1d(67)
    assert _is_serial_loop(T.vectorize_loop(odd))
