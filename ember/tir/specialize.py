"""``PrimFunc.specialize(param_map)``: bind parameters to values.

``param_map`` maps a scalar parameter to a value (a number or an expression), or a
buffer's handle parameter to a Buffer whose shape, strides and offset bind the symbolic
variables of the parameter's buffer (and whose data pointer, if different, replaces
it).  A buffer's data Var bound to an expression that is not a Var (``T.address_of(A[16])``)
stays a Var: as in TVM, a ``LetStmt`` binds it around the buffer's declaration (or the
body).  Every other bound variable is substituted through the function (buffers included),
expressions that changed are simplified (``(n + 1) * 42`` with ``n = 16`` is 714), and
scalar parameters that became bound leave the signature.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Var, as_expr, replace
from ember.tir.buffer import Buffer
from ember.tir.functor import IRMutator
from ember.tir.stmt import LetStmt

__all__ = ["specialize"]


class _Specializer(IRMutator):
    def __init__(self, vmap: dict):
        super().__init__()
        self.vmap = vmap
        from ember.arith import Analyzer

        self.analyzer = Analyzer()
        self.lets: dict = {}  # data Var -> the expression it is bound to by a LetStmt

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    def visit_DeclBuffer(self, s):
        out = self.generic_visit(s)
        value = self.lets.pop(s.buffer.data, None)
        return out if value is None else LetStmt(s.buffer.data, self.visit(value), out)

    def visit(self, x):
        out = super().visit(x)
        if out is not x and isinstance(out, PrimExpr) and not isinstance(out, Var | IntImm):
            try:
                simplified = self.analyzer.simplify(out)
            except Exception:  # noqa: BLE001 - an unsimplified expression is still right
                return out
            if simplified.dtype == out.dtype:
                return simplified
        return out


def _bind(vmap: dict, old, new, what: str) -> None:
    if old is None or new is None:
        return
    if isinstance(old, Var):
        if old in vmap and vmap[old] is not new:
            return  # the first binding wins (TVM checks they agree at run time)
        vmap[old] = as_expr(new)


def specialize(func, param_map: dict):
    """``func`` with ``param_map``'s parameters bound (see the module docstring)."""
    if not param_map:
        return func
    vmap: dict = {}
    for param, value in param_map.items():
        if not any(param is p for p in func.params):
            raise ValueError(f"specialize: {param!r} is not a parameter of the function")
        if isinstance(value, Buffer):
            old = func.buffer_map.get(param)
            if old is None:
                _bind(vmap, param, value.data, "data")
                continue
            if len(old.shape) != len(value.shape):
                raise ValueError(f"specialize: buffer {old.name!r} has {len(old.shape)} dimensions but the "
                                 f"given buffer has {len(value.shape)}")
            for o, n in zip(old.shape, value.shape):
                _bind(vmap, o, n, "shape")
            for o, n in zip(old.strides or (), value.strides or ()):
                _bind(vmap, o, n, "stride")
            _bind(vmap, old.elem_offset, value.elem_offset if value.elem_offset is not None else 0, "offset")
            if value.data is not old.data:
                vmap[old.data] = value.data
        else:
            vmap[param] = as_expr(value)
    lets = {v: e for v, e in vmap.items() if v.dtype.is_handle and not isinstance(e, Var)}
    mut = _Specializer({v: e for v, e in vmap.items() if v not in lets})
    mut.lets = dict(lets)
    params = tuple(p for p in func.params if p not in vmap)
    buffer_map = {p: mut.visit(b) for p, b in func.buffer_map.items() if p in params}
    body = mut.visit(func.body)
    for var, value in reversed(list(mut.lets.items())):  # not declared by a DeclBuffer: bind at the top
        body = LetStmt(var, mut.visit(value), body)
    return replace(func, params=params, body=body, buffer_map=buffer_map)
