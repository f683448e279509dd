"""The default seed as a design space: dlight's conv rules run tunable, so the seed's trace
samples its register tile (channel vectors, pixels).  The trace round-trips through JSON and
replays to the default schedule; MutateTileSize changes the tile and the mutated trace
replays to a program that still computes the convolution; the tuner adds the seed's trace
to the search's design spaces."""

import numpy as np

import ember
from ember import meta_schedule as ms
from ember import te, topi
from ember.dlight.cpu.common import lanes_for
from ember.ir import structural_equal
from ember.meta_schedule.default_seed import add_seed_space, default_schedule_trace
from ember.meta_schedule.relax_passes import workload_of
from ember.meta_schedule.search_strategy.candidate import replay
from ember.target import Target
from ember.tir.schedule import Trace

from ms_kernels import TARGET

B = lanes_for(Target(TARGET), 32)


def conv_nchwc_workload(c=2, f=4, hw=14, k=3):
    """A 3x3 conv (+ReLU) on channel-blocked data: ``c``/``f`` blocks of B channels."""
    x = te.placeholder((1, c, hw, hw, B), name="X")
    w = te.placeholder((f, c * B, k, k, B), name="W")
    y = topi.nn.relu(topi.nn.conv2d_nchwc(x, w, (1, 1), (k // 2,) * 4, (1, 1), "float32", False))
    return workload_of(te.create_prim_func([x, w, y]))


def _tiles(trace):
    return [(i, d) for i, d in trace.decisions.items() if i.kind.method == "sample_perfect_tile"]


def _conv_numpy_blocked(x, w):
    """The blocked conv (stride 1, 'same' padding) with ReLU, in numpy, in blocked layouts."""
    n, cb, h, wd, b = x.shape
    xs = x.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, wd)
    fb, c, k, _, fo = w.shape
    ws = w.transpose(0, 4, 1, 2, 3).reshape(fb * fo, c, k, k)
    pad = k // 2
    xp = np.pad(xs, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, fb * fo, h, wd), "float32")
    for i in range(k):
        for j in range(k):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd], ws[:, :, i, j])
    out = np.maximum(out, 0)
    return out.reshape(n, fb, fo, h, wd).transpose(0, 1, 3, 4, 2)


def test_seed_trace_samples_its_tiles_and_round_trips_json():
    mod = conv_nchwc_workload()
    target = Target(TARGET)
    trace = default_schedule_trace(mod, target)
    assert len(_tiles(trace)) == 5  # output blocks, pixels, window rows, window columns, block channels
    seed = replay(mod, trace, 0, [])
    again = replay(mod, Trace.from_json(trace.as_json()), 0, [])
    assert again is not None and structural_equal(seed.mod, again.mod)
    from ember.dlight import cpu
    from ember.meta_schedule.utils import prim_func_of

    untuned = cpu.Conv2DNCHWc().apply(prim_func_of(mod)[1], target, False)
    assert structural_equal(seed.mod, untuned.mod)


def test_mutated_tile_replays_to_a_correct_conv():
    mod = conv_nchwc_workload()
    trace = default_schedule_trace(mod, Target(TARGET))
    seed = replay(mod, trace, 0, [])
    mutator = ms.mutator.MutateTileSize()
    rng = np.random.default_rng(0)
    shapes = [[int(d) for d in b.shape] for b in mod["main"].buffer_map.values()]
    x, w = (rng.standard_normal(s).astype("float32") for s in shapes[:2])
    ref = _conv_numpy_blocked(x, w)
    checked = 0
    for _ in range(20):
        child = mutator.apply(trace)
        assert child is not None
        sch = replay(mod, child, 0, [])
        if sch is None or structural_equal(sch.mod, seed.mod):
            continue  # a tile the trace's later steps cannot take (a unit loop dropped)
        out = np.zeros(shapes[-1], "float32")
        ember.build(sch.mod, target="llvm")(x, w, out)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_seed_trace_becomes_a_design_space():
    class Strategy:
        design_spaces = ["mlt-space"]

    mod = conv_nchwc_workload()
    trace = default_schedule_trace(mod, Target(TARGET))
    strategy = Strategy()
    assert add_seed_space(strategy, trace)
    assert strategy.design_spaces == ["mlt-space", trace, trace, trace]  # three draws in four
    assert not add_seed_space(strategy, None)
    assert not add_seed_space(strategy, Trace([], {}))  # nothing sampled: nothing to explore


def test_tune_tir_workload_is_in_the_form_the_seed_replays_on():
    # a bias read as Bias[0, f, 0, 0, b] is normalised by the rule before it schedules; the
    # tuning workload of tune_tir / compile_tir is normalised the same way, so the seed replays
    from ember.meta_schedule.tir_integration import tuning_workload

    x = te.placeholder((1, 2, 14, 14, B), name="X")
    w = te.placeholder((4, 2 * B, 3, 3, B), name="W")
    b = te.placeholder((1, 4, 1, 1, B), name="Bias")
    y = topi.nn.relu(topi.add(topi.nn.conv2d_nchwc(x, w, (1, 1), (1,) * 4, (1, 1), "float32", False), b))
    func = te.create_prim_func([x, w, b, y])
    target = Target(TARGET)
    raw = ember.IRModule({"main": func})
    assert replay(raw, default_schedule_trace(raw, target), 0, []) is None
    mod = tuning_workload(func)
    assert replay(mod, default_schedule_trace(mod, target), 0, []) is not None
    assert tuning_workload(mod) is mod


def test_first_round_evolves_from_the_default_and_never_remeasures_it():
    # before anything is measured, the evolutionary search's parent is the default schedule, so
    # its first round mutates it (other tiles of the same rule); the default itself is
    # measured once, by the task scheduler, never again as a candidate of the strategy
    from ember.ir import structural_hash
    from ember.meta_schedule.arg_info import ArgInfo
    from ember.meta_schedule.search_strategy import MeasureCandidate
    from ember.meta_schedule.task_scheduler.task_scheduler import TaskScheduler, TaskState

    mod = conv_nchwc_workload(c=1, f=2, hw=7)
    target = Target(TARGET)
    ctx = ms.TuneContext(mod, target=target, space_generator="post-order-apply",
                         search_strategy=ms.search_strategy.EvolutionarySearch(population_size=8, round_time_limit=1e9),
                         rand_state=3)  # no time limit: the same population however loaded the machine
    ctx.pre_tuning(16, 8, ctx.generate_design_space(), None, ms.cost_model.RandomModel())
    seed = default_schedule_trace(mod, target)
    assert add_seed_space(ctx.search_strategy, seed)
    seed_sch = replay(mod, seed, 0, ctx.search_strategy.postprocs)
    parents = ctx.search_strategy._seed_parent()
    assert len(parents) == 1 and structural_equal(parents[0].mod, seed_sch.mod)
    candidates = ctx.generate_measure_candidates()
    assert candidates

    task = TaskState(ctx, seed_trace=seed)
    again = MeasureCandidate(seed_sch, ArgInfo.from_entry_func(seed_sch.mod))
    batch = TaskScheduler()._with_seed(task, [again] + list(candidates))
    assert structural_equal(batch[0].sch.mod, seed_sch.mod)
    assert not any(structural_equal(c.sch.mod, seed_sch.mod) for c in batch[1:])
    assert structural_hash(seed_sch.mod) in ctx.search_strategy.measured
