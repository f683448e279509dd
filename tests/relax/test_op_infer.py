"""Struct-info inference of Relax operators: static and symbolic shapes, error messages."""

import pytest
from relax_sinfo_helpers import T, infer, var

from ember import relax, tir
from ember.relax import op as R
from ember.relax.struct_info import TensorStructInfo, TupleStructInfo, shape_values
from ember.relax.struct_info import static_dims


def dims(sinfo):
    return static_dims(sinfo)


n = tir.Var("n", "int64")
m = tir.Var("m", "int64")


# -- elementwise ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid", "negative", "abs", "erf"])
def test_unary_keeps_shape(name):
    x = var("x", [2, n])
    s = infer(getattr(R, name)(x))
    assert s.dtype == "float32" and s.shape.values[1] is n


def test_unary_float_only():
    with pytest.raises(TypeError, match="relax.exp needs a float tensor, got dtype int32"):
        infer(R.exp(var("x", [2], "int32")))


def test_predicates_give_bool():
    assert infer(R.isnan(var("x", [3]))).dtype == "bool"


def test_binary_broadcast_static():
    s = infer(R.add(var("x", [2, 1, 4]), var("y", [3, 1])))
    assert dims(s) == (2, 3, 4)


def test_binary_broadcast_symbolic():
    s = infer(R.multiply(var("x", [n, 1]), var("y", [1, m])))
    assert shape_values(s)[0] is n and shape_values(s)[1] is m


def test_binary_same_symbolic_dim():
    s = infer(R.subtract(var("x", [n, 4]), var("y", [n, 4])))
    assert shape_values(s)[0] is n


def test_binary_unknown_symbolic_pair_gives_ndim():
    s = infer(R.add(var("x", [n]), var("y", [m])))
    assert s.ndim == 1 and s.shape is None


def test_binary_incompatible_shapes_named():
    with pytest.raises(ValueError, match=r"relax.add: cannot broadcast shapes \(2, 3\) and \(4,\)"):
        infer(R.add(var("x", [2, 3]), var("y", [4])))


def test_binary_dtype_mismatch():
    with pytest.raises(TypeError, match="operand dtypes must match, got float32 and int32"):
        infer(R.add(var("x", [2]), var("y", [2], "int32")))


def test_comparison_is_bool():
    assert infer(R.less(var("x", [2]), var("y", [2]))).dtype == "bool"


def test_scalar_python_operand_takes_dtype():
    s = infer(var("x", [2], "float16") + 1)
    assert s.dtype == "float16"


def test_unknown_ndim_propagates():
    x = relax.Var("x", TensorStructInfo(ndim=-1, dtype="float32"))
    assert infer(R.add(x, var("y", [2]))).ndim == -1


def test_where():
    s = infer(R.where(var("c", [2, 1], "bool"), var("a", [1, 3]), var("b", [3])))
    assert dims(s) == (2, 3)
    with pytest.raises(TypeError, match="condition must be a bool tensor"):
        infer(R.where(var("c", [2]), var("a", [2]), var("b", [2])))


def test_astype_and_clip():
    assert infer(R.astype(var("x", [2]), "int8")).dtype == "int8"
    assert dims(infer(R.clip(var("x", [2, 2]), 0, 6))) == (2, 2)


# -- matmul ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "a,b,out",
    [
        ([2, 3], [3, 4], (2, 4)),
        ([5, 2, 3], [3, 4], (5, 2, 4)),
        ([5, 1, 2, 3], [7, 3, 4], (5, 7, 2, 4)),
        ([3], [3, 4], (4,)),
        ([2, 3], [3], (2,)),
        ([3], [3], ()),
    ],
)
def test_matmul_shapes(a, b, out):
    assert dims(infer(R.matmul(var("a", a), var("b", b)))) == out


def test_matmul_symbolic():
    s = infer(R.matmul(var("a", [n, 784]), var("b", [784, 128])))
    assert shape_values(s)[0] is n


def test_matmul_mismatch():
    with pytest.raises(ValueError, match=r"reduction dims differ: \(2, 3\) @ \(4, 5\) \(3 vs 4\)"):
        infer(R.matmul(var("a", [2, 3]), var("b", [4, 5])))


def test_matmul_out_dtype():
    assert infer(R.matmul(var("a", [2, 3], "int8"), var("b", [3, 2], "int8"), out_dtype="int32")).dtype == "int32"


# -- manipulation -----------------------------------------------------------------------

def test_permute_dims():
    assert dims(infer(R.permute_dims(var("x", [2, 3, 4])))) == (4, 3, 2)
    assert dims(infer(R.permute_dims(var("x", [2, 3, 4]), [0, 2, 1]))) == (2, 4, 3)
    with pytest.raises(ValueError, match="2 axes given for a tensor of 3 dims"):
        infer(R.permute_dims(var("x", [2, 3, 4]), [0, 1]))


