"""Relax expression nodes: the graph IR's leaves, calls, bindings, blocks and functions.

Every expression carries ``struct_info``.  ``Var``s hold theirs as a field (it is part
of the variable's identity); leaves and tuples compute theirs when built; ``Call``s
get theirs from ``BlockBuilder.normalize`` (each operator's ``FInferStructInfo``),
which sets it once.  Structural equality ignores inferred struct info (it follows from
the fields) and the names of variables.
"""

from __future__ import annotations

import numpy as np

from ember.ir import BaseFunc, DataType, GlobalVar, Node, PrimExpr, node

from ._arith import int64
from .struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo,
    TensorStructInfo, TupleStructInfo, struct_info_lca,
)

__all__ = [
    "Expr", "RelaxExpr", "Var", "DataflowVar", "Constant", "Tuple", "TupleGetItem", "Call",
    "ShapeExpr", "PrimValue", "StringImm", "DataTypeImm", "ExternFunc", "If", "SeqExpr",
    "Binding", "VarBinding", "MatchCast", "BindingBlock", "DataflowBlock", "Function",
    "GlobalVar", "const", "extern", "get_shape_of",
]



def _dltensor_field(field: str, make: str) -> property:
    """A property giving ``relax.op.inspect.<make>(self)`` for a tensor-valued expression."""

    def get(self):
        from .op import inspect

        inspect.check_tensor_operand(self, field)
        return getattr(inspect, make)(self)

    return property(get, doc=f"The run-time DLTensor field ``{field}`` (relax.op.inspect).")

class Expr(Node):
    """Base of Relax expressions; ``struct_info`` is set at construction or by normalisation."""

    __slots__ = ("_sinfo",)

    @property
    def struct_info(self) -> StructInfo:
        sinfo = self.struct_info_or_none()
        if sinfo is None:
            raise ValueError(
                f"{type(self).__name__} has no struct_info yet; normalise it first "
                "(BlockBuilder.normalize or bb.emit)"
            )
        return sinfo

    @property
    def struct_info_(self) -> StructInfo | None:
        return self.struct_info_or_none()

    def struct_info_or_none(self) -> StructInfo | None:
        return getattr(self, "_sinfo", None)

    def _set_struct_info(self, sinfo: StructInfo) -> None:
        """Record inferred struct info (normalisation only; a node keeps the first one)."""
        if getattr(self, "_sinfo", None) is None:
            object.__setattr__(self, "_sinfo", sinfo)

    @property
    def checked_type(self):
        from .struct_info import get_static_type

        return get_static_type(self.struct_info)

    # -- Python operators build operator calls (like TVM's ExprWithOp) ---------------
    def _binop(self, name: str, other, reverse: bool = False):
        from .op import base

        other = base.as_operand(other, like=self)
        fn = base.get_op_function(name)
        return fn(other, self) if reverse else fn(self, other)

    def __add__(self, other):
        return self._binop("add", other)

    def __radd__(self, other):
        return self._binop("add", other, True)

    def __sub__(self, other):
        return self._binop("subtract", other)

    def __rsub__(self, other):
        return self._binop("subtract", other, True)

    def __mul__(self, other):
        return self._binop("multiply", other)

    def __rmul__(self, other):
        return self._binop("multiply", other, True)

    def __truediv__(self, other):
        return self._binop("divide", other)

    def __rtruediv__(self, other):
        return self._binop("divide", other, True)

    def __floordiv__(self, other):
        return self._binop("floor_divide", other)

    def __pow__(self, other):
        return self._binop("power", other)

    def __neg__(self):
        from .op import base

        return base.get_op_function("negative")(self)

    def __lt__(self, other):
        return self._binop("less", other)

    def __le__(self, other):
        return self._binop("less_equal", other)

    def __gt__(self, other):
        return self._binop("greater", other)

    def __ge__(self, other):
        return self._binop("greater_equal", other)

    __hash__ = object.__hash__

    def astype(self, dtype):
        from .op import base

        return base.get_op_function("astype")(self, dtype)

    # -- a tensor's run-time DLTensor fields (TVM's ExprWithOp; relax.op.inspect) ----
    # x.dtype.type_code / .bits / .lanes, x.ndim, x.shape[axis], x.strides[axis],
    # x.byte_offset, x.elem_offset; AttributeError on a value that is not a tensor
    dtype = _dltensor_field("dtype", "DLTensorDTypeProxy")
    ndim = _dltensor_field("ndim", "tensor_ndim")
    shape = _dltensor_field("shape", "DLTensorShapeProxy")
    strides = _dltensor_field("strides", "DLTensorStridesProxy")
    byte_offset = _dltensor_field("byte_offset", "tensor_byte_offset")
    elem_offset = _dltensor_field("elem_offset", "tensor_elem_offset")

    def __getitem__(self, index: int):
        if not isinstance(index, int):
            raise TypeError(f"only tuple values can be indexed, with an int; got {index!r}")
        return TupleGetItem(self, index)


