"""``TuneContext``: one tuning task — the workload, the target, its space generator and
search strategy, and the random state every part forks its seed from."""

from __future__ import annotations

import random

from .utils import normalize_mod, normalize_target


class TuneContext:
    def __init__(self, mod=None, *, target=None, space_generator=None, search_strategy=None,
                 task_name: str = "main", rand_state: int = -1, num_threads="physical", logger=None):
        from . import search_strategy as ss
        from . import space_generator as sg

        self.mod = None if mod is None else normalize_mod(mod)
        self.target = None if target is None else normalize_target(target)
        self.task_name = task_name
        self.num_threads = num_threads
        self.logger = logger
        self.rand_state = rand_state if rand_state is not None and rand_state >= 0 else random.randrange(1 << 31)
        self._rng = random.Random(self.rand_state)
        self.space_generator = None if space_generator is None else sg.create(space_generator)
        self.search_strategy = None if search_strategy is None else ss.create(search_strategy)
        if self.target is not None:
            for part in (self.space_generator, self.search_strategy):
                if part is not None:
                    part._initialize_with_tune_context(self)

    def fork_seed(self) -> int:
        return self._rng.randrange(1 << 31)

    def generate_design_space(self) -> list:
        if self.space_generator is None:
            raise ValueError("TuneContext.generate_design_space: no space_generator was given")
        return self.space_generator.generate_design_space(self.mod)

    def pre_tuning(self, max_trials: int, num_trials_per_iter: int = 64, design_spaces=None,
                   database=None, cost_model=None) -> None:
        if self.search_strategy is None:
            raise ValueError("TuneContext.pre_tuning: no search_strategy was given")
        self.search_strategy.pre_tuning(max_trials, num_trials_per_iter,
                                        design_spaces if design_spaces is not None else self.generate_design_space(),
                                        database, cost_model)

    def generate_measure_candidates(self):
        return self.search_strategy.generate_measure_candidates()

    def notify_runner_results(self, measure_candidates, results) -> None:
        self.search_strategy.notify_runner_results(measure_candidates, results)

    def post_tuning(self) -> None:
        self.search_strategy.post_tuning()

    def clone(self) -> TuneContext:
        return TuneContext(self.mod, target=self.target,
                           space_generator=None if self.space_generator is None else self.space_generator.clone(),
                           search_strategy=None if self.search_strategy is None else self.search_strategy.clone(),
                           task_name=self.task_name, rand_state=self.fork_seed(), num_threads=self.num_threads)
