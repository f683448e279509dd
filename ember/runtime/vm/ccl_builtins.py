"""Single-worker ``runtime.disco.*`` collectives, the functions ``relax.ccl.*`` legalises to.

ember has no multi-worker (disco) runtime: a program runs as the only worker, worker 0, of
a group of one.  With one worker every collective is a copy: an allreduce of one value is
that value (sum, prod, min, max and avg alike), an allgather or a broadcast from worker 0
gives worker 0's tensor, and a scatter from worker 0 gives this worker's part, part 0 of
the input split along its leading (worker) dim.  Each function writes its result into the
destination-passing output ``out`` and checks that the shapes agree with one worker.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from ..ndarray import NDArray
from ..registry import register_func

_REDUCE_KINDS = ("sum", "prod", "min", "max", "avg")


def _copy(what: str, src: np.ndarray, out) -> None:
    if not isinstance(out, NDArray):
        raise ArgumentError(f"{what}: the output must be a tensor, got {type(out).__name__}")
    if tuple(src.shape) != tuple(out.shape):
        raise ArgumentError(f"{what}: with one worker the result has shape {tuple(src.shape)}, but the "
                            f"output has shape {tuple(out.shape)}")
    out.copyfrom(np.ascontiguousarray(src))


def _array(what: str, value) -> np.ndarray:
    if not isinstance(value, NDArray):
        raise ArgumentError(f"{what}: the input must be a tensor, got {type(value).__name__}")
    return value.numpy()


@register_func("runtime.disco.allreduce", override=True)
def allreduce(x, op_kind, in_group, out) -> None:
    """``out = x``: every reduction over one worker is the worker's own value."""
    kind = int(op_kind[0]) if isinstance(op_kind, tuple | list) else int(op_kind)
    if not 0 <= kind < len(_REDUCE_KINDS):
        raise ArgumentError(f"runtime.disco.allreduce: unknown reduction code {kind}; codes are "
                            + ", ".join(f"{i} {k}" for i, k in enumerate(_REDUCE_KINDS)))
    _copy("runtime.disco.allreduce", _array("runtime.disco.allreduce", x), out)


@register_func("runtime.disco.allgather", override=True)
def allgather(x, in_group, out) -> None:
    """``out = x``: the concatenation of one worker's tensor."""
    _copy("runtime.disco.allgather", _array("runtime.disco.allgather", x), out)


@register_func("runtime.disco.broadcast_from_worker0", override=True)
def broadcast_from_worker0(x, in_group, out) -> None:
    """``out = x``: this worker is worker 0."""
    _copy("runtime.disco.broadcast_from_worker0", _array("runtime.disco.broadcast_from_worker0", x), out)


@register_func("runtime.disco.scatter_from_worker0", override=True)
def scatter_from_worker0(parts, in_group, out) -> None:
    """``out = parts[0]``: ``parts`` holds one slice per worker along dim 0."""
    what = "runtime.disco.scatter_from_worker0"
    src = _array(what, parts)
    if src.ndim == 0:
        raise ArgumentError(f"{what}: the input must have a leading worker dim, got a 0-d tensor")
    if src.shape[0] != 1:
        raise ArgumentError(f"{what}: the input is split for {src.shape[0]} workers, but this runtime "
                            "has one worker (worker 0)")
    _copy(what, src[0], out)
