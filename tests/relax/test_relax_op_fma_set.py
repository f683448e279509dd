"""relax.op.ewise_fma, unique and nonzero: struct-info inference, error messages, the
numpy reference, and running them through LegalizeOps + relax.build."""

import numpy as np
import pytest

import ember as tvm
from ember import relax, tir
from ember.relax import reference
from ember.script import relax as R


def _infer(call):
    return relax.BlockBuilder().normalize(call).struct_info


def _same(actual, expected):
    tvm.ir.assert_structural_equal(actual, expected)


# -- ewise_fma -------------------------------------------------------------------------

def test_ewise_fma_sinfo_static_symbolic_and_unknown():
    m, n = tir.Var("m", "int64"), tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((m, n), "float32"))
    y = relax.Var("y", R.Tensor((m, n), "float32"))
    _same(_infer(relax.op.ewise_fma(x, y, x)), relax.TensorStructInfo((m, n), "float32"))
    y_ndim = relax.Var("y", R.Tensor(dtype="float32", ndim=2))
    _same(_infer(relax.op.ewise_fma(x, y_ndim, x)), relax.TensorStructInfo(dtype="float32", ndim=2))
    no_dtype = relax.Var("z", R.Tensor((m, n)))
    _same(_infer(relax.op.ewise_fma(no_dtype, y, x)), relax.TensorStructInfo((m, n), dtype=""))


def test_ewise_fma_sinfo_shared_shape_var():
    s = relax.Var("s", relax.ShapeStructInfo(ndim=2))
    x = relax.Var("x", relax.TensorStructInfo(s, "float16"))
    _same(_infer(relax.op.ewise_fma(x, x, x)), relax.TensorStructInfo(s, "float16"))


@pytest.mark.parametrize("other, message", [
    (R.Tensor((2, 3), "int32"), "same dtype"),
    (R.Tensor((2, 3, 4), "float32"), "same ndim"),
    (R.Tensor((2, 4), "float32"), "same shape"),
])
def test_ewise_fma_refuses_mismatched_operands(other, message):
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    y = relax.Var("y", other)
    with pytest.raises(Exception, match=message):
        _infer(relax.op.ewise_fma(x, y, x))


def test_ewise_fma_refuses_a_shape_operand():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    s = relax.Var("s", relax.ShapeStructInfo((2, 3)))
    with pytest.raises(Exception, match="x2"):
        _infer(relax.op.ewise_fma(x, s, x))


def test_ewise_fma_builds_and_matches_numpy():
    @tvm.script.ir_module
    class Module:
        @R.function
        def main(a: R.Tensor((4, 5), "float32"), b: R.Tensor((4, 5), "float32"),
                 c: R.Tensor((4, 5), "float32")):
            return R.ewise_fma(a, b, c)

    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((4, 5)).astype("float32") for _ in range(3))
    ex = relax.build(Module, "llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](*(tvm.nd.array(v) for v in (a, b, c)))
    np.testing.assert_allclose(out.numpy(), a * b + c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reference.run(Module, a, b, c), a * b + c, rtol=1e-6)


# -- unique ----------------------------------------------------------------------------

def test_unique_sinfo_flags_and_axis():
    x = relax.Var("x", R.Tensor((2, 3, 4), "float32"))
    _same(_infer(relax.op.unique(x)), relax.TensorStructInfo(dtype="float32", ndim=1))
    _same(_infer(relax.op.unique(x, return_counts=True, axis=-2)),
          relax.TupleStructInfo([relax.TensorStructInfo(dtype="float32", ndim=3),
                                 relax.TensorStructInfo(dtype="int64", ndim=1)]))
    unknown = relax.Var("u", R.Tensor("int8"))
    _same(_infer(relax.op.unique(unknown, axis=1)), relax.TensorStructInfo(dtype="int8"))


def test_unique_sinfo_zero_rank_gives_one_element():
    x = relax.Var("x", R.Tensor((), "float32"))
    _same(_infer(relax.op.unique(x, return_index=True)),
          relax.TupleStructInfo([relax.TensorStructInfo((1,), "float32"),
                                 relax.TensorStructInfo((1,), "int64")]))


def test_unique_flags_are_int64_prim_values_as_tvm():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    call = relax.op.unique(x, sorted=True, axis=-1)
    assert [int(a.value.value) for a in call.args[1:]] == [1, 0, 0, 0, -1]
    assert all(str(a.value.dtype) == "int64" for a in call.args[1:])


@pytest.mark.parametrize("axis", [3, -4])
def test_unique_refuses_axis_out_of_range(axis):
    x = relax.Var("x", R.Tensor((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match=f"axis {axis} is out of range"):
        _infer(relax.op.unique(x, axis=axis))


def test_unique_refuses_axis_of_a_scalar():
    x = relax.Var("x", R.Tensor((), "float32"))
    with pytest.raises(ValueError, match="out of range for a tensor of 0 dims"):
        _infer(relax.op.unique(x, axis=0))


def test_unique_reference_unsorted_keeps_first_occurrence_order():
    x = np.array([[3, 1], [3, 2], [1, 5]], dtype="int64")
    values, index, inverse, counts = reference.ops_set.unique_numpy(x, False, True, True, True, None)
    np.testing.assert_array_equal(values, [3, 1, 2, 5])
    np.testing.assert_array_equal(index, [0, 1, 3, 5])
    np.testing.assert_array_equal(values[inverse], x.reshape(-1))
    np.testing.assert_array_equal(counts, [2, 2, 1, 1])


# -- nonzero ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_nonzero_sinfo_is_2d_int64(shape):
    x = relax.Var("x", R.Tensor(shape, "bool"))
    _same(_infer(relax.op.nonzero(x)), relax.TensorStructInfo(dtype="int64", ndim=2))


def test_nonzero_refuses_a_non_tensor():
    x = relax.Var("x", relax.ShapeStructInfo((2, 3)))
    with pytest.raises(Exception, match="relax.nonzero"):
        _infer(relax.op.nonzero(x))


# -- unique and nonzero through LegalizeOps (run-time functions) -------------------------

def test_unique_and_nonzero_legalize_to_packed_calls_and_run():
    @tvm.script.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("m", "n"), "int64")):
            u = R.unique(x, sorted=False)
            s = R.unique(x, return_inverse=True, return_counts=True, axis=0)
            z = R.nonzero(x)
            return u, s, z

    legal = relax.transform.LegalizeOps()(Module)
    assert "relax.run.unique" in legal.script() and "relax.run.nonzero" in legal.script()
    x = np.array([[2, 0], [1, 0], [2, 0], [0, 3]], dtype="int64")
    vm = relax.VirtualMachine(relax.build(Module, "llvm"), tvm.cpu())
    unsorted, (rows, inverse, counts), nz = vm["main"](tvm.nd.array(x))
    np.testing.assert_array_equal(unsorted.numpy(), [2, 0, 1, 3])
    np.testing.assert_array_equal(rows.numpy(), np.unique(x, axis=0))
    np.testing.assert_array_equal(rows.numpy()[inverse.numpy()], x)
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 2])
    np.testing.assert_array_equal(nz.numpy(), np.stack(np.nonzero(x)))
    ref = reference.run(Module, x)
    np.testing.assert_array_equal(ref[2], nz.numpy())
