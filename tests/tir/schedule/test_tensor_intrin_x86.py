"""x86 int8 dot-product tensor intrinsics (AVX512-VNNI / AVX-512) through tensorize."""

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.tir.tensor_intrin.x86 import AVX512_DOT_16x4_INTRIN, VNNI_DOT_16x4_INTRIN


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            return {w for line in f if line.startswith("flags") for w in line.split()}
    except OSError:
        return set()


def _int8_matmul(m=32, n=32, k=32):
    X = te.placeholder((m, k), name="X", dtype="uint8")
    W = te.placeholder((n, k), name="W", dtype="int8")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(X[i, r].astype("int32") * W[j, r].astype("int32"), axis=r),
                   name="compute")
    return te.create_prim_func([X, W, C])


def _tensorized(intrin):
    func = _int8_matmul()
    sch = tir.Schedule(func)
    block = sch.get_block("compute")
    sch.transform_layout(block, "W", lambda i, j: [i // 16, j // 4, i % 16, j % 4])
    _, j, k = sch.get_loops(block)
    _, ji = sch.split(j, factors=[None, 16])
    ko, ki = sch.split(k, factors=[None, 4])
    sch.reorder(ko, ji, ki)
    sch.decompose_reduction(block, ko)
    sch.tensorize(ji, intrin)
    return sch


def test_vload_of_a_vector_dtype_is_a_ramp():
    from ember.tir.buffer import decl_buffer

    buf = decl_buffer((16, 4), "int8", "B")
    load = buf.vload([0, 0], "int8x64")
    assert str(load.dtype) == "int8x64"


@pytest.mark.parametrize("intrin, flag", [(VNNI_DOT_16x4_INTRIN, "avx512_vnni"),
                                          (AVX512_DOT_16x4_INTRIN, "avx512bw")])
def test_dot_16x4_matches_numpy(intrin, flag):
    sch = _tensorized(intrin)
    assert "llvm.x86.avx512" in sch.mod["main"].script()
    if flag not in _cpu_flags():
        pytest.skip(f"this CPU has no {flag}")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 16, (32, 32)).astype("uint8")
    w = rng.integers(-8, 8, (32, 32)).astype("int8")
    packed = w.reshape(2, 16, 8, 4).transpose(0, 2, 1, 3).copy()
    c = ember.nd.array(np.zeros((32, 32), "int32"))
    ember.build(sch.mod["main"], target="llvm")(ember.nd.array(x), ember.nd.array(packed), c)
    np.testing.assert_array_equal(c.numpy(), x.astype("int32") @ w.astype("int32").T)


def test_tensorize_refuses_a_float_block():
    X = te.placeholder((16, 4), name="X")
    r = te.reduce_axis((0, 4), name="k")
    C = te.compute((16,), lambda i: te.sum(X[i, r], axis=r), name="C")
    sch = tir.Schedule(te.create_prim_func([X, C]))
    i, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(tir.ScheduleError, match="does not match the description"):
        sch.tensorize(i, VNNI_DOT_16x4_INTRIN)
