"""Hand-built native kernels for runtime tests, JIT-compiled with llvmlite.

``build(info, body)`` emits ``define i32 @name(ptr %args, i32 %nargs)`` whose prologue
performs the argument checks the real code generator is expected to emit (device type,
ndim, dtype, shape and symbolic dims, compact strides, non-NULL data), each returning its
1-based index in ``info.checks``.  The body sees ``%data.<param>`` (element pointer),
``%sym.<dim>`` (i64 symbolic dims), ``%int.<param>`` (i64) and ``%float.<param>`` (double).
"""

from __future__ import annotations

import llvmlite.binding as llvm

from ember.runtime import CompiledFunction, FunctionInfo, ParamInfo
from ember.runtime.dlpack import dl_dtype_of
from ember.runtime.dtype import DataType

llvm.initialize_native_target()
llvm.initialize_native_asmprinter()


class _Emitter:
    def __init__(self):
        self.lines: list[str] = []
        self.checks: list[str] = []
        self.counter = 0

    def tmp(self) -> str:
        self.counter += 1
        return f"%t{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def check(self, ok: str, message: str) -> None:
        """Branch to a block returning the check's index unless ``ok`` (an i1) holds."""
        self.checks.append(message)
        k = len(self.checks)
        self.emit(f"br i1 {ok}, label %pass{k}, label %fail{k}")
        self.lines.append(f"fail{k}:")
        self.emit(f"ret i32 {k}")
        self.lines.append(f"pass{k}:")

    def load_field(self, tensor: str, offset: int, ty: str) -> str:
        ptr, value = self.tmp(), self.tmp()
        self.emit(f"{ptr} = getelementptr i8, ptr {tensor}, i64 {offset}")
        self.emit(f"{value} = load {ty}, ptr {ptr}")
        return value

    def icmp(self, op: str, ty: str, a: str, b: str) -> str:
        out = self.tmp()
        self.emit(f"{out} = icmp {op} {ty} {a}, {b}")
        return out


def _buffer_checks(e: _Emitter, index: int, p: ParamInfo, bound: set[str]) -> None:
    raw = e.tmp()
    e.emit(f"{raw} = getelementptr i64, ptr %args, i64 {index}")
    addr = e.tmp()
    e.emit(f"{addr} = load i64, ptr {raw}")
    t = f"%tensor.{p.name}"
    e.emit(f"{t} = inttoptr i64 {addr} to ptr")
    dev = e.load_field(t, 8, "i32")
    e.check(e.icmp("eq", "i32", dev, str(p.device_type)), f"{p.name}.device_type == {p.device_type}")
    ndim = e.load_field(t, 16, "i32")
    e.check(e.icmp("eq", "i32", ndim, str(len(p.shape))), f"{p.name}.ndim == {len(p.shape)}")
    code, bits, lanes = dl_dtype_of(DataType(p.dtype))
    word = e.load_field(t, 20, "i32")  # code | bits << 8 | lanes << 16
    e.check(e.icmp("eq", "i32", word, str(code | bits << 8 | lanes << 16)), f"{p.name}.dtype == {p.dtype}")
    shape_ptr = e.load_field(t, 24, "ptr")
    dims = []
    for axis, dim in enumerate(p.shape):
        slot = e.tmp()
        e.emit(f"{slot} = getelementptr i64, ptr {shape_ptr}, i64 {axis}")
        value = e.tmp()
        e.emit(f"{value} = load i64, ptr {slot}")
        dims.append(value)
        if isinstance(dim, int):
            e.check(e.icmp("eq", "i64", value, str(dim)), f"{p.name}.shape[{axis}] == {dim}")
        elif dim in bound:
            e.check(e.icmp("eq", "i64", value, f"%sym.{dim}"), f"{p.name}.shape[{axis}] == {dim}")
        else:
            e.emit(f"%sym.{dim} = add i64 {value}, 0")
            bound.add(dim)
    strides = e.load_field(t, 32, "ptr")
    ok = e.icmp("eq", "ptr", strides, "null")
    expected = "1"
    for axis in reversed(range(len(p.shape))):
        slot, stride = e.tmp(), e.tmp()
        e.emit(f"{slot} = getelementptr i64, ptr {strides}, i64 {axis}")
        # Only dereference when strides != NULL: select a safe address otherwise.
        safe = e.tmp()
        e.emit(f"{safe} = select i1 {ok}, ptr {shape_ptr}, ptr {slot}")
        e.emit(f"{stride} = load i64, ptr {safe}")
        unit = e.icmp("eq", "i64", dims[axis], "1")
        match = e.icmp("eq", "i64", stride, expected)
        either, merged = e.tmp(), e.tmp()
        e.emit(f"{either} = or i1 {unit}, {match}")
        e.emit(f"{merged} = or i1 {ok}, {either}")
        if axis == len(p.shape) - 1:
            all_ok = merged
        else:
            all_ok, previous = e.tmp(), all_ok
            e.emit(f"{all_ok} = and i1 {previous}, {merged}")
        product = e.tmp()
        e.emit(f"{product} = mul i64 {expected}, {dims[axis]}")
        expected = product
    if p.shape:
        e.check(all_ok, f"{p.name} is compact")
    data = e.load_field(t, 0, "ptr")
    e.check(e.icmp("ne", "ptr", data, "null"), f"{p.name}.data != NULL")
    offset = e.load_field(t, 40, "i64")
    e.emit(f"%data.{p.name} = getelementptr i8, ptr {data}, i64 {offset}")


