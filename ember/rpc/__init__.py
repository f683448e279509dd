"""``tvm.rpc`` for the local machine: sessions that upload, load and run libraries.

ember's RPC runs every session in the calling process: ``LocalSession()`` is a workspace
(a temporary directory) where ``upload`` copies files, ``load_module`` loads them with
ember's runtime, and ``cpu()`` / ``device(...)`` name this machine's devices.  A
``Server(host, port)`` registers itself in the process; ``connect(host, port)`` to it
returns a new ``LocalSession`` served by it.  Errors raised by what a session runs reach
the caller as ``RPCError`` (a ``RuntimeError``), as with TVM's remote calls.

Not available (``NotImplementedError`` with the reason): connections to other machines
or processes, trackers (``connect_tracker``, ``TrackerSession``), proxies and
``with_minrpc``.  See docs/tvm_compat.md.
"""

from .client import (
    LocalSession,
    PopenSession,
    RPCModule,
    RPCSession,
    TrackerSession,
    connect,
    connect_tracker,
)
from .minrpc import with_minrpc
from .server import Server

__all__ = ["LocalSession", "PopenSession", "RPCModule", "RPCSession", "Server", "TrackerSession",
           "connect", "connect_tracker", "with_minrpc"]
