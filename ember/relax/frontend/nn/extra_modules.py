"""More ready-made ``nn`` modules under TVM's names, with PyTorch's weight layouts:
``Conv3D``, ``ConvTranspose1D``, ``ConvTranspose2D`` (weight (in, out // groups, k…)),
``Identity`` and ``Dropout`` (identity at inference, as exported models run)."""

from __future__ import annotations

from collections.abc import Sequence

from ember.relax import op as _op

from .core import Module, Parameter, Tensor
from .modules import _check_groups, _positive, _tuple
from .op import _add_channel_bias, _tensor, squeeze, unsqueeze, wrap_nested

__all__ = ["Conv3D", "ConvTranspose1D", "ConvTranspose2D", "Identity", "Dropout"]


class Conv3D(Module):
    """3-D convolution over NCDHW input; ``weight`` is (out, in // groups, kd, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, dtype: str | None = None):
        _positive("nn.Conv3D", in_channels=in_channels, out_channels=out_channels, groups=groups)
        _check_groups("nn.Conv3D", in_channels, out_channels, groups)
        self.stride, self.padding, self.dilation, self.groups = _tuple(stride, 3), padding, _tuple(dilation, 3), groups
        self.weight = Parameter((out_channels, in_channels // groups, *_tuple(kernel_size, 3)), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        pad = _tuple(self.padding, 3)
        out = wrap_nested(_op.nn.conv3d(_tensor(x, "nn.Conv3D"), self.weight._expr, self.stride, pad + pad,
                                        self.dilation, self.groups), "conv3d")
        return _add_channel_bias(out, self.bias, 1, "add")


class ConvTranspose2D(Module):
    """Transposed 2-D convolution over NCHW input; ``weight`` is (in, out // groups, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, dtype: str | None = None):
        _positive("nn.ConvTranspose2D", in_channels=in_channels, out_channels=out_channels, groups=groups)
        _check_groups("nn.ConvTranspose2D", in_channels, out_channels, groups)
        self.stride, self.padding = _tuple(stride, 2), _tuple(padding, 2)
        self.output_padding, self.dilation, self.groups = _tuple(output_padding, 2), _tuple(dilation, 2), groups
        self.weight = Parameter((in_channels, out_channels // groups, *_tuple(kernel_size, 2)), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        out = wrap_nested(_op.nn.conv2d_transpose(_tensor(x, "nn.ConvTranspose2D"), self.weight._expr, self.stride,
                                                  self.padding + self.padding, self.output_padding, self.dilation,
                                                  self.groups), "conv2d_transpose")
        return _add_channel_bias(out, self.bias, 1, "add")


class ConvTranspose1D(Module):
    """Transposed 1-D convolution over NCW input; ``weight`` is (in, out // groups, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 output_padding: int = 0, groups: int = 1, bias: bool = True, dilation: int = 1,
                 dtype: str | None = None):
        _positive("nn.ConvTranspose1D", in_channels=in_channels, out_channels=out_channels, groups=groups)
        _check_groups("nn.ConvTranspose1D", in_channels, out_channels, groups)
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.dilation, self.groups = dilation, groups
        self.weight = Parameter((in_channels, out_channels // groups, kernel_size), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        # as a 2-D transposed convolution over a height of 1
        x2 = unsqueeze(x, 2)
        w2 = wrap_nested(_op.expand_dims(self.weight._expr, 2), "weight_2d")
        out = wrap_nested(_op.nn.conv2d_transpose(x2._expr, w2._expr, (1, self.stride), (0, self.padding) * 2,
                                                  (0, self.output_padding), (1, self.dilation), self.groups),
                          "conv1d_transpose")
        return _add_channel_bias(squeeze(out, 2), self.bias, 1, "add")


class Identity(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


class Dropout(Module):
    """Identity: exported models run inference."""

    def __init__(self, p: float = 0.5):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"nn.Dropout: p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return x
