"""``MemoryDatabase``: workloads and tuning records kept in memory only."""

from __future__ import annotations

from dataclasses import dataclass

from .database import Database


@dataclass(eq=False)
class MemoryDatabase(Database):
    """A Database that forgets everything when the process ends (tests, one-off runs)."""
