"""from_exported_program / from_fx options and errors: params bound or kept as inputs,
unit-tuple unwrapping, unbound return tuples, custom converters, dynamic dims with upper
bounds, and the message listing every unsupported operator with its source line."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from torch_check import Fn, build_vm, compare

from ember import relax
from ember.relax.frontend import detach_params
from ember.relax.frontend.torch import UnsupportedOperatorError, from_exported_program, from_fx


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


def _export(model, *args, **kw):
    return torch.export.export(model.eval(), args, **kw)


def test_params_bound_as_constants_by_default():
    x = torch.randn(1, 3, 6, 6)
    mod = from_exported_program(_export(ConvNet(), x))
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x"]
    assert "params" not in main.attrs


def test_keep_params_as_input():
    model, x = ConvNet().eval(), torch.randn(1, 3, 6, 6)
    mod = from_exported_program(_export(model, x), keep_params_as_input=True)
    main = mod["main"]
    names = [p.name_hint for p in main.params]
    assert names[0] == "x" and "conv_weight" in names and "bn_running_mean" in names
    assert main.attrs["num_input"] == 1
    mod, params = detach_params(mod)
    values = params["main"]
    assert len(values) == len(names) - 1
    state = {k.replace(".", "_"): v for k, v in model.state_dict().items()}
    for var, value in zip(main.params[1:], values):
        np.testing.assert_array_equal(value.numpy(), state[var.name_hint].numpy())
    out = build_vm(mod)["main"](x, *values)
    compare(out, model(x))


def test_unwrap_unit_return_tuple_and_no_bind():
    x = torch.randn(2, 3)
    single = from_exported_program(_export(Fn(lambda a: a * 2), x), unwrap_unit_return_tuple=True)
    assert not isinstance(single["main"].ret_struct_info, relax.TupleStructInfo)
    pair = from_exported_program(_export(Fn(lambda a: (a + 1, a * 2)), x), no_bind_return_tuple=True)
    assert isinstance(pair["main"].body.body, relax.Tuple)
    compare(build_vm(pair)["main"](x), (x + 1, x * 2))


def test_dynamic_dim_becomes_symbolic_var_with_upper_bound():
    batch = torch.export.Dim("batch", max=32)
    mod = from_exported_program(_export(Fn(lambda a: a.sum(1)), torch.randn(4, 3), dynamic_shapes=(({0: batch},),)))
    (x,) = mod["main"].params
    dim = x.struct_info.shape.values[0]
    assert not hasattr(dim, "value")  # a tir.Var, not a constant
    assert mod["main"].attrs["tir_var_upper_bound"] == {dim.name: 32}
    vm = build_vm(mod)
    for n in (1, 7):
        a = torch.randn(n, 3)
        compare(vm["main"](a), (a.sum(1),))


def test_custom_convert_map_overrides_and_adds():
    def my_relu(node, importer):  # TVM's signature: (fx node, importer)
        x = importer.env[node.args[0]]
        return importer.block_builder.emit(relax.op.multiply(x, relax.const(3.0, "float32")))

    x = torch.randn(2, 3)
    mod = from_exported_program(_export(Fn(torch.relu), x), custom_convert_map={"relu.default": my_relu})
    compare(build_vm(mod)["main"](x), (x * 3,))


class TwoUnsupported(torch.nn.Module):
    def forward(self, x):
        y = torch.special.erfinv(x.clamp(-0.5, 0.5))
        return torch.bucketize(y, torch.tensor([0.0, 1.0])) + torch.special.erfinv(x.clamp(-0.1, 0.1))


def test_unsupported_ops_listed_at_once_with_source_lines():
    ep = _export(TwoUnsupported(), torch.randn(5))
    with pytest.raises(UnsupportedOperatorError) as info:
        from_exported_program(ep)
    message = str(info.value)
    assert "2 PyTorch operator(s) have no converter" in message
    assert "aten.erfinv.default" in message and "aten.bucketize.Tensor" in message
    assert "test_torch_import_api.py" in message and "torch.special.erfinv(x.clamp(-0.5, 0.5))" in message
    assert message.count("aten.erfinv.default") == 1  # one row per op, other call sites under it
    assert "also from test_torch_import_api.py" in message
    assert set(info.value.ops) == {"aten.erfinv.default", "aten.bucketize.Tensor"}


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="exported_program must be a torch.export.ExportedProgram, got Linear"):
        from_exported_program(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"input_info must be a list of \(shape, dtype\) pairs"):
        from_fx(torch.fx.symbolic_trace(torch.nn.Linear(2, 2)), [(2, 2)])


def test_converter_error_names_the_node_and_source():
    class MaskSelect(torch.nn.Module):
        def forward(self, x):
            return x[x > 0] * 2

    ep = _export(MaskSelect(), torch.randn(6))
    with pytest.raises(Exception, match="converting aten.index.Tensor .*boolean-mask indexing"):
        from_exported_program(ep)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 3)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x):
        h = self.norm(torch.relu(self.fc1(x)))
        return self.fc2(h).softmax(dim=-1).transpose(0, 1).contiguous()


def test_from_fx_symbolic_trace_static_and_dynamic():
    model = MLP().eval()
    gm = torch.fx.symbolic_trace(model)
    kinds = {n.op for n in gm.graph.nodes}
    assert {"call_module", "call_function", "call_method"} <= kinds
    x = torch.randn(5, 4)
    compare(build_vm(from_fx(gm, [((5, 4), "float32")]))["main"](x), (model(x),))
    vm = build_vm(from_fx(gm, [(("n", 4), "float32")]))
    for n in (2, 9):
        a = torch.randn(n, 4)
        compare(vm["main"](a), (model(a),))


def test_from_fx_keep_params_as_input():
    model = MLP().eval()
    mod = from_fx(torch.fx.symbolic_trace(model), [((3, 4), "float32")], keep_params_as_input=True)
    assert mod["main"].attrs["num_input"] == 1
    assert [p.name_hint for p in mod["main"].params][1:3] == ["fc1_weight", "fc1_bias"]


class _One(torch.nn.Module):
    def forward(self, a):
        return a * 2


class _Two(torch.nn.Module):
    def forward(self, a):
        return a + 1, a * 2


def test_from_fx_returns_what_the_graph_returns():
    """As TVM's from_fx: a graph returning one tensor gives a bare tensor, several a tuple."""
    info = [((2, 3), "float32")]
    one = from_fx(torch.fx.symbolic_trace(_One()), info)
    assert isinstance(one["main"].ret_struct_info, relax.TensorStructInfo)
    two = from_fx(torch.fx.symbolic_trace(_Two()), info)
    assert len(two["main"].ret_struct_info.fields) == 2
    x = torch.randn(2, 3)
    compare(build_vm(one)["main"](x), x * 2)
