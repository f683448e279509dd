"""Every math intrinsic against numpy, through ember.build and straight into the codegen."""

import math

import numpy as np
import pytest

import ember
from ember import tir
from ember.codegen.llvm import build_llvm
from ember.ir import Broadcast, IRModule, Ramp, Var, const
from ember.target import Target
from ember.tir import BufferStore, PrimFunc, decl_buffer

from codegen_helpers import elementwise

_erf = np.vectorize(math.erf)
UNARY = {
    # name: (numpy reference, input range)
    "exp": (np.exp, (-5, 5)), "exp2": (np.exp2, (-5, 5)), "exp10": (lambda x: 10.0**x, (-3, 3)),
    "log": (np.log, (0.01, 50)), "log2": (np.log2, (0.01, 50)), "log10": (np.log10, (0.01, 50)),
    "log1p": (np.log1p, (-0.5, 5)), "expm1": (np.expm1, (-3, 3)), "sqrt": (np.sqrt, (0, 50)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 50)), "sin": (np.sin, (-6, 6)), "cos": (np.cos, (-6, 6)),
    "tan": (np.tan, (-1.2, 1.2)), "sinh": (np.sinh, (-4, 4)), "cosh": (np.cosh, (-4, 4)),
    "tanh": (np.tanh, (-4, 4)), "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-5, 5)), "asinh": (np.arcsinh, (-5, 5)), "acosh": (np.arccosh, (1, 9)),
    "atanh": (np.arctanh, (-0.9, 0.9)), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-8, 8)),
    "erf": (_erf, (-3, 3)), "fabs": (np.abs, (-5, 5)), "floor": (np.floor, (-5, 5)),
    "ceil": (np.ceil, (-5, 5)), "round": (np.round, (-5, 5)), "nearbyint": (np.rint, (-5, 5)),
    "trunc": (np.trunc, (-5, 5)),
}
BINARY = {
    "pow": (np.power, (0.1, 4), (-3, 3)), "fmod": (np.fmod, (-9, 9), (0.5, 3)),
    "atan2": (np.arctan2, (-3, 3), (-3, 3)), "copysign": (np.copysign, (-3, 3), (-3, 3)),
    "hypot": (np.hypot, (-9, 9), (-9, 9)), "nextafter": (np.nextafter, (-3, 3), (-3, 3)),
}
TOL = {"float32": dict(rtol=3e-6, atol=1e-6), "float64": dict(rtol=1e-13, atol=1e-14)}


def _sample(lo, hi, dtype, seed, n=97):
    x = np.random.default_rng(seed).uniform(lo, hi, n).astype(dtype)
    x[:4] = np.array([lo, hi, (lo + hi) / 2, lo + 0.5 * (hi - lo) / 7]).astype(dtype)
    if lo < 0 < hi:
        x[4:8] = np.array([-2.5, 2.5, -0.5, 0.5]).astype(dtype).clip(lo, hi)
    return x


def _build(func, direct: bool):
    if direct:  # skip LowerIntrin: the codegen's own table must handle every intrinsic
        return build_llvm(IRModule({"main": func}), Target("llvm"))
    return ember.build(func, target="llvm")


