"""ember.arith: arithmetic analysis of integer expressions.

``Analyzer`` simplifies (linear canonical form plus a rule table), bounds
(``const_int_bound``), finds modular sets, proves conditions, and evaluates integer
sets over loop domains (``int_set`` / ``eval_set``); ``detect_iter_map`` recognises
affine fused/split iterator patterns.  Names follow ``tvm.arith``.
"""

from .analyzer import Analyzer
from .const_int_bound import ConstIntBound
from .evaluate import evaluate
from .modular_set import ModularSet

__all__ = ["Analyzer", "ConstIntBound", "ModularSet", "evaluate"]
