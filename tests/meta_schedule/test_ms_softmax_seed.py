"""A softmax over one row (ResNet-50's classifier, (1, 1000)) keeps its dlight seed: the
Reduction rule's trace replays on the tuning workload without a loop whose extent depends
on the unit row loop, so DisallowDynamicLoop accepts it."""

import pytest

import ember
from ember import te, topi
from ember.meta_schedule.default_seed import default_schedule_trace
from ember.meta_schedule.postproc.disallow_dynamic_loop import DisallowDynamicLoop
from ember.meta_schedule.tir_integration import tuning_workload
from ember.target import Target
from ember.tir import Schedule


@pytest.mark.parametrize("shape", [(1, 1000), (32, 1000)])
def test_softmax_seed_passes_disallow_dynamic_loop(shape):
    s = te.placeholder(shape, name="S")
    work = tuning_workload(ember.IRModule({"main": te.create_prim_func([s, topi.nn.softmax(s, axis=-1)])}))
    trace = default_schedule_trace(work, Target("llvm -num-cores=2"))
    assert trace is not None
    sch = Schedule(work)
    trace.apply_to_schedule(sch)
    assert DisallowDynamicLoop().apply(sch)
