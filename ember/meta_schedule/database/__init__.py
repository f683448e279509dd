"""Databases of tuning records: the interface, ``JSONDatabase`` (TVM's files) and ``MemoryDatabase``."""

from .database import FAILED_SECS, Database, TuningRecord, Workload
from .json_database import JSONDatabase
from .memory_database import MemoryDatabase

__all__ = ["Database", "JSONDatabase", "MemoryDatabase", "TuningRecord", "Workload", "FAILED_SECS"]
