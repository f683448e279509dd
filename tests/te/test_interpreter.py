"""The reference interpreter: block TIR, scheduled forms, lowered forms, TIR semantics, errors."""

import numpy as np
import pytest

from ember import te, tir
from ember.ir import Cast, Div, FloorDiv, FloorMod, Let, Mod, Var, const
from ember.script import tir as T
from ember.tir import interpreter
from ember.tir.interpreter import InterpreterError


@T.prim_func
def split_with_predicate(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for io, ii in T.grid(3, 4):
        with T.block("B"):
            vi = T.axis.spatial(10, io * 4 + ii)
            T.where(io * 4 + ii < 10)
            B[vi] = A[vi] * 2.0


@T.prim_func
def nested_blocks(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("outer"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:8])
            T.writes(C[vi])
            tmp = T.alloc_buffer((8,), "float32")
            for j in range(8):
                with T.block("inner"):
                    vj = T.axis.spatial(8, j)
                    tmp[vj] = A[vi, vj] + 1.0
            for k in range(8):
                with T.block("red"):
                    vk = T.axis.reduce(8, k)
                    with T.init():
                        C[vi] = T.float32(0)
                    C[vi] = C[vi] + tmp[vk]


@T.prim_func
def match_rows(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4, 6), "float32")):
    for i in range(4):
        with T.block("row"):
            vi = T.axis.spatial(4, i)
            sub = T.match_buffer(A[vi, 1:5], (4,))
            out = T.match_buffer(B[vi, 1:5], (4,))
            for j in range(4):
                out[j] = sub[j] * 10.0


