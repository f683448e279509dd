"""The reference interpreter: a slow, obviously-correct numpy evaluator of TIR PrimFuncs.

``run(func, *arrays, **scalars)`` executes ``func`` on numpy arrays in place: buffer
parameters take C-contiguous arrays (outputs are written into them), scalar parameters
take numbers, positionally or by name.  It runs block-based TIR (blocks with init on
the first reduction iteration, predicates, alloc_buffers, match_buffers), scheduled
loops (every loop kind runs serially), and lowered TIR (Allocate, flat buffers that
share a data Var, Ramp/Broadcast vectors).  Values are numpy scalars of the node's
dtype, so integer arithmetic wraps like machine code; reads outside a buffer raise.

Implementation: the function is first compiled into nested Python closures (one per
node, found in the ``_EXPR`` / ``_STMT`` tables), then the closures run over one
environment dict mapping Vars to values, data Vars to flat storage arrays and Buffers
to their (strides, offset) layout.  Backends are compared against this in tests.
"""

from __future__ import annotations

import math

from .expr import InterpreterError, register_extern
from .memory import alloc as _alloc  # noqa: F401 - kept for tests that poke at allocation
from .stmt import run

__all__ = ["run", "register_extern", "InterpreterError"]