@pytest.mark.parametrize("direct", [False, True], ids=["via_build", "direct"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math(name, dtype, direct):
    ref, (lo, hi) = UNARY[name]
    x = _sample(lo, hi, dtype, seed=len(name))
    fn = getattr(tir.op, name)
    mod = _build(elementwise(lambda a: fn(a), [dtype], dtype), direct)
    out = np.zeros_like(x)
    mod(x, out)
    np.testing.assert_allclose(out, ref(x).astype(dtype), **TOL[dtype])


@pytest.mark.parametrize("direct", [False, True], ids=["via_build", "direct"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math(name, dtype, direct):
    ref, ra, rb = BINARY[name]
    x, y = _sample(*ra, dtype, seed=1), _sample(*rb, dtype, seed=2)
    fn = getattr(tir.op, name)
    mod = _build(elementwise(lambda a, b: fn(a, b), [dtype, dtype], dtype), direct)
    out = np.zeros_like(x)
    mod(x, y, out)
    np.testing.assert_allclose(out, ref(x, y).astype(dtype), **TOL[dtype])


@pytest.mark.parametrize("direct", [False, True], ids=["via_build", "direct"])
def test_ldexp(direct):
    x = np.array([1.0, -3.5, 0.75], "float32")
    e = np.array([3.0, -2.0, 10.0], "float32")
    mod = _build(elementwise(lambda a, b: tir.op.ldexp(a, b), ["float32", "float32"], "float32"), direct)
    out = np.zeros_like(x)
    mod(x, e, out)
    np.testing.assert_array_equal(out, np.ldexp(x, e.astype(int)))


@pytest.mark.parametrize("direct", [False, True], ids=["via_build", "direct"])
@pytest.mark.parametrize("name", ["exp", "tanh", "sqrt", "erf", "sigmoid", "floor"])
def test_float16_math_goes_through_float32(name, direct):
    ref, (lo, hi) = UNARY[name]
    x = _sample(lo, hi, "float16", seed=3)
    fn = getattr(tir.op, name)
    mod = _build(elementwise(lambda a: fn(a), ["float16"], "float16"), direct)
    out = np.zeros_like(x)
    mod(x, out)
    np.testing.assert_allclose(out.astype("float32"), ref(x.astype("float32")).astype("float16").astype("float32"),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_classification(name, dtype):
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 3e4], dtype)
    fn = getattr(tir.op, name)
    mod = ember.build(elementwise(lambda a: fn(a), [dtype], "bool"), target="llvm")
    out = np.zeros(x.shape, bool)
    mod(x, out)
    np.testing.assert_array_equal(out, getattr(np, name)(x))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
def test_bit_intrinsics(dtype):
    info = np.iinfo(dtype)
    a = np.random.default_rng(0).integers(max(info.min, -1000), min(info.max, 1000), 50).astype(dtype)
    b = np.random.default_rng(1).integers(0, 7, 50).astype(dtype)
    cases = {
        "bitwise_and": (lambda x, y: tir.op.bitwise_and(x, y), np.bitwise_and),
        "bitwise_or": (lambda x, y: tir.op.bitwise_or(x, y), np.bitwise_or),
        "bitwise_xor": (lambda x, y: x ^ y, np.bitwise_xor),
        "shift_left": (lambda x, y: x << y, np.left_shift),
        "shift_right": (lambda x, y: x >> y, np.right_shift),
    }
    for _, (fn, ref) in cases.items():
        mod = ember.build(elementwise(fn, [dtype, dtype], dtype), target="llvm")
        out = np.zeros_like(a)
        mod(a, b, out)
        np.testing.assert_array_equal(out, ref(a, b))
    mod = ember.build(elementwise(lambda x: ~x, [dtype], dtype), target="llvm")
    out = np.zeros_like(a)
    mod(a, out)
    np.testing.assert_array_equal(out, ~a)


def test_popcount_and_clz():
    a = np.array([0, 1, 2, 255, 2**31 - 1, 12345], "int32")
    out = np.zeros_like(a)
    ember.build(elementwise(lambda x: tir.op.popcount(x), ["int32"], "int32"), target="llvm")(a, out)
    np.testing.assert_array_equal(out, [bin(v).count("1") for v in a])
    ember.build(elementwise(lambda x: tir.op.clz(x), ["int32"], "int32"), target="llvm")(a, out)
    np.testing.assert_array_equal(out, [32 - int(v).bit_length() for v in a])


def test_integer_abs_and_int_fabs():
    a = np.array([-5, 0, 7, -1], "int32")
    out = np.zeros_like(a)
    ember.build(elementwise(lambda x: tir.op.abs(x), ["int32"], "int32"), target="llvm")(a, out)
    np.testing.assert_array_equal(out, np.abs(a))


@pytest.mark.parametrize("name", ["exp", "tanh", "erf", "sqrt", "atan2"])
def test_vector_math(name):
    lanes = 8
    A = decl_buffer((lanes,), "float32", "A")
    B = decl_buffer((lanes,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    idx = Ramp(const(0, "int32"), const(1, "int32"), lanes)
    fn = getattr(tir.op, name)
    value = fn(A[idx], Broadcast(const(1.0, "float32"), lanes)) if name == "atan2" else fn(A[idx])
    func = PrimFunc((a, b), BufferStore(B, value, (idx,)), buffer_map={a: A, b: B})
    x = np.linspace(0.1, 2, lanes).astype("float32")
    out = np.zeros_like(x)
    for mod in (ember.build(func, target="llvm"), _build(func, direct=True)):
        mod(x, out)
        ref = np.arctan2(x, 1.0) if name == "atan2" else UNARY[name][0](x)
        np.testing.assert_allclose(out, ref, rtol=3e-6)


def test_call_extern_and_reinterpret():
    x = np.array([1.0, 4.0, 9.0], "float32")
    out = np.zeros_like(x)
    ember.build(elementwise(lambda a: tir.op.call_extern("float32", "sqrtf", a), ["float32"], "float32"),
                target="llvm")(x, out)
    np.testing.assert_array_equal(out, np.sqrt(x))
    bits = np.zeros(3, "int32")
    ember.build(elementwise(lambda a: tir.op.reinterpret("int32", a), ["float32"], "int32"), target="llvm")(x, bits)
    np.testing.assert_array_equal(bits, x.view("int32"))


def test_call_llvm_pure_intrin():
    x = np.array([1.0, 2.0], "float32")
    y = np.array([3.0, 4.0], "float32")
    out = np.zeros_like(x)
    fn = lambda a, b: tir.op.call_llvm_pure_intrin("float32", "llvm.fma.f32", a, b, a)  # noqa: E731
    ember.build(elementwise(fn, ["float32", "float32"], "float32"), target="llvm")(x, y, out)
    np.testing.assert_array_equal(out, x * y + x)


def test_vector_halves_and_combine():
    from ember.ir import Call, DataType, Op

    A = decl_buffer((8,), "float32", "A")
    B = decl_buffer((8,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    vec = A[Ramp(const(0, "int32"), const(1, "int32"), 8)]
    low = Call(DataType("float32x4"), Op.get("tir.vectorlow"), (vec, const(0, "int32")))
    high = Call(DataType("float32x4"), Op.get("tir.vectorhigh"), (vec, const(0, "int32")))
    both = Call(DataType("float32x8"), Op.get("tir.vectorcombine"), (high, low))
    func = PrimFunc((a, b), BufferStore(B, both, (Ramp(const(0, "int32"), const(1, "int32"), 8),)),
                    buffer_map={a: A, b: B})
    x = np.arange(8, dtype="float32")
    out = np.zeros_like(x)
    _build(func, direct=True)(x, out)
    np.testing.assert_array_equal(out, np.concatenate([x[4:], x[:4]]))


def test_address_of_passes_a_pointer_to_call_extern():
    from ember.ir import Call, DataType, Op

    A = decl_buffer((4,), "float32", "A")
    B = decl_buffer((4,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    dst = Call(DataType("handle"), Op.get("tir.address_of"), (B[const(1, "int32")],))
    src = Call(DataType("handle"), Op.get("tir.address_of"), (A[const(0, "int32")],))
    copy = tir.op.call_extern("handle", "memcpy", dst, src, const(12, "int64"))
    func = PrimFunc((a, b), tir.Evaluate(copy), buffer_map={a: A, b: B})
    x = np.array([1, 2, 3, 4], "float32")
    out = np.zeros(4, "float32")
    _build(func, direct=True)(x, out)
    np.testing.assert_array_equal(out, [0, 1, 2, 3])