def test_reshape_minus_one():
    assert dims(infer(R.reshape(var("x", [2, 3, 4]), (-1, 4)))) == (6, 4)
    assert dims(infer(R.reshape(var("x", [2, 3, 4]), (4, 6)))) == (4, 6)


def test_reshape_bad_count():
    with pytest.raises(ValueError, match=r"cannot reshape \(2, 3\) \(6 elements\) to \(4, 2\) \(8 elements\)"):
        infer(R.reshape(var("x", [2, 3]), (4, 2)))


def test_reshape_symbolic():
    s = infer(R.reshape(var("x", [n, 4]), (-1,)))
    assert s.ndim == 1


def test_flatten_expand_squeeze():
    assert dims(infer(R.flatten(var("x", [2, 3, 4])))) == (24,)
    assert dims(infer(R.expand_dims(var("x", [2, 3]), [0, -1]))) == (1, 2, 3, 1)
    assert dims(infer(R.squeeze(var("x", [1, 3, 1])))) == (3,)
    assert dims(infer(R.squeeze(var("x", [1, 3, 1]), [0]))) == (3, 1)
    with pytest.raises(ValueError, match="axis 1 has size 3, not 1"):
        infer(R.squeeze(var("x", [1, 3, 1]), [1]))


def test_concat_and_split():
    s = infer(R.concat([var("a", [2, n]), var("b", [3, n])], axis=0))
    assert shape_values(s)[1] is n and int(shape_values(s)[0]) == 5
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(2, 4\) differ on axis 1"):
        infer(R.concat([var("a", [2, 3]), var("b", [2, 4])], axis=0))
    parts = infer(R.split(var("x", [6, 4]), 3, axis=0))
    assert isinstance(parts, TupleStructInfo) and [dims(p) for p in parts.fields] == [(2, 4)] * 3
    parts = infer(R.split(var("x", [6, 4]), [1, 4], axis=0))
    assert [dims(p) for p in parts.fields] == [(1, 4), (3, 4), (2, 4)]
    with pytest.raises(ValueError, match="size 6 cannot be split into 4 equal sections"):
        infer(R.split(var("x", [6, 4]), 4))


def test_strided_slice_take_broadcast():
    assert dims(infer(R.strided_slice(var("x", [10, 8]), [0, 1], [1, 0], [9, 8], [2, 3]))) == (4, 3)
    assert dims(infer(R.take(var("x", [10, 8]), var("i", [5], "int64"), axis=0))) == (5, 8)
    assert dims(infer(R.take(var("x", [10, 8]), var("i", [2, 3], "int32")))) == (2, 3)
    assert dims(infer(R.broadcast_to(var("x", [1, 3]), (4, 3)))) == (4, 3)
    with pytest.raises(ValueError, match="cannot broadcast shapes"):
        infer(R.broadcast_to(var("x", [2, 3]), (4, 3)))


def test_axis_out_of_range():
    with pytest.raises(ValueError, match="relax.sum: axis 3 is out of range for a tensor of 2 dims"):
        infer(R.sum(var("x", [2, 3]), axis=3))


# -- creation and reductions -----------------------------------------------------------

def test_creation():
    assert dims(infer(R.zeros((2, 3), "int32"))) == (2, 3)
    assert infer(R.ones_like(var("x", [n]))).shape.values[0] is n
    assert dims(infer(R.full((2,), relax.const(1.0)))) == (2,)
    assert dims(infer(R.arange(0, 10, 3))) == (4,)
    assert infer(R.arange(5)).dtype == "int64"


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "variance", "std"])
def test_reductions(name):
    fn = getattr(R, name)
    x = var("x", [2, 3, 4])
    assert dims(infer(fn(x, axis=1))) == (2, 4)
    assert dims(infer(fn(x, axis=[0, 2], keepdims=True))) == (1, 3, 1)
    assert dims(infer(fn(x))) == ()


def test_argmax():
    s = infer(R.argmax(var("x", [2, 3]), axis=1))
    assert dims(s) == (2,) and s.dtype == "int64"


# -- nn ---------------------------------------------------------------------------------

def test_activations_and_softmax():
    x = var("x", [n, 10])
    for fn in (R.nn.relu, R.nn.gelu, R.nn.gelu_tanh, R.nn.silu, R.nn.softmax, R.nn.log_softmax):
        assert infer(fn(x)).shape.values[0] is n
    out = infer(R.nn.dropout(x, 0.1))
    assert isinstance(out, TupleStructInfo) and len(out.fields) == 2


