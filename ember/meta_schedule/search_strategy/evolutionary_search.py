"""``EvolutionarySearch``: a population of candidates evolved under the cost model.

Each round: the population starts with the best measured traces of the workload (up to
``init_measured_ratio`` of it) and fresh samples of the design spaces; for
``genetic_num_iters`` generations parents are drawn in proportion to their predicted
score and mutated (one mutator picked by ``mutator_probs``) with probability
``genetic_mutate_prob``; then the best-predicted unmeasured candidates are measured,
``eps_greedy`` of the batch being random samples instead (exploration).

Defaults are smaller than TVM's (population 512, 4 generations): replaying a trace in
Python costs 0.1-1 s, so a population of 64 over 2 generations, and a round that stops
growing and evolving after ``round_time_limit`` seconds (it still fills its batch with
fresh samples), keep the search from eating the measurement time.  Before the first
measurement the default schedule (when the task scheduler gave one) is the parent."""

from __future__ import annotations

import time

import numpy as np
from ember.ir import structural_hash

from .search_strategy import StrategyBase


class EvolutionarySearch(StrategyBase):
    def __init__(self, population_size: int = 64, init_measured_ratio: float = 0.2,
                 init_min_unmeasured: int = 16, max_fail_count: int = 20, genetic_num_iters: int = 2,
                 genetic_mutate_prob: float = 0.85, genetic_max_fail_count: int = 10,
                 eps_greedy: float = 0.05, round_time_limit: float = 30.0):
        for name, v in (("init_measured_ratio", init_measured_ratio), ("genetic_mutate_prob", genetic_mutate_prob),
                        ("eps_greedy", eps_greedy)):
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"EvolutionarySearch: {name} must be in [0, 1], got {v}")
        if population_size < 1:
            raise ValueError(f"EvolutionarySearch: population_size must be >= 1, got {population_size}")
        self.population_size, self.init_measured_ratio = population_size, init_measured_ratio
        self.init_min_unmeasured, self.max_fail_count = init_min_unmeasured, max_fail_count
        self.genetic_num_iters, self.genetic_mutate_prob = genetic_num_iters, genetic_mutate_prob
        self.genetic_max_fail_count, self.eps_greedy = genetic_max_fail_count, eps_greedy
        self.round_time_limit = round_time_limit
        self._deadline = float("inf")

    def _late(self) -> bool:
        return time.time() > self._deadline

    # -- population ----------------------------------------------------------------------------
    def _measured_parents(self) -> list:
        if self.database is None or not self.database.has_workload(self.context.mod):
            return []
        workload = self.database.commit_workload(self.context.mod)
        k = int(self.population_size * self.init_measured_ratio)
        out = []
        for record in self.database.get_top_k(workload, k):
            sch = self._replay_kept(record.trace)
            if sch is not None:
                out.append(sch)
        return out

    def _seed_parent(self) -> list:
        """Before anything is measured: the default schedule (``seed_space``, set by
        ``default_seed.add_seed_space``) with its own decisions, so the first round's
        mutations explore its neighbours rather than only fresh random samples."""
        seed = getattr(self, "seed_space", None)
        sch = None if seed is None else self._replay_kept(seed)
        return [] if sch is None else [sch]

    def _replay_kept(self, trace):
        from .candidate import replay

        return replay(self.context.mod, trace, self.rng.randrange(1 << 30), self.postprocs)

    def _random(self, n: int, at_least: int = 0) -> list:
        out, fails = [], 0
        while len(out) < n and fails < self.max_fail_count and (len(out) < at_least or not self._late()):
            got = self._fresh(self.rng.choice(self.design_spaces), resample=True)
            if got is None:
                fails += 1
                continue
            out.append(got[0])
        return out

    def _scores(self, schedules) -> np.ndarray:
        if not schedules:
            return np.zeros(0)
        if self.cost_model is None:
            return np.array([self.rng.random() for _ in schedules])
        return np.asarray(self.cost_model.predict(self.context, [self._candidate(s) for s in schedules]),
                          dtype=np.float64)

    def _mutate(self, sch):
        probs = dict(getattr(self.context.space_generator, "mutator_probs", None) or {})
        if not probs:
            return None
        mutators, weights = list(probs), list(probs.values())
        for _ in range(self.genetic_max_fail_count):
            mutator = self.rng.choices(mutators, weights=weights)[0]
            trace = mutator.apply(sch.trace)
            if trace is None:
                continue
            child = self._replay_kept(trace)
            if child is not None:
                return child
        return None

    def _evolve(self, population: list) -> list:
        for _ in range(self.genetic_num_iters):
            if self._late():
                break
            scores = self._scores(population)
            weights = np.maximum(scores - scores.min(), 0) + 1e-6
            nxt = []
            for _ in range(len(population)):
                if self._late():
                    nxt.extend(population[len(nxt):])
                    break
                parent = population[self.rng.choices(range(len(population)), weights=weights.tolist())[0]]
                child = self._mutate(parent) if self.rng.random() < self.genetic_mutate_prob else None
                nxt.append(child if child is not None else parent)
            population = nxt
        return population

    # -- one round --------------------------------------------------------------------------------
    def generate_measure_candidates(self):
        if self.trials >= self.max_trials:
            return None
        budget = self._budget()
        self._deadline = time.time() + self.round_time_limit
        parents = self._measured_parents() or self._seed_parent()
        fresh = self._random(max(self.population_size - len(parents), self.init_min_unmeasured), at_least=budget)
        population = self._evolve(parents + fresh) if parents + fresh else []
        scores = self._scores(population)
        order = np.argsort(-scores, kind="stable")
        picked, keys = [], set()
        n_random = int(round(budget * self.eps_greedy))
        for idx in order:
            if len(picked) >= budget - n_random:
                break
            sch = population[int(idx)]
            key = structural_hash(sch.mod)
            if key in self.measured or key in keys:
                continue
            keys.add(key)
            picked.append(sch)
        for sch in fresh + self._random(budget - len(picked), at_least=budget - len(picked)):
            if len(picked) >= budget:
                break
            key = structural_hash(sch.mod)
            if key not in self.measured and key not in keys:
                keys.add(key)
                picked.append(sch)
        self.measured |= keys
        return [self._candidate(s) for s in picked] or None
