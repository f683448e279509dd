"""``ScheduleRule``: the interface every default schedule rule implements.

A rule looks at one PrimFunc and either returns a ``tir.Schedule`` holding its scheduled
version or ``None`` when it does not apply — after logging (logger ``ember.dlight``, level
DEBUG) the reason, so "why is this kernel slow?" has an answer.
"""

from __future__ import annotations

import logging

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

LOG = logging.getLogger("ember.dlight")

# the function attribute marking a PrimFunc as scheduled (ApplyDefaultSchedule skips it)
IS_SCHEDULED = "tir.is_scheduled"
# per-function permission for the LLVM codegen to contract a*b+c into one FMA
FMA_CONTRACT = "ember.fast_math_contract"
# ... and to divide by multiplying with the reciprocal (x / s[row] → x * (1 / s[row]), ±1 ulp)
RECIPROCAL = "ember.fast_math_reciprocal"


class ScheduleRule:
    """Base of default schedule rules: ``apply(func, target, tunable) -> Schedule | None``."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        raise NotImplementedError(f"{type(self).__name__}.apply is not written")

    def decline(self, func_name: str, why: str) -> None:
        """Log why this rule does not schedule ``func_name``; rules ``return None`` after it."""
        LOG.debug("%s: %s does not apply: %s", func_name, type(self).__name__, why)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def func_name(func: PrimFunc) -> str:
    """A readable name for log lines."""
    return str((func.attrs or {}).get("global_symbol") or "<primfunc>")
