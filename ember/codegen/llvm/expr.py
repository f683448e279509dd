"""Expression emission: TIR PrimExprs → LLVM values, with TIR's exact semantics.

A mixin of ``CodeGenLLVM`` (``codegen.py``), which provides ``self.builder``,
``self.vars`` (Var → LLVM value) and ``self.module``.  Integer Div/Mod truncate,
FloorDiv/FloorMod round toward −∞; no integer division traps (``x / 0`` is 0 and
``MIN / -1`` wraps, as in numpy), comparisons of unsigned types are unsigned, float
``!=`` is unordered (NaN != NaN).  bfloat16 is computed in float32 and rounded back.
Buffer accesses: a Ramp index of stride 1 is one vector load/store, other vector
indices are lane-by-lane gathers/scatters.  Stores inside a loop annotated
``NONTEMPORAL_STORE`` are non-temporal (for large outputs not read again soon).
"""

from __future__ import annotations

import logging

from llvmlite import ir

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, DataType, Div, FloatImm, FloorDiv,
    FloorMod, IntImm, Let, Max, Min, Mod, Mul, Not, Or, PrimExpr, Ramp, Select, StringImm, Sub,
    Var,
)
from ember.tir import BufferLoad

from .types import F32, I8, I16, I32, I64, PTR, constant, llvm_type, memory_type

__all__ = ["ExprEmitter", "CodegenError", "NONTEMPORAL_STORE", "is_zero"]


def is_zero(x) -> bool:
    """``x`` is the integer constant 0 (a loop starting at 0, a buffer without offset)."""
    return isinstance(x, IntImm) and x.value == 0


# For-loop annotation: stores in the loop body bypass the caches (streaming writes)
NONTEMPORAL_STORE = "ember.nontemporal_store"

log = logging.getLogger(__name__)
F32_DT = DataType("float32")


class CodegenError(ValueError):
    """The code generator met IR it cannot handle (usually: a pass did not run)."""


_INT_ARITH = {Add: "add", Sub: "sub", Mul: "mul"}
_FLOAT_ARITH = {Add: "fadd", Sub: "fsub", Mul: "fmul", Div: "fdiv", Mod: "frem"}
_CMP = {EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">="}


def _is_bf16(dtype: DataType) -> bool:
    return dtype.code == 4


def _positive_constant(divisor) -> bool:
    """Whether an integer divisor is a constant above 0 (a scalar or a broadcast one)."""
    value = divisor.value if isinstance(divisor, Broadcast) else divisor
    return isinstance(value, IntImm) and value.value > 0


