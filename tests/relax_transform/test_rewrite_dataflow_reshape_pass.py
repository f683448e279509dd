"""RewriteDataflowReshape: reshape kernels in dataflow blocks become R.reshape; slices do not."""

import numpy as np

from ember import relax, topi, te
from ember.relax.expr import DataflowVar


def _module(kernel, out_shape):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 6), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit_te(kernel, x)
            z = bb.emit_output(relax.op.exp(y))
        bb.emit_func_output(z)
    return bb.get()


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings]


def test_reshape_kernel_becomes_reshape_op():
    mod = _module(lambda t: topi.reshape(t, (3, 4)), (3, 4))
    out = relax.transform.RewriteDataflowReshape()(mod)
    assert _ops(out)[0] == "relax.reshape"
    assert isinstance(out["main"].body.blocks[0].bindings[0].var, DataflowVar)
    x = np.arange(12, dtype="float32").reshape(2, 6)
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, x)), np.exp(x.reshape(3, 4)), rtol=1e-6)


def test_slice_kernel_is_kept():
    mod = _module(lambda t: te.compute((2, 3), lambda i, j: t[i, j]), (2, 3))
    out = relax.transform.RewriteDataflowReshape()(mod)
    assert _ops(out)[0] == "relax.call_tir"
