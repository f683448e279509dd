"""FoldConstant as TVM: folded bindings left unused are removed; high-level ops fold only
inside dataflow blocks (kernel calls fold anywhere)."""

import numpy as np

from ember import relax


def _func(dataflow: bool):
    c = relax.const(np.arange(4, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", []):
        if dataflow:
            with bb.dataflow():
                y = bb.emit(relax.op.add(c, c))
                out = bb.emit_output(y)
        else:
            out = bb.emit(relax.op.add(c, c))
        bb.emit_func_output(out)
    return bb.get()


def test_folded_values_replace_their_variables():
    out = relax.transform.FoldConstant()(_func(True))
    body = out["main"].body
    result = body.body
    if isinstance(result, relax.Var):  # the output binding itself stays as the block's output
        assert len([b for blk in body.blocks for b in blk.bindings]) == 1
        result = body.blocks[0].bindings[0].value
    assert isinstance(result, relax.Constant)
    np.testing.assert_allclose(result.data.numpy(), 2 * np.arange(4))


def test_ops_outside_dataflow_are_not_folded():
    mod = _func(False)
    assert relax.transform.FoldConstant()(mod)["main"].body.blocks[0].bindings[0].value.op.name == "relax.add"
