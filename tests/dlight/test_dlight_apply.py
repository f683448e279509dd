"""ApplyDefaultSchedule (rule order, attrs, target), relax.build's default schedules and opt-out,
and the dlight.gpu rules declining CPU targets."""

import numpy as np
import pytest

import ember
from ember import dlight, relax, te, topi
from ember.dlight import cpu
from ember.ir import IRModule
from ember.target import Target


def _module():
    x = te.placeholder((8, 16), name="X")
    w = te.placeholder((16, 32), name="W")
    r = te.reduce_axis((0, 16), name="k")
    mm = te.compute((8, 32), lambda i, j: te.sum(x[i, r] * w[r, j], axis=r), name="C")
    return IRModule({"dense": te.create_prim_func([x, w, mm]),
                     "relu": te.create_prim_func([x, topi.nn.relu(x)]),
                     "softmax": te.create_prim_func([x, topi.nn.softmax(x, axis=-1)])})


def test_every_function_scheduled_and_marked():
    with Target("llvm"):
        mod = dlight.ApplyDefaultSchedule(*cpu.default_rules())(_module())
    for gv, func in mod.functions.items():
        assert func.attrs[dlight.IS_SCHEDULED] is True, gv.name_hint
    assert mod["dense"].attrs.get(dlight.FMA_CONTRACT) is True
    assert dlight.FMA_CONTRACT not in mod["relu"].attrs
    rt = ember.build(mod["dense"], target="llvm")
    x, w = np.random.default_rng(0).standard_normal((8, 16)).astype("float32"), np.ones((16, 32), "float32")
    out = np.zeros((8, 32), "float32")
    rt(x, w, out)
    np.testing.assert_allclose(out, x @ w, rtol=1e-5, atol=1e-5)


def test_row_normalisation_divides_by_a_hoisted_reciprocal():
    """Reduction marks its kernels so the codegen may turn ``x / sum[row]`` into one reciprocal
    per row and a multiply per element (LLVM's ``arcp``); the result stays within 1 ulp."""
    x = te.placeholder((32, 1000), name="X")
    mod = IRModule({"softmax": te.create_prim_func([x, topi.nn.softmax(x, axis=-1)])})
    with Target("llvm"):
        mod = dlight.ApplyDefaultSchedule(*cpu.default_rules())(mod)
    assert mod["softmax"].attrs.get(dlight.RECIPROCAL) is True
    assert dlight.RECIPROCAL not in _scheduled_relu().attrs
    rt = ember.build(mod["softmax"], target="llvm")
    assert "fdiv arcp" in rt.get_source("ll-unopt")
    assert "vdivps" not in rt.get_source("asm")  # no vector division left in the row loop
    v = np.random.default_rng(1).standard_normal((32, 1000)).astype("float32")
    out = np.zeros_like(v)
    rt(v, out)
    e = np.exp(v.astype("float64") - v.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)


def _scheduled_relu():
    with Target("llvm"):
        return dlight.ApplyDefaultSchedule(*cpu.default_rules())(_module())["relu"]


def test_first_matching_rule_wins_and_scheduled_functions_are_skipped(caplog):
    mod = _module()
    with caplog.at_level("DEBUG", logger="ember.dlight"):
        once = dlight.ApplyDefaultSchedule(cpu.Fallback(), cpu.Elementwise(), target="llvm")(mod)
    assert "relu: scheduled by Fallback" in caplog.text
    again = dlight.ApplyDefaultSchedule(cpu.Elementwise(), target="llvm")(once)
    assert again is once  # everything already carries tir.is_scheduled


def test_no_rule_applies_leaves_function_alone():
    mod = _module()
    out = dlight.ApplyDefaultSchedule(cpu.Conv2D(), target="llvm")(mod)
    assert out is mod


def test_needs_a_target():
    with pytest.raises(ValueError, match="ApplyDefaultSchedule: no target"):
        dlight.ApplyDefaultSchedule(cpu.Fallback())(_module())


def test_rejects_non_rules():
    with pytest.raises(TypeError, match="rule 1 must be a dlight ScheduleRule, got str"):
        dlight.ApplyDefaultSchedule(cpu.Fallback(), "Matmul")


def test_gpu_rules_decline_cpu_targets():
    assert dlight.gpu.Matmul().apply(_module()["dense"], Target("llvm"), False) is None


def _mlp():
    from ember.relax.frontend import nn

    class MLP(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(24, 40)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(40, 10)

        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("batch", 24), "float32")}})
    return relax.get_pipeline("zero")(mod)


def _weights():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype("float32") for s in ((40, 24), (40,), (10, 40), (10,))]


@pytest.mark.parametrize("opt_out", [None, "arg", "config"])
def test_relax_build_default_schedule_and_opt_out(opt_out):
    mod = _mlp()
    if opt_out == "arg":
        exe = relax.build(mod, target="llvm", default_schedule=False)
    elif opt_out == "config":
        with ember.transform.PassContext(config={"relax.build.default_schedule": False}):
            exe = relax.build(mod, target="llvm")
    else:
        exe = relax.build(mod, target="llvm")
    vm = relax.VirtualMachine(exe, ember.cpu())
    w = _weights()
    for batch in (1, 7):
        x = np.random.default_rng(batch).standard_normal((batch, 24)).astype("float32")
        got = vm["forward"](ember.nd.array(x), *[ember.nd.array(a) for a in w]).numpy()
        np.testing.assert_allclose(got, np.maximum(x @ w[0].T + w[1], 0) @ w[2].T + w[3], rtol=1e-4, atol=1e-5)


def test_relax_build_schedules_the_kernels():
    from ember.relax import vm_build

    scheduled = vm_build._default_schedule(_mlp(), Target("llvm"), None)
    prim = {gv.name_hint: f for gv, f in scheduled.functions.items() if hasattr(f, "buffer_map")}
    assert prim and all(f.attrs.get(dlight.IS_SCHEDULED) for f in prim.values())
    assert vm_build._default_schedule(_mlp(), Target("llvm"), False) is not None


def test_hand_scheduled_function_is_left_alone():
    from ember import tir

    mod = _module()
    sch = tir.Schedule(mod["relu"])
    block = sch.get_child_blocks(sch.get_block("root"))[0]
    sch.parallel(sch.get_loops(block)[0])
    hand = IRModule({"relu": next(iter(sch.mod.functions.values()))})
    assert dlight.ApplyDefaultSchedule(cpu.Elementwise(), target="llvm")(hand) is hand
