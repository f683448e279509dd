"""``tvm.contrib.popen_pool``: run functions in fresh child interpreters, with time limits.

``PopenWorker`` is one child process: ``send(fn, args, kwargs, timeout)`` starts a call,
``recv()`` returns its result (re-raising the child's exception, ``TimeoutError`` when it
ran past ``timeout`` — the child is then killed — or ``ChildProcessError`` when the child
died).  ``PopenPoolExecutor`` keeps ``max_workers`` of them behind the
``concurrent.futures`` interface (``submit`` returns a ``Future``).

A child announces itself once it has started (and run ``initializer``) before any call is
sent, so a call's ``timeout`` counts its own time only, never the seconds a busy machine takes
to start Python.  An exception raised in the child comes back with the child's traceback as a
note.

Calls travel pickled (with ``cloudpickle`` when it is installed, so closures and lambdas
work; otherwise only importable top-level functions).  The child is a fresh interpreter,
not a fork: it inherits nothing of the parent's state (loaded libraries, registrations)
except its import path.
"""

from __future__ import annotations

import enum
import os
import pickle
import select
import subprocess
import sys
import threading
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

from ..support.pipe_messages import receive_message, send_message

try:
    import cloudpickle as _pickler
except ImportError:  # pragma: no cover - cloudpickle is optional
    _pickler = pickle

__all__ = ["PopenWorker", "PopenPoolExecutor", "StatusKind", "MapResult"]

STARTUP_TIMEOUT_SEC = 300.0  # a child that has not started (and initialized) by then is given up


def _write(stream, obj) -> None:
    send_message(stream, obj, dumps=_pickler.dumps)


def _read(stream):
    return receive_message(stream, "the child process")


def _serve() -> None:
    """The child's loop: calls arrive on stdin, results leave on the original stdout
    (moved off fd 1 so the called code's prints go to stderr)."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    _write(out, ("ready", None))
    while True:
        try:
            fn, args, kwargs = _read(inp)
        except EOFError:
            return
        try:
            reply = ("ok", fn(*args, **kwargs))
        except BaseException as err:  # noqa: BLE001 - handed to the parent, the child lives on
            err.add_note("the child process's traceback:\n" + traceback.format_exc(limit=20).rstrip())
            reply = ("error", err)
        try:
            _write(out, reply)
        except Exception as err:  # noqa: BLE001 - an unpicklable result or exception
            _write(out, ("error", RuntimeError(f"the result could not be sent back: {err}")))


class PopenWorker:
    """One child interpreter running the calls sent to it, one at a time."""

    def __init__(self, initializer=None, initargs=(), maximum_uses: int | None = None,
                 stdout=None, stderr=None):
        self._initializer, self._initargs = initializer, tuple(initargs)
        self._maximum_uses = maximum_uses
        self._stdout, self._stderr = stdout, stderr
        self._proc: subprocess.Popen | None = None
        self._uses = 0
        self._timeout: float | None = None
        self._pending = False

    def _start(self) -> None:
        cmd = [sys.executable, "-c", "from ember.contrib.popen_pool import _serve; _serve()"]
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        # the parent's import path, so functions pickled by reference import in the child
        paths = [root] + [p for p in sys.path if p and os.path.isdir(p)] + [env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, env=env)
        self._uses = 0
        self._await_ready()
        if self._initializer is not None:
            self._send_raw(self._initializer, self._initargs, {})
            self._pending, self._timeout = True, None
            self.recv()

    def _await_ready(self) -> None:
        """Wait (untimed by any call) for the new child's "ready"."""
        proc = self._proc
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_TIMEOUT_SEC)
        try:
            if ready and _read(proc.stdout)[0] == "ready":
                return
            why = f"did not start within {STARTUP_TIMEOUT_SEC} s"
        except EOFError:
            code = proc.wait()
            why = f"died while starting ({f'signal {-code}' if code < 0 else f'exit code {code}'})"
        self.kill()
        raise ChildProcessError(f"PopenWorker: the child process {why}")

    def _send_raw(self, fn, args, kwargs) -> None:
        _write(self._proc.stdin, (fn, tuple(args), dict(kwargs or {})))

    def send(self, fn, args=(), kwargs=None, timeout: float | None = None) -> None:
        """Start ``fn(*args, **kwargs)`` in the child; ``recv()`` waits for the result."""
        if self._pending:
            raise RuntimeError("PopenWorker.send: the previous call's result was not received (call recv() first)")
        if self._proc is None or self._proc.poll() is not None or (
                self._maximum_uses is not None and self._uses >= self._maximum_uses):
            self.kill()
            self._start()
        self._uses += 1
        self._send_raw(fn, args, kwargs)
        self._pending, self._timeout = True, timeout

    def recv(self) -> Any:
        """The result of the last ``send``; raises what the call raised."""
        if not self._pending:
            raise RuntimeError("PopenWorker.recv: nothing was sent")
        self._pending = False
        proc = self._proc
        ready, _, _ = select.select([proc.stdout], [], [], self._timeout)
        if not ready:
            self.kill()
            raise TimeoutError(f"PopenWorker: no result within {self._timeout} s; the child process was killed")
        try:
            status, value = _read(proc.stdout)
        except EOFError:
            code = proc.wait()
            self.kill()
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            raise ChildProcessError(f"PopenWorker: the child process died ({how})") from None
        if status == "error":
            raise value
        return value

    def kill(self) -> None:
        """Stop the child (a later ``send`` starts a new one)."""
        proc, self._proc = self._proc, None
        self._pending = False
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
        proc.wait()

    def __del__(self):
        try:
            self.kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