def build(name: str, params: list[ParamInfo], body: str) -> CompiledFunction:
    """JIT a kernel: generated argument checks, then ``body`` (LLVM IR ending in ``ret``)."""
    e = _Emitter()
    bound: set[str] = set()
    for index, p in enumerate(params):
        if p.kind == "buffer":
            _buffer_checks(e, index, p, bound)
        else:
            slot = e.tmp()
            e.emit(f"{slot} = getelementptr i64, ptr %args, i64 {index}")
            e.emit(f"%int.{p.name} = load i64, ptr {slot}")
            if p.kind == "float":
                e.emit(f"%float.{p.name} = bitcast i64 %int.{p.name} to double")
            if p.kind == "int" and p.name not in bound:
                e.emit(f"%sym.{p.name} = add i64 %int.{p.name}, 0")
                bound.add(p.name)
    text = "\n".join(
        [f"define i32 @{name}(ptr %args, i32 %nargs) {{", "entry:", *e.lines, body.strip("\n"), "}", ""]
    )
    module = llvm.parse_assembly(text)
    module.verify()
    # The engine takes ownership of its target machine: one each.
    engine = llvm.create_mcjit_compiler(module, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    info = FunctionInfo(name, tuple(params), tuple(e.checks))
    return CompiledFunction(engine.get_function_address(name), info, keepalive=engine)


def elementwise_body(count: str, compute: str, inputs: list[str], output: str, ty: str = "float") -> str:
    """A loop over ``count`` elements: ``%out = <compute using %x.<input>>`` stored to output."""
    loads = "\n".join(
        f"  %px.{n} = getelementptr {ty}, ptr %data.{n}, i64 %i\n  %x.{n} = load {ty}, ptr %px.{n}"
        for n in inputs
    )
    return f"""  br label %head
head:
  %i = phi i64 [0, %{{pred}}], [%next, %loop]
  %done = icmp sge i64 %i, {count}
  br i1 %done, label %exit, label %loop
loop:
{loads}
  {compute}
  %po = getelementptr {ty}, ptr %data.{output}, i64 %i
  store {ty} %out, ptr %po
  %next = add i64 %i, 1
  br label %head
exit:
  ret i32 0"""


def buffer(name: str, dtype: str, shape: tuple, device_type: int = 1, align: int = 0) -> ParamInfo:
    return ParamInfo(name, "buffer", dtype, tuple(shape), device_type, align)


def add_one() -> CompiledFunction:
    """B[i] = A[i] + 1.0 for A, B: float32[n]."""
    params = [buffer("A", "float32", ("n",)), buffer("B", "float32", ("n",))]
    return _elementwise("add_one", params, "%out = fadd float %x.A, 1.0", ["A"], "B", "%sym.n")


def add() -> CompiledFunction:
    """C = A + B for float32[n]: the 3-argument benchmark kernel."""
    params = [buffer(x, "float32", ("n",)) for x in "ABC"]
    return _elementwise("add", params, "%out = fadd float %x.A, %x.B", ["A", "B"], "C", "%sym.n")


def add_2d() -> CompiledFunction:
    """B = A + 1 for A, B: float32[m, 4]."""
    params = [buffer("A", "float32", ("m", 4)), buffer("B", "float32", ("m", 4))]
    return _elementwise("add_2d", params, "%out = fadd float %x.A, 1.0", ["A"], "B", "%count")


def axpy() -> CompiledFunction:
    """Y[i] = alpha * X[i] + Y[i] for i < n, with X, Y: float64[n] and an explicit int n."""
    params = [
        ParamInfo("n", "int", "int64"),
        ParamInfo("alpha", "float", "float64"),
        buffer("X", "float64", ("n",)),
        buffer("Y", "float64", ("n",)),
    ]
    compute = "%ax = fmul double %float.alpha, %x.X\n  %out = fadd double %ax, %x.Y"
    return _elementwise("axpy", params, compute, ["X", "Y"], "Y", "%sym.n", ty="double")


def cast_i8_to_i64() -> CompiledFunction:
    """B[i] = A[i] (sign-extended) for A: int8[8], B: int64[8]: fixed shapes, integer dtypes."""
    params = [buffer("A", "int8", (8,)), buffer("B", "int64", (8,))]
    return _elementwise(
        "cast_i8", params, "%out = sext i8 %x.A to i64", ["A"], "B", "8", ty="i8", out_ty="i64"
    )


def _elementwise(name, params, compute, inputs, output, count, ty="float", out_ty=None) -> CompiledFunction:
    prefix = ""
    if count == "%count":  # product of the output's dims: m * 4
        prefix = "  %count = mul i64 %sym.m, 4\n"
    body = elementwise_body(count, compute, inputs, output, ty)
    if out_ty:
        body = body.replace(
            f"getelementptr {ty}, ptr %data.{output}", f"getelementptr {out_ty}, ptr %data.{output}"
        )
        body = body.replace(f"store {ty} %out", f"store {out_ty} %out")
    body = prefix + "  br label %start\nstart:\n" + body.replace("{pred}", "start")
    return build(name, params, body)
