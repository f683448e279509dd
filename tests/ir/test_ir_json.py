"""ir.save_json / load_json round trips: TIR, te tensors, Relax modules with constants."""

import numpy as np
import pytest

from ember import ir, relax, te, tir
from ember.ir import load_json, save_json, structural_equal
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T


@T.prim_func
def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.add(x, R.const(np.ones((2, 3), "float32")))
        return y


def test_prim_expr_round_trip_keeps_shared_vars():
    x = tir.Var("x", "int32")
    e = x * 2 + x
    back = load_json(save_json(e))
    assert structural_equal(back, e)
    assert back.a.a is back.b  # one variable, not two copies


def test_prim_func_round_trip():
    assert structural_equal(load_json(save_json(add_one)), add_one)


def test_relax_module_round_trip_with_constant():
    back = load_json(save_json(Mod))
    assert isinstance(back, ir.IRModule)
    assert structural_equal(back, Mod)
    const = back["main"].body.blocks[0].bindings[0].value.args[1]
    np.testing.assert_array_equal(const.data.numpy(), np.ones((2, 3), "float32"))


def test_te_tensor_attrs_round_trip():
    A = te.placeholder((4,), name="A")
    C = te.compute((4,), lambda i: A[i] * 2, attrs={"hello": 1, "arr": [10, 12]})
    back = load_json(save_json(C))
    assert back.op.attrs["hello"] == 1 and list(back.op.attrs["arr"]) == [10, 12]


def test_load_json_rejects_other_documents():
    with pytest.raises(ValueError, match="not an ember IR document"):
        load_json('{"a": 1}')
    with pytest.raises(ValueError, match="not JSON"):
        load_json("{")


def test_save_json_names_what_it_cannot_serialise():
    with pytest.raises(TypeError, match="object"):
        save_json(object())


def test_relax_const_struct_info_survives():
    c = relax.const(np.arange(3, dtype="int32"))
    assert structural_equal(load_json(save_json(c)).struct_info, c.struct_info)
