"""Relax passes: before/after pairs compared structurally, numerics kept, pass-infra behaviour."""

import numpy as np
import pytest

from ember import relax, tir, transform
from ember.ir import IRModule, assert_structural_equal
from ember.relax import op as R
from ember.relax.analysis import check_well_formed, well_formed
from ember.relax.reference import run


def T(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def func_of(build, params, name="main"):
    """Build ``name`` with a dataflow block filled by ``build(bb, *params)`` → output var."""
    bb = relax.BlockBuilder()
    with bb.function(name, params):
        with bb.dataflow():
            out = build(bb, *params)
            gv = bb.emit_output(out)
        bb.emit_func_output(gv)
    return bb.get()


def test_dce_removes_unused_bindings_and_functions():
    x = relax.Var("x", T([4]))

    def before(bb, x):
        bb.emit(R.exp(x))  # unused
        return bb.emit(R.add(x, x))

    mod = func_of(before, [x])
    y = relax.Var("y", T([4]))
    bb = relax.BlockBuilder(mod)
    with bb.function("unused_helper", [y], private=True):
        bb.emit_func_output(y)
    mod = bb.get()
    out = relax.transform.DeadCodeElimination()(mod)
    assert "unused_helper" not in out
    names = [b.value.op.name for b in out["main"].body.blocks[0].bindings if isinstance(b.value, relax.Call)]
    assert names == ["relax.add"]

    def expected(bb, x):
        return bb.emit(R.add(x, x))

    assert_structural_equal(out["main"], func_of(expected, [relax.Var("x", T([4]))])["main"])


def test_dce_keeps_impure_calls():
    x = relax.Var("x", T([2]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=False):
        bb.emit(R.print(x, format="x={}"))
        bb.emit_func_output(x)
    mod = relax.transform.DeadCodeElimination()(bb.get())
    assert len(mod["main"].body.blocks[0].bindings) == 1


def test_canonicalize_bindings():
    x = relax.Var("x", T([4]))

    def before(bb, x):
        a = bb.emit(R.exp(x))
        b = bb.emit(a)  # trivial alias
        c = bb.match_cast(b, T([4]))  # no-op cast
        return bb.emit(R.add(c, b))

    # as in TVM, the block's output alias ``gv = lv`` is folded too: lv's binding takes gv's name
    x2 = relax.Var("x", T([4]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x2]):
        with bb.dataflow():
            a = bb.emit(R.exp(x2))
            gv = bb.emit_output(R.add(a, a))
        bb.emit_func_output(gv)

    mod = relax.transform.CanonicalizeBindings()(func_of(before, [x]))
    assert_structural_equal(mod["main"], bb.get()["main"])
    assert well_formed(mod)


def test_cse():
    x = relax.Var("x", T([4]))

    def before(bb, x):
        a = bb.emit(R.exp(x))
        b = bb.emit(R.exp(x))
        return bb.emit(R.add(a, b))

    def expected(bb, x):
        a = bb.emit(R.exp(x))
        bb.emit(a)  # the repeat stays as a trivial binding, as in TVM (CanonicalizeBindings drops it)
        return bb.emit(R.add(a, a))

    mod = relax.transform.EliminateCommonSubexpr()(func_of(before, [x]))
    assert_structural_equal(mod["main"], func_of(expected, [relax.Var("x", T([4]))])["main"])


def test_cse_keeps_distinct_attrs():
    x = relax.Var("x", T([2, 3]))

    def before(bb, x):
        a = bb.emit(R.sum(x, axis=0))
        b = bb.emit(R.sum(x, axis=1))
        return bb.emit((a, b))

    mod = func_of(before, [x])
    assert relax.transform.EliminateCommonSubexpr()(mod) is mod


def test_to_non_dataflow():
    x = relax.Var("x", T([4]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x])
    out = relax.transform.ToNonDataflow()(mod)
    (block,) = out["main"].body.blocks
    assert type(block) is relax.BindingBlock
    assert all(type(b.var) is relax.Var for b in block.bindings)
    check_well_formed(out)
    np.testing.assert_allclose(run(out, np.zeros(4, "float32")), np.ones(4))


def test_fold_constant():
    x = relax.Var("x", T([3]))
    c1, c2 = relax.const(np.array([1, 2, 3], "float32")), relax.const(np.array([10, 20, 30], "float32"))

    def before(bb, x):
        s = bb.emit(R.add(c1, c2))
        t = bb.emit(R.multiply(s, relax.const(np.float32(2))))
        return bb.emit(R.add(x, t))

    out = relax.transform.FoldConstant()(func_of(before, [x]))
    out = relax.transform.DeadCodeElimination()(out)
    bindings = out["main"].body.blocks[0].bindings
    assert len(bindings) == 2  # add(x, folded) and the output alias
    folded = bindings[0].value.args[1]
    assert isinstance(folded, relax.Constant)
    np.testing.assert_allclose(folded.numpy(), [22, 44, 66])


def test_fold_constant_leaves_creation_and_nonconst():
    x = relax.Var("x", T([2]))
    mod = func_of(lambda bb, x: bb.emit(R.add(x, bb.emit(R.zeros((2,), "float32")))), [x])
    assert relax.transform.FoldConstant()(mod) is mod


def test_normalize_makes_anf():
    x = relax.Var("x", T([4]))
    nested = R.exp(R.add(x, x))
    func = relax.Function([x], relax.BlockBuilder().normalize(nested), T([4]))
    assert not well_formed(IRModule({"main": func}))
    out = relax.transform.Normalize()(IRModule({"main": func}))
    assert well_formed(out)
    body = out["main"].body
    assert len(body.blocks[0].bindings) == 2  # add, then exp: the body itself is a leaf
    assert isinstance(body.body, relax.Var)


def test_well_formed_errors():
    x = relax.Var("x", T([4]))
    y = relax.Var("y", T([4]))
    lv = relax.DataflowVar("lv", T([4]))
    call = relax.BlockBuilder().normalize(R.exp(y))
    bad = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, call)])], lv), T([4]))
    with pytest.raises(ValueError) as err:
        check_well_formed(IRModule({"main": bad}))
    msg = str(err.value)
    assert "variable 'y' is used before it is defined" in msg
    assert "DataflowVar 'lv' is defined outside a dataflow block" in msg


