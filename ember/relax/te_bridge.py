"""From TE to Relax: ``call_te`` turns a TE compute function over Relax tensors into a
PrimFunc added to the module plus a ``call_tir`` of it.

Tensor arguments become ``te.placeholder``s shaped by their TensorStructInfo (symbolic
dims stay the same ``tir.Var``s); scalar PrimValues become their PrimExprs.  Symbolic
vars that appear in the outputs but in no input shape are passed as ``tir_vars``.
"""

from __future__ import annotations

from ember.ir import Var as TirVar
from ember.tir.functor import post_order_visit

from .expr import Expr, PrimValue, ShapeExpr, Tuple, TupleGetItem, Var
from .struct_info import PrimStructInfo, TensorStructInfo, TupleStructInfo, shape_values

__all__ = ["call_te"]


def _te():
    try:
        from ember import te
    except ImportError as err:  # pragma: no cover - depends on the te package landing
        raise RuntimeError("emit_te/call_te need ember.te, which is not available") from err
    return te


def _tir_vars_in(exprs) -> list:
    found: dict[int, TirVar] = {}
    for e in exprs:
        post_order_visit(e, lambda n: found.setdefault(id(n), n) if isinstance(n, TirVar) else None)
    return list(found.values())


def _own_vars(prim, shared: list):
    """Give the PrimFunc its own copies of the symbolic vars it shares with the graph,
    so that each function binds its variables (as a printed and re-parsed module does)."""
    if not shared:
        return prim
    from ember.tir.functor import substitute

    fresh = {id(v): TirVar(v.name, v.dtype) for v in shared}
    return substitute(prim, lambda v: fresh.get(id(v)))


def _function_name(func) -> str | None:
    """The PrimFunc's default name, as TVM's: the TE function's own name (a lambda, which
    has none usable, gives way to the name of its output tensor)."""
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else None


def call_te(bb, func, *args, **kwargs):
    """See module docstring; ``primfunc_name_hint`` and ``primfunc_attrs`` are honoured."""
    te = _te()
    name_hint = kwargs.pop("primfunc_name_hint", None)
    extra_attrs = kwargs.pop("primfunc_attrs", None)
    inputs: list[Expr] = []
    placeholders: list = []
    counter = [0]

    seen: dict[int, object] = {}  # the same Relax value becomes one placeholder
    scalar_ids: set[int] = set()  # TIR vars standing for R.Prim arguments

    def convert(x):
        if isinstance(x, Expr):
            x = bb.normalize(x) if not isinstance(x, Var) else x
            sinfo = x.struct_info
            if isinstance(sinfo, TensorStructInfo):
                if id(x) in seen:
                    return seen[id(x)]
                values = shape_values(sinfo)
                if values is None:
                    raise ValueError("emit_te: tensor arguments need a known shape (at least symbolic)")
                name = x.name_hint if isinstance(x, Var) else f"rxplaceholder{counter[0]}"
                counter[0] += 1
                ph = te.placeholder(tuple(values), str(sinfo.dtype), name=name)
                inputs.append(x)
                placeholders.append(ph)
                seen[id(x)] = ph
                return ph
            if isinstance(x, PrimValue):
                return x.value
            if isinstance(sinfo, PrimStructInfo):  # a scalar known only at run time
                if sinfo.value is not None:
                    return sinfo.value
                if id(x) in seen:
                    return seen[id(x)]
                scalar = TirVar(x.name_hint if isinstance(x, Var) else f"rxplaceholder{counter[0]}", str(sinfo.dtype))
                counter[0] += 1
                inputs.append(x)
                placeholders.append(scalar)  # a scalar parameter, in argument order (as TVM)
                scalar_ids.add(id(scalar))
                seen[id(x)] = scalar
                return scalar
            if isinstance(x, ShapeExpr):
                return list(x.values)
            if isinstance(x, Tuple) and isinstance(sinfo, TupleStructInfo):
                return [convert(f) for f in x.fields]
            if isinstance(sinfo, TupleStructInfo):  # a tuple-valued variable: one tensor per field
                return [convert(bb.emit(TupleGetItem(x, i))) for i in range(len(sinfo.fields))]
            raise TypeError(f"emit_te: unsupported argument {type(x).__name__}")
        if isinstance(x, list | tuple):
            return type(x)(convert(e) for e in x)
        if isinstance(x, dict):
            return {k: convert(v) for k, v in x.items()}
        return x

    te_args = [convert(a) for a in args]
    te_kwargs = {k: convert(v) for k, v in kwargs.items()}
    outs = func(*te_args, **te_kwargs)
    out_list = list(outs) if isinstance(outs, list | tuple) else [outs]
    # a var is bound by a buffer (input or output, through its match_buffer) only where it
    # is a whole dim of one (not inside n * 2); the others are passed as tir_vars
    buffers = [p for p in placeholders if id(p) not in scalar_ids] + out_list
    dims = [d for b in out_list + buffers for d in b.shape]
    in_vars = [v for v in _tir_vars_in(dims) if any(d is v for b in buffers for d in b.shape)]
    in_ids = {id(v) for v in in_vars}
    out_vars = [v for v in _tir_vars_in(dims) if id(v) not in in_ids]
    prim = te.create_prim_func(placeholders + out_list + out_vars)
    # vars used only inside the compute bodies became scalar params too: pass them as well
    known = {id(v) for v in out_vars} | scalar_ids
    body_vars = [p for p in prim.params if p not in prim.buffer_map and isinstance(p, TirVar)
                 and id(p) not in known and p.dtype != "handle"]
    out_vars = out_vars + body_vars
    prim = _own_vars(prim, in_vars + out_vars)
    if "global_symbol" in getattr(prim, "attrs", {}):
        prim = prim.without_attr("global_symbol")
    if extra_attrs:
        prim = prim.with_attr(dict(extra_attrs))
    name = name_hint or _function_name(func) or out_list[0].op.name
    gv = bb.add_func(prim, name)
    out_sinfo = [TensorStructInfo(list(o.shape), str(o.dtype)) for o in out_list]
    from .op.call import call_tir

    return call_tir(gv, inputs, out_sinfo if len(out_sinfo) > 1 else out_sinfo[0],
                    tir_vars=out_vars if out_vars else None)


