"""Shapes that are data in ONNX, as Relax sees them.

Inside the importer a shape computed from tensor shapes stays a ``ShapeExpr`` (1-D) or a
``PrimValue`` (0-D) of PrimExprs while the ops on it are shape-aware (``Shape``,
``Gather``, ``Concat``, ``Unsqueeze``, …); any other op sees it as an int64 tensor
(``as_tensor``).  A shape that exists only at run time (a graph input, or arithmetic on
shapes) becomes fresh symbolic vars: ``runtime_shape`` turns the tensor into a Relax
shape (``vm.builtin.tensor_to_shape``) and ``match_cast``s it to new ``tir.Var``s.
"""

from __future__ import annotations

import itertools

import numpy as np

from ember import te, tir
from ember.ir import IntImm, const as tir_const

from ... import op as R
from ...expr import PrimValue, ShapeExpr, const
from ...struct_info import ShapeStructInfo
from .common import shape_of, static_shape

__all__ = ["SHAPE_AWARE", "as_tensor", "runtime_shape", "dims_tensor", "dims_to_tensor"]

#: ops whose converters accept ShapeExpr / PrimValue inputs as they are
SHAPE_AWARE = frozenset({
    "Reshape", "Expand", "ConstantOfShape", "Concat", "Gather", "Unsqueeze", "Squeeze", "Slice",
    "Identity", "Cast", "Shape", "Size", "Range", "Add", "Sub", "Mul", "Div",
})

_counter = itertools.count()


def dims_to_tensor(ctx, dims: list, dtype: str = "int64"):
    """An int tensor holding ``dims`` (ints and PrimExprs); 0-D when ``dims`` is a scalar."""
    scalar = not isinstance(dims, list | tuple)
    values = [dims] if scalar else list(dims)
    if all(isinstance(d, int) or isinstance(d, IntImm) for d in values):
        arr = np.array([int(d.value) if isinstance(d, IntImm) else d for d in values], dtype)
        return const(arr.reshape(()) if scalar else arr)
    values = [tir_const(d, "int64") if isinstance(d, int) else tir.Cast("int64", d)
              if str(d.dtype) != "int64" else d for d in values]

    def build():
        if scalar:
            return te.compute((), lambda: values[0].astype(dtype) if dtype != "int64" else values[0],
                              name="shape_value")

        def pick(i):
            out = values[-1]
            for k in range(len(values) - 2, -1, -1):
                out = tir.Select(i == k, values[k], out)
            return out if dtype == "int64" else out.astype(dtype)

        return te.compute((len(values),), pick, name="shape_to_tensor")

    return ctx.emit(ctx.bb.call_te(build, primfunc_name_hint="shape_to_tensor"))


def as_tensor(ctx, value):
    """``value`` as a tensor (a ShapeExpr / PrimValue materialised)."""
    if isinstance(value, ShapeExpr):
        return dims_to_tensor(ctx, list(value.values))
    if isinstance(value, PrimValue):
        return dims_to_tensor(ctx, value.value)
    return value


def dims_tensor(ctx, x):
    """The shape of tensor ``x`` as a 1-D int64 tensor."""
    static = static_shape(x)
    if static is not None:
        return const(np.array(static, "int64"))
    return dims_to_tensor(ctx, shape_of(x))


def runtime_shape(ctx, tensor, hint: str = "d") -> list:
    """Fresh symbolic dims bound at run time to the values of 1-D int tensor ``tensor``."""
    dims = static_shape(tensor)
    if dims is None or len(dims) != 1:
        raise ctx.error(f"a run-time shape must be a 1-D tensor of static length, got {tensor.struct_info}")
    if str(tensor.struct_info.dtype) != "int64":
        tensor = ctx.emit(R.astype(tensor, "int64"))
    k = dims[0]
    shape = ctx.emit(R.call_pure_packed("vm.builtin.tensor_to_shape", tensor, sinfo_args=ShapeStructInfo(ndim=k)))
    n = next(_counter)
    names = [tir.Var(f"{hint}{n}_{i}", "int64") for i in range(k)]
    ctx.bb.match_cast(shape, ShapeStructInfo(names))
    return names


def expect_values(ctx, tensor, expected: list, hint: str = "v") -> None:
    """Check at run time that 1-D int ``tensor`` holds ``expected`` (ints; ``None``: any
    value): its values become a shape that is ``match_cast`` to those dims."""
    if str(tensor.struct_info.dtype) != "int64":
        tensor = ctx.emit(R.astype(tensor, "int64"))
    shape = ctx.emit(R.call_pure_packed("vm.builtin.tensor_to_shape", tensor,
                                        sinfo_args=ShapeStructInfo(ndim=len(expected))))
    n = next(_counter)
    dims = [tir.Var(f"{hint}{n}_{i}", "int64") if d is None else d for i, d in enumerate(expected)]
    ctx.bb.match_cast(shape, ShapeStructInfo(dims))
