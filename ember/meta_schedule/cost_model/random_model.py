"""``RandomModel``: predicts uniform random scores (search without a learned model)."""

from __future__ import annotations

import numpy as np


class RandomModel:
    def __init__(self, seed: int | None = None, path: str | None = None, max_range: int = 100):
        self.rng = np.random.default_rng(seed)
        self.max_range = max_range
        if path is not None:
            self.load(path)

    def update(self, context, candidates, results) -> None:
        pass

    def predict(self, context, candidates) -> np.ndarray:
        return self.rng.uniform(0, self.max_range, size=len(candidates))

    def save(self, path: str) -> None:
        import pickle

        with open(path, "wb") as f:
            pickle.dump(self.rng.bit_generator.state, f)

    def load(self, path: str) -> None:
        import pickle

        with open(path, "rb") as f:
            self.rng.bit_generator.state = pickle.load(f)
