"""make_packed_api: wrap a PrimFunc into ember's native calling convention.

The result has the two parameters ``(args: handle, num_args: int32)`` of
``int32_t fn(uint64_t* args, int32_t num_args)``.  Its body unpacks every argument
(DLTensor fields for buffers, int64 / double bits for scalars), checks them with
AssertStmts — count, device, ndim, dtype, each shape dim (constants, and symbolic vars:
the first occurrence binds, later ones must agree), compact strides, non-NULL data —
then runs the original body inside an ``AttrStmt("compute_scope")``, which the code
generator outlines into a function whose buffer pointers are ``noalias``.

The code generator numbers AssertStmts in pre-order; a failed one returns its index+1.
The ``ember.param_info`` attribute holds the ``ParamInfo`` of each parameter.
"""

from __future__ import annotations

from ember.ir import (
    Add, And, Cast, DataType, FloorDiv, FloorMod, IntImm, Mul, Not, Or, PointerType, PrimExpr,
    StringImm, Sub, Var, const,
)
from ember.runtime.function_info import ParamInfo
from ember.tir import (
    AssertStmt, AttrStmt, BufferLoad, BufferStore, LetStmt, PrimFunc, Stmt, collect, decl_buffer,
)
from ember.tir.op import if_then_else, reinterpret

from .builtin_ops import DLTensorField as F
from .builtin_ops import isnullptr, struct_get

__all__ = ["make_packed_api", "PACKED_CONV"]

PACKED_CONV = "ember_packed"
INT32, INT64 = DataType("int32"), DataType("int64")
_KIND_OF = {"int": "int", "uint": "int", "bool": "int", "float": "float", "bfloat": "float", "handle": "handle"}


def _i32(v: int) -> IntImm:
    return IntImm(INT32, v)


def _i64(x) -> PrimExpr:
    if isinstance(x, int):
        return IntImm(INT64, x)
    return x if x.dtype is INT64 else Cast(INT64, x)


def _shape_text(expr) -> int | str:
    """A shape entry as ParamInfo wants it: an int, a var name or an expression string."""
    table = {Add: "+", Sub: "-", Mul: "*", FloorDiv: "//", FloorMod: "%"}
    if isinstance(expr, IntImm):
        return int(expr.value)
    if isinstance(expr, Var):
        return expr.name
    op = table.get(type(expr))
    if op is not None:
        return f"({_shape_text(expr.a)} {op} {_shape_text(expr.b)})"
    return str(expr)


class _Builder:
    """Collects (let | assert) steps in order; ``wrap`` nests them around a body."""

    def __init__(self):
        self.steps: list[tuple] = []
        self.bound: set[int] = set()

    def let(self, var: Var, value: PrimExpr) -> Var:
        self.steps.append(("let", var, value))
        self.bound.add(id(var))
        return var

    def check(self, cond: PrimExpr, message: str) -> None:
        self.steps.append(("assert", cond, message))

    def wrap(self, body: Stmt) -> Stmt:
        for step in reversed(self.steps):
            if step[0] == "let":
                body = LetStmt(step[1], step[2], body)
            else:
                body = AssertStmt(step[1], StringImm(step[2]), body)
        return body


def _free_vars(expr, bound: set[int]) -> list[Var]:
    return [v for v in collect(expr, lambda x: isinstance(x, Var)) if id(v) not in bound]


def make_packed_api(func: PrimFunc, name: str, device_type: int = 1) -> PrimFunc:
    """Wrap ``func`` into the packed ABI; ``name`` is its exported symbol."""
    if func.attrs.get("calling_conv") == PACKED_CONV:
        return func
    args = Var("args", "handle", PointerType(INT64))
    num_args = Var("num_args", INT32)
    args_buf = decl_buffer((len(func.params),), "int64", "args", data=args)
    b = _Builder()
    nparams = len(func.params)
    infos: list[ParamInfo] = []

    def where(i: int, pname: str) -> str:
        return f"argument '{pname}' (#{i + 1})"

    sizes = {id(dim) for buf in func.buffer_map.values() for dim in buf.shape if isinstance(dim, Var)}
    written = {id(s.buffer.data) for s in collect(func.body, lambda x: isinstance(x, BufferStore))}
    names = ", ".join(_param_name(func, p) for p in func.params)
    b.check(num_args == _i32(nparams), f"{name} expects {nparams} arguments ({names})")

    # scalars first, so buffer shapes can be checked against them
    handles: dict[int, Var] = {}
    for i, param in enumerate(func.params):
        raw = BufferLoad(args_buf, (_i32(i),))
        if param in func.buffer_map:
            buf = func.buffer_map[param]
            handles[i] = b.let(Var(f"{buf.name}_handle", "handle"), reinterpret("handle", raw))
            infos.append(ParamInfo(buf.name, "buffer", str(buf.dtype), tuple(_shape_text(s) for s in buf.shape),
                                   device_type, written=id(buf.data) in written))
            continue
        kind = _KIND_OF[str(param.dtype.element_of()).rstrip("0123456789")]
        if kind == "int":
            value = raw if param.dtype is INT64 else Cast(param.dtype, raw)
        elif kind == "float":
            value = reinterpret("float64", raw)
            value = value if param.dtype == "float64" else Cast(param.dtype, value)
        else:
            value = reinterpret("handle", raw)
        b.let(param, value)
        infos.append(ParamInfo(param.name, kind, str(param.dtype)))
        if kind == "int" and 1 < param.dtype.bits < 64:  # the value must survive the narrowing
            b.check(Cast(INT64, param) == raw, f"{where(i, param.name)}: expected a value of dtype {param.dtype}")
        if kind == "int" and id(param) in sizes:
            b.check(param >= _zero(param.dtype), f"{where(i, param.name)}: is a size, expected >= 0")

    deferred: list[tuple[PrimExpr, PrimExpr, str]] = []
    for i, param in enumerate(func.params):
        if param not in func.buffer_map:
            continue
        _unpack_buffer(b, func.buffer_map[param], handles[i], where(i, func.buffer_map[param].name), device_type, deferred)
    for got, expected, message in deferred:
        unbound = _free_vars(expected, b.bound)
        if unbound:
            raise ValueError(
                f"make_packed_api({name}): {message.split(':')[0]} has shape entry {_shape_text(expected)} "
                f"using {', '.join(repr(v.name) for v in unbound)}, which no parameter binds; add the "
                "variable as a scalar parameter or as a plain dimension of some buffer"
            )
        b.check(got == _i64(expected), message)

    body = AttrStmt(StringImm(name), "compute_scope", const(0, "int32"), func.body)
    attrs = dict(func.attrs)
    attrs.update({"calling_conv": PACKED_CONV, "global_symbol": name, "ember.param_info": tuple(infos)})
    return PrimFunc(params=(args, num_args), body=b.wrap(body), ret_type=INT32, buffer_map={}, attrs=attrs)


