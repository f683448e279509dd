"""Module: lookup, entry function, imports, source, time_evaluator."""

import re

import numpy as np
import pytest
from native_kernels import add_one

from ember import nd, runtime
from ember.runtime import Module, ProfileResult

ADD_ONE = add_one()


def test_lookup_and_call():
    mod = Module({"add_one": ADD_ONE}, type_key="llvm")
    assert mod["add_one"] is ADD_ONE
    assert mod.get_function("add_one") is ADD_ONE
    assert "add_one" in mod and "other" not in mod
    assert mod.type_key == "llvm"
    a, b = nd.array(np.zeros(3, "float32")), nd.empty((3,))
    mod(a, b)  # the only function is the entry
    assert b.numpy().tolist() == [1, 1, 1]
    assert mod.entry_name == "add_one"


def test_main_is_the_entry():
    calls = []
    mod = Module({"helper": lambda: calls.append("helper"), "main": lambda x: calls.append(x)})
    assert mod.entry_name == "main"
    mod(5)
    assert calls == [5]


def test_no_entry():
    mod = Module({"f": print, "g": print})
    assert mod.entry_name is None
    with pytest.raises(
        RuntimeError, match=r"no entry function: no 'main' and not exactly one function \(f, g\)"
    ):
        mod()


def test_missing_function():
    mod = Module({"f": print})
    with pytest.raises(AttributeError, match=r"Module has no function 'g' \(functions: f\)"):
        mod["g"]
    with pytest.raises(TypeError, match="function name must be a str"):
        mod[0]


def test_imports():
    device_mod = Module({"kernel": print}, type_key="cuda")
    host = Module({"main": print})
    host.import_module(device_mod)
    assert host.imported_modules == [device_mod]
    assert host.get_function("kernel", query_imports=True) is print
    with pytest.raises(AttributeError, match="Module has no function 'kernel'"):
        host.get_function("kernel")
    with pytest.raises(AttributeError, match="Module or its imports has no function 'nope'"):
        host.get_function("nope", query_imports=True)
    with pytest.raises(TypeError, match="expected a Module, got int"):
        host.import_module(3)


def test_sources():
    assert Module().get_source() == ""
    mod = Module({"f": print}, sources={"ll": "define void @f()", "asm": "f:"})
    assert mod.get_source() == "define void @f()"
    assert mod.get_source("asm") == "f:"
    assert mod.get_source("c") == ""
    assert mod.source_formats == ["ll", "asm"]


def test_add_function():
    mod = Module()
    mod.add_function("f", print)
    with pytest.raises(ValueError, match="already has a function 'f'"):
        mod.add_function("f", print)
    with pytest.raises(TypeError, match="function 'x' must be callable"):
        Module({"x": 1})


def test_export_library_not_yet():
    with pytest.raises(NotImplementedError, match="cannot be exported to a shared library yet"):
        Module({"f": print}).export_library("/tmp/x.so")


def test_time_evaluator_fields():
    mod = Module({"add_one": ADD_ONE})
    a, b = nd.array(np.zeros(64, "float32")), nd.empty((64,))
    timer = mod.time_evaluator("add_one", runtime.cpu(), number=5, repeat=3)
    result = timer(a, b)
    assert isinstance(result, ProfileResult)
    assert len(result.results) == 3 and result.number == 5
    assert all(r > 0 for r in result.results)
    assert result.min <= result.median <= result.max
    assert result.min <= result.mean <= result.max
    assert result.std >= 0
    assert b.numpy()[0] == 1
    text = str(result)
    assert "3 repeats x 5 calls" in text
    assert re.search(r"mean \(ms\)\s+median \(ms\)\s+max \(ms\)\s+min \(ms\)\s+std \(ms\)", text)


def test_time_evaluator_min_repeat_ms_grows_number(monkeypatch):
    # a fake clock that advances 1 ms per call keeps the growth independent of machine load
    import types

    from ember.runtime import profiling

    clock = [0.0]
    fake_time = types.SimpleNamespace(perf_counter=lambda: clock[0], sleep=lambda s: None)
    monkeypatch.setattr(profiling, "time", fake_time)
    calls = []

    def one_ms_call():
        calls.append(1)
        clock[0] += 1e-3

    timer = runtime.time_evaluator(one_ms_call, runtime.cpu(), number=1, repeat=2, min_repeat_ms=5)
    result = timer()
    assert result.number > 1
    assert len(calls) >= 1 + 2 * result.number  # warm-up plus both repeats
    np.testing.assert_allclose(result.results, [1e-3, 1e-3])


def test_time_evaluator_preproc_and_errors():
    seen = []
    runtime.register_func("test.preproc", lambda *args: seen.append(args), override=True)
    try:
        timer = runtime.time_evaluator(
            lambda x: None, runtime.cpu(), number=2, repeat=3, f_preproc="test.preproc"
        )
        timer(7)
        assert seen == [(7,)] * 3
    finally:
        runtime.remove_global_func("test.preproc")
    with pytest.raises(ValueError, match="number and repeat must be >= 1"):
        runtime.time_evaluator(print, runtime.cpu(), number=0)
    with pytest.raises(ValueError, match="no global function named 'nope'"):
        runtime.time_evaluator(print, runtime.cpu(), f_preproc="nope")
    with pytest.raises(AttributeError, match="no function 'missing'"):
        Module({"f": print}).time_evaluator("missing", runtime.cpu())


def test_cache_flush_preproc_runs():
    timer = runtime.time_evaluator(lambda: None, runtime.cpu(), f_preproc="cache_flush_cpu_non_first_arg")
    assert len(timer().results) == 1
