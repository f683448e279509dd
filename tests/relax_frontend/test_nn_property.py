"""Property: any stack of nn.Linear layers with activations, exported with a symbolic batch,
computes what numpy computes (reference interpreter), for any batch size."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import relax
from ember.relax.frontend import nn

ACTS = {"relu": (nn.ReLU, lambda h: np.maximum(h, 0)), "silu": (nn.SiLU, lambda h: h / (1 + np.exp(-h))),
        "none": (None, lambda h: h)}


@settings(max_examples=15, deadline=None)
@given(dims=st.lists(st.integers(1, 6), min_size=2, max_size=4), batch=st.integers(1, 4),
       acts=st.lists(st.sampled_from(sorted(ACTS)), min_size=3, max_size=3), bias=st.booleans(),
       seed=st.integers(0, 2**16))
def test_linear_stack_matches_numpy(dims, batch, acts, bias, seed):
    layers, refs = [], []
    for i, (a, b) in enumerate(zip(dims, dims[1:])):
        layers.append(nn.Linear(a, b, bias=bias))
        module, fn = ACTS[acts[i]]
        if module is not None:
            layers.append(module())
        refs.append(fn)
    model = nn.Sequential(*layers)
    rng = np.random.default_rng(seed)
    model.load_state_dict({n: rng.standard_normal(p.shape).astype("float32") for n, p in model.named_parameters()})
    mod, param_spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor(("batch", dims[0]), "float32")}})
    relax.analysis.check_well_formed(mod)
    x = rng.standard_normal((batch, dims[0])).astype("float32")
    params = [p.numpy() for p in model.parameters()]
    assert [n for n, _ in param_spec] == [n for n, _ in model.named_parameters()]
    expect, k = x, 0
    for fn in refs:
        w = params[k]
        expect = expect @ w.T + (params[k + 1] if bias else 0)
        k += 2 if bias else 1
        expect = fn(expect)
    out = relax.reference.run(mod, x, *params, func_name="forward")
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-5)
