"""``relax.transform.LegalizeOps`` and its tables: one module per op family, each with a
``TABLE`` from op name to legaliser ``fn(bb, call) -> Expr`` (usually ``bb.call_te`` of a
topi function).  ``LEGALIZE_TABLE`` is their union."""

from . import create, elementwise, image, index_nd, index_sort, linear_algebra, manipulate, nn_activation, nn_conv, statistical
from . import nn_torch_extra
from . import manipulate_extra, nn_loss, qdq, ternary
from . import ccl
from .common import register_legalize
from .driver import KEEP_OPS, LegalizeOps, legalize_module

LEGALIZE_TABLE: dict = {}
for _family in (elementwise, create, manipulate, statistical, linear_algebra, nn_activation, nn_conv, index_sort,
                image, index_nd, nn_torch_extra, manipulate_extra, nn_loss, qdq, ternary, ccl):
    LEGALIZE_TABLE.update(_family.TABLE)

__all__ = ["LegalizeOps", "LEGALIZE_TABLE", "KEEP_OPS", "legalize_module", "register_legalize"]
