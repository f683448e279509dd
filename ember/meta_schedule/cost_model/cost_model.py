"""The cost-model interface: ``update`` with measured candidates, ``predict`` scores
(higher is faster) for unmeasured ones, ``save`` / ``load``."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class CostModel(Protocol):
    def update(self, context, candidates: list, results: list) -> None: ...

    def predict(self, context, candidates: list) -> np.ndarray: ...

    def save(self, path: str) -> None: ...

    def load(self, path: str) -> None: ...


def create(kind="xgb", **kwargs):
    from .random_model import RandomModel
    from .xgb_model import XGBModel

    table = {"xgb": XGBModel, "random": RandomModel}
    if isinstance(kind, str):
        if kind not in table:
            raise ValueError(f"cost_model must be 'xgb', 'random' or a CostModel, got {kind!r}")
        return table[kind](**kwargs)
    return kind
