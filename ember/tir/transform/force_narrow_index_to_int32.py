"""ForceNarrowIndexToInt32: compute every index in 32 bits.

Frontends often produce int64 shapes, loop variables and index arithmetic; GPU code is
faster with int32 indices.  With no int64 *data* in the function (an int64 buffer is
refused: its values could not be narrowed), every int64 integer expression is an index,
so all of them become int32: Vars (loop, block, thread and shape Vars, scalar
parameters) are re-declared as int32, constants narrowed (one that does not fit is an
error), casts between the two widths dropped, and ``clz`` of a narrowed operand
corrected for the 32 fewer leading zeros.  Float values are untouched.
"""

from __future__ import annotations

from ember.ir import Call, Cast, DataType, IntImm, Var, replace
from ember.transform import Pass

from ..buffer import Buffer
from ..function import PrimFunc
from ..functor import IRMutator
from ._common import TransformError, call_op_name, make_pass

__all__ = ["force_narrow_index_to_int32", "ForceNarrowIndexToInt32"]

INT32, INT64 = DataType("int32"), DataType("int64")


def _narrow_type(dtype: DataType) -> DataType:
    return INT32.with_lanes(dtype.lanes) if dtype.is_int and dtype.bits == 64 else dtype


class _Narrower(IRMutator):
    def visit_Var(self, var: Var):
        if var.dtype.is_int and var.dtype.bits == 64:
            return Var(var.name, _narrow_type(var.dtype))
        return var

    def visit_IntImm(self, imm: IntImm):
        if not (imm.dtype.is_int and imm.dtype.bits == 64):
            return imm
        if not -(1 << 31) <= imm.value < (1 << 31):
            raise TransformError(f"ForceNarrowIndexToInt32: the index constant {imm.value} does not "
                                 "fit in int32")
        return IntImm(INT32, imm.value)

    def visit_Cast(self, cast: Cast):
        value = self.visit(cast.value)
        dtype = _narrow_type(cast.dtype)
        if value.dtype == dtype:
            return value  # a widening (or now no-op) cast between index widths
        if value is cast.value and dtype is cast.dtype:
            return cast
        return Cast(dtype, value)

    def visit_Call(self, call: Call):
        args = tuple(self.visit(a) for a in call.args)
        dtype = _narrow_type(call.dtype)
        out = call if dtype == call.dtype and all(a is b for a, b in zip(args, call.args)) \
            else replace(call, dtype=dtype, args=args)
        if call_op_name(call) == "tir.clz" and call.args[0].dtype.bits == 64 \
                and args[0].dtype.bits == 32:
            return out - 32 + 64  # a 64-bit value has 32 more leading zeros
        return out

    def visit_Buffer(self, buf: Buffer):
        if buf.dtype.is_int and buf.dtype.bits == 64:
            raise TransformError(
                f"ForceNarrowIndexToInt32: buffer {buf.name!r} holds int64 data, which cannot be "
                "narrowed; the pass only applies to functions whose int64 values are indices")
        return self.generic_visit(buf)


def force_narrow_index_to_int32(func: PrimFunc) -> PrimFunc:
    """``func`` with all its indices in int32 (raises on int64 data)."""
    narrower = _Narrower()
    params = tuple(narrower.visit(p) for p in func.params)
    buffer_map = {narrower.visit(p): narrower.visit(b) for p, b in func.buffer_map.items()}
    body = narrower.visit(func.body)
    if body is func.body and all(a is b for a, b in zip(params, func.params)) \
            and all(buffer_map[narrower.visit(p)] is b for p, b in func.buffer_map.items()):
        return func
    return replace(func, params=params, buffer_map=buffer_map, body=body)


def ForceNarrowIndexToInt32() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`force_narrow_index_to_int32`."""
    return make_pass(force_narrow_index_to_int32, "tir.ForceNarrowIndexToInt32")
