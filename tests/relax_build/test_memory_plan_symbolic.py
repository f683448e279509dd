"""StaticPlanBlockMemory with symbolic sizes: ember's build grows a storage to the ``max`` of
the sizes it holds (``grow_symbolic``), TVM's pass alone shares only provably fitting sizes;
upper bounds make sizes static and a larger input is refused."""

import numpy as np
import pytest

import ember
from ember import relax, te, tir, topi
from ember.relax import BlockBuilder
from ember.relax.transform.static_plan_block_memory import PLAN_ATTR, StaticPlanBlockMemory, _grown
from ember.runtime.vm import PooledAllocator


def row_outer_module():
    """main(x[n, 8]) = rowsum(relu(outer(s, s))) with s = rowsum(relu(x)): the [n, 8] and [n]
    intermediates die before the [n, n] ones are made, and neither size bounds the other."""
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 8], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.nn.relu, x)  # n*32 bytes
            s = bb.emit_te(topi.sum, a, axis=1)  # n*4
            outer = bb.emit_te(lambda v: te.compute((v.shape[0], v.shape[0]), lambda i, j: v[i] * v[j] - 1.0,
                                                    name="outer"), s)  # n*n*4
            r = bb.emit_te(topi.nn.relu, outer)  # n*n*4
            out = bb.emit_output(bb.emit_te(topi.sum, r, axis=1))
        bb.emit_func_output(out)
    return bb.get()


def row_outer_reference(x):
    s = np.maximum(x, 0).sum(1)
    return np.maximum(np.outer(s, s) - 1.0, 0).sum(1)


def lowered_until_plan(mod):
    """``mod`` lowered by the build pipeline up to (not including) memory planning."""
    passes = relax.get_pipeline("default_build").passes
    names = [p.info.name for p in passes]
    return ember.transform.Sequential(passes[:names.index("StaticPlanBlockMemory")])(mod)


def test_build_grows_symbolic_storages_to_the_max_of_their_sizes():
    plan = relax.get_pipeline("default_build")(row_outer_module()).attrs[PLAN_ATTR]["main"]
    assert len(plan.storages) == 2
    by_tensor = {t[0]: s for s in plan.storages for t in s.tensors}
    # the n*n tensors reuse the storages of the n*8 and n ones, each now max(old, n*n*4)
    assert by_tensor["lv"] is by_tensor["lv2"] and by_tensor["lv1"] is by_tensor["lv3"]
    assert by_tensor["lv"].nbytes == "T.max(n * T.int64(32), n * n * T.int64(4))"
    assert by_tensor["lv1"].nbytes == "T.max(T.int64(4) * n, n * n * T.int64(4))"


def test_tvm_pass_alone_shares_only_provably_fitting_sizes():
    planned = StaticPlanBlockMemory(record_plans=True)(lowered_until_plan(row_outer_module()))
    assert len(planned.attrs[PLAN_ATTR]["main"].storages) == 4


@pytest.mark.parametrize("n", [1, 3, 8, 20])
def test_grown_storages_compute_right_on_both_sides_of_the_crossover(n):
    # n < 8: n*32 is the larger term; n > 8: n*n*4
    vm = relax.VirtualMachine(relax.build(row_outer_module()), ember.cpu())
    x = np.random.default_rng(n).standard_normal((n, 8)).astype("float32")
    np.testing.assert_allclose(vm["main"](x).numpy(), row_outer_reference(x), rtol=1e-5, atol=1e-5)


def test_grown_storages_allocate_once_per_size():
    pool = PooledAllocator()
    vm = relax.VirtualMachine(relax.build(row_outer_module()), ember.cpu(), allocator=pool)
    rng = np.random.default_rng(0)
    for n in (5, 5, 12, 12, 5):
        x = rng.standard_normal((n, 8)).astype("float32")
        np.testing.assert_allclose(vm["main"](x).numpy(), row_outer_reference(x), rtol=1e-5, atol=1e-5)
    # two storages at n=5 and two at n=12 (the output is allocated outside the pool); the
    # repeated sizes take their blocks back from the pool
    assert pool.stats.fresh_allocations == 4
    assert pool.stats.reused == 6


