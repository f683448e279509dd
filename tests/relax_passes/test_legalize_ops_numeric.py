"""LegalizeOps on every operator with a sample case: the legalised module (call_tir of
topi PrimFuncs run by the TIR interpreter) agrees with the numpy reference of the op."""

import numpy as np
import pytest

from ember import relax
from ember.relax import reference
from ember.relax.transform.legalize_ops import LegalizeOps

from relax_op_cases import CASES, v  # noqa: E402

# ops with a sample case but no legaliser yet (reported by LegalizeOps, see test_legalize_errors)
NOT_LEGALIZED = {"gather_nd", "scatter_elements", "sort", "argsort", "topk", "einsum"}


def _module(name):
    build, inputs = CASES[name]
    params = [v(f"a{i}", a) for i, a in enumerate(inputs)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(build(*params))
        bb.emit_func_output(out)
    return bb.get(), inputs


def _flat(x):
    if isinstance(x, tuple | list):
        return [y for e in x for y in _flat(e)]
    return [np.asarray(x.numpy() if hasattr(x, "numpy") else x)]


def _calls(mod):
    text = mod["main"].script()
    return text.count("R.call_tir(")


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_LEGALIZED))
def test_legalized_matches_reference(name):
    mod, inputs = _module(name)
    legal = LegalizeOps()(mod)
    assert _calls(legal) >= 1 or name in {"nn.dropout"}
    assert "R.call_tir" in legal["main"].script()
    relax.analysis.check_well_formed(legal)
    with np.errstate(all="ignore"):
        want = _flat(reference.run(mod, *inputs))
        got = _flat(reference.run(legal, *inputs))
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert g.shape == w.shape and g.dtype == w.dtype, name
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
