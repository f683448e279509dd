"""Mutators: small changes to a candidate's trace for the evolutionary search."""

from .mutate_compute_location import MutateComputeLocation
from .mutate_parallel import MutateParallel
from .mutate_tile_size import MutateTileSize
from .mutate_unroll import MutateUnroll
from .mutator import Mutator, MutatorBase, default_mutator_probs

PyMutator = MutatorBase

__all__ = ["MutateComputeLocation", "MutateParallel", "MutateTileSize", "MutateUnroll", "Mutator",
           "PyMutator", "default_mutator_probs"]
