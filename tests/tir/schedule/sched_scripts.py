"""TVMScript fixtures that several schedule test files start from, and the macros of the
stages they share."""

from ember.script import tir as T


@T.prim_func
def matmul_16(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
              C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# -- the producer stage many two-stage fixtures start with: block "B", dst = src * 2 --------

@T.macro
def times_two_1d(src, dst, n):
    for i in range(n):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            dst[vi] = src[vi] * T.float32(2)


@T.macro
def times_two_2d(src, dst, m, n):
    for i, j in T.grid(m, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            dst[vi, vj] = src[vi, vj] * T.float32(2)


@T.prim_func
def scale_then_shift_16(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    times_two_1d(A, B, 16)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] + T.float32(1)
