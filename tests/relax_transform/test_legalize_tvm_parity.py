"""LegalizeOps produces what TVM's legalization produces (kernel names, folded constants,
symbolic vars bound by output buffers) and stays numerically right."""

import numpy as np

import ember
from ember import relax, tir
from ember.relax.transform import LegalizeOps
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T


def _run(mod, *args):
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    return vm["main"](*[ember.nd.array(a) for a in args]).numpy()


def _kernel_names(mod):
    return sorted(gv.name_hint for gv in mod.functions if gv.name_hint != "main")


def test_unary_kernels_are_named_tir_op():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            gv = R.sqrt(R.exp(x))
            return gv

    legal = LegalizeOps()(Mod)
    assert _kernel_names(legal) == ["tir_exp", "tir_sqrt"]
    a = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(_run(legal, a), np.sqrt(np.exp(a)), rtol=1e-5)


def test_kernels_take_the_topi_function_names():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            a = R.permute_dims(x)
            b = R.concat((x, x), axis=0)
            c = R.astype(x, "int32")
            d = R.zeros_like(x)
            return (a, b, c, d)

    assert _kernel_names(LegalizeOps()(Mod)) == ["cast", "concatenate", "transpose", "zeros"]


def test_integer_rounding_is_identity():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "int32")):
            gv = R.floor(R.ceil(x))
            return gv

    a = np.array([-3, 0, 5, 7], "int32")
    np.testing.assert_array_equal(_run(LegalizeOps()(Mod), a), a)


def test_constant_arange_and_scalar_astype_fold_to_constants():
    @I.ir_module
    class Mod:
        @R.function
        def main():
            a = R.arange(1, 10, 2)
            b = R.astype(R.const(-1.5, "float32"), "int32")
            return (a, b)

    legal = LegalizeOps()(Mod)
    assert _kernel_names(legal) == []
    a, b = (binding.value for binding in legal["main"].body.blocks[0].bindings)
    np.testing.assert_array_equal(a.numpy(), np.arange(1, 10, 2))
    assert a.numpy().dtype == np.int64 and b.numpy() == -1 and b.numpy().dtype == np.int32


def test_float_fill_of_an_integer_full_truncates():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "int32")):
            gv = R.add(x, R.full((2, 3), R.const(3.5, "float32"), dtype="int32"))
            return gv

    a = np.arange(6, dtype="int32").reshape(2, 3)
    np.testing.assert_array_equal(_run(LegalizeOps()(Mod), a), a + 3)


def test_output_dims_bind_their_vars_without_tir_vars():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(("m", "n"), "float32"), v: R.Tensor((), "float32")):
            m, n = T.int64(), T.int64()
            gv = R.full((m, n), v, dtype="float32")
            return gv

    legal = LegalizeOps()(Mod)
    call = legal["main"].body.blocks[0].bindings[0].value
    assert len(call.args) == 2  # (kernel, inputs): no tir_vars
    full = legal["full"]
    assert [p.dtype for p in full.params] == ["handle", "handle"]


def test_symbolic_arange_passes_the_var_used_inside_a_dim():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            gv = R.arange(1, R.prim_value(n), 2)
            return gv

    legal = LegalizeOps()(Mod)
    call = legal["main"].body.blocks[0].bindings[0].value
    assert isinstance(call.args[2], relax.ShapeExpr) and isinstance(call.args[2].values[0], tir.Var)
    out = _run(legal, np.zeros(9, "float32"))
    np.testing.assert_array_equal(out, np.arange(1, 9, 2)[:9 // 2])
