"""``TaskScheduler``: the tuning loop over tasks (one kernel each).

Each step the scheduler picks a task (``next_task_id``, the policy of a subclass), asks
its search strategy for a batch, builds it, checks and times it, commits every result to
the database (failures included, with their error), updates the cost model and tells
the strategy.  It stops when the global trial budget, ``max_time`` (after every task's
first batch) or every task's space is used up.  The first batch of a task also measures its default-schedule seed."""

from __future__ import annotations

import json
import logging
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

from ember.ir import structural_equal, structural_hash
from ember.tir.schedule import Schedule

from ..builder import BuilderInput
from ..database import FAILED_SECS, TuningRecord
from ..default_seed import add_seed_space, default_schedule_trace, finalize_for_build
from ..runner import RunnerInput, RunnerResult
from ..search_strategy.candidate import replay

LOG = logging.getLogger("ember.meta_schedule")


@dataclass
class TaskState:
    """What the scheduler knows about one task while tuning it."""

    ctx: object
    weight: float = 1.0
    flops: float = 0.0
    trials: int = 0
    failed: int = 0
    done: bool = False
    best_secs: float = FAILED_SECS
    default_secs: float | None = None
    reference: str | None = None
    seed_trace: object = None
    history: list = field(default_factory=list)  # (trials, seconds since start, best secs)
    rounds: list = field(default_factory=list)  # best secs after each batch
    bar: object = None


