"""TIR expression rules TVM code relies on: bitwise ops and shifts (folded, checked), casts to
vectors and of constants, numpy scalars as constants, all/any and if_then_else folding, typed
handles (PrimType / PointerType), uint1 as bool, int with uint of one width promoting to uint."""

import numpy as np
import pytest

from ember import te, tir
from ember.error import TVMError
from ember.ir import DataType, PointerType, PrimType, structural_equal


def test_bitwise_operators_fold_constants_and_accept_numbers_on_the_left():
    x = te.var("x")
    assert str(10 ^ x) == "T.bitwise_xor(10, x)" and str(10 << x) == "T.shift_left(10, x)"
    assert str(10 >> x) == "T.shift_right(10, x)"
    a, b = tir.const(112, "int32"), tir.const(138, "int32")
    assert (a & b).value == 112 & 138 and ((a | b) ^ 10).value == (112 | 138) ^ 10
    assert (~tir.const(5, "int8")).value == ~5
    assert (tir.const(1, "int8x2") >> 1).dtype == "int8x2"


def test_bitwise_refuses_floats_and_constant_shifts_out_of_range():
    f = tir.const(1.5, "float32")
    for op in (lambda: f << 1, lambda: f | 1, lambda: ~f):
        with pytest.raises(TVMError, match="integer"):
            op()
    x = te.var("x")
    with pytest.raises(TVMError, match="shift amount 32"):
        x << 32
    with pytest.raises(TVMError, match="shift amount -1"):
        x >> -1
    assert str(x << 31) == "T.shift_left(x, 31)"


def test_astype_broadcasts_scalars_folds_constants_and_refuses_handles():
    x = te.var("x", "float32")
    v = x.astype("float32x4")
    assert isinstance(v, tir.Broadcast) and v.lanes == 4 and v.value is x
    assert isinstance(tir.const(3.7, "float32").astype("int32"), tir.IntImm)
    assert tir.const(3.7, "float32").astype("int32").value == 3
    with pytest.raises(TVMError, match="Can't cast a handle"):
        tir.StringImm("s").astype("int32")


def test_string_imm_compares_with_text():
    s = tir.StringImm("a")
    assert s == "a" and not (s != "a") and s == tir.StringImm("a") and s != "b"


def test_numpy_scalars_keep_their_dtype():
    for v in (np.uint8(1), np.int16(1), np.float16(1), np.float64(1), np.uint64(1)):
        assert tir.const(v).dtype == str(np.asarray(v).dtype)


def test_all_any_need_bool_and_fold_constants():
    x = te.var("x", "bool")
    t, f = tir.const(True), tir.const(False)
    assert tir.all(x, t) is x and tir.all(t, x) is x and tir.all(x, f) is f
    assert tir.any(x, f) is x and tir.any(x, t) is t
    with pytest.raises(ValueError):
        tir.all()
    with pytest.raises(TVMError, match="bool"):
        tir.any(t, te.var("i"))


def test_if_then_else_constant_condition_and_int_condition():
    a, b = te.var("a", "int32"), te.var("b", "float32")
    assert structural_equal(tir.if_then_else(True, a, b), a.astype("float32"))
    assert tir.if_then_else(False, a, b) is b
    with pytest.raises(TVMError, match="bool condition"):
        tir.if_then_else(te.var("c"), a, b)


def test_rounding_intrinsics_fold_on_constants():
    assert tir.ceil(tir.const(3.55, "float32")).value == 4.0
    assert tir.round(tir.const(2.5, "float32")).value == 2.0  # halves to even
    y = (tir.round((tir.const(6.5, "float32") - 1) / 1.5) + 2).astype("int32")
    assert isinstance(y, tir.IntImm) and y.value == 6


def test_typed_handles():
    ptype = PointerType(PrimType("float32"), "shared")
    v = tir.Var("p", ptype)
    assert v.dtype == "handle" and v.type_annotation is ptype
    assert isinstance(ptype.element_type, PrimType) and ptype.element_type.dtype == "float32"
    assert ptype.storage_scope == "shared"
    assert PointerType(PrimType("int8"), "").storage_scope == "global"
    assert te.var("q", ptype).type_annotation is ptype


def test_dtype_rules():
    assert DataType("uint1") is DataType("bool")
    assert DataType("int4").bits == 4
    lhs, rhs = te.var("l", "int32"), te.var("r", "uint32")
    assert (lhs + rhs).dtype == "uint32"
    assert (te.var("a", "uint32") + te.var("b", "int8")).dtype == "uint32"


