"""Every error path of the Relax IR layer raises with a message naming what went wrong."""

import numpy as np
import pytest
from relax_sinfo_helpers import T, infer, var

from ember import relax, tir
from ember.relax import op as R
from ember.relax.reference import RelaxInterpreterError, run


x23 = var("x", [2, 3])
img = var("img", [1, 3, 8, 8])

# (call builder, exception type, message regex)
OP_ERRORS = [
    (lambda: R.reshape(var("x", [2, 3]), (-1, -1)), ValueError, r"at most one -1 may appear"),
    (lambda: R.reshape(var("x", [2, 3]), (4, -1)), ValueError, r"cannot reshape \(2, 3\) to \(4, -1\)"),
    (lambda: R.split(x23, 0), ValueError, "number of sections must be positive, got 0"),
    (lambda: R.strided_slice(x23, [0, 1], [0], [1]), ValueError, "axes, begin and end must have one length"),
    (lambda: R.strided_slice(x23, [0], [0], [2], [0]), ValueError, "strides must not be 0"),
    (lambda: R.take(x23, var("i", [2])), TypeError, "indices must be an integer tensor, got dtype float32"),
    (lambda: R.concat([x23, var("y", [2, 3], "int32")]), TypeError, "all tensors must have one dtype"),
    (lambda: R.concat([x23, var("y", [2, 3, 1])]), ValueError, "same ndim, got \\[2, 3\\]"),
    (lambda: R.concat([]), ValueError, "needs at least one tensor"),
    (lambda: R.concat(x23), TypeError, "tensors must be a tuple of tensors, got TensorStructInfo"),
    (lambda: R.expand_dims(x23, 5), ValueError, "relax.expand_dims: axis 5 is out of range for a tensor of 3 dims"),
    (lambda: R.permute_dims(x23, [0, 0]), ValueError, r"repeated axes in \[0, 0\]"),
    (lambda: R.broadcast_to(var("x", [2, 3, 4]), (3, 4)), ValueError, r"cannot broadcast a 3-d tensor to \(3, 4\)"),
    (lambda: R.matmul(var("s", []), x23), ValueError, "operands must have at least 1 dim"),
    (lambda: R.full((2,), relax.const(np.ones(2, "float32"))), ValueError, "fill_value must be a scalar"),
    (lambda: R.arange(0, 4, 0), ValueError, "step must not be 0"),
    (lambda: R.tril(var("v", [3])), ValueError, "must have at least 2 dims, got 1"),
    (lambda: R.nn.softmax(var("i", [3], "int32")), TypeError, "relax.nn.softmax needs a float tensor"),
    (lambda: R.nn.softmax(x23, axis=2), ValueError, "axis 2 is out of range"),
    (lambda: R.nn.layer_norm(x23, var("g", [3, 1]), var("b", [3])), ValueError, "gamma must have 1 dims"),
    (lambda: R.nn.conv2d(img, var("w", [4, 3, 3, 3]), data_layout="NCWD"), ValueError,
     "data_layout 'NCWD' is not supported"),
    (lambda: R.nn.conv2d(img, var("w", [4, 3, 3, 3]), data_layout="NCHWc"), ValueError,
     "layout 'NCHWc': the sub axis 'c' needs a positive factor"),
    (lambda: R.nn.conv2d(var("x", [1, 3, 8]), var("w", [4, 3, 3, 3])), ValueError, "data must have 4 dims, got 3"),
    (lambda: R.nn.conv2d(img, var("w", [4, 3, 9, 9])), ValueError, "output would be empty along H"),
    (lambda: R.nn.conv2d(var("x", [1, 4, 8, 8]), var("w", [6, 1, 3, 3]), groups=4), ValueError,
     "6 output channels are not divisible by groups=4"),
    (lambda: R.nn.conv2d_transpose(img, var("w", [4, 2, 3, 3])), ValueError,
     "data has 3 channels but weight \\(4, 2, 3, 3\\) expects 4 input channels"),
    (lambda: R.nn.max_pool2d(img, 9), ValueError, "pool_size \\(9, 9\\) is larger than the padded input"),
    (lambda: R.nn.max_pool2d(img, 2, layout="NCHW4h"), ValueError, "layout 'NCHW4h' is not supported"),
    (lambda: R.nn.max_pool2d(img, 2, layout="NHWCc"), ValueError, "layout 'NHWCc': the sub axis 'c' needs"),
    (lambda: R.nn.attention(var("q", [1, 2, 3]), img, img), ValueError, "query must be 4-D"),
    (lambda: R.nn.attention(var("q", [1, 2, 2, 4]), var("k", [1, 3, 2, 5]), var("v", [1, 3, 2, 5])),
     ValueError, "differ in head_dim"),
    (lambda: R.nn.attention(var("q", [1, 2, 2, 4]), var("k", [1, 3, 2, 4]), var("v", [1, 4, 2, 5])),
     ValueError, "differ in sequence length"),
    (lambda: relax.call_tir(relax.Var("f", T([2])), [x23], T([2])), TypeError, "the callee must be a GlobalVar"),
    (lambda: R.gather_elements(x23, var("i", [2], "int64")), ValueError, "same ndim, got 2 and 1"),
    (lambda: R.gather_elements(x23, var("i", [2, 3])), TypeError, "indices must be an integer tensor"),
    (lambda: R.gather_nd(x23, var("i", [4, 3], "int64")), ValueError, "index 3 dims past batch_dims=0"),
    (lambda: R.scatter_elements(x23, var("i", [2, 3], "int64"), x23, reduction="xor"), ValueError,
     "unknown reduction 'xor'"),
    (lambda: R.scatter_elements(x23, var("i", [2, 3], "int64"), var("u", [2, 3], "int8")), TypeError,
     "updates dtype int8 differs from data dtype float32"),
    (lambda: R.one_hot(var("i", [3], "int32"), 1.0, 0, 4), TypeError,
     "on_value and off_value must share a dtype, got float32 and int32"),
    (lambda: R.topk(x23, ret_type="all"), ValueError, "ret_type must be 'both', 'values' or 'indices'"),
    (lambda: R.tile(x23, (0, 1)), ValueError, r"repeats must be positive, got \[0, 1\]"),
    (lambda: R.repeat(x23, 0), ValueError, "repeats must be positive, got 0"),
    (lambda: R.einsum((x23,), "...i->i"), ValueError, "ellipsis"),
    (lambda: R.einsum((x23,), "ij,jk->ik"), ValueError, "name 2 operands, got 1"),
    (lambda: R.einsum((x23,), "ijk->i"), ValueError, "has 3 letters but 2 dims"),
    (lambda: R.einsum((x23, var("y", [4, 5])), "ij,jk->ik"), ValueError, "letter 'j' has sizes 3 and 4"),
    (lambda: R.einsum((x23,), "ij->iz"), ValueError, r"output letters \['z'\] do not appear"),
    (lambda: R.einsum((x23, var("y", [3], "int8")), "ij,j->i"), TypeError, "operand dtypes must match"),
    (lambda: R.image.resize2d(img, (4, 4), method="area"), ValueError, "method must be one of"),
    (lambda: R.image.resize2d(img, (4, 4), coordinate_transformation_mode="x"), ValueError,
     "coordinate_transformation_mode must be one of"),
    (lambda: R.image.resize2d(img, (4, 4), layout="NCHWc"), ValueError, "layout 'NCHWc' is not supported"),
    (lambda: R.image.resize2d(img, (4, 4, 4)), ValueError, "size must have 2 values"),
    (lambda: R.nn.prelu(img, var("a", [3, 1])), ValueError, "alpha must be 1-D"),
    (lambda: R.nn.instance_norm(img, var("g", [4]), var("b", [3])), ValueError, "gamma has shape \\(4,\\)"),
    (lambda: R.nn.max_pool1d(img, 2), ValueError, "data must have 3 dims, got 4"),
]


