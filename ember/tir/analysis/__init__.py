"""ember.tir.analysis: read-only analyses of TensorIR (well-formedness, block access regions)."""

from .allocated_memory import calculate_allocated_bytes
from .buffer_access_lca import detect_buffer_access_lca
from .block_region_detector import get_block_access_region, get_block_read_write_region
from .oob_checker import OOBChecker
from .estimate_flops import estimate_tir_flops
from .purity_ssa import assert_pure_function, expr_deep_equal, is_pure_function, verify_ssa
from .verify_well_formed import WellFormedError, verify_well_formed
from .verify_gpu_code import GPUConstraintError, verify_gpu_code
from .verify_memory import UnboundGPULoopError, verify_memory

__all__ = ["verify_ssa", "expr_deep_equal", "is_pure_function", "assert_pure_function",
           "calculate_allocated_bytes", "detect_buffer_access_lca", "verify_well_formed", "WellFormedError", "verify_gpu_code", "GPUConstraintError", "verify_memory",
           "UnboundGPULoopError", "get_block_access_region", "get_block_read_write_region",
           "OOBChecker", "estimate_tir_flops"]

try:  # block_access.py is the TVMScript engineer's; tolerate trees without it
    from . import block_access as _block_access
    from .block_access import *  # noqa: F403
except ImportError:  # pragma: no cover - absent in early trees
    _block_access = None
if _block_access is not None:
    __all__ += list(getattr(_block_access, "__all__", ()))
