"""``tvm.tir.stmt_functor``: the module path of TIR's visitors and substitution helpers
(they live in ``ember.tir.functor``)."""

from .functor import *  # noqa: F403
from .functor import __all__  # noqa: F401
