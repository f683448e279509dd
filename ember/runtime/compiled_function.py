"""CompiledFunction: call a native function with ember's argument ABI.

The native signature is ``int32_t fn(uint64_t* args, int32_t num_args)``.  ``args[i]``
holds, per parameter kind: ``buffer`` -> address of a DLTensor; ``int`` -> the int64
value; ``float`` -> the IEEE-754 bits of a double; ``handle`` -> a pointer.  The function
checks its own arguments and returns 0, or k >= 1 when ``info.checks[k-1]`` failed.

Python checks only the argument count and converts each argument through a per-parameter
table keyed by exact type (NDArray -> its cached DLTensor address), falling back to a
slower path for numpy arrays, DLPack tensors and numpy scalars.  Argument buffers are
pooled, so concurrent and re-entrant calls each get their own.
"""

from __future__ import annotations

import ctypes
import struct
from operator import attrgetter
from typing import Any
from collections.abc import Callable

import numpy as np

from . import dlpack
from .arg_explain import TensorView, explain_failure
from .errors import ArgumentError, ArgumentTypeError
from .function_info import FunctionInfo, ParamInfo
from .device import cpu
from .ndarray import NDArray, _wrap_numpy

# int32_t fn(uint64_t* args, int32_t num_args); the args pointer is passed as an address.
NATIVE_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)

_INT64_MIN, _UINT64_END = -(1 << 63), 1 << 64
_DOUBLE = struct.Struct("<d")
_UINT64 = struct.Struct("<Q")


def _int_bits(value: int) -> int:
    if not _INT64_MIN <= value < _UINT64_END:
        raise OverflowError(f"{value} does not fit in 64 bits")
    return value


def _float_bits(value: float) -> int:
    return _UINT64.unpack(_DOUBLE.pack(value))[0]


def _handle_bits(value: Any) -> int:
    return 0 if value is None else _int_bits(value)


# Exact-type fast paths per parameter kind; anything else goes through _convert_slow.
_FAST = {
    "buffer": {NDArray: attrgetter("_dltensor_addr")},
    "int": {int: _int_bits, bool: int},
    "float": {float: _float_bits, int: lambda v: _float_bits(float(v))},
    "handle": {int: _int_bits, type(None): _handle_bits},
}


class CompiledFunction:
    """A native function at ``address`` described by ``info``; ``keepalive`` owns its code."""

    __slots__ = (
        "address",
        "info",
        "keepalive",
        "_fn",
        "_nargs",
        "_tables",
        "_pool",
        "_args_type",
        "__weakref__",
    )

    def __init__(self, address: int, info: FunctionInfo, keepalive: Any = None):
        if not address:
            raise ValueError(f"CompiledFunction {info.name!r}: address must be a non-NULL function pointer")
        self.address = int(address)
        self.info = info
        self.keepalive = keepalive
        self._fn = NATIVE_SIGNATURE(self.address)
        self._nargs = len(info.params)
        self._tables = tuple(_FAST[p.kind] for p in info.params)
        self._args_type = ctypes.c_uint64 * max(self._nargs, 1)
        self._pool: list = []

    @property
    def name(self) -> str:
        return self.info.name

    def __call__(self, *args: Any) -> None:
        nargs = self._nargs
        if len(args) != nargs:
            raise ArgumentError(
                f"{self.info.name} expects {nargs} arguments ({', '.join(self.info.param_names)}), got {len(args)}"
            )
        pool = self._pool
        buf, address = pool.pop() if pool else self._new_buffer()
        keep = None  # temporaries (DLTensors for numpy / DLPack args) alive until the call returns
        try:
            i = 0
            try:
                for table, arg in zip(self._tables, args):
                    convert = table.get(type(arg))
                    if convert is None:
                        if keep is None:
                            keep = []
                        buf[i] = self._convert_slow(i, arg, keep)
                    else:
                        buf[i] = convert(arg)
                    i += 1
            except ArgumentError:
                raise
            except Exception as err:  # e.g. an int too large, a producer refusing DLPack export
                raise ArgumentTypeError(f"{self.info.name}: {_where(self.info.params[i], i)}: {err}") from err
            status = self._fn(address, nargs)
            if status:
                raise self._explain(status, args, buf)
        finally:
            pool.append((buf, address))

    def _new_buffer(self) -> tuple[ctypes.Array, int]:
        buf = self._args_type()
        return buf, ctypes.addressof(buf)

    # -- slow paths --------------------------------------------------------------------------
    def _convert_slow(self, index: int, arg: Any, keep: list) -> int:
        param = self.info.params[index]
        value = _CONVERTERS[param.kind](arg, keep)
        if value is None:
            raise ArgumentTypeError(
                f"{self.info.name}: {_where(param, index)}: expected {_EXPECTED[param.kind]}, got {type(arg).__name__}"
            )
        return value

    def _explain(self, status: int, args: tuple, buf) -> ArgumentError:
        values = [
            TensorView.read(buf[i]) if p.kind == "buffer" else arg
            for i, (p, arg) in enumerate(zip(self.info.params, args))
        ]
        try:
            detail = explain_failure(self.info, values)
        except Exception as err:  # the explainer must never hide the real failure
            detail = None
            note = f" (explainer failed: {err})"
        else:
            note = ""
        if detail is None:
            checks = self.info.checks
            detail = (
                checks[status - 1] if 0 < status <= len(checks) else f"native argument check #{status} failed"
            )
            detail += note
        return ArgumentError(f"{self.info.name}: {detail}")

    def __repr__(self) -> str:
        return f"<CompiledFunction {self.info.signature()} at {self.address:#x}>"


def _where(param: ParamInfo, index: int) -> str:
    return f"argument '{param.name}' (#{index + 1})"


def _buffer_arg(arg: Any, keep: list) -> int | None:
    if isinstance(arg, NDArray):
        return arg._dltensor_addr
    if isinstance(arg, np.ndarray):
        array = _wrap_numpy(arg, _CPU)
        keep.append(array)
        return array._dltensor_addr
    if hasattr(arg, "__dlpack__"):  # pass the producer's own DLTensor: no NDArray needed
        imported = dlpack.import_dlpack(arg)
        keep.append(imported)
        return ctypes.addressof(imported.tensor)
    return None


_CPU = cpu(0)


def _int_arg(arg: Any, keep: list) -> int | None:
    if isinstance(arg, (int, np.integer, np.bool_)):
        return _int_bits(int(arg))
    return None


def _float_arg(arg: Any, keep: list) -> int | None:
    if isinstance(arg, (int, float, np.integer, np.floating, np.bool_)):
        return _float_bits(float(arg))
    return None


def _handle_arg(arg: Any, keep: list) -> int | None:
    if arg is None:
        return 0
    if isinstance(arg, (int, np.integer)):
        return _int_bits(int(arg))
    if isinstance(arg, ctypes.c_void_p):
        return arg.value or 0
    if isinstance(arg, ctypes._Pointer):
        return ctypes.cast(arg, ctypes.c_void_p).value or 0
    if isinstance(arg, (ctypes.Array, ctypes.Structure)):
        return ctypes.addressof(arg)
    return None


_CONVERTERS: dict[str, Callable[[Any, list], int | None]] = {
    "buffer": _buffer_arg,
    "int": _int_arg,
    "float": _float_arg,
    "handle": _handle_arg,
}
_EXPECTED = {
    "buffer": "an array (NDArray, numpy array or DLPack tensor)",
    "int": "an int",
    "float": "a float",
    "handle": "a pointer (int, None or ctypes object)",
}
