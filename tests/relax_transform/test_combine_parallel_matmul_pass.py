"""CombineParallelMatmul: matmuls sharing x (with bias and activation) merge into one."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R

RNG = np.random.default_rng(0)


@I.ir_module
class Branches:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), a: R.Tensor((4, 3), "float32"), b: R.Tensor((4, 5), "float32"),
             ba: R.Tensor((3,), "float32"), bb: R.Tensor((5,), "float32")):
        with R.dataflow():
            p = R.matmul(x, a)
            q = R.add(p, ba)
            r = R.nn.relu(q)
            s = R.matmul(x, b)
            t = R.add(s, bb)
            u = R.nn.relu(t)
            out = (r, u)
            R.output(out)
        return out


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call)]


def test_branches_merge_and_results_match():
    out = relax.transform.CombineParallelMatmul()(Branches)
    assert _ops(out).count("relax.matmul") == 1
    assert "relax.split" in _ops(out)
    relax.analysis.check_well_formed(out)
    x, a, b = (RNG.standard_normal(s).astype("float32") for s in ((2, 4), (4, 3), (4, 5)))
    ba, bb = RNG.standard_normal(3).astype("float32"), RNG.standard_normal(5).astype("float32")
    r, u = relax.reference.run(out, x, a, b, ba, bb)
    np.testing.assert_allclose(np.asarray(r), np.maximum(x @ a + ba, 0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(u), np.maximum(x @ b + bb, 0), rtol=1e-5)


def test_check_can_veto():
    out = relax.transform.CombineParallelMatmul(lambda x, ws, bs, acts: len(ws) > 2)(Branches)
    assert _ops(out).count("relax.matmul") == 2


def test_partial_bias_keeps_the_adds_apart():
    @I.ir_module
    class Mixed:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), a: R.Tensor((4, 3), "float32"), b: R.Tensor((4, 5), "float32"),
                 ba: R.Tensor((3,), "float32")):
            with R.dataflow():
                p = R.matmul(x, a)
                q = R.add(p, ba)
                s = R.matmul(x, b)
                out = (q, s)
                R.output(out)
            return out

    out = relax.transform.CombineParallelMatmul()(Mixed)
    ops = _ops(out)
    assert ops.count("relax.matmul") == 1 and ops.count("relax.add") == 1


def test_script_r_offers_the_ir_builder_words():
    from ember.script.ir_builder import IRBuilder
    from ember.script.ir_builder import relax as rb

    with IRBuilder() as builder:
        with rb.function():
            R.func_name("main")
            x = R.arg("x", R.Tensor((4,), "float32"))
            with R.dataflow() as frame:
                R.output(R.emit(R.exp(x)))
            R.func_ret_value(frame.output_vars[0])
    func = builder.get()
    assert isinstance(func, relax.Function) and func.params[0].name_hint == "x"
