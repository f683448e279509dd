"""ember.topi: the operator inventory as tensor expressions (TVM's topi).

Families live in their own modules: ``broadcast`` (binary elementwise with numpy
broadcasting), ``elemwise`` (unary math, cast, fills), ``reduction``, ``transform``
(data movement) and ``nn`` (dense, conv, pooling, softmax, norms, …).
"""

from . import image, nn, tag, utils
from .broadcast import *  # noqa: F403
from .einsum import *  # noqa: F403
from .elemwise import *  # noqa: F403
from .reduction import *  # noqa: F403
from .scan import *  # noqa: F403
from .scatter import *  # noqa: F403
from .scatter_nd import *  # noqa: F403
from .sort import *  # noqa: F403
from .transform import *  # noqa: F403
from .transform_extra import *  # noqa: F403
