"""Set operators with data-dependent output shapes: ``unique`` and ``nonzero``.

As in TVM, ``unique``'s flags (``sorted``, ``return_index``, ``return_inverse``,
``return_counts``) and its optional ``axis`` are PrimValue arguments, not attrs.  Only the
rank of the results is known before running; the numbers of unique values and of
nonzero entries are not.
"""

from __future__ import annotations

from ember.ir import IntImm

from ..expr import Call, PrimValue
from ..struct_info import TensorStructInfo, TupleStructInfo
from .base import make_call, normalize_axis, prim_arg_value, register, tensor_arg

__all__ = ["unique", "nonzero"]

_FLAGS = ("sorted", "return_index", "return_inverse", "return_counts")


def _flag(call: Call, i: int) -> bool:
    value = prim_arg_value(call, i)
    if not isinstance(value, IntImm):
        raise ValueError(f"relax.unique: {_FLAGS[i - 1]} must be a constant bool, got {value}")
    return bool(value.value)


def _infer_unique(call: Call, ctx):
    x = tensor_arg(call, 0)
    _, return_index, return_inverse, return_counts = (_flag(call, i) for i in range(1, 5))
    axis = None
    if len(call.args) > 5:
        value = prim_arg_value(call, 5)
        if not isinstance(value, IntImm):
            raise ValueError(f"relax.unique: axis must be a constant integer, got {value}")
        axis = int(value.value)
    if x.ndim == 0:
        if axis is not None:
            raise ValueError(f"relax.unique: axis {axis} is out of range for a tensor of 0 dims")
        one = TensorStructInfo([1], x.dtype, x.vdevice)
        index_info = TensorStructInfo([1], "int64", x.vdevice)
    else:
        if axis is None:
            ndim = 1
        else:
            if x.ndim != -1:
                normalize_axis(call, axis, x.ndim)
            ndim = x.ndim
        one = TensorStructInfo(None, x.dtype, x.vdevice, ndim)
        index_info = TensorStructInfo(None, "int64", x.vdevice, 1)
    extra = int(return_index) + int(return_inverse) + int(return_counts)
    if extra == 0:
        return one
    return TupleStructInfo([one] + [index_info] * extra)


register("unique", _infer_unique,
         arg_names=("x", "sorted", "return_index", "return_inverse", "return_counts", "axis"),
         FCallPacked="relax.run.unique")


def _bool_value(name: str, flag) -> PrimValue:
    if isinstance(flag, PrimValue):
        return flag
    if not isinstance(flag, bool | int):
        raise TypeError(f"relax.unique: {name} must be a bool, got {type(flag).__name__}")
    return PrimValue(IntImm("int64", int(bool(flag))))


def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,  # noqa: A002
           axis=None) -> Call:
    """The unique values of ``x`` (flattened when ``axis`` is None, else slices along ``axis``),
    with, on request, the first index of each, the inverse indices and the counts."""
    flags = [_bool_value(n, f) for n, f in zip(_FLAGS, (sorted, return_index, return_inverse,
                                                         return_counts), strict=True)]
    args = [x, *flags]
    if axis is not None:
        args.append(axis if isinstance(axis, PrimValue) else PrimValue(IntImm("int64", int(axis))))
    return make_call("unique", args)


def _infer_nonzero(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return TensorStructInfo(None, "int64", x.vdevice, 2)


register("nonzero", _infer_nonzero, arg_names=("x",), FCallPacked="relax.run.nonzero")


def nonzero(x) -> Call:
    """The indices of the nonzero entries of ``x``, one row per dimension: shape
    ``(max(ndim, 1), count)``, int64 (numpy's ``nonzero`` stacked)."""
    return make_call("nonzero", [x])


# -- run-time implementations (LegalizeOps calls them through call_pure_packed) ----------

def _as_numpy(value):
    return value.numpy() if hasattr(value, "numpy") else value


def _to_ndarray(result):
    from ember.runtime import ndarray

    if isinstance(result, tuple):
        return tuple(ndarray.array(r) for r in result)
    return ndarray.array(result)


def _run_unique(x, sorted_, return_index, return_inverse, return_counts, axis=None):
    from ..reference.ops_set import unique_numpy

    axis = None if axis is None else int(axis)
    return _to_ndarray(unique_numpy(_as_numpy(x), bool(sorted_), bool(return_index),
                                    bool(return_inverse), bool(return_counts), axis))


def _run_nonzero(x):
    from ..reference.ops_set import nonzero_numpy

    return _to_ndarray(nonzero_numpy(_as_numpy(x)))


def _register_runtime() -> None:
    from ember.runtime.registry import register_func

    register_func("relax.run.unique", _run_unique, override=True)
    register_func("relax.run.nonzero", _run_nonzero, override=True)


_register_runtime()
