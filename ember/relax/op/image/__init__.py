"""``relax.op.image``: image resizing."""

from .resize import resize2d  # noqa: F401
