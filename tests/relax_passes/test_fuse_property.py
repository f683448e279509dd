"""Property: for random graphs of elementwise, broadcast, reduction and matmul ops (with
values used several times and several outputs), FuseOps + FuseTIR keep the result."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import relax
from ember.relax import op as R
from ember.relax import reference
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform import AnnotateTIROpPattern, FuseOps, FuseTIR, LegalizeOps

UNARY = [R.negative, R.sigmoid, R.tanh, R.nn.relu]
BINARY = [R.add, R.multiply, R.maximum]

step = st.tuples(st.integers(0, 3), st.integers(0, 100), st.integers(0, 100), st.integers(0, 100))


def _build(steps, n_outputs):
    x = relax.Var("x", TensorStructInfo([3, 4], "float32"))
    y = relax.Var("y", TensorStructInfo([3, 4], "float32"))
    w = relax.Var("w", TensorStructInfo([4, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y, w]):
        with bb.dataflow():
            values = [x, y]
            for kind, a, b, c in steps:
                u, v = values[a % len(values)], values[b % len(values)]
                if kind == 0:
                    values.append(bb.emit(UNARY[c % len(UNARY)](u)))
                elif kind == 1:
                    values.append(bb.emit(BINARY[c % len(BINARY)](u, v)))
                elif kind == 2:  # a reduction broadcast back: (3, 1) + (3, 4)
                    values.append(bb.emit(R.add(bb.emit(R.sum(u, axis=[1], keepdims=True)), v)))
                else:
                    values.append(bb.emit(R.matmul(u, w)))
            outs = [bb.emit_output(v) for v in values[-n_outputs:]]
        bb.emit_func_output(relax.Tuple(outs) if len(outs) > 1 else outs[0])
    return bb.get()


@settings(max_examples=20, deadline=None)
@given(st.lists(step, min_size=1, max_size=7), st.integers(1, 2), st.integers(0, 2**31))
def test_fusion_preserves_semantics(steps, n_outputs, seed):
    rng = np.random.default_rng(seed)
    mod = AnnotateTIROpPattern()(LegalizeOps()(_build(steps, n_outputs)))
    fused = FuseTIR()(FuseOps()(mod))
    relax.analysis.check_well_formed(fused)
    inputs = [rng.random(s).astype("float32") - 0.5 for s in [(3, 4), (3, 4), (4, 4)]]
    want, got = reference.run(mod, *inputs), reference.run(fused, *inputs)
    want = want if isinstance(want, tuple | list) else [want]
    got = got if isinstance(got, tuple | list) else [got]
    for w_, g in zip(want, got):
        np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                   np.asarray(w_.numpy() if hasattr(w_, "numpy") else w_), rtol=1e-5, atol=1e-6)
