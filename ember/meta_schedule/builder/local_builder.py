"""``LocalBuilder``: compiles candidates in worker processes with a time limit.

A candidate whose build raises, crashes its worker or runs past ``timeout_sec`` gets a
``BuilderResult`` with the error; the others are built.  Libraries go to a temporary
directory owned by the builder (removed with it)."""

from __future__ import annotations

import logging
import os
import tempfile

from ..worker_pool import WorkerPool
from .builder import BuilderInput, BuilderResult, build_to_file

LOG = logging.getLogger("ember.meta_schedule")


class LocalBuilder:
    def __init__(self, max_workers: int | None = None, timeout_sec: float = 30.0,
                 f_build=None, f_export=None, initializer=None):
        if timeout_sec <= 0:
            raise ValueError(f"LocalBuilder: timeout_sec must be positive, got {timeout_sec}")
        self.max_workers = max_workers or min(2, os.cpu_count() or 1)
        self.timeout_sec = timeout_sec
        self.f_build = f_build or build_to_file
        self._pool = WorkerPool(self.max_workers, timeout_sec, initializer)
        self._tmp = tempfile.TemporaryDirectory(prefix="ember_ms_build_")

    def build(self, build_inputs: list[BuilderInput]) -> list[BuilderResult]:
        args = [(b.mod, str(b.target), self._tmp.name) for b in build_inputs]
        out = []
        for o in self._pool.map(self.f_build, args):
            if o.error is None:
                out.append(BuilderResult(o.value, None))
                continue
            LOG.debug("build failed:\n%s", o.error)
            out.append(BuilderResult(None, f"build failed: {o.error.strip().splitlines()[-1]}"))
        return out

    def __del__(self):
        try:
            self._pool.shutdown()
        except Exception:  # noqa: BLE001
            pass
