"""Fuzz MetaSchedule: design spaces, mutations and evolutionary-search candidates of real
workloads (``ms_workloads.py``) must build and compute what the unscheduled kernel computes.

Case ``seed`` takes workload ``seed % len(workloads)`` and tunes it from ``rand_state = seed``
for a 1-core or (every other round of the workloads) an 8-core target:
every design space of the post-order-apply generator, ``MUTANTS`` traces made by applying
the target's mutators to the spaces (each replayed with the space's postprocessors), and one
round of candidates of an ``EvolutionarySearch`` (random cost model, no time limit).  A
trace the schedule refuses (``ScheduleError``) or a postprocessor rejects is fine; an
exception of any other kind, a build error or a result that differs from the unscheduled
build is a failure.

    python tests/fuzz/fuzz_harness.py ms_spaces --cases 470   # every workload 10 times
    python tests/fuzz/fuzz_harness.py ms_spaces --seed 12 --cases 1
"""

from __future__ import annotations

import random

import numpy as np

import ember
from ember.meta_schedule.cost_model.random_model import RandomModel
from ember.meta_schedule.default_seed import finalize_for_build
from ember.meta_schedule.mutator.mutate_compute_location import RESAMPLE
from ember.meta_schedule.search_strategy import EvolutionarySearch
from ember.meta_schedule.tune_context import TuneContext
from ember.tir import ScheduleError
from ember.tir.schedule import Schedule

import ms_workloads

TARGET = "llvm -num-cores=1"  # builds, and the Relax pipeline whose kernels are extracted
TUNE_TARGETS = ("llvm -num-cores=1", "llvm -num-cores=8")
MUTANTS = 6
SEARCH_CANDIDATES = 4
_REFERENCE: dict = {}


def _inputs(mod, seed: int) -> list[np.ndarray]:
    func = mod["main"]
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, [int(d) for d in func.buffer_map[p].shape]).astype(str(func.buffer_map[p].dtype))
            for p in func.params]


def _run(mod, seed: int) -> list[np.ndarray]:
    args = _inputs(mod, seed)
    ember.build(finalize_for_build(mod), target=TARGET)(*args)
    return args


def _reference(name: str, mod) -> list[np.ndarray]:
    if name not in _REFERENCE:
        _REFERENCE[name] = _run(mod, 0)
    return _REFERENCE[name]


def _check(name: str, mod, sch, what: str) -> str | None:
    try:
        got = _run(sch.mod, 0)
    except Exception as err:  # noqa: BLE001 - a build error is a failure of the case
        return f"{what}: build failed: {type(err).__name__}: {str(err)[:400]}\n{sch.trace}"
    for want, have in zip(_reference(name, mod), got):
        if not np.allclose(want, have, rtol=1e-3, atol=1e-3):
            worst = float(np.max(np.abs(want - have)))
            return f"{what}: result differs from the unscheduled kernel (max abs error {worst:.3g})\n{sch.trace}"
    return None


def _replay(mod, trace, seed: int, postprocs):
    """``trace`` replayed on ``mod`` (RESAMPLE decisions drawn afresh), postprocessed; None if
    refused; an unexpected exception propagates (it is a bug)."""

    def provider(inst, inputs, attrs, decision):
        return None if decision == RESAMPLE else decision

    sch = Schedule(mod, seed=seed, debug_mask=0)
    try:
        trace.apply_to_schedule(sch, remove_postproc=True, decision_provider=provider)
    except ScheduleError:
        return None
    sch.enter_postproc()
    for post in postprocs:
        if not post.apply(sch):
            return None
    return sch


def run_case(seed: int) -> str | None:
    names = ms_workloads.workload_names(TARGET)
    name = names[seed % len(names)]
    mod = ms_workloads.workload(name, TARGET)
    target = TUNE_TARGETS[seed // len(names) % len(TUNE_TARGETS)]
    context = TuneContext(mod, target=target, space_generator="post-order-apply",
                          search_strategy=EvolutionarySearch(population_size=8, init_min_unmeasured=4,
                                                             genetic_num_iters=1, round_time_limit=1e9),
                          rand_state=seed)
    spaces = context.generate_design_space()
    if not spaces:
        return f"{name}: no design space"
    for i, sch in enumerate(spaces):
        if (failure := _check(name, mod, sch, f"{name} space {i}")) is not None:
            return failure
    generator = context.space_generator
    postprocs, probs = list(generator.postprocs or []), dict(generator.mutator_probs or {})
    rng = random.Random(seed)
    for m in range(MUTANTS if probs else 0):
        space = rng.choice(spaces)
        mutator = rng.choices(list(probs), weights=list(probs.values()))[0]
        trace = mutator.apply(space.trace)
        if trace is None:
            continue
        sch = _replay(mod, trace, seed + m, postprocs)
        if sch is not None and (failure := _check(name, mod, sch, f"{name} {type(mutator).__name__}")) is not None:
            return failure
    context.pre_tuning(SEARCH_CANDIDATES, SEARCH_CANDIDATES, spaces, None, RandomModel(seed=seed))
    for i, candidate in enumerate(context.search_strategy.generate_measure_candidates() or []):
        if (failure := _check(name, mod, candidate.sch, f"{name} search candidate {i}")) is not None:
            return failure
    return None
