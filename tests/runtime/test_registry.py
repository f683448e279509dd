"""The global function registry."""

import pytest

from ember import runtime


@pytest.fixture
def clean():
    names = []
    yield names
    for name in names:
        if runtime.get_global_func(name, allow_missing=True) is not None:
            runtime.remove_global_func(name)


def test_decorator_with_name(clean):
    clean.append("test.double")

    @runtime.register_func("test.double")
    def double(x):
        return 2 * x

    assert runtime.get_global_func("test.double")(4) == 8
    assert double(1) == 2  # the decorator returns the function
    assert "test.double" in runtime.list_global_func_names()


def test_decorator_without_name(clean):
    clean.append("test_plain_name")

    @runtime.register_func
    def test_plain_name():
        return 1

    assert runtime.get_global_func("test_plain_name") is test_plain_name


def test_direct_registration_and_override(clean):
    clean.append("test.f")
    runtime.register_func("test.f", lambda: 1)
    with pytest.raises(ValueError, match="'test.f' is already registered; pass override=True"):
        runtime.register_func("test.f", lambda: 2)
    runtime.register_func("test.f", lambda: 3, override=True)
    assert runtime.get_global_func("test.f")() == 3


def test_missing():
    assert runtime.get_global_func("test.nothing", allow_missing=True) is None
    with pytest.raises(ValueError, match="no global function named 'test.nothing'"):
        runtime.get_global_func("test.nothing")
    with pytest.raises(ValueError, match="no global function named"):
        runtime.remove_global_func("test.nothing")


def test_suggestion(clean):
    clean.append("test.relu")
    runtime.register_func("test.relu", lambda: None)
    with pytest.raises(ValueError, match="did you mean 'test.relu'"):
        runtime.get_global_func("test.rlu")


def test_remove(clean):
    runtime.register_func("test.gone", print)
    runtime.remove_global_func("test.gone")
    assert "test.gone" not in runtime.list_global_func_names()


def test_names_sorted():
    names = runtime.list_global_func_names()
    assert names == sorted(names)
    assert "cache_flush_cpu_non_first_arg" in names


def test_rejects_non_callables():
    with pytest.raises(TypeError, match="expected a callable, got int"):
        runtime.register_func("test.int", 3)
