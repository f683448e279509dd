"""The mutator interface: ``apply(trace) -> Trace | None`` changes one decision (or one
sampled annotation) of a candidate's trace; None when it finds nothing to change.
Each mutator owns a ``random.Random`` seeded through the tune context."""

from __future__ import annotations

import copy
import random
from typing import Protocol

from ember.tir.schedule import Trace


class Mutator(Protocol):
    def _initialize_with_tune_context(self, context) -> None: ...

    def apply(self, trace: Trace) -> Trace | None: ...

    def clone(self) -> Mutator: ...


class MutatorBase:
    """Shared plumbing: a seeded rng, clone, repr."""

    def __init__(self):
        self.rng = random.Random(0)

    def _initialize_with_tune_context(self, context) -> None:
        self.rng = random.Random(context.fork_seed())

    def clone(self):
        new = copy.copy(self)
        new.rng = random.Random(self.rng.random())
        return new

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def default_mutator_probs(target) -> dict:
    from ..schedule_rule.schedule_rule import is_gpu
    from .mutate_compute_location import MutateComputeLocation
    from .mutate_parallel import MutateParallel
    from .mutate_tile_size import MutateTileSize
    from .mutate_unroll import MutateUnroll

    if is_gpu(target):
        return {MutateTileSize(): 0.9, MutateUnroll(): 0.08}
    return {MutateTileSize(): 0.9, MutateComputeLocation(): 0.05, MutateUnroll(): 0.03,
            MutateParallel(max_jobs_per_core=16): 0.02}
