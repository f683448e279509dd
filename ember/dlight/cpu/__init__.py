"""Default CPU schedule rules, in the order ``default_rules()`` tries them (first hit wins)."""

from .conv2d import Conv2D
from .conv2d_nchwc import Conv2DNCHWc, DepthwiseConv2DNCHWc
from .conv2d_packed import Conv2DPacked
from .depthwise_conv2d import DepthwiseConv2DPacked
from .elementwise import Elementwise, Injective
from .fallback import Fallback
from .matmul import Matmul
from .pool_nchwc import PoolNCHWc
from .reduction import Reduction
from .winograd import WinogradTransform

__all__ = ["Matmul", "Conv2D", "Conv2DPacked", "DepthwiseConv2DPacked", "Conv2DNCHWc", "DepthwiseConv2DNCHWc",
           "PoolNCHWc", "WinogradTransform", "Reduction", "Elementwise", "Injective", "Fallback", "default_rules"]


def default_rules() -> tuple:
    """The rule list ``relax.build`` applies to unscheduled kernels for CPU targets."""
    return (WinogradTransform(), Matmul(), Conv2DPacked(), DepthwiseConv2DPacked(), Conv2DNCHWc(), DepthwiseConv2DNCHWc(), PoolNCHWc(),
            Conv2D(), Reduction(), Elementwise(), Fallback())
