"""tir.analysis.estimate_tir_flops: arithmetic counted per iteration, loops multiply (by an
extent's upper bound), an if counts its costlier branch, indices and inits do not count,
the estimated_flops attribute overrides."""

from ember.ir import IRModule
from ember.script import tir as T
from ember.tir.analysis import estimate_tir_flops


@T.prim_func
def branches(a: T.Buffer(16, "float32"), b: T.Buffer(16, "float32")):
    for i in range(16):
        if i % 2 == 0:
            a[i] = b[i]
        else:
            a[i] = b[i - 1] + b[i - 2]


@T.prim_func
def triangle(a: T.Buffer(16, "float32")):
    for i in range(8):
        for j in range(i + 8):
            a[j] = 2 * a[i]


@T.prim_func
def matmul(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_counts():
    assert estimate_tir_flops(IRModule({"main": branches})) == 16
    assert estimate_tir_flops(IRModule({"main": triangle})) == 8 * 15
    assert estimate_tir_flops(matmul) == 2 * 16 ** 3


def test_attribute_overrides_and_modules_sum():
    assert estimate_tir_flops(matmul.with_attr("estimated_flops", 32)) == 32
    mod = IRModule({"a": matmul, "b": branches})
    assert estimate_tir_flops(mod) == 2 * 16 ** 3 + 16
