"""LowerIntrin: each rewrite rule matches numpy, and only the codegen table remains."""

import numpy as np
import pytest
from tir_lower_builders import func_of, loop

from ember import tir
from ember.ir import Call, Op, const
from ember.tir import BufferStore, Evaluate, ForKind, Var, decl_buffer
from ember.tir import transform as T
from ember.tir.functor import collect
from ember.tir.interpreter import register_extern, run
from ember.tir.transform.lower_intrin import CODEGEN_INTRINSICS, STRUCTURAL_INTRINSICS

register_extern("hypotf", np.hypot)
register_extern("hypot", np.hypot)
register_extern("nextafterf", np.nextafter)
register_extern("ldexpf", lambda x, e: np.ldexp(x, np.int32(e)))


def _unary_func(name, dtype="float32", lanes=1):
    A = decl_buffer((8,), dtype, "A")
    B = decl_buffer((8,), dtype, "B")
    i = Var("i")
    if lanes == 1:
        body = loop(i, 8, BufferStore(B, tir.call_intrin(dtype, name, A[i]), (i,)))
    else:
        ramp = tir.Ramp(const(0), const(1), 8)
        vec = f"{dtype}x8"
        body = BufferStore(B, tir.call_intrin(vec, name, tir.BufferLoad(A, (ramp,))), (ramp,))
    return func_of([A, B], body)


_REFERENCE = {
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "exp10": lambda x: 10.0 ** x,
    "round": np.round,  # numpy rounds half to even
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}
_INPUTS = {
    "rsqrt": np.array([0.25, 1, 2, 4, 9, 16, 0.5, 3]),
    "acosh": np.array([1, 1.5, 2, 3, 4, 10, 1.1, 7]),
    "atanh": np.array([-0.9, -0.5, 0, 0.1, 0.5, 0.7, 0.8, -0.2]),
    "round": np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 3.5]),
}


def _remaining_calls(func):
    calls = collect(func.body, lambda n: isinstance(n, Call))
    return {c.op.name[4:] for c in calls if isinstance(c.op, Op)}


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("name", sorted(_REFERENCE))
def test_rule_matches_numpy(name, lanes):
    func = _unary_func(name, lanes=lanes)
    after = T.lower_intrin(func)
    assert name not in _remaining_calls(after)
    assert _remaining_calls(after) <= CODEGEN_INTRINSICS
    x = _INPUTS.get(name, np.linspace(-2, 2, 8)).astype("float32")
    out = np.zeros(8, "float32")
    run(after, x, out)
    np.testing.assert_allclose(out, _REFERENCE[name](x).astype("float32"), rtol=2e-6, atol=1e-6)


def test_round_is_half_to_even():
    after = T.lower_intrin(_unary_func("round"))
    assert _remaining_calls(after) == {"nearbyint"}


def test_float16_math_is_computed_in_float32():
    func = _unary_func("erf", "float16")
    after = T.lower_intrin(func)
    call = collect(after.body, lambda n: isinstance(n, Call))[0]
    assert str(call.dtype) == "float32" and call.op.name == "tir.erf"
    x = np.linspace(-2, 2, 8).astype("float16")
    out = np.zeros(8, "float16")
    run(after, x, out)
    import math

    np.testing.assert_allclose(out, np.array([math.erf(v) for v in x.astype("float64")]).astype("float16"), rtol=1e-3)


def test_binary_libm_rules_use_pure_externs():
    A = decl_buffer((4,), "float32", "A")
    B = decl_buffer((4,), "float32", "B")
    i = Var("i")
    value = tir.hypot(A[i], A[i] + const(1.0)) + tir.ldexp(A[i], const(2.0))
    func = func_of([A, B], loop(i, 4, BufferStore(B, value, (i,))))
    after = T.lower_intrin(func)
    assert _remaining_calls(after) == {"call_pure_extern"}
    x = np.arange(4, dtype="float32")
    out = np.zeros(4, "float32")
    run(after, x, out)
    np.testing.assert_allclose(out, np.hypot(x, x + 1) + x * 4, rtol=1e-6)


def test_integer_fabs_becomes_select():
    A = decl_buffer((4,), "int32", "A")
    i = Var("i")
    func = func_of([A], loop(i, 4, BufferStore(A, tir.call_intrin("int32", "fabs", A[i]), (i,))))
    after = T.lower_intrin(func)
    assert not _remaining_calls(after)
    x = np.array([-3, 0, 2, -1], "int32")
    run(after, x)
    np.testing.assert_array_equal(x, [3, 0, 2, 1])


def test_assume_statements_are_dropped_and_table_calls_kept():
    A = decl_buffer((4,), "float32", "A")
    i = Var("i")
    body = tir.seq(
        Evaluate(tir.call_intrin("bool", "assume", i < 4)),
        BufferStore(A, tir.exp(A[i]) + tir.call_intrin("float32", "atan2", A[i], A[i]), (i,)),
    )
    after = T.lower_intrin(func_of([A], loop(i, 4, body, ForKind.SERIAL)))
    assert _remaining_calls(after) == {"exp", "atan2"}
    assert not (CODEGEN_INTRINSICS & STRUCTURAL_INTRINSICS)
