"""A reference interpreter of Relax functions over numpy values.

``run(mod_or_func, *args, func_name="main")`` evaluates bindings in order: operator
calls through ``reference.ops``, ``call_tir`` through the TIR reference interpreter,
calls of other module functions recursively, packed functions through the runtime
registry.  Symbolic dims are bound from argument shapes (and match_cast), so shape
expressions evaluate to ints.  It is the numeric oracle for Relax tests.
"""

from __future__ import annotations

import numpy as np

from ember.ir import GlobalVar, IRModule, Op, PrimExpr
from ember.ir import Var as TirVar

from ..expr import (
    Call, Constant, DataTypeImm, ExternFunc, Function, If, MatchCast, PrimValue, SeqExpr,
    ShapeExpr, StringImm, Tuple, TupleGetItem, Var,
)
from ..struct_info import ShapeStructInfo, TensorStructInfo, TupleStructInfo, shape_values
from .ops import evaluate_op

__all__ = ["run", "RelaxInterpreterError"]


class RelaxInterpreterError(RuntimeError):
    pass


def _eval_prim(e: PrimExpr, sym: dict):
    from ember.tir.functor import substitute

    if isinstance(e, TirVar):
        if id(e) not in sym:
            raise RelaxInterpreterError(f"symbolic variable {e.name} is not bound")
        return sym[id(e)]
    out = substitute(e, lambda v: _const(sym[id(v)], v.dtype) if id(v) in sym else None)
    from .._arith import as_int

    value = as_int(out)
    if value is None:
        value = getattr(out, "value", None)
    if value is None:
        raise RelaxInterpreterError(f"cannot evaluate the shape expression {e!r}")
    return value


def _const(value, dtype):
    from ember.ir import const

    return const(value, dtype)


class _Closure:
    def __init__(self, func: Function, env: dict, sym: dict):
        self.func, self.env, self.sym = func, env, sym


