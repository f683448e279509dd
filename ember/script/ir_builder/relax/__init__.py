"""``tvm.script.ir_builder.relax``: Relax frames of the IR builder (see ``ir.py``)."""

from .ir import *  # noqa: F403
from .ir import __all__  # noqa: F401
