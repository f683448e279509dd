"""The words of Relax TVMScript that are not operators: struct-info constructors
(``R.Tensor``, ``R.Shape``, ``R.Tuple``, ``R.Object``, ``R.Prim``, ``R.Callable``),
value builders (``R.const``, ``R.shape``, ``R.prim_value``, ``R.str``, ``R.dtype``,
``R.tuple``, ``R.ExternFunc``) and the statement words the parser reads
(``R.dataflow``, ``R.output``, ``R.func_attr``, ``R.match_cast``)."""

from __future__ import annotations

import builtins

import numpy as np

from ember.ir import Var as _TirVar

from ember import relax
from ember.relax import struct_info as si

__all__ = [
    "Tensor", "Shape", "Tuple", "Object", "Prim", "Callable", "const", "shape", "prim_value",
    "str", "dtype", "tuple", "ExternFunc", "call_packed", "dataflow", "output", "func_attr", "match_cast",
    "MatchCastMarker", "PARSER_WORDS", "emit_te",
]


class _Word:
    """A struct-info word usable bare (``R.Object``) or called (``R.Tensor((n,), "f32")``)."""

    def __init__(self, name: str, make):
        self.name, self.make = name, make

    def __call__(self, *args, **kwargs):
        return self.make(*args, **kwargs)

    def __repr__(self) -> str:
        return f"R.{self.name}"

    def bare(self):
        return self.make()

    def as_struct_info(self, dict_globals=None):
        """The struct info the bare word stands for (``R.Object`` → ``ObjectStructInfo()``)."""
        return self.make()


def _dims(values):
    """Strings in a shape are symbolic dims; outside the parser each becomes a fresh var."""
    if values is None or not isinstance(values, list | builtins.tuple):
        return values
    return [_TirVar(v, "int64") if isinstance(v, builtins.str) else v for v in values]


def _tensor(shape=None, dtype=None, vdevice=None, ndim: int = -1):
    if isinstance(shape, builtins.str) and dtype is None:  # R.Tensor("float32")
        shape, dtype = None, shape
    return si.TensorStructInfo(_dims(shape), dtype, vdevice, ndim)


def _shape(values=None, ndim: int = -1):
    return si.ShapeStructInfo(_dims(values), ndim)


def _prim(dtype=None, value=None):
    if isinstance(value, builtins.str):  # R.Prim(value="n") outside the parser
        value = _TirVar(value, "int64")
    return si.PrimStructInfo(dtype, value)


def _callable(params=None, ret=None, purity: bool = True, derive_func=None):
    ret = as_sinfo(ret) if ret is not None else si.ObjectStructInfo()
    if params is None:
        return si.FuncStructInfo.opaque_func(ret, derive_func, purity)
    return si.FuncStructInfo([as_sinfo(p) for p in params], ret, purity)


Tensor = _Word("Tensor", _tensor)
Shape = _Word("Shape", _shape)
def _tuple_sinfo(*fields):
    if len(fields) == 1 and isinstance(fields[0], (list, builtins.tuple)):  # R.Tuple([A, B]) as TVM allows
        fields = fields[0]
    return si.TupleStructInfo([as_sinfo(f) for f in fields])


Tuple = _Word("Tuple", _tuple_sinfo)
Object = _Word("Object", si.ObjectStructInfo)
Prim = _Word("Prim", _prim)
Callable = _Word("Callable", _callable)


def as_sinfo(x) -> si.StructInfo:
    """A StructInfo from a word (bare or called) or a StructInfo."""
    if isinstance(x, _Word):
        return x.bare()
    if isinstance(x, si.StructInfo):
        return x
    if isinstance(x, type) and callable(getattr(x, "as_struct_info", None)):
        x = x()  # a proxy class of entry.py (TensorProxy): its word's default struct info
    if callable(getattr(x, "as_struct_info", None)):
        return x.as_struct_info()
    raise TypeError(f"expected a struct info such as R.Tensor(...), got {x!r}")


def const(value, dtype=None) -> relax.Constant:
    if isinstance(value, list | builtins.tuple) and dtype is not None:
        name = builtins.str(dtype)
        value = np.array(value, dtype=np.dtype(name) if name != "bool" else bool)
    return relax.const(value, None if dtype is None else builtins.str(dtype))


def shape(values) -> relax.ShapeExpr:
    return relax.ShapeExpr(values)


def prim_value(value) -> relax.PrimValue:
    return relax.PrimValue(value)


def str(value) -> relax.StringImm:  # noqa: A001 - TVM's name
    return relax.StringImm(value)


def dtype(value) -> relax.DataTypeImm:
    return relax.DataTypeImm(value)


def tuple(*fields) -> relax.Tuple:  # noqa: A001 - TVM's name
    return relax.Tuple(list(fields))


def ExternFunc(name, struct_info=None) -> relax.ExternFunc:  # noqa: N802 - TVM's name
    return relax.ExternFunc(name, struct_info)


def call_packed(func, *args, sinfo_args=None, **kwargs) -> relax.Call:
    """An (impure) call of the packed function named ``func`` (``R.call_packed``)."""
    from ember.relax.op.base import as_operand

    if kwargs:
        raise TypeError(f"R.call_packed: attributes are not supported, got {sorted(kwargs)}")
    callee = relax.ExternFunc(func) if isinstance(func, builtins.str) else func
    if sinfo_args is None:
        sinfo_args = []
    elif not isinstance(sinfo_args, list | builtins.tuple):
        sinfo_args = [sinfo_args]
    return relax.Call(callee, [as_operand(a) for a in args], None, [as_sinfo(s) for s in sinfo_args])


class MatchCastMarker:
    """What ``R.match_cast(value, sinfo)`` evaluates to; the parser makes it a MatchCast binding."""

    def __init__(self, value, struct_info):
        self.value, self.struct_info = value, as_sinfo(struct_info)


def match_cast(value, struct_info) -> MatchCastMarker:
    return MatchCastMarker(value, struct_info)


def _parser_only(name: str):
    def word(*args, **kwargs):
        from ember.script.ir_builder import IRBuilder

        if IRBuilder.is_in_scope():  # building IR with `with IRBuilder():` (TVM's R is both)
            from ember.script.ir_builder import relax as builder

            return getattr(builder, name)(*args, **kwargs)
        raise RuntimeError(f"R.{name} can only be used inside an @R.function")

    word.__name__ = name
    return word


dataflow = _parser_only("dataflow")
output = _parser_only("output")
func_attr = _parser_only("func_attr")
PARSER_WORDS = {"dataflow": dataflow, "output": output, "func_attr": func_attr}


def emit_te(func, *args, **kwargs):
    """``R.emit_te(te_func, x, ..., primfunc_name_hint=name)`` inside an ``@R.function`` of an
    ``@I.ir_module``: the PrimFunc ``te_func`` builds joins the module and the value is its
    ``call_tir`` (the Relax parser handles the call; outside it this word is refused)."""
    raise RuntimeError("R.emit_te can only be used inside an @R.function of an @I.ir_module")