def test_norms():
    x = var("x", [2, 3, 8])
    assert dims(infer(R.nn.layer_norm(x, var("g", [8]), var("b", [8]), axes=-1))) == (2, 3, 8)
    with pytest.raises(ValueError, match=r"gamma has shape \(4,\), which does not match axis 2"):
        infer(R.nn.layer_norm(x, var("g", [4]), var("b", [8]), axes=-1))
    assert dims(infer(R.nn.rms_norm(x, var("w", [8])))) == (2, 3, 8)
    bn = infer(R.nn.batch_norm(var("x", [2, 4, 5, 5]), *(var(c, [4]) for c in "gbmv"), axis=1))
    assert [dims(f) for f in bn.fields] == [(2, 4, 5, 5), (4,), (4,)]
    assert dims(infer(R.nn.group_norm(var("x", [2, 4, 5]), var("g", [4]), var("b", [4]), 2, 1, [2]))) == (2, 4, 5)
    with pytest.raises(ValueError, match="4 channels cannot be divided into 3 groups"):
        infer(R.nn.group_norm(var("x", [2, 4, 5]), var("g", [4]), var("b", [4]), 3, 1, [2]))


def test_conv2d():
    x, w = var("x", [1, 3, 32, 32]), var("w", [16, 3, 3, 3])
    assert dims(infer(R.nn.conv2d(x, w, padding=1))) == (1, 16, 32, 32)
    assert dims(infer(R.nn.conv2d(x, w, strides=2))) == (1, 16, 15, 15)
    assert dims(infer(R.nn.conv2d(x, w, dilation=2))) == (1, 16, 28, 28)
    call = R.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1))
    assert call.attrs.strides == (2, 2) and call.attrs.padding == (1, 1, 1, 1) and call.attrs.groups == 1


def test_conv2d_symbolic_batch_and_nhwc():
    x, w = var("x", [n, 32, 32, 3]), var("w", [3, 3, 3, 8])
    s = infer(R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO"))
    assert shape_values(s)[0] is n and [int(v) for v in shape_values(s)[1:]] == [30, 30, 8]


def test_conv2d_channel_mismatch():
    with pytest.raises(ValueError, match=r"data has 4 channels but weight \(8, 3, 3, 3\) with groups=1 expects 3"):
        infer(R.nn.conv2d(var("x", [1, 4, 8, 8]), var("w", [8, 3, 3, 3])))


def test_grouped_and_transposed_conv():
    s = infer(R.nn.conv2d(var("x", [1, 8, 8, 8]), var("w", [8, 1, 3, 3]), groups=8))
    assert dims(s) == (1, 8, 6, 6)
    s = infer(R.nn.conv2d_transpose(var("x", [1, 4, 8, 8]), var("w", [4, 2, 3, 3]), strides=2, padding=1, output_padding=1))
    assert dims(s) == (1, 2, 16, 16)
    assert dims(infer(R.nn.conv1d(var("x", [1, 3, 10]), var("w", [5, 3, 3])))) == (1, 5, 8)


def test_pooling_pad_attention():
    x = var("x", [1, 3, 32, 32])
    assert dims(infer(R.nn.max_pool2d(x, 2, 2))) == (1, 3, 16, 16)
    assert dims(infer(R.nn.avg_pool2d(x, 3, 2, padding=1))) == (1, 3, 16, 16)
    assert dims(infer(R.nn.max_pool2d(var("x", [1, 1, 5, 5]), 2, 2, ceil_mode=True))) == (1, 1, 3, 3)
    assert dims(infer(R.nn.adaptive_avg_pool2d(x, (1, 1)))) == (1, 3, 1, 1)
    assert dims(infer(R.nn.pad(var("x", [2, 3]), [1, 1, 0, 2]))) == (4, 5)
    with pytest.raises(ValueError, match="pad_width needs 2 values per dim"):
        infer(R.nn.pad(var("x", [2, 3]), [1, 1]))
    q, k, v = var("q", [2, 5, 4, 8]), var("k", [2, 7, 4, 8]), var("v", [2, 7, 4, 16])
    assert dims(infer(R.nn.attention(q, k, v))) == (2, 5, 4, 16)


def test_non_tensor_argument_named():
    with pytest.raises(TypeError, match="relax.nn.relu: data must be a Tensor, got ShapeStructInfo"):
        infer(R.nn.relu(relax.ShapeExpr([1, 2])))


def test_call_tir_uses_out_sinfo():
    gv = relax.GlobalVar("add")
    call = relax.call_tir(gv, [var("x", [n])], T([n]))
    assert infer(call).shape.values[0] is n
