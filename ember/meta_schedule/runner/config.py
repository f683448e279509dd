"""``EvaluatorConfig``: how each candidate is timed (TVM's names and defaults)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvaluatorConfig:
    """``number`` calls per measurement, ``repeat`` measurements (one ``run_secs`` entry each),
    each lasting at least ``min_repeat_ms``; ``enable_cpu_cache_flush`` evicts the caches
    before every measurement (cold-cache times)."""

    number: int = 3
    repeat: int = 1
    min_repeat_ms: int = 100
    enable_cpu_cache_flush: bool = False

    def __post_init__(self):
        for name in ("number", "repeat"):
            if getattr(self, name) < 1:
                raise ValueError(f"EvaluatorConfig: {name} must be >= 1, got {getattr(self, name)}")
        if self.min_repeat_ms < 0:
            raise ValueError(f"EvaluatorConfig: min_repeat_ms must be >= 0, got {self.min_repeat_ms}")
