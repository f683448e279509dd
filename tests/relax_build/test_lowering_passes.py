"""CallTIRRewrite, VMShapeLower and the shape code generator, pass by pass."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import relax, te, tir, topi
from ember.ir import Op
from ember.relax import BlockBuilder
from ember.relax.transform import CallTIRRewrite, VMShapeLower
from ember.relax.transform.vm_shape_lower import prim_expr_to_python
from ember.runtime import ArgumentError


def bindings(func):
    return [b for block in func.body.blocks for b in block.bindings]


def op_name(value):
    op = getattr(value, "op", None)
    return op.name if isinstance(op, Op) else getattr(op, "name_hint", getattr(op, "global_symbol", None))


def _two_output_module():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2, 6], "float32"))
    with bb.function("main", [x]):
        parts = bb.emit_te(topi.split, x, 2, 1)
        bb.emit_func_output(parts)
    return bb.get()


def test_call_tir_becomes_alloc_and_dps_call():
    mod = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with mod.function("main", [x]):
        y = mod.emit_te(topi.nn.relu, x)
        mod.emit_func_output(y)
    out = CallTIRRewrite()(mod.get())
    b = bindings(out["main"])
    assert [op_name(v.value) for v in b] == ["relax.builtin.alloc_tensor", "relu"]
    assert b[0].var is y  # the result keeps its variable, now bound to the allocation
    assert list(b[1].value.args) == [x, y]
    assert [int(v) for v in b[0].value.args[0].values] == [4]
    assert CallTIRRewrite()(out) is out  # nothing left to rewrite


def test_several_outputs_are_allocated_then_tupled():
    out = CallTIRRewrite()(_two_output_module())
    b = bindings(out["main"])
    assert [op_name(v.value) for v in b[:3]] == ["relax.builtin.alloc_tensor"] * 2 + ["split"]
    assert isinstance(b[3].value, relax.Tuple) and len(b[3].value.fields) == 2
    vm = relax.VirtualMachine(relax.build(_two_output_module()), ember.cpu())
    x = np.arange(12, dtype="float32").reshape(2, 6)
    first, second = vm["main"](x)
    np.testing.assert_allclose(first.numpy(), x[:, :3])
    np.testing.assert_allclose(second.numpy(), x[:, 3:])


def test_call_tir_needs_a_known_output_shape():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [x]):
        call = bb.call_te(topi.nn.relu, x)
        y = bb.emit(relax.call_tir(call.args[0], [x], relax.TensorStructInfo(ndim=1, dtype="float32")))
        bb.emit_func_output(y)
    with pytest.raises(ValueError, match=r"call_tir\(relu\): output 0 needs a known shape and dtype"):
        CallTIRRewrite()(bb.get())


def test_shape_lowering_checks_parameters_first():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 2], "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(x)
    out = VMShapeLower()(bb.get())
    names = [b.value.op.global_symbol for b in bindings(out["main"])]
    assert names == ["vm.builtin.alloc_shape_heap", "vm.builtin.check_tensor_info", "vm.builtin.match_shape"]
    assert VMShapeLower()(out)["main"] is out["main"]  # already lowered


def test_undefined_symbolic_var_is_reported():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    with bb.function("main", [x]):
        call = bb.call_te(topi.nn.relu, x)
        y = bb.emit(relax.call_tir(call.args[0], [x], relax.TensorStructInfo([m], "float32")))
        bb.emit_func_output(y)
    with pytest.raises(ValueError, match="symbolic variable 'm' is used but no parameter shape or match_cast"):
        relax.build(bb.get())


def test_expression_dims_of_parameters_are_checked():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([n * 2], "float32"))
    with bb.function("main", [x, y]):
        z = bb.emit_te(lambda a, b: te.compute((n,), lambda i: a[i] + b[2 * i], name="f"), x, y)
        bb.emit_func_output(z)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np, y_np = np.ones(3, "float32"), np.arange(6, dtype="float32")
    np.testing.assert_allclose(vm["main"](x_np, y_np).numpy(), 1 + y_np[::2])
    with pytest.raises(ArgumentError, match=r"argument 'y' \(#2\): expected shape\[0\] == n \* .*= 6.*got 5"):
        vm["main"](x_np, np.ones(5, "float32"))


def test_match_cast_binds_new_symbolic_dims():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(ndim=2, dtype="float32"))
    with bb.function("main", [x]):
        xs = bb.match_cast(x, relax.TensorStructInfo([n, 3], "float32"))
        y = bb.emit_te(topi.nn.relu, xs)
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.random.default_rng(2).standard_normal((5, 3), dtype="float32")
    np.testing.assert_allclose(vm["main"](x_np).numpy(), np.maximum(x_np, 0))
    with pytest.raises(ArgumentError, match=r"main: match_cast of .*: expected shape\[1\] == 3, got 4"):
        vm["main"](np.ones((5, 4), "float32"))


_small = st.integers(min_value=-50, max_value=50)
_nonzero = _small.filter(lambda v: v != 0)


def _trunc(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@settings(max_examples=60, deadline=None)
@given(a=_small, b=_nonzero, c=_small)
def test_shape_code_matches_integer_semantics(a, b, c):
    """Generated Python: floor division/modulo for // and %, truncating for truncdiv/truncmod."""
    na, nb, nc = (tir.Var(v, "int64") for v in "abc")
    cases = [
        (na * 3 + nc, a * 3 + c), (na // nb, a // b), (na % nb, a % b),
        (tir.min(na, nc) - tir.max(nb, nc), min(a, c) - max(b, c)),
        (tir.truncdiv(na, nb), _trunc(a, b)), (tir.truncmod(na, nb), a - b * _trunc(a, b)),
        (tir.Select(na < nc, na, nb * 2), a if a < c else b * 2),
    ]
    slots = {na: 0, nb: 1, nc: 2}
    for expr, expected in cases:
        code = prim_expr_to_python(expr, slots.__getitem__)
        got = eval(compile(code, "<shape>", "eval"), {"__builtins__": {}}, {"h": [a, b, c]})  # noqa: S307
        assert got == expected, code


def test_call_tir_inplace_writes_into_its_input():
    from ember.script import tir as T

    @T.prim_func
    def add_one(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                a[vi] = a[vi] + T.float32(1)

    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    gv = bb.add_func(add_one, "add_one")
    with bb.function("main", [x]):
        y = bb.emit_te(topi.nn.relu, x)
        z = bb.emit(relax.op.call_tir_inplace(gv, [y], 0, y.struct_info))
        bb.emit_func_output(z)
    mod = bb.get()
    rewritten = CallTIRRewrite()(mod)["main"]
    assert [op_name(b.value) for b in bindings(rewritten)] == [
        "relax.builtin.alloc_tensor", "relu", "add_one", None]
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    x_np = np.array([-1, 0, 1, 2], "float32")
    np.testing.assert_allclose(vm["main"](x_np).numpy(), np.maximum(x_np, 0) + 1)


def test_each_lowering_step_is_well_formed():
    from relax_build_models import mlp_module

    from ember.relax.analysis import check_well_formed

    mod = mlp_module()
    for step in relax.get_pipeline("default_build").passes:
        mod = step(mod)
        assert all(f.attrs.get("relax.force_pure") for f in mod.functions.values()
                   if isinstance(f, relax.Function)) or step.info.name in ("CheckLegalized", "ToNonDataflow")
        try:
            check_well_formed(mod)
        except Exception as err:  # the checker may not honour relax.force_pure yet: only that is allowed
            lines = str(err).splitlines()[1:]
            assert lines and all("impure call" in line for line in lines), str(err)


def test_pipeline_arguments_of_build():
    from relax_build_models import relu_chain_module

    mod = relu_chain_module(length=2)
    lowered = relax.get_pipeline("default_build")(mod)
    x = np.linspace(-1, 1, 64, dtype="float32").reshape(8, 8)
    for exe in (relax.build(lowered, pipeline=None),
                relax.build(mod, relax_pipeline=relax.get_pipeline("zero")),
                relax.build(mod, pipeline=relax.get_pipeline("default_build"))):
        np.testing.assert_allclose(relax.VirtualMachine(exe, ember.cpu())["main"](x).numpy(), np.maximum(x, 0))
    with pytest.raises(ValueError, match="CallTIRRewrite"):
        relax.build(mod, pipeline=None)


def test_scalar_parameter_defines_a_symbolic_dim():
    m = tir.Var("m", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    k = relax.Var("k", relax.PrimStructInfo(value=m))
    with bb.function("main", [x, k]):
        out = bb.emit_te(lambda a: te.compute((m,), lambda i: a[i % 4], name="tile"), x)
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    x_np = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](x_np, 6).numpy(), np.resize(x_np, 6))
    with pytest.raises(ArgumentError, match=r"main: argument 'k' \(#2\): expected a int64 scalar, got float"):
        vm["main"](x_np, 2.5)


def test_shape_code_refuses_unsupported_expressions():
    n = tir.Var("n", "int64")
    with pytest.raises(NotImplementedError, match="VMShapeLower: cannot compute a Call on the VM"):
        prim_expr_to_python(tir.call_intrin("int64", "tir.popcount", n), {n: 0}.__getitem__)


def test_codegen_errors_name_the_missing_step():
    from ember.relax.backend.vm_codegen import CodegenError, codegen

    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [x]):
        y = bb.emit_te(topi.nn.relu, x)
        bb.emit_func_output(y)
    with pytest.raises(CodegenError, match=r"VM codegen of main: relax.call_tir is left; run relax.transform.CallTIRRewrite"):
        codegen(bb.get())
    inner_x = relax.Var("a", relax.TensorStructInfo([4], "float32"))
    inner = relax.Function([inner_x], inner_x)
    outer = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(relax.Var("f", inner.struct_info), inner)])], x))
    with pytest.raises(CodegenError, match="nested functions \\(closures\\) are not supported by the VM yet"):
        codegen(ember.IRModule({"main": outer}))


def test_only_called_kernels_are_compiled():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [x]):
        bb.call_te(topi.negative, x)  # added to the module, never called
        y = bb.emit_te(topi.nn.relu, x)
        bb.emit_func_output(y)
    mod = bb.get()
    assert "negative" in mod
    exe = relax.build(mod)
    assert exe.kernels.function_names == ["relu"]
