"""Timing compiled functions: ``time_evaluator`` and its ``ProfileResult``.

Each repeat times ``number`` back-to-back calls and records seconds per call; with
``min_repeat_ms`` the call count grows until a repeat lasts at least that long.  One
untimed warm-up call runs first.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import numpy as np

from .device import Device
from .registry import get_global_func, register_func


@dataclass(frozen=True, slots=True)
class ProfileResult:
    """Seconds per call for each repeat (``results``) and their statistics."""

    results: tuple[float, ...]
    number: int = 1

    @property
    def mean(self) -> float:
        return statistics.fmean(self.results)

    @property
    def median(self) -> float:
        return statistics.median(self.results)

    @property
    def min(self) -> float:
        return min(self.results)

    @property
    def max(self) -> float:
        return max(self.results)

    @property
    def std(self) -> float:
        return statistics.pstdev(self.results)

    def __str__(self) -> str:
        ms = {k: getattr(self, k) * 1e3 for k in ("mean", "median", "max", "min", "std")}
        header = " ".join(f"{k + ' (ms)':>12}" for k in ms)
        values = " ".join(f"{v:12.4f}" for v in ms.values())
        return (
            f"Execution time summary ({len(self.results)} repeats x {self.number} calls):\n{header}\n{values}"
        )


def time_evaluator(
    func: Callable,
    dev: Device,
    number: int = 10,
    repeat: int = 1,
    min_repeat_ms: float = 0,
    f_preproc: str = "",
    cooldown_interval_ms: float = 0,
    repeats_to_cooldown: int = 1,
) -> Callable[..., ProfileResult]:
    """A callable that runs ``func(*args)`` as described above and returns a ProfileResult."""
    if number < 1 or repeat < 1:
        raise ValueError(
            f"time_evaluator: number and repeat must be >= 1, got number={number}, repeat={repeat}"
        )
    preproc = get_global_func(f_preproc) if f_preproc else None

    def evaluate(*args: Any) -> ProfileResult:
        func(*args)
        dev.sync()
        count, results = number, []
        for index in range(repeat):
            if cooldown_interval_ms and index and index % max(repeats_to_cooldown, 1) == 0:
                time.sleep(cooldown_interval_ms / 1e3)
            if preproc is not None:
                preproc(*args)
            while True:
                elapsed = _run(func, args, count, dev)
                if elapsed * 1e3 >= min_repeat_ms:
                    break
                per_call = max(elapsed / count, 1e-9)
                count = max(int(min_repeat_ms / 1e3 / per_call * 1.1) + 1, count * 2)
            results.append(elapsed / count)
        return ProfileResult(tuple(results), count)

    return evaluate


def _run(func: Callable, args: tuple, count: int, dev: Device) -> float:
    start = time.perf_counter()
    for _ in range(count):
        func(*args)
    dev.sync()
    return time.perf_counter() - start


_FLUSH_BYTES = 64 << 20
_flush_buffer: list[np.ndarray] = []


@register_func("cache_flush_cpu_non_first_arg")
def cache_flush_cpu_non_first_arg(*args: Any) -> None:
    """Evict cpu caches before a repeat by writing a buffer larger than the last-level cache."""
    if not _flush_buffer:
        _flush_buffer.append(np.empty(_FLUSH_BYTES, np.uint8))
    _flush_buffer[0].fill(1)
