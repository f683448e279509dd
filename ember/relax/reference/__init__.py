"""Reference (numpy) semantics of Relax: per-op implementations and a function interpreter."""

from .interpreter import RelaxInterpreterError, run  # noqa: F401
from .ops import OP_IMPLS, evaluate_op  # noqa: F401