class _Interp:
    def __init__(self, mod: IRModule | None):
        self.mod = mod

    def bind_sinfo(self, sinfo, value, sym: dict, what: str) -> None:
        """Bind symbolic dims of ``sinfo`` from ``value``; check static dims."""
        if isinstance(sinfo, TensorStructInfo):
            arr = np.asarray(value)
            if sinfo.ndim != -1 and arr.ndim != sinfo.ndim:
                raise RelaxInterpreterError(f"{what}: expected {sinfo.ndim} dims, got shape {arr.shape}")
            dims = shape_values(sinfo)
            for i, d in enumerate(dims or ()):
                if isinstance(d, TirVar):
                    if id(d) in sym and sym[id(d)] != arr.shape[i]:
                        raise RelaxInterpreterError(f"{what}: dim {i} is {arr.shape[i]}, but {d.name} = {sym[id(d)]}")
                    sym[id(d)] = arr.shape[i]
                elif hasattr(d, "value") and d.value != arr.shape[i]:
                    raise RelaxInterpreterError(f"{what}: dim {i} is {arr.shape[i]}, expected {d.value}")
        elif isinstance(sinfo, ShapeStructInfo) and sinfo.values is not None:
            for d, v in zip(sinfo.values, value):
                if isinstance(d, TirVar):
                    sym[id(d)] = int(v)
        elif isinstance(sinfo, TupleStructInfo):
            for i, (f, v) in enumerate(zip(sinfo.fields, value)):
                self.bind_sinfo(f, v, sym, f"{what}[{i}]")

    def call_function(self, func: Function, args: list, env: dict | None = None, sym: dict | None = None):
        if len(args) != len(func.params):
            raise RelaxInterpreterError(f"function expects {len(func.params)} arguments, got {len(args)}")
        env = dict(env or {})
        sym = dict(sym or {})
        for p, a in zip(func.params, args):
            self.bind_sinfo(p.struct_info, a, sym, f"argument {p.name_hint!r}")
            env[id(p)] = a
        return self.eval(func.body, env, sym)

    def eval(self, e, env: dict, sym: dict):
        if isinstance(e, Var):
            return env[id(e)]
        if isinstance(e, Constant):
            return e.numpy()
        if isinstance(e, Tuple):
            return tuple(self.eval(f, env, sym) for f in e.fields)
        if isinstance(e, TupleGetItem):
            return self.eval(e.tuple_value, env, sym)[e.index]
        if isinstance(e, ShapeExpr):
            return tuple(int(_eval_prim(v, sym)) for v in e.values)
        if isinstance(e, PrimValue):  # a numpy scalar of the value's dtype
            return np.dtype(str(e.value.dtype)).type(_eval_prim(e.value, sym))
        if isinstance(e, StringImm | DataTypeImm):
            return e.value
        if isinstance(e, SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    value = self.eval(b.value, env, sym)
                    if isinstance(b, MatchCast):
                        self.bind_sinfo(b.struct_info, value, sym, f"match_cast of {b.var.name_hint!r}")
                    env[id(b.var)] = value
            return self.eval(e.body, env, sym)
        if isinstance(e, If):
            cond = bool(np.asarray(self.eval(e.cond, env, sym)))
            return self.eval(e.true_branch if cond else e.false_branch, env, sym)
        if isinstance(e, Call):
            return self.call(e, env, sym)
        if isinstance(e, Function):  # a local function closes over the current bindings
            return _Closure(e, env, sym)
        raise RelaxInterpreterError(f"cannot evaluate {type(e).__name__}")

    def call(self, call: Call, env: dict, sym: dict):
        op = call.op
        if isinstance(op, Op):
            name = op.name
            if name in ("relax.call_tir", "relax.call_tir_inplace"):
                return self.call_tir(call, env, sym)
            if name in ("relax.call_dps_packed", "relax.call_pure_packed"):
                return self.call_packed(call, env, sym)
            args = [self.eval(a, env, sym) for a in call.args]
            return evaluate_op(name, args, call.attrs)
        args = [self.eval(a, env, sym) for a in call.args]
        if isinstance(op, GlobalVar):
            func = self.mod[op.name_hint] if self.mod is not None else None
            if not isinstance(func, Function):
                raise RelaxInterpreterError(f"cannot call {op.name_hint}: not a Relax function of the module")
            return self.call_function(func, args)
        callee = self.eval(op, env, sym)
        if isinstance(callee, _Closure):
            return self.call_function(callee.func, args, callee.env, callee.sym)
        raise RelaxInterpreterError(f"cannot call a {type(callee).__name__}")

    def _alloc(self, sinfo, sym: dict):
        if isinstance(sinfo, TupleStructInfo):
            return [self._alloc(f, sym) for f in sinfo.fields]
        dims = tuple(int(_eval_prim(d, sym)) for d in shape_values(sinfo))
        return np.zeros(dims, dtype=sinfo.dtype.numpy())

    def call_tir(self, call: Call, env: dict, sym: dict):
        from ember.tir import interpreter

        func = self.mod[call.args[0].name_hint]
        ins = [np.ascontiguousarray(a) for a in self.eval(call.args[1], env, sym)]
        out_sinfo = call.sinfo_args[0]
        outs = self._alloc(out_sinfo, sym)
        out_list = outs if isinstance(outs, list) else [outs]
        extra = list(self.eval(call.args[2], env, sym)) if len(call.args) > 2 else []
        interpreter.run(func, *ins, *out_list, *extra)
        return tuple(out_list) if isinstance(outs, list) else outs

    def call_packed(self, call: Call, env: dict, sym: dict):
        from ember.runtime import get_global_func

        callee = call.args[0]
        name = callee.global_symbol if isinstance(callee, ExternFunc) else str(callee)
        fn = get_global_func(name)
        if call.op.name == "relax.call_pure_packed":
            return fn(*[self.eval(a, env, sym) for a in call.args[1:]])
        ins = list(self.eval(call.args[1], env, sym))
        outs = self._alloc(call.sinfo_args[0], sym)
        out_list = outs if isinstance(outs, list) else [outs]
        fn(*ins, *out_list)
        return tuple(out_list) if isinstance(outs, list) else outs


def run(mod_or_func, *args, func_name: str = "main"):
    """Evaluate a Relax function on numpy arrays (or ints for shapes)."""
    if isinstance(mod_or_func, IRModule):
        mod, func = mod_or_func, mod_or_func[func_name]
    else:
        mod, func = None, mod_or_func
    args = [a.numpy() if hasattr(a, "numpy") and not isinstance(a, np.ndarray) else a for a in args]
    return _Interp(mod).call_function(func, list(args))
