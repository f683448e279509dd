"""The search-strategy interface: ``pre_tuning`` (design spaces, database, cost model),
then rounds of ``generate_measure_candidates`` / ``notify_runner_results`` until it
returns None (trials used up), then ``post_tuning``."""

from __future__ import annotations

from typing import Protocol

from ember.ir import structural_hash

from .candidate import MeasureCandidate, replay


class SearchStrategy(Protocol):
    def _initialize_with_tune_context(self, context) -> None: ...

    def pre_tuning(self, max_trials: int, num_trials_per_iter: int, design_spaces: list,
                   database=None, cost_model=None) -> None: ...

    def generate_measure_candidates(self) -> list[MeasureCandidate] | None: ...

    def notify_runner_results(self, measure_candidates: list, results: list) -> None: ...

    def post_tuning(self) -> None: ...

    def clone(self) -> SearchStrategy: ...


class StrategyBase:
    """Shared state: the context, the spaces, the trial counts and what was measured."""

    def _initialize_with_tune_context(self, context) -> None:
        self.context = context
        import random

        self.rng = random.Random(context.fork_seed())

    def pre_tuning(self, max_trials, num_trials_per_iter, design_spaces, database=None, cost_model=None):
        if max_trials < 1 or num_trials_per_iter < 1:
            raise ValueError(f"pre_tuning: max_trials ({max_trials}) and num_trials_per_iter "
                             f"({num_trials_per_iter}) must be >= 1")
        self.max_trials, self.num_trials_per_iter = max_trials, num_trials_per_iter
        self.design_spaces = [s.trace if hasattr(s, "trace") else s for s in design_spaces]
        self.database, self.cost_model = database, cost_model
        self.trials = 0
        self.measured: set = set()
        if database is not None and database.has_workload(self.context.mod):
            workload = database.commit_workload(self.context.mod)
            for record in database._records_of(workload):
                sch = replay(self.context.mod, record.trace, 0, [])
                if sch is not None:
                    self.measured.add(structural_hash(sch.mod))

    @property
    def postprocs(self) -> list:
        return list(getattr(self.context.space_generator, "postprocs", None) or [])

    def _budget(self) -> int:
        return min(self.num_trials_per_iter, self.max_trials - self.trials)

    def _candidate(self, sch) -> MeasureCandidate:
        from ..arg_info import ArgInfo

        return MeasureCandidate(sch, ArgInfo.from_entry_func(sch.mod))

    def _fresh(self, trace, resample: bool):
        """A new unmeasured schedule from ``trace`` (or None)."""
        sch = replay(self.context.mod, trace, self.rng.randrange(1 << 30), self.postprocs, resample)
        if sch is None:
            return None
        key = structural_hash(sch.mod)
        return None if key in self.measured else (sch, key)

    def notify_runner_results(self, measure_candidates, results) -> None:
        self.trials += len(measure_candidates)

    def post_tuning(self) -> None:
        pass

    def clone(self):
        import copy

        return copy.copy(self)
