"""Facts about this ember installation."""

from .libinfo import libinfo

__all__ = ["libinfo"]
