"""``WorkerPool``: run top-level functions in child processes that may crash or hang.

Each worker is a child interpreter serving pickled calls over its stdin/stdout.  A call that does not answer
within ``timeout_sec`` has its worker killed (only that process) and reports a timeout; a
worker that dies (segfault, abort, os._exit) reports how it died; in both cases a fresh
worker takes its place and the next call goes on.  Calls run ``max_workers`` at a time.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..support.pipe_messages import receive_message, send_message


STARTUP_TIMEOUT_SEC = 300.0


@dataclass(frozen=True)
class Outcome:
    """What one call gave: ``value`` when ``error`` is None."""

    value: object = None
    error: str | None = None


def _send(stream, obj) -> None:
    send_message(stream, obj)


def _recv(stream):
    return receive_message(stream, "the worker")


def serve() -> None:
    """The worker's loop (``python -m ember.meta_schedule.worker_pool``): calls arrive on
    stdin; results leave on the original stdout, which is moved off fd 1 so that prints
    of the called code go to stderr instead of corrupting the channel."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    import ember.meta_schedule  # noqa: F401 - imported before "ready", so no call's time limit pays for it

    _send(out, ("ready", None))
    while True:
        try:
            fn, args = _recv(inp)
        except EOFError:
            return
        try:
            _send(out, ("ok", fn(*args)))
        except BaseException:  # noqa: BLE001 - reported to the parent, the worker lives on
            _send(out, ("error", traceback.format_exc(limit=20)))


class _Worker:
    """One child process (a fresh interpreter, so the parent's ``__main__`` is never re-run)."""

    def __init__(self, initializer=None):
        cmd = [sys.executable, "-c", "from ember.meta_schedule.worker_pool import serve; serve()"]
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        # time limits count from "ready": a busy machine may take many seconds to start Python
        ready, _, _ = select.select([self.proc.stdout], [], [], STARTUP_TIMEOUT_SEC)
        if not ready or _recv(self.proc.stdout)[0] != "ready":
            self.kill()
            raise RuntimeError(f"a worker process did not start within {STARTUP_TIMEOUT_SEC} s")
        if initializer is not None:
            self.call(initializer, (), None)

    def call(self, fn, args, timeout: float | None) -> Outcome:
        try:
            _send(self.proc.stdin, (fn, args))
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                self.kill()
                return Outcome(error=f"TimeoutError: no result within {timeout} s; the worker was killed")
            status, value = _recv(self.proc.stdout)
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            try:
                code = self.proc.wait(5)
            except subprocess.TimeoutExpired:
                code = None
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            self.kill()
            return Outcome(error=f"WorkerCrashed: the worker process died ({how})")
        return Outcome(value=value) if status == "ok" else Outcome(error=value)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class WorkerPool:
    """``map(fn, list_of_args) -> list[Outcome]`` over ``max_workers`` child processes."""

    def __init__(self, max_workers: int = 1, timeout_sec: float | None = None, initializer=None):
        if max_workers < 1:
            raise ValueError(f"WorkerPool: max_workers must be >= 1, got {max_workers}")
        self.max_workers, self.timeout_sec, self.initializer = max_workers, timeout_sec, initializer
        self._idle: list = []
        self._lock = threading.Lock()

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                w = self._idle.pop()
                if w.alive:
                    return w
        return _Worker(self.initializer)

    def _give(self, w: _Worker) -> None:
        if w.alive:
            with self._lock:
                self._idle.append(w)

    def _one(self, fn, args) -> Outcome:
        w = self._take()
        try:
            return w.call(fn, args, self.timeout_sec)
        finally:
            self._give(w)

    def map(self, fn, arg_list) -> list[Outcome]:
        arg_list = list(arg_list)
        if self.max_workers == 1 or len(arg_list) <= 1:
            return [self._one(fn, args) for args in arg_list]
        with ThreadPoolExecutor(self.max_workers) as ex:
            return list(ex.map(lambda a: self._one(fn, a), arg_list))

    def shutdown(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()

    def __del__(self):
        try:
            self.shutdown()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
