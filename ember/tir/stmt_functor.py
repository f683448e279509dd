"""``tvm.tir.stmt_functor``: the module path of TIR's visitors and substitution helpers
(they live in ``ember.tir.functor``)."""

from .functor import *  # noqa: F403
from .functor import __all__ as _functor_all
from .renew_defs import renew_defs

__all__ = list(_functor_all) + ["renew_defs"]
