"""Ready-made ``nn`` modules (TVM's names, PyTorch's weight layouts): ``Linear``,
``Conv1D``, ``Conv2D``, ``LayerNorm``, ``RMSNorm``, ``GroupNorm``, ``Embedding`` and the
activations ``ReLU``, ``GELU``, ``SiLU``.  Each declares its parameters in ``__init__`` and
computes with ``nn.op`` in ``forward``.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import op
from .core import Module, Parameter, Tensor

__all__ = ["Linear", "Conv1D", "Conv2D", "LayerNorm", "RMSNorm", "GroupNorm", "Embedding",
           "ReLU", "GELU", "SiLU"]


def _positive(what: str, **values) -> None:
    for name, v in values.items():
        if isinstance(v, int) and not isinstance(v, bool) and v <= 0:
            raise ValueError(f"{what}: {name} must be a positive int, got {v}")


def _tuple(v, n: int) -> tuple:
    return (v,) * n if isinstance(v, int) else tuple(v)


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape (out_features, in_features)."""

    def __init__(self, in_features: int | str, out_features: int | str, bias: bool = True,
                 dtype: str | None = None, out_dtype: str | None = None):
        _positive("nn.Linear", in_features=in_features, out_features=out_features)
        self.in_features, self.out_features, self.out_dtype = in_features, out_features, out_dtype
        self.weight = Parameter((out_features, in_features), dtype)
        self.bias = Parameter((out_features,), dtype if out_dtype is None else out_dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        x = op.matmul(x, op.permute_dims(self.weight), out_dtype=self.out_dtype)
        return x + self.bias if self.bias is not None else x


class Conv1D(Module):
    """1-D convolution over NCW input; ``weight`` is (out, in // groups, kernel_size)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, dilation: int = 1, groups: int = 1, bias: bool = True,
                 dtype: str | None = None):
        _positive("nn.Conv1D", in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size,
                  groups=groups)
        _check_groups("nn.Conv1D", in_channels, out_channels, groups)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter((out_channels, in_channels // groups, kernel_size), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return op.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2D(Module):
    """2-D convolution over NCHW input; ``weight`` is (out, in // groups, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 dtype: str | None = None, data_layout: str = "NCHW"):
        _positive("nn.Conv2D", in_channels=in_channels, out_channels=out_channels, groups=groups)
        _check_groups("nn.Conv2D", in_channels, out_channels, groups)
        if data_layout != "NCHW":
            raise NotImplementedError(f"nn.Conv2D: only data_layout='NCHW' is supported, got {data_layout!r}")
        kh, kw = _tuple(kernel_size, 2)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.data_layout = data_layout
        self.weight = Parameter((out_channels, in_channels // groups, kh, kw), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return op.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups,
                         self.data_layout)


def _check_groups(what: str, in_channels: int, out_channels: int, groups: int) -> None:
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{what}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                         f"divisible by groups ({groups})")


class LayerNorm(Module):
    """Layer normalisation over the last axis of size ``normalized_shape``."""

    def __init__(self, normalized_shape: int, eps: float = 1e-5, elementwise_affine: bool = True,
                 dtype: str | None = None):
        self.normalized_shape, self.eps = normalized_shape, eps
        self.weight = Parameter((normalized_shape,), dtype) if elementwise_affine else None
        self.bias = Parameter((normalized_shape,), dtype) if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        return op.layer_norm(x, [self.normalized_shape], self.weight, self.bias, self.eps)


class RMSNorm(Module):
    """RMS normalisation over ``axes`` with a learned scale (and an optional bias)."""

    def __init__(self, hidden_size: int, axes: int | Sequence[int] = -1, epsilon: float = 1e-5,
                 bias: bool = True, dtype: str | None = None):
        self.hidden_size, self.axes, self.epsilon = hidden_size, axes, epsilon
        self.weight = Parameter((hidden_size,), dtype)
        self.bias = Parameter((hidden_size,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        out = op.rms_norm(x, self.weight, self.axes, self.epsilon)
        return out + self.bias if self.bias is not None else out


class GroupNorm(Module):
    """Group normalisation of NC… input: ``num_channels`` split into ``num_groups``."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 dtype: str | None = None):
        if num_channels % num_groups:
            raise ValueError(f"nn.GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = Parameter((num_channels,), dtype) if affine else None
        self.bias = Parameter((num_channels,), dtype) if affine else None

    def forward(self, x: Tensor, channel_axis: int = 1, axes: Sequence[int] | None = None) -> Tensor:
        return op.group_norm(x, self.num_groups, self.weight, self.bias, self.eps, channel_axis, axes)


class Embedding(Module):
    """Row lookup into ``weight`` of shape (num, dim); integer inputs of any rank."""

    def __init__(self, num: int | str, dim: int | str, dtype: str | None = None):
        self.num, self.dim = num, dim
        self.weight = Parameter((num, dim), dtype)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim == 1:
            return op.take(self.weight, x, axis=0)
        flat = op.reshape(x, [-1])
        return op.reshape(op.take(self.weight, flat, axis=0), [*x.shape, self.dim])


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return op.relu(x)


class GELU(Module):
    def __init__(self, approximate: str | None = None):
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return op.gelu(x, self.approximate)


class SiLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return op.silu(x)

