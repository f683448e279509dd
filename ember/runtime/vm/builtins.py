"""The VM's builtin functions, registered as global packed functions ``vm.builtin.*``.

Builtins that need the running VM (its allocator, its device) receive it as their
first argument (an ``Arg("vm", None)`` in the instruction).  Symbolic shapes live in a
per-call *shape heap*, a Python list of ints: ``match_shape`` checks a value's shape
against constants and heap slots (storing the first occurrence of each symbolic dim),
``eval_shape`` computes derived dims, ``make_shape`` builds a shape from both.
"""

from __future__ import annotations

import math

from ..container import ShapeTuple, make_shape_tuple
from ..device import DeviceType
from ..errors import ArgumentError, ArgumentTypeError
from ..ndarray import NDArray, empty
from ..registry import register_func

# match_shape / make_shape spec kinds (ANY: match_shape skips the dim)
IMM, STORE, LOAD, ANY = 0, 1, 2, 3


def _shape_of(value, what: str = "") -> tuple:
    shape = getattr(value, "shape", None)
    if shape is None:
        if isinstance(value, tuple):
            return value
        where = f"{what}: " if what else ""
        raise ArgumentTypeError(f"{where}expected a tensor or a shape, got {type(value).__name__}")
    return tuple(shape)


@register_func("vm.builtin.alloc_storage", override=True)
def alloc_storage(vm, nbytes, device_index: int = 0, dtype_hint: str = "uint8"):
    if isinstance(nbytes, tuple):  # a one-element shape, as relax.memory.alloc_storage gives it
        (nbytes,) = nbytes
    return vm.allocator.alloc(nbytes, vm.devices[device_index])


@register_func("vm.builtin.alloc_tensor", override=True)
def alloc_tensor(storage, offset: int, shape: tuple, dtype: str) -> NDArray:
    return storage.alloc_tensor(offset, shape, dtype)


@register_func("vm.builtin.alloc_output", override=True)
def alloc_output(vm, shape: tuple, dtype: str, device_index: int = 0) -> NDArray:
    """A fresh tensor (not from the pool): outputs outlive the call."""
    return empty(tuple(shape), dtype, vm.devices[device_index])


@register_func("vm.builtin.alloc_shape_heap", override=True)
def alloc_shape_heap(size: int) -> list:
    return [0] * int(size)


@register_func("vm.builtin.check_tensor_info", override=True)
def check_tensor_info(value, ndim: int, dtype: str, what: str):
    if not isinstance(value, NDArray):
        raise ArgumentTypeError(f"{what}: expected a tensor, got {type(value).__name__}")
    if ndim >= 0 and value.ndim != ndim:
        raise ArgumentError(f"{what}: expected a {ndim}-d tensor, got ndim {value.ndim} (shape {value.shape})")
    if dtype and value.dtype != dtype:
        raise ArgumentError(f"{what}: expected dtype {dtype}, got {value.dtype}")


@register_func("vm.builtin.match_shape", override=True)
def match_shape(value, heap: list, what: str, *spec):
    """Check ``value``'s shape against ``spec`` = (kind, operand, name) triples per dim."""
    shape = _shape_of(value, what)
    ndim = len(spec) // 3
    if len(shape) != ndim:
        raise ArgumentError(f"{what}: expected {ndim} dimensions, got shape {shape}")
    for axis in range(ndim):
        kind, operand, name = spec[3 * axis: 3 * axis + 3]
        got = int(shape[axis])
        if kind == IMM:
            if got != operand:
                raise ArgumentError(f"{what}: expected shape[{axis}] == {operand}, got {got} (shape {shape})")
        elif kind == STORE:
            heap[operand] = got
        elif kind == ANY:
            continue
        elif got != heap[operand]:
            raise ArgumentError(
                f"{what}: expected shape[{axis}] == {name} = {heap[operand]} (bound by another "
                f"argument), got {got} (shape {shape})"
            )


_SCALAR_TYPES = {"int": (int,), "uint": (int,), "float": (int, float), "bool": (bool,)}


@register_func("vm.builtin.match_prim_value", override=True)
def match_prim_value(value, heap: list, what: str, dtype: str, kind: int, operand: int, name: str):
    """Check a scalar argument's type against ``dtype``, then match it like one dim of match_shape."""
    if isinstance(value, NDArray) and value.ndim == 0:
        value = value.numpy().item()
    code = dtype.rstrip("0123456789")
    allowed = _SCALAR_TYPES.get(code, (int, float, bool))
    if not isinstance(value, allowed) or (code != "bool" and isinstance(value, bool)):
        raise ArgumentTypeError(f"{what}: expected a {dtype} scalar, got {type(value).__name__}")
    if kind == IMM and value != operand:
        raise ArgumentError(f"{what}: expected the value {operand}, got {value}")
    if kind == STORE:
        heap[operand] = value
    elif kind == LOAD and value != heap[operand]:
        raise ArgumentError(f"{what}: expected {name} = {heap[operand]}, got {value}")


