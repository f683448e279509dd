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
           "PoolNCHWc", "WinogradTransform", "Reduction", "Elementwise", "Injective", "Fallback", "default_rules",
           "settings_key"]


def default_rules() -> tuple:
    """The rule list ``relax.build`` applies to unscheduled kernels for CPU targets."""
    return (WinogradTransform(), Matmul(), Conv2DPacked(), DepthwiseConv2DPacked(), Conv2DNCHWc(), DepthwiseConv2DNCHWc(), PoolNCHWc(),
            Conv2D(), Reduction(), Elementwise(), Fallback())


def settings_key() -> tuple:
    """Every rule's class-level settings (flags, numbers, strings, tuples), which change the
    schedules of the same kernels: build caches keyed by unscheduled kernels put this in their
    keys, so a setting changed in the process is not answered with kernels of the old one."""
    return tuple((cls.__name__, name, value)
                 for cls in dict.fromkeys(c for rule in default_rules() for c in type(rule).__mro__)
                 for name, value in sorted(vars(cls).items())
                 if not name.startswith("_") and isinstance(value, bool | int | float | str | tuple))
