"""Fixtures: JIT-compiled native kernels (see native_kernels.py), built once per session."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import native_kernels  # noqa: E402


@pytest.fixture(scope="session")
def kernels():
    return native_kernels