def test_sequential_and_pass_context():
    x = relax.Var("x", T([4]))

    def before(bb, x):
        a = bb.emit(R.exp(x))
        b = bb.emit(R.exp(x))
        bb.emit(R.negative(x))
        return bb.emit(R.add(a, b))

    seen = []

    @transform.pass_instrument
    class Recorder:
        def run_after_pass(self, mod, info):
            seen.append(info.name)

    seq = transform.Sequential(
        [relax.transform.EliminateCommonSubexpr(), relax.transform.DeadCodeElimination()]
    )
    with transform.PassContext(opt_level=3, instruments=[Recorder()]):
        out = seq(func_of(before, [x]))
    assert len(out["main"].body.blocks[0].bindings) == 3  # exp, add, output alias
    assert "EliminateCommonSubexpr" in seen and "DeadCodeElimination" in seen
    with transform.PassContext(disabled_pass=["DeadCodeElimination"]):
        kept = seq(func_of(before, [x]))
    assert len(kept["main"].body.blocks[0].bindings) == 5  # CSE leaves the repeat as ``lv1 = lv`` (TVM)


def test_relax_function_pass_only_sees_relax_functions():
    seen = []

    @relax.transform.function_pass(opt_level=0)
    def record(func, mod, ctx):
        seen.append(type(func).__name__)
        return func

    x = relax.Var("x", T([2]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x])
    record(mod)
    assert seen == ["Function"]


def test_mutator_rewrites_calls():
    @relax.expr_functor.mutator
    class ExpToTanh(relax.PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op.name == "relax.exp":
                return self.builder_.normalize(R.tanh(call.args[0]))
            return call

    x = relax.Var("x", T([4]))
    mod = func_of(lambda bb, x: bb.emit(R.add(bb.emit(R.exp(x)), x)), [x])
    new = ExpToTanh(mod).visit_expr(mod["main"])
    ops = [b.value.op.name for b in new.body.blocks[0].bindings if isinstance(b.value, relax.Call)]
    assert ops == ["relax.tanh", "relax.add"]
    same = ExpToTanh(mod).visit_expr(func_of(lambda bb, x: bb.emit(R.add(x, x)), [x])["main"])
    assert isinstance(same, relax.Function)


def test_visitor_counts_and_lookup_binding():
    @relax.expr_functor.visitor
    class Counter(relax.PyExprVisitor):
        def __init__(self):
            self.calls = 0

        def visit_call_(self, call):
            self.calls += 1
            super().visit_call_(call)

    x = relax.Var("x", T([4]))
    mod = func_of(lambda bb, x: bb.emit(R.add(bb.emit(R.exp(x)), x)), [x])
    c = Counter()
    c.visit_expr(mod["main"])
    assert c.calls == 2  # exp and add; the output binding is an alias

    class Finder(relax.PyExprMutator):
        def visit_call_(self, call):
            if call.op.name == "relax.add":
                self.found = self.lookup_binding(call.args[0])
            return call

    f = Finder(mod)
    f.visit_expr(mod["main"])
    assert f.found.op.name == "relax.exp"


def test_free_and_bound_vars():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T([n]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x])
    func = mod["main"]
    assert relax.analysis.free_vars(func) == []
    assert x in relax.analysis.bound_vars(func)
    body_free = relax.analysis.free_vars(func.body)
    assert body_free == [x]
    assert len(relax.analysis.all_vars(func)) == 3


