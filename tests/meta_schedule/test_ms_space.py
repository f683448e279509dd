"""Design spaces (PostOrderApply + rules + postprocs), traces as candidates, mutators."""

import numpy as np
import pytest
from ms_kernels import TARGET, add_relu_256, matmul_64, run_matmul

import ember as tvm
from ember import meta_schedule as ms
from ember.ir import structural_equal
from ember.meta_schedule.search_strategy import replay
from ember.target import Target
from ember.tir.schedule import Schedule, Trace


def _ctx(func, target=TARGET, seed=7):
    return ms.TuneContext(func, target=Target(target), space_generator="post-order-apply",
                          search_strategy="replay-trace", rand_state=seed)


def test_cpu_matmul_space_tiles_ssrsrs_with_optional_write_cache():
    spaces = _ctx(matmul_64).generate_design_space()
    assert len(spaces) == 3  # ReuseType("may", levels=[1, 2]): no cache, cache at level 1, at level 2
    for sch in spaces:
        text = str(sch.trace)
        assert text.count("sample_perfect_tile") == 3
        assert 'ann_key="meta_schedule.parallel"' in text and "sample_categorical" in text
    assert sum("cache_write" in str(s.trace) for s in spaces) == 2


def test_candidates_replay_from_json_and_compute_the_right_result():
    ctx = _ctx(matmul_64)
    post = ctx.space_generator.postprocs
    for n, space in enumerate(ctx.generate_design_space()):
        sch = replay(ctx.mod, space.trace, seed=n, postprocs=post, resample=True)
        assert sch is not None
        again = Schedule(ctx.mod)
        Trace.from_json(sch.trace.as_json()).apply_to_schedule(again)
        assert structural_equal(again.mod, sch.mod)
        text = sch.mod.script()
        assert "T.parallel" in text and "update_init" in text  # postprocs: parallel + decompose_reduction
        if n == 0:
            got, want = run_matmul(tvm.build(sch.mod, target=TARGET))
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_auto_inline_inlines_elementwise_producers():
    spaces = _ctx(add_relu_256).generate_design_space()
    assert len(spaces) == 1 and "compute_inline" in str(spaces[0].trace)


def test_gpu_space_binds_threads_and_verify_gpu_code_rejects_big_blocks():
    ctx = _ctx(matmul_64, target="cuda", seed=0)  # a seed whose sampled space uses several threads
    spaces = ctx.generate_design_space()
    assert spaces and all('"threadIdx.x"' in str(s.trace) for s in spaces)
    names = [type(p).__name__ for p in ctx.space_generator.postprocs]
    assert "VerifyGPUCode" in names
    verify = ms.postproc.VerifyGPUCode()
    verify.max_threads = 1
    assert not verify.apply(spaces[0])


def test_mutators_change_one_decision():
    ctx = _ctx(matmul_64)
    sch = replay(ctx.mod, ctx.generate_design_space()[1].trace, 3, ctx.space_generator.postprocs, resample=True)
    trace = sch.trace
    tile = ms.mutator.MutateTileSize()
    new = tile.apply(trace)
    changed = [i for i in new.insts if i.kind.method == "sample_perfect_tile" and new.decisions[i] != trace.decisions[i]]
    assert len(changed) == 1
    assert int(np.prod(new.decisions[changed[0]])) == int(np.prod(trace.decisions[changed[0]]))
    assert not any(i.kind.method == "enter_postproc" for i in new.insts)
    unroll = ms.mutator.MutateUnroll().apply(trace)
    cats = [i for i in unroll.insts if i.kind.method == "sample_categorical"]
    assert unroll.decisions[cats[0]] != trace.decisions[cats[0]]
    par = ms.mutator.MutateParallel().apply(trace)
    values = [i.attrs[1] for i in par.insts if i.kind.method == "annotate" and i.attrs[0] == "meta_schedule.parallel"]
    assert values and values[0] != 32
    assert ms.mutator.MutateComputeLocation().apply(trace) is None  # matmul has no sampled location
    for t in (new, unroll, par):
        assert replay(ctx.mod, t, 0, ctx.space_generator.postprocs) is not None


def test_schedule_fn_space_and_rule_errors():
    def fn(sch):
        i, j, k = sch.get_loops(sch.get_block("update"))
        sch.parallel(i)

    ctx = ms.TuneContext(matmul_64, target=TARGET, space_generator=fn, search_strategy="replay-func",
                         rand_state=1)
    (space,) = ctx.generate_design_space()
    assert "sch.parallel" in str(space.trace)
    with pytest.raises(ValueError, match="structure must be made of 'S' and 'R'"):
        ms.schedule_rule.MultiLevelTiling("SXR")
    with pytest.raises(ValueError, match="req must be 'no', 'may' or 'must'"):
        ms.schedule_rule.ReuseType("sometimes")
    with pytest.raises(ValueError, match="strategy must be one of"):
        ms.TuneContext(matmul_64, target=TARGET, search_strategy="annealing")


def test_replay_trace_strategy_yields_unmeasured_candidates():
    ctx = _ctx(matmul_64)
    ctx.pre_tuning(max_trials=4, num_trials_per_iter=2)
    first = ctx.generate_measure_candidates()
    assert len(first) == 2
    ctx.notify_runner_results(first, [None, None])
    second = ctx.generate_measure_candidates()
    keys = {tvm.ir.structural_hash(c.sch.mod) for c in first + second}
    assert len(keys) == 4
    ctx.notify_runner_results(second, [None, None])
    assert ctx.generate_measure_candidates() is None
