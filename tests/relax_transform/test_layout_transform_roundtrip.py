"""relax.layout_transform in TVMScript (``T.index_map``), its attributes' defaults, and a
Function's return struct info refined by a finer body (TVM's Function constructor)."""

import ember as tvm
from ember import relax
from ember.script import from_source
from ember.script import relax as R
from ember.script import tir as T


def _blocked_module():
    x = relax.Var("x", relax.TensorStructInfo((2, 8, 4, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.layout_transform(x, lambda n, c, h, w: (n, c // 4, h, w, c % 4)))
        bb.emit_func_output(y)
    return bb.get()


def test_index_map_prints_and_parses_back():
    mod = _blocked_module()
    text = mod.script()
    assert "T.index_map(lambda n, c, h, w:" in text and 'index_dtype="int64"' in text
    tvm.ir.assert_structural_equal(mod, from_source(text))


def test_index_maps_compare_structurally():
    a = T.index_map(lambda i, j: (j, i), index_dtype="int32")
    b = T.index_map(lambda p, q: (q, p), index_dtype="int32")
    c = T.index_map(lambda p, q: (p, q), index_dtype="int32")
    assert tvm.ir.structural_equal(a, b)
    assert not tvm.ir.structural_equal(a, c)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    assert str(a.initial_indices[0].dtype) == "int32"


def test_layout_transform_separators_default_to_empty():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    call = relax.op.layout_transform(x, lambda i, j: (j, i))
    assert call.attrs.axis_separators == () and call.attrs.input_axis_separators == ()


def test_function_return_refined_by_body():
    @R.function
    def f(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y: R.Tensor((2, 3), "float32") = R.add(x, x)
        return y

    assert [int(d) for d in f.ret_struct_info.shape.values] == [2, 3]


def test_function_return_keeps_declared_when_body_uses_inner_vars():
    x = relax.Var("x", relax.TensorStructInfo(ndim=1, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        m = tvm.tir.Var("m", "int64")
        y = bb.match_cast(x, relax.TensorStructInfo((m,), "float32"))
        bb.emit_func_output(y)
    ret = bb.get()["main"].ret_struct_info
    assert ret.shape is None and ret.ndim == 1
