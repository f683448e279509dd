"""Tensors and the operations that produce them: placeholder, compute and extern ops.

A ``Tensor`` is output ``value_index`` of an ``Operation``; two Tensor objects of the
same op and index are the same tensor (``==`` and ``hash`` follow that).  Indexing a
tensor, ``A[i, j]``, builds a ``ProducerLoad`` expression — the TE-level read that
``create_prim_func`` turns into a ``BufferLoad``.  ``TeIterVar`` is the iteration
variable of compute axes and reduce axes; it behaves like its Var in arithmetic.
"""

from __future__ import annotations

from ember.ir import DataType, Node, PrimExpr, as_expr, node
from ember.tir import IterVar

__all__ = [
    "Tensor", "ProducerLoad", "TensorLoad", "Operation", "PlaceholderOp", "ComputeOp",
    "ExternOp", "TeIterVar", "TensorSlice", "tensor_name", "walk_expr",
]


from ember.tir.producer_load import ProducerLoad  # noqa: E402 - a TIR node te builds

TensorLoad = ProducerLoad


def _delegate(name):
    def method(self, *args):
        return getattr(self.var, name)(*args)

    method.__name__ = name
    return method


class _VarArith:
    """Arithmetic on an iteration variable acts on its ``var``."""

    __slots__ = ()


for _op in (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__neg__",
    "__lt__", "__le__", "__gt__", "__ge__", "astype", "equal",
):
    setattr(_VarArith, _op, _delegate(_op))


@node
class TeIterVar(_VarArith, IterVar):
    """An IterVar usable in index arithmetic (``k + 1``), as TVM's te iteration vars are."""

    __hash__ = object.__hash__

    @property
    def dtype(self) -> DataType:
        return self.var.dtype

    @property
    def name(self) -> str:
        return self.var.name


class Operation(Node):
    """Base of te operations; ``output(i)`` is the i-th result tensor."""

    __slots__ = ()

    @property
    def num_outputs(self) -> int:
        return 1

    def output(self, index: int) -> Tensor:
        if not 0 <= index < self.num_outputs:
            raise IndexError(
                f"output index {index} is out of range: operation {self.name!r} has "
                f"{self.num_outputs} output(s)"
            )
        return Tensor(self.output_shape(index), self.output_dtype(index), self, index)

    @property
    def outputs(self) -> list[Tensor]:
        """Every output tensor of this operation."""
        return [self.output(i) for i in range(self.num_outputs)]

    @property
    def input_tensors(self) -> list[Tensor]:
        return []


@node
class PlaceholderOp(Operation):
    """An input of the computation: data that comes from outside."""

    name: str
    shape: tuple
    dtype: DataType
    tag: str = ""
    attrs: dict = None

    def output_shape(self, index: int) -> tuple:
        return self.shape

    def output_dtype(self, index: int) -> DataType:
        return self.dtype


@node
class ComputeOp(Operation):
    """``out[axis] = body[k]`` for every point of ``axis``; ``body`` has one expr per output."""

    name: str
    tag: str
    attrs: dict
    axis: tuple
    reduce_axis: tuple
    body: tuple

    @property
    def num_outputs(self) -> int:
        return len(self.body)

    def output_shape(self, index: int) -> tuple:
        return tuple(iv.dom.extent for iv in self.axis)

    def output_dtype(self, index: int) -> DataType:
        return self.body[index].dtype

    @property
    def input_tensors(self) -> list[Tensor]:
        return _producers(self.body)


@node
class ExternOp(Operation):
    """Outputs computed by an opaque statement over declared input and output buffers."""

    name: str
    tag: str
    attrs: dict
    inputs: tuple
    input_placeholders: tuple
    output_placeholders: tuple
    body: Node

    @property
    def num_outputs(self) -> int:
        return len(self.output_placeholders)

    def output_shape(self, index: int) -> tuple:
        return self.output_placeholders[index].shape

    def output_dtype(self, index: int) -> DataType:
        return self.output_placeholders[index].dtype

    @property
    def input_tensors(self) -> list[Tensor]:
        return list(self.inputs)


def walk_expr(expr, fn) -> None:
    """Call ``fn`` on every node of ``expr`` (pre-order) without entering producer tensors."""
    from ember.tir import pre_order_visit

    def visit(x):
        if isinstance(x, Tensor):
            return False
        return fn(x)

    pre_order_visit(expr, visit)