class ExprEmitter:
    """Turns PrimExprs into LLVM values at ``self.builder``'s position."""

    # -- dispatch ----------------------------------------------------------------------------
    def emit(self, e: PrimExpr) -> ir.Value:
        method = _DISPATCH.get(type(e))
        if method is None:
            for klass in type(e).__mro__:
                method = _DISPATCH.get(klass)
                if method is not None:
                    break
            else:
                raise CodegenError(
                    f"the LLVM code generator cannot emit expression {type(e).__name__}: {e!r}"
                )
        return method(self, e)

    # -- leaves ------------------------------------------------------------------------------
    def _imm(self, e) -> ir.Value:
        return constant(e.dtype, e.value)

    def _string(self, e: StringImm) -> ir.Value:
        return self.string_constant(e.value)

    def _var(self, e: Var) -> ir.Value:
        try:
            return self.vars[e]
        except KeyError:
            raise CodegenError(
                f"variable {e.name!r} ({e.dtype}) is used but never bound; lowered TIR must bind "
                "every variable (a parameter, loop variable, LetStmt or buffer shape)"
            ) from None

    def _let(self, e: Let) -> ir.Value:
        self.vars[e.var] = self.emit(e.value)
        try:
            return self.emit(e.body)
        finally:
            del self.vars[e.var]

    # -- arithmetic --------------------------------------------------------------------------
    def _operands(self, e) -> tuple[ir.Value, ir.Value]:
        a, b = self.emit(e.a), self.emit(e.b)
        la, lb = e.a.dtype.lanes, e.b.dtype.lanes
        if la != lb:
            a = self.splat(a, lb) if la == 1 else a
            b = self.splat(b, la) if lb == 1 else b
        return a, b

    def _bf16_binary(self, e, emit_f32) -> ir.Value:
        lanes = e.dtype.lanes
        a = self.bf16_to_f32(self.emit(e.a), e.a.dtype.lanes)
        b = self.bf16_to_f32(self.emit(e.b), e.b.dtype.lanes)
        if e.a.dtype.lanes != e.b.dtype.lanes:
            a = a if e.a.dtype.lanes > 1 else self.splat(a, lanes)
            b = b if e.b.dtype.lanes > 1 else self.splat(b, lanes)
        return emit_f32(a, b)

    def _arith(self, e) -> ir.Value:
        dtype = e.dtype
        b = self.builder
        if _is_bf16(dtype):
            fop = _FLOAT_ARITH[type(e)]
            return self.f32_to_bf16(self._bf16_binary(e, lambda x, y: getattr(b, fop)(x, y)), dtype.lanes)
        x, y = self._operands(e)
        if dtype.is_float:
            return getattr(b, _FLOAT_ARITH[type(e)])(x, y, flags=self.float_flags)
        if isinstance(e, Div | Mod):
            x, y = self._safe_division_operands(e, x, y)
            if dtype.is_uint or dtype.is_bool:
                return (b.udiv if isinstance(e, Div) else b.urem)(x, y)
            return (b.sdiv if isinstance(e, Div) else b.srem)(x, y)
        # signed 32/64-bit arithmetic (indices) cannot overflow in TIR, as in TVM: lets LLVM
        # widen induction variables and hoist address arithmetic; narrower ints wrap
        flags = ("nsw",) if dtype.is_int and dtype.bits >= 32 else ()
        return getattr(b, _INT_ARITH[type(e)])(x, y, flags=flags)

    def _safe_division_operands(self, e, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
        """Operands for an integer division that cannot trap: the hardware divide faults
        (SIGFPE, the end of the process) on a zero divisor and on the signed ``MIN / -1``.
        A divisor that is a constant other than 0 and -1 needs nothing; otherwise a zero
        divisor divides 0 by 1 (the result is 0, as numpy gives), and ``MIN / -1`` divides
        by 1 (``MIN``, the wrapped quotient, remainder 0, as numpy gives)."""
        divisor = e.b.value if isinstance(e.b, Broadcast) else e.b
        signed = e.dtype.is_int
        if isinstance(divisor, IntImm) and divisor.value != 0 and not (signed and divisor.value == -1):
            return x, y
        b = self.builder
        dtype = e.dtype
        zero, one = constant(dtype, 0), constant(dtype, 1)  # splats for vectors
        is_zero = b.icmp_unsigned("==", y, zero, name="divisor_is_zero")
        bad = is_zero
        if signed:
            minus_one, smallest = constant(dtype, -1), constant(dtype, -(1 << (dtype.bits - 1)))
            bad = b.or_(bad, b.and_(b.icmp_signed("==", y, minus_one), b.icmp_signed("==", x, smallest)))
        return b.select(is_zero, zero, x), b.select(bad, one, y)

    def _floordiv(self, e) -> ir.Value:
        b = self.builder
        dtype = e.dtype
        if dtype.is_float:
            q = self._arith(Div(e.a, e.b))
            return self.call_intrinsic("llvm.floor", q, dtype) if not _is_bf16(dtype) else self._bf16_floor(q, dtype)
        x, y = self._safe_division_operands(e, *self._operands(e))
        if dtype.is_uint or dtype.is_bool:
            return b.udiv(x, y)
        q, r = b.sdiv(x, y), b.srem(x, y)
        zero = constant(dtype, 0)
        if _positive_constant(e.b):  # the usual index case: a remainder below 0 means one less
            return b.sub(q, b.zext(b.icmp_signed("<", r, zero), x.type))
        adjust = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", y, zero)))
        return b.sub(q, b.zext(adjust, x.type))

    def _floormod(self, e) -> ir.Value:
        b = self.builder
        dtype = e.dtype
        if dtype.is_float:
            return self._arith(Sub(e.a, Mul(FloorDiv(e.a, e.b), e.b)))
        x, y = self._safe_division_operands(e, *self._operands(e))
        if dtype.is_uint or dtype.is_bool:
            return b.urem(x, y)
        r = b.srem(x, y)
        zero = constant(dtype, 0)
        if _positive_constant(e.b):  # the usual index case: a remainder below 0 moves up by y
            return b.select(b.icmp_signed("<", r, zero), b.add(r, y), r)
        adjust = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", y, zero)))
        return b.select(adjust, b.add(r, y), r)

    def _bf16_floor(self, q, dtype) -> ir.Value:
        f = self.bf16_to_f32(q, dtype.lanes)
        return self.f32_to_bf16(self.call_intrinsic("llvm.floor", f, F32_DT.with_lanes(dtype.lanes)), dtype.lanes)

    def _minmax(self, e) -> ir.Value:
        op = "<" if isinstance(e, Min) else ">"
        dtype = e.a.dtype
        if _is_bf16(dtype):
            a, b = self.emit(e.a), self.emit(e.b)
            cond = self._bf16_binary(e, lambda x, y: self.builder.fcmp_ordered(op, x, y))
            return self.builder.select(cond, a, b)
        a, b = self._operands(e)
        return self.builder.select(self.compare(op, a, b, dtype), a, b)

    def compare(self, op: str, a: ir.Value, b: ir.Value, dtype: DataType) -> ir.Value:
        builder = self.builder
        if dtype.is_float:
            return builder.fcmp_unordered(op, a, b) if op == "!=" else builder.fcmp_ordered(op, a, b)
        if dtype.is_int:
            return builder.icmp_signed(op, a, b)
        return builder.icmp_unsigned(op, a, b)  # uint, bool, handle

    def _cmp(self, e) -> ir.Value:
        op = _CMP[type(e)]
        dtype = e.a.dtype
        if _is_bf16(dtype):
            return self._bf16_binary(e, lambda x, y: self.compare(op, x, y, F32_DT))
        a, b = self._operands(e)
        if dtype.is_handle:
            a, b = self.builder.ptrtoint(a, I64), self.builder.ptrtoint(b, I64)
        return self.compare(op, a, b, dtype)

    def _logic(self, e) -> ir.Value:
        a, b = self._operands(e)
        return self.builder.and_(a, b) if isinstance(e, And) else self.builder.or_(a, b)

    def _not(self, e: Not) -> ir.Value:
        return self.builder.not_(self.emit(e.a))

    def _select(self, e: Select) -> ir.Value:
        cond = self.emit(e.condition)
        t, f = self.emit(e.true_value), self.emit(e.false_value)
        lanes = e.dtype.lanes
        if lanes > 1:
            t = t if e.true_value.dtype.lanes > 1 else self.splat(t, lanes)
            f = f if e.false_value.dtype.lanes > 1 else self.splat(f, lanes)
        return self.builder.select(cond, t, f)

    # -- vectors -----------------------------------------------------------------------------
    def splat(self, value: ir.Value, lanes: int) -> ir.Value:
        vec_ty = ir.VectorType(value.type, lanes)
        if isinstance(value, ir.Constant):
            return ir.Constant(vec_ty, [value] * lanes)
        b = self.builder
        one = b.insert_element(ir.Constant(vec_ty, ir.Undefined), value, ir.Constant(I32, 0))
        return b.shuffle_vector(one, ir.Constant(vec_ty, ir.Undefined), ir.Constant(ir.VectorType(I32, lanes), [0] * lanes))

    def _broadcast(self, e: Broadcast) -> ir.Value:
        return self.splat(self.emit(e.value), e.lanes)

    def _ramp(self, e: Ramp) -> ir.Value:
        dtype = e.base.dtype
        if dtype.is_int and isinstance(e.base, IntImm) and isinstance(e.stride, IntImm):
            values = [e.base.value + i * e.stride.value for i in range(e.lanes)]
            if all(-(1 << (dtype.bits - 1)) <= v < (1 << (dtype.bits - 1)) for v in values):  # a constant vector
                return ir.Constant(ir.VectorType(constant(dtype, 0).type, e.lanes), [constant(dtype, v) for v in values])
        base, stride = self.emit(e.base), self.emit(e.stride)
        steps = ir.Constant(ir.VectorType(base.type, e.lanes), [constant(dtype, i) for i in range(e.lanes)])
        b = self.builder
        if dtype.is_float:
            return b.fadd(self.splat(base, e.lanes), b.fmul(self.splat(stride, e.lanes), steps))
        return b.add(self.splat(base, e.lanes), b.mul(self.splat(stride, e.lanes), steps))

    # -- casts -------------------------------------------------------------------------------
    def _cast(self, e: Cast) -> ir.Value:
        value = self.emit(e.value)
        src = e.value.dtype
        if src.lanes == 1 and e.dtype.lanes > 1:
            value, src = self.splat(value, e.dtype.lanes), src.with_lanes(e.dtype.lanes)
        return self.cast(value, src, e.dtype)

    def cast(self, value: ir.Value, src: DataType, dst: DataType) -> ir.Value:
        """Convert ``value`` of ``src`` to ``dst`` (C semantics; float→int truncates)."""
        b = self.builder
        if src.element_of() is dst.element_of():
            return value
        lanes = dst.lanes
        if _is_bf16(src):
            return self.cast(self.bf16_to_f32(value, lanes), F32_DT.with_lanes(lanes), dst)
        if _is_bf16(dst):
            if not src.is_float or src.bits != 32:
                value = self.cast(value, src, F32_DT.with_lanes(lanes))
            return self.f32_to_bf16(value, lanes)
        to = llvm_type(dst)
        if dst.is_handle:
            return b.inttoptr(value, to) if not src.is_handle else value
        if src.is_handle:
            return b.ptrtoint(value, to)
        if dst.is_bool:
            zero = constant(src, 0)
            return b.fcmp_unordered("!=", value, zero) if src.is_float else b.icmp_unsigned("!=", value, zero)
        if src.is_bool:
            return b.uitofp(value, to) if dst.is_float else b.zext(value, to)
        if src.is_float and dst.is_float:
            return b.fpext(value, to) if dst.bits > src.bits else b.fptrunc(value, to)
        if src.is_float:
            return b.fptosi(value, to) if dst.is_int else b.fptoui(value, to)
        if dst.is_float:
            return b.sitofp(value, to) if src.is_int else b.uitofp(value, to)
        if dst.bits < src.bits:
            return b.trunc(value, to)
        if dst.bits > src.bits:
            return b.sext(value, to) if src.is_int else b.zext(value, to)
        return value  # int ↔ uint of one width: same bits

    def bf16_to_f32(self, value: ir.Value, lanes: int) -> ir.Value:
        b = self.builder
        i32 = I32 if lanes == 1 else ir.VectorType(I32, lanes)
        f32 = F32 if lanes == 1 else ir.VectorType(F32, lanes)
        wide = b.shl(b.zext(value, i32), self._const_like(i32, 16))
        return b.bitcast(wide, f32)

    def f32_to_bf16(self, value: ir.Value, lanes: int) -> ir.Value:
        """Round-to-nearest-even, NaN stays a quiet NaN."""
        b = self.builder
        i32 = I32 if lanes == 1 else ir.VectorType(I32, lanes)
        i16 = I16 if lanes == 1 else ir.VectorType(I16, lanes)
        bits = b.bitcast(value, i32)
        lsb = b.and_(b.lshr(bits, self._const_like(i32, 16)), self._const_like(i32, 1))
        rounded = b.lshr(b.add(b.add(bits, self._const_like(i32, 0x7FFF)), lsb), self._const_like(i32, 16))
        is_nan = b.fcmp_unordered("uno", value, value)
        return b.select(is_nan, self._const_like(i16, 0x7FC0), b.trunc(rounded, i16))

    @staticmethod
    def _const_like(ty: ir.Type, value) -> ir.Constant:
        if isinstance(ty, ir.VectorType):
            return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
        return ir.Constant(ty, value)

    # -- memory ------------------------------------------------------------------------------
    def flat_index(self, buffer, indices) -> PrimExpr:
        """The flat element index of ``indices`` (multi-dimensional buffers are flattened here)."""
        if len(indices) == 1:
            index = indices[0]
            if buffer.strides and not (isinstance(buffer.strides[0], IntImm) and buffer.strides[0].value == 1):
                stride = buffer.strides[0]
                index = index * (stride if index.dtype.lanes == 1 else Broadcast(stride, index.dtype.lanes))
            off = buffer.elem_offset
            if off is not None and not is_zero(off):
                index = index + off
            return index
        if any(i.dtype.lanes > 1 for i in indices):
            raise CodegenError(
                f"vector index into the {len(indices)}-D buffer {buffer.name!r}; buffers must be "
                "flattened first (tir.transform.FlattenBuffer in lower_for_codegen)"
            )
        return buffer.offset_of(indices)

    def element_pointer(self, buffer, offset: ir.Value) -> ir.Value:
        base = self._var(buffer.data)
        elem = memory_type(buffer.dtype)
        typed = self.builder.bitcast(base, elem.as_pointer())
        return self.builder.gep(typed, [offset])

    def _index_i64(self, value: ir.Value, dtype: DataType) -> ir.Value:
        if value.type.width == 64:
            return value
        return self.builder.zext(value, I64) if dtype.is_uint else self.builder.sext(value, I64)

    def access(self, buffer, indices, store_value: ir.Value | None = None):
        """Load from (or store ``store_value`` into) ``buffer[indices]``."""
        index = self.flat_index(buffer, indices)
        b = self.builder
        elem_dtype = buffer.dtype
        align = max(elem_dtype.bits, 8) // 8
        lanes = index.dtype.lanes
        is_bool = elem_dtype.is_bool
        if lanes == 1:
            ptr = self.element_pointer(buffer, self._index_i64(self.emit(index), index.dtype))
            if store_value is not None:
                self._store_memory(self._to_memory(store_value, is_bool, elem_dtype.lanes), ptr, align)
                return None
            return self._from_memory(b.load(ptr, align=align), is_bool)
        if isinstance(index, Ramp) and isinstance(index.stride, IntImm) and index.stride.value == 1 and elem_dtype.lanes == 1:
            base = self._index_i64(self.emit(index.base), index.base.dtype)
            vec_ty = ir.VectorType(memory_type(elem_dtype), lanes)
            ptr = b.bitcast(self.element_pointer(buffer, base), vec_ty.as_pointer())
            if store_value is not None:
                self._store_memory(self._to_memory(store_value, is_bool, lanes), ptr, align)
                return None
            return self._from_memory(b.load(ptr, align=align), is_bool)
        if isinstance(index, Broadcast) and store_value is None:
            scalar = self.access(buffer, (index.value,))
            return self.splat(scalar, lanes)
        clamped = _clamped_ramp(index) if store_value is None and elem_dtype.lanes == 1 else None
        if clamped is not None:
            return self._clamped_load(buffer, index, *clamped)
        return self._gather_scatter(buffer, index, store_value)

    def _clamped_load(self, buffer, index, start: PrimExpr, bound: PrimExpr) -> ir.Value:
        """A load at ``min(start + [0, lanes), bound)`` (a padded copy's clamped columns):
        one vector load when the whole ramp is below the clamp, the gather otherwise."""
        b = self.builder
        lanes = index.dtype.lanes
        first = self._index_i64(self.emit(start), start.dtype)
        last = b.add(first, ir.Constant(I64, lanes - 1))
        inside = b.icmp_signed("<=", last, self._index_i64(self.emit(bound), bound.dtype))
        vec_ty = ir.VectorType(memory_type(buffer.dtype), lanes)

        def whole():
            ptr = b.bitcast(self.element_pointer(buffer, first), vec_ty.as_pointer())
            return self._from_memory(b.load(ptr, align=max(buffer.dtype.bits, 8) // 8), buffer.dtype.is_bool)

        return self.branch_value(inside, whole, lambda: self._gather_scatter(buffer, index, None), "ramp")

    def _gather_scatter(self, buffer, index, store_value):
        b = self.builder
        elem_dtype = buffer.dtype
        align = max(elem_dtype.bits, 8) // 8
        lanes = index.dtype.lanes
        is_bool = elem_dtype.is_bool
        # gather / scatter lane by lane
        log.debug("%s of %s: index %r is not a stride-1 Ramp; %d scalar accesses",
                  "store" if store_value is not None else "load", buffer.name, index, lanes)
        idx = self.emit(index)
        out = ir.Constant(llvm_type(elem_dtype.with_lanes(lanes)), ir.Undefined) if store_value is None else None
        for lane in range(lanes):
            k = ir.Constant(I32, lane)
            offset = self._index_i64(b.extract_element(idx, k), index.dtype.element_of())
            ptr = self.element_pointer(buffer, offset)
            if store_value is not None:
                v = b.extract_element(store_value, k)
                self._store_memory(self._to_memory(v, is_bool, 1), ptr, align)
            else:
                out = b.insert_element(out, self._from_memory(b.load(ptr, align=align), is_bool), k)
        return out

    def _store_memory(self, value: ir.Value, ptr: ir.Value, align: int) -> None:
        """One store; ``!nontemporal`` (bypass the caches) inside a loop annotated with
        ``NONTEMPORAL_STORE`` (``self.nontemporal_stores``, set by the loop codegen)."""
        store = self.builder.store(value, ptr, align=align)
        if getattr(self, "nontemporal_stores", False):
            store.set_metadata("nontemporal", self.module.add_metadata([ir.Constant(I32, 1)]))

    def _to_memory(self, value: ir.Value, is_bool: bool, lanes: int) -> ir.Value:
        if not is_bool:
            return value
        return self.builder.zext(value, I8 if lanes == 1 else ir.VectorType(I8, lanes))

    def _from_memory(self, value: ir.Value, is_bool: bool) -> ir.Value:
        if not is_bool:
            return value
        return self.builder.icmp_unsigned("!=", value, self._const_like(value.type, 0))

    def _buffer_load(self, e: BufferLoad) -> ir.Value:
        return self.access(e.buffer, e.indices)

    # -- calls -------------------------------------------------------------------------------
    def _call(self, e: Call) -> ir.Value:
        from .intrinsics import emit_call

        return emit_call(self, e)

    def call_intrinsic(self, name: str, value: ir.Value, dtype: DataType, *extra: ir.Value) -> ir.Value:
        """Call the overloaded LLVM intrinsic ``name`` on ``value`` (and ``extra``)."""
        from .types import mangle

        full = f"{name}.{mangle(value.type)}"
        fn = self.module.globals.get(full)
        if fn is None:
            fnty = ir.FunctionType(value.type, [value.type] + [x.type for x in extra])
            fn = ir.Function(self.module, fnty, full)
        return self.builder.call(fn, [value, *extra])

    def string_constant(self, text: str) -> ir.Value:
        data = bytearray(text.encode()) + b"\0"
        name = f".str.{len(self.strings)}"
        cached = self.strings.get(text)
        if cached is None:
            ty = ir.ArrayType(I8, len(data))
            cached = ir.GlobalVariable(self.module, ty, name)
            cached.global_constant = True
            cached.linkage = "private"
            cached.initializer = ir.Constant(ty, data)
            self.strings[text] = cached
        return self.builder.bitcast(cached, PTR)


_DISPATCH = {
    IntImm: ExprEmitter._imm,
    FloatImm: ExprEmitter._imm,
    StringImm: ExprEmitter._string,
    Var: ExprEmitter._var,
    Let: ExprEmitter._let,
    Add: ExprEmitter._arith,
    Sub: ExprEmitter._arith,
    Mul: ExprEmitter._arith,
    Div: ExprEmitter._arith,
    Mod: ExprEmitter._arith,
    FloorDiv: ExprEmitter._floordiv,
    FloorMod: ExprEmitter._floormod,
    Min: ExprEmitter._minmax,
    Max: ExprEmitter._minmax,
    EQ: ExprEmitter._cmp,
    NE: ExprEmitter._cmp,
    LT: ExprEmitter._cmp,
    LE: ExprEmitter._cmp,
    GT: ExprEmitter._cmp,
    GE: ExprEmitter._cmp,
    And: ExprEmitter._logic,
    Or: ExprEmitter._logic,
    Not: ExprEmitter._not,
    Select: ExprEmitter._select,
    Broadcast: ExprEmitter._broadcast,
    Ramp: ExprEmitter._ramp,
    Cast: ExprEmitter._cast,
    BufferLoad: ExprEmitter._buffer_load,
    Call: ExprEmitter._call,
}


def _clamped_ramp(index) -> tuple[PrimExpr, PrimExpr] | None:
    """``(start, bound)`` when ``index`` is ``min(Ramp(b, 1, lanes), Broadcast(m))`` plus
    broadcast offsets ``c`` (start ``c + b``, bound ``c + m``); else None."""
    offsets = []
    while isinstance(index, Add) and isinstance(index.a, Broadcast | Min) and isinstance(index.b, Broadcast | Min):
        if isinstance(index.a, Broadcast):
            offsets.append(index.a.value)
            index = index.b
        elif isinstance(index.b, Broadcast):
            offsets.append(index.b.value)
            index = index.a
        else:
            return None
    if not isinstance(index, Min):
        return None
    ramp, cap = (index.a, index.b) if isinstance(index.a, Ramp) else (index.b, index.a)
    if not (isinstance(ramp, Ramp) and isinstance(cap, Broadcast) and isinstance(ramp.stride, IntImm)
            and ramp.stride.value == 1):
        return None
    start, bound = ramp.base, cap.value
    for c in offsets:
        start, bound = c + start, c + bound
    return start, bound
