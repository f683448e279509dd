"""Attribute records of Relax operators: immutable nodes with named fields.

``call.attrs.strides`` rather than positional tuples; structural equality compares
them field by field.  Axes and sizes are Python ints (or tuples of them); dtypes are
``DataType`` or None ("same as the input").
"""

from __future__ import annotations

from ember.ir import DataType, Node, node

__all__ = [
    "Attrs", "AstypeAttrs", "AxisAttrs", "StatisticalAttrs", "ArgReduceAttrs", "PermuteDimsAttrs",
    "ExpandDimsAttrs", "SqueezeAttrs", "ConcatAttrs", "SplitAttrs", "StridedSliceAttrs",
    "TakeAttrs", "InitAttrs", "ArangeAttrs", "MatmulAttrs", "SoftmaxAttrs", "LayerNormAttrs",
    "BatchNormAttrs", "GroupNormAttrs", "RMSNormAttrs", "DropoutAttrs", "Conv1DAttrs",
    "Conv2DAttrs", "Conv3DAttrs", "Conv1DTransposeAttrs", "Conv2DTransposeAttrs", "Pool1DAttrs",
    "Pool2DAttrs", "Pool3DAttrs",
    "AdaptivePool1DAttrs", "AdaptivePool2DAttrs", "AdaptivePool3DAttrs", "PadAttrs",
    "AttentionAttrs", "ClipAttrs", "LeakyReluAttrs", "GeluAttrs", "FlattenAttrs",
]


class Attrs(Node):
    """Base of operator attribute records."""

    __slots__ = ()

    def keys(self) -> list[str]:
        from ember.ir import fields_of

        return list(fields_of(type(self)))

    def __getitem__(self, key: str):
        return getattr(self, key)


@node
class AstypeAttrs(Attrs):
    dtype: DataType


@node
class AxisAttrs(Attrs):
    axis: int


@node
class StatisticalAttrs(Attrs):
    axis: tuple | None
    keepdims: bool = False


@node
class ArgReduceAttrs(Attrs):
    axis: int | None
    keepdims: bool = False


@node
class PermuteDimsAttrs(Attrs):
    axes: tuple | None


@node
class ExpandDimsAttrs(Attrs):
    axis: tuple


@node
class SqueezeAttrs(Attrs):
    axis: tuple | None


@node
class FlattenAttrs(Attrs):
    pass


@node
class ConcatAttrs(Attrs):
    axis: int | None


@node
class SplitAttrs(Attrs):
    indices_or_sections: object  # int (sections) or tuple of split indices
    axis: int


@node
class StridedSliceAttrs(Attrs):
    axes: tuple
    begin: tuple
    end: tuple
    strides: tuple | None = None
    assume_inbound: bool = True


@node
class TakeAttrs(Attrs):
    axis: int | None
    mode: str = "fast"


@node
class InitAttrs(Attrs):
    dtype: DataType | None


@node
class ArangeAttrs(Attrs):
    dtype: DataType


@node
class MatmulAttrs(Attrs):
    out_dtype: DataType | None


@node
class SoftmaxAttrs(Attrs):
    axis: int


@node
class GeluAttrs(Attrs):
    approximate: str = "none"


@node
class LeakyReluAttrs(Attrs):
    alpha: float


@node
class ClipAttrs(Attrs):
    min: float
    max: float


@node
class LayerNormAttrs(Attrs):
    axes: tuple
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True


@node
class BatchNormAttrs(Attrs):
    axis: int
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True
    momentum: float = 0.1
    training: bool = True


@node
class GroupNormAttrs(Attrs):
    num_groups: int
    channel_axis: int
    axes: tuple
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True


@node
class RMSNormAttrs(Attrs):
    axes: tuple
    epsilon: float = 1e-5


@node
class DropoutAttrs(Attrs):
    rate: float


@node
class _ConvFields(Attrs):
    """The fields shared by the 1-D, 2-D and 3-D convolutions (each its own class, as in TVM)."""

    strides: tuple
    padding: tuple
    dilation: tuple
    groups: int
    data_layout: str
    kernel_layout: str
    out_layout: str
    out_dtype: DataType | None


