"""CompiledFunction: call a native function with ember's argument ABI.

The native signature is ``int32_t fn(uint64_t* args, int32_t num_args)``.  ``args[i]``
holds, per parameter kind: ``buffer`` -> address of a DLTensor; ``int`` -> the int64
value; ``float`` -> the IEEE-754 bits of a double; ``handle`` -> a pointer.  The function
checks its own arguments and returns 0, or k >= 1 when ``info.checks[k-1]`` failed.

Python checks only the argument count; everything else is checked natively.  Each
signature gets a generated straight-line ``__call__``: an NDArray passes its cached
DLTensor, a numpy array or torch tensor is described in place in a DLTensor of the
per-call buffer (``array_fields.py``, no NDArray built), scalars are written by one
``struct.pack_into``.  Other arguments (DLPack producers, ctypes pointers, numpy
scalars that struct refuses) take a slow path, which also writes the error messages.
Per-call buffers are pooled, so concurrent and re-entrant calls each get their own.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any
from collections.abc import Callable

import numpy as np

from . import dlpack
from .arg_explain import TensorView, explain_failure
from .array_fields import (
    ARRAY_FIELDS, C_CONTIGUOUS, CPU_WORD, DLTENSOR_SIZE, DLTENSOR_WORDS, MEMORY, NUMPY_DTYPE_WORD,
    NUMPY_FIELDS_OK, fill_from_numpy, fill_from_torch,
)
from .errors import ArgumentError, ArgumentTypeError, runtime_error_for_check
from .function_info import FunctionInfo, ParamInfo
from .device import cpu
from .ndarray import NDArray, _wrap_numpy

# int32_t fn(uint64_t* args, int32_t num_args).  Declared without argtypes: the call passes
# the args buffer (a ctypes array, i.e. a pointer) and a small int, which ctypes converts
# without the per-argument conversion objects that argtypes cost.
NATIVE_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int32)

_INT64_MIN, _UINT64_END = -(1 << 63), 1 << 64
# 64-bit int parameters whose Python values the int64 args slot could wrap (narrower ones are
# checked natively, against their dtype, after the slot is read)
_INT64_RANGE = {"int64": (_INT64_MIN, (1 << 63) - 1), "uint64": (0, _UINT64_END - 1)}
_ANY_64 = (_INT64_MIN, _UINT64_END - 1)
_DOUBLE = struct.Struct("<d")
_UINT64 = struct.Struct("<Q")
_INT64 = struct.Struct("<q")


def _int_bits(value: int) -> int:
    if not _INT64_MIN <= value < _UINT64_END:
        raise OverflowError(f"{value} does not fit in 64 bits")
    return value


def _float_bits(value: float) -> int:
    return _UINT64.unpack(_DOUBLE.pack(value))[0]


def _handle_bits(value: Any) -> int:
    return 0 if value is None else _int_bits(value)


# How each parameter kind's value is written into the args array: the struct code, which
# also checks the Python value (a mismatch takes the slow path, which explains it).
_PACK_CODE = {"buffer": "Q", "int": "q", "float": "d", "handle": "Q"}
# Exact array types described in place (the per-call DLTensor), see array_fields.py.
_FILLERS: dict[type, Callable] = {np.ndarray: fill_from_numpy}
_MIN_ROOM = 8  # int64 slots after each pooled DLTensor (shape and strides of foreign arrays)


class CompiledFunction:
    """A native function at ``address`` described by ``info``; ``keepalive`` owns its code.

    Calls run through a ``__call__`` generated for the parameter kinds (see
    ``_call_source``): NDArrays pass their cached DLTensor, numpy arrays and torch
    tensors are described in a DLTensor of a pooled per-call buffer, scalars are written
    by one ``struct.pack_into``.  Anything else takes the slow path, which also
    produces the error messages."""

    __slots__ = (
        "address", "info", "keepalive", "_fn", "_nargs", "_pool", "_pack", "_slot_type",
        "_tensor_at", "_room", "__weakref__",
    )  # fmt: skip

    def __init__(self, address: int, info: FunctionInfo, keepalive: Any = None):
        if not address:
            raise ValueError(f"CompiledFunction {info.name!r}: address must be a non-NULL function pointer")
        self.address = int(address)
        self.info = info
        self.keepalive = keepalive
        self._fn = NATIVE_SIGNATURE(self.address)
        self._nargs = len(info.params)
        self._pack = struct.Struct("<" + "".join(_PACK_CODE[p.kind] for p in info.params))
        # per-call buffer: the args array, then per buffer parameter a DLTensor and its room
        self._tensor_at: list[int] = []
        self._room: list[int] = []
        size = max(8 * self._nargs, 8)
        for p in info.params:
            room = max(2 * len(p.shape), _MIN_ROOM) if p.kind == "buffer" else 0
            self._tensor_at.append(size if room else -1)
            self._room.append(room)
            size += DLTENSOR_SIZE + 8 * room if room else 0
        self._slot_type = ctypes.c_char * size
        self._pool: list = []
        if type(self).__call__ is CompiledFunction.__call__:  # (a subclass may bring its own)
            self.__class__ = _call_class(type(self), tuple(p.kind for p in info.params),
                                         tuple(self._tensor_at), tuple(self._room),
                                         tuple(p.written for p in info.params))

    @property
    def name(self) -> str:
        return self.info.name

    def __call__(self, *args: Any) -> None:  # replaced per instance by a generated __call__
        raise NotImplementedError

    def _new_slot(self) -> list:
        """A per-call buffer: [ctypes buffer, its address, temporaries kept alive by the call]."""
        buf = self._slot_type()
        return [buf, ctypes.addressof(buf), []]

    # -- slow paths --------------------------------------------------------------------------
    def _count_error(self, args: tuple) -> ArgumentError:
        return ArgumentError(
            f"{self.info.name} expects {self._nargs} arguments ({', '.join(self.info.param_names)}), "
            f"got {len(args)}"
        )

    def _buffer_slow(self, slot: list, index: int, arg: Any) -> int:
        """The DLTensor address for a buffer argument the generated fast path did not handle."""
        if self.info.params[index].written and _is_read_only(arg):
            raise ArgumentError(
                f"{self.info.name}: {_where(self.info.params[index], index)}: {self.info.name} writes to it, "
                "got a read-only array (numpy writeable=False, e.g. over read-only memory such as a "
                "read-only mmap); pass a writable array"
            )
        filler = _filler_for(type(arg))
        if filler is not None:
            at = self._tensor_at[index]
            address = filler(slot[0], at, slot[1] + at, arg, self._room[index])
            if address is not None:
                return address
        return self._convert_slow(index, arg, slot[2])

    def _pack_slow(self, slot: list, args: tuple, values: list) -> None:
        """Pack after the fast pack refused a scalar: convert each one, naming the bad argument."""
        for i, (param, arg) in enumerate(zip(self.info.params, args)):
            if param.kind != "buffer":
                bits = self._convert_slow(i, arg, slot[2])
                lo, hi = _INT64_RANGE.get(param.dtype, _ANY_64)
                if param.kind == "int" and not lo <= bits <= hi:
                    raise ArgumentError(f"{self.info.name}: {_where(param, i)}: expected a value of dtype "
                                        f"{param.dtype} in [{lo}, {hi}], got {bits}")
                if param.kind == "int" and bits >= 1 << 63:
                    bits -= 1 << 64  # uint64 range, written as the same bits
                elif param.kind == "handle" and bits < 0:
                    bits += 1 << 64
                elif param.kind == "float":
                    bits = _DOUBLE.unpack(_UINT64.pack(bits))[0]
                values[i] = bits
        self._pack.pack_into(slot[0], 0, *values)

    def _convert_slow(self, index: int, arg: Any, keep: list) -> int:
        param = self.info.params[index]
        try:
            value = _CONVERTERS[param.kind](arg, keep)
        except ArgumentError:
            raise
        except Exception as err:  # e.g. an int too large, a producer refusing DLPack export
            raise ArgumentTypeError(f"{self.info.name}: {_where(param, index)}: {err}") from err
        if value is None:
            raise ArgumentTypeError(
                f"{self.info.name}: {_where(param, index)}: expected {_EXPECTED[param.kind]}, got {type(arg).__name__}"
            )
        return value

    def _explain(self, status: int, args: tuple, buf) -> Exception:
        checks = self.info.checks
        if 0 < status <= len(checks):
            runtime_error = runtime_error_for_check(checks[status - 1])
            if runtime_error is not None:  # e.g. MemoryError from a failed heap Allocate
                return type(runtime_error)(f"{self.info.name}: {runtime_error}")
        values = [
            TensorView.read(_UINT64.unpack_from(buf, 8 * i)[0]) if p.kind == "buffer" else arg
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


# -- the generated __call__ ----------------------------------------------------------------------

_CALL_CLASSES: dict[tuple, type] = {}


def _call_source(kinds: tuple, tensor_at: tuple, room: tuple, written: tuple = ()) -> str:
    """Straight-line Python for calling a function with these parameter kinds (arrays for the
    ``written`` buffers must be writable: read-only ones take the slow path, which refuses them)."""
    n = len(kinds)
    names = [f"a{i}" for i in range(n)]
    lines = [
        "def __call__(self, *args):",
        f"    if len(args) != {n}:",
        "        raise self._count_error(args)",
    ]
    if n:
        lines.append(f"    {', '.join(names)}, = args")
    lines += [
        "    pool = self._pool",
        "    try:",
        "        slot = pool.pop()",
        "    except IndexError:  # none free (first call, or other threads hold them all)",
        "        slot = self._new_slot()",
        "    buf, base, keep = slot",
        "    try:",
    ]
    values = []
    for i, kind in enumerate(kinds):
        if kind != "buffer":
            values.append(names[i])
            continue
        at, r = tensor_at[i], room[i]
        out = i < len(written) and written[i]
        lines += [
            f"        t = type(a{i})",
            f"        if t is NDArray and (a{i}._np is None or a{i}._np.flags.writeable):" if out else
            "        if t is NDArray:",
            f"            v{i} = a{i}._dltensor_addr",
        ]
        if NUMPY_FIELDS_OK:  # contiguous numpy arrays inline (fill_from_numpy, unrolled)
            flags = "== WRITABLE_C_CONTIGUOUS" if out else ""
            lines += [
                f"        elif t is ndarray and (w := DTYPE_WORD.get(a{i}.dtype)) is not None and "
                f"(f := UNPACK(MEMORY, id(a{i})))[4] & {'WRITABLE_C_CONTIGUOUS' if out else 'C_CONTIGUOUS'}{flags}:",
                f"            PACK(buf, {at}, f[0], CPU_WORD, f[1] | w, f[2], 0)",
                f"            v{i} = base + {at}",
            ]
        lines += ["        else:"]
        if out:
            lines.append(f"            v{i} = self._buffer_slow(slot, {i}, a{i})")
        else:
            lines += [
                "            fill = FILLERS.get(t)",
                f"            v{i} = fill and fill(buf, {at}, base + {at}, a{i}, {r}) or self._buffer_slow(slot, {i}, a{i})",
            ]
        values.append(f"v{i}")
    lines += [
        "        try:",
        f"            self._pack.pack_into(buf, 0, {', '.join(values)})",
        "        except Exception:  # a scalar struct refused: convert (or explain) one by one",
        f"            self._pack_slow(slot, args, [{', '.join(values)}])",
        f"        status = self._fn(buf, {n})",
        "        if status:",
        "            raise self._explain(status, args, buf)",
        "    finally:",
        "        if keep:",
        "            keep.clear()",
        "        pool.append(slot)",
    ]
    return "\n".join(lines) + "\n"


def _call_class(base: type, kinds: tuple, tensor_at: tuple, room: tuple, written: tuple = ()) -> type:
    """A subclass of ``base`` whose ``__call__`` is generated for this signature (cached)."""
    key = (base, kinds, tensor_at, room, written)
    cls = _CALL_CLASSES.get(key)
    if cls is None:
        namespace = {
            "NDArray": NDArray, "FILLERS": _FILLERS, "ndarray": np.ndarray, "DTYPE_WORD": NUMPY_DTYPE_WORD,
            "UNPACK": ARRAY_FIELDS.unpack_from, "MEMORY": MEMORY, "C_CONTIGUOUS": C_CONTIGUOUS,
            "PACK": DLTENSOR_WORDS.pack_into, "CPU_WORD": CPU_WORD,
            "WRITABLE_C_CONTIGUOUS": C_CONTIGUOUS | NPY_WRITEABLE,
        }
        source = _call_source(kinds, tensor_at, room, written)
        exec(compile(source, f"<CompiledFunction call {kinds}>", "exec"), namespace)  # noqa: S102 - ours
        call = namespace["__call__"]
        call.__doc__ = "Call the native function (generated for this signature; see _call_source)."
        cls = _CALL_CLASSES[key] = type(base.__name__, (base,), {"__slots__": (), "__call__": call})
        cls.__module__, cls.__qualname__ = base.__module__, base.__qualname__
    return cls


NPY_WRITEABLE = 0x400  # NPY_ARRAY_WRITEABLE in numpy's array flags


def _is_read_only(arg: Any) -> bool:
    """Whether ``arg`` is an array whose memory must not be written (numpy writeable=False,
    an NDArray over such an array or imported read-only through DLPack)."""
    if isinstance(arg, NDArray):
        arg = arg._np
    flags = getattr(arg, "flags", None) if isinstance(arg, np.ndarray) else None
    return flags is not None and not flags.writeable


def _filler_for(cls: type) -> Callable | None:
    """The in-place DLTensor filler for an array type, registering torch.Tensor on first sight."""
    found = _FILLERS.get(cls)
    if found is None and cls.__module__.startswith("torch"):
        import sys

        torch = sys.modules.get("torch")
        if torch is not None and cls is torch.Tensor:
            found = _FILLERS[cls] = fill_from_torch
    return found


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
