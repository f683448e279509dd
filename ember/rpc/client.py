"""RPC sessions: ``LocalSession`` (this process, a private workspace) and ``connect``.

A session owns a temporary directory: ``upload(path_or_bytes, target)`` puts a file
there, ``download(name)`` reads one back, ``remove(name)`` deletes it, ``listdir()``
lists it, and ``load_module(name)`` loads one with ``ember.runtime.load_module``.  The
loaded module comes back as an ``RPCModule``: its functions (and a ``VirtualMachine``
made over it) raise ``RPCError`` for any error of the code they run, the way TVM's
remote functions report server-side errors.
"""

from __future__ import annotations

import functools
import os
import shutil
from typing import Any
from collections.abc import Callable

from ember.contrib.utils import TempDirectory
from ember.error import RPCError
from ember.runtime import Device, get_global_func, load_module as _load_module
from ember.runtime import device as _device

__all__ = ["RPCSession", "LocalSession", "RPCModule", "PopenSession", "TrackerSession", "connect",
           "connect_tracker"]


def remote_call_guard(fn: Callable) -> Callable:
    """``fn`` with every error it raises turned into ``RPCError`` (the original is its
    ``__cause__``); ``RPCError`` itself passes unchanged."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RPCError:
            raise
        except Exception as err:
            raise RPCError(f"error in the RPC session: {type(err).__name__}: {err}") from err

    return call


class RPCModule:
    """A module loaded in a session.  ``mod["f"]`` is a guarded function; a Relax
    executable runs with ``relax.VirtualMachine(mod, device)``."""

    def __init__(self, module: Any, session: RPCSession):
        self._module = module
        self.session = session

    remote_call_guard = staticmethod(remote_call_guard)

    @property
    def executable(self):
        """The Relax ``Executable`` behind the module (for ``VirtualMachine``)."""
        return getattr(self._module, "executable", self._module)

    @property
    def type_key(self) -> str:
        return "rpc"

    def __getitem__(self, name: str) -> Callable:
        return self.get_function(name)

    def get_function(self, name: str, query_imports: bool = False) -> Callable:
        get = getattr(self._module, "get_function", None)
        fn = remote_call_guard(get or self._module.__getitem__)(name)
        return remote_call_guard(fn)

    def time_evaluator(self, func_name: str, dev: Device, *args, **kwargs) -> Callable:
        evaluator = remote_call_guard(self._module.time_evaluator)(func_name, dev, *args, **kwargs)
        return remote_call_guard(evaluator)

    def __repr__(self) -> str:
        return f"RPCModule({self._module!r})"


class RPCSession:
    """What every session offers; ``LocalSession`` is ember's only kind."""

    def __init__(self):
        self._workspace = TempDirectory()

    # -- files ---------------------------------------------------------------------------
    def _path(self, name: str) -> str:
        name = os.fspath(name)
        if os.path.isabs(name) or os.path.normpath(name).startswith(".."):
            raise RPCError(f"rpc: {name!r} is outside the session's workspace (use a relative file name)")
        return self._workspace.relpath(name)

    def upload(self, data: str | bytes | bytearray, target: str | None = None) -> None:
        """Put a file in the workspace: ``data`` is a local path (copied, named ``target`` or
        its own base name) or the file's bytes (``target`` is then required)."""
        if isinstance(data, bytes | bytearray):
            if not target:
                raise ValueError("rpc upload: target must be given when uploading bytes")
            with open(self._path(target), "wb") as f:
                f.write(data)
            return
        source = os.fspath(data)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"rpc upload: {source!r} is not a file")
        shutil.copyfile(source, self._path(target or os.path.basename(source)))

    def download(self, path: str) -> bytearray:
        """The bytes of a workspace file."""
        full = self._path(path)
        if not os.path.isfile(full):
            raise RPCError(f"rpc download: the session has no file {path!r}")
        with open(full, "rb") as f:
            return bytearray(f.read())

    def remove(self, path: str) -> None:
        full = self._path(path)
        if os.path.isdir(full):
            shutil.rmtree(full)
        elif os.path.exists(full):
            os.remove(full)

    def listdir(self, path: str = ".") -> list[str]:
        return sorted(os.listdir(self._path(path)))

    # -- modules and functions -------------------------------------------------------------
    def load_module(self, path: str) -> RPCModule:
        """Load an uploaded library (``lib.export_library`` / ``ex.export_library`` output)."""
        full = self._path(path)
        if not os.path.exists(full):
            raise RPCError(f"rpc load_module: the session has no file {path!r}; upload it first")
        return RPCModule(remote_call_guard(_load_module)(full), self)

    def get_function(self, name: str) -> Callable:
        """A global function registered in the session (``ember.register_func``)."""
        return remote_call_guard(remote_call_guard(get_global_func)(name))

    def system_lib(self):
        raise NotImplementedError("rpc system_lib: ember does not register system libraries; "
                                  "upload the exported library and use load_module")

    # -- devices -------------------------------------------------------------------------
    def device(self, dev_type: int | str, dev_id: int = 0) -> Device:
        return _device(dev_type, dev_id)

    def cpu(self, dev_id: int = 0) -> Device:
        return self.device("cpu", dev_id)

    def cuda(self, dev_id: int = 0) -> Device:
        return self.device("cuda", dev_id)

    def cl(self, dev_id: int = 0) -> Device:
        return self.device("opencl", dev_id)

    def vulkan(self, dev_id: int = 0) -> Device:
        return self.device("vulkan", dev_id)

    def metal(self, dev_id: int = 0) -> Device:
        return self.device("metal", dev_id)

    def close(self) -> None:
        """Delete the workspace."""
        self._workspace.remove()

    def __enter__(self) -> RPCSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LocalSession(RPCSession):
    """A session in this process: ``rpc.LocalSession()``."""


def connect(url: str, port: int, key: str = "", session_timeout: float = 0, session_constructor_args=None,
            enable_logging: bool = False) -> LocalSession:
    """A session served by the ``rpc.Server`` at ``url:port`` of this process."""
    from .server import find_server

    if session_constructor_args:
        raise NotImplementedError("rpc.connect: session_constructor_args (sessions over sessions) are "
                                  "not supported by ember")
    server = find_server(url, port)
    if server is None:
        raise RPCError(f"rpc.connect: no ember RPC server at {url}:{port} in this process; ember's RPC "
                       "serves sessions in the calling process only (start one with rpc.Server)")
    return server.new_session(key)


class PopenSession(RPCSession):
    def __init__(self, binary=None):
        raise NotImplementedError("rpc.PopenSession: ember has no RPC server binary to start; "
                                  "use rpc.LocalSession()")


class TrackerSession:
    def __init__(self, addr):
        raise NotImplementedError("rpc.TrackerSession: ember has no RPC tracker (remote devices are out "
                                  "of scope); use rpc.LocalSession()")


def connect_tracker(url: str, port: int) -> TrackerSession:
    return TrackerSession((url, port))