@pytest.mark.parametrize("case", range(len(OP_ERRORS)))
def test_op_error(case):
    build, exc, pattern = OP_ERRORS[case]
    with pytest.raises(exc, match=pattern):
        infer(build())


def test_conv_argument_errors():
    with pytest.raises(ValueError, match="strides must have 1 or 2 values, got 3"):
        R.nn.conv2d(img, img, strides=(1, 1, 1))
    with pytest.raises(ValueError, match="padding must have 1, 2 or 4 values, got 3"):
        R.nn.conv2d(img, img, padding=(1, 1, 1))


def test_expr_construction_errors():
    with pytest.raises(TypeError, match=r"Function: params\[0\] must be a relax.Var, got Constant"):
        relax.Function([relax.const(1.0)], x23)
    with pytest.raises(ValueError, match="parameter 'p' has no struct_info"):
        relax.Function([relax.Var("p")], x23)
    with pytest.raises(IndexError, match="index 2 out of range for a tuple of 2 fields"):
        relax.TupleGetItem(relax.Tuple([x23, x23]), 2)
    with pytest.raises(TypeError, match="cannot use dict"):
        R.add(x23, {})
    with pytest.raises(TypeError, match="only tuple values can be indexed, with an int"):
        x23["a"]
    with pytest.raises(TypeError, match="get_shape_of: expected a tensor, got ShapeStructInfo"):
        relax.get_shape_of(relax.ShapeExpr([1]))


def test_block_builder_errors():
    bb = relax.BlockBuilder()
    x = var("x", [2])
    with pytest.raises(RuntimeError, match="must be used inside BlockBuilder.function"):
        with bb.dataflow():
            pass
    with pytest.raises(RuntimeError, match="already building 'f'"):
        with bb.function("f", [x]):
            with bb.function("g", [x]):
                pass
    with pytest.raises(RuntimeError, match="dataflow blocks cannot be nested"):
        with bb.function("h", [x]):
            with bb.dataflow():
                with bb.dataflow():
                    pass
    with pytest.raises(RuntimeError, match="params were given both to function"):
        with bb.function("k", [x]):
            bb.emit_func_output(x, params=[x])
    with pytest.raises(RuntimeError, match="emit_func_output must be called inside BlockBuilder.function"):
        bb.emit_func_output(x)
    with pytest.raises(TypeError, match="cannot call a value of TensorStructInfo"):
        bb.normalize(relax.Call(x, [x]))
    with pytest.raises(ValueError, match="call expects 1 arguments, got 2"):
        f = relax.Function([x], relax.SeqExpr([], x), T([2]))
        bb.normalize(relax.Call(f, [x, x]))


