"""ember.arith: arithmetic analysis of integer expressions.

``Analyzer`` simplifies (linear canonical form plus a rule table), bounds
(``const_int_bound``), finds modular sets, proves conditions, and evaluates integer
sets over loop domains (``int_set`` / ``eval_set``); ``detect_iter_map`` recognises
affine fused/split iterator patterns.  Names follow ``tvm.arith``.
"""

from .analyzer import Analyzer
from .clip_bound import detect_clip_bound
from .const_int_bound import ConstIntBound
from .deduce_bound import deduce_bound
from .detect_cse import detect_common_subexpr
from .evaluate import evaluate
from .extension import Extension
from .int_constraints import IntConstraints, IntConstraintsTransform
from .int_set import IntervalSet, IntSet, eval_set, intersect, neg_inf, pos_inf, union
from .iter_map import (
    IterMapLevel, IterMapResult, detect_iter_map, iter_map_simplify, normalize_iter_map_to_expr,
)
from .iter_map_inverse import inverse_affine_iter_map
from .iter_map_normalize import normalize_to_iter_sum
from .iter_map_nodes import IterMapExpr, IterMark, IterSplitExpr, IterSumExpr
from .linear_equation import ProofStrength, detect_linear_equation
from .modular_set import ModularSet
from .narrow_predicate import narrow_predicate_expression
from .solve_linear_equations import solve_linear_equations
from .solve_linear_inequalities import solve_linear_inequalities
from .region_bound import (
    estimate_region_lower_bound, estimate_region_strict_bound, estimate_region_upper_bound,
)
from .subspace import subspace_divide

__all__ = [
    "Analyzer", "ConstIntBound", "Extension", "ModularSet", "evaluate",
    "IntSet", "IntervalSet", "eval_set", "union", "intersect", "pos_inf", "neg_inf",
    "IterMapLevel", "IterMapResult", "detect_iter_map", "iter_map_simplify",
    "normalize_iter_map_to_expr", "IterMapExpr", "IterMark", "IterSplitExpr", "IterSumExpr",
    "detect_linear_equation", "ProofStrength", "subspace_divide", "narrow_predicate_expression",
    "detect_clip_bound", "deduce_bound", "detect_common_subexpr", "estimate_region_lower_bound",
    "estimate_region_upper_bound", "estimate_region_strict_bound",
    "IntConstraints", "IntConstraintsTransform", "solve_linear_equations",
    "solve_linear_inequalities", "inverse_affine_iter_map",
    "normalize_to_iter_sum",
]
from . import _ffi_api  # noqa: E402,F401 - TVM-named entry points (tvm.arith._ffi_api.X)
