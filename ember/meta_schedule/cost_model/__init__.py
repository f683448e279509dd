"""Cost models: ``XGBModel`` (learned from block features), ``RandomModel``."""

from .cost_model import CostModel, create
from .feature_extractor import PerBlockFeature, PerStoreFeature
from .random_model import RandomModel
from .xgb_model import XGBModel

PyCostModel = object

__all__ = ["CostModel", "PerBlockFeature", "PerStoreFeature", "RandomModel", "XGBModel", "create"]
