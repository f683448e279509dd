"""Registered packed functions called from Relax: call_dps_packed, call_pure_packed, extern."""

import numpy as np
import pytest

import ember
from ember import relax, topi
from ember.relax import BlockBuilder

torch = pytest.importorskip("torch")
SEEN = {}


@ember.register_func("test.relax_build.torch_gelu", override=True)
def _torch_gelu(x, out):
    # zero-copy views of the VM's arrays, both ways
    tx, tout = torch.from_dlpack(x), torch.from_dlpack(out)
    SEEN["same_memory"] = (tx.data_ptr() == x.data_ptr, tout.data_ptr() == out.data_ptr,
                           np.from_dlpack(x).ctypes.data == x.data_ptr)
    SEEN["types"] = (type(x).__name__, type(out).__name__)
    tout.copy_(torch.nn.functional.gelu(tx))


@ember.register_func("test.relax_build.numpy_square", override=True)
def _numpy_square(x):
    return ember.nd.array(np.from_dlpack(x) ** 2)


def _gelu_module():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4, 8], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit_te(topi.nn.relu, x)
            g = bb.emit(relax.call_dps_packed("test.relax_build.torch_gelu", [h],
                                              relax.TensorStructInfo([4, 8], "float32")))
            out = bb.emit_output(bb.emit_te(topi.add, g, x))
        bb.emit_func_output(out)
    return bb.get()


def test_call_dps_packed_into_pytorch():
    vm = relax.VirtualMachine(relax.build(_gelu_module()), ember.cpu())
    x = np.random.default_rng(0).standard_normal((4, 8), dtype="float32")
    out = vm["main"](x)
    ref = torch.nn.functional.gelu(torch.relu(torch.from_numpy(x))).numpy() + x
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert SEEN["same_memory"] == (True, True, True)
    assert SEEN["types"] == ("NDArray", "NDArray")


def test_call_pure_packed_returns_a_value():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([3], "float32"))
    with bb.function("main", [x]):
        sq = bb.emit(relax.call_pure_packed("test.relax_build.numpy_square", x, sinfo_args=x.struct_info))
        out = bb.emit_te(topi.add, sq, x)
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.array([1, 2, 3], "float32")
    np.testing.assert_allclose(vm["main"](x_np).numpy(), x_np**2 + x_np)


def test_extern_call():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([3], "float32"))
    with bb.function("main", [x]):
        sq = bb.emit(relax.Call(relax.extern("test.relax_build.numpy_square"), [x], sinfo_args=[x.struct_info]))
        bb.emit_func_output(sq)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    np.testing.assert_allclose(vm["main"](np.array([1, 2, 3], "float32")).numpy(), [1, 4, 9])


def test_unknown_packed_function_is_reported():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([3], "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.call_dps_packed("test.relax_build.no_such_func", [x], x.struct_info))
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    with pytest.raises(ValueError, match="no global function named 'test.relax_build.no_such_func'"):
        vm["main"](np.zeros(3, "float32"))


@ember.register_func("test.relax_build.with_vm", override=True)
def _with_vm(vm, x):
    SEEN["vm"] = type(vm).__name__
    return x


def test_runtime_ops_print_assert_ctx_and_closures(capsys):
    bb = BlockBuilder()
    a = relax.Var("a", relax.TensorStructInfo([2], "float32"))
    b = relax.Var("b", relax.TensorStructInfo([2], "float32"))
    with bb.function("add2", [a, b]):
        bb.emit_func_output(bb.emit_te(topi.add, a, b))
    add2 = bb.get().get_global_var("add2")
    x = relax.Var("x", relax.TensorStructInfo([2], "float32"))
    flag = relax.Var("flag", relax.TensorStructInfo([], "bool"))
    with bb.function("main", [x, flag], pure=False):
        bb.emit(relax.op.print(x, format="x = {}"))
        bb.emit(relax.op.assert_op(flag, [x], format="flag is false for {}"))
        kept = bb.emit(relax.op.builtin.stop_lift_params(x))
        same = bb.emit(relax.op.call_builtin_with_ctx("test.relax_build.with_vm", [kept],
                                                      sinfo_args=x.struct_info))
        clo = bb.emit(relax.op.make_closure(add2, [same]))
        out = bb.emit(relax.op.invoke_closure(clo, [x], sinfo_args=x.struct_info))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.array([1.5, -2], "float32")
    np.testing.assert_allclose(vm["main"](x_np, np.array(True)).numpy(), 2 * x_np)
    assert "x = [ 1.5 -2. ]" in capsys.readouterr().out
    assert SEEN["vm"] == "VirtualMachine"
    with pytest.raises(AssertionError, match=r"flag is false for \[ 1.5 -2. \]"):
        vm["main"](x_np, np.array(False))
