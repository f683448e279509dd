"""Golden TVMScript of te.create_prim_func outputs: the printed text is part of the API."""

import pytest

import te_golden_funcs
from ember.ir import assert_structural_equal
from ember.script import from_source

GOLDEN = {
    "matmul": """\
# from ember.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
""",
    "softmax": """\
# from ember.script import tir as T

@T.prim_func
def main(X: T.Buffer((4, 16), "float32"), T_softmax_norm: T.Buffer((4, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    T_softmax_maxelem = T.alloc_buffer((4,))
    T_softmax_exp = T.alloc_buffer((4, 16))
    T_softmax_expsum = T.alloc_buffer((4,))
    for i0, k in T.grid(4, 16):
        with T.block("T_softmax_maxelem"):
            v_i0, v_k = T.axis.remap("SR", [i0, k])
            T.reads(X[v_i0, v_k])
            T.writes(T_softmax_maxelem[v_i0])
            with T.init():
                T_softmax_maxelem[v_i0] = T.float32("-inf")
            T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], X[v_i0, v_k])
    for i0, i1 in T.grid(4, 16):
        with T.block("T_softmax_exp"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(X[v_i0, v_i1], T_softmax_maxelem[v_i0])
            T.writes(T_softmax_exp[v_i0, v_i1])
            T_softmax_exp[v_i0, v_i1] = T.exp(X[v_i0, v_i1] - T_softmax_maxelem[v_i0])
    for i0, k in T.grid(4, 16):
        with T.block("T_softmax_expsum"):
            v_i0, v_k = T.axis.remap("SR", [i0, k])
            T.reads(T_softmax_exp[v_i0, v_k])
            T.writes(T_softmax_expsum[v_i0])
            with T.init():
                T_softmax_expsum[v_i0] = T.float32(0.0)
            T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
    for i0, i1 in T.grid(4, 16):
        with T.block("T_softmax_norm"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
            T.writes(T_softmax_norm[v_i0, v_i1])
            T.block_attr({"axis": 1})
            T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]
""",
    "conv2d_direct": """\
# from ember.script import tir as T

@T.prim_func
def main(X: T.Buffer((1, 2, 5, 5), "float32"), W: T.Buffer((4, 2, 3, 3), "float32"), Y: T.Buffer((1, 4, 5, 5), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    P = T.alloc_buffer((1, 2, 7, 7))
    for n, c, h, w in T.grid(1, 2, 7, 7):
        with T.block("P"):
            v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
            T.reads(X[0, v_c, v_h - 1, v_w - 1])
            T.writes(P[v_n, v_c, v_h, v_w])
            P[v_n, v_c, v_h, v_w] = T.if_then_else(1 <= v_h and v_h < 6 and 1 <= v_w and v_w < 6, X[0, v_c, v_h - 1, v_w - 1], T.float32(0.0))
    for n, f, h, w, rc, rh, rw in T.grid(1, 4, 5, 5, 2, 3, 3):
        with T.block("Y"):
            v_n, v_f, v_h, v_w, v_rc, v_rh, v_rw = T.axis.remap("SSSSRRR", [n, f, h, w, rc, rh, rw])
            T.reads(P[v_n, v_rc, v_h + v_rh, v_w + v_rw], W[v_f, v_rc, v_rh, v_rw])
            T.writes(Y[v_n, v_f, v_h, v_w])
            with T.init():
                Y[v_n, v_f, v_h, v_w] = T.float32(0.0)
            Y[v_n, v_f, v_h, v_w] = Y[v_n, v_f, v_h, v_w] + P[v_n, v_rc, v_h + v_rh, v_w + v_rw] * W[v_f, v_rc, v_rh, v_rw]
""",
    "broadcast_add_symbolic": """\
# from ember.script import tir as T

@T.prim_func
def main(var_A: T.handle, b: T.Buffer((3,), "float32"), var_C: T.handle):
    T.func_attr({"tir.noalias": True})
    n = T.int32()
    A = T.match_buffer(var_A, (n, 3))
    C = T.match_buffer(var_C, (n, 3))
    # with T.block("root"):
    for i, j in T.grid(n, 3):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], b[v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = A[v_i, v_j] + b[v_j]
""",
    "row_max": """\
# from ember.script import tir as T

@T.prim_func
def main(M: T.Buffer((8, 8), "float32"), rowmax: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    for i, k in T.grid(8, 8):
        with T.block("rowmax"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(M[v_i, v_k])
            T.writes(rowmax[v_i])
            with T.init():
                rowmax[v_i] = T.float32("-inf")
            rowmax[v_i] = T.max(rowmax[v_i], M[v_i, v_k])
""",
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_printed_tvmscript_is_golden(name):
    func = getattr(te_golden_funcs, name)()
    assert func.script().strip() == GOLDEN[name].strip()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_text_parses_back_to_the_same_function(name):
    assert_structural_equal(from_source(GOLDEN[name]), getattr(te_golden_funcs, name)())
