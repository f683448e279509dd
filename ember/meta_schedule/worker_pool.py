"""``WorkerPool``: run top-level functions in child processes that may crash or hang, for
the builder and the runner; a thin layer over ``ember.contrib.popen_pool`` (as TVM builds
them on its PopenPoolExecutor).

A call that does not answer within ``timeout_sec`` has its worker killed (only that process)
and reports a timeout; a worker that dies (segfault, abort, os._exit) reports how it died; in
both cases a fresh worker takes its place and the next call goes on.  Calls run
``max_workers`` at a time.  Time limits count from a worker's start-up, import of
``ember.meta_schedule`` and ``initializer`` being done: a busy machine may take many seconds
to start Python, which no candidate should be charged for.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from ..contrib.popen_pool import PopenPoolExecutor


@dataclass(frozen=True)
class Outcome:
    """What one call gave: ``value`` when ``error`` is None."""

    value: object = None
    error: str | None = None


def _prepare_worker(initializer=None) -> None:
    """Run in each new worker before its first call (untimed)."""
    import ember.meta_schedule  # noqa: F401

    if initializer is not None:
        initializer()


def _describe(err: BaseException) -> str:
    """An error message in the form the builder and runner report: the child's traceback
    (when it came back) ending with ``Type: message``."""
    said = str(err).removeprefix("PopenWorker: ").replace("the child process", "the worker process")
    if isinstance(err, ChildProcessError):
        return f"WorkerCrashed: {said}"
    if isinstance(err, TimeoutError) and str(err).startswith("PopenWorker"):
        return f"TimeoutError: {said}"
    notes = [n for n in getattr(err, "__notes__", ()) if n.startswith("the child process's traceback:")]
    if notes:
        return notes[-1].split("\n", 1)[-1]
    return "".join(traceback.format_exception_only(type(err), err)).strip()


class WorkerPool:
    """``map(fn, list_of_args) -> list[Outcome]`` over ``max_workers`` child processes."""

    def __init__(self, max_workers: int = 1, timeout_sec: float | None = None, initializer=None):
        if max_workers < 1:
            raise ValueError(f"WorkerPool: max_workers must be >= 1, got {max_workers}")
        self.max_workers, self.timeout_sec, self.initializer = max_workers, timeout_sec, initializer
        self._pool = PopenPoolExecutor(max_workers, timeout_sec, initializer=_prepare_worker,
                                       initargs=(initializer,))

    @staticmethod
    def _outcome(future) -> Outcome:
        try:
            return Outcome(value=future.result())
        except BaseException as err:  # noqa: BLE001 - every failure of a call is an outcome
            return Outcome(error=_describe(err))

    def _one(self, fn, args) -> Outcome:
        return self._outcome(self._pool.submit(fn, *args))

    def map(self, fn, arg_list) -> list[Outcome]:
        futures = [self._pool.submit(fn, *args) for args in arg_list]
        return [self._outcome(f) for f in futures]

    def shutdown(self) -> None:
        self._pool.shutdown()

    def __del__(self):
        try:
            self.shutdown()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