def _producers(exprs) -> list[Tensor]:
    found: dict[Tensor, None] = {}

    def visit(x):
        if isinstance(x, ProducerLoad):
            found.setdefault(x.producer, None)

    for e in exprs:
        walk_expr(e, visit)
    return list(found)


@node
class Tensor(Node):
    """Output ``value_index`` of ``op``: a ``shape``-shaped array of ``dtype``."""

    shape: tuple
    dtype: DataType
    op: Operation
    value_index: int = 0

    def __eq__(self, other):
        if isinstance(other, Tensor):
            return self.op is other.op and self.value_index == other.value_index
        if isinstance(other, PrimExpr | int | float):
            return _tensor_arith("equal", self, other)
        return NotImplemented

    def __ne__(self, other):
        if isinstance(other, Tensor):
            return not (self.op is other.op and self.value_index == other.value_index)
        if isinstance(other, PrimExpr | int | float):
            return _tensor_arith("not_equal", self, other)
        return NotImplemented

    def __hash__(self):
        return hash((id(self.op), self.value_index))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        return tensor_name(self)

    def __getitem__(self, indices) -> ProducerLoad:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if 0 < len(indices) < self.ndim and not any(isinstance(i, slice) for i in indices):
            return TensorSlice(self, indices)  # A[i][j]: the rest of the indices come next
        return self(*indices)

    def __call__(self, *indices) -> ProducerLoad:
        if len(indices) == 1 and isinstance(indices[0], list | tuple):
            indices = tuple(indices[0])
        if len(indices) != self.ndim:
            raise IndexError(
                f"tensor {self.name!r} has {self.ndim} dimension(s) {_shape_text(self.shape)} "
                f"but was indexed with {len(indices)} index(es)"
            )
        exprs = []
        for pos, index in enumerate(indices):
            if isinstance(index, slice):
                raise TypeError(
                    f"tensor {self.name!r}: index {pos} is a slice; te tensors take scalar indices"
                )
            expr = as_expr(index)
            if not (expr.dtype.is_integer and expr.dtype.lanes == 1):
                raise TypeError(
                    f"tensor {self.name!r}: index {pos} must be a scalar integer, got "
                    f"{expr.dtype} ({expr!r})"
                )
            exprs.append(expr)
        return ProducerLoad(self, tuple(exprs))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError(f"tensor {self.name!r} is 0-dimensional and has no len()")
        return int(self.shape[0])

    def __repr__(self) -> str:
        return f"Tensor(shape={_shape_text(self.shape)}, op.name={self.op.name}, dtype={self.dtype})"

    # elementwise arithmetic between tensors goes through topi (with broadcasting)
    def __add__(self, other):
        return _tensor_arith("add", self, other)

    def __radd__(self, other):
        return _tensor_arith("add", other, self)

    def __sub__(self, other):
        return _tensor_arith("subtract", self, other)

    def __rsub__(self, other):
        return _tensor_arith("subtract", other, self)

    def __mul__(self, other):
        return _tensor_arith("multiply", self, other)

    def __rmul__(self, other):
        return _tensor_arith("multiply", other, self)

    def __truediv__(self, other):
        return _tensor_arith("divide", self, other)

    def __rtruediv__(self, other):
        return _tensor_arith("divide", other, self)

    def __neg__(self):
        return _tensor_arith("negative", self)

    def astype(self, dtype) -> Tensor:
        from ember import topi

        return topi.cast(self, dtype)


def _tensor_arith(name: str, *args):
    from ember import topi

    return getattr(topi, name)(*args)


def tensor_name(tensor: Tensor) -> str:
    """The name of a tensor: its op's name, with ``_v<i>`` for multi-output ops."""
    op = tensor.op
    if op.num_outputs == 1:
        return op.name
    return f"{op.name}_v{tensor.value_index}"


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s.value) if hasattr(s, "value") else str(s) for s in shape) + ")"


class TensorSlice:
    """``A[i]`` of a tensor with more dimensions: indexing it again adds indices, and the
    load is made once every dimension has one (``A[0][i]`` is ``A[0, i]``)."""

    __slots__ = ("tensor", "indices")

    def __init__(self, tensor: Tensor, indices: tuple):
        self.tensor, self.indices = tensor, tuple(indices)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return self.tensor[self.indices + indices]

    @property
    def dtype(self):
        return self.tensor.dtype

    def asobject(self):
        """The load itself (every index given)."""
        return self.tensor(*self.indices)
