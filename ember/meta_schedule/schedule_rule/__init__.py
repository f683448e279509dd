"""Schedule rules: how PostOrderApply turns each block into design spaces."""

from .add_rfactor import AddRFactor
from .auto_bind import AutoBind
from .auto_inline import AutoInline
from .cross_thread_reduction import CrossThreadReduction
from .multi_level_tiling import MultiLevelTiling, ReuseType
from .parallel_vectorize_unroll import ParallelizeVectorizeUnroll
from .random_compute_location import RandomComputeLocation
from .schedule_rule import PyScheduleRule, ScheduleRule, default_rules, derived_object

__all__ = ["AddRFactor", "AutoBind", "AutoInline", "CrossThreadReduction", "MultiLevelTiling",
           "ReuseType", "ParallelizeVectorizeUnroll", "RandomComputeLocation", "PyScheduleRule",
           "ScheduleRule", "default_rules", "derived_object", "create"]


def create(kind: str = "llvm") -> list:
    from ember.target import Target

    return default_rules(Target(kind) if isinstance(kind, str) else kind)
