"""Small te programs whose printed TVMScript is pinned by test_te_golden.py."""

from ember import te, topi


def matmul():
    n = 128
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def softmax():
    X = te.placeholder((4, 16), "float32", name="X")
    return te.create_prim_func([X, topi.nn.softmax(X, axis=1)])


def conv2d_direct():
    X = te.placeholder((1, 2, 5, 5), "float32", name="X")
    W = te.placeholder((4, 2, 3, 3), "float32", name="W")
    P = te.compute(
        (1, 2, 7, 7),
        lambda n, c, h, w: te.if_then_else(te.all(h >= 1, h < 6, w >= 1, w < 6), X[n, c, h - 1, w - 1], 0.0),
        name="P",
    )
    rc = te.reduce_axis((0, 2), name="rc")
    rh = te.reduce_axis((0, 3), name="rh")
    rw = te.reduce_axis((0, 3), name="rw")
    Y = te.compute(
        (1, 4, 5, 5),
        lambda n, f, h, w: te.sum(P[n, rc, h + rh, w + rw] * W[f, rc, rh, rw], axis=[rc, rh, rw]),
        name="Y",
    )
    return te.create_prim_func([X, W, Y])


def broadcast_add_symbolic():
    n = te.var("n")
    A = te.placeholder((n, 3), "float32", name="A")
    b = te.placeholder((3,), "float32", name="b")
    C = te.compute((n, 3), lambda i, j: A[i, j] + b[j], name="C")
    return te.create_prim_func([A, b, C])


def row_max():
    M = te.placeholder((8, 8), "float32", name="M")
    k = te.reduce_axis((0, 8), name="k")
    return te.create_prim_func([M, te.compute((8,), lambda i: te.max(M[i, k], axis=k), name="rowmax")])


ALL = [matmul, softmax, conv2d_direct, broadcast_add_symbolic, row_max]
