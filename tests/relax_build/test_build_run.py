"""relax.build + VirtualMachine end to end: numerics vs numpy, inputs, errors, control flow."""

import numpy as np
import pytest
from relax_build_models import mlp_module, mlp_reference, mlp_weights, relu_chain_module

import ember
from ember import relax, te, tir, topi
from ember.relax import BlockBuilder
from ember.runtime import ArgumentError


@pytest.mark.parametrize("batch", [1, 32])
def test_mlp_symbolic_batch(mlp_exe, batch):
    vm = relax.VirtualMachine(mlp_exe, ember.cpu())
    w1, b1, w2 = mlp_weights()
    x = np.random.default_rng(batch).standard_normal((batch, 16), dtype="float32")
    out = vm["main"](x, w1, b1, w2)
    assert out.shape == (batch, 10)
    np.testing.assert_allclose(out.numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)


def test_static_mlp_accepts_ndarray_numpy_and_torch():
    torch = pytest.importorskip("torch")
    exe = relax.build(mlp_module(batch=4), "llvm")
    vm = relax.VirtualMachine(exe, ember.cpu())
    w1, b1, w2 = mlp_weights()
    x = np.ones((4, 16), "float32")
    ref = mlp_reference(x, w1, b1, w2)
    out = vm["main"](ember.nd.array(x), torch.from_numpy(w1), b1, ember.runtime.tensor(w2))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_build_binds_params():
    w1, b1, w2 = mlp_weights()
    exe = relax.build(mlp_module(), target=ember.target.Target("llvm"), params={"w1": w1, "b1": b1, "w2": w2})
    vm = relax.VirtualMachine(exe, ember.cpu())
    x = np.full((3, 16), 0.5, "float32")
    np.testing.assert_allclose(vm["main"](x).numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)
    assert len(exe.constants) == 3


def test_bind_params_unknown_name():
    with pytest.raises(ValueError, match=r"BindParams: main has no parameters \['nope'\]"):
        relax.build(mlp_module(), params={"nope": np.zeros(3, "float32")})


# -- argument errors ------------------------------------------------------------------


def _add_module():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 4], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([n, 4], "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit_te(topi.add, x, y))
        bb.emit_func_output(out)
    return bb.get()


@pytest.fixture(scope="module")
def add_vm():
    return relax.VirtualMachine(relax.build(_add_module()), ember.cpu())


def test_add_runs(add_vm):
    a, b = np.ones((3, 4), "float32"), np.arange(12, dtype="float32").reshape(3, 4)
    np.testing.assert_allclose(add_vm["main"](a, b).numpy(), a + b)


@pytest.mark.parametrize("x, y, message", [
    (np.ones((3, 4, 1), "float32"), np.ones((3, 4), "float32"),
     r"main: argument 'x' \(#1\): expected a 2-d tensor, got ndim 3"),
    (np.ones((3, 4), "float64"), np.ones((3, 4), "float32"),
     r"main: argument 'x' \(#1\): expected dtype float32, got float64"),
    (np.ones((3, 5), "float32"), np.ones((3, 4), "float32"),
     r"main: argument 'x' \(#1\): expected shape\[1\] == 4, got 5"),
    (np.ones((3, 4), "float32"), np.ones((2, 4), "float32"),
     r"main: argument 'y' \(#2\): expected shape\[0\] == n = 3 .*got 2"),
    ([1, 2], np.ones((2, 4), "float32"), r"main: argument 'x' \(#1\): expected a tensor, got tuple"),
])
def test_argument_errors_name_the_parameter(add_vm, x, y, message):
    with pytest.raises(ArgumentError, match=message):
        add_vm["main"](x, y)


def test_argument_count_error(add_vm):
    with pytest.raises(TypeError, match=r"main expects 2 arguments \(x, y\), got 1"):
        add_vm["main"](np.ones((3, 4), "float32"))


# -- structure: tuples, constants, calls, control flow -------------------------------------


def test_tuple_in_and_tuple_out():
    bb = BlockBuilder()
    t = relax.Var("t", relax.TupleStructInfo([relax.TensorStructInfo([2, 3], "float32"),
                                              relax.TensorStructInfo([2, 3], "float32")]))
    with bb.function("main", [t]):
        a = bb.emit(relax.TupleGetItem(t, 0))
        b = bb.emit(relax.TupleGetItem(t, 1))
        s = bb.emit_te(topi.add, a, b)
        r = bb.emit_te(topi.nn.relu, s)
        bb.emit_func_output(relax.Tuple([s, r, a]))
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x, y = np.random.randn(2, 3).astype("float32"), np.random.randn(2, 3).astype("float32")
    s, r, a = vm["main"]((x, y))
    np.testing.assert_allclose(s.numpy(), x + y, rtol=1e-6)
    np.testing.assert_allclose(r.numpy(), np.maximum(x + y, 0), rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), x)
    with pytest.raises(ArgumentError, match=r"main: argument 't' \(#1\) field 1: expected dtype float32"):
        vm["main"]((x, y.astype("int32")))


