"""Packed functions for VM tests (``test.vm.add`` ...) and ``check_saved_func``.

Importing this module registers the functions; test programs call them with
``R.call_pure_packed("test.vm.add", x, y, ...)`` or ``ExecBuilder.emit_call``.
Functions that return a value make a new NDArray on the first argument's device;
``identity`` and ``tile`` write into their last argument (destination passing).
"""

from __future__ import annotations

import numpy as np

from ember.runtime import NDArray, array, register_func

__all__ = ["check_saved_func"]


def _result(value, like: NDArray) -> NDArray:
    return array(np.asarray(value), like.device)


def _register(name: str):
    return register_func(f"test.vm.{name}", override=True)


@_register("move")
def move(src: NDArray) -> NDArray:
    """A copy of ``src``."""
    return _result(src.numpy().copy(), src)


@_register("add")
def add(a: NDArray, b: NDArray) -> NDArray:
    return _result(a.numpy() + b.numpy(), a)


@_register("mul")
def mul(a: NDArray, b: NDArray) -> NDArray:
    return _result(a.numpy() * b.numpy(), a)


@_register("subtract_one")
def subtract_one(a: NDArray) -> NDArray:
    return _result(a.numpy() - 1, a)


@_register("equal_zero")
def equal_zero(a: NDArray) -> NDArray:
    """A bool scalar: every element of ``a`` is zero."""
    return _result(np.array(np.all(a.numpy() == 0)), a)


@_register("less")
def less(a: NDArray, b: NDArray) -> NDArray:
    """A bool tensor ``a < b`` (broadcasting)."""
    return _result(np.less(a.numpy(), b.numpy()), a)


@_register("identity")
def identity(src: NDArray, dst: NDArray) -> None:
    """Copy ``src`` into ``dst``."""
    dst.copyfrom(src.numpy())


@_register("tile")
def tile(src: NDArray, dst: NDArray) -> None:
    """``dst`` = ``src`` repeated twice along its last axis."""
    dst.copyfrom(np.tile(src.numpy(), (1, 2)))


@_register("add_scalar")
def add_scalar(a: int, b: int) -> int:
    return int(a) + int(b)


@_register("get_device_id")
def get_device_id(device) -> int:
    return int(device.device_id)


@_register("check_if_defined")
def check_if_defined(value) -> bool:
    """Whether ``value`` is set (not a null object)."""
    return value is not None


def check_saved_func(vm, func_name: str, *inputs):
    """Run ``vm[func_name](*inputs)``, then the same call saved with ``vm.save_function``;
    check both give the same result and return it."""
    direct = vm[func_name](*inputs)
    saved_name = func_name + "_saved"
    vm.save_function(func_name, saved_name, *inputs)
    saved = vm[saved_name]()
    _assert_same(direct, saved)
    return direct


def _assert_same(a, b) -> None:
    if isinstance(a, NDArray):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-7)
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), f"results differ in length: {len(a)} vs {len(b)}"
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        assert a == b, f"results differ: {a!r} vs {b!r}"
