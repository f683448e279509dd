"""The te constructors: ``placeholder``, ``compute``, ``extern``, ``var``, ``size_var``,
``reduce_axis``, ``thread_axis``.

``compute(shape, fcompute)`` names its axes after ``fcompute``'s parameters, calls it
with the axis Vars and checks the body: one expression (or a tuple for several
outputs), reductions only at the top level and all of one reducer.
"""

from __future__ import annotations

import inspect

from ember.error import TVMError
from ember.ir import DataType, IntImm, PointerType, PrimExpr, Range, SizeVar, Var, as_expr, promote
from ember.tir import IterVarType, Stmt, decl_buffer
from ember.tir.stmt import Evaluate

from .reduce import Reduce
from .tensor import ComputeOp, ExternOp, PlaceholderOp, Tensor, TeIterVar, walk_expr

__all__ = [
    "placeholder", "compute", "extern", "var", "size_var", "reduce_axis", "thread_axis", "ReduceAxisVar",
    "ComputeError",
]


class ComputeError(TVMError, ValueError):
    """A ``te.compute`` body that is not a valid compute: misplaced or mismatched reductions."""


class ReduceAxisVar(Var):
    """The Var of a ``reduce_axis``: only valid inside a reduction over that axis."""

    __slots__ = ()


def var(name: str = "tindex", dtype="int32", span=None) -> Var:
    """A new symbolic scalar variable (``dtype`` may be a PointerType: a typed handle)."""
    return Var(name, dtype if isinstance(dtype, PointerType) else DataType(dtype))


def size_var(name: str = "size", dtype="int32", span=None) -> SizeVar:
    """A new symbolic variable known to be non-negative (for shapes)."""
    return SizeVar(name, DataType(dtype))


def _shape(shape, what: str) -> tuple:
    if isinstance(shape, int | PrimExpr):
        shape = (shape,)
    if not isinstance(shape, list | tuple):
        raise TypeError(f"{what}: shape must be a tuple of ints or PrimExprs, got {shape!r}")
    out = []
    for pos, dim in enumerate(shape):
        try:
            expr = as_expr(dim)
        except TypeError:
            raise TypeError(f"{what}: shape[{pos}] must be an int or PrimExpr, got {dim!r}") from None
        if not expr.dtype.is_integer:
            raise TypeError(f"{what}: shape[{pos}] must be an integer, got {expr.dtype} ({expr!r})")
        if isinstance(expr, IntImm) and expr.value < 0:
            raise ValueError(f"{what}: shape[{pos}] must be non-negative, got {expr.value}")
        out.append(expr)
    return tuple(out)


def placeholder(shape, dtype="float32", name: str = "placeholder") -> Tensor:
    """An input tensor of the given shape and dtype."""
    op = PlaceholderOp(name, _shape(shape, f"placeholder {name!r}"), DataType(dtype))
    return op.output(0)


def _axis_names(fcompute, ndim: int, name: str) -> list[str]:
    try:
        spec = inspect.getfullargspec(fcompute)
    except TypeError:
        return [f"i{i}" for i in range(ndim)]
    args = list(spec.args)
    if inspect.ismethod(fcompute) and args:
        args = args[1:]
    if spec.varargs is not None:
        return args + [f"i{i}" for i in range(len(args), ndim)]
    if len(args) != ndim:
        raise ComputeError(
            f"compute {name!r}: fcompute takes {len(args)} argument(s) ({', '.join(args) or 'none'}) "
            f"but the shape has {ndim} dimension(s); give one index argument per dimension"
        )
    return args


def _check_body(body, name: str) -> tuple:
    items = tuple(body) if isinstance(body, list | tuple) else (body,)
    if not items:
        raise ComputeError(f"compute {name!r}: fcompute returned an empty tuple")
    exprs = []
    for pos, item in enumerate(items):
        if isinstance(item, Tensor):
            raise TypeError(
                f"compute {name!r}: fcompute returned the tensor {item.name!r}; "
                f"return an element such as {item.name}[i, ...]"
            )
        try:
            exprs.append(as_expr(item))
        except TypeError:
            raise TypeError(
                f"compute {name!r}: fcompute must return PrimExprs, output {pos} is {item!r}"
            ) from None
    reduces = [e for e in exprs if isinstance(e, Reduce)]
    if reduces and len(reduces) != len(exprs):
        raise ComputeError(
            f"compute {name!r}: either every output or none must be a reduction "
            f"(got {len(reduces)} reduction(s) among {len(exprs)} outputs)"
        )
    for e in reduces[1:]:
        first = reduces[0]
        if e.combiner is not first.combiner or e.axis != first.axis or e.condition is not first.condition:
            raise ComputeError(
                f"compute {name!r}: the outputs of a multi-output reduction must come from one "
                "call of one reducer (same combiner, axes and condition)"
            )
    for e in exprs:
        roots = (e.source + (e.condition,) + tuple(e.init)) if isinstance(e, Reduce) else (e,)
        allowed = {iv.var for iv in e.axis} if isinstance(e, Reduce) else set()
        for root in roots:
            walk_expr(root, lambda x, allowed=allowed: _check_node(x, name, allowed))
    return tuple(exprs)


