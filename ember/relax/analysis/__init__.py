"""``relax.analysis``: well-formedness, variable queries, struct-info helpers."""

from ..struct_info import get_static_type, struct_info_lca  # noqa: F401
from .vars import (  # noqa: F401
    all_global_vars, all_vars, bound_vars, free_vars, get_var2val, remove_all_unused, used_vars,
)
from .well_formed import WellFormedError, check_well_formed, well_formed  # noqa: F401
