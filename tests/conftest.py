"""Suite-wide pytest hooks: leave the test process without interpreter teardown.

A full run has been seen (once in four) to report every test passed and then die with
SIGSEGV while the interpreter tore down native libraries (PyTorch's OpenMP pool, LLVM's
JIT, the CUDA bindings) — after the results were printed, but with exit status 139.
Until that is found, the run ends with ``os._exit`` and pytest's own exit status, once
its report is written. ``EMBER_TEST_TEARDOWN=1`` keeps the normal teardown (to hunt it).
"""

from __future__ import annotations

import os
import sys

import pytest

_EXIT: dict[str, int] = {}


def pytest_sessionfinish(session, exitstatus):
    _EXIT["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if "status" not in _EXIT or os.environ.get("EMBER_TEST_TEARDOWN") == "1":
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_EXIT["status"])
