"""Acceptance (IR level): FuseOps puts conv2d / matmul + bias + activation into one kernel;
FoldConstant evaluates constant subgraphs at compile time."""

import numpy as np

import ember
from ember import relax, tir
from ember.relax.frontend import nn
from ember.relax.transform import FoldConstant, LegalizeOps


class ConvNet(nn.Module):
    def __init__(self):
        self.conv = nn.Conv2D(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        h = nn.op.relu(self.conv(x))
        h = nn.op.reshape(h, [x.shape[0], -1])
        return nn.op.gelu(self.fc(h))


def _call_tir_targets(func):
    """Names of the PrimFuncs ``func`` calls, in order."""
    out = []
    for block in func.body.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call) and v.op.name == "relax.call_tir":
                out.append(v.args[0].name_hint)
    return out


def _block_names(prim):
    names = []
    tir.post_order_visit(prim.body, lambda n: names.append(n.name_hint) if isinstance(n, tir.Block) else None)
    return names


def test_conv_and_matmul_fuse_with_bias_and_activation():
    mod, _ = ConvNet().export_tvm(spec={"forward": {"x": nn.spec.Tensor((2, 3, 8, 8), "float32")}})
    out = relax.get_pipeline("zero")(mod)
    kernels = _call_tir_targets(out["forward"])
    conv = [k for k in kernels if "conv2d" in k]
    dense = [k for k in kernels if "matmul" in k]
    assert len(conv) == 1 and "add" in conv[0] and "relu" in conv[0], kernels
    assert len(dense) == 1 and "add" in dense[0] and "gelu" in dense[0], kernels
    assert not any(k in ("relu", "add", "gelu") for k in kernels), kernels  # no separate epilogue kernels
    assert all(isinstance(out[k], tir.PrimFunc) for k in kernels)
    assert not [gv for gv, f in out.functions.items() if isinstance(f, relax.Function) and f.attrs.get("Primitive")]
    # the fused conv kernel computes conv, bias and relu in one PrimFunc
    blocks = " ".join(_block_names(out[conv[0]])).lower()
    assert "conv2d" in blocks and "relu" in blocks and "add" in blocks


def test_fused_convnet_runs():
    model = ConvNet()
    mod, param_spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor((2, 3, 8, 8), "float32")}})
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), ember.cpu())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 8, 8)).astype("float32")
    params = [rng.uniform(-0.2, 0.2, s.shape).astype("float32") for _, s in param_spec]
    expect = relax.reference.run(mod, x, *params, func_name="forward")
    np.testing.assert_allclose(vm["forward"](x, *params).numpy(), expect, rtol=1e-4, atol=1e-5)


class WithConstants(nn.Module):
    """forward(x) = x * ((c + 1) * 2): the scale is a constant subgraph."""

    def forward(self, x):
        c = nn.Tensor.from_const(np.arange(4, dtype="float32"))
        return x * ((c + 1.0) * 2.0)


def _ops(func):
    return [b.value.op.name if isinstance(b.value.op, ember.ir.Op) else str(b.value.op)
            for blk in func.body.blocks for b in blk.bindings if isinstance(b.value, relax.Call)]


def test_fold_constant_evaluates_constant_subgraph():
    mod, _ = WithConstants().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("n", 4), "float32")}})
    assert _ops(mod["forward"]) == ["relax.add", "relax.multiply", "relax.multiply"]
    folded = FoldConstant()(LegalizeOps()(mod))
    calls = [b.value for blk in folded["forward"].body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call)]
    assert len(calls) == 1  # only x * scale is left
    scale = [a for a in calls[0].args[1].fields if isinstance(a, relax.Constant)]
    assert len(scale) == 1
    np.testing.assert_array_equal(scale[0].numpy(), (np.arange(4) + 1.0) * 2.0)
    x = np.ones((3, 4), "float32")
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), ember.cpu())
    np.testing.assert_array_equal(vm["forward"](x).numpy(), x * (np.arange(4) + 1) * 2)