def test_emit_te_errors():
    te = pytest.importorskip("ember.te")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(ndim=2, dtype="float32"))
    with bb.function("main", [x]):
        with pytest.raises(ValueError, match="tensor arguments need a known shape"):
            bb.emit_te(lambda a: te.compute(a.shape, lambda i, j: a[i, j]), x)
        with pytest.raises(TypeError, match="emit_te: unsupported argument ExternFunc"):
            bb.emit_te(lambda a: a, relax.ExternFunc("f"))
        bb.emit_func_output(x)


def test_interpreter_errors():
    f_x = var("x", [2, 3])
    bb = relax.BlockBuilder()
    with bb.function("main", [f_x]):
        bb.emit_func_output(bb.emit(R.exp(f_x)))
    mod = bb.get()
    with pytest.raises(RelaxInterpreterError, match="argument 'x': dim 1 is 4, expected 3"):
        run(mod, np.zeros((2, 4), "float32"))
    with pytest.raises(RelaxInterpreterError, match="argument 'x': expected 2 dims, got shape \\(2,\\)"):
        run(mod, np.zeros((2,), "float32"))
    with pytest.raises(RelaxInterpreterError, match="function expects 1 arguments, got 0"):
        run(mod)
    n = tir.Var("n", "int64")
    y = var("y", [n, n])
    bb = relax.BlockBuilder()
    with bb.function("sq", [y]):
        bb.emit_func_output(y)
    with pytest.raises(RelaxInterpreterError, match="dim 1 is 3, but n = 2"):
        run(bb.get(), np.zeros((2, 3), "float32"), func_name="sq")


def test_reference_missing_op():
    from ember.relax.reference import evaluate_op

    with pytest.raises(NotImplementedError, match="no implementation of relax.call_tir"):
        evaluate_op("relax.call_tir", [], None)


def test_well_formed_checks_globals_and_anf():
    from ember.ir import IRModule
    from ember.relax.analysis import WellFormedError, check_well_formed

    x = var("x", [2])
    call = relax.BlockBuilder().normalize(relax.call_tir(relax.GlobalVar("missing"), [x], T([2])))
    lv = relax.Var("lv", T([2]))
    f = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, call)])], lv), T([2]))
    with pytest.raises(WellFormedError, match="GlobalVar 'missing' does not name a function of the module"):
        check_well_formed(IRModule({"main": f}))
    with pytest.raises(TypeError, match="well_formed expects an IRModule or a relax.Function, got int"):
        check_well_formed(3)


def test_well_formed_purity_rules():
    from ember.relax.analysis import WellFormedError, check_well_formed, well_formed

    x = var("x", [2])
    bb = relax.BlockBuilder()
    with bb.function("pure_main", [x]):
        bb.emit(R.print(x, format="{}"))
        bb.emit_func_output(x)
    with pytest.raises(WellFormedError, match="impure call to relax.print in a function marked pure"):
        check_well_formed(bb.get())
    bb = relax.BlockBuilder()
    with bb.function("impure_main", [x], pure=False):
        with bb.dataflow():
            bb.emit(R.print(x, format="{}"))
            gv = bb.emit_output(x)
        bb.emit_func_output(gv)
    with pytest.raises(WellFormedError, match="impure call to relax.print inside a dataflow block"):
        check_well_formed(bb.get())
    bb = relax.BlockBuilder()
    with bb.function("ok", [x], pure=False):
        bb.emit(R.print(x, format="{}"))
        bb.emit_func_output(x)
    assert well_formed(bb.get())
    c = relax.Var("c", T([], "bool"))
    lv = relax.DataflowVar("lv", T([2]))
    gv = relax.Var("gv", T([2]))
    cond = relax.If(c, x, x)
    block = relax.DataflowBlock([relax.VarBinding(lv, cond), relax.VarBinding(gv, lv)])
    f = relax.Function([x, c], relax.SeqExpr([block], gv), T([2]))
    with pytest.raises(WellFormedError, match="an If expression appears inside a dataflow block"):
        check_well_formed(f)


def test_func_output_must_not_be_dataflow_local():
    x = var("x", [2])
    bb = relax.BlockBuilder()
    with pytest.raises(ValueError, match=r"the output uses dataflow variables \['lv'\]"):
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit(R.exp(x))
                bb.emit_output(lv)
            bb.emit_func_output(lv)


def test_force_pure_functions_may_call_impure_ops():
    from ember.relax.analysis import well_formed

    x = var("x", [2])
    bb = relax.BlockBuilder()
    with bb.function("main", [x], attrs={"relax.force_pure": True}):
        bb.emit(R.print(x, format="{}"))
        bb.emit_func_output(x)
    assert well_formed(bb.get())
