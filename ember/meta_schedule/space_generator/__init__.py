"""Space generators: ``PostOrderApply`` (schedule rules on every block), ``ScheduleFn``."""

from .post_order_apply import PostOrderApply
from .space_generator import ScheduleFn, SpaceGenerator, SpaceGeneratorBase

PySpaceGenerator = SpaceGeneratorBase

__all__ = ["PostOrderApply", "ScheduleFn", "SpaceGenerator", "PySpaceGenerator", "create"]


def create(kind="post-order-apply", **kwargs):
    if callable(kind) and not isinstance(kind, str):
        return ScheduleFn(kind, **kwargs)
    if kind == "post-order-apply":
        return PostOrderApply(**kwargs)
    if hasattr(kind, "generate_design_space"):
        return kind
    raise ValueError(f"space: expected 'post-order-apply', a function or a SpaceGenerator, got {kind!r}")
