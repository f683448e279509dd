"""Fixtures loading the benchmark scripts whose schedule functions these tests check.

The schedules live in ``benchmarks/`` next to their measurements (one source for both);
the benchmarks import their sibling ``common`` module, so the folder is put on
``sys.path`` only while they load.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="session")
def bench_gemm():
    return _load("bench_gemm")


@pytest.fixture(scope="session")
def bench_vector_add():
    return _load("bench_vector_add")

