"""``relax.op.nn``: neural-network operators."""

from ..elementwise import sigmoid, tanh  # noqa: F401 - TVM keeps these in relax.op
from .activation import *  # noqa: F403
from .convolution import conv1d, conv2d, conv2d_transpose  # noqa: F401
from .pooling import *  # noqa: F403
