"""The Relax frames of the IR builder build what relax.BlockBuilder builds."""

import pytest

from ember import relax
from ember.ir import assert_structural_equal
from ember.script.ir_builder import IRBuilder
from ember.script.ir_builder import relax as R

SINFO = relax.TensorStructInfo((4, 4), "float32")


def test_function_with_dataflow_block_matches_block_builder():
    with IRBuilder() as ib:
        with R.function():
            R.func_name("f")
            x = R.arg("x", SINFO)
            with R.dataflow() as df:
                lv = R.emit(R.add(x, x))
                gv = R.emit(R.multiply(lv, x))
                R.output(gv)
            (gv,) = df.output_vars
            R.func_ret_value(gv)
    func = ib.get()

    x = relax.Var("x", SINFO)
    bb = relax.BlockBuilder()
    with bb.function("f", (x,)):
        with bb.dataflow():
            lv = bb.emit(relax.op.add(x, x))
            gv = bb.emit_output(relax.op.multiply(lv, x))
        bb.emit_func_output(gv)
    assert_structural_equal(func, bb.get()["f"])
    assert isinstance(func.body.blocks[0], relax.DataflowBlock)


def test_names_and_errors():
    with IRBuilder() as ib:
        with R.function():
            x = R.arg("x", SINFO)
            y = IRBuilder.name("y", R.emit(R.add(x, x)))
            R.func_ret_value(y)
    func = ib.get()
    assert func.params[0].name_hint == "x" and func.body.body.name_hint == "y"
    with pytest.raises(ValueError, match="R.func_ret_value"):
        with IRBuilder():
            with R.function():
                R.arg("x", SINFO)
    with pytest.raises(ValueError, match="inside `with R.function"):
        with IRBuilder():
            R.emit(relax.const(1.0))
    assert R.py_print is print
