"""relax.frontend.nn: Module bookkeeping — parameters, state dicts, dtype conversion."""

import numpy as np
import pytest

import ember
from ember.relax.frontend import nn


class MLP(nn.Module):
    def __init__(self, hidden=8, dtype="float32"):
        self.fc1 = nn.Linear(4, hidden, dtype=dtype)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, 3, dtype=dtype)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_parameters_in_declaration_order():
    names = [n for n, _ in MLP().named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    shapes = [p.shape for p in MLP().parameters()]
    assert shapes == [[8, 4], [8], [3, 8], [3]]


def test_named_parameters_prefix_and_nested_lists():
    class Net(nn.Module):
        def __init__(self):
            self.layers = nn.ModuleList([nn.Linear(2, 2, bias=False), nn.Linear(2, 2)])
            self.norm = nn.LayerNorm(2)

    names = [n for n, _ in Net().named_parameters("model")]
    assert names == ["model.layers.0.weight", "model.layers.1.weight", "model.layers.1.bias",
                     "model.norm.weight", "model.norm.bias"]
    assert [n for n, _ in Net().named_modules()] == ["", "layers", "layers.0", "layers.1", "norm"]


def test_shared_parameter_listed_once():
    class Tied(nn.Module):
        def __init__(self):
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

    assert [n for n, _ in Tied().named_parameters()] == ["a.weight"]


def test_state_dict_round_trip_numpy_and_ndarray():
    m = MLP()
    rng = np.random.default_rng(0)
    values = {name: rng.standard_normal(p.shape).astype("float32") for name, p in m.named_parameters()}
    values["fc2.bias"] = ember.nd.array(values["fc2.bias"])
    missing, unexpected = m.load_state_dict(values)
    assert (missing, unexpected) == ([], [])
    sd = m.state_dict()
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    np.testing.assert_array_equal(sd["fc1.weight"].numpy(), values["fc1.weight"])
    np.testing.assert_array_equal(sd["fc2.bias"].data.numpy(), values["fc2.bias"].numpy())
    other = MLP()
    other.load_state_dict(m.state_dict())  # Parameters are accepted as values too
    np.testing.assert_array_equal(other.fc1.bias.numpy(), values["fc1.bias"])


def test_load_state_dict_strict_and_lenient():
    m = MLP()
    w = np.zeros((8, 4), "float32")
    with pytest.raises(KeyError, match=r"missing keys \['fc1.bias', 'fc2.weight', 'fc2.bias'\], "
                                       r"unexpected keys \['extra'\]"):
        m.load_state_dict({"fc1.weight": w, "extra": w})
    missing, unexpected = m.load_state_dict({"fc1.weight": w, "extra": w}, strict=False)
    assert missing == ["fc1.bias", "fc2.weight", "fc2.bias"] and unexpected == ["extra"]
    np.testing.assert_array_equal(m.fc1.weight.numpy(), w)


def test_load_state_dict_checks_shape_and_dtype():
    m = MLP()
    with pytest.raises(ValueError, match=r"'fc1.bias': Parameter.data: expected shape \(8,\), got \(7,\)"):
        m.load_state_dict({"fc1.bias": np.zeros(7, "float32")}, strict=False)
    with pytest.raises(TypeError, match=r"'fc1.bias': Parameter.data: expected dtype float32, got float64"):
        m.load_state_dict({"fc1.bias": np.zeros(8)}, strict=False)
    with pytest.raises(ValueError, match=r"the value for 'fc1.bias' is None"):
        m.load_state_dict({"fc1.bias": None}, strict=False)


def test_to_dtype_converts_parameters_and_data():
    m = MLP()
    m.fc1.bias.data = np.arange(8, dtype="float32")
    assert m.to("float16") is m
    assert {p.dtype for p in m.parameters()} == {"float16"}
    assert m.fc1.bias.numpy().dtype == np.float16
    np.testing.assert_array_equal(m.fc1.bias.numpy(), np.arange(8))


def test_parameter_with_symbolic_dim():
    p = nn.Parameter(("vocab", 16), "float32")
    assert p.shape == ["vocab", 16] and p.ndim == 2 and p.dtype == "float32"
    p.data = np.zeros((5, 16), "float32")  # any size fits a symbolic dim
    assert p.numpy().shape == (5, 16)


def test_parameter_errors():
    with pytest.raises(TypeError, match=r"each dimension must be an int, a name \(str\) or a PrimExpr, got 2.5"):
        nn.Parameter((2.5, 3))
    with pytest.raises(ValueError, match=r"Parameter.numpy: the parameter has no data"):
        nn.Parameter((2,)).numpy()
    with pytest.raises(RuntimeError, match=r"used outside Module.export_tvm"):
        _ = nn.Parameter((2,)).struct_info


def test_module_list_and_sequential():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    with pytest.raises(TypeError, match=r"ModuleList.append: expected an nn.Module, got int"):
        nn.ModuleList().append(3)
    with pytest.raises(TypeError, match=r"Sequential\[0\]: expected an nn.Module, got str"):
        seq[0] = "x"


def test_module_constructor_errors():
    with pytest.raises(ValueError, match=r"nn.Linear: in_features must be a positive int, got 0"):
        nn.Linear(0, 3)
    with pytest.raises(ValueError, match=r"nn.Conv2D: in_channels \(3\) and out_channels \(4\) must be divisible "
                                         r"by groups \(2\)"):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"nn.GroupNorm: num_channels \(6\) must be divisible by num_groups \(4\)"):
        nn.GroupNorm(4, 6)
    with pytest.raises(NotImplementedError, match=r"only data_layout='NCHW'"):
        nn.Conv2D(3, 4, 3, data_layout="NHWC")


def test_base_forward_is_not_defined():
    with pytest.raises(NotImplementedError, match=r"Module.forward is not defined"):
        nn.Module()(1)


def test_load_pytorch_state_dict():
    torch = pytest.importorskip("torch")
    ref = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    assert m.load_state_dict(ref.state_dict()) == ([], [])
    np.testing.assert_array_equal(m[2].weight.numpy(), ref[2].weight.detach().numpy())
    with torch.no_grad():
        ref[0].bias.add_(1.0)  # the module holds a copy, not a view of PyTorch's memory
    assert not np.array_equal(m[0].bias.numpy(), ref[0].bias.detach().numpy())
    m.load_state_dict({"0.bias": ref[0].bias}, strict=False)  # a tensor requiring grad is fine too
    np.testing.assert_array_equal(m[0].bias.numpy(), ref[0].bias.detach().numpy())
