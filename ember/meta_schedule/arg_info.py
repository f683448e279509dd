"""``ArgInfo`` / ``TensorInfo``: the dtype and shape of each parameter of a kernel, which is
all a runner needs to allocate inputs (TVM's ``meta_schedule.arg_info``)."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir import PrimFunc

from .utils import normalize_mod, prim_func_of


@dataclass(frozen=True)
class TensorInfo:
    dtype: str
    shape: tuple

    def as_json(self) -> list:
        return ["TENSOR", self.dtype, list(self.shape)]

    def __str__(self) -> str:
        return f'Tensor("{self.dtype}", {list(self.shape)})'


class ArgInfo:
    """Factory of TensorInfo lists; ``from_prim_func`` / ``from_entry_func`` / ``from_json``."""

    @staticmethod
    def from_prim_func(func: PrimFunc) -> list[TensorInfo]:
        out = []
        for param in func.params:
            buf = func.buffer_map.get(param)
            if buf is None:
                raise ValueError(f"ArgInfo: parameter {param.name!r} is not a buffer; tuning needs "
                                 "kernels whose parameters are all buffers")
            shape = []
            for dim in buf.shape:
                if not hasattr(dim, "value"):
                    raise ValueError(f"ArgInfo: buffer {buf.name!r} has a symbolic dimension {dim}; "
                                     "tuning needs static shapes")
                shape.append(int(dim.value))
            out.append(TensorInfo(str(buf.dtype), tuple(shape)))
        return out

    @staticmethod
    def from_entry_func(mod, remove_preproc: bool = True) -> list[TensorInfo]:
        return ArgInfo.from_prim_func(prim_func_of(normalize_mod(mod))[1])

    @staticmethod
    def from_json(data) -> TensorInfo:
        kind, dtype, shape = data
        if kind != "TENSOR":
            raise ValueError(f"ArgInfo.from_json: unknown kind {kind!r} (expected 'TENSOR')")
        return TensorInfo(dtype, tuple(shape))
