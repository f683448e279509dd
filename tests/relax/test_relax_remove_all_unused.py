"""relax.analysis.remove_all_unused on functions and on SeqExprs."""

from relax_sinfo_helpers import T

from ember import relax
from ember.relax import op as R
from ember.relax.analysis import remove_all_unused


def _function(dataflow: bool):
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with bb.function("f", [x], pure=dataflow):
        if dataflow:
            with bb.dataflow():
                kept = bb.emit(R.add(x, x), "kept")
                bb.emit(R.multiply(x, x), "unused")
                out = bb.emit_output(kept)
        else:
            out = bb.emit(R.add(x, x), "kept")
            bb.emit(R.multiply(x, x), "unused")
            bb.emit(relax.Call(relax.ExternFunc("effect"), [x], sinfo_args=[T([4])]), "impure")
        bb.emit_func_output(out)
    return bb.get()["f"]


def _names(seq):
    return [b.var.name_hint for block in seq.blocks for b in block.bindings]


def test_seq_expr_of_a_dataflow_block():
    seq = _function(dataflow=True).body
    after = remove_all_unused(seq)
    assert isinstance(after, relax.SeqExpr)
    assert _names(after) == ["kept", "gv"]


def test_seq_expr_keeps_impure_calls():
    seq = _function(dataflow=False).body
    assert _names(remove_all_unused(seq)) == ["kept", "impure"]


def test_function_and_nothing_to_remove():
    func = remove_all_unused(_function(dataflow=True))
    assert isinstance(func, relax.Function)
    assert remove_all_unused(func) is func
    assert remove_all_unused(func.body) is func.body
