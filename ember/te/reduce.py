"""Commutative reductions: the ``CommReducer`` combiner, the ``Reduce`` expression, and
the reducer builders ``comm_reducer``, ``sum``, ``max``, ``min``.

A ``CommReducer`` is ``result = combine(lhs, rhs)`` over tuples of Vars with an
identity element per tuple slot; tuple reducers (argmax-style) have several slots and
one ``Reduce`` expression per slot, sharing combiner, source, axes and condition.
A ``Reduce`` may only appear at the top level of a ``te.compute`` body. The two node
classes are TIR's (``ember.tir.comm_reducer``); this module builds them.
"""

from __future__ import annotations

from ember.ir import Var, as_expr, const
from ember.tir import IterVar, IterVarType
from ember.tir import op as tir_op
from ember.tir.comm_reducer import CommReducer, Reduce

from .tensor import Tensor

__all__ = ["CommReducer", "Reduce", "comm_reducer", "sum", "max", "min"]


def _as_axes(axis) -> tuple:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    for pos, iv in enumerate(axes):
        if not isinstance(iv, IterVar) or iv.iter_type != IterVarType.CommReduce:
            raise TypeError(
                f"axis[{pos}] of a reduction must be made by te.reduce_axis, got {iv!r}"
            )
    return axes


def comm_reducer(fcombine, fidentity, name: str = "reduce"):
    """Make a reducer ``f(expr, axis, where=None, init=None)`` from a combine function
    of two arguments and an identity function of the dtype(s)."""
    code = fcombine.__code__
    if code.co_argcount != 2:
        raise TypeError(
            f"comm_reducer {name!r}: fcombine must take 2 arguments (lhs, rhs), "
            f"it takes {code.co_argcount}"
        )
    lname, rname = code.co_varnames[0], code.co_varnames[1]

    def reducer(expr, axis, where=None, init=None, *args):
        if not isinstance(axis, IterVar | list | tuple):
            # te.max(a, b, …): combine the values directly, as TVM allows
            values = [as_expr(v) for v in (expr, axis, where, init, *args) if v is not None]
            values = [values[0]] + [
                as_expr(v.value, values[0].dtype) if type(v).__name__ in ("IntImm", "FloatImm") else v
                for v in values[1:]
            ]
            for v in values[1:]:
                if v.dtype != values[0].dtype:
                    raise TypeError(
                        f"{name}({values[0]!r}, {v!r}, …) combines values of one dtype, got "
                        f"{values[0].dtype} and {v.dtype}; to reduce, pass axis=te.reduce_axis(...)"
                    )
            out = values[0]
            for v in values[1:]:
                out = as_expr(fcombine(out, v))
            return out
        if isinstance(expr, Tensor):
            raise TypeError(
                f"{name}: expected an expression such as A[i, k], got the tensor {expr.name!r}; "
                "use topi reductions to reduce whole tensors"
            )
        is_tuple = isinstance(expr, list | tuple)
        exprs = tuple(as_expr(e) for e in expr) if is_tuple else (as_expr(expr),)
        dtypes = [e.dtype for e in exprs]
        if is_tuple:
            lhs = tuple(Var(f"{lname}_{i}", t) for i, t in enumerate(dtypes))
            rhs = tuple(Var(f"{rname}_{i}", t) for i, t in enumerate(dtypes))
            result = fcombine(lhs, rhs)
            identity = fidentity(*dtypes)
        else:
            lhs, rhs = (Var(lname, dtypes[0]),), (Var(rname, dtypes[0]),)
            result = (fcombine(lhs[0], rhs[0]),)
            identity = (fidentity(dtypes[0]),)
        result = tuple(as_expr(r) for r in result)
        identity = tuple(as_expr(v, t) for v, t in zip(identity, dtypes))
        if len(result) != len(exprs) or len(identity) != len(exprs):
            raise ValueError(
                f"{name}: fcombine and fidentity must give {len(exprs)} value(s) for "
                f"{len(exprs)} input(s), got {len(result)} and {len(identity)}"
            )
        combiner = CommReducer(lhs, rhs, result, identity)
        condition = const(True) if where is None else as_expr(where)
        inits = ()
        if init is not None:
            inits = tuple(init) if isinstance(init, list | tuple) else (init,)
            inits = tuple(as_expr(v, t) for v, t in zip(inits, dtypes))
        axes = _as_axes(axis)
        outs = tuple(
            Reduce(combiner, exprs, axes, condition, i, inits) for i in range(len(exprs))
        )
        return outs if is_tuple else outs[0]

    reducer.__name__ = name
    reducer.__doc__ = f"The {name} reduction of ``expr`` over ``axis``."
    return reducer


sum = comm_reducer(lambda x, y: x + y, lambda t: const(0, t), name="sum")  # noqa: A001
min = comm_reducer(lambda x, y: tir_op.min(x, y), tir_op.max_value, name="min")  # noqa: A001
max = comm_reducer(lambda x, y: tir_op.max(x, y), tir_op.min_value, name="max")  # noqa: A001
