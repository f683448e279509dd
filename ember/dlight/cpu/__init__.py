"""Default CPU schedule rules, in the order ``default_rules()`` tries them (first hit wins)."""

from .conv2d import Conv2D
from .elementwise import Elementwise, Injective
from .fallback import Fallback
from .matmul import Matmul
from .reduction import Reduction

__all__ = ["Matmul", "Conv2D", "Reduction", "Elementwise", "Injective", "Fallback", "default_rules"]


def default_rules() -> tuple:
    """The rule list ``relax.build`` applies to unscheduled kernels for CPU targets."""
    return (Matmul(), Conv2D(), Reduction(), Elementwise(), Fallback())
