"""relax.frontend.nn: export_tvm — function signatures, spec handling, traced IR."""

import numpy as np
import pytest

from ember import relax, tir
from ember.relax.analysis import check_well_formed
from ember.relax.frontend import nn


class MLP(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(self.relu1(self.fc1(x)))


def _param_names(func):
    return [p.name_hint for p in func.params]


def test_mlp_signature_inputs_then_parameters():
    mod, param_spec = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
    check_well_formed(mod)
    func = mod["forward"]
    assert _param_names(func) == ["x", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    assert func.attrs["num_input"] == 1
    assert [(n, s.shape, s.dtype) for n, s in param_spec] == [
        ("fc1.weight", [256, 784], "float32"), ("fc1.bias", [256], "float32"),
        ("fc2.weight", [10, 256], "float32"), ("fc2.bias", [10], "float32")]
    blocks = func.body.blocks
    assert len(blocks) == 1 and isinstance(blocks[0], relax.DataflowBlock)
    ops = [b.value.op.name for b in blocks[0].bindings if isinstance(b.value, relax.Call)]
    assert ops == ["relax.permute_dims", "relax.matmul", "relax.add", "relax.nn.relu",
                   "relax.permute_dims", "relax.matmul", "relax.add"]
    assert blocks[0].bindings[-1].var.name_hint == "gv"
    assert func.ret_struct_info.dtype == "float32"
    assert [int(d) for d in func.ret_struct_info.shape.values] == [1, 10]


def test_script_shows_tvm_style_names():
    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("batch", 784), "float32")}})
    text = mod.script()
    assert 'x: R.Tensor(("batch", 784), dtype="float32"), fc1_weight: R.Tensor((256, 784)' in text
    assert 'R.func_attr({"num_input": 1})' in text
    assert "matmul: R.Tensor((batch, 256)" in text


def test_symbolic_dims_are_shared_by_name():
    class Add(nn.Module):
        def forward(self, a, b):
            return a + b

    spec = {"forward": {"a": nn.spec.Tensor(("n", 4), "float32"), "b": nn.spec.Tensor(("n", 4), "float32")}}
    mod, params = Add().export_tvm(spec=spec)
    a, b = mod["forward"].params
    assert params == []
    da, db = a.struct_info.shape.values[0], b.struct_info.shape.values[0]
    assert isinstance(da, tir.Var) and da is db and da.dtype == "int64"


def test_symbolic_parameter_dim_shares_the_input_name():
    class Embed(nn.Module):
        def __init__(self):
            self.emb = nn.Embedding("vocab", 8)

        def forward(self, ids):
            return self.emb(ids)

    mod, params = Embed().export_tvm(spec={"forward": {"ids": nn.spec.Tensor(("n",), "int32")}})
    w = mod["forward"].params[1]
    assert w.name_hint == "emb_weight" and isinstance(w.struct_info.shape.values[0], tir.Var)
    assert params[0][1].shape == ["vocab", 8]
    table = np.arange(40, dtype="float32").reshape(5, 8)
    ids = np.array([4, 0, 2], dtype="int32")
    out = relax.reference.run(mod, ids, table, func_name="forward")
    np.testing.assert_array_equal(out, table[ids])


def test_int_spec_becomes_a_tir_var():
    class Head(nn.Module):
        def forward(self, x, n):
            assert isinstance(n, tir.Var)
            return nn.op.reshape(x, [n, -1])

    mod, _ = Head().export_tvm(spec={"forward": {"x": nn.spec.Tensor((6, 4), "float32"), "n": nn.spec.Int()}})
    n_param = mod["forward"].params[1]
    assert isinstance(n_param.struct_info, relax.PrimStructInfo)
    assert mod["forward"].ret_struct_info.ndim == 2


