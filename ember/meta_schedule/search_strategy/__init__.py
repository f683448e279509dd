"""Search strategies: ``EvolutionarySearch`` (cost-model guided), ``ReplayTrace``, ``ReplayFunc``."""

from .candidate import MeasureCandidate, replay
from .evolutionary_search import EvolutionarySearch
from .replay_func import ReplayFunc
from .replay_trace import ReplayTrace
from .search_strategy import SearchStrategy, StrategyBase

PySearchStrategy = StrategyBase

__all__ = ["EvolutionarySearch", "MeasureCandidate", "ReplayFunc", "ReplayTrace", "SearchStrategy",
           "PySearchStrategy", "replay", "create"]


def create(kind="evolutionary", **kwargs):
    table = {"evolutionary": EvolutionarySearch, "replay-trace": ReplayTrace, "replay-func": ReplayFunc}
    if isinstance(kind, str):
        if kind not in table:
            raise ValueError(f"strategy must be one of {sorted(table)} or a SearchStrategy, got {kind!r}")
        return table[kind](**kwargs)
    return kind
