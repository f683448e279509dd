"""``tvm.ir.base``: the module path under which TVM offers its node base class and the
structural comparison entry points (all defined elsewhere in ``ember.ir``)."""

from .node import Node
from .structural import (
    assert_structural_equal, get_first_structural_mismatch, structural_equal, structural_hash,
)

__all__ = [
    "Node", "assert_structural_equal", "get_first_structural_mismatch", "structural_equal",
    "structural_hash",
]