class StatusKind(enum.IntEnum):
    COMPLETE = 0
    EXCEPTION = 1
    TIMEOUT = 2


class MapResult(NamedTuple):
    status: StatusKind
    value: Any


class PopenPoolExecutor:
    """``max_workers`` ``PopenWorker``s behind ``submit(fn, *args, **kwargs) -> Future``;
    ``timeout`` (seconds) limits each call."""

    def __init__(self, max_workers: int | None = None, timeout: float | None = None, initializer=None,
                 initargs=(), maximum_process_uses: int | None = None, stdout=None, stderr=None):
        self._max_workers = max_workers or os.cpu_count() or 1
        if self._max_workers < 1:
            raise ValueError(f"PopenPoolExecutor: max_workers must be >= 1, got {max_workers}")
        self._timeout = timeout
        self._make = lambda: PopenWorker(initializer, initargs, maximum_process_uses, stdout, stderr)
        self._threads = ThreadPoolExecutor(self._max_workers)
        self._idle: list[PopenWorker] = []
        self._all: list[PopenWorker] = []
        self._lock = threading.Lock()

    def _call(self, fn, args, kwargs):
        with self._lock:
            worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = self._make()
                self._all.append(worker)
        try:
            worker.send(fn, args, kwargs, self._timeout)
            return worker.recv()
        finally:
            with self._lock:
                self._idle.append(worker)

    def submit(self, fn, *args, **kwargs) -> Future:
        return self._threads.submit(self._call, fn, args, kwargs)

    def map_with_error_catching(self, fn, iterator) -> list[MapResult]:
        """``fn`` over each item; a failure becomes a ``MapResult`` instead of raising."""
        futures = [self.submit(fn, item) for item in iterator]
        results = []
        for future in futures:
            try:
                results.append(MapResult(StatusKind.COMPLETE, future.result()))
            except TimeoutError as err:
                results.append(MapResult(StatusKind.TIMEOUT, err))
            except Exception as err:  # noqa: BLE001 - reported as a result
                results.append(MapResult(StatusKind.EXCEPTION, err))
        return results

    def shutdown(self, wait: bool = True) -> None:
        self._threads.shutdown(wait=wait)
        with self._lock:
            workers, self._all, self._idle = self._all, [], []
        for worker in workers:
            worker.kill()

    def __enter__(self) -> PopenPoolExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()

    def __del__(self):
        try:
            self.shutdown(wait=False)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
