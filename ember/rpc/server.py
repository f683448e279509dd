"""``rpc.Server``: serves ``LocalSession``s to ``rpc.connect`` in the same process.

The server takes a free port number in ``[port, port_end)`` (one not held by another
ember server of this process; no socket is opened) and registers itself under
``(host, port)`` until ``terminate()``.  Each ``connect`` gets a fresh session with its
own workspace; ``key`` must match when the server was given one.  Files named in
``load_library`` are loaded when a session starts.
"""

from __future__ import annotations

import threading

from ember.error import RPCError

from .client import LocalSession

__all__ = ["Server", "find_server"]

_servers: dict[tuple[str, int], Server] = {}
_lock = threading.Lock()
_LOCAL_NAMES = {"localhost": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::1": "127.0.0.1"}


def _host_key(host: str) -> str:
    return _LOCAL_NAMES.get(host, host)


def find_server(host: str, port: int) -> Server | None:
    with _lock:
        return _servers.get((_host_key(host), int(port)))


class Server:
    """``rpc.Server("127.0.0.1")``: ``server.host``, ``server.port``, ``terminate()``."""

    def __init__(self, host: str = "0.0.0.0", port: int = 9091, port_end: int = 9199, is_proxy: bool = False,
                 tracker_addr=None, key: str = "", load_library=None, custom_addr=None, silent: bool = False,
                 no_fork: bool = False, server_init_callback=None, reuse_addr: bool = True, timeout=None):
        if is_proxy or tracker_addr is not None:
            raise NotImplementedError("rpc.Server: proxies and trackers are not supported by ember "
                                      "(sessions run in this process)")
        self.host, self.key = host, key
        self.load_library = list(load_library or [])
        with _lock:
            for candidate in range(port, max(port_end, port + 1)):
                if (_host_key(host), candidate) not in _servers:
                    self.port = candidate
                    _servers[(_host_key(host), candidate)] = self
                    break
            else:
                raise RPCError(f"rpc.Server: every port in [{port}, {port_end}) on {host} is taken")
        if server_init_callback is not None:
            server_init_callback()

    def new_session(self, key: str = "") -> LocalSession:
        """The session ``rpc.connect`` returns."""
        if self.key and key != self.key:
            raise RPCError(f"rpc.connect: key {key!r} does not match the server's key")
        if find_server(self.host, self.port) is not self:
            raise RPCError(f"rpc.connect: the server at {self.host}:{self.port} was terminated")
        session = LocalSession()
        for path in self.load_library:
            from ember.runtime import load_module

            load_module(path)
        return session

    def terminate(self) -> None:
        """Stop serving (``connect`` to this address fails afterwards)."""
        with _lock:
            if _servers.get((_host_key(self.host), self.port)) is self:
                del _servers[(_host_key(self.host), self.port)]

    def __del__(self):
        try:
            self.terminate()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