RelaxExpr = Expr


# -- variables -------------------------------------------------------------------------

@node
class Var(Expr):
    """A variable bound by a function parameter or a binding; ``struct_info`` says what it holds."""

    name_hint: str
    struct_info: StructInfo | None = None

    _binding = True
    _ignore_fields = ("name_hint",)

    def __init__(self, name_hint: str = "v", struct_info: StructInfo | None = None):
        if struct_info is not None and not isinstance(struct_info, StructInfo):
            raise TypeError(
                f"Var {name_hint!r}: struct_info must be a StructInfo, got {type(struct_info).__name__}"
            )
        object.__setattr__(self, "name_hint", str(name_hint))
        object.__setattr__(self, "struct_info", struct_info)

    def struct_info_or_none(self):
        return self.struct_info

    @property
    def vid(self):
        return self


@node
class DataflowVar(Var):
    """A variable local to a dataflow block (not visible after it)."""

    def __init__(self, name_hint: str = "v", struct_info: StructInfo | None = None):
        Var.__init__(self, name_hint, struct_info)


# -- leaves --------------------------------------------------------------------------

def _to_ndarray(data, dtype=None):
    arr = data
    if not isinstance(arr, np.ndarray) and hasattr(arr, "numpy"):
        arr = arr.numpy()
    arr = np.asarray(arr)
    if dtype is not None:
        arr = arr.astype(DataType(dtype).numpy())
    try:
        from ember.runtime.ndarray import array

        return array(arr)
    except Exception:  # noqa: BLE001 - numpy storage is the fallback
        return arr


@node
class Constant(Expr):
    """A constant tensor; ``data`` is an ember NDArray (numpy when the runtime lacks one)."""

    data: object

    _structural_fields = ("_data_key",)

    def __init__(self, data, struct_info: StructInfo | None = None):
        data = _to_ndarray(data)
        object.__setattr__(self, "data", data)
        arr = self.numpy()
        sinfo = struct_info or TensorStructInfo(list(arr.shape), str(DataType(arr.dtype)))
        object.__setattr__(self, "_sinfo", sinfo)

    def numpy(self) -> np.ndarray:
        data = self.data
        return data if isinstance(data, np.ndarray) else data.numpy()

    @property
    def is_scalar(self) -> bool:
        return self.numpy().ndim == 0

    @property
    def _data_key(self) -> tuple:
        arr = self.numpy()
        return (str(arr.dtype), arr.shape, np.ascontiguousarray(arr).tobytes())


def const(value, dtype: str | None = None) -> Constant:
    """A Relax constant from a Python number, list, numpy array or NDArray."""
    if isinstance(value, Constant):
        return value
    if dtype is None and isinstance(value, bool | int | float):
        dtype = {bool: "bool", int: "int64", float: "float32"}[type(value)]
        if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31:
            dtype = "int32"
    if dtype is None and not hasattr(value, "dtype"):
        arr = np.asarray(value)
        if arr.dtype == np.float64:
            dtype = "float32"
        elif arr.dtype == np.int64 and (arr.size == 0 or np.abs(arr).max() < 2**31):
            dtype = "int32"
    return Constant(_to_ndarray(value, dtype))


@node
class ShapeExpr(Expr):
    """A shape value: a tuple of PrimExprs (int64, possibly symbolic)."""

    values: tuple

    def __init__(self, values):
        if isinstance(values, ShapeExpr):
            values = values.values
        vals = tuple(int64(v) for v in values)
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "_sinfo", ShapeStructInfo(vals))

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i]

    def __iter__(self):
        return iter(self.values)


@node
class PrimValue(Expr):
    """A scalar PrimExpr used as a Relax value."""

    value: PrimExpr

    def __init__(self, value):
        from ember.ir import as_expr

        value = as_expr(value, "int64" if isinstance(value, int) and not isinstance(value, bool) else None)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_sinfo", PrimStructInfo(value=value))