def test_grown_size_keeps_only_terms_no_other_covers():
    n = tir.Var("n", "int64")
    size = _grown(n * 32, n * n * 4)
    assert isinstance(size, ember.tir.Max)
    grown = _grown(size, n * 64)  # n*64 covers n*32
    assert grown.script() == "T.max(n * n * T.int64(4), n * T.int64(64))"
    assert _grown(n * 64, n * 16).script() == "n * T.int64(64)"
    assert _grown(256, 512) == 512
    assert _grown(256, n * 4).script() == "T.max(n * T.int64(4), T.int64(256))"


@pytest.mark.parametrize("n", [1, 7, 16])
def test_upper_bound_plans_static_storages_for_every_size_up_to_it(n):
    mod = row_outer_module()
    mod["main"] = mod["main"].with_attr("tir_var_upper_bound", {"n": 16})
    exe = relax.build(mod)
    plan = exe.memory_plans["main"]
    assert all(isinstance(s.nbytes, int) for s in plan.storages)
    assert plan.planned_bytes == 2 * 16 * 16 * 4
    pool = PooledAllocator()
    vm = relax.VirtualMachine(exe, ember.cpu(), allocator=pool)
    x = np.random.default_rng(n).standard_normal((n, 8)).astype("float32")
    for _ in range(2):
        np.testing.assert_allclose(vm["main"](x).numpy(), row_outer_reference(x), rtol=1e-5, atol=1e-5)
    assert pool.stats.fresh_allocations == 2  # the planned storages, once


def test_upper_bound_exceeded_is_refused():
    mod = row_outer_module()
    mod["main"] = mod["main"].with_attr("tir_var_upper_bound", {"n": 16})
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    with pytest.raises(ValueError, match="does not fit in a storage of 1024 bytes"):
        vm["main"](np.ones((17, 8), "float32"))


def test_storage_grows_only_by_sizes_known_when_it_is_taken():
    """A size over a variable that a later match_cast defines cannot enlarge a storage taken
    before it (the storage's size would read an undefined variable): it gets its own."""
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    y = relax.Var("y", relax.TensorStructInfo(ndim=1, dtype="float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit_te(topi.exp, x)  # n*4 bytes, dead after s
            s = bb.emit_te(topi.sum, a)
            ym = bb.match_cast(y, relax.TensorStructInfo([m], "float32"))
            b = bb.emit_te(topi.exp, ym)  # m*4 bytes: defined after a's storage is taken
            out = bb.emit_output(bb.emit_te(lambda u, v: topi.add(topi.sum(u), v), b, s))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    xs, ys = np.linspace(0, 1, 5, dtype="float32"), np.linspace(-1, 0, 9, dtype="float32")
    got = vm["main"](ember.nd.array(xs), ember.nd.array(ys)).numpy()
    np.testing.assert_allclose(got, np.exp(ys).sum() + np.exp(xs).sum(), rtol=1e-5)


def test_storage_to_grow_is_the_largest_by_how_sizes_grow():
    """Two free storages, n*4 and n*n*4 bytes, and an n*n*n*4 tensor that neither provably
    holds: as a static plan grows its largest free storage, the n*n one grows (to the max)."""
    from ember.relax.transform.static_plan_block_memory import _assign, _rank, _Token

    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    small = _Token(x, 0, (n,), "float32", n * 4, last_use=1)
    square = _Token(x, 1, (n, n), "float32", n * n * 4, last_use=2)
    cube = _Token(x, 3, (n, n, n), "float32", n * n * n * 4, last_use=4)
    storages = _assign([small, square, cube], grow_symbolic=True, entry_vars=frozenset({n}))
    assert len(storages) == 2 and cube.storage is square.storage is not small.storage
    assert isinstance(cube.storage.nbytes, ember.tir.Max)
    assert _rank(n * 4) < _rank(n * n * 4) < _rank(n * n * n * 4) and _rank(100) == 100
