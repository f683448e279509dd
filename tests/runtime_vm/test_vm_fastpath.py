"""The VM's straight-line fast paths (fastpath.py): frames for planned storages, constant
outputs, inline input checks — same results and the same error messages as the builtins."""

import threading

import numpy as np
import pytest

import ember.runtime as rt
from ember.runtime.vm import Arg, Call, Executable, PooledAllocator, Ret, VirtualMachine, VMFunction


def reg(i):
    return Arg("reg", i)


def imm(v):
    return Arg("imm", v)


@rt.register_func("test.vm_fast.scale", override=True)
def _scale(a, out):
    out.copyfrom(a.numpy() * 2)


@rt.register_func("test.vm_fast.add", override=True)
def _add(a, b, out):
    out.copyfrom(a.numpy() + b.numpy())


@rt.register_func("test.vm_fast.fail_if_negative", override=True)
def _fail_if_negative(a):
    if (a.numpy() < 0).any():
        raise ValueError("negative input")


def double_then_add(n=4):
    """main(x: (n,) float32) = 2x + x, through a planned intermediate and a fresh output."""
    what = "main: argument 'x' (#1)"
    instrs = (
        Call(None, "vm.builtin.check_tensor_info", (reg(0), imm(1), imm("float32"), imm(what))),
        Call(None, "vm.builtin.match_shape", (reg(0), imm(0), imm(what), imm(0), imm(n), imm(""))),
        Call(None, "test.vm_fast.fail_if_negative", (reg(0),)),
        Call(1, "vm.builtin.alloc_storage", (Arg("vm", None), imm((4 * n,)), imm(0), imm("float32"))),
        Call(2, "vm.builtin.alloc_tensor", (reg(1), imm(0), imm((n,)), imm("float32"))),
        Call(None, "test.vm_fast.scale", (reg(0), reg(2))),
        Call(3, "vm.builtin.alloc_output", (Arg("vm", None), imm((n,)), imm("float32"), imm(0))),
        Call(None, "test.vm_fast.add", (reg(2), reg(0), reg(3))),
        Ret(3),
    )
    return Executable({"main": VMFunction("main", ("x",), instrs, 4)}, constants=[])


def test_source_uses_a_frame_and_inline_checks():
    source = VirtualMachine(double_then_add()).source("main")
    assert "FR = TAKE()" in source and "GIVE_BACK(FR)" in source
    assert "r1 = FR[0]" in source and "r2 = FR[1]" in source
    assert "r0.shape != (4,)" in source and "r0.dtype != 'float32'" in source
    assert "r3 = O" in source and source.count("()") == 2  # TAKE() and the output constructor


def test_results_and_fresh_outputs():
    vm = VirtualMachine(double_then_add(), rt.cpu(), allocator=PooledAllocator())
    x = np.arange(4, dtype="float32")
    y1 = vm["main"](x)
    y2 = vm["main"](rt.array(x + 1))
    assert y1.data_ptr != y2.data_ptr  # outputs outlive the call: never shared
    np.testing.assert_array_equal(y1.numpy(), 3 * x)
    np.testing.assert_array_equal(y2.numpy(), 3 * (x + 1))


def test_frames_count_as_reuse_and_survive_errors():
    pool = PooledAllocator()
    vm = VirtualMachine(double_then_add(), rt.cpu(), allocator=pool)
    vm["main"](np.ones(4, "float32"))
    assert (pool.stats.fresh_allocations, pool.stats.reused) == (1, 0)
    with pytest.raises(ValueError, match="negative input"):
        vm["main"](-np.ones(4, "float32"))  # raises inside the frame: it is given back
    vm["main"](np.ones(4, "float32"))
    assert (pool.stats.fresh_allocations, pool.stats.reused) == (1, 2)


def test_wrong_inputs_get_the_builtins_messages():
    vm = VirtualMachine(double_then_add())
    what = r"main: argument 'x' \(#1\)"
    with pytest.raises(rt.ArgumentError, match=what + ": expected dtype float32, got float64"):
        vm["main"](np.ones(4))
    with pytest.raises(rt.ArgumentError, match=what + ": expected a 1-d tensor, got ndim 2"):
        vm["main"](np.ones((4, 1), "float32"))
    with pytest.raises(rt.ArgumentError, match=what + r": expected shape\[0\] == 4, got 5 \(shape \(5,\)\)"):
        vm["main"](np.ones(5, "float32"))
    with pytest.raises(rt.ArgumentError, match=what + ": expected a tensor, got str"):
        vm["main"]("x")


