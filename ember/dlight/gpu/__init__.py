"""``dlight.gpu``: GPU default schedules — not written yet (ember's CUDA backend is not built).

The names TVM users write (``dlight.gpu.Matmul()``, ``GEMV``, ``Reduction``,
``GeneralReduction``, ``Fallback``) exist so scripts import; making one raises
NotImplementedError saying so.
"""

from __future__ import annotations

from ..base import ScheduleRule


class _NotYet(ScheduleRule):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"dlight.gpu.{type(self).__name__}: GPU default schedules are not implemented in ember yet "
            "(the CUDA backend is not built); use the CPU rules in ember.dlight.cpu with target 'llvm'")


class Matmul(_NotYet):
    pass


class GEMV(_NotYet):
    pass


class Reduction(_NotYet):
    pass


class GeneralReduction(_NotYet):
    pass


class RMSNorm(_NotYet):
    pass


class Transpose(_NotYet):
    pass


class Fallback(_NotYet):
    pass


__all__ = ["Matmul", "GEMV", "Reduction", "GeneralReduction", "RMSNorm", "Transpose", "Fallback"]
