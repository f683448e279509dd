"""ember.tir.analysis: read-only analyses of TensorIR (well-formedness, block access regions)."""

from .verify_well_formed import WellFormedError, verify_well_formed

try:  # written by the TVMScript engineer; optional until it lands
    from .block_access import *  # noqa: F403
except ImportError:  # pragma: no cover - absent in early trees
    pass

__all__ = ["verify_well_formed", "WellFormedError"]
