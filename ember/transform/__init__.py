"""ember.transform: the pass infrastructure shared by TIR and Relax passes."""

from .pass_infra import (
    FunctionPass, ModulePass, Pass, PassContext, PassInfo, PassInstrument, Sequential,
    PrintIR, function_pass, module_pass, pass_instrument, prim_func_pass,
)
from .apply_to_function import ApplyPassToFunction  # noqa: E402
