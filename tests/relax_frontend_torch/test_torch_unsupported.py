"""Every path where the PyTorch importer gives up has its message checked: operators with no
converter are listed before conversion (``UnsupportedOperatorError``), and a converter that
cannot handle one particular call raises naming the op, the fx node, the model source line
and what is supported instead.  Paths PyTorch itself never lets through ``torch.export``
(an unknown pad mode, one_hot without a class count, a symbolic-size operator applied to a
tensor) are checked by calling the converter directly."""

import pytest
import torch
from torch.nn import functional as F

from torch_check import Fn

from ember import relax
from ember.relax.frontend.torch import UnsupportedOperatorError, from_exported_program, registry

g = torch.Generator().manual_seed(2)


def r(*shape):
    return torch.randn(*shape, generator=g)


MHA_WEIGHTS = (r(12, 4), r(12), r(4, 4), r(4))

# (name, fn, inputs, expected message) — converted after the default decomposition and
# on the export IR; both must raise the same way
CONVERTER_LIMITS = [
    ("conv_transpose_groups", lambda x, w: F.conv_transpose2d(x, w, groups=2), (r(1, 4, 3, 3), r(4, 1, 2, 2)),
     r"transposed convolution with groups=2, dilation=\[1, 1\] \(supported: groups=1, dilation=1\)"),
    ("conv_transpose_dilation", lambda x, w: F.conv_transpose2d(x, w, dilation=2), (r(1, 2, 3, 3), r(2, 2, 2, 2)),
     r"transposed convolution with groups=1, dilation=\[2, 2\]"),
    ("avg_pool_divisor_override", lambda x: F.avg_pool2d(x, 2, divisor_override=3), (r(1, 1, 4, 4),),
     "avg_pool divisor_override"),
    ("index_separated_by_slice", lambda x, i, j: x[i, :, j], (r(3, 4, 5), torch.tensor([0, 2]), torch.tensor([1, 3])),
     "advanced indices separated by slices are not supported"),
    ("scatter_reduce_mean", lambda x, i, s: x.scatter_reduce(0, i, s, "mean"),
     (r(3, 2), torch.tensor([[0, 1], [2, 0]]), r(2, 2)), r"scatter_reduce reduce='mean' \(supported: sum, prod"),
    ("scatter_reduce_exclude_self", lambda x, i, s: x.scatter_reduce(0, i, s, "sum", include_self=False),
     (r(3, 2), torch.tensor([[0, 1], [2, 0]]), r(2, 2)), "scatter_reduce include_self=False"),
    ("index_put_two_indices", lambda x, i, j, v: x.index_put((i, j), v),
     (r(3, 4), torch.tensor([0, 2]), torch.tensor([1, 3]), r(2)),
     r"index_put with 2 index tensors of ranks \[1, 1\] \(supported: one 1-D index tensor\)"),
    ("item", lambda x: x * x.sum().item(), (r(3),), r"tensor.item\(\) makes a data-dependent Python value"),
    ("boolean_mask", lambda x: x[x > 0], (r(5),), "boolean-mask indexing has a data-dependent shape"),
    ("fast_path_attention_2d", lambda q: torch._native_multi_head_attention(q, q, q, 4, 2, *MHA_WEIGHTS,
                                                                             None, False)[0],
     (r(3, 4),), r"fast-path attention on a 2-D query \(supported: \(batch, seq, embed\)\)"),
]


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "export_ir"])
@pytest.mark.parametrize("name, fn, inputs, message", CONVERTER_LIMITS, ids=[c[0] for c in CONVERTER_LIMITS])
def test_converter_limit_is_named(name, fn, inputs, message, decompose):
    ep = torch.export.export(Fn(fn), inputs)
    with pytest.raises(NotImplementedError, match=message) as info:
        from_exported_program(ep, run_ep_decomposition=decompose)
    text = str(info.value)
    assert text.startswith("from_exported_program: converting aten.")
    assert "(node " in text and ", from torch_check.py:" in text  # the fx node and the model line


def test_transposed_conv_3d():
    ep = torch.export.export(Fn(lambda x, w: F.conv_transpose3d(x, w)), (r(1, 2, 3, 3, 3), r(2, 2, 2, 2, 2)))
    with pytest.raises(NotImplementedError, match=r"converting aten.convolution.default .*3-D transposed "
                                                  r"convolution \(supported: 1-D, 2-D\)"):
        from_exported_program(ep)
    with pytest.raises(UnsupportedOperatorError, match="aten.conv_transpose3d.input"):
        from_exported_program(ep, run_ep_decomposition=False)


def test_lstm_without_decomposition_is_listed():
    lstm = torch.nn.LSTM(3, 4, batch_first=True).eval()
    ep = torch.export.export(lstm, (r(1, 2, 3),))
    with pytest.raises(UnsupportedOperatorError, match=r"aten.lstm.input") as info:
        from_exported_program(ep, run_ep_decomposition=False)
    assert "pass custom_convert_map to add them" in str(info.value)


def test_slice_scatter_along_symbolic_dim():
    n = torch.export.Dim("n", min=3, max=16)
    ep = torch.export.export(Fn(lambda x, s: torch.slice_scatter(x, s, 0, 0, 2)), (r(5, 3), r(2, 3)),
                             dynamic_shapes=(({0: n}, None),))
    with pytest.raises(NotImplementedError, match="slice_scatter along a symbolic dim"):
        from_exported_program(ep)


def test_input_dtype_without_relax_equivalent():
    ep = torch.export.export(Fn(lambda x: x * 2), (torch.randn(3, dtype=torch.complex64),))
    with pytest.raises(TypeError, match=r"PyTorch dtype torch.complex64 has no Relax equivalent \(supported: float32"):
        from_exported_program(ep)


def _tensor_var():
    return relax.Var("x", relax.TensorStructInfo([2, 4], "float32"))


def test_paths_torch_export_never_reaches():
    registry.load_converters()
    with pytest.raises(NotImplementedError, match=r"pad mode 'wrap' \(supported: constant, reflect, replicate, "
                                                  r"circular\)"):
        registry.CONVERTERS["aten.pad.default"](None, _tensor_var(), [1, 1], "wrap")
    with pytest.raises(NotImplementedError, match="one_hot needs num_classes"):
        registry.CONVERTERS["aten.one_hot.default"](None, _tensor_var(), -1)
    with pytest.raises(NotImplementedError, match=r"operator on a tensor \(expected symbolic sizes\)"):
        registry.CONVERTERS["_operator.add"](None, _tensor_var(), 1)
