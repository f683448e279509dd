"""ember.topi.nn: neural-network operators as tensor expressions."""

from .attention import *  # noqa: F403
from .conv import *  # noqa: F403
from .conv2d_nchwc import *  # noqa: F403
from .conv_transpose import *  # noqa: F403
from .deformable_conv import *  # noqa: F403
from .dense import *  # noqa: F403
from .depth_space import *  # noqa: F403
from .elemwise import *  # noqa: F403
from .lrn_window import *  # noqa: F403
from .misc_ops import *  # noqa: F403
from .norm import *  # noqa: F403
from .pad import *  # noqa: F403
from .pooling import *  # noqa: F403
from .softmax import *  # noqa: F403
