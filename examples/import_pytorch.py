"""Import a PyTorch model (torch.export), compile it and run it; compare with PyTorch.

Run: python examples/import_pytorch.py
"""

import numpy as np
import torch

import ember
from ember import relax
from ember.relax.frontend.torch import from_exported_program


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(x.mean(dim=(2, 3)))


def main():
    torch.manual_seed(0)
    model = Net().eval()
    x = torch.randn(2, 3, 16, 16)
    program = torch.export.export(model, (x,))
    mod = from_exported_program(program)  # weights become constants of the Relax module
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), ember.cpu())
    out = vm["main"](x.numpy())
    out = out[0] if isinstance(out, tuple | list) else out
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    print(f"PyTorch model: output {tuple(out.shape)} matches PyTorch")


if __name__ == "__main__":
    main()
