"""Helpers shared by the PyTorch frontend tests: export → import → build → run → compare."""

from __future__ import annotations

import numpy as np
import torch

import ember
from ember import relax
from ember.relax.frontend.torch import from_exported_program


def build_vm(mod):
    return relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())


def as_list(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, list | tuple):
        return [t for item in x for t in as_list(item)]
    return [x]


def compare(outputs, reference, rtol=1e-4, atol=1e-5):
    got = as_list(outputs if isinstance(outputs, tuple | list) else [outputs])
    want = as_list(reference)
    assert len(got) == len(want), f"{len(got)} outputs, PyTorch gave {len(want)}"
    for g, w in zip(got, want):
        g = g.numpy() if hasattr(g, "numpy") else np.asarray(g)
        w = w.detach().numpy() if isinstance(w, torch.Tensor) else np.asarray(w)
        assert g.shape == w.shape, f"shape {g.shape} != PyTorch's {w.shape}"
        if w.dtype == np.bool_ or np.issubdtype(w.dtype, np.integer):
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def check_module(model, args, dynamic_shapes=None, run_args=None, rtol=1e-4, atol=1e-5, **kwargs):
    """Export ``model``, import it, build it and compare with PyTorch on ``args`` (and on
    each tuple of ``run_args``, e.g. other sizes of a dynamic dim)."""
    model = model.eval() if isinstance(model, torch.nn.Module) else model
    ep = torch.export.export(model, tuple(args), dynamic_shapes=dynamic_shapes)
    mod = from_exported_program(ep, **kwargs)
    vm = build_vm(mod)
    for a in [args] + list(run_args or []):
        with torch.no_grad():
            ref = model(*a)
        compare(vm["main"](*[t.clone() for t in a]), ref, rtol, atol)
    return mod


class Fn(torch.nn.Module):
    """Wrap a function of tensors as a module for torch.export."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)
