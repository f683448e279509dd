"""ember.topi.image: image operators (resize)."""

from .resize import *  # noqa: F403