def test_multiple_methods_and_tuple_outputs():
    class Two(nn.Module):
        def __init__(self):
            self.w = nn.Parameter((4, 4))

        def forward(self, x):
            return x @ self.w

        def both(self, x):
            y = x @ self.w
            return y, nn.op.relu(y)

    spec = {"forward": {"x": nn.spec.Tensor((2, 4))}, "both": {"x": nn.spec.Tensor((2, 4))}}
    mod, params = Two().export_tvm(spec=spec)
    assert {gv.name_hint for gv in mod.get_global_vars()} == {"forward", "both"}
    assert _param_names(mod["both"]) == ["x", "w"]
    assert isinstance(mod["both"].ret_struct_info, relax.TupleStructInfo)
    x = np.ones((2, 4), "float32")
    w = np.eye(4, dtype="float32") * 2
    y, r = relax.reference.run(mod, x, w, func_name="both")
    np.testing.assert_array_equal(y, x @ w)
    np.testing.assert_array_equal(r, np.maximum(x @ w, 0))


def test_packed_and_none_param_modes():
    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784)), "$": {"param_mode": "packed"}}})
    params = mod["forward"].params
    assert _param_names(mod["forward"]) == ["x", "packed_params"]
    assert len(params[1].struct_info.fields) == 4
    with pytest.raises(RuntimeError, match=r"used outside Module.export_tvm"):
        MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784)), "$": {"param_mode": "none"}}})


def test_debug_adds_the_io_effect():
    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784))}}, debug=True)
    assert _param_names(mod["forward"])[:2] == ["x", "_io"]
    assert mod["forward"].attrs["num_input"] == 2
    assert "_initialize_effect" in [gv.name_hint for gv in mod.get_global_vars()]
    ret = mod["forward"].ret_struct_info
    assert isinstance(ret, relax.TupleStructInfo) and len(ret.fields) == 2


def test_parameters_are_unbound_after_export():
    m = MLP()
    m.export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784))}})
    assert m.fc1.weight._expr is None and m.fc1.weight.shape == [256, 784]


@pytest.mark.parametrize("spec, error, match", [
    ({}, TypeError, r"spec must be a non-empty dict"),
    ({"fwd": {}}, ValueError, r"MLP has no method 'fwd'"),
    ({"forward": {"y": nn.spec.Tensor((1, 784))}}, ValueError,
     r"spec\['forward'\] names arguments \['y'\], but the method takes \['x'\]"),
    ({"forward": {"x": (1, 784)}}, TypeError, r"spec\['forward'\]\['x'\] must be nn.spec.Tensor or nn.spec.Int, "
                                              r"got tuple"),
    ({"forward": [1]}, TypeError, r"spec\['forward'\] must be a dict of argument name"),
    ({"forward": {"x": nn.spec.Tensor((1, 784)), "$": {"param_mode": "odd"}}}, ValueError,
     r"param_mode must be one of \('plain', 'packed', 'none'\), got 'odd'"),
    ({"forward": {"x": nn.spec.Tensor((1, 784)), "$": {"effect": 1}}}, ValueError, r"unknown option 'effect'"),
])
def test_spec_errors(spec, error, match):
    with pytest.raises(error, match=match):
        MLP().export_tvm(spec=spec)


def test_spec_tensor_errors():
    with pytest.raises(TypeError, match=r"spec.Tensor: shape must be a sequence of ints, names or PrimExprs, got 3"):
        nn.spec.Tensor(3)
    with pytest.raises(ValueError, match=r"dimensions must be >= 0, got -1"):
        nn.spec.Tensor((-1, 2))
    assert repr(nn.spec.Tensor(("n", 2), "float16")) == "spec.Tensor(('n', 2), 'float16')"


def test_bad_return_value():
    class Bad(nn.Module):
        def forward(self, x):
            return "x"

    with pytest.raises(TypeError, match=r"method 'forward' must return nn.Tensor values .*got str"):
        Bad().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1,))}})


def test_allow_extern_not_supported():
    with pytest.raises(NotImplementedError, match=r"allow_extern=True"):
        MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784))}}, allow_extern=True)
