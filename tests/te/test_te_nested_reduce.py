"""create_prim_func of reductions whose domain depends on another iterator."""

import numpy as np

import ember as tvm
from ember import te, tir
from ember.tir.interpreter import run


def _triangle_sum():
    x = te.placeholder([3, 5, 2, 5, 5], "float32", "x")

    def fcompute(*axes):
        r1 = te.reduce_axis(tvm.ir.Range.from_min_extent(0, axes[1]))
        r2 = te.reduce_axis(tvm.ir.Range.from_min_extent(0, r1))
        return te.sum(x(*axes, r1, r2), [r1, r2])

    return x, te.compute([3, 5, 2], fcompute)


def _blocks(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.Block) else None)
    return {b.name_hint: b for b in found}


def test_one_block_per_dependency_level():
    x, y = _triangle_sum()
    func = te.create_prim_func([x, y])
    blocks = _blocks(func)
    assert {"compute", "compute_1", "compute_2"} <= set(blocks)
    assert blocks["compute_2"].init is None and blocks["compute"].init is None
    assert blocks["compute_1"].init is not None  # the outermost reduction starts the sum
    reads = blocks["compute_2"].reads[0].region
    assert [type(r.extent).__name__ for r in reads[3:]] != ["IntImm", "IntImm"]  # symbolic, not 0:5


def test_nested_reduction_values():
    x, y = _triangle_sum()
    func = te.create_prim_func([x, y])
    xa = np.random.default_rng(0).random((3, 5, 2, 5, 5)).astype("float32")
    ya = np.zeros((3, 5, 2), "float32")
    run(func, xa, ya)
    ref = np.zeros_like(ya)
    for i1 in range(5):
        for r1 in range(i1):
            for r2 in range(r1):
                ref[:, i1, :] += xa[:, i1, :, r1, r2]
    np.testing.assert_allclose(ya, ref, rtol=1e-5)
