"""Arithmetic and comparisons on symbolic sizes (the ``_operator.*`` / ``torch.sym_*`` nodes
torch.export records for ``x.shape[0] * 2``, ``n // 2``, ``n > 3`` …, plus ``numel`` and
``stride``) become PrimExprs over the dynamic dims: one module, run at two sizes, matches
PyTorch."""

import pytest
import torch

from torch_check import check_module


class SizeArithmetic(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        sizes = x.new_zeros(n * 2 + 1 - 3) + 1  # mul, add, sub
        halves = x * (n // 2)  # floordiv
        scaled = x * (n / 4)  # truediv (a float)
        rest = x * (n % 3)  # mod
        flags = torch.stack([torch.tensor(v) for v in (n == 5, n != 5, n < 6, n <= 6, n > 3, n >= 7)])
        both = torch.full((1,), (n > 3) & (n < 10)) | torch.full((1,), torch.sym_not(n > 3) | (n == 2))
        numel = x * x.numel() + x.stride(0) - torch.full((1,), -n)  # numel, stride, neg
        return sizes, halves, scaled, rest, flags, both, numel


def test_symbolic_size_arithmetic_and_comparisons():
    n = torch.export.Dim("n", min=4, max=32)
    check_module(SizeArithmetic(), (torch.randn(5, 3),), dynamic_shapes=({0: n},),
                 run_args=[(torch.randn(8, 3),)])


class NumelStride(torch.nn.Module):
    def forward(self, x):  # x: (3, n): numel 3n, stride(0) n
        return x * x.numel() + x.stride(0)


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "export_ir"])
def test_numel_and_stride_of_a_dynamic_tensor(decompose):
    n = torch.export.Dim("n", min=2, max=32)
    check_module(NumelStride(), (torch.randn(3, 5),), dynamic_shapes=({1: n},), run_args=[(torch.randn(3, 9),)],
                 run_ep_decomposition=decompose)


def test_sym_stride_is_the_product_of_the_later_dims():
    """``aten.sym_stride`` (torch.export folds strides of contiguous inputs into sizes, so it
    is called directly): the stride of a contiguous tensor, symbolic where the dims are."""
    from ember import arith, relax, tir
    from ember.relax.frontend.torch import registry
    from ember.relax.frontend.torch.importer import GraphImporter

    registry.load_converters()
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([2, n, 5], "float32"))
    stride = registry.CONVERTERS["aten.sym_stride.int"]
    ctx = GraphImporter()
    assert stride(ctx, x, 2) == 1
    assert arith.Analyzer().can_prove_equal(stride(ctx, x, 0), n * 5)
    assert stride(ctx, x, -2) == 5
