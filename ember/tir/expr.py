"""``tvm.tir.expr``: the module path of TIR's expression nodes (they live in ``ember.ir.expr``)."""

from ember.ir.expr import *  # noqa: F403
from ember.ir.expr import EQ, NE
from ember.ir.expr import __all__  # noqa: F401

# TVM's ``==`` / ``!=`` give lazy EqualOp / NotEqualOp wrappers; ember's give the nodes
EqualOp, NotEqualOp = EQ, NE

from ember.tir.producer_load import ProducerLoad  # noqa: E402,F401 - tvm.tir.expr.ProducerLoad