@node
class StringImm(Expr):
    value: str

    def __init__(self, value: str):
        object.__setattr__(self, "value", str(value))
        object.__setattr__(self, "_sinfo", ObjectStructInfo())


@node
class DataTypeImm(Expr):
    value: DataType

    def __init__(self, value):
        object.__setattr__(self, "value", DataType(value))
        object.__setattr__(self, "_sinfo", ObjectStructInfo())


@node
class ExternFunc(Expr):
    """A function outside the module, found by name in the runtime registry."""

    global_symbol: str

    def __init__(self, global_symbol: str, struct_info: StructInfo | None = None):
        object.__setattr__(self, "global_symbol", str(global_symbol))
        object.__setattr__(self, "_sinfo", struct_info or FuncStructInfo.opaque_func())


def extern(name: str, struct_info: StructInfo | None = None) -> ExternFunc:
    return ExternFunc(name, struct_info)


# -- compound ------------------------------------------------------------------------

@node
class Tuple(Expr):
    fields: tuple

    def __init__(self, fields):
        from .op.base import as_operand

        fields = tuple(as_operand(f) for f in fields)
        object.__setattr__(self, "fields", fields)
        infos = [f.struct_info_or_none() for f in fields]
        if all(i is not None for i in infos):
            object.__setattr__(self, "_sinfo", TupleStructInfo(infos))

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, i):
        return self.fields[i]


@node
class TupleGetItem(Expr):
    tuple_value: Expr
    index: int

    def __init__(self, tuple_value, index: int):
        object.__setattr__(self, "tuple_value", tuple_value)
        object.__setattr__(self, "index", int(index))
        sinfo = tuple_value.struct_info_or_none()
        if isinstance(sinfo, TupleStructInfo):
            if not 0 <= self.index < len(sinfo.fields):
                raise IndexError(
                    f"TupleGetItem: index {index} out of range for a tuple of {len(sinfo.fields)} fields"
                )
            object.__setattr__(self, "_sinfo", sinfo.fields[self.index])


@node
class Call(Expr):
    """A call of an ``Op``, a ``GlobalVar``, an ``ExternFunc`` or a function-valued Var."""

    op: Node
    args: tuple
    attrs: Node | None = None
    sinfo_args: tuple = ()

    def __init__(self, op, args, attrs=None, sinfo_args=(), struct_info=None):
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "attrs", attrs)
        if isinstance(sinfo_args, StructInfo):
            sinfo_args = (sinfo_args,)
        object.__setattr__(self, "sinfo_args", tuple(sinfo_args or ()))
        if struct_info is not None:
            object.__setattr__(self, "_sinfo", struct_info)


@node
class If(Expr):
    cond: Expr
    true_branch: Expr
    false_branch: Expr

    def __post_init__(self):
        a, b = self.true_branch.struct_info_or_none(), self.false_branch.struct_info_or_none()
        if a is not None and b is not None:
            object.__setattr__(self, "_sinfo", struct_info_lca(a, b))


# -- bindings and blocks ----------------------------------------------------------------

class Binding(Node):
    __slots__ = ()


@node
class VarBinding(Binding):
    var: Var
    value: Expr


@node
class MatchCast(Binding):
    """Bind ``var`` to ``value`` after checking (at run time) that it matches ``struct_info``."""

    var: Var
    value: Expr
    struct_info: StructInfo


@node
class BindingBlock(Node):
    bindings: tuple

    def __init__(self, bindings):
        object.__setattr__(self, "bindings", tuple(bindings))


@node
class DataflowBlock(BindingBlock):
    """A block of pure bindings; only its non-Dataflow vars are visible after it."""

    def __init__(self, bindings):
        BindingBlock.__init__(self, bindings)


@node
class SeqExpr(Expr):
    blocks: tuple
    body: Expr

    def __init__(self, blocks, body):
        object.__setattr__(self, "blocks", tuple(blocks))
        object.__setattr__(self, "body", body)
        sinfo = body.struct_info_or_none()
        if sinfo is not None:
            object.__setattr__(self, "_sinfo", sinfo)


# -- functions -----------------------------------------------------------------------

