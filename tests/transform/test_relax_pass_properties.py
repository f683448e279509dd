"""Property test: the cleanup passes preserve what random Relax graphs compute."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import relax, transform
from ember.relax import op as R
from ember.relax.analysis import check_well_formed
from ember.relax.reference import run

UNARY = [R.exp, R.negative, R.tanh, R.nn.relu, R.sigmoid]
BINARY = [R.add, R.subtract, R.multiply, R.maximum]

step = st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))


def build(steps):
    """A chain of ops over x, constants, and earlier values (with repeats, so CSE has work)."""
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            values = [x, relax.const(np.full((2, 3), 0.5, "float32")), relax.const(np.float32(2.0))]
            for kind, a, b, c in steps:
                if kind == 0:
                    out = UNARY[a % len(UNARY)](values[b % len(values)])
                elif kind == 1:
                    out = BINARY[a % len(BINARY)](values[b % len(values)], values[c % len(values)])
                else:  # an alias
                    out = values[b % len(values)]
                values.append(bb.emit(out))
            tensors = [v for v in values if v.struct_info.ndim == 2]
            gv = bb.emit_output(tensors[-1])
        bb.emit_func_output(gv)
    return bb.get()


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=8))
def test_cleanup_passes_preserve_semantics(steps):
    mod = build(steps)
    pipeline = transform.Sequential([
        relax.transform.FoldConstant(),
        relax.transform.CanonicalizeBindings(),
        relax.transform.EliminateCommonSubexpr(),
        relax.transform.DeadCodeElimination(),
        relax.transform.ToNonDataflow(),
    ])
    out = pipeline(mod)
    check_well_formed(out)
    a = np.linspace(-2, 2, 6, dtype="float32").reshape(2, 3)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(run(out, a), run(mod, a), rtol=1e-6)
