"""ember.dlight: default schedules for kernels nobody scheduled or tuned (TVM's dlight).

``ApplyDefaultSchedule(*rules)`` is a module pass; ``cpu`` holds the CPU rules (Matmul,
Conv2D, Reduction, Elementwise, Fallback) and ``gpu`` the GPU rules.
``relax.build`` applies ``cpu.default_rules()`` to unscheduled kernels for llvm targets.
Why a rule declined a kernel: ``logging.getLogger("ember.dlight")`` at DEBUG.
"""

from . import cpu, gpu
from .apply import ApplyDefaultSchedule, schedule_func
from .base import FMA_CONTRACT, IS_SCHEDULED, RECIPROCAL, ScheduleRule

__all__ = ["ApplyDefaultSchedule", "ScheduleRule", "schedule_func", "cpu", "gpu", "IS_SCHEDULED",
           "FMA_CONTRACT", "RECIPROCAL"]
