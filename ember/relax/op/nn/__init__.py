"""``relax.op.nn``: neural-network operators."""

from ..elementwise import sigmoid, tanh  # noqa: F401 - TVM keeps these in relax.op
from .activation import *  # noqa: F403
from .convolution import conv1d, conv2d, conv2d_transpose, conv3d  # noqa: F401
from .loss import *  # noqa: F403
from .misc import *  # noqa: F403
from .pooling import *  # noqa: F403
from .torch_extra import *  # noqa: F403
