"""ReorderPermuteDimsAfterConcat and ReorderTakeAfterMatmul keep results (numpy checks)."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R

RNG = np.random.default_rng(0)


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call)]


def test_one_transpose_after_the_concat():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), a: R.Tensor((3, 4), "float32"), b: R.Tensor((5, 4), "float32")):
            with R.dataflow():
                at = R.permute_dims(a)
                bt = R.permute_dims(b, axes=[1, 0])
                w = R.concat([at, bt], axis=1)
                y = R.matmul(x, w)
                R.output(y)
            return y

    out = relax.transform.ReorderPermuteDimsAfterConcat()(Mod)
    assert _ops(out) == ["relax.concat", "relax.permute_dims", "relax.matmul"]
    x, a, b = (RNG.standard_normal(s).astype("float32") for s in ((2, 4), (3, 4), (5, 4)))
    got = relax.reference.run(out, x, a, b)
    np.testing.assert_allclose(np.asarray(got), x @ np.concatenate([a.T, b.T], axis=1), rtol=1e-5)


def test_take_of_columns_moves_after_the_matmul():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), table: R.Tensor((4, 6), "float32"), idx: R.Tensor((3,), "int64")):
            with R.dataflow():
                w = R.take(table, idx, axis=1)
                y = R.matmul(x, w)
                R.output(y)
            return y

    out = relax.transform.ReorderTakeAfterMatmul()(Mod)
    assert _ops(out) == ["relax.matmul", "relax.take"]
    x, t = RNG.standard_normal((2, 4)).astype("float32"), RNG.standard_normal((4, 6)).astype("float32")
    idx = np.array([5, 0, 2], dtype="int64")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, x, t, idx)), x @ t[:, idx], rtol=1e-5)


def test_take_of_table_entries_per_batch_row():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 1, 4), "float32"), table: R.Tensor((5, 4, 2), "float32"),
                 idx: R.Tensor((3,), "int64")):
            with R.dataflow():
                w = R.take(table, idx, axis=0)
                y = R.matmul(x, w)
                R.output(y)
            return y

    out = relax.transform.ReorderTakeAfterMatmul()(Mod)
    assert _ops(out)[-1] == "relax.einsum"
    x, t = RNG.standard_normal((3, 1, 4)).astype("float32"), RNG.standard_normal((5, 4, 2)).astype("float32")
    idx = np.array([4, 1, 1], dtype="int64")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, x, t, idx)), x @ t[idx], rtol=1e-5)
