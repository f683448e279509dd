"""Module.jit: an nn model compiled and called with torch tensors, weights from its state dict."""

import numpy as np
import pytest

from ember.relax.frontend import nn

torch = pytest.importorskip("torch")


def _model():
    m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    rng = np.random.default_rng(0)
    m.load_state_dict({n: rng.standard_normal(p.shape).astype("float32") for n, p in m.named_parameters()})
    return m


def test_jit_matches_torch():
    m = _model()
    tm = m.jit(spec={"forward": {"x": nn.spec.Tensor(("n", 4), "float32")}})
    ref = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    with torch.no_grad():
        for p, (_, q) in zip(ref.parameters(), m.named_parameters()):
            p.copy_(torch.from_numpy(q.numpy()))
    for batch in (1, 6):
        x = torch.randn(batch, 4)
        out = tm.forward(x)
        assert isinstance(out, torch.Tensor) and out.shape == (batch, 2)
        torch.testing.assert_close(out, ref(x).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(tm["forward"](np.ones((1, 4), "float32")), ref(torch.ones(1, 4)).detach())


def test_jit_errors():
    spec = {"forward": {"x": nn.spec.Tensor((1, 4), "float32")}}
    with pytest.raises(ValueError, match=r"parameters without data: \['0.weight', '0.bias'\]"):
        nn.Sequential(nn.Linear(4, 3)).jit(spec=spec)
    with pytest.raises(ValueError, match=r"out_format must be 'torch', got 'numpy'"):
        _model().jit(spec=spec, out_format="numpy")
    with pytest.raises(NotImplementedError, match=r"only the CPU is supported for now, got device 'cuda'"):
        _model().jit(spec=spec, device="cuda")
    tm = _model().jit(spec=spec)
    with pytest.raises(KeyError, match=r"no method 'main'; exported: \['forward'\]"):
        tm["main"]
    with pytest.raises(AttributeError, match=r"TorchModule has no attribute 'main'"):
        tm.main  # noqa: B018
