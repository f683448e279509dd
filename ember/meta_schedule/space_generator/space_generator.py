"""The space-generator interface and ``ScheduleFn`` (a user function as the whole space).

A space generator turns a workload into design spaces: schedules whose traces hold
sampling instructions.  It also carries the postprocessors and mutator probabilities
the search strategy uses, each given as a list or "from-target" (TVM's defaults for the
target kind)."""

from __future__ import annotations

from typing import Protocol

from ember.tir.schedule import Schedule


class SpaceGenerator(Protocol):
    sch_rules: list
    postprocs: list
    mutator_probs: dict

    def _initialize_with_tune_context(self, context) -> None: ...

    def generate_design_space(self, mod) -> list[Schedule]: ...

    def clone(self) -> SpaceGenerator: ...


class SpaceGeneratorBase:
    """Resolves "from-target" rule / postproc / mutator lists and initialises them."""

    def __init__(self, sch_rules="from-target", postprocs="from-target", mutator_probs="from-target"):
        self.sch_rules, self.postprocs, self.mutator_probs = sch_rules, postprocs, mutator_probs

    def _initialize_with_tune_context(self, context) -> None:
        from ..mutator import default_mutator_probs
        from ..postproc import default_postprocs
        from ..schedule_rule import default_rules

        if self.sch_rules == "from-target":
            self.sch_rules = default_rules(context.target)
        if self.postprocs == "from-target":
            self.postprocs = default_postprocs(context.target)
        if self.mutator_probs == "from-target":
            self.mutator_probs = default_mutator_probs(context.target)
        for part in list(self.sch_rules or []) + list(self.postprocs or []) + list(self.mutator_probs or {}):
            part._initialize_with_tune_context(context)
        self.context = context

    def clone(self):
        import copy

        return copy.copy(self)


class ScheduleFn(SpaceGeneratorBase):
    """``sch_fn(sch)`` schedules in place (returning None), or returns a schedule or a list."""

    def __init__(self, sch_fn, sch_rules=(), postprocs=(), mutator_probs=None):
        super().__init__(list(sch_rules), list(postprocs), dict(mutator_probs or {}))
        self.sch_fn = sch_fn

    def generate_design_space(self, mod) -> list[Schedule]:
        sch = Schedule(mod, seed=self.context.fork_seed())
        out = self.sch_fn(sch)
        if out is None:
            return [sch]
        return list(out) if isinstance(out, list | tuple) else [out]
