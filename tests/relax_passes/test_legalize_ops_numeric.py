"""LegalizeOps on every operator with a sample case: the legalised module (call_tir of
topi PrimFuncs run by the TIR interpreter) agrees with the numpy reference of the op."""

import numpy as np
import pytest

from ember import relax
from ember.relax import reference
from ember.relax.transform.legalize_ops import LEGALIZE_TABLE, LegalizeOps

from relax_op_cases import CASES, v  # noqa: E402

# the ops every model needs (the legalisation part of the Relax issue)
REQUIRED = """abs negative exp log sqrt rsqrt sin cos tanh erf sigmoid add subtract multiply divide
power maximum minimum equal less greater where astype matmul permute_dims reshape flatten
expand_dims squeeze concat split strided_slice take broadcast_to full full_like zeros ones
zeros_like ones_like arange sum mean max min prod variance argmax argmin nn.relu nn.gelu
nn.gelu_tanh nn.silu nn.softmax nn.log_softmax nn.layer_norm nn.batch_norm nn.group_norm
nn.rms_norm nn.dropout nn.conv1d nn.conv2d nn.conv2d_transpose nn.max_pool2d nn.avg_pool2d
nn.adaptive_avg_pool2d nn.pad nn.attention""".split()


def test_required_ops_have_legalizers():
    assert [op for op in REQUIRED if "relax." + op not in LEGALIZE_TABLE] == []


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


@pytest.mark.parametrize("name", sorted(CASES))
def test_legalized_matches_reference(name):
    if "relax." + name not in LEGALIZE_TABLE:
        pytest.skip(f"relax.{name} has no legaliser (LegalizeOps reports it)")
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
