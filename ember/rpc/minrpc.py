"""``rpc.with_minrpc``: TVM builds a tiny C++ RPC server into an exported library; ember
has no C++ RPC runtime, so it refuses with the reason."""

from __future__ import annotations

__all__ = ["with_minrpc"]


def with_minrpc(compile_func, server: str = "posix_popen_server", runtime: str = "libtvm"):
    raise NotImplementedError(
        "rpc.with_minrpc: ember has no minimal C++ RPC server to link into a library; "
        "use rpc.LocalSession() (or rpc.Server + rpc.connect in the same process)"
    )
