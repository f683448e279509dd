"""relax.op.inspect (R.inspect.*, Expr.dtype/.ndim/.shape/.strides/.byte_offset/.elem_offset):
struct info with the values the tensor's struct info gives, error messages, printing and
parsing, and the VM reading the DLTensor fields of the arrays it is given."""

import ctypes

import numpy as np
import pytest

import ember as tvm
from ember import relax, tir
from ember.script import ir as I
from ember.script import relax as R


def _infer(call):
    return relax.BlockBuilder().normalize(call).struct_info


def _same(actual, expected):
    tvm.ir.assert_structural_equal(actual, expected)


def _run(mod, *args):
    vm = relax.VirtualMachine(tvm.compile(mod), tvm.cpu())
    return vm["main"](*args)


# -- struct info -------------------------------------------------------------------------

def test_dtype_fields_are_known_from_the_struct_info():
    x = relax.Var("x", R.Tensor((2, 3), "float16"))
    _same(_infer(x.dtype.type_code), relax.PrimStructInfo(value=tir.IntImm("uint8", 2)))
    _same(_infer(x.dtype.bits), relax.PrimStructInfo(value=tir.IntImm("uint8", 16)))
    _same(_infer(x.dtype.lanes), relax.PrimStructInfo(value=tir.IntImm("uint16", 1)))
    _same(_infer(x.ndim), relax.PrimStructInfo(value=tir.IntImm("int32", 2)))
    _same(_infer(x.shape[1]), relax.PrimStructInfo(value=tir.IntImm("int64", 3)))


def test_fields_unknown_without_struct_info_facts():
    x = relax.Var("x", R.Tensor())
    axis = relax.Var("axis", R.Prim("int64"))
    _same(_infer(x.dtype.type_code), relax.PrimStructInfo("uint8"))
    _same(_infer(x.dtype.lanes), relax.PrimStructInfo("uint16"))
    _same(_infer(x.ndim), relax.PrimStructInfo("int32"))
    _same(_infer(x.shape[axis]), relax.PrimStructInfo("int64"))
    _same(_infer(x.strides[0]), relax.PrimStructInfo("int64"))
    _same(_infer(x.byte_offset), relax.PrimStructInfo("uint64"))
    _same(_infer(x.elem_offset), relax.PrimStructInfo("uint64"))


def test_symbolic_dim_is_the_value_of_shape_i():
    n = tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 4), "float32"))
    _same(_infer(relax.op.inspect.tensor_shape_i(x, 0)), relax.PrimStructInfo(value=n))


def test_calls_use_tvm_op_names():
    x = relax.Var("x", R.Tensor((2,), "int32"))
    assert x.shape[0].op == tvm.ir.Op.get("relax.inspect.tensor_shape_i")
    assert x.strides[0].op == tvm.ir.Op.get("relax.inspect.tensor_stride_i")
    assert x.elem_offset.op == tvm.ir.Op.get("relax.inspect.tensor_elem_offset")


@pytest.mark.parametrize("get", [lambda x: x.shape[2], lambda x: x.strides[5], lambda x: x.shape[-1]])
def test_constant_axis_out_of_range_is_refused(get):
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    with pytest.raises(ValueError, match="axis -?[0-9] (is out of range|must not be negative)"):
        _infer(get(x))


def test_non_tensor_operands_are_refused():
    s = relax.Var("s", R.Shape((2, 3)))
    with pytest.raises(AttributeError, match="only defined for tensors"):
        s.shape  # noqa: B018
    assert not hasattr(s, "dtype")
    with pytest.raises(TypeError, match="must be a Tensor"):
        _infer(relax.op.inspect.tensor_ndim(s))
    x = relax.Var("x", R.Tensor((2,), "float32"))
    with pytest.raises(TypeError, match="axis must be a PrimValue"):
        _infer(relax.op.inspect.tensor_shape_i(x, s))
    with pytest.raises(TypeError, match="len"):
        len(x.shape)


# -- TVMScript -----------------------------------------------------------------------------

def test_print_and_parse_round_trip():
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor(("n", 4), "float32"), axis: R.Prim("int64")):
            a = R.inspect.tensor_shape_i(A, axis)
            b = R.inspect.tensor_stride_i(A, axis)
            c = R.inspect.tensor_dtype_bits(A)
            d = R.inspect.tensor_elem_offset(A)
            return (a, b, c, d)

    text = Module.script()
    assert "R.inspect.tensor_shape_i(A, axis)" in text
    assert "R.inspect.tensor_elem_offset(A)" in text
    _same(tvm.script.from_source(text), Module)


# -- running on the VM ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64"])
def test_dtype_fields_at_run_time(dtype):
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor):
            return (A.dtype.type_code, A.dtype.bits, A.dtype.lanes, A.ndim)

    out = _run(Module, tvm.nd.empty([3, 2], dtype))
    expected = tvm.runtime.DataType(dtype)
    assert [int(v) for v in out] == [expected.type_code, expected.bits, expected.lanes, 2]


def test_shape_and_strides_at_run_time():
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor, axis: R.Prim("int64")):
            return (A.shape[axis], A.strides[axis])

    arr = tvm.nd.array(np.zeros((4, 5, 6), "float32"))
    assert [tuple(int(v) for v in _run(Module, arr, i)) for i in range(3)] == [(4, 30), (5, 6), (6, 1)]


def test_out_of_range_axis_at_run_time():
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor, axis: R.Prim("int64")):
            return A.shape[axis]

    with pytest.raises(ValueError, match="axis 2 is out of range for a tensor of 2 dimensions"):
        _run(Module, tvm.nd.empty([3, 2], "int32"), 2)


def test_fields_of_a_view_made_through_the_handle():
    """A DLTensor edited by hand (a 4x4 view at element 10 of an 8x8 array) is read as it is."""
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor):
            return (A.shape[0], A.strides[0], A.byte_offset, A.elem_offset)

    backing = tvm.nd.empty([8, 8], "float64")
    view = backing.handle[0]
    shape = np.array([4, 4], "int64")
    strides = np.array([8, 1], "int64")
    view.shape = shape.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))
    view.strides = strides.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))
    view.byte_offset = 10 * 8
    backing.handle[0] = view
    assert [int(v) for v in _run(Module, backing)] == [4, 8, 80, 10]


def test_fields_known_at_compile_time_run_too():
    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor(("n", 3), "float16")):
            return (A.dtype.bits, A.shape[0], A.shape[1], A.ndim, A.strides[0])

    out = _run(Module, tvm.nd.array(np.zeros((5, 3), "float16")))
    assert [int(v) for v in out] == [16, 5, 3, 2, 3]
