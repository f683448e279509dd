"""Training utilities: ``register_te_gradient`` (see ``relax.transform.gradient_te``)."""

from ember.relax.transform.gradient_te import register_te_gradient

__all__ = ["register_te_gradient"]
