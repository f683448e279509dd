"""PrimFunc: a TensorIR function with parameters, a buffer map and attributes."""

from __future__ import annotations

from ember.ir import BaseFunc, node

from .stmt import Stmt

__all__ = ["PrimFunc"]


@node
class PrimFunc(BaseFunc):
    """``params`` are Vars; ``buffer_map`` maps handle params to the Buffers they carry."""

    _def_fields = ("params", "buffer_map")  # structural equality: where variables are defined
    _structural_order = ("params", "ret_type", "buffer_map", "attrs", "body")  # definitions first

    params: tuple
    body: Stmt
    ret_type: object = None
    buffer_map: dict = None
    attrs: dict = None

    def __post_init__(self):
        if self.buffer_map is None:
            object.__setattr__(self, "buffer_map", {})
        if self.attrs is None:
            object.__setattr__(self, "attrs", {})

    def with_body(self, body: Stmt) -> PrimFunc:
        from ember.ir import replace

        return replace(self, body=body)

    def specialize(self, param_map: dict) -> PrimFunc:
        """Bind some parameters (scalar vars or buffers' shape vars) to values."""
        from .specialize import specialize

        return specialize(self, param_map)
