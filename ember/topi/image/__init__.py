"""ember.topi.image: image operators (resize, grid_sample)."""

from .resize import *  # noqa: F403
from .grid_sample import grid_sample  # noqa: F401
