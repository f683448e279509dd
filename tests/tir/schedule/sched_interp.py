"""A tiny reference evaluator of TIR with blocks, used when ``ember.tir.interpreter``
is not available yet.  Slow and simple: Python loops, numpy for vectors."""

from __future__ import annotations

import math

import numpy as np

from ember import ir
from ember.tir import buffer as tb
from ember.tir import stmt as ts

_BIN = {
    ir.Add: lambda a, b: a + b, ir.Sub: lambda a, b: a - b, ir.Mul: lambda a, b: a * b,
    ir.FloorDiv: lambda a, b: a // b, ir.FloorMod: lambda a, b: a % b,
    ir.Min: np.minimum, ir.Max: np.maximum,
    ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b, ir.GT: lambda a, b: a > b,
    ir.GE: lambda a, b: a >= b, ir.EQ: lambda a, b: a == b, ir.NE: lambda a, b: a != b,
    ir.And: np.logical_and, ir.Or: np.logical_or,
}
_CALL = {"tir.exp": np.exp, "tir.sqrt": np.sqrt, "tir.tanh": np.tanh, "tir.fabs": np.abs,
         "tir.log": np.log}


class Interp:
    def __init__(self):
        self.env = {}
        self.bufs = {}

    def arr(self, buf):
        try:
            return self.bufs[buf.data]
        except KeyError:
            raise RuntimeError(f"buffer {buf.name} used outside its allocation") from None

    def e(self, x):
        t = type(x)
        if t in (ir.IntImm, ir.FloatImm):
            return x.value
        if isinstance(x, ir.Var):
            return self.env[x]
        f = _BIN.get(t)
        if f is not None:
            return f(self.e(x.a), self.e(x.b))
        if t is ir.Div:
            a, b = self.e(x.a), self.e(x.b)
            return a / b if x.dtype.is_float else int(a / b)
        if t is ir.Mod:
            a, b = self.e(x.a), self.e(x.b)
            return math.fmod(a, b) if x.dtype.is_float else a - b * int(a / b)
        if t is ir.Not:
            return np.logical_not(self.e(x.a))
        if t is tb.BufferLoad:
            idx = tuple(self.e(i) for i in x.indices)
            return self.arr(x.buffer)[idx]
        if t is ir.Ramp:
            b, s = self.e(x.base), self.e(x.stride)
            return np.arange(x.lanes) * s + b
        if t is ir.Broadcast:
            return np.full(x.lanes, self.e(x.value))
        if t is ir.Select:
            return np.where(self.e(x.condition), self.e(x.true_value), self.e(x.false_value))
        if t is ir.Cast:
            v = self.e(x.value)
            return float(v) if x.dtype.is_float else int(v)
        if t is ir.Call:
            name = x.op.name
            if name == "tir.if_then_else":
                return self.e(x.args[1]) if self.e(x.args[0]) else self.e(x.args[2])
            return _CALL[name](*(self.e(a) for a in x.args))
        raise NotImplementedError(t.__name__)

    def s(self, x):
        t = type(x)
        if t is ts.SeqStmt:
            for y in x.seq:
                self.s(y)
        elif t is ts.For:
            lo, ext = self.e(x.min), self.e(x.extent)
            for v in range(lo, lo + ext):
                self.env[x.loop_var] = v
                self.s(x.body)
        elif t is ts.BlockRealize:
            if not self.e(x.predicate):
                return
            b = x.block
            vals = [self.e(v) for v in x.iter_values]
            for iv, v in zip(b.iter_vars, vals):
                self.env[iv.var] = v
            for buf in b.alloc_buffers:
                self.bufs[buf.data] = np.full([self.e(s) for s in buf.shape], np.nan, buf.dtype.numpy_dtype
                                              if hasattr(buf.dtype, "numpy_dtype") else str(buf.dtype))
            for mb in b.match_buffers:
                src = self.arr(mb.source.buffer)
                sl = tuple(slice(self.e(r.min), self.e(r.min) + self.e(r.extent)) for r in mb.source.region)
                self.bufs[mb.buffer.data] = src[sl].reshape([self.e(s) for s in mb.buffer.shape])
            if b.init is not None and all(
                iv.iter_type != ts.IterVarType.CommReduce or v == self.e(iv.dom.min)
                for iv, v in zip(b.iter_vars, vals)
            ):
                self.s(b.init)
            self.s(b.body)
        elif t is ts.BufferStore:
            idx = tuple(self.e(i) for i in x.indices)
            self.arr(x.buffer)[idx] = self.e(x.value)
        elif t is ts.IfThenElse:
            if self.e(x.condition):
                self.s(x.then_case)
            elif x.else_case is not None:
                self.s(x.else_case)
        elif t is ts.Evaluate:
            pass
        else:
            raise NotImplementedError(t.__name__)


def run(func, *arrays):
    it = Interp()
    for p, a in zip(func.params, arrays):
        buf = func.buffer_map[p]
        it.bufs[buf.data] = a
    it.s(func.body)
