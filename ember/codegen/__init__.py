"""ember.codegen: code generators from lowered TIR (llvm here; c and cuda beside it)."""

from .packed_api import make_packed_api

__all__ = ["make_packed_api"]
