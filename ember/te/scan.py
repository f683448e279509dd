"""``te.scan``: a recurrence over the first axis (TVM's ScanOp).

``scan(init, update, state_placeholder)`` describes ``state[0:k] = init`` (``k`` rows of
``init``) and ``state[t] = update[t]`` for ``t >= k``, where ``update`` reads earlier rows
through ``state_placeholder``. Several states may advance together (lists of the same
length). The result tensors have the placeholders' shapes. ember describes scans (their
shapes, inputs and serialization) but does not lower them: ``create_prim_func`` refuses a
ScanOp, as TVM's does.
"""

from __future__ import annotations

from ember.ir import DataType, IntImm, Range, Var, node
from ember.tir import IterVarType

from .tensor import Operation, Tensor, TeIterVar

__all__ = ["ScanOp", "scan"]


@node
class ScanOp(Operation):
    """``num_outputs`` states computed row by row along ``scan_axis``."""

    name: str
    tag: str
    attrs: dict
    scan_axis: TeIterVar
    init: tuple
    update: tuple
    state_placeholder: tuple
    inputs: tuple

    @property
    def num_outputs(self) -> int:
        return len(self.update)

    def output_shape(self, index: int) -> tuple:
        return self.state_placeholder[index].shape

    def output_dtype(self, index: int) -> DataType:
        return self.update[index].dtype

    @property
    def input_tensors(self) -> list[Tensor]:
        return [*self.init, *self.update, *self.inputs]


def _as_list(x) -> list:
    return list(x) if isinstance(x, list | tuple) else [x]


def scan(init, update, state_placeholder, inputs=None, name: str = "scan", tag: str = "", attrs=None):
    """The scan's result tensor (a list when there are several states)."""
    init, update, states = _as_list(init), _as_list(update), _as_list(state_placeholder)
    if not len(init) == len(update) == len(states):
        raise ValueError(f"te.scan {name!r}: init, update and state_placeholder need one entry per state, "
                         f"got {len(init)}, {len(update)} and {len(states)}")
    for i, (a, u, s) in enumerate(zip(init, update, states)):
        if len(u.shape) != len(s.shape) or len(a.shape) != len(s.shape):
            raise ValueError(f"te.scan {name!r}: state {i}: init, update and placeholder must have the "
                             f"same number of dimensions, got {len(a.shape)}, {len(u.shape)} and {len(s.shape)}")
        if u.dtype != s.dtype:
            raise ValueError(f"te.scan {name!r}: state {i}: update is {u.dtype} but the placeholder is {s.dtype}")
    first = init[0].shape[0]
    extent = update[0].shape[0]
    dtype = extent.dtype if hasattr(extent, "dtype") else "int32"
    lo = first if hasattr(first, "dtype") else IntImm(DataType(dtype), int(first))
    axis = TeIterVar(Range(lo, extent - lo), Var(f"{name}.idx", dtype), IterVarType.Ordered)
    op = ScanOp(name, tag, dict(attrs or {}), axis, tuple(init), tuple(update), tuple(states),
                tuple(inputs or ()))
    outs = [op.output(i) for i in range(op.num_outputs)]
    return outs[0] if len(outs) == 1 else outs