@T.prim_func
def flat_vectors(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    tmp = T.allocate([16], "float32", "global")
    tmp_1 = T.Buffer((16,), data=tmp)
    for i in range(4):
        tmp_1[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)
    for i in range(16):
        B[i] = tmp_1[i]


@T.prim_func
def reads_out_of_bounds(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i + 1]


def test_predicate_skips_iterations():
    a = np.random.rand(10).astype("float32")
    b = np.zeros(10, "float32")
    interpreter.run(split_with_predicate, a, b)
    np.testing.assert_array_equal(b, 2 * a)


def test_nested_blocks_with_alloc_and_init():
    a = np.random.rand(8, 8).astype("float32")
    c = np.zeros(8, "float32")
    interpreter.run(nested_blocks, a, c)
    np.testing.assert_allclose(c, (a + 1).sum(1), rtol=1e-6)


def test_match_buffer_views_a_region():
    a = np.random.rand(4, 6).astype("float32")
    b = np.zeros((4, 6), "float32")
    interpreter.run(match_rows, a, b)
    expected = np.zeros((4, 6), "float32")
    expected[:, 1:5] = a[:, 1:5] * 10
    np.testing.assert_array_equal(b, expected)


def test_allocate_flat_buffer_and_vectors():
    a = np.random.rand(16).astype("float32")
    b = np.zeros(16, "float32")
    interpreter.run(flat_vectors, a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_out_of_bounds_read_raises():
    with pytest.raises(InterpreterError, match="out-of-bounds access to buffer 'A'"):
        interpreter.run(reads_out_of_bounds, np.zeros(4, "float32"), np.zeros(4, "float32"))


def test_lowered_pipeline_output_agrees():
    import ember

    A = te.placeholder((6, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    B = te.compute((6,), lambda i: te.max(A[i, k], axis=k), name="B")
    C = te.compute((6,), lambda i: B[i] * 2.0, name="C")
    mod = ember.lower(te.create_prim_func([A, C]))
    a = np.random.rand(6, 7).astype("float32")
    c = np.zeros(6, "float32")
    interpreter.run(mod, a, c)
    np.testing.assert_allclose(c, a.max(1) * 2)


def _scalar_func(expr_builder, dtype_in, dtype_out):
    x = Var("x", dtype_in)
    out = tir.decl_buffer((1,), dtype_out, name="out")
    param = Var("out", "handle")
    body = tir.BufferStore(out, expr_builder(x), (const(0),))
    return tir.PrimFunc((x, param), body, None, {param: out})


def _eval(expr_builder, value, dtype_in, dtype_out):
    func = _scalar_func(expr_builder, dtype_in, dtype_out)
    out = np.zeros(1, dtype_out)
    interpreter.run(func, value, out)
    return out[0]


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (-7, -2)])
def test_integer_division_semantics(a, b):
    assert _eval(lambda x: Div(x, const(b)), a, "int32", "int32") == int(a / b)
    assert _eval(lambda x: Mod(x, const(b)), a, "int32", "int32") == a - b * int(a / b)
    assert _eval(lambda x: FloorDiv(x, const(b)), a, "int32", "int32") == a // b
    assert _eval(lambda x: FloorMod(x, const(b)), a, "int32", "int32") == a % b


def test_cast_wraps_around():
    assert _eval(lambda x: Cast(_dt("int8"), x), 300, "int32", "int8") == np.int32(300).astype(np.int8)
    assert _eval(lambda x: x + const(1, "int32"), 2**31 - 1, "int32", "int32") == -(2**31)
    assert _eval(lambda x: Cast(_dt("int32"), x), -2.7, "float32", "int32") == -2


def _dt(name):
    from ember.ir import DataType

    return DataType(name)


def test_float_floordiv_and_floormod():
    assert _eval(lambda x: FloorDiv(x, const(2.0)), -3.0, "float32", "float32") == -2.0
    assert _eval(lambda x: FloorMod(x, const(2.0)), -3.0, "float32", "float32") == 1.0


def test_if_then_else_evaluates_only_taken_side():
    A = te.placeholder((4,), name="A")
    B = te.compute((6,), lambda i: te.if_then_else(i < 4, A[tir.min(i, 5)], -1.0), name="B")
    func = te.create_prim_func([A, B])
    a = np.arange(4, dtype="float32")
    b = np.zeros(6, "float32")
    interpreter.run(func, a, b)
    np.testing.assert_array_equal(b, [0, 1, 2, 3, -1, -1])


def test_let_expression_and_select():
    y = Var("y", "float32")
    got = _eval(lambda x: Let(y, x * 2.0, tir.Select(y > 3.0, y, -y)), 1.0, "float32", "float32")
    assert got == -2.0


def test_math_intrinsics_match_numpy():
    cases = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "floor": np.floor,
             "ceil": np.ceil, "trunc": np.trunc, "round": np.rint, "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
             "rsqrt": lambda v: 1 / np.sqrt(v)}
    for name, ref in cases.items():
        got = _eval(lambda x, n=name: getattr(tir, n)(x), 2.5, "float32", "float32")
        np.testing.assert_allclose(got, ref(np.float32(2.5)), rtol=1e-6, err_msg=name)


def test_extern_call_through_registry():
    interpreter.register_extern("my_double", lambda v: v * 2)
    got = _eval(lambda x: tir.call_pure_extern("float32", "my_double", x), 1.5, "float32", "float32")
    assert got == 3.0
    with pytest.raises(InterpreterError, match="call_extern\\('nope'\\): no Python implementation"):
        _eval(lambda x: tir.call_extern("float32", "nope", x), 1.5, "float32", "float32")


def test_argument_errors():
    a = np.zeros(10, "float32")
    with pytest.raises(TypeError, match="argument 'A' must have dtype float32, got float64"):
        interpreter.run(split_with_predicate, a.astype("float64"), a)
    with pytest.raises(ValueError, match="argument 'B' has size 9 in dimension 0, expected 10"):
        interpreter.run(split_with_predicate, a, np.zeros(9, "float32"))
    with pytest.raises(ValueError, match="argument 'A' must have 1 dimension"):
        interpreter.run(split_with_predicate, a.reshape(2, 5), a)
    with pytest.raises(TypeError, match=r"missing argument\(s\) B"):
        interpreter.run(split_with_predicate, a)
    with pytest.raises(TypeError, match=r"takes 2 argument\(s\) \(A, B\), got 3"):
        interpreter.run(split_with_predicate, a, a, a)
    with pytest.raises(ValueError, match="must be C-contiguous"):
        interpreter.run(split_with_predicate, np.zeros(20, "float32")[::2], a)
    with pytest.raises(TypeError, match="unknown keyword argument 'q'"):
        interpreter.run(split_with_predicate, a, a, q=1)


@T.prim_func
def reads_uninitialised(B: T.Buffer((2,), "float32")):
    tmp = T.alloc_buffer((2,), "float32")
    for i in range(2):
        with T.block("B"):
            vi = T.axis.spatial(2, i)
            B[vi] = tmp[vi]


def test_uninitialised_alloc_reads_nan():
    b = np.zeros(2, "float32")
    interpreter.run(reads_uninitialised, b)
    assert np.isnan(b).all()


def test_ember_ndarrays_are_written_back():
    import ember

    a = ember.nd.array(np.arange(10, dtype="float32"))
    b = ember.nd.array(np.zeros(10, "float32"))
    interpreter.run(split_with_predicate, a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(10) * 2)
