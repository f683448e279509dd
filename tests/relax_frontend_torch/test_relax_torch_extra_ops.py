"""relax.op.nn.selu / softplus / conv1d_transpose / nll_loss: struct info, legalisation and
numbers against PyTorch (built with relax.build and run on the VM)."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import ember
from ember import relax
from ember.relax import BlockBuilder


def run(build, *arrays):
    bb = BlockBuilder()
    params = [relax.Var(f"a{i}", relax.TensorStructInfo(list(a.shape), str(a.dtype))) for i, a in enumerate(arrays)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(build(*params)))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), ember.cpu())
    return vm["main"](*arrays).numpy(), out.struct_info


rng = np.random.default_rng(0)
x = (rng.standard_normal((2, 3, 4)) * 3).astype("float32")


def test_selu():
    got, _ = run(relax.op.nn.selu, x)
    np.testing.assert_allclose(got, F.selu(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_softplus():
    got, _ = run(lambda t: relax.op.nn.softplus(t, 2.0, 4.0), x)
    np.testing.assert_allclose(got, F.softplus(torch.from_numpy(x), 2.0, 4.0).numpy(), rtol=1e-5, atol=1e-6)


def test_conv1d_transpose():
    data = rng.standard_normal((1, 3, 5)).astype("float32")
    w = rng.standard_normal((3, 2, 3)).astype("float32")
    got, sinfo = run(lambda a, b: relax.op.nn.conv1d_transpose(a, b, 2, 1, 1), data, w)
    ref = F.conv_transpose1d(torch.from_numpy(data), torch.from_numpy(w), stride=2, padding=1, output_padding=1)
    assert [int(d) for d in sinfo.shape.values] == list(ref.shape)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    logp = np.log(rng.dirichlet(np.ones(4), size=3)).astype("float32")
    target = np.array([3, 0, 1], "int64")
    got, _ = run(lambda p, t: relax.op.nn.nll_loss(p, t, reduction=reduction), logp, target)
    ref = F.nll_loss(torch.from_numpy(logp), torch.from_numpy(target), reduction=reduction).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none', got 'max'"):
        relax.op.nn.nll_loss(relax.Var("p", relax.TensorStructInfo([2, 3], "float32")),
                             relax.Var("t", relax.TensorStructInfo([2], "int64")), reduction="max")
    bb = BlockBuilder()
    ints = relax.Var("i", relax.TensorStructInfo([2, 3], "int32"))
    with pytest.raises(TypeError, match="relax.nn.selu needs a float tensor, got dtype int32"):
        with bb.function("f", [ints]):
            bb.emit(relax.op.nn.selu(ints))
