"""The Relax VM on hand-written executables: calls, shapes, jumps, memory reuse, errors."""

import numpy as np
import pytest

import ember.runtime as rt
from ember.runtime.vm import Arg, Call, Executable, Goto, If, PooledAllocator, Ret, VirtualMachine, VMFunction


def reg(i):
    return Arg("reg", i)


def imm(v):
    return Arg("imm", v)


@rt.register_func("test.vm.matmul", override=True)
def _matmul(a, b, out):
    out.copyfrom(a.numpy() @ b.numpy())


@rt.register_func("test.vm.relu", override=True)
def _relu(a, out):
    out.copyfrom(np.maximum(a.numpy(), 0))


def mlp_exe(n=4, k=3, m=2):
    # main(x, w): t = x @ w (planned storage); y = relu(t) (output); return y
    instrs = (
        Call(2, "vm.builtin.alloc_storage", (Arg("vm", None), imm(n * m * 4))),
        Call(3, "vm.builtin.alloc_tensor", (reg(2), imm(0), imm((n, m)), imm("float32"))),
        Call(None, "test.vm.matmul", (reg(0), reg(1), reg(3))),
        Call(4, "vm.builtin.alloc_output", (Arg("vm", None), imm((n, m)), imm("float32"))),
        Call(None, "test.vm.relu", (reg(3), reg(4))),
        Ret(4),
    )
    return Executable({"main": VMFunction("main", ("x", "w"), instrs, 5)}, constants=[])


def test_runs_and_matches_numpy():
    vm = VirtualMachine(mlp_exe(), rt.cpu(), allocator=PooledAllocator())
    x = np.random.randn(4, 3).astype("float32")
    w = np.random.randn(3, 2).astype("float32")
    y = vm["main"](rt.array(x), rt.array(w))
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ w, 0), rtol=1e-6)
    assert "F" in vm.source("main") and "return r4" in vm.source("main")


def test_second_call_allocates_no_intermediates():
    pool = PooledAllocator()
    vm = VirtualMachine(mlp_exe(), rt.cpu(), allocator=pool)
    x, w = rt.array(np.ones((4, 3), "float32")), rt.array(np.ones((3, 2), "float32"))
    vm["main"](x, w)
    first = pool.stats.fresh_allocations
    assert first == 1
    for _ in range(3):
        vm["main"](x, w)
    assert pool.stats.fresh_allocations == first
    assert pool.stats.reused == 3


def test_numpy_inputs_are_accepted():
    vm = VirtualMachine(mlp_exe(), rt.cpu())
    y = vm["main"](np.ones((4, 3), "float32"), np.ones((3, 2), "float32"))
    np.testing.assert_allclose(y.numpy(), np.full((4, 2), 3.0))


def test_argument_count_error():
    vm = VirtualMachine(mlp_exe(), rt.cpu())
    with pytest.raises(TypeError, match=r"main expects 2 arguments \(x, w\), got 1"):
        vm["main"](np.ones((4, 3), "float32"))


def test_unknown_function():
    vm = VirtualMachine(mlp_exe(), rt.cpu())
    with pytest.raises(KeyError, match="no function 'nope'.*main"):
        vm["nope"]


