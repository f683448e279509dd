"""relax.frontend.nn's Conv3D, ConvTranspose1D/2D, Identity, Dropout match the PyTorch
layers they mirror, with PyTorch's weights loaded into them."""

import numpy as np
import pytest
import torch

import ember
from ember import relax
from ember.relax.frontend import nn

CASES = [
    (lambda: nn.Conv3D(2, 4, 3, stride=2, padding=1), lambda: torch.nn.Conv3d(2, 4, 3, stride=2, padding=1),
     (1, 2, 5, 5, 5)),
    (lambda: nn.ConvTranspose2D(3, 4, 3, stride=2, padding=1, output_padding=1),
     lambda: torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), (1, 3, 4, 5)),
    (lambda: nn.ConvTranspose1D(3, 2, 3, stride=2, padding=1, bias=False),
     lambda: torch.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, bias=False), (2, 3, 6)),
    (lambda: nn.Identity(), lambda: torch.nn.Identity(), (2, 3)),
    (lambda: nn.Dropout(0.3), lambda: torch.nn.Dropout(0.3).eval(), (2, 3)),
]


@pytest.mark.parametrize("make, make_torch, shape", CASES, ids=["conv3d", "convT2d", "convT1d", "identity",
                                                                  "dropout"])
def test_module_matches_pytorch(make, make_torch, shape):
    torch.manual_seed(0)
    model, ref = make(), make_torch()
    mod, spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor(shape, "float32")}})
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    state = ref.state_dict()
    params = [state[name].detach().numpy() for name, _ in spec]
    x = torch.randn(*shape)
    np.testing.assert_allclose(vm["forward"](x.numpy(), *params).numpy(), ref(x).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_dropout_rejects_bad_rate():
    with pytest.raises(ValueError, match=r"nn.Dropout: p must be in \[0, 1\], got 1.5"):
        nn.Dropout(1.5)
