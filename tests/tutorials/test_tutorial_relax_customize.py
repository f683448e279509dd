"""Tutorial: customize optimization — a user pass (``PyExprMutator`` registered with
``@relax.expr_functor.mutator`` and wrapped by ``@tvm.transform.module_pass``) sends
``matmul + add`` to a library function registered with ``tvm.register_func`` and called
through ``R.call_dps_packed``; the rest is legalized, fused and built with a
``tvm.transform.Sequential`` pipeline."""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.relax.frontend import nn
from ember.script import relax as R

CALLS = {"tutorials_test.linear": 0}


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


@tvm.register_func("tutorials_test.linear", override=True)
def _linear(x, w, b, out):
    """out = x @ w + b, computed by "a vendor library" (numpy here) in place."""
    CALLS["tutorials_test.linear"] += 1
    res = np.from_dlpack(x) @ np.from_dlpack(w) + np.from_dlpack(b)
    np.copyto(np.from_dlpack(out), res)


@relax.expr_functor.mutator
class MatmulAddToLibrary(relax.PyExprMutator):
    """Rewrite ``add(matmul(x, w), b)`` into ``call_dps_packed("tutorials_test.linear", x, w, b)``."""

    def __init__(self, mod: tvm.IRModule):
        super().__init__(mod)
        self.mod = mod

    def visit_call_(self, call: relax.Call) -> relax.Expr:
        call = self.visit_expr_post_order(call)
        if not (isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.add"):
            return call
        lhs = call.args[0]
        matmul = self.lookup_binding(lhs) if isinstance(lhs, relax.Var) else None
        if not (isinstance(matmul, relax.Call) and matmul.op.name == "relax.matmul"):
            return call
        x, w = matmul.args
        return relax.call_dps_packed("tutorials_test.linear", (x, w, call.args[1]), out_sinfo=call.struct_info)

    def transform(self) -> tvm.IRModule:
        for gv, func in self.mod.functions_items():
            if isinstance(func, relax.Function):
                self.builder_.update_func(gv, self.visit_expr(func))
        return self.builder_.get()


@tvm.transform.module_pass(opt_level=0, name="MatmulAddToLibrary")
class MatmulAddToLibraryPass:
    def transform_module(self, mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
        return MatmulAddToLibrary(mod).transform()


def _reference(x, params):
    w1, b1, w2, b2 = params
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


@pytest.fixture(scope="module")
def model():
    mod, param_spec = MLP().export_tvm({"forward": {"x": nn.spec.Tensor((4, 64), "float32")}})
    rng = np.random.default_rng(0)
    params = [rng.random(tuple(p.shape)).astype("float32") - 0.5 for _, p in param_spec]
    x = rng.random((4, 64)).astype("float32")
    return mod, params, x


def test_rewrite_pass_then_sequential_pipeline(model, capsys):
    mod, params, x = model
    seq = tvm.transform.Sequential([
        MatmulAddToLibraryPass(),
        relax.transform.DeadCodeElimination(),
        tvm.transform.PrintIR("after library dispatch"),
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FuseOps(),
        relax.transform.FuseTIR(),
    ])
    with tvm.transform.PassContext(opt_level=3):
        mod = seq(mod)
    printed = capsys.readouterr().out
    assert "after library dispatch" in printed
    assert printed.count('R.call_dps_packed("tutorials_test.linear"') == 2
    assert "R.matmul" not in mod.script()

    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    before = CALLS["tutorials_test.linear"]
    out = vm["forward"](tvm.nd.array(x), *[tvm.nd.array(p) for p in params])
    assert CALLS["tutorials_test.linear"] == before + 2
    tvm.testing.assert_allclose(out.numpy(), _reference(x, params), rtol=1e-4, atol=1e-5)


def test_function_pass_and_opt_level_gating(model):
    mod, _, _ = model
    seen = []

    @relax.transform.function_pass(opt_level=2, name="RecordNames")
    def record(func, mod, ctx):
        seen.append(len(func.params))
        return func

    with tvm.transform.PassContext(opt_level=1):
        tvm.transform.Sequential([record])(mod)
    assert seen == []
    with tvm.transform.PassContext(opt_level=2):
        tvm.transform.Sequential([record])(mod)
    assert seen == [5]


def test_call_dps_packed_in_tvmscript():
    @tvm.register_func("tutorials_test.add_one", override=True)
    def _add_one(x, out):
        np.copyto(np.from_dlpack(out), np.from_dlpack(x) + 1)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.call_dps_packed("tutorials_test.add_one", (x,), out_sinfo=R.Tensor((3,), "float32"))
        return y

    mod = relax.get_pipeline("zero")(tvm.IRModule.from_expr(main))
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.nd.array(np.arange(3, dtype="float32")))
    np.testing.assert_allclose(out.numpy(), [1, 2, 3])


def test_unregistered_packed_function_is_reported():
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.call_dps_packed("tutorials_test.not_registered", (x,), out_sinfo=R.Tensor((3,), "float32"))
        return y

    mod = relax.get_pipeline("zero")(tvm.IRModule.from_expr(main))
    with pytest.raises(Exception, match="tutorials_test.not_registered"):
        vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
        vm["main"](tvm.nd.array(np.zeros(3, dtype="float32")))


def test_schedule_a_fused_kernel_inside_the_relax_module(model):
    mod, params, x = model
    mod = relax.get_pipeline("zero")(mod)
    fused = next(gv.name_hint for gv in mod.get_global_vars() if gv.name_hint.startswith("fused_NT_matmul"))
    sch = tvm.tir.Schedule(mod)
    sch.work_on(fused)
    i, j, k = sch.get_loops(sch.get_block("NT_matmul"))
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i, j0, k, j1)
    sch.vectorize(j1)
    sch.parallel(i)
    assert isinstance(sch.mod["forward"], relax.Function)
    vm = relax.VirtualMachine(relax.build(sch.mod, target="llvm"), tvm.cpu())
    out = vm["forward"](tvm.nd.array(x), *[tvm.nd.array(p) for p in params])
    tvm.testing.assert_allclose(out.numpy(), _reference(x, params), rtol=1e-4, atol=1e-5)
