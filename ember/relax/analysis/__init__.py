"""``relax.analysis``: well-formedness, variable queries, struct-info helpers."""

from ..struct_info import get_static_type, struct_info_lca  # noqa: F401
from .vars import (  # noqa: F401
    all_global_vars, all_vars, bound_vars, free_vars, get_var2val, remove_all_unused, used_vars,
)
from .purity import contains_impure_call  # noqa: F401
from .recursion import detect_recursion  # noqa: F401
from .erase_to_well_defined import erase_to_well_defined  # noqa: F401
from .symbolic_vars import (  # noqa: F401
    collect_non_negative_expressions, defined_symbolic_vars, definable_tir_vars_in_struct_info,
    free_symbolic_vars, tir_vars_in_struct_info,
)
from .well_formed import WellFormedError, check_well_formed, well_formed  # noqa: F401
from .bindings import name_to_binding, udchain  # noqa: F401
from .reshape_pattern import has_reshape_pattern  # noqa: F401
from .memory_usage import estimate_memory_usage  # noqa: F401
from .compile_time import computable_at_compile_time  # noqa: F401
from .layout_transforms import suggest_layout_transforms  # noqa: F401
