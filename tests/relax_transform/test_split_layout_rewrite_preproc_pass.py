"""SplitLayoutRewritePreproc: the weight-layout rewrite of a kernel becomes its own kernel;
the result computes the same values (TIR reference interpreter through relax.reference)."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R, tir as T


@I.ir_module
class Mod:
    @T.prim_func(private=True)
    def kernel(X: T.Buffer((8, 8), "float32"), W: T.Buffer((8, 8), "float32"), Out: T.Buffer((8, 8), "float32")):
        T.func_attr({"layout_free_buffers": [1]})
        W_t = T.alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.block("W_t"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.block_attr({"meta_schedule.layout_rewrite_preproc": T.bool(True)})
                W_t[vj, vi] = W[vi, vj]
        for i, j in T.grid(8, 8):
            with T.block("Out"):
                vi, vj = T.axis.remap("SS", [i, j])
                Out[vi, vj] = X[vi, vj] + W_t[vj, vi]

    @R.function
    def main(x: R.Tensor((8, 8), "float32"), w: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            gv = R.call_tir(Mod.kernel, (x, w), out_sinfo=R.Tensor((8, 8), "float32"))
            R.output(gv)
        return gv


def test_split_and_same_values():
    out = relax.transform.SplitLayoutRewritePreproc()(Mod)
    names = sorted(gv.name_hint for gv in out.functions)
    assert names == ["kernel_prepacked", "kernel_weight_prepack", "main"]
    assert "layout_free_buffers" not in out["kernel_prepacked"].attrs
    relax.analysis.check_well_formed(out)
    x = np.arange(64, dtype="float32").reshape(8, 8)
    w = np.ones((8, 8), dtype="float32")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, x, w)), x + w)


def test_kernels_without_preproc_unchanged():
    @I.ir_module
    class Plain:
        @T.prim_func(private=True)
        def add(X: T.Buffer((4,), "float32"), Out: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("Out"):
                    vi = T.axis.remap("S", [i])
                    Out[vi] = X[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            gv = R.call_tir(Plain.add, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return gv

    assert relax.transform.SplitLayoutRewritePreproc()(Plain) is Plain
