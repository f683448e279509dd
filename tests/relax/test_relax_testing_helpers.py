"""relax.testing: the test.vm.* packed functions, check_saved_func and the nn helpers."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.ir import assert_structural_equal
from ember.relax.testing import nn
from ember.relax.testing.vm import check_saved_func
from ember.script import ir as I, relax as R


def test_test_vm_functions():
    add = ember.get_global_func("test.vm.add")
    a = ember.nd.array(np.array([1.0, 2.0], "float32"))
    np.testing.assert_allclose(add(a, a).numpy(), [2.0, 4.0])
    dst = ember.nd.empty((2,), "float32")
    ember.get_global_func("test.vm.identity")(a, dst)
    np.testing.assert_allclose(dst.numpy(), a.numpy())
    assert bool(ember.get_global_func("test.vm.equal_zero")(ember.nd.array(np.zeros(2, "float32"))).numpy())
    assert ember.get_global_func("test.vm.add_scalar")(-3, 5) == 2


def test_check_saved_func_runs_both_ways():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
            return R.call_pure_packed("test.vm.add", x, y, sinfo_args=R.Tensor((2,), "float32"))

    vm = relax.VirtualMachine(relax.build(Mod, "llvm"), ember.cpu())
    x = ember.nd.array(np.array([1.0, 2.0], "float32"))
    np.testing.assert_allclose(check_saved_func(vm, "main", x, x).numpy(), [2.0, 4.0])


def test_nn_module_emits_into_the_current_builder():
    class Plus(nn.Module):
        def __init__(self):
            self.bias = nn.Parameter((4,), "float32", name="bias")

        def forward(self, value):
            return nn.emit(relax.op.add(value, self.bias))

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), bias: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            gv: R.Tensor((4,), "float32") = R.add(x, bias)
            return gv

    bb = relax.BlockBuilder()
    model = Plus()
    with bb.function("main"):
        x = nn.Placeholder((4,), "float32", name="x")
        bb.emit_func_output(model(x), [x] + model.parameters())
    assert_structural_equal(bb.get(), Expected)
    assert nn.Sequential(model, Plus()).parameters()[0] is model.bias


def test_nn_refusals():
    with pytest.raises(RuntimeError, match="needs an active BlockBuilder"):
        nn.emit(relax.const(1.0))

    class Sub(nn.Module):
        define_subroutine = True

        def forward(self, value):
            return value

    with pytest.raises(NotImplementedError, match="define_subroutine"):
        Sub()(relax.const(1.0))
