"""``relay.transform``: the pass context under its classic path (Relay's passes are Relax's)."""

from ember.transform import PassContext, Sequential, module_pass

from .build_module import build_config

__all__ = ["PassContext", "Sequential", "build_config", "module_pass"]
