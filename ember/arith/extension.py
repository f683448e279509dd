"""``arith.Extension``: optional simplifier strengths a caller can switch on.

TVM's simplifier keeps some rewrites off by default because they cost time or change
the form of expressions; ``Analyzer.enabled_extensions`` selects them. ember's rule
table applies the cheap ones always; the flags are recorded on the analyzer so that
rules which are costly can consult them.
"""

from __future__ import annotations

import enum

__all__ = ["Extension"]


class Extension(enum.IntFlag):
    NoExtensions = 0
    TransitivelyProveInequalities = 1 << 0
    ConvertBooleanToAndOfOrs = 1 << 1
    ApplyConstraintsToBooleanBranches = 1 << 2
    ComparisonOfProductAndSum = 1 << 3
