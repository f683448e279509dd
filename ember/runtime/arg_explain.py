"""Explain why a compiled function rejected its arguments.

Native code only returns the index of the failed check.  After a failure, this module
re-checks, in Python, what the native code saw (the DLTensors actually passed) against
the declared parameters, and names the first argument that is wrong, what was expected
and what was given.  It runs only on the error path, so it favours clarity over speed.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Any

from . import dlpack
from .device import Device
from .function_info import FunctionInfo, ParamInfo, is_symbol


@dataclass(frozen=True, slots=True)
class TensorView:
    """The fields of a DLTensor, read back as Python values."""

    data: int
    device: Device
    ndim: int
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None

    @classmethod
    def read(cls, address: int) -> TensorView:
        t = dlpack.DLTensor.from_address(address)
        code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
        try:
            dtype = str(dlpack.dtype_from_dl(code, bits, lanes))
        except BufferError:
            dtype = f"<DLPack dtype code={code} bits={bits} lanes={lanes}>"
        shape = tuple(t.shape[: t.ndim]) if t.shape else ()
        strides = tuple(t.strides[: t.ndim]) if t.strides else None
        device = Device(int(t.device.device_type), int(t.device.device_id))
        return cls((t.data or 0) + t.byte_offset, device, t.ndim, dtype, shape, strides)


def explain_failure(info: FunctionInfo, values: list[Any]) -> str | None:
    """The first problem found, as "argument 'B' (#2): expected ..., got ...", or None.

    ``values[i]`` is a TensorView for buffer parameters and the converted Python value
    for scalars.
    """
    bindings: dict[str, tuple[int, str]] = {}  # symbol -> (value, where it was bound)
    for index, (param, value) in enumerate(zip(info.params, values)):  # scalars are checked first
        if param.kind == "int":
            problem = _check_int_scalar(info, param, value)
            if problem:
                return f"argument '{param.name}' (#{index + 1}): {problem}"
    for index, (param, value) in enumerate(zip(info.params, values)):
        if param.kind == "buffer":
            problem = _check_buffer(param, value, bindings)
            if problem:
                return f"argument '{param.name}' (#{index + 1}): {problem}"
        elif param.kind == "int" and is_symbol(param.name):
            bindings.setdefault(param.name, (int(value), f"argument '{param.name}'"))
    return None


def _int_range(dtype: str) -> tuple[int, int] | None:
    """The values of an integer dtype such as "int32" / "uint8" (None for bool and others)."""
    for stem, signed in (("uint", False), ("int", True)):
        if dtype.startswith(stem) and dtype[len(stem):].isdigit():
            bits = int(dtype[len(stem):])
            return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return None


def _check_int_scalar(info: FunctionInfo, param: ParamInfo, value: Any) -> str | None:
    """An integer scalar out of its dtype's range, or negative where it is a buffer's size."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        return None
    bounds = _int_range(param.dtype)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        return f"expected a value of dtype {param.dtype} in [{bounds[0]}, {bounds[1]}], got {value}"
    users = [p.name for p in info.params if p.kind == "buffer" and param.name in p.shape]
    if users and value < 0:
        return f"is a size (in the shape of {', '.join(repr(u) for u in users)}), expected >= 0, got {value}"
    return None


def _check_buffer(param: ParamInfo, view: TensorView, bindings: dict) -> str | None:
    if view.device.device_type != param.device_type:
        wanted = Device(param.device_type, 0).type_name
        return f"expected a {wanted} array, got {view.device}"
    if view.ndim != len(param.shape):
        return f"expected ndim {len(param.shape)}, got {view.ndim}"
    if view.dtype != param.dtype:
        return f"expected dtype {param.dtype}, got {view.dtype}"
    for axis, (dim, got) in enumerate(zip(param.shape, view.shape)):
        problem = _check_dim(param.name, "shape", axis, dim, got, bindings)
        if problem:
            return problem
    if param.strides is not None:
        actual = view.strides if view.strides is not None else _compact_strides(view.shape)
        for axis, (stride, got) in enumerate(zip(param.strides, actual)):
            problem = _check_dim(param.name, "strides", axis, stride, got, bindings)
            if problem:
                return problem
    elif view.strides is not None and not dlpack.is_compact(view.shape, view.strides):
        return (
            f"expected a compact (row-major contiguous) array, got strides {view.strides} "
            f"(in elements) for shape {view.shape}"
        )
    if view.data == 0 and math.prod(view.shape) != 0:
        return "expected a non-NULL data pointer, got NULL"
    if param.data_alignment and view.data % param.data_alignment:
        return (
            f"expected data aligned to {param.data_alignment} bytes, got address {view.data:#x} "
            f"(misaligned by {view.data % param.data_alignment})"
        )
    return None


def _check_dim(name: str, field: str, axis: int, dim: int | str, got: int, bindings: dict) -> str | None:
    """Check ``name.field[axis]`` (field is "shape" or "strides") against a declared entry."""
    if isinstance(dim, int):
        return None if got == dim else f"expected {field}[{axis}] == {dim}, got {got}"
    if is_symbol(dim):
        if dim not in bindings:
            bindings[dim] = (got, f"{name}.{field}[{axis}]")
            return None
        value, where = bindings[dim]
        if got == value:
            return None
        return f"expected {field}[{axis}] == {value} (symbolic {dim}, bound by {where}), got {got}"
    value = _evaluate(dim, {k: v for k, (v, _) in bindings.items()})
    if value is None or got == value:
        return None
    return f"expected {field}[{axis}] == {value} ({dim}), got {got}"


def _compact_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, expected = [], 1
    for extent in reversed(shape):
        strides.append(expected)
        expected *= extent
    return tuple(reversed(strides))


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _evaluate(expr: str, env: dict[str, int]) -> int | None:
    """Value of an integer shape expression such as "n * 2 + 1"; None if not computable."""
    try:
        return _eval_node(ast.parse(expr, mode="eval").body, env)
    except (SyntaxError, KeyError, TypeError, ZeroDivisionError):
        return None


def _eval_node(node: ast.AST, env: dict[str, int]) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval_node(node.left, env), _eval_node(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval_node(node.operand, env)
    raise TypeError(f"unsupported shape expression node {type(node).__name__}")
