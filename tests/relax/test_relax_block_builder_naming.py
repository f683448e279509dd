"""BlockBuilder as TVM's: unique function names, finalize, one name supply, emit_func_output checks,
emitting a SeqExpr (its bindings are inlined)."""

import pytest

from ember.error import TVMError
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


def _seq_of_three():
    bb = relax.BlockBuilder()
    with bb.function("g", []):
        a = bb.emit(relax.const(1, "int64"), "a")
        c = bb.emit(R.add(a, a), "c")
        bb.emit_func_output(c)
    return bb.get()["g"].body


def test_emitting_a_seq_expr_inlines_its_bindings():
    seq = _seq_of_three()
    bb = relax.BlockBuilder()
    with bb.function("f", []):
        d = bb.emit(relax.const(3, "int64"), "d")
        e = bb.emit(seq, "e")
        bb.emit_func_output(bb.emit(R.add(d, e), "f"))
    (block,) = bb.get()["f"].body.blocks
    assert [b.var.name_hint for b in block.bindings] == ["d", "a", "c", "e", "f"]
    assert block.bindings[3].value is seq.body


def test_a_binding_block_inlined_into_a_dataflow_block_splits_it():
    seq = _seq_of_three()
    bb = relax.BlockBuilder()
    with bb.function("f", []):
        with bb.dataflow():
            bb.emit(relax.const(3, "int64"), "d")
            e = bb.emit(seq, "e")
            out = bb.emit_output(e, "out")
        bb.emit_func_output(out)
    blocks = bb.get()["f"].body.blocks
    assert [isinstance(b, relax.DataflowBlock) for b in blocks] == [True, False, True]
    assert well_formed(bb.get())


def test_dataflow_var_used_outside_its_block_is_malformed():
    x = relax.Var("x", T([]))
    bb = relax.BlockBuilder()
    with bb.function("g", [x]):
        bb.emit_func_output(bb.emit(R.add(x, x)))
    func = bb.get()["g"]
    bb = relax.BlockBuilder()
    with bb.function("f", []):
        with bb.dataflow():
            local = bb.emit(relax.const(3, "float32"), "local")
            out = bb.emit_output(bb.emit(func.bind_params({x: local}).body))
        with pytest.raises(TVMError, match="Malformed AST"):
            bb.emit_func_output(out)


def test_function_bind_params_replaces_and_drops_parameters():
    import numpy as np

    x, y = relax.Var("x", T([2])), relax.Var("y", T([2]))
    bb = relax.BlockBuilder()
    with bb.function("g", [x, y]):
        bb.emit_func_output(bb.emit(R.add(x, y)))
    func = bb.get()["g"]
    bound = func.bind_params({"y": np.ones(2, "float32")})
    assert [p.name_hint for p in bound.params] == ["x"]
    (binding,) = bound.body.blocks[0].bindings
    assert isinstance(binding.value.args[1], relax.Constant)
    assert func.bind_params({x: y}).params == (y,)


def test_testing_scope_allows_emit_outside_a_function():
    x = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with bb.testing_scope(def_vars=[]):
        lv = bb.emit(R.add(x, x))
        assert lv.struct_info.ndim == 1
    with pytest.raises(RuntimeError, match="must be called inside BlockBuilder.function"):
        bb.emit(R.add(x, x))


def test_function_bind_symbolic_vars_by_name_or_var_and_its_errors():
    from ember import tir
    from ember.error import TVMError

    m, n = tir.Var("m", "int64"), tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([m, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("g", [x]):
        bb.emit_func_output(bb.emit(R.add(x, x)))
    func = bb.get()["g"]
    bound = func.bind_symbolic_vars({"m": 4, n: 8})
    assert [int(d) for d in bound.params[0].struct_info.shape] == [4, 8]
    with pytest.raises(TVMError, match="no symbolic variable named 'k'"):
        func.bind_symbolic_vars({"k": 1})
    with pytest.raises(TVMError, match="is not a symbolic variable"):
        func.bind_symbolic_vars({tir.Var("m", "int64"): 1})
    with pytest.raises(TVMError, match="given twice"):
        func.bind_symbolic_vars({"m": 1, m: 1})
    with pytest.raises(TVMError, match="nothing defines"):
        func.bind_symbolic_vars({"m": tir.Var("outside", "int64") * 2})
