"""``ember.ir.transform``: TVM's home of the pass infrastructure (same as ``ember.transform``)."""

from ember.transform import *  # noqa: F403
from ember.transform import (  # noqa: F401
    FunctionPass, ModulePass, Pass, PassContext, PassInfo, PassInstrument, Sequential,
    PrintIR, function_pass, module_pass, pass_instrument, prim_func_pass,
)