def test_shape_matching_with_symbolic_dims():
    # f(x, y): x: (n, 2), y: (n,) → returns the shape (n*2,)
    instrs = (
        Call(2, "vm.builtin.alloc_shape_heap", (imm(2),)),
        Call(None, "vm.builtin.check_tensor_info", (reg(0), imm(2), imm("float32"), imm("argument x"))),
        Call(None, "vm.builtin.match_shape", (reg(0), reg(2), imm("argument x"), imm(1), imm(0), imm("n"),
                                               imm(0), imm(2), imm(""))),
        Call(None, "vm.builtin.match_shape", (reg(1), reg(2), imm("argument y"), imm(2), imm(0), imm("n"))),
        Call(None, "vm.builtin.eval_shape", (reg(2), imm(1), imm("h[0] * 2"))),
        Call(3, "vm.builtin.make_shape", (reg(2), imm(2), imm(1))),
        Ret(3),
    )
    exe = Executable({"f": VMFunction("f", ("x", "y"), instrs, 4)}, constants=[])
    vm = VirtualMachine(exe)
    assert vm["f"](np.zeros((5, 2), "float32"), np.zeros(5, "float32")) == (10,)
    with pytest.raises(rt.ArgumentError, match=r"argument y: expected shape\[0\] == n = 5.*got 6"):
        vm["f"](np.zeros((5, 2), "float32"), np.zeros(6, "float32"))
    with pytest.raises(rt.ArgumentError, match=r"argument x: expected shape\[1\] == 2, got 3"):
        vm["f"](np.zeros((5, 3), "float32"), np.zeros(5, "float32"))
    with pytest.raises(rt.ArgumentError, match="argument x: expected dtype float32, got float64"):
        vm["f"](np.zeros((5, 2), "float64"), np.zeros(5, "float32"))
    with pytest.raises(rt.ArgumentError, match="argument x: expected a 2-d tensor, got ndim 1"):
        vm["f"](np.zeros(5, "float32"), np.zeros(5, "float32"))


def test_branches_and_calls_between_functions():
    # pick(c, a, b) = a if c else b ; main(c, a, b) = pick(c, a, b)
    pick = VMFunction("pick", ("c", "a", "b"), (
        If(0, 3),
        Call(3, "vm.builtin.copy", (reg(1),)),
        Goto(2),
        Call(3, "vm.builtin.copy", (reg(2),)),
        Ret(3),
    ), 4)
    main = VMFunction("main", ("c", "a", "b"), (Call(3, "pick", (reg(0), reg(1), reg(2))), Ret(3)), 4)
    vm = VirtualMachine(Executable({"pick": pick, "main": main}, constants=[]))
    assert vm["main"](1, "yes", "no") == "yes"
    assert vm["main"](0, "yes", "no") == "no"
    assert "interpreter" in vm.source("pick")


def test_tuples_and_constants():
    instrs = (
        Call(1, "vm.builtin.make_tuple", (reg(0), Arg("const", 0))),
        Call(2, "vm.builtin.tuple_getitem", (reg(1), imm(1))),
        Ret(2),
    )
    const = rt.array(np.arange(3, dtype="float32"))
    vm = VirtualMachine(Executable({"main": VMFunction("main", ("x",), instrs, 3)}, constants=[const]))
    assert vm["main"](rt.array(np.zeros(1, "float32"))) is const


def test_time_evaluator_and_listing():
    exe = mlp_exe()
    vm = VirtualMachine(exe)
    res = vm.time_evaluator("main", rt.cpu(), number=2, repeat=2)(
        np.ones((4, 3), "float32"), np.ones((3, 2), "float32"))
    assert len(res.results) == 2 and res.mean > 0
    assert "call test.vm.matmul(%0, %1, %3)" in exe.as_text()
    assert "1 VM functions" in exe.stats()


def test_profile_lists_calls_in_order_on_the_given_clock():
    ticks = iter(range(1000))
    vm = VirtualMachine(mlp_exe(), rt.cpu(), allocator=PooledAllocator())
    x, w = rt.array(np.ones((4, 3), "float32")), rt.array(np.ones((3, 2), "float32"))
    report = vm.profile("main", x, w, clock=lambda: float(next(ticks)))
    assert [c for c, _ in report.calls] == ["vm.builtin.alloc_storage", "vm.builtin.alloc_tensor", "test.vm.matmul",
                                           "vm.builtin.alloc_output", "test.vm.relu"]
    assert all(seconds == 1.0 for _, seconds in report.calls)  # one tick from start to end of each call
    assert report.total_seconds == 2 * len(report.calls) + 1
    assert {r.callee: r.seconds for r in report.rows}["test.vm.matmul"] == 1.0