_COMPILED: dict[str, object] = {}


@register_func("vm.builtin.eval_shape", override=True)
def eval_shape(heap: list, dst: int, code: str):
    """``heap[dst] = <code>``, where ``code`` is a Python expression over ``h`` (the heap)."""
    compiled = _COMPILED.get(code)
    if compiled is None:
        compiled = _COMPILED[code] = compile(code, "<shape>", "eval")
    heap[dst] = int(eval(compiled, {"__builtins__": {}}, {"h": heap}))  # noqa: S307 - our own code


@register_func("vm.builtin.load_shape_value", override=True)
def load_shape_value(heap: list, index: int) -> int:
    """A symbolic value from the shape heap (e.g. a dim passed to a kernel as a scalar)."""
    return heap[index]


@register_func("vm.builtin.make_shape", override=True)
def make_shape(heap: list, *spec) -> ShapeTuple:
    """A ShapeTuple from (kind, operand) pairs: IMM → operand, LOAD → heap[operand]."""
    return make_shape_tuple(spec[i + 1] if spec[i] == IMM else heap[spec[i + 1]] for i in range(0, len(spec), 2))


@register_func("vm.builtin.make_tuple", override=True)
def make_tuple(*fields) -> tuple:
    return fields


@register_func("vm.builtin.tuple_getitem", override=True)
def tuple_getitem(tup, index: int):
    return tup[index]


@register_func("vm.builtin.shape_of", override=True)
def shape_of(tensor) -> tuple:
    return tuple(tensor.shape)


@register_func("vm.builtin.tensor_to_shape", override=True)
def tensor_to_shape(tensor) -> tuple:
    """A shape from the values of a 1-D integer tensor (TVM's ``relax.tensor_to_shape``)."""
    values = tensor.numpy() if isinstance(tensor, NDArray) else tensor
    return tuple(int(v) for v in values.reshape(-1))


@register_func("vm.builtin.null_value", override=True)
def null_value():
    return None


@register_func("vm.builtin.copy", override=True)
def copy(value):
    return value


@register_func("vm.builtin.reshape", override=True)
def reshape(tensor: NDArray, shape: tuple) -> NDArray:
    """A view of ``tensor`` with a new shape (same number of elements)."""
    shape = tuple(int(s) for s in shape)
    if tensor._np is None and tensor.device.device_type != DeviceType.CPU:  # device memory: same address
        count = 1
        for s in shape:
            count *= s
        if count != math.prod(tensor.shape):
            raise ArgumentError(f"reshape: cannot view a tensor of shape {tensor.shape} as shape {shape}")
        return NDArray(tensor.data_ptr, shape, tensor.dtype, tensor.device, owner=tensor)
    view = tensor.numpy() if tensor._np is None else tensor._np
    view = view.reshape(shape)
    return NDArray(view.ctypes.data, shape, tensor.dtype, tensor.device, owner=tensor, np_view=view)


def _shown(value):
    return value.numpy() if isinstance(value, NDArray) else value


@register_func("vm.builtin.print", override=True)
def print_values(fmt: str, *values) -> None:
    """``relax.print``: ``fmt.format(*values)`` (tensors shown as numpy), or the values spaced."""
    shown = [_shown(v) for v in values]
    print(fmt.format(*shown) if fmt else " ".join(map(str, shown)))  # noqa: T201 - the op's purpose


@register_func("vm.builtin.assert_op", override=True)
def assert_op(fmt: str, condition, *values) -> None:
    """``relax.assert_op``: raise AssertionError with the formatted message when ``condition`` is false."""
    if not read_if_cond(condition):
        shown = [_shown(v) for v in values]
        raise AssertionError(fmt.format(*shown) if fmt else "Assertion failed: " + " ".join(map(str, shown)))


@register_func("vm.builtin.make_closure", override=True)
def make_closure(func, *captured):
    """A closure: calling it calls ``func(*captured, *args)``."""
    return lambda *args: func(*captured, *args)


@register_func("vm.builtin.invoke_closure", override=True)
def invoke_closure(closure, *args):
    return closure(*args)


@register_func("vm.builtin.read_if_cond", override=True)
def read_if_cond(value) -> bool:
    if isinstance(value, NDArray):
        return bool(value.numpy().reshape(-1)[0])
    return bool(value)
