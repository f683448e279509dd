"""``XGBModel``: an XGBoost regressor from block features to normalised throughput.

Each measured candidate's block features (``PerBlockFeature``) are pooled into one
vector; the target is best-latency / latency of its workload (1 for the best, failed
candidates 0), so scores compare within a workload and the search ranks by them.
Training data is kept so ``save`` / ``load`` carry both the data and the booster."""

from __future__ import annotations

import pickle

import numpy as np

from ..database import FAILED_SECS
from .feature_extractor import PerBlockFeature, pooled


class XGBModel:
    def __init__(self, *, extractor=None, config=None, num_warmup_samples: int = 16, early_stopping_rounds: int = 50,
                 verbose_eval: int = 0, average_peak_n: int = 32, adaptive_training: bool = True,
                 num_boost_round: int = 100, path: str | None = None):
        self.extractor = extractor or PerBlockFeature()
        self.params = {"max_depth": 10, "eta": 0.2, "min_child_weight": 0, "gamma": 1e-4,
                       "objective": "reg:squarederror", "nthread": 1, **(config or {})}
        self.num_warmup_samples = num_warmup_samples
        self.num_boost_round = num_boost_round
        self.features: list = []  # pooled vectors
        self.latencies: list = []
        self.groups: list = []  # workload key per sample (targets normalise within it)
        self.booster = None
        self._trained_on = 0
        if path is not None:
            self.load(path)

    def _vectors(self, context, candidates) -> np.ndarray:
        return np.stack([pooled(f) for f in self.extractor.extract_from(context, candidates)])

    def update(self, context, candidates, results) -> None:
        if not candidates:
            return
        vecs = self._vectors(context, candidates)
        for vec, res in zip(vecs, results):
            secs = res.run_secs if res.error_msg is None and res.run_secs else None
            self.features.append(vec)
            self.latencies.append(float(np.mean(secs)) if secs else FAILED_SECS)
            self.groups.append(getattr(context, "task_name", "main"))
        if len(self.features) >= self.num_warmup_samples:
            self._train()

    def _targets(self) -> np.ndarray:
        lat = np.asarray(self.latencies)
        groups = np.asarray(self.groups)
        y = np.zeros_like(lat)
        for g in set(self.groups):
            mask = groups == g
            best = lat[mask].min()
            y[mask] = np.where(lat[mask] >= FAILED_SECS, 0.0, best / lat[mask])
        return y

    def _train(self) -> None:
        import xgboost as xgb

        data = xgb.DMatrix(np.stack(self.features), label=self._targets())
        self.booster = xgb.train(self.params, data, num_boost_round=self.num_boost_round)
        self._trained_on = len(self.features)

    def predict(self, context, candidates) -> np.ndarray:
        if not candidates:
            return np.zeros(0)
        if self.booster is None:
            return np.random.default_rng(len(self.features)).uniform(0, 1, size=len(candidates))
        import xgboost as xgb

        return self.booster.predict(xgb.DMatrix(self._vectors(context, candidates)))

    def save(self, path: str) -> None:
        raw = None if self.booster is None else bytes(self.booster.save_raw("json"))
        with open(path, "wb") as f:
            pickle.dump({"booster": raw, "features": self.features, "latencies": self.latencies,
                         "groups": self.groups, "params": self.params}, f)

    def load(self, path: str) -> None:
        import xgboost as xgb

        with open(path, "rb") as f:
            state = pickle.load(f)
        self.features, self.latencies = list(state["features"]), list(state["latencies"])
        self.groups, self.params = list(state["groups"]), dict(state["params"])
        self.booster = None
        if state["booster"] is not None:
            self.booster = xgb.Booster()
            self.booster.load_model(bytearray(state["booster"]))
        self._trained_on = len(self.features)