def _zero(dtype: DataType) -> IntImm:
    return IntImm(dtype, 0)


def _param_name(func: PrimFunc, param: Var) -> str:
    buf = func.buffer_map.get(param)
    return buf.name if buf is not None else param.name


def _unpack_buffer(b: _Builder, buf, handle: Var, where: str, device_type: int, deferred: list) -> None:
    ndim = len(buf.shape)
    dtype = buf.dtype
    b.check(struct_get(handle, F.DEVICE_TYPE) == _i32(device_type), f"{where}: expected device type {device_type}")
    b.check(struct_get(handle, F.NDIM) == _i32(ndim), f"{where}: expected ndim {ndim}")
    from ember.runtime.dlpack import dl_dtype_of

    code, bits, lanes = dl_dtype_of(dtype)
    dtype_ok = And(And(struct_get(handle, F.DTYPE_CODE) == _i32(code), struct_get(handle, F.DTYPE_BITS) == _i32(bits)),
                   struct_get(handle, F.DTYPE_LANES) == _i32(lanes))
    b.check(dtype_ok, f"{where}: expected dtype {dtype}")
    shape_var = b.let(Var(f"{buf.name}_shape", "handle", PointerType(INT64)), struct_get(handle, F.SHAPE))
    shape = decl_buffer((ndim,), "int64", f"{buf.name}_shape", data=shape_var)
    for axis, dim in enumerate(buf.shape):
        got = BufferLoad(shape, (_i32(axis),))
        message = f"{where}: expected shape[{axis}] == {_shape_text(dim)}"
        if isinstance(dim, Var) and id(dim) not in b.bound:
            b.let(dim, got if dim.dtype is INT64 else Cast(dim.dtype, got))
            if dim.dtype is not INT64:
                b.check(Cast(INT64, dim) == got, f"{message}: the extent does not fit {dim.dtype}")
        elif _free_vars(dim, b.bound):
            deferred.append((got, dim, message))
        else:
            b.check(got == _i64(dim), message)
    strides_var = b.let(Var(f"{buf.name}_strides", "handle", PointerType(INT64)), struct_get(handle, F.STRIDES))
    strides = decl_buffer((ndim,), "int64", f"{buf.name}_strides", data=strides_var)
    # compact strides and the size come from the shape actually passed (checked equal to the
    # declared one above, but its symbolic entries may not be bound yet)
    compact = [None] * ndim
    expected: PrimExpr = _i64(1)
    for axis in reversed(range(ndim)):
        compact[axis] = expected
        expected = expected * BufferLoad(shape, (_i32(axis),))
    if not buf.strides:
        conds = None
        for axis in range(ndim):
            ok = Or(BufferLoad(shape, (_i32(axis),)) == _i64(1), BufferLoad(strides, (_i32(axis),)) == compact[axis])
            conds = ok if conds is None else And(conds, ok)
        if conds is not None:
            b.check(if_then_else(isnullptr(strides_var), const(True), conds),
                    f"{where}: expected a compact (row-major contiguous) array")
    else:
        for axis, stride in enumerate(buf.strides):
            got = if_then_else(isnullptr(strides_var), compact[axis], BufferLoad(strides, (_i32(axis),)))
            if isinstance(stride, Var) and id(stride) not in b.bound:
                b.let(stride, got if stride.dtype is INT64 else Cast(stride.dtype, got))
            else:
                b.check(got == _i64(stride), f"{where}: expected strides[{axis}] == {_shape_text(stride)}")
    if isinstance(buf.elem_offset, Var) and id(buf.elem_offset) not in b.bound:
        itemsize = max(dtype.bits, 8) // 8 * dtype.lanes
        offset = struct_get(handle, F.BYTE_OFFSET) // _i64(itemsize)
        b.let(buf.elem_offset, offset if buf.elem_offset.dtype is INT64 else Cast(buf.elem_offset.dtype, offset))
        data_value = struct_get(handle, F.RAW_DATA)
    else:
        data_value = struct_get(handle, F.DATA)
    data = b.let(buf.data, data_value)
    size = _i64(1)
    for axis in range(ndim):
        size = size * BufferLoad(shape, (_i32(axis),))
    b.check(Or(Not(isnullptr(data)), size == _i64(0)), f"{where}: expected a non-NULL data pointer")
