"""Every converter family checked numerically against PyTorch: the cases of one family
(``torch_op_cases.py``) are exported as one module (one build per family keeps CI short),
imported, compiled with ``relax.build(mod, "llvm")`` and compared case by case."""

import pytest
import torch

from torch_check import as_list, build_vm, compare
from torch_op_cases import FAMILIES

from ember.relax.frontend.torch import from_exported_program


class Cases(torch.nn.Module):
    def __init__(self, cases):
        super().__init__()
        self.cases = cases

    def forward(self, *flat):
        outs, i = [], 0
        for _, fn, inputs in self.cases:
            outs.append(fn(*flat[i:i + len(inputs)]))
            i += len(inputs)
        return tuple(outs)


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "export_ir"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_matches_pytorch(family, decompose):
    """``core_aten``: after ``run_decompositions`` (the default); ``export_ir``: the ops as
    ``torch.export`` records them (conv2d, linear, layer_norm, attention … undecomposed)."""
    cases = FAMILIES[family]
    flat = [t for _, _, inputs in cases for t in inputs]
    model = Cases(cases)
    mod = from_exported_program(torch.export.export(model, tuple(flat)), run_ep_decomposition=decompose)
    got = list(build_vm(mod)["main"](*[t.clone() for t in flat]))
    with torch.no_grad():
        refs = model(*flat)
    failures = []
    for (name, _, _), ref in zip(cases, refs):
        n = len(as_list(ref))
        mine, got = got[:n], got[n:]
        try:
            compare(mine, ref, rtol=1e-4, atol=1e-5)
        except AssertionError as err:
            failures.append(f"{name}: {str(err).strip().splitlines()[0:6]}")
    assert not got
    assert not failures, "\n".join(failures)