def test_concurrent_invocations_use_separate_frames():
    vm = VirtualMachine(double_then_add(64), rt.cpu(), allocator=PooledAllocator())
    errors = []

    def worker(seed):
        try:
            for i in range(100):
                x = np.full(64, seed * 1000 + i, "float32")
                np.testing.assert_array_equal(vm["main"](x).numpy(), 3 * x)
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_register_operands_keep_the_builtins():
    # a shape computed at run time: alloc_output stays a builtin call, alloc_tensor of a frame
    # storage a memo slot
    instrs = (
        Call(1, "vm.builtin.shape_of", (reg(0),)),
        Call(2, "vm.builtin.alloc_storage", (Arg("vm", None), imm(64))),
        Call(3, "vm.builtin.alloc_tensor", (reg(2), imm(0), reg(1), imm("float32"))),
        Call(None, "test.vm_fast.scale", (reg(0), reg(3))),
        Call(4, "vm.builtin.alloc_output", (Arg("vm", None), reg(1), imm("float32"))),
        Call(None, "test.vm_fast.add", (reg(3), reg(3), reg(4))),
        Ret(4),
    )
    vm = VirtualMachine(Executable({"main": VMFunction("main", ("x",), instrs, 5)}, constants=[]))
    np.testing.assert_array_equal(vm["main"](np.ones(3, "float32")).numpy(), [4, 4, 4])
    source = vm.source("main")
    assert "r2 = FR[0]" in source and "r3 = MT" in source and "r4 = FR" not in source


@rt.register_func("test.vm_fast.nbytes", override=True)
def _nbytes(shape):
    return (4 * shape[0],)


def test_run_time_sizes_use_memo_slots_of_the_frame():
    """A storage and a view of run-time size are kept in the frame and taken again while the
    size stays the same (a symbolic model called at one size allocates nothing new)."""
    instrs = (
        Call(1, "vm.builtin.shape_of", (reg(0),)),
        Call(5, "test.vm_fast.nbytes", (reg(1),)),
        Call(2, "vm.builtin.alloc_storage", (Arg("vm", None), reg(5), imm(0), imm("float32"))),
        Call(3, "vm.builtin.alloc_tensor", (reg(2), imm(0), reg(1), imm("float32"))),
        Call(None, "test.vm_fast.scale", (reg(0), reg(3))),
        Call(4, "vm.builtin.alloc_output", (Arg("vm", None), reg(1), imm("float32"))),
        Call(None, "test.vm_fast.add", (reg(3), reg(0), reg(4))),
        Ret(4),
    )
    pool = PooledAllocator()
    vm = VirtualMachine(Executable({"main": VMFunction("main", ("x",), instrs, 6)}, constants=[]), rt.cpu(),
                        allocator=pool)
    source = vm.source("main")
    assert "r2 = MS" in source and "r3 = MT" in source
    for n in (3, 3, 5, 3):
        x = np.arange(n, dtype="float32") + 1
        np.testing.assert_array_equal(vm["main"](x).numpy(), 3 * x)
    # 12 and 20 bytes allocated once each; the second call at 3 took the frame's storage, the
    # last one the pooled block the call at 5 gave back
    assert pool.stats.fresh_allocations == 2 and pool.stats.reused == 2


def test_an_overridden_builtin_is_called_not_inlined():
    original = rt.get_global_func("vm.builtin.alloc_output")
    calls = []

    def counting(vm, shape, dtype, device_index=0):
        calls.append(shape)
        return original(vm, shape, dtype, device_index)

    rt.register_func("vm.builtin.alloc_output", counting, override=True)
    try:
        vm = VirtualMachine(double_then_add())
        vm["main"](np.ones(4, "float32"))
    finally:
        rt.register_func("vm.builtin.alloc_output", original, override=True)
    assert calls == [(4,)]


def _native_kernels():
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime"))
    import native_kernels

    return native_kernels


def add_one_twice(const=None):
    """main(x: (4,) float32) = (x + 1) + 1 with the compiled add_one kernel; ``const`` (an
    NDArray) replaces the first kernel's input when given."""
    what = "main: argument 'x' (#1)"
    first_input = Arg("const", 0) if const is not None else reg(0)
    instrs = (
        Call(None, "vm.builtin.check_tensor_info", (reg(0), imm(1), imm("float32"), imm(what))),
        Call(None, "vm.builtin.match_shape", (reg(0), imm(0), imm(what), imm(0), imm(4), imm(""))),
        Call(1, "vm.builtin.alloc_storage", (Arg("vm", None), imm(16))),
        Call(2, "vm.builtin.alloc_tensor", (reg(1), imm(0), imm((4,)), imm("float32"))),
        Call(None, "add_one", (first_input, reg(2))),
        Call(3, "vm.builtin.alloc_output", (Arg("vm", None), imm((4,)), imm("float32"))),
        Call(None, "add_one", (reg(2), reg(3))),
        Ret(3),
    )
    kernels = rt.Module({"add_one": _native_kernels().add_one()})
    constants = [const] if const is not None else []
    return Executable({"main": VMFunction("main", ("x",), instrs, 4)}, constants=constants, kernels=kernels)