@node
class Conv1DAttrs(_ConvFields):
    """Attributes of 1-D convolutions."""


@node
class Conv2DAttrs(_ConvFields):
    """Attributes of 2-D convolutions."""


@node
class Conv3DAttrs(_ConvFields):
    """Attributes of 3-D convolutions."""


@node
class _ConvTransposeFields(Attrs):
    """The fields shared by the transposed convolutions (each its own class, as in TVM)."""

    strides: tuple
    padding: tuple
    output_padding: tuple
    dilation: tuple
    groups: int
    data_layout: str
    kernel_layout: str
    out_layout: str
    out_dtype: DataType | None


@node
class Conv1DTransposeAttrs(_ConvTransposeFields):
    """Attributes of 1-D transposed convolutions."""


@node
class Conv2DTransposeAttrs(_ConvTransposeFields):
    """Attributes of 2-D transposed convolutions."""


@node
class _PoolFields(Attrs):
    """The fields shared by the 1-D, 2-D and 3-D max/avg pooling (each its own class, as in TVM)."""

    pool_size: tuple
    strides: tuple
    padding: tuple
    dilation: tuple
    ceil_mode: bool
    count_include_pad: bool
    layout: str
    out_layout: str


@node
class Pool2DAttrs(_PoolFields):
    """Attributes of 2-D max/avg pooling."""


@node
class Pool1DAttrs(_PoolFields):
    """Attributes of 1-D max/avg pooling."""


@node
class Pool3DAttrs(_PoolFields):
    """Attributes of 3-D max/avg pooling."""


@node
class _AdaptivePoolFields(Attrs):
    """The fields shared by the 1-D, 2-D and 3-D adaptive pooling (each its own class, as in TVM)."""

    output_size: tuple | None
    layout: str
    out_layout: str


@node
class AdaptivePool1DAttrs(_AdaptivePoolFields):
    """Attributes of 1-D adaptive pooling."""


@node
class AdaptivePool3DAttrs(_AdaptivePoolFields):
    """Attributes of 3-D adaptive pooling."""


@node
class AdaptivePool2DAttrs(_AdaptivePoolFields):
    """Attributes of 2-D adaptive pooling."""


@node
class PadAttrs(Attrs):
    pad_width: tuple
    pad_mode: str = "constant"
    pad_value: float = 0.0


@node
class AttentionAttrs(Attrs):
    scale: float | None = None
    causal_mask: str | None = None
    window_size: int | None = None


@node
class CallTIRAttrs(Attrs):
    pass


@node
class GatherElementsAttrs(Attrs):
    axis: int = 0


@node
class GatherNDAttrs(Attrs):
    batch_dims: int = 0


@node
class ScatterElementsAttrs(Attrs):
    axis: int = 0
    reduction: str = "update"


@node
class OneHotAttrs(Attrs):
    depth: int
    axis: int = -1


@node
class ScanopAttrs(Attrs):
    axis: int | None = None
    dtype: DataType | None = None
    exclusive: bool = False


@node
class SortAttrs(Attrs):
    axis: int = -1
    descending: bool = False


@node
class ArgsortAttrs(Attrs):
    axis: int = -1
    descending: bool = False
    dtype: DataType | None = None


@node
class TopKAttrs(Attrs):
    k: int = 1
    axis: int = -1
    ret_type: str = "both"
    largest: bool = True
    dtype: DataType | None = None


@node
class TileAttrs(Attrs):
    repeats: tuple


@node
class RepeatAttrs(Attrs):
    repeats: int
    axis: int | None = None


@node
class FlipAttrs(Attrs):
    axis: int


@node
class EinsumAttrs(Attrs):
    subscripts: str


@node
class Resize2DAttrs(Attrs):
    roi: tuple
    layout: str
    method: str
    coordinate_transformation_mode: str
    rounding_method: str
    cubic_alpha: float
    cubic_exclude: int
    extrapolation_value: float
    out_dtype: DataType | None


@node
class PReluAttrs(Attrs):
    axis: int = 1


@node
class InstanceNormAttrs(Attrs):
    channel_axis: int
    axes: tuple
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True


