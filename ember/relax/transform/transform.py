"""``relax.transform.transform``: TVM's module path for the pass constructors.

TVM defines its passes in ``tvm.relax.transform.transform`` and re-exports them from
``tvm.relax.transform``; here the package is the one place they live, and this module
answers every name from it so that either import path works.
"""

from __future__ import annotations


def __getattr__(name: str):
    from ember.relax import transform as package

    try:
        return getattr(package, name)
    except AttributeError:
        raise AttributeError(f"module 'ember.relax.transform.transform' has no attribute {name!r}") from None