def test_constants_go_to_the_pool():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    c = relax.const(np.arange(4, dtype="float32"))
    with bb.function("main", [x]):
        out = bb.emit_te(topi.multiply, x, c)
        bb.emit_func_output(out)
    exe = relax.build(bb.get())
    assert len(exe.constants) == 1
    out = relax.VirtualMachine(exe, ember.cpu())["main"](np.full(4, 2.0, "float32"))
    np.testing.assert_allclose(out.numpy(), 2.0 * np.arange(4))


def test_call_another_relax_function():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([5], "float32"))
    with bb.function("double", [x]):
        out = bb.emit_te(topi.add, x, x)
        bb.emit_func_output(out)
    double = bb.get().get_global_var("double")
    y = relax.Var("y", relax.TensorStructInfo([5], "float32"))
    with bb.function("main", [y]):
        d = bb.emit(relax.Call(double, [y]))
        out = bb.emit_te(topi.nn.relu, d)
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.array([-2, -1, 0, 1, 2], "float32")
    np.testing.assert_allclose(vm["main"](x_np).numpy(), np.maximum(2 * x_np, 0))
    np.testing.assert_allclose(vm["double"](x_np).numpy(), 2 * x_np)


def _if_module():
    bb = BlockBuilder()
    cond = relax.Var("cond", relax.TensorStructInfo([], "bool"))
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [cond, x]):
        then = bb.call_te(topi.nn.relu, x)
        other = bb.call_te(topi.negative, x)
        y = bb.emit(relax.If(cond, then, other))
        out = bb.emit_te(topi.add, y, y)
        bb.emit_func_output(out)
    return bb.get()


def test_relax_if():
    vm = relax.VirtualMachine(relax.build(_if_module()), ember.cpu())
    x = np.array([-1, 2, -3, 4], "float32")
    np.testing.assert_allclose(vm["main"](np.array(True), x).numpy(), 2 * np.maximum(x, 0))
    np.testing.assert_allclose(vm["main"](np.array(False), x).numpy(), -2 * x)


def test_tir_vars_and_shape_parameter():
    # out[i] = x[i % n] for i < m: m appears only in the output, so it is passed as a tir_var
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    s = relax.Var("s", relax.ShapeStructInfo([m]))
    with bb.function("main", [x, s]):
        out = bb.emit_te(lambda a: te.compute((m,), lambda i: a[i % n], name="tile"), x)
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.array([1, 2, 3], "float32")
    np.testing.assert_allclose(vm["main"](x_np, (7,)).numpy(), np.resize(x_np, 7))


def test_time_evaluator(mlp_exe):
    vm = relax.VirtualMachine(mlp_exe, ember.cpu())
    w1, b1, w2 = mlp_weights()
    result = vm.time_evaluator("main", ember.cpu(), number=2, repeat=2)(np.ones((2, 16), "float32"), w1, b1, w2)
    assert result.mean > 0 and len(result.results) == 2