@node
class Function(BaseFunc, Expr):
    """A Relax function: ``params`` (Vars), ``body``, return struct info, purity, attributes."""

    params: tuple
    body: Expr
    ret_struct_info: StructInfo | None = None
    is_pure: bool = True
    attrs: dict = None

    def __init__(self, params, body, ret_struct_info=None, is_pure: bool = True, attrs=None, span=None):
        params = tuple(params)
        for i, p in enumerate(params):
            if not isinstance(p, Var):
                raise TypeError(f"Function: params[{i}] must be a relax.Var, got {type(p).__name__}")
            if p.struct_info is None:
                raise ValueError(f"Function: parameter {p.name_hint!r} has no struct_info")
        body_sinfo = body.struct_info_or_none()
        if ret_struct_info is None:
            ret_struct_info = body_sinfo
            if ret_struct_info is None:
                raise ValueError("Function: the body has no struct_info; give ret_struct_info or normalise it")
        elif body_sinfo is not None and body_sinfo is not ret_struct_info:
            ret_struct_info = _refined_return(params, body_sinfo, ret_struct_info)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "ret_struct_info", ret_struct_info)
        object.__setattr__(self, "is_pure", bool(is_pure))
        object.__setattr__(self, "attrs", dict(attrs or {}))
        info = FuncStructInfo([p.struct_info for p in params], ret_struct_info, bool(is_pure))
        object.__setattr__(self, "_sinfo", info)

    @staticmethod
    def create_empty(params, ret_struct_info, is_pure: bool = True, attrs=None) -> Function:
        """A function without a body (only its signature), like TVM's."""
        return Function(params, ExternFunc("__empty__", ret_struct_info), ret_struct_info, is_pure, attrs)

    def __call__(self, *args):
        return Call(self, [_arg(a) for a in args])

    def bind_symbolic_vars(self, binding_map: dict) -> Function:
        """The function with symbolic variables (keys: tir Vars or names) replaced by values."""
        from .transform.bind_symbolic_vars import bind_symbolic_vars

        return bind_symbolic_vars(self, binding_map, strict=True)

    def bind_params(self, binding_map: dict) -> Function:
        """The function with parameters (keys: Vars or names) replaced by values (Relax
        expressions or arrays) and removed; tir Var keys bind symbolic dims (TVM's method)."""
        from ember.ir import Var as TirVar

        by_name = {p.name_hint: p for p in self.params}
        relax_map, dims = {}, {}
        for key, value in binding_map.items():
            param = by_name.get(key) if isinstance(key, str) else (key if key in self.params else None)
            if param is None:
                dims[key] = value  # a symbolic variable (or its name)
            else:
                relax_map[param] = value if isinstance(value, Expr) else Constant(value)
        from .backend.ir_util import substitute

        rest = [p for p in self.params if p not in relax_map]
        func = Function(rest, substitute(self.body, relax_map), self.ret_struct_info, self.is_pure, self.attrs)
        if dims:
            from .transform.bind_symbolic_vars import bind_symbolic_vars

            func = bind_symbolic_vars(func, {k: v for k, v in dims.items() if isinstance(k, str | TirVar)})
        return func


def _update_struct_info(expr: Expr, struct_info: StructInfo) -> None:
    """Set ``expr``'s struct info directly (TVM's testing hook; normalisation does it otherwise)."""
    object.__setattr__(expr, "_sinfo", struct_info)


def _refined_return(params, body_sinfo, ret_sinfo):
    """The declared return struct info, or the body's when that is finer (TVM's Function does
    the same), once symbolic vars the parameters do not define are erased from it."""
    from .struct_info import is_base_of
    from .struct_info_subst import defined_tir_vars, erase_to_well_defined

    known = {v: v for v in defined_tir_vars([p.struct_info for p in params])}
    body_sinfo = erase_to_well_defined(body_sinfo, known)
    return body_sinfo if is_base_of(ret_sinfo, body_sinfo) else ret_sinfo


def _arg(a):
    from .op.base import as_operand

    return as_operand(a)


def get_shape_of(expr: Expr) -> Expr:
    """The shape of a tensor-valued expression, as recorded in its struct info."""
    sinfo = expr.struct_info
    if not isinstance(sinfo, TensorStructInfo):
        raise TypeError(f"get_shape_of: expected a tensor, got {type(sinfo).__name__}")
    if sinfo.shape is None:
        raise ValueError("get_shape_of: the tensor's shape is unknown")
    return sinfo.shape


