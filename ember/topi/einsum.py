"""``einsum`` as one tensor expression: output letters are spatial axes, letters that
appear only in the inputs are summed over (explicit ``->`` or numpy's implicit output)."""

from __future__ import annotations

from ember import te
from ember.tir import op as tir_op

__all__ = ["einsum"]


def _parse(subscripts: str, n_operands: int) -> tuple[list[str], str]:
    text = subscripts.replace(" ", "")
    if "." in text:
        raise ValueError(f"topi.einsum: '...' (ellipsis) subscripts are not implemented, got {subscripts!r}")
    lhs, _, rhs = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != n_operands:
        raise ValueError(f"topi.einsum: {subscripts!r} names {len(inputs)} operands, got {n_operands}")
    if "->" not in text:
        letters = "".join(inputs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs, rhs


def einsum(subscripts: str, *operands) -> te.Tensor:
    """``numpy.einsum(subscripts, *operands)`` for explicit letters (no ellipsis)."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    inputs, output = _parse(subscripts, len(operands))
    extent = {}
    for letters, t in zip(inputs, operands):
        if len(letters) != t.ndim:
            raise ValueError(f"topi.einsum: subscript {letters!r} has {len(letters)} letters but operand "
                             f"{t.op.name!r} has {t.ndim} dimensions")
        for c, d in zip(letters, t.shape):
            extent.setdefault(c, d)
    reduced = sorted(set("".join(inputs)) - set(output))
    axes = {c: te.reduce_axis((0, extent[c]), name=f"k_{c}") for c in reduced}
    dtype = operands[0].dtype

    def f(*idx):
        var = {c: i for c, i in zip(output, idx)}
        var.update({c: a.var for c, a in axes.items()})
        term = None
        for letters, t in zip(inputs, operands):
            v = t(*[var[c] for c in letters])
            v = v if v.dtype is dtype else tir_op.cast(v, dtype)
            term = v if term is None else term * v
        return te.sum(term, axis=list(axes.values())) if axes else term

    return te.compute(tuple(extent[c] for c in output), f, name="T_einsum")
