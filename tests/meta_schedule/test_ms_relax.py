"""Tuning a Relax model: extract_tasks, tune_relax, compile_relax, and the zero pipeline
applying an entered database (MetaScheduleApplyDatabase)."""

import numpy as np
from ms_kernels import TARGET, fast_runner, shared_builder, small_search

from ember import meta_schedule as ms
from ember import relax
from ember.relax.frontend import nn


class MLP(nn.Module):
    def __init__(self):
        self.fc1 = nn.Linear(32, 32, bias=False)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 32, bias=False)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _model():
    mod, spec = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((4, 32), "float32")}})
    rng = np.random.default_rng(0)
    params = {name: rng.uniform(-1, 1, p.shape).astype("float32") for name, p in spec}
    return mod, params


def _run(ex, x, params):
    import ember

    vm = relax.VirtualMachine(ex, ember.cpu())
    return vm["forward"](ember.nd.array(x), *[ember.nd.array(p) for p in params.values()]).numpy()


def test_extract_tasks_dedupes_kernels_and_weights_them():
    mod, _ = _model()
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    assert tasks and sum(t.weight for t in tasks) >= 2
    names = [t.task_name for t in tasks]
    assert len(names) == len(set(names))


def test_tune_relax_then_compile_relax(tmp_path):
    mod, params = _model()
    database = ms.relax_integration.tune_relax(
        mod, None, TARGET, str(tmp_path), max_trials_global=4, num_trials_per_iter=2, builder=shared_builder(),
        runner=fast_runner(), strategy=small_search(), cost_model="random", progress=False, seed=5)
    assert len(database) >= 2
    x = np.random.default_rng(1).uniform(-1, 1, (4, 32)).astype("float32")
    w1, w2 = params.values()
    want = np.maximum(x @ w1.T, 0) @ w2.T
    got = _run(ms.relax_integration.compile_relax(database, mod, TARGET), x, params)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # the zero pipeline applies an entered database (TVM's MetaScheduleApplyDatabase)
    with database:
        lowered = relax.get_pipeline("zero")(mod)
    tuned = [f for f in lowered.functions.values() if (getattr(f, "attrs", None) or {}).get("tir.is_scheduled")]
    assert tuned
    lowered2 = relax.transform.MetaScheduleApplyDatabase(work_dir=str(tmp_path))(relax.get_pipeline("zero")(mod))
    assert len([f for f in lowered2.functions.values()
                if (getattr(f, "attrs", None) or {}).get("tir.is_scheduled")]) == len(tuned)


def test_default_seeds_replay_on_blocked_conv_tasks():
    # the default pipeline's channel-blocked convs are normalised by dlight's rules before
    # they schedule them; the tuning workloads are too, so every seed replays
    from onnx import TensorProto, helper, numpy_helper

    from ember.meta_schedule.default_seed import default_schedule_trace
    from ember.meta_schedule.search_strategy.candidate import replay
    from ember.relax.frontend.onnx import from_onnx

    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(shape).astype("float32"), name) for name, shape in
             (("w", (16, 16, 3, 3)), ("scale", (1, 16, 1, 1)), ("shift", (1, 16, 1, 1)))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Mul", ["c", "scale"], ["m"]), helper.make_node("Add", ["m", "shift"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(nodes, "conv_bn_relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                              [1, 16, 8, 8])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
                              inits)
    mod = from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, TARGET) if "conv2d" in t.task_name]
    assert tasks
    for t in tasks:
        trace = default_schedule_trace(t.mod, t.target)
        assert trace is not None and replay(t.mod, trace, 0, []) is not None, t.task_name