def test_kernels_on_known_tensors_are_called_natively():
    vm = VirtualMachine(add_one_twice())
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](x).numpy(), x + 2)
    np.testing.assert_array_equal(vm["main"](rt.array(x)).numpy(), x + 2)
    assert vm.source("main").count("._dltensor_addr") == 4  # both calls packed natively


def test_a_native_failure_is_explained_by_the_compiled_function():
    vm = VirtualMachine(add_one_twice(const=rt.array(np.zeros(4, "int32"))))
    with pytest.raises(rt.ArgumentError, match=r"add_one: argument 'A' \(#1\): expected dtype float32, got int32"):
        vm["main"](np.zeros(4, "float32"))


def test_square_shape_stores_then_compares_within_one_match():
    what = "argument x"
    instrs = (
        Call(1, "vm.builtin.alloc_shape_heap", (imm(1),)),
        Call(None, "vm.builtin.match_shape", (reg(0), reg(1), imm(what), imm(1), imm(0), imm("n"),
                                               imm(2), imm(0), imm("n"))),
        Call(2, "vm.builtin.make_shape", (reg(1), imm(2), imm(0))),
        Ret(2),
    )
    vm = VirtualMachine(Executable({"f": VMFunction("f", ("x",), instrs, 3)}, constants=[]))
    assert vm["f"](np.zeros((3, 3), "float32")) == (3,)
    with pytest.raises(rt.ArgumentError, match=r"argument x: expected shape\[1\] == n = 3 .*got 4"):
        vm["f"](np.zeros((3, 4), "float32"))
    with pytest.raises(rt.ArgumentError, match=r"argument x: expected 2 dimensions, got shape \(3,\)"):
        vm["f"](np.zeros(3, "float32"))
    assert vm["f"]((5, 5)) == (5,)  # a shape value matches too (the builtin handles it)
    source = vm.source("f")
    assert "r1 = [0] * 1" in source and "r1[0] = r0.shape[0]" in source and "((r1[0],))" in source
    assert type(vm["f"]((5, 5))) is rt.ShapeTuple  # shapes come back as ShapeTuple, as from the builtin


def test_heap_values_are_passed_to_kernels_natively():
    kernels = _native_kernels()
    params = [rt.ParamInfo("n", "int", "int64"), kernels.buffer("A", "float32", ("n",))]
    check_n = kernels.build("check_n", params, "  ret i32 0")
    instrs = (
        Call(1, "vm.builtin.alloc_shape_heap", (imm(2),)),
        Call(None, "vm.builtin.check_tensor_info", (reg(0), imm(1), imm("float32"), imm("x"))),
        Call(None, "vm.builtin.match_shape", (reg(0), reg(1), imm("x"), imm(1), imm(0), imm("n"))),
        Call(None, "vm.builtin.eval_shape", (reg(1), imm(1), imm("h[0] * 2"))),
        Call(2, "vm.builtin.load_shape_value", (reg(1), imm(0))),
        Call(None, "check_n", (reg(2), reg(0))),
        Call(3, "vm.builtin.load_shape_value", (reg(1), imm(1))),
        Ret(3),
    )
    exe = Executable({"f": VMFunction("f", ("x",), instrs, 4)}, constants=[], kernels=rt.Module({"check_n": check_n}))
    vm = VirtualMachine(exe)
    assert vm["f"](np.zeros(5, "float32")) == 10
    assert "r0._dltensor_addr" in vm.source("f") and "r1[1] = int(" in vm.source("f")