def test_primfunc_takes_buffers_as_params():
    x = te.var("x")
    b = tir.decl_buffer((x,), "float32")
    func = tir.PrimFunc([x, b], tir.Evaluate(x))
    assert func.params[0] is x and func.params[1].dtype == "handle"
    assert func.buffer_map[func.params[1]] is b


def test_buffer_realize_and_builtins():
    b = tir.decl_buffer((4,), "float32")
    s = tir.BufferRealize(b, [tir.Range(0, 4)], True, tir.Evaluate(0))
    assert s.condition.value == 1 and len(s.bounds) == 1
    h = tir.Var("h", "handle")
    assert tir.tvm_struct_get(h, 1, 2, dtype="int32").dtype == "int32"
    assert tir.assume(cond=te.var("c", "bool")).op.name == "tir.assume"
    vec = b.vload([0])
    assert tir.vectorlow("float32x2", vec).op.name == "tir.vectorlow"
    assert tir.vectorcombine("float32x8", vec, vec).dtype == "float32x8"
    assert tir.create_barriers(16).op.name == "tir.create_barriers"
    assert tir.TVMBackendAllocWorkspace(0, 1, 2, 3, 4).dtype == "handle"
    assert tir.TVMBackendFreeWorkspace(0, 1, h).dtype == "int32"
    assert tir.ret(tir.const(1, "int8"), dtype="int8").dtype == "int8"


def test_float_imm_needs_a_float_dtype_and_shuffle_prefetch_nodes():
    with pytest.raises(TVMError, match="float dtype"):
        tir.FloatImm("int32", 1.0)
    a = tir.const(1.0, "float32")
    s = tir.Shuffle([a], [0])
    assert s.dtype == "float32" and s.indices[0].value == 0 and s.vectors[0] is a
    b = tir.decl_buffer((1, 2))
    assert tir.Prefetch(b, []).bounds == ()


def test_empty_dtype_is_void():
    assert DataType("") is DataType("handle")  # TVM scripts write dtype="" for void calls


def test_axis_separators_must_fit_the_shape():
    with pytest.raises(ValueError, match="axis_separators"):
        tir.decl_buffer([1], axis_separators=[1, 2])
    assert tir.decl_buffer([4, 4], axis_separators=[1]).axis_separators == (1,)


def test_scalable_vector_lanes():
    vs = tir.vscale()
    for lanes in (11 * vs, vs * 11):
        ramp = tir.Ramp(0, 1, lanes)
        assert ramp.lanes.a.equal(tir.vscale()) and ramp.lanes.b.value == 11
        assert tir.Broadcast(0, lanes).dtype == ramp.dtype
    for bad in (vs, vs + 3, vs * 2 + 5):
        with pytest.raises(TVMError, match="vscale"):
            tir.Ramp(0, 1, bad)
    buf = tir.decl_buffer((24,), "float32")
    assert tir.BufferLoad(buf, [tir.Ramp(1, 1, 8 * vs)]).dtype == "float32xvscalex8"
    assert (tir.Ramp(0, 1, 4 * vs) + 3).b.lanes.b.value == 4


def test_tvm_style_constructors():
    a = tir.const(1.0, "float32")
    call = tir.Call("float32", "tir.call_extern", [tir.StringImm("xyz"), a])
    assert call.op.name == "tir.call_extern" and call.dtype == "float32" and call.args[1] is a
    red = tir.Reduce(None, [1], [tir.IterVar((0, 1), "x", 2)], None, 0)
    assert red.combiner is None and red.value_index == 0 and len(red.source) == 1


def test_predicate_masks_are_checked_then_refused():
    b = tir.decl_buffer((24,), "int32")
    vs = tir.vscale()
    index = tir.Ramp(0, 1, 4 * vs)
    with pytest.raises(TVMError, match="must be boolean values, but got int32"):
        tir.BufferLoad(b, [index], tir.Broadcast(1, 4 * vs))
    with pytest.raises(TVMError, match="load indices must both be scalable"):
        tir.BufferLoad(b, [index], tir.Broadcast(tir.IntImm("int1", 1), 4))
    with pytest.raises(TVMError, match="predicate mask with 8 lanes, but trying to store a value with 4"):
        tir.BufferStore(b, tir.Broadcast(1, 4 * vs), [index], tir.Broadcast(tir.IntImm("int1", 1), 8 * vs))
    with pytest.raises(TVMError, match="not supported by ember yet"):
        tir.BufferLoad(b, [tir.Ramp(0, 1, 4)], tir.Broadcast(tir.const(True), 4))


def test_float32_folding_rounds_to_float32():
    import numpy as np

    x, y = -5.02089346405629e+37, -1.8889944799669855e+38
    got = (tir.const(x, "float32") + tir.const(y, "float32")).value
    assert got == float(np.float32(x) + np.float32(y))