class TaskScheduler:
    """Base of the schedulers; subclasses implement ``next_task_id``."""

    _progress_lines = False  # progress as one printed line per batch instead of bars

    def next_task_id(self) -> int:
        raise NotImplementedError

    def _live(self) -> list[int]:
        return [n for n, t in enumerate(self.tasks) if not t.done]

    # -- the loop ---------------------------------------------------------------------------------
    def tune(self, tasks: list, task_weights: list, max_trials_global: int, max_trials_per_task: int,
             num_trials_per_iter: int, builder, runner, measure_callbacks, database, cost_model,
             max_time: float | None = None, work_dir: str | None = None, check_correctness: bool = True,
             default_seed: bool = True, progress: bool = True, confirm_top_k: int = 4,
             confirm_rounds: int = 3) -> list[TaskState]:
        from ..flops import estimate_flops
        from ..runner.measure import make_reference

        self.tasks = [TaskState(ctx, float(w)) for ctx, w in zip(tasks, task_weights)]
        self.confirm_rounds = confirm_rounds
        self.builder, self.runner, self.database, self.cost_model = builder, runner, database, cost_model
        self.measure_callbacks = list(measure_callbacks or [])
        self.start = time.time()
        self._ref_dir = work_dir or tempfile.mkdtemp(prefix="ember_ms_ref_")
        bars = progress and _bars_fit(len(self.tasks))
        self._progress_lines = progress and not bars
        for n, task in enumerate(self.tasks):
            ctx = task.ctx
            task.flops = estimate_flops(ctx.mod)
            ctx.pre_tuning(max_trials_per_task, num_trials_per_iter, ctx.generate_design_space(), database,
                           cost_model)
            if check_correctness and ctx.target.kind.name == "llvm":
                from ..arg_info import ArgInfo

                path = os.path.join(self._ref_dir, f"reference_{n}_{_safe(ctx.task_name)}.npz")
                try:
                    task.reference = make_reference(ctx.mod, ctx.target, ArgInfo.from_entry_func(ctx.mod), path)
                except Exception as err:  # noqa: BLE001 - tuning goes on, unchecked
                    LOG.warning("%s: no reference result (%s); candidates are not checked", ctx.task_name, err)
            if default_seed:
                task.seed_trace = default_schedule_trace(ctx.mod, ctx.target)
                add_seed_space(ctx.search_strategy, task.seed_trace)
            self._resume(task)
            if bars:
                # under a time budget the trial count is not the limit: the bar counts without a total
                task.bar = _bar(ctx.task_name, None if max_time is not None else max_trials_per_task, n)
        total = sum(t.trials for t in self.tasks)
        while total < max_trials_global:
            # every task gets its first batch (with the default seed) even past max_time
            if max_time is not None and time.time() - self.start >= max_time and \
                    all(t.rounds or t.done for t in self.tasks):
                LOG.info("tuning stopped: max_time (%.0f s) reached", max_time)
                break
            tid = self.next_task_id()
            if tid < 0:
                break
            task = self.tasks[tid]
            candidates = self._with_seed(task, task.ctx.generate_measure_candidates())
            if not candidates:
                task.done = True
                continue
            candidates = candidates[:max(1, max_trials_global - total)]
            self._measure(task, candidates)
            total += len(candidates)
            if task.trials >= max_trials_per_task:
                task.done = True
        for task in self.tasks:
            if confirm_top_k > 0:
                self._confirm(task, confirm_top_k)
            task.ctx.post_tuning()
            if task.bar is not None:
                task.bar.close()
        return self.tasks

    def _resume(self, task: TaskState) -> None:
        """Take over trials, best time and the default seed's time from an earlier run."""
        db = self.database
        if not db.has_workload(task.ctx.mod):
            return
        workload = db.commit_workload(task.ctx.mod)
        records = db._records_of(workload)
        latest = {json.dumps(r.trace.as_json()): r for r in records}  # re-measured traces once
        task.trials = len(latest)
        task.failed = sum(not r.is_valid for r in latest.values())
        best = db.get_top_k(workload, 1)
        task.best_secs = best[0].mean_secs if best else FAILED_SECS
        if task.seed_trace is not None:
            seed_json = task.seed_trace.as_json()
            for r in records:
                if r.trace.as_json(remove_postproc=True) == seed_json:
                    task.default_secs = r.mean_secs if r.is_valid else None
                    task.seed_trace = None  # measured already
                    break
        task.history.append((task.trials, 0.0, task.best_secs))

    def _with_seed(self, task: TaskState, candidates):
        if task.seed_trace is None:
            return candidates
        from ..arg_info import ArgInfo
        from ..search_strategy import MeasureCandidate

        seed = replay(task.ctx.mod, task.seed_trace, 0, task.ctx.search_strategy.postprocs)
        task.seed_trace = None
        if seed is None:
            LOG.warning("%s: the default schedule's trace does not replay on the workload; this task is "
                        "tuned without its default seed", task.ctx.task_name)
            return candidates
        task.seed_index = 0
        others = [c for c in candidates or [] if not structural_equal(c.sch.mod, seed.mod)]  # measured once
        measured = getattr(task.ctx.search_strategy, "measured", None)
        if isinstance(measured, set):  # so that the strategy does not pick it again
            measured.add(structural_hash(seed.mod))
        return [MeasureCandidate(seed, ArgInfo.from_entry_func(seed.mod))] + others

    def _confirm(self, task: TaskState, top_k: int) -> None:
        """Measure the best ``top_k`` records and the default seed again, interleaved, and
        record their median times, until the best record is a confirmed one (at most three
        rounds): the pick is not a lucky measurement on a busy machine."""
        from ..default_seed import default_schedule_trace

        db, ctx = self.database, task.ctx
        if not db.has_workload(ctx.mod):
            return
        workload = db.commit_workload(ctx.mod)
        seed = default_schedule_trace(ctx.mod, ctx.target)
        seed_json = None if seed is None else seed.as_json()
        confirmed: set = set()
        for attempt in range(3):
            records = [r for r in db.get_top_k(workload, top_k) if _key(r) not in confirmed]
            if attempt == 0 and seed_json is not None:
                seeds = [r for r in db._records_of(workload)
                         if r.is_valid and r.trace.as_json(remove_postproc=True) == seed_json]
                if seeds and all(_key(seeds[-1]) != _key(r) for r in records):
                    records.append(seeds[-1])
            if not records or (attempt == 0 and len(records) < 2):
                break
            times = self._remeasure(ctx, workload, records)
            confirmed |= {_key(r) for r in records}
            for r, ts in zip(records, times):  # the default's confirmed time, wherever it ranked
                if seed_json is not None and ts and r.trace.as_json(remove_postproc=True) == seed_json:
                    task.default_secs = statistics.median(ts)
            best = db.get_top_k(workload, 1)
            if not best or _key(best[0]) in confirmed:
                break
        best = db.get_top_k(workload, 1)
        if best:
            task.best_secs = best[0].mean_secs
            task.history.append((task.trials, time.time() - self.start, task.best_secs))
        LOG.info("%s: confirmed %d records against each other", ctx.task_name, len(confirmed))

    def _remeasure(self, ctx, workload, records) -> list:
        from ..arg_info import ArgInfo

        mods = []
        for r in records:
            sch = Schedule(ctx.mod)
            r.trace.apply_to_schedule(sch)
            mods.append(finalize_for_build(sch.mod))
        built = self.builder.build([BuilderInput(m, ctx.target) for m in mods])
        args = ArgInfo.from_entry_func(ctx.mod)
        ok = [n for n, b in enumerate(built) if b.error_msg is None]
        times: list = [[] for _ in records]
        for _ in range(self.confirm_rounds):
            futures = self.runner.run([RunnerInput(built[n].artifact_path, ctx.target.kind.name, args, None)
                                       for n in ok])
            for n, fut in zip(ok, futures):
                res = fut.result()
                if res.error_msg is None and res.run_secs:
                    times[n].append(sum(res.run_secs) / len(res.run_secs))
        for b in built:
            if b.artifact_path and os.path.exists(b.artifact_path):
                os.remove(b.artifact_path)
        for r, ts in zip(records, times):
            if ts:
                self.database.commit_tuning_record(
                    TuningRecord(r.trace, workload, [statistics.median(ts)], ctx.target, args))
        return times

    # -- one batch ----------------------------------------------------------------------------------
    def _measure(self, task: TaskState, candidates: list) -> list:
        ctx = task.ctx
        built = self.builder.build([BuilderInput(finalize_for_build(c.sch.mod), ctx.target) for c in candidates])
        to_run = [(n, b) for n, b in enumerate(built) if b.error_msg is None]
        futures = self.runner.run([RunnerInput(b.artifact_path, ctx.target.kind.name, candidates[n].args_info,
                                               task.reference) for n, b in to_run])
        results = [RunnerResult(None, b.error_msg) for b in built]
        for (n, _), fut in zip(to_run, futures):
            results[n] = fut.result()
        workload = self.database.commit_workload(ctx.mod)
        for n, (cand, res) in enumerate(zip(candidates, results)):
            ok = res.error_msg is None and res.run_secs
            self.database.commit_tuning_record(TuningRecord(
                cand.sch.trace, workload, list(res.run_secs) if ok else [FAILED_SECS], ctx.target,
                cand.args_info, None if ok else str(res.error_msg)[-2000:]))
            if ok:
                secs = sum(res.run_secs) / len(res.run_secs)
                task.best_secs = min(task.best_secs, secs)
                if n == 0 and getattr(task, "seed_index", None) == 0:
                    task.default_secs = secs
            else:
                task.failed += 1
                LOG.info("%s: candidate failed: %s", ctx.task_name, str(res.error_msg).strip().splitlines()[-1]
                         if res.error_msg else "no result")
            task.trials += 1
            task.history.append((task.trials, time.time() - self.start, task.best_secs))
        task.seed_index = None
        task.rounds.append(task.best_secs)
        for b in built:
            if b.artifact_path and os.path.exists(b.artifact_path):
                os.remove(b.artifact_path)
        if self.cost_model is not None:
            self.cost_model.update(ctx, candidates, results)
        ctx.notify_runner_results(candidates, results)
        for cb in self.measure_callbacks:
            cb(self, task, candidates, results)
        if task.bar is not None:
            task.bar.update(len(candidates))
            if task.best_secs < FAILED_SECS:
                task.bar.set_postfix_str(f"best {task.best_secs * 1e6:.1f} us")
        elif self._progress_lines:
            self._print_progress(task)
        return results

    def _print_progress(self, task: TaskState) -> None:
        """One line per batch (a log file, or too many tasks for one bar each)."""
        number = self.tasks.index(task) + 1
        best = f"best {task.best_secs * 1e6:.1f} us" if task.best_secs < FAILED_SECS else "no valid candidate yet"
        default = f", default {task.default_secs * 1e6:.1f} us" if task.default_secs else ""
        total = sum(t.trials for t in self.tasks)
        print(f"[{(time.time() - self.start) / 60:5.1f} min, {total} trials] task {number}/{len(self.tasks)} "
              f"{task.ctx.task_name}: {task.trials} trials ({task.failed} failed), {best}{default}",
              file=sys.stderr, flush=True)


def _key(record) -> str:
    return json.dumps(record.trace.as_json())


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60]


def _bars_fit(n_tasks: int) -> bool:
    """One progress bar per task only on a terminal, and only as many as fit on a screen."""
    return n_tasks <= 12 and sys.stderr.isatty()


def _bar(name: str, total: int, position: int):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=name[:30], position=position, leave=True, unit="trial")
