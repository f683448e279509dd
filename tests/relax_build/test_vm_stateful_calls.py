"""The VM's stateful calls (set_input / invoke_stateful / get_outputs), save_function,
time_evaluator on them, return-value checks and shapes returned as ShapeTuple."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.runtime import ShapeTuple
from ember.script import ir as I, relax as R, tir as T

import ember.relax.testing.vm  # noqa: F401 - registers test.vm.*


@I.ir_module
class MulModule:
    @T.prim_func
    def mul(a: T.Buffer((4, 4), "float32"), b: T.Buffer((4, 4), "float32"), c: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[vi, vj] * b[vi, vj]

    @R.function
    def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        cls = MulModule
        gv = R.call_tir(cls.mul, (x, w), R.Tensor((4, 4), dtype="float32"))
        return gv


@pytest.fixture(scope="module")
def mul_vm():
    return relax.VirtualMachine(relax.build(MulModule, "llvm"), ember.cpu())


def _inputs():
    rng = np.random.default_rng(0)
    return [ember.nd.array(rng.random((4, 4), dtype="float32")) for _ in range(2)]


def test_set_input_by_position_and_name(mul_vm):
    a, b = _inputs()
    mul_vm.set_input("main", a, b)
    mul_vm.invoke_stateful("main")
    np.testing.assert_allclose(mul_vm.get_outputs("main").numpy(), a.numpy() * b.numpy())
    mul_vm.set_input("main", w=b, x=a)
    mul_vm.invoke_stateful("main")
    np.testing.assert_allclose(mul_vm.get_outputs("main").numpy(), a.numpy() * b.numpy())


def test_stateful_call_errors():
    vm = relax.VirtualMachine(relax.build(MulModule, "llvm"), ember.cpu())
    with pytest.raises(ValueError, match="no inputs were set"):
        vm.invoke_stateful("main")
    a, b = _inputs()
    with pytest.raises(TypeError, match="missing \\['w'\\]"):
        vm.set_input("main", x=a)
    vm.set_input("main", a, b)
    with pytest.raises(ValueError, match="no outputs"):
        vm.get_outputs("main")
    with pytest.raises(RuntimeError, match="inputs were set with set_input"):
        vm["main"](a, b)


def test_save_function_and_time_evaluator(mul_vm):
    a, b = _inputs()
    mul_vm.save_function("main", "saved", w=b, x=a)
    np.testing.assert_allclose(mul_vm["saved"]().numpy(), a.numpy() * b.numpy())
    mul_vm.save_function("main", "saved_no_ret", a, b, include_return=False)
    assert mul_vm["saved_no_ret"]() is None
    assert len(mul_vm.time_evaluator("saved", ember.cpu(), number=1)().results) == 1
    mul_vm.set_input("main", a, b)
    assert mul_vm.time_evaluator("invoke_stateful", ember.cpu(), number=1)("main").results


def test_return_value_is_checked():
    @I.ir_module
    class Mod:
        @R.function
        def foo(x: R.Tensor(["n", "m"], "int32"), y: R.Object) -> R.Tensor(["m", "n"], dtype=None):
            return y

    vm = relax.VirtualMachine(relax.build(Mod, "llvm"), ember.cpu())
    x = ember.nd.array(np.zeros((1, 2), "int32"))
    vm["foo"](x, ember.nd.array(np.zeros((2, 1), "float32")))
    with pytest.raises(RuntimeError, match="foo: return value: expected shape\\[0\\] == m = 2"):
        vm["foo"](x, ember.nd.array(np.zeros((1, 2), "float32")))
    with pytest.raises(ValueError, match="return value: expected a 2-d tensor"):
        vm["foo"](x, ember.nd.array(np.zeros((2, 1, 1), "float32")))


def test_expression_dim_before_its_defining_parameter():
    @I.ir_module
    class Mod:
        @R.function
        def main(_n: R.Prim(value="n"), _shape: R.Shape(["n*2", "m*2"]), _m: R.Prim(value="m")):
            n = T.int64()
            m = T.int64()
            return R.shape([n * n, m + 1])

    func = relax.VirtualMachine(relax.build(Mod, "llvm"), ember.cpu())["main"]
    result = func(2, ShapeTuple([4, 12]), 6)
    assert type(result) is ShapeTuple and result == [4, 7] and result == (4, 7)
    with pytest.raises(RuntimeError, match="expected shape\\[1\\] == m \\* .* = 2"):
        func(2, ShapeTuple([4, 12]), 1)
    with pytest.raises(TypeError, match="main expects 3 arguments"):
        func(ShapeTuple([2]))


def test_wrong_argument_kind_is_a_type_error():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Prim(value="n")):
            n = T.int64()
            return R.prim_value(n * n)

    func = relax.VirtualMachine(relax.build(Mod, "llvm"), ember.cpu())["main"]
    assert func(3) == 9
    with pytest.raises(TypeError, match="expected a int64 scalar, got tuple"):
        func(ShapeTuple([2]))
    with pytest.raises(ember.TVMError):  # argument errors are TVMErrors too
        func(ShapeTuple([2]))
