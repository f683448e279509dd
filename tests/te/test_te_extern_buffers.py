"""te.extern's default buffers, as TVM declares them: a symbolic elem_offset each, and
create_prim_func gives a parameter tensor its extern buffer, so the offset is bound from
the argument when the function is called."""

import numpy as np

import ember
from ember import te, tir
from ember.ir import Var
from ember.tir.stmt import BufferStore, For, ForKind


def _doubling_extern():
    A = te.placeholder((8,), name="A")

    def body(ins, outs):
        i = Var("i", "int32")
        return For(i, 0, 8, ForKind.SERIAL, BufferStore(outs[0], ins[0][i] * 2.0, (i,)))

    return A, te.extern((8,), [A], body, name="B")


def test_default_extern_buffers_have_an_offset_var():
    A, B = _doubling_extern()
    for buf in (*B.op.input_placeholders, *B.op.output_placeholders):
        assert isinstance(buf.elem_offset, Var) and buf.elem_offset.name == "elem_offset"
        assert buf.elem_offset.dtype == "int32"


def test_parameters_take_the_extern_buffers_and_run():
    A, B = _doubling_extern()
    func = te.create_prim_func([A, B])
    assert list(func.buffer_map.values()) == [B.op.input_placeholders[0], B.op.output_placeholders[0]]
    f = ember.build(func, target="llvm")
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, dtype="float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 2)


def test_explicit_buffers_are_kept():
    A = te.placeholder((4,), name="A")
    a_buf = tir.decl_buffer((4,), "float32", name="A", offset_factor=1)
    B = te.extern((4,), [A], lambda ins, outs: tir.call_extern("int32", "f", ins[0].data, outs[0].data),
                  in_buffers=[a_buf], name="B")
    assert B.op.input_placeholders[0] is a_buf and a_buf.elem_offset.name == "A_elem_offset"
