"""relax.quantize / relax.dequantize: struct info, and legalized kernels against numpy."""

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.relax.transform import LegalizeOps
from ember.script import ir as I
from ember.script import relax as R


def _run(mod, *args):
    ex = relax.build(LegalizeOps()(mod), "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    return vm["main"](*[ember.nd.array(a) for a in args]).numpy()


def _quantize_ref(x, s, z, axis, dtype):
    shape = [1] * x.ndim
    if np.ndim(s):
        shape[axis] = -1
    s, z = np.reshape(s, shape), np.reshape(z, shape).astype(x.dtype)
    info = np.iinfo(dtype)
    return np.clip(np.round(x / s) + z, info.min, info.max).astype(dtype)


def test_struct_info_and_errors():
    bb = relax.BlockBuilder()
    n = tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 3), "float32"))
    s = relax.Var("s", R.Tensor((3,), "float32"))
    z = relax.Var("z", R.Tensor((3,), "int8"))
    q = bb.normalize(relax.op.quantize(x, s, z, 1, "uint8"))
    ember.ir.assert_structural_equal(q.struct_info, relax.TensorStructInfo((n, 3), "uint8"))
    dq = bb.normalize(relax.op.dequantize(q, s, z, 1, "float16"))
    ember.ir.assert_structural_equal(dq.struct_info, relax.TensorStructInfo((n, 3), "float16"))
    with pytest.raises(Exception, match="the data must be float"):
        bb.normalize(relax.op.quantize(z, s, z, 0, "int8"))
    with pytest.raises(Exception, match="axis 2 is out of range"):
        bb.normalize(relax.op.quantize(x, s, z, 2, "int8"))
    wrong = relax.Var("w", R.Tensor((4,), "float32"))
    with pytest.raises(Exception, match="the scale has 4 values but axis 1 of the data has 3"):
        bb.normalize(relax.op.quantize(x, wrong, z, 1, "int8"))


def test_quantize_per_axis_matches_numpy():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), s: R.Tensor((3,), "float32"), z: R.Tensor((3,), "int8")):
            gv = R.quantize(x, s, z, axis=0, out_dtype="int8")
            return gv

    x = (np.random.randn(3, 4) * 50).astype("float32")
    s = np.array([0.5, 1.0, 0.25], "float32")
    z = np.array([3, -2, 0], "int8")
    np.testing.assert_array_equal(_run(Mod, x, s, z), _quantize_ref(x, s, z, 0, "int8"))


def test_quantize_with_constant_scalars_matches_numpy():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 5), "float32")):
            gv = R.quantize(x, R.const(0.5, "float32"), R.const(10, "int8"), axis=-1, out_dtype="uint8")
            return gv

    x = (np.random.randn(2, 5) * 100).astype("float32")
    np.testing.assert_array_equal(_run(Mod, x), _quantize_ref(x, 0.5, 10, 1, "uint8"))


def test_dequantize_matches_numpy_and_clamps_to_float16():
    @I.ir_module
    class Mod:
        @R.function
        def main(q: R.Tensor((2, 3), "int8"), s: R.Tensor((3,), "float32"), z: R.Tensor((3,), "int8")):
            a = R.dequantize(q, s, z, axis=1, out_dtype="float32")
            b = R.dequantize(q, R.const(1000.0, "float32"), R.const(1, "int8"), axis=1, out_dtype="float16")
            return (a, b)

    q = np.array([[-128, 0, 127], [5, -5, 100]], "int8")
    s = np.array([0.5, 2.0, 0.125], "float32")
    z = np.array([1, -3, 0], "int8")
    ex = relax.build(LegalizeOps()(Mod), "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    a, b = (t.numpy() for t in vm["main"](ember.nd.array(q), ember.nd.array(s), ember.nd.array(z)))
    np.testing.assert_allclose(a, (q.astype("int32") - z) * s)
    want = np.clip((q.astype("int32") - 1) * 1000.0, -65504, 65504).astype("float16")
    np.testing.assert_array_equal(b, want)
