"""End to end: every sample op case, legalised into one module, compiled once with
``relax.build`` and run on the VM, agrees with the numpy reference of the op."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.relax import reference
from ember.relax.transform.legalize_ops import LEGALIZE_TABLE, LegalizeOps

from relax_op_cases import CASES, v  # noqa: E402

NAMES = sorted(name for name in CASES if "relax." + name in LEGALIZE_TABLE)


def _fname(name):
    return "f_" + name.replace(".", "_")


@pytest.fixture(scope="module")
def compiled():
    bb = relax.BlockBuilder()
    for name in NAMES:
        build, inputs = CASES[name]
        params = [v(f"a{i}", a) for i, a in enumerate(inputs)]
        with bb.function(_fname(name), params):
            with bb.dataflow():
                out = bb.emit_output(build(*params))
            bb.emit_func_output(out)
    mod = bb.get()
    vm = relax.VirtualMachine(relax.build(LegalizeOps()(mod), "llvm"), ember.cpu())
    return mod, vm


def _flat(x):
    if isinstance(x, tuple | list):
        return [y for e in x for y in _flat(e)]
    return [np.asarray(x.numpy() if hasattr(x, "numpy") else x)]


@pytest.mark.parametrize("name", NAMES)
def test_vm_matches_reference(compiled, name):
    mod, vm = compiled
    inputs = CASES[name][1]
    with np.errstate(all="ignore"):
        want = _flat(reference.run(mod, *inputs, func_name=_fname(name)))
    got = _flat(vm[_fname(name)](*[ember.nd.array(a) for a in inputs]))
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
