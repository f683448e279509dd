"""ComputePrimValue: symbolic R.prim_value expressions become calls of host kernels."""

from ember import relax, tir
from ember.script import ir as I, relax as R, tir as T


def test_symbolic_product_becomes_a_kernel_call():
    @I.ir_module
    class Mod:
        @R.function
        def main(_n: R.Prim(value="n"), _m: R.Prim(value="m")):
            n = T.int64()
            m = T.int64()
            out = R.prim_value(n * m)
            return out

    out = relax.transform.ComputePrimValue()(Mod)
    kernel = out["compute_symbolic_expr"]
    assert isinstance(kernel, tir.PrimFunc) and kernel.attrs["tir.is_host_func"]
    assert str(kernel.ret_type) == "int64" and len(kernel.params) == 2
    call = out["main"].body.blocks[0].bindings[0].value
    assert call.op.name_hint == "compute_symbolic_expr"
    assert isinstance(call.struct_info, relax.PrimStructInfo)


def test_plain_values_stay():
    @I.ir_module
    class Mod:
        @R.function
        def main(_n: R.Prim(value="n")):
            n = T.int64()
            a = R.prim_value(n)
            b = R.prim_value(T.int64(3))
            return (a, b)

    assert relax.transform.ComputePrimValue()(Mod) is Mod