def _check_node(x, name: str, allowed: set) -> None:
    _reject_nested_reduce(x, name)
    if isinstance(x, ReduceAxisVar) and x not in allowed:
        raise ComputeError(
            f"compute {name!r}: the reduce axis {x.name!r} is used outside a reduction over it; "
            f"wrap the expression in te.sum(..., axis={x.name}) (or another reducer)"
        )


def _reject_nested_reduce(x, name: str) -> None:
    if isinstance(x, Reduce):
        raise ComputeError(
            f"compute {name!r}: reductions are only allowed at the top level of a compute body; "
            "compute the reduction in its own te.compute and use its result"
        )


def compute(shape, fcompute, name: str = "compute", tag: str = "", attrs=None, varargs_names=None):
    """A tensor (or list of tensors) whose element at ``indices`` is ``fcompute(*indices)``."""
    shape = _shape(shape, f"compute {name!r}")
    if not callable(fcompute):
        raise TypeError(f"compute {name!r}: fcompute must be callable, got {fcompute!r}")
    names = list(varargs_names) if varargs_names else _axis_names(fcompute, len(shape), name)
    axis = tuple(
        TeIterVar(Range(IntImm(dim.dtype, 0), dim), Var(n, dim.dtype), IterVarType.DataPar)
        for n, dim in zip(names, shape)
    )
    body = fcompute(*[iv.var for iv in axis])
    exprs = _check_body(body, name)
    reduce_axis = exprs[0].axis if isinstance(exprs[0], Reduce) else ()
    from .tag import current_tag

    op = ComputeOp(name, tag or current_tag(), dict(attrs or {}), axis, tuple(reduce_axis), exprs)
    outputs = [op.output(i) for i in range(op.num_outputs)]
    return outputs if isinstance(body, list | tuple) else outputs[0]


def reduce_axis(dom, name: str = "rv", thread_tag: str = "", span=None) -> TeIterVar:
    """A reduction axis over ``dom``: ``(begin, end)``, a ``Range`` or an extent."""
    if isinstance(dom, Range):
        rng = dom
    elif isinstance(dom, list | tuple):
        if len(dom) != 2:
            raise ValueError(f"reduce_axis {name!r}: dom must be (begin, end), got {dom!r}")
        begin, end = as_expr(dom[0]), as_expr(dom[1])
        begin, end = promote(begin, end)
        zero = isinstance(begin, IntImm) and begin.value == 0
        rng = Range(begin, end if zero else end - begin)  # (0, n) has extent n, as TVM builds it
    else:
        extent = as_expr(dom)
        rng = Range(IntImm(extent.dtype, 0), extent)
    return TeIterVar(rng, ReduceAxisVar(name, rng.extent.dtype), IterVarType.CommReduce, thread_tag)


def thread_axis(dom=None, tag: str = "", name: str = "", span=None) -> TeIterVar:
    """A thread axis (``threadIdx.x`` …); ``dom`` may be the tag string."""
    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("thread_axis: a tag such as 'threadIdx.x' is required")
    if isinstance(dom, list | tuple):
        dom = Range(dom[0], as_expr(dom[1]) - dom[0])
    elif dom is not None and not isinstance(dom, Range):
        dom = Range(0, dom)
    return TeIterVar(dom, Var(name or tag, "int32"), IterVarType.ThreadIndex, tag)


def extern(shape, inputs, fcompute, name: str = "extern", dtype=None, in_buffers=None,
           out_buffers=None, tag: str = "", attrs=None):
    """Tensors computed by an opaque statement: ``fcompute(in_buffers, out_buffers)``
    returns a Stmt or an expression (evaluated for its effect, e.g. a packed call)."""
    single = bool(shape) and not isinstance(shape[0], list | tuple)
    shapes = [shape] if single else list(shape)
    inputs = list(inputs)
    dtypes = dtype if isinstance(dtype, list | tuple) else [dtype] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"extern {name!r}: {len(shapes)} output shapes but {len(dtypes)} dtypes")
    dtypes = [d if d is not None else (inputs[0].dtype if inputs else "float32") for d in dtypes]
    # as TVM: the default buffers may start anywhere in memory (a symbolic elem_offset, bound
    # from each argument's byte_offset), since the opaque body addresses them as a whole
    ins = list(in_buffers) if in_buffers else [
        decl_buffer(t.shape, t.dtype, name=t.name, elem_offset=Var("elem_offset", "int32")) for t in inputs
    ]
    outs = list(out_buffers) if out_buffers else [
        decl_buffer(_shape(s, f"extern {name!r}"), d, name=f"{name}_out{i}" if len(shapes) > 1 else name,
                    elem_offset=Var("elem_offset", "int32"))
        for i, (s, d) in enumerate(zip(shapes, dtypes))
    ]
    if len(ins) != len(inputs):
        raise ValueError(f"extern {name!r}: {len(inputs)} inputs but {len(ins)} in_buffers")
    body = fcompute(ins, outs)
    if not isinstance(body, Stmt):
        body = Evaluate(as_expr(body))
    op = ExternOp(name, tag, dict(attrs or {}), tuple(inputs), tuple(ins), tuple(outs), body)
    res = [op.output(i) for i in range(op.num_outputs)]
    return res[0] if len(res) == 1 else res
