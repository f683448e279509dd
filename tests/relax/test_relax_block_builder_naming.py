"""BlockBuilder as TVM's: unique function names, finalize, one name supply, emit_func_output checks."""

import pytest
from relax_sinfo_helpers import T

from ember import relax
from ember.relax import op as R
from ember.relax.analysis import well_formed


def test_functions_of_the_same_name_get_unique_names_and_finalize_restores_the_symbol():
    bb = relax.BlockBuilder()
    with bb.function("f", [], private=True):
        inner = bb.emit_func_output(relax.const(1, "int64"))
    with bb.function("f", []):
        out = bb.emit(relax.Call(inner, []))
        outer = bb.emit_func_output(out)
    assert (inner.name_hint, outer.name_hint) == ("f", "f1")
    assert not well_formed(bb.get())  # the public function's name differs from its symbol
    mod = bb.finalize()
    assert well_formed(mod)
    assert mod["f"].attrs["global_symbol"] == "f"
    assert "global_symbol" not in (mod["f1"].attrs or {})


def test_local_names_count_across_functions():
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    names = []
    for fname in ("a", "b"):
        with bb.function(fname, [x]):
            with bb.dataflow():
                lv = bb.emit(R.add(x, x))
                names.append(lv.name_hint)
                gv = bb.emit_output(lv)
            bb.emit_func_output(gv)
    assert names == ["lv", "lv1"]


def test_private_block_spellings():
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    bb._begin_dataflow_block()
    lv = bb.emit(R.add(x, x), "add")
    bb.emit_output(lv, "out")
    block = bb._end_block()
    assert isinstance(block, relax.DataflowBlock)
    assert [b.var.name_hint for b in block.bindings] == ["add", "out"]
    bb._begin_binding_block()
    bb.emit(R.add(x, x))
    assert not isinstance(bb._end_block(), relax.DataflowBlock)


def test_emit_func_output_errors():
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with pytest.raises(RuntimeError, match="already has its output"):
        with bb.function("twice", [x]):
            bb.emit_func_output(x)
            bb.emit_func_output(x)
    with pytest.raises(RuntimeError, match="has no params"):
        with bb.function("none"):
            bb.emit_func_output(x)
    with pytest.raises(RuntimeError, match="params were given both"):
        with bb.function("both", [x]):
            bb.emit_func_output(x, [x])
