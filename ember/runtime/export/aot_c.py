"""A native entry point for an exported model: one C function that runs a VM function.

For a VM function whose shapes are all static, the instruction list is a fixed sequence:
argument checks, storage allocations at constant sizes, tensor views into them, kernel
calls, views (reshape) and a returned tensor or tuple.  ``generate`` writes it out as C:
storages become offsets into one caller-provided workspace, tensors become stack
``DLTensor``s, constants point into the embedded VM program (64-byte aligned there), and
every kernel is called through its packed ABI (``int32_t f(uint64_t* args, int32_t n)``).
The result fills an ``EmberAotEntry`` (``ember_runtime.h``) that the C runtime reads.

Anything else (symbolic shapes, control flow, packed functions other than the few
builtins below) makes ``generate`` return ``None`` with the reason: such models still
export and run from Python, just without the C entry point.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct

from ..dtype import DataType
from ..library import kernel_symbol
from ..ndarray import NDArray
from ..vm.executable import Call, Executable, Ret, VMFunction

__all__ = ["AotResult", "generate", "entry_function_name"]

_ALIGN = 64
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SKIPPED = {"vm.builtin.alloc_shape_heap", "vm.builtin.null_value"}


@dataclasses.dataclass(frozen=True)
class AotResult:
    source: str | None = dataclasses.field(repr=False)
    reason: str  # why there is no source, or a one-line summary of what was generated


@dataclasses.dataclass
class _Tensor:
    expr: str  # a C expression of type DLTensor*
    shape: tuple
    dtype: str
    data: str  # a C expression for the data pointer (char*)


class _Unsupported(Exception):
    pass


def entry_function_name(exe: Executable) -> str | None:
    """The VM function the entry point runs: ``main``, else the only function."""
    if "main" in exe.functions:
        return "main"
    return next(iter(exe.functions)) if len(exe.functions) == 1 else None


def _dl(dtype: str) -> str:
    dt = DataType(dtype)
    return f"{{{dt.code}, {dt.bits}, {dt.lanes}}}"


def _nbytes(shape: tuple, dtype: str) -> int:
    dt = DataType(dtype)
    return math.prod(shape) * ((dt.bits * dt.lanes + 7) // 8)


class _Writer:
    def __init__(self, exe: Executable, func: VMFunction, const_offsets: dict[int, int]):
        self.exe, self.func, self.const_offsets = exe, func, const_offsets
        self.decls: list[str] = []  # file-scope: shapes, kernel prototypes
        self.body: list[str] = []
        self.shapes: dict[tuple, str] = {}
        self.kernels: set[str] = set()
        self.steps: list[str] = []
        self.values: dict[int, object] = {}  # register → _Tensor | ("storage", offset) | tuple | None
        self.params: dict[int, dict] = {i: {} for i in range(len(func.params))}
        self.workspace = 0
        self.n_tensors = 0

    def shape(self, dims: tuple) -> str:
        name = self.shapes.get(dims)
        if name is None:
            name = self.shapes[dims] = f"S{len(self.shapes)}"
            values = ", ".join(str(d) for d in dims) or "0"
            self.decls.append(f"static const int64_t {name}[] = {{{values}}};")
        return name

    def new_tensor(self, data: str, dims: tuple, dtype: str) -> _Tensor:
        name = f"t{self.n_tensors}"
        self.n_tensors += 1
        self.body.append(f"DLTensor {name} = {{(void*)({data}), {{1, 0}}, {len(dims)}, {_dl(dtype)}, "
                         f"(int64_t*){self.shape(dims)}, NULL, 0}};")
        return _Tensor(f"&{name}", dims, dtype, f"((char*){name}.data)")

    def take(self, size: int) -> int:
        offset = self.workspace
        self.workspace += -(-max(size, 1) // _ALIGN) * _ALIGN
        return offset

    # -- arguments --------------------------------------------------------------------------
    def tensor_arg(self, arg) -> _Tensor:
        if arg.kind == "reg":
            value = self.values.get(arg.value)
            if isinstance(value, _Tensor):
                return value
            raise _Unsupported(f"register %{arg.value} does not hold a tensor known at compile time")
        if arg.kind == "const":
            value = self.exe.constants[arg.value]
            if not isinstance(value, NDArray) or arg.value not in self.const_offsets:
                raise _Unsupported(f"constant c[{arg.value}] is not an embedded tensor")
            key = ("const", arg.value)
            if key not in self.values:
                shape, dtype = tuple(value.shape), str(value.dtype)
                self.values[key] = self.new_tensor(f"__ember_vm_program + {self.const_offsets[arg.value]}",
                                                   shape, dtype)
            return self.values[key]
        raise _Unsupported(f"argument {arg} is not a tensor")

    def static(self, arg):
        if arg.kind == "imm":
            return arg.value
        if arg.kind == "reg" and isinstance(self.values.get(arg.value), tuple):
            return self.values[arg.value]
        raise _Unsupported(f"argument {arg} is not known at compile time")

    # -- instructions -----------------------------------------------------------------------
    def call(self, instr: Call) -> None:
        name, args, dst = instr.func, instr.args, instr.dst
        if dst is not None and dst in self.values:
            raise _Unsupported(f"register %{dst} is assigned twice")
        handler = _BUILTINS.get(name)
        if handler is not None:
            result = handler(self, args)
        elif name in _SKIPPED:
            result = None
        else:
            result = self.kernel(name, args)
        if dst is not None:
            self.values[dst] = result

    def kernel(self, name: str, args: tuple) -> None:
        kernels = self.exe.kernels
        if kernels is None or name not in kernels:
            raise _Unsupported(f"call to {name!r}, which is neither a kernel nor a builtin the C entry supports")
        info = kernels[name].info
        symbol = kernel_symbol(name)
        if not _IDENT.match(symbol):
            raise _Unsupported(f"kernel name {name!r} is not a C identifier")
        if len(info.params) != len(args):
            raise _Unsupported(f"kernel {name!r} called with {len(args)} arguments, expects {len(info.params)}")
        words = []
        for param, arg in zip(info.params, args):
            if param.kind == "buffer":
                words.append(f"(uint64_t)(uintptr_t)({self.tensor_arg(arg).expr})")
            elif param.kind == "int":
                words.append(f"(uint64_t)(int64_t)({int(self.static(arg))}LL)")
            else:
                bits = struct.unpack("<Q", struct.pack("<d", float(self.static(arg))))[0]
                words.append(f"{bits}ULL")
        self.kernels.add(symbol)
        step = len(self.steps)
        self.steps.append(name)
        self.body.append(f"{{ uint64_t a[] = {{{', '.join(words)}}}; int32_t rc = {symbol}(a, {len(words)}); "
                         f"if (rc) {{ *failed_check = rc; return {step + 1}; }} }}")


def _check_tensor_info(w: _Writer, args) -> None:
    reg, ndim, dtype = args[0].value, w.static(args[1]), w.static(args[2])
    if args[0].kind == "reg" and reg in w.params:
        w.params[reg].update(ndim=ndim, dtype=dtype)
        w.values[reg].dtype = dtype


def _match_shape(w: _Writer, args) -> None:
    reg = args[0].value
    spec = [w.static(a) for a in args[3:]]
    if any(kind != 0 for kind in spec[0::3]):
        raise _Unsupported(f"argument %{reg} has a symbolic shape")
    if args[0].kind == "reg" and reg in w.params:
        w.params[reg]["shape"] = w.values[reg].shape = tuple(spec[1::3])


def _alloc_storage(w: _Writer, args):
    nbytes = w.static(args[1])
    if isinstance(nbytes, tuple):
        (nbytes,) = nbytes
    return ("storage", w.take(int(nbytes)))


def _alloc_tensor(w: _Writer, args) -> _Tensor:
    storage = w.values.get(args[0].value)
    if not (isinstance(storage, tuple) and storage and storage[0] == "storage"):
        raise _Unsupported("alloc_tensor on a storage not allocated statically")
    offset, shape, dtype = w.static(args[1]), tuple(w.static(args[2])), w.static(args[3])
    return w.new_tensor(f"ws + {storage[1] + offset}", shape, dtype)


def _alloc_output(w: _Writer, args) -> _Tensor:
    shape, dtype = tuple(w.static(args[1])), w.static(args[2])
    return w.new_tensor(f"ws + {w.take(_nbytes(shape, dtype))}", shape, dtype)


def _reshape(w: _Writer, args) -> _Tensor:
    source = w.tensor_arg(args[0])
    shape = tuple(int(s) for s in w.static(args[1]))
    if math.prod(shape) != math.prod(source.shape):
        raise _Unsupported(f"reshape from {source.shape} to {shape}")
    return w.new_tensor(source.data, shape, source.dtype)


def _make_shape(w: _Writer, args) -> tuple:
    spec = [w.static(a) for a in args[1:]]
    if any(kind != 0 for kind in spec[0::2]):
        raise _Unsupported("make_shape with symbolic dims")
    return tuple(spec[1::2])


def _make_tuple(w: _Writer, args) -> list:
    return [w.tensor_arg(a) for a in args]


def _tuple_getitem(w: _Writer, args):
    items = w.values.get(args[0].value)
    if not isinstance(items, list):
        raise _Unsupported("tuple_getitem on a value that is not a tuple of tensors")
    return items[int(w.static(args[1]))]


def _copy(w: _Writer, args):
    return w.tensor_arg(args[0])


_BUILTINS = {
    "vm.builtin.check_tensor_info": _check_tensor_info,
    "vm.builtin.match_shape": _match_shape,
    "vm.builtin.alloc_storage": _alloc_storage,
    "vm.builtin.alloc_tensor": _alloc_tensor,
    "vm.builtin.alloc_output": _alloc_output,
    "vm.builtin.reshape": _reshape,
    "vm.builtin.make_shape": _make_shape,
    "vm.builtin.make_tuple": _make_tuple,
    "vm.builtin.tuple_getitem": _tuple_getitem,
    "vm.builtin.copy": _copy,
}


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate(exe: Executable, const_offsets: dict[int, int], name: str | None = None) -> AotResult:
    """C source of the entry point for VM function ``name`` (default: ``entry_function_name``)."""
    name = name or entry_function_name(exe)
    if name is None:
        return AotResult(None, f"no single entry function (functions: {', '.join(exe.functions)})")
    func = exe.functions[name]
    w = _Writer(exe, func, const_offsets)
    returned = None
    try:
        for i, reg in enumerate(w.params):
            w.values[reg] = _Tensor(f"in[{i}]", (), "", f"((char*)in[{i}]->data)")
        for instr in func.instrs:
            if isinstance(instr, Call):
                w.call(instr)
            elif isinstance(instr, Ret):
                returned = w.values.get(instr.reg)
            else:
                raise _Unsupported("control flow (If/Goto)")
        for reg, info in w.params.items():
            if "shape" not in info or "dtype" not in info:
                raise _Unsupported(f"parameter {func.params[reg]!r} is not a tensor of static shape")
        outputs = returned if isinstance(returned, list) else [returned]
        if not outputs or not all(isinstance(t, _Tensor) for t in outputs):
            raise _Unsupported("the function does not return a tensor or a tuple of tensors")
    except _Unsupported as why:
        return AotResult(None, f"function {name!r}: {why}")
    for i, out in enumerate(outputs):
        w.body.append(f"memcpy(out[{i}]->data, {out.data}, {_nbytes(out.shape, out.dtype)});")
    def infos(items: list[_Tensor], names: list[str]) -> str:  # EmberTensorInfo initialisers
        return ", ".join(f"{{{_c_string(n)}, {len(t.shape)}, {w.shape(t.shape)}, {_dl(t.dtype)}}}"
                         for n, t in zip(names, items))

    inputs = [w.values[reg] for reg in w.params]
    input_infos = infos(inputs, func.params) or "{0}"
    output_infos = infos(outputs, [f"output{i}" for i in range(len(outputs))])
    lines = ["#include <stdint.h>", "#include <string.h>", '#include "ember_runtime.h"', "",
             "extern const char __ember_vm_program[];"]
    lines += [f"extern int32_t {k}(uint64_t* args, int32_t num_args);" for k in sorted(w.kernels)]
    lines += w.decls
    lines += ["", "static int32_t run(void* workspace, DLTensor* const* in, DLTensor* const* out, "
              "int32_t* failed_check) {", "  char* ws = (char*)workspace;", "  (void)ws; (void)in;"]
    lines += [f"  {line}" for line in w.body] + ["  return 0;", "}", ""]
    lines.append(f"static const char* const STEPS[] = {{{', '.join(map(_c_string, w.steps)) or '0'}}};")
    lines.append(f"static const EmberTensorInfo INPUTS[] = {{{input_infos}}};")
    lines.append(f"static const EmberTensorInfo OUTPUTS[] = {{{output_infos}}};")
    lines.append(f"const EmberAotEntry __ember_aot_entry = {{EMBER_AOT_ABI_VERSION, {_c_string(name)}, "
                 f"{len(inputs)}, INPUTS, {len(outputs)}, OUTPUTS, {w.workspace}ULL, {len(w.steps)}, STEPS, run}};")
    summary = (f"native entry for {name!r}: {len(w.steps)} kernel calls, {len(inputs)} inputs, "
               f"{len(outputs)} outputs, workspace {w.workspace} bytes")
    return AotResult("\n".join(lines) + "\n", summary)
