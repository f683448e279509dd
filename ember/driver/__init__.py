"""ember.driver: ``ember.build`` and ``ember.lower``."""

from .build_module import BUILDERS, build, lower, normalize_inputs

__all__ = ["build", "lower", "BUILDERS", "normalize_inputs"]