def test_high_level_ops_are_listed():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.add(x, x))
            b = bb.emit(relax.op.nn.relu(a))
            out = bb.emit_output(relax.op.add(b, a))
        bb.emit_func_output(out)
    with pytest.raises(ValueError, match=r"relax\.add \(x2\), relax\.nn\.relu \(x1\).*get_pipeline\('zero'\)"):
        relax.build(bb.get(), relax_pipeline=None)  # the default would legalize them


def test_as_text_lists_kernel_calls(mlp_exe):
    text = mlp_exe.as_text()
    assert "vm.builtin.match_shape" in text and "call dense(" in text and "vm.builtin.alloc_output" in text


def test_pipelines_by_name():
    assert relax.get_pipeline("zero") is not None
    with pytest.raises(ValueError, match="unknown pipeline 'fast'.*default_build"):
        relax.get_pipeline("fast")


def test_chain_runs_twice_with_same_result():
    vm = relax.VirtualMachine(relax.build(relu_chain_module()), ember.cpu())
    x = np.random.randn(8, 8).astype("float32")
    first = vm["main"](x)
    second = vm["main"](-x)
    np.testing.assert_allclose(first.numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(second.numpy(), np.maximum(-x, 0))


def test_tvmscript_module_builds():
    from ember.script import ir as I
    from ember.script import relax as R
    from ember.script import tir as T

    @I.ir_module
    class Module:
        @T.prim_func
        def relu(var_x: T.handle, var_y: T.handle):
            n = T.int64()
            x = T.match_buffer(var_x, (n, 4), "float32")
            y = T.match_buffer(var_y, (n, 4), "float32")
            for i, j in T.grid(n, 4):
                with T.block("relu"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    y[vi, vj] = T.max(x[vi, vj], T.float32(0))

        @R.function
        def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
            n = T.int64()
            with R.dataflow():
                lv = R.call_tir(Module.relu, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
                lv1 = R.call_tir(Module.relu, (lv,), out_sinfo=R.Tensor((n, 4), "float32"))
                R.output(lv1)
            return lv1

    exe = relax.build(Module, target="llvm")
    vm = relax.VirtualMachine(exe, ember.cpu())
    x = np.random.default_rng(3).standard_normal((3, 4), dtype="float32")
    np.testing.assert_allclose(vm["main"](ember.nd.array(x)).numpy(), np.maximum(x, 0))
    assert "1 storages, 0 bytes + 1 of symbolic size" in str(exe.memory_plans["main"])


def test_zero_pipeline_lists_its_passes_in_order():
    names = [p.info.name for p in relax.get_pipeline("zero").passes]
    assert names[0] == "Normalize"
    # graph rewrites before legalization, then TIR-level fusion, then an entered tuning database
    order = ["FuseTransposeMatmul", "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR",
             "MetaScheduleApplyDatabase"]
    assert [n for n in names if n in order] == order


def test_bind_params_pass_by_var():
    mod = mlp_module(batch=2)
    w1, b1, w2 = mlp_weights()
    w1_var = mod["main"].params[1]
    bound = relax.transform.BindParams("main", {w1_var: w1, "b1": b1})(mod)
    assert [p.name_hint for p in bound["main"].params] == ["x", "w2"]
    vm = relax.VirtualMachine(relax.build(bound), ember.cpu())
    x = np.ones((2, 16), "float32")
    np.testing.assert_allclose(vm["main"](x, w2).numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)


def test_cuda_executables_refuse_a_cpu_vm_clearly():
    exe = relax.build(mlp_module(), "cuda")  # kernels scheduled by dlight.gpu (tests/relax_cuda has more)
    with pytest.raises(ValueError, match="kernels were built for cuda, but the VM was asked to run on cpu"):
        relax.VirtualMachine(exe, ember.cpu())


def test_ember_compile_dispatches_on_the_module():
    exe = ember.compile(relu_chain_module(length=1), target="llvm")
    assert isinstance(exe, relax.Executable)
    x = np.linspace(-1, 1, 64, dtype="float32").reshape(8, 8)
    np.testing.assert_allclose(relax.VirtualMachine(exe, ember.cpu())["main"](x).numpy(), np.maximum(x, 0))
    a = te.placeholder((4,), "float32", name="a")
    b = te.compute((4,), lambda i: a[i] * 2, name="b")
    kernels = ember.compile(ember.IRModule({"double": te.create_prim_func([a, b]).with_attr("global_symbol", "double")}), target="llvm")
    out = ember.nd.empty((4,), "float32")
    kernels["double"](np.ones(4, "float32"), out)
    np.testing.assert_allclose(out.numpy(), 2)


def test_profile_groups_time_by_callee(mlp_exe):
    vm = relax.VirtualMachine(mlp_exe, ember.cpu())
    w1, b1, w2 = mlp_weights()
    report = vm.profile("main", np.ones((2, 16), "float32"), w1, b1, w2)
    callees = {r.callee: r.calls for r in report.rows}
    assert callees["add"] == 1 and callees["vm.builtin.match_shape"] == 4
    assert report.total_seconds >= sum(r.seconds for r in report.rows)
    assert str(report).startswith("profile of main:") and "relu" in str(report)
    with pytest.raises(TypeError, match=r"main expects 4 arguments"):
        vm.profile("main", np.ones((2, 16), "float32"))


def test_if_on_a_symbolic_condition():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.If(relax.PrimValue(n > 2), bb.call_te(topi.nn.relu, x), bb.call_te(topi.negative, x)))
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    long, short = np.array([-1, 2, -3], "float32"), np.array([-1, 2], "float32")
    np.testing.assert_allclose(vm["main"](long).numpy(), np.maximum(long, 0))
    np.testing.assert_allclose(vm["main"](short).numpy(), -short)


def test_bind_params_fixes_symbolic_dims_and_checks_shapes():
    k = tir.Var("k", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2, k], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([k], "float32"))
    with bb.function("main", [x, w]):
        y = bb.emit_te(topi.add, x, w)
        bb.emit_func_output(y)
    mod = bb.get()
    bound = relax.transform.BindParams("main", {"w": np.arange(3, dtype="float32")})(mod)
    assert [int(d) for d in relax.struct_info.shape_values(bound["main"].params[0].struct_info)] == [2, 3]
    vm = relax.VirtualMachine(relax.build(bound), ember.cpu())
    np.testing.assert_allclose(vm["main"](np.ones((2, 3), "float32")).numpy(), 1 + np.arange(3)[None].repeat(2, 0))
    with pytest.raises(ValueError, match="BindParams: main parameter 'w' has dtype float32, the bound array int64"):
        relax.transform.BindParams("main", {"w": np.arange(3)})(mod)
    with pytest.raises(ValueError, match=r"parameter 'x' has shape\[0\] == 2, the bound array 5"):
        relax.transform.BindParams("main", {"x": np.zeros((5, 3), "float32")})(mod)


def test_stateful_calls(mlp_exe):
    vm = relax.VirtualMachine(mlp_exe, ember.cpu())
    w1, b1, w2 = mlp_weights()
    x = np.ones((2, 16), "float32")
    vm.set_input("main", x, w1, b1=b1, w2=w2)
    vm.invoke_stateful("main")
    np.testing.assert_allclose(vm.get_outputs("main").numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)


def test_build_legalizes_high_level_ops_itself_by_default():
    # TVM's relax.build(mod, target) runs the target's default graph passes first
    from ember.relax import op as R

    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    func = relax.Function([x], R.nn.relu(R.add(x, x)), relax.TensorStructInfo((2, 3), "float32"))
    vm = relax.VirtualMachine(relax.build(ember.ir.IRModule.from_expr(func), "llvm"), ember.cpu())
    data = np.array([[-1, 2, -3], [4, -5, 6]], "float32")
    np.testing.assert_allclose(vm["main"](data).numpy(), np.maximum(data + data, 0))
