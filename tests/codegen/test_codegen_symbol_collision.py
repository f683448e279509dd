"""Issue 15: a kernel named after the libm function it calls (Relax names a float64 ``sin``
kernel "sin") must not capture that call: kernel symbols are prefixed (``kernel_symbol``)."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.codegen.llvm import load_library
from ember.ir import Call, Op
from ember.runtime.library import kernel_symbol

from codegen_helpers import elementwise, run

LIBM_NAMED = {
    "sin": np.sin, "cos": np.cos, "exp": np.exp, "log": np.log, "tanh": np.tanh, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "atan": np.arctan, "asin": np.arcsin, "log1p": np.log1p,
}


def _call(name):
    return lambda a: Call(a.dtype, Op.get(f"tir.{name}"), (a,))


@pytest.mark.parametrize("name", sorted(LIBM_NAMED))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kernel_named_like_its_libm_call_computes_the_function(name, dtype):
    x = np.linspace(0.1, 0.9, 7).astype(dtype)
    out = run(elementwise(_call(name), [dtype], dtype, name=name), x, out_dtype=dtype)
    np.testing.assert_allclose(out, LIBM_NAMED[name](x), rtol=1e-6)


@pytest.mark.parametrize("name", ["sin", "cos", "exp", "log", "tanh", "erf"])
def test_relax_float64_math_is_not_the_identity(name):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float64"))
    with bb.function("main", [x]):
        y = bb.emit(getattr(relax.op, name)(x))
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), ember.cpu())
    a = np.array([0.1, 0.2, 0.3, 0.4])
    got = vm["main"](ember.nd.array(a)).numpy()
    import math
    ref = np.array([getattr(math, name)(v) for v in a])
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_exported_library_with_libm_named_kernel(tmp_path):
    mod = ember.build(elementwise(_call("exp"), ["float64"], "float64", n=4, name="exp"), target="llvm")
    symbol = kernel_symbol("exp")
    assert f'@"{symbol}"(' in mod.get_source("ll-unopt")
    path = str(tmp_path / "exp.so")
    mod.export_library(path)
    x = np.array([0.0, 1.0, 2.0, 3.0])
    out = np.zeros(4)
    load_library(path)["exp"](x, out)
    np.testing.assert_allclose(out, np.exp(x))
