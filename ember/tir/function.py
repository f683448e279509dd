"""PrimFunc: a TensorIR function with parameters, a buffer map and attributes."""

from __future__ import annotations

from ember.ir import BaseFunc, Var, node

from .buffer import Buffer
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
        if any(isinstance(p, Buffer) for p in self.params):  # PrimFunc([x, buf]), as TVM takes it
            params, buffer_map = [], dict(self.buffer_map)
            for p in self.params:
                if isinstance(p, Buffer):
                    handle = Var(p.name, "handle")
                    buffer_map[handle] = p
                    p = handle
                params.append(p)
            object.__setattr__(self, "params", tuple(params))
            object.__setattr__(self, "buffer_map", buffer_map)

        if self.attrs is None:
            object.__setattr__(self, "attrs", {})

    def with_body(self, body: Stmt) -> PrimFunc:
        from ember.ir import replace

        return replace(self, body=body)

    def specialize(self, param_map: dict) -> PrimFunc:
        """Bind some parameters (scalar vars or buffers' shape vars) to values."""
        from .specialize import specialize

        return specialize(self, param_map)


def __getattr__(name):
    """``tvm.tir.function.TensorIntrin``: TVM keeps it here; ember's lives with tensorize
    (imported lazily: that module builds PrimFuncs)."""
    if name == "TensorIntrin":
        from .schedule.tensor_intrin import TensorIntrin

        return TensorIntrin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
