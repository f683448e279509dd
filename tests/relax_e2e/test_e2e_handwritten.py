"""Acceptance: a Relax function assembled by hand from ``relax.Var`` and ``relax.op`` calls,
wrapped with ``IRModule.from_expr``, printed as TVMScript, built and run."""

import numpy as np

import ember
from ember import relax
from ember.ir import IRModule, structural_equal

F32 = "float32"


def _linear_relu_by_hand() -> relax.Function:
    """main(x, w, b) = relu(x @ w.T + b), every binding written out."""
    x = relax.Var("x", relax.TensorStructInfo((1, 784), F32))
    w = relax.Var("w", relax.TensorStructInfo((128, 784), F32))
    b = relax.Var("b", relax.TensorStructInfo((128,), F32))
    wt = relax.DataflowVar("wt", relax.TensorStructInfo((784, 128), F32))
    mm = relax.DataflowVar("mm", relax.TensorStructInfo((1, 128), F32))
    biased = relax.DataflowVar("biased", relax.TensorStructInfo((1, 128), F32))
    out = relax.Var("out", relax.TensorStructInfo((1, 128), F32))
    block = relax.DataflowBlock([
        relax.VarBinding(wt, relax.op.permute_dims(w, [1, 0])),
        relax.VarBinding(mm, relax.op.matmul(x, wt)),
        relax.VarBinding(biased, relax.op.add(mm, b)),
        relax.VarBinding(out, relax.op.nn.relu(biased)),
    ])
    body = relax.SeqExpr([block], out)
    return relax.Function([x, w, b], body, relax.TensorStructInfo((1, 128), F32)).with_attr("global_symbol", "main")


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.random(s, dtype=F32) for s in ((1, 784), (128, 784), (128,))]


def _normalized(mod: IRModule) -> IRModule:
    return relax.transform.Normalize()(mod)


def test_prints_as_tvmscript():
    mod = _normalized(IRModule.from_expr(_linear_relu_by_hand()))
    text = mod.script()
    for line in ('def main(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((128, 784), dtype="float32"), '
                 'b: R.Tensor((128,), dtype="float32")) -> R.Tensor((1, 128), dtype="float32"):',
                 "with R.dataflow():",
                 'wt: R.Tensor((784, 128), dtype="float32") = R.permute_dims(w, axes=',
                 "mm: R.Tensor((1, 128), dtype=\"float32\") = R.matmul(x, wt",
                 "biased: R.Tensor((1, 128), dtype=\"float32\") = R.add(mm, b)",
                 "out: R.Tensor((1, 128), dtype=\"float32\") = R.nn.relu(biased)",
                 "R.output(out)", "return out"):
        assert line in text, f"{line!r} not in\n{text}"


def test_printed_script_parses_back():
    from ember.script import from_source
    from ember.script import relax as R

    mod = _normalized(IRModule.from_expr(_linear_relu_by_hand()))
    again = from_source(mod.script(), {"R": R})
    assert structural_equal(again, mod)


def test_builds_and_runs():
    mod = _normalized(IRModule.from_expr(_linear_relu_by_hand()))
    ex = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    x, w, b = _inputs()
    out = vm["main"](ember.nd.array(x), ember.nd.array(w), ember.nd.array(b)).numpy()
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-5)


def test_nested_call_body_builds():
    x = relax.Var("x", relax.TensorStructInfo((1, 784), F32))
    w = relax.Var("w", relax.TensorStructInfo((128, 784), F32))
    b = relax.Var("b", relax.TensorStructInfo((128,), F32))
    body = relax.op.nn.relu(relax.op.add(relax.op.matmul(x, relax.op.permute_dims(w)), b))
    func = relax.Function([x, w, b], body, relax.TensorStructInfo((1, 128), F32))
    mod = IRModule.from_expr(func)  # as a user writes it: the zero pipeline normalises
    vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), ember.cpu())
    x_, w_, b_ = _inputs(1)
    np.testing.assert_allclose(vm["main"](x_, w_, b_).numpy(), np.maximum(x_ @ w_.T + b_, 0), rtol=1e-5)