def test_tutorial_style_module_pass_with_mutator():
    @relax.expr_functor.mutator
    class ReluToGelu(relax.PyExprMutator):
        def __init__(self, mod):
            super().__init__(mod)

        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op.name == "relax.nn.relu":
                scaled = self.builder_.emit(R.multiply(call.args[0], relax.const(np.float32(1.0))))
                return R.nn.gelu(scaled)
            return call

    @transform.module_pass(opt_level=0, name="ReluToGelu")
    class ReluToGeluPass:
        def transform_module(self, mod, ctx):
            rewriter = ReluToGelu(mod)
            for gv, func in mod.functions_items():
                if isinstance(func, relax.Function):
                    rewriter.builder_.update_func(gv, rewriter.visit_expr(func))
            return rewriter.builder_.get()

    x = relax.Var("x", T([4]))
    mod = func_of(lambda bb, x: bb.emit(R.nn.relu(x)), [x])
    out = ReluToGeluPass()(mod)
    ops = [b.value.op.name for b in out["main"].body.blocks[0].bindings if isinstance(b.value, relax.Call)]
    assert ops == ["relax.multiply", "relax.nn.gelu"]
    check_well_formed(out)
    a = np.array([-1.0, 0.0, 1.0, 2.0], "float32")
    from math import erf

    expected = [0.5 * v * (1 + erf(v / np.sqrt(2))) for v in a]
    np.testing.assert_allclose(run(out, a), expected, rtol=1e-5)
    assert "relax.nn.relu" in mod.script().replace("R.nn.relu", "relax.nn.relu")  # input untouched


def test_fold_constant_call_tir():
    te = pytest.importorskip("ember.te")
    bb = relax.BlockBuilder()
    c = relax.const(np.array([1, 2, 3], "float32"))
    x = relax.Var("x", T([3]))
    with bb.function("main", [x]):
        with bb.dataflow():
            k = bb.emit_te(lambda a: te.compute(a.shape, lambda i: a[i] * 3.0, name="triple"), c)
            gv = bb.emit_output(R.add(x, k))
        bb.emit_func_output(gv)
    out = relax.transform.FoldConstant()(bb.get())
    add = out["main"].body.blocks[0].bindings[-1].value
    assert isinstance(add.args[1], relax.Constant)
    np.testing.assert_allclose(add.args[1].numpy(), [3, 6, 9])
    # the now-unused PrimFunc is private, so DCE drops it
    assert "triple" not in relax.transform.DeadCodeElimination()(out)


def test_dce_entry_functions():
    x = relax.Var("x", T([2]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x], name="a")
    y = relax.Var("y", T([2]))
    bb = relax.BlockBuilder(mod)
    with bb.function("b", [y]):
        bb.emit_func_output(y)
    mod = bb.get()
    assert set(gv.name_hint for gv in relax.transform.DeadCodeElimination()(mod).get_global_vars()) == {"a", "b"}
    kept = relax.transform.DeadCodeElimination(entry_functions=["b"])(mod)
    assert [gv.name_hint for gv in kept.get_global_vars()] == ["b"]


def test_dataflowblock_pass():
    @relax.transform.dataflowblock_pass(opt_level=0)
    def drop_all_but_last(block, mod, ctx):
        return relax.DataflowBlock(block.bindings[-1:]) if len(block.bindings) > 1 else block

    x = relax.Var("x", T([2]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x])
    out = drop_all_but_last(mod)
    assert len(out["main"].body.blocks[0].bindings) == 1
    assert drop_all_but_last(out) is out


def test_passes_return_same_module_when_nothing_changes():
    x = relax.Var("x", T([2]))
    mod = func_of(lambda bb, x: bb.emit(R.exp(x)), [x])
    for p in (relax.transform.FoldConstant(), relax.transform.EliminateCommonSubexpr(),
              relax.transform.DeadCodeElimination(), relax.transform.Normalize()):
        assert p(mod) is mod, p


def test_bind_symbolic_vars():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T([n, 4]))
    mod = func_of(lambda bb, x: bb.emit(R.reshape(bb.emit(R.exp(x)), relax.ShapeExpr([n * 4]))), [x])
    out = relax.transform.BindSymbolicVars({"n": 3})(mod)
    func = out["main"]
    assert [int(d) for d in func.params[0].struct_info.shape.values] == [3, 4]
    assert [int(d) for d in func.ret_struct_info.shape.values] == [12]
    reshape = func.body.blocks[0].bindings[1].value
    assert int(reshape.args[1].values[0]) == 12
    check_well_formed(out)
    np.testing.assert_allclose(run(out, np.zeros((3, 4), "float32")), np.ones(12))
    with pytest.raises(ValueError, match="has no symbolic variable named 'k'"):
        relax.transform.BindSymbolicVars({"k": 3})(mod)
    same = relax.transform.BindSymbolicVars({n: 5})(mod)
    assert int(same["main"].params[0].struct_info.shape.values[0]) == 5
