"""``dlight.gpu``: default GPU schedules (TVM's dlight GPU rules), one rule per file.

Use them with ``dlight.ApplyDefaultSchedule(gpu.Matmul(), gpu.GEMV(), gpu.Reduction(),
gpu.GeneralReduction(), gpu.Fallback())`` under ``with Target("cuda"):``; each rule's
``apply(func, target, tunable)`` returns a Schedule, or None when it does not apply
(the reason is logged on ``ember.dlight`` at DEBUG).  ``default_rules()`` is that list
with RMSNorm and Transpose in front.  Every loop that touches global memory in a
scheduled kernel runs under a ``blockIdx`` / ``threadIdx`` binding.
"""

from __future__ import annotations

from .fallback import Fallback
from .gemv import GEMV
from .general_reduction import GeneralReduction
from .matmul import Matmul, MatmulConfig
from .reduction import Reduction
from .rmsnorm import RMSNorm
from .transpose import Transpose

__all__ = ["Matmul", "MatmulConfig", "GEMV", "Reduction", "GeneralReduction", "RMSNorm", "Transpose",
           "Fallback", "default_rules"]


def default_rules() -> tuple:
    """The GPU rules in the order they are tried (first hit wins)."""
    return (Matmul(), GEMV(), RMSNorm(), Transpose(), Reduction(), GeneralReduction(), Fallback())
