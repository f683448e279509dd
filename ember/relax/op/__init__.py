"""``relax.op``: Relax operators.  Each builder returns an un-normalised ``Call``; the
BlockBuilder infers its struct info from the op's ``FInferStructInfo``."""

from . import attrs, base, builtin, image, nn  # noqa: F401
from . import memory  # noqa: F401
from . import ccl, inspect  # noqa: F401 - relax.op.ccl.*, relax.op.inspect.* (R.ccl, R.inspect)
from . import grad  # noqa: F401 - relax.grad.* (ops only gradients use)
from .call import *  # noqa: F403
from .create import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .index import *  # noqa: F403
from .linear_algebra import *  # noqa: F403
from .manipulate import *  # noqa: F403
from .manipulate_extra import *  # noqa: F403
from .qdq import *  # noqa: F403
from .replicate import *  # noqa: F403
from .scatter_nd import *  # noqa: F403
from .set_ops import *  # noqa: F403
from .sorting import *  # noqa: F403
from .statistical import *  # noqa: F403
from .ternary import *  # noqa: F403
from .statistical import max, min, sum  # noqa: F401, A004
