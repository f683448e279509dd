"""Before/expected pairs written in TVMScript, as TVM's own pass tests are."""

from ember.ir import assert_structural_equal
from ember.script import tir as T
from ember.tir import transform as TT


def _same(after, expected):
    assert_structural_equal(after, expected.with_attr("global_symbol", after.attrs["global_symbol"]))


@T.prim_func
def elementwise_2d(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)


@T.prim_func
def elementwise_2d_lowered(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        A_1 = T.Buffer((32,), "float32", data=A.data)
        B_1 = T.Buffer((32,), "float32", data=B.data)
        B_1[i * 8 + j] = A_1[i * 8 + j] * T.float32(2.0)


def test_blocks_removed_and_buffers_flattened():
    after = TT.flatten_buffer(TT.lower_opaque_block(TT.convert_blocks_to_opaque(elementwise_2d)))
    _same(after, elementwise_2d_lowered)


@T.prim_func
def row_sum(A: T.Buffer((4, 8), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0.0)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def row_sum_opaque(A: T.Buffer((4, 8), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        if k == 0:
            S[i] = T.float32(0.0)
        S[i] = S[i] + A[i, k]


def test_init_lowered_to_guarded_store():
    after = TT.lower_opaque_block(TT.convert_blocks_to_opaque(TT.lower_init_block(row_sum)))
    _same(after, row_sum_opaque)


@T.prim_func
def scale_vectorized(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in T.vectorized(8):
        B[i * 2] = A[i + 1] * T.float32(3.0)


@T.prim_func
def scale_vector_code(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    B[T.Ramp(0, 2, 8)] = A[T.Ramp(1, 1, 8)] * T.Broadcast(T.float32(3.0), 8)


def test_vectorize_pair():
    _same(TT.vectorize_loop(scale_vectorized), scale_vector_code)


@T.prim_func
def unrolled(A: T.Buffer((4,), "float32")):
    for i in T.unroll(2):
        A[i + 1] = A[i]


@T.prim_func
def unrolled_expanded(A: T.Buffer((4,), "float32")):
    A[1] = A[0]
    A[2] = A[1]


def test_unroll_pair():
    _same(TT.simplify(TT.unroll_loop(unrolled)), unrolled_expanded)
