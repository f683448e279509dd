"""split with symbolic factors (a scalar parameter, AArch64 SVE's vscale) and reorder under the tail predicate such splits leave."""

import numpy as np
import pytest

import ember
from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def scale_by_two(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), n: T.int32):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)


@T.prim_func
def fill_ones(A: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = T.float32(1)


def test_split_by_a_scalar_parameter_runs_like_the_original():
    func = scale_by_two
    n = func.params[2]
    sch = Schedule(func)
    (i,) = sch.get_loops(sch.get_block("B"))
    outer, inner = sch.split(i, factors=[None, n])
    assert sch.get(inner).extent is n
    text = sch.mod["main"].script()
    assert "T.where(" in text  # n need not divide 128
    f = ember.build(sch.mod, target="llvm")
    a = np.random.default_rng(0).standard_normal(128).astype("float32")
    for step in (1, 5, 128, 200):
        b = ember.nd.array(np.zeros(128, "float32"))
        f(ember.nd.array(a), b, step)
        np.testing.assert_allclose(b.numpy(), a * 2)


def test_split_by_vscale_on_an_sve_target():
    with ember.target.Target("llvm -mtriple=aarch64-linux-gnu -mattr=+sve"):
        sch = Schedule(fill_ones)
        (i,) = sch.get_loops(sch.get_block("A"))
        outer = ember.arith.Analyzer().simplify(T.ceildiv(128, 4 * T.vscale()))
        sch.split(i, factors=[outer, 4 * T.vscale()])
    text = sch.mod["main"].script()
    assert 'T.call_intrin("int32", "tir.vscale") * 4' in text  # the constant on the right, as TVM
    assert "T.where(" in text


def test_split_by_vscale_elsewhere_is_refused(capfd):
    sch = Schedule(fill_ones)
    (i,) = sch.get_loops(sch.get_block("A"))
    with pytest.raises(ScheduleError, match="The product of factors is not larger than or equal to the extent"):
        sch.split(i, factors=[T.ceildiv(128, 4 * T.vscale()), 4 * T.vscale()])
    assert "only supports AArch64 SVE targets" in capfd.readouterr().err


@T.prim_func
def predicated_nest(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("B"):
            T.where(i * 8 + j < 20)
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_reorder_under_a_predicate_that_ties_the_loops_keeps_the_result():
    # TVM refuses this reorder; ember accepts it on purpose (docs/tvm_compat.md): the
    # predicate is tested per iteration, so the same iterations run in another order
    sch = Schedule(predicated_nest)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.reorder(j, i)
    a = np.random.default_rng(0).standard_normal((8, 8)).astype("float32")
    results = []
    for mod in (predicated_nest, sch.mod["main"]):
        b = np.zeros((8, 8), "float32")
        ember.build(mod, target="llvm")(a, b)
        results.append(b)
    np.testing.assert_array_equal(results[0], results[1])
    assert results[1].ravel()[:20].tolist() == (a.ravel()[:20] * 2).tolist()


@T.prim_func
def copy_rows(x: T.handle, y: T.handle, n: T.int64):
    X = T.match_buffer(x, (T.int64(8), n * 32), "float32")
    Y = T.match_buffer(y, (T.int64(8), n * 32), "float32")
    for i, k in T.grid(T.int64(8), n * 32):
        with T.block("Y"):
            vi, vk = T.axis.remap("SS", [i, k])
            Y[vi, vk] = X[vi, vk] * T.float32(2)


def test_split_of_a_symbolic_multiple_needs_no_predicate_and_compute_at_none_either():
    sch = Schedule(copy_rows)
    block = sch.get_block("Y")
    _, k = sch.get_loops(block)
    ko, _ = sch.split(k, [None, 32])
    cached = sch.cache_read(block, 0, "global")
    sch.compute_at(cached, ko)
    assert "T.where" not in sch.mod["main"].script()  # ceildiv(n * 32, 32) * 32 is n * 32
    f = ember.build(sch.mod, target="llvm")
    a = np.random.default_rng(1).standard_normal((8, 96)).astype("float32")
    b = ember.nd.array(np.zeros((8, 96), "float32"))
    f(ember.nd.array(a), b, 3)
    np.testing.assert_allclose(b.numpy(), a * 2)
