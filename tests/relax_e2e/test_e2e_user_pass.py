"""Acceptance: a user pass written with ``PyExprMutator`` rewrites matmul + add into a call of
a ``Primitive`` function; applied as a ``module_pass``, the module still builds and runs."""

import numpy as np

import ember
from ember import relax
from ember.ir import Op
from ember.relax.frontend import nn


@relax.expr_functor.mutator
class MatmulAddFusor(relax.PyExprMutator):
    """``add(matmul(x, w), b)`` → ``fused_matmul_add{i}(x, w, b)``, a Primitive function."""

    def __init__(self, mod):
        super().__init__(mod)
        self.mod_ = mod
        self.add_op, self.matmul_op = Op.get("relax.add"), Op.get("relax.matmul")
        self.counter = 0

    def transform(self):
        for gv, func in self.mod_.functions.items():
            if not isinstance(func, relax.Function) or func.attrs.get("Primitive"):
                continue
            func = relax.analysis.remove_all_unused(self.visit_expr(func))
            self.builder_.update_func(gv, func)
        return self.builder_.get()

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if not (isinstance(call.op, Op) and call.op is self.add_op):
            return call
        value = self.lookup_binding(call.args[0])
        if not (isinstance(value, relax.Call) and value.op is self.matmul_op):
            return call
        x, w, b = value.args[0], value.args[1], call.args[1]
        params = [relax.Var(n, a.struct_info) for n, a in (("x", x), ("w", w), ("b", b))]
        bb = relax.BlockBuilder()
        name = f"fused_matmul_add{self.counter}"
        self.counter += 1
        with bb.function(name, params, attrs={"Primitive": 1}, private=True):
            with bb.dataflow():
                mm = bb.emit(relax.op.matmul(params[0], params[1]))
                out = bb.emit_output(relax.op.add(mm, params[2]))
            bb.emit_func_output(out)
        gv = self.builder_.add_func(bb.get()[name], name)
        return relax.Call(gv, [x, w, b])


@ember.transform.module_pass(opt_level=2, name="MatmulAddFuse")
class FuseMatmulAddPass:
    def transform_module(self, mod, ctx):
        return MatmulAddFusor(mod).transform()


class MLP(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(32, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(nn.op.relu(self.fc1(x)))


def _calls(func):
    return [b.value for blk in func.body.blocks for b in blk.bindings if isinstance(b.value, relax.Call)]


def test_user_pass_rewrites_and_still_runs():
    mod, param_spec = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("n", 32), "float32")}})
    fused = FuseMatmulAddPass()(mod)
    names = sorted(gv.name_hint for gv in fused.get_global_vars())
    assert names == ["forward", "fused_matmul_add0", "fused_matmul_add1"]
    assert fused["fused_matmul_add0"].attrs["Primitive"] == 1
    ops = [c.op.name_hint if isinstance(c.op, relax.GlobalVar) else c.op.name for c in _calls(fused["forward"])]
    assert ops == ["relax.permute_dims", "fused_matmul_add0", "relax.nn.relu", "relax.permute_dims",
                   "fused_matmul_add1"]
    relax.analysis.check_well_formed(fused)

    lowered = relax.get_pipeline("zero")(fused)
    assert isinstance(lowered["fused_matmul_add0"], ember.tir.PrimFunc)  # FuseTIR made it one kernel
    ex = relax.build(lowered, target="llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    rng = np.random.default_rng(0)
    w1, b1, w2, b2 = (rng.standard_normal(s.shape).astype("float32") for _, s in param_spec)
    for batch in (1, 5):
        x = rng.standard_normal((batch, 32)).astype("float32")
        out = vm["forward"](x, w1, b1, w2, b2).numpy()
        np.testing.assert_allclose(out, np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4, atol=1e-5)
