"""``ember._ffi`` (TVM's ``tvm._ffi``): the registry, ``register_object`` and the error base
are ember's own objects under TVM's module paths."""

import pytest

import ember
from ember import _ffi
from ember._ffi import base, registry, runtime_ctypes


def test_error_base_is_embers_tvm_error():
    assert base.TVMError is ember.TVMError
    assert ember._ffi.base.TVMError is ember.error.TVMError


def test_register_func_shares_the_runtime_registry():
    @_ffi.register_func("test_ffi_compat.twice")
    def twice(x):
        return 2 * x

    try:
        assert ember.get_global_func("test_ffi_compat.twice") is twice
        assert _ffi.get_global_func("test_ffi_compat.twice")(4) == 8
        assert "test_ffi_compat.twice" in _ffi.list_global_func_names()
    finally:
        registry.remove_global_func("test_ffi_compat.twice")
    assert _ffi.get_global_func("test_ffi_compat.twice", allow_missing=True) is None


def test_register_object_returns_the_class_and_records_its_key():
    @_ffi.register_object("test.MyNode")
    class MyNode:
        pass

    @_ffi.register_object
    class Bare:
        pass

    assert registry.object_types["test.MyNode"] is MyNode
    assert registry.object_types["Bare"] is Bare


def test_register_object_refuses_a_non_class():
    with pytest.raises(TypeError, match="expected a class, got function"):
        _ffi.register_object("test.f")(lambda: None)
    with pytest.raises(TypeError, match="type_key must be a str, got int"):
        _ffi.register_object(3)


def test_py_str_and_runtime_types():
    assert base.py_str(b"abc") == "abc" and base.py_str("x") == "x"
    assert runtime_ctypes.Device is ember.runtime.Device
    assert runtime_ctypes.DataType is ember.runtime.DataType