def test_a_reassigned_register_is_no_longer_a_known_tensor():
    # r1 first holds an output tensor, then a shape: the kernel call on r1 goes through the
    # CompiledFunction (which names the bad argument), not the native fast path
    instrs = (
        Call(1, "vm.builtin.alloc_output", (Arg("vm", None), imm((4,)), imm("float32"))),
        Call(1, "vm.builtin.shape_of", (reg(0),)),
        Call(2, "vm.builtin.alloc_output", (Arg("vm", None), imm((4,)), imm("float32"))),
        Call(None, "add_one", (reg(1), reg(2))),
        Ret(2),
    )
    kernels = rt.Module({"add_one": _native_kernels().add_one()})
    vm = VirtualMachine(Executable({"main": VMFunction("main", ("x",), instrs, 3)}, constants=[], kernels=kernels))
    with pytest.raises(rt.ArgumentTypeError, match=r"add_one: argument 'A' \(#1\): expected an array .*got tuple"):
        vm["main"](np.zeros(3, "float32"))
    assert "r1._dltensor_addr" not in vm.source("main")


def add_one_chain(steps: int, between: str | None = None, bad_const_at: int | None = None):
    """main(x: (4,) float32) = x + steps through ``steps`` add_one calls on planned tensors;
    ``between`` (a packed function name) is called on the running value after the second
    call; ``bad_const_at``: that call reads an int32 constant instead (its native check fails)."""
    what = "main: argument 'x' (#1)"
    instrs = [
        Call(None, "vm.builtin.check_tensor_info", (reg(0), imm(1), imm("float32"), imm(what))),
        Call(None, "vm.builtin.match_shape", (reg(0), imm(0), imm(what), imm(0), imm(4), imm(""))),
    ]
    value = 0
    for step in range(steps):
        storage, tensor = 2 * step + 1, 2 * step + 2
        instrs.append(Call(storage, "vm.builtin.alloc_storage", (Arg("vm", None), imm(16))))
        instrs.append(Call(tensor, "vm.builtin.alloc_tensor", (reg(storage), imm(0), imm((4,)), imm("float32"))))
        source = Arg("const", 0) if step == bad_const_at else reg(value)
        instrs.append(Call(None, "add_one", (source, reg(tensor))))
        value = tensor
        if step == 1 and between is not None:
            instrs.append(Call(None, between, (reg(value),)))
    out = 2 * steps + 1
    instrs += [Call(out, "vm.builtin.alloc_output", (Arg("vm", None), imm((4,)), imm("float32"))),
               Call(None, "add_one", (reg(value), reg(out))), Ret(out)]
    kernels = rt.Module({"add_one": _native_kernels().add_one()})
    constants = [rt.array(np.zeros(4, "int32"))] if bad_const_at is not None else []
    return Executable({"main": VMFunction("main", ("x",), tuple(instrs), out + 1)}, constants=constants,
                      kernels=kernels)


def test_consecutive_kernels_run_in_one_native_call():
    vm = VirtualMachine(add_one_chain(4))
    x = np.arange(4, dtype="float32")
    for _ in range(2):  # the second invocation reuses the frame and its packed args arrays
        np.testing.assert_array_equal(vm["main"](x).numpy(), x + 5)
    source = vm.source("main")
    assert source.count("RUN") == 1 and "(FR[" in source
    # only the calls touching the input or the fresh output pack their args per invocation
    assert source.count("._dltensor_addr") == 4


def test_a_call_between_kernels_sees_their_results_and_splits_the_run():
    seen = []
    rt.register_func("test.vm_fast.record", lambda a: seen.append(a.numpy().copy()), override=True)
    vm = VirtualMachine(add_one_chain(4, between="test.vm_fast.record"))
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](x).numpy(), x + 5)
    np.testing.assert_array_equal(seen[0], x + 2)  # both kernels before it had run
    assert vm.source("main").count("RUN") == 2


def test_a_failure_inside_a_run_is_explained_by_the_compiled_function():
    vm = VirtualMachine(add_one_chain(4, bad_const_at=2))
    assert "RUN" in vm.source("main")
    with pytest.raises(rt.ArgumentError, match=r"add_one: argument 'A' \(#1\): expected dtype float32, got int32"):
        vm["main"](np.zeros(4, "float32"))


def test_a_wrapped_entry_point_is_called_one_by_one():
    exe = add_one_chain(3)
    kernel = exe.kernels["add_one"]
    native, calls = kernel._fn, []

    def timed(args, n):  # as the profiling benchmarks wrap kernels
        calls.append(n)
        return native(args, n)

    kernel._fn = timed
    vm = VirtualMachine(exe)
    np.testing.assert_array_equal(vm["main"](np.zeros(4, "float32")).numpy(), np.full(4, 4, "float32"))
    assert calls == [2] * 4 and "RUN" not in vm.source("main")


def test_run_calls_of_nothing_succeeds():
    from ember.runtime.vm import native_runs

    run = native_runs.runner()
    assert run is not None  # llvmlite is a core dependency
    assert run(native_runs.entries_array([]), 0) == 0
