"""Cheaper straight-line code for VM builtins whose arguments are known when compiling.

The VM writes each instruction-list function out as Python (``vm.py``).  For a few
builtins, a call whose operands are immediates can be replaced by something cheaper;
the rules are a table, builtin → ``rule(ctx, instr) -> line | None`` (None: emit the
ordinary call):

- ``alloc_storage`` / ``alloc_tensor`` with constant sizes become slots of a *frame*:
  a list of storages and tensor views built once per function and reused by every later
  invocation (taken from a per-function free list on entry, given back on exit, so
  concurrent and recursive calls get their own).  This is the static memory plan paid
  once instead of per call; the allocator's ``stats.reused`` still counts each storage
  taken again.
- ``alloc_storage`` of a run-time size and ``alloc_tensor`` of a run-time shape (symbolic
  dims) become memo slots of the frame: the storage (tensor view) of the last invocation
  that used the frame, taken again when the size (storage and shape) is the same, else
  allocated and kept.  A symbolic model called at one size repeatedly allocates nothing and
  builds no views, as a static one (the allocator's ``stats.reused`` counts each storage
  taken again).  Between two kernels there is then no more Python than in a static build,
  which matters at 2 threads: OpenMP's workers stop spinning while the caller is slow.
- ``alloc_output`` with a constant cpu shape allocates through the array layout cache.
- ``check_tensor_info`` / ``match_shape`` become one inline comparison (symbolic dims
  stored to / compared with the shape heap inline); the builtin runs only when the
  comparison fails, so its error message is unchanged.
- ``make_shape`` / ``load_shape_value`` / ``eval_shape`` read and write the shape heap
  inline (``eval_shape``'s code is compiled once into a function of the heap).
- A compiled kernel whose arguments are all known NDArrays (frame tensors, outputs,
  checked inputs, constants) is called natively with an args array of the frame:
  ``PACK(FR[k], 0, r2._dltensor_addr, …)``, then ``if RAW(FR[k], n): F(r2, …)`` — a
  failed native check re-runs the call through the CompiledFunction, which explains it.
  An args array of frame tensors, constants and immediates only is packed once, when the
  frame is built.
- Consecutive native kernel calls (with only the data-independent lines above between them)
  become one ``run_calls`` over an entries array of the frame (``KernelRun``,
  ``native_runs.py``): the calls run in order, natively, with no Python between them.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import struct
from collections.abc import Callable
from typing import Any

from ..compiled_function import NATIVE_SIGNATURE, CompiledFunction
from ..container import make_shape_tuple
from ..device import DeviceType
from ..array_fields import layout as _layout
from ..ndarray import NDArray, _check_shape, _empty_cpu
from ..dtype import DataType
from . import builtins as _builtins
from . import native_runs
from .executable import Arg, Call

__all__ = ["StraightLineContext", "RULES", "TENSOR_RESULTS", "kernel_call", "KernelCall", "KernelRun"]


class StraightLineContext:
    """What the rules share while one function is written out: the VM, the namespace
    binder, and the frame being planned (``specs``; ``storage_of`` maps a register that
    holds a frame storage to its slot)."""

    def __init__(self, vm, bind: Callable[[str, Any, Any], str]):
        self.vm = vm
        self.bind = bind
        self.specs: list[tuple] = []
        self.storage_of: dict[int, int] = {}
        self.tensors: set[int] = set()  # registers known to hold an NDArray
        self.frame_tensors: dict[int, int] = {}  # register → frame slot of the tensor view it holds
        self.ints: set[int] = set()  # registers known to hold a Python int (heap values)
        self.memo_storages: set[int] = set()  # registers holding a storage of a memo slot

    def written(self, reg: int | None) -> None:
        """``reg`` is about to be assigned: forget what it was known to hold."""
        self.storage_of.pop(reg, None)
        self.memo_storages.discard(reg)
        self.tensors.discard(reg)
        self.frame_tensors.pop(reg, None)
        self.ints.discard(reg)

    def slot(self, spec: tuple) -> int:
        self.specs.append(spec)
        return len(self.specs) - 1

    def frame_source(self) -> Callable[[], list]:
        """``take()``: a frame for one invocation (a reused one when available)."""
        specs, vm = tuple(self.specs), self.vm
        storages = sum(1 for s in specs if s[0] == "storage")
        free: list[list] = []

        def new_frame() -> list:
            frame: list = []
            for spec in specs:
                if spec[0] == "storage":
                    frame.append(vm.allocator.alloc(spec[1], vm.devices[spec[2]]))
                elif spec[0] == "args":
                    _, n, pack, sources = spec
                    frame.append((ctypes.c_uint64 * n)())
                    if pack is not None:  # all known now: packed once for every invocation
                        pack(frame[-1], 0, *(frame[v]._dltensor_addr if kind == "frame" else v
                                             for kind, v in sources))
                elif spec[0] == "calls":
                    frame.append(native_runs.entries_array([(a, frame[slot], n) for a, slot, n in spec[1]]))
                elif spec[0] == "memo":
                    frame.append([None, None, None])
                else:
                    _, storage, offset, shape, dtype = spec
                    frame.append(frame[storage].alloc_tensor(offset, shape, dtype))
            return frame

        def take() -> list:
            try:
                frame = free.pop()
            except IndexError:
                return new_frame()
            vm.allocator.stats.reused += storages
            return frame

        take.give_back = free.append
        return take


def _imm(arg: Arg) -> bool:
    return arg.kind == "imm"


def _memo_storage(vm, slot: list, nbytes, device: int):
    """The storage of ``slot`` when it has ``nbytes``, else a new one kept there."""
    if type(nbytes) is not int:
        (nbytes,) = nbytes
    if slot[0] == nbytes:
        vm.allocator.stats.reused += 1
        return slot[1]
    storage = vm.allocator.alloc(nbytes, vm.devices[device])
    slot[0], slot[1] = nbytes, storage
    return storage


def _memo_tensor(slot: list, storage, offset: int, shape, dtype: str):
    """The view of ``slot`` when it is of ``storage`` with ``shape``, else a new one kept there."""
    if slot[0] is storage and slot[1] == shape:
        return slot[2]
    tensor = storage.alloc_tensor(offset, shape, dtype)
    slot[0], slot[1], slot[2] = storage, shape, tensor
    return tensor


def _run_time_storage(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if args[1].kind != "reg" or not all(_imm(a) for a in args[2:]):
        return None
    device = args[2].value if len(args) > 2 else 0
    if type(device) is not int or device >= len(ctx.vm.devices):
        return None
    slot = ctx.slot(("memo",))
    ctx.memo_storages.add(instr.dst)
    memo = ctx.bind("MS", "memo_storage", functools.partial(_memo_storage, ctx.vm))
    return f"r{instr.dst} = {memo}(FR[{slot}], r{args[1].value}, {device})"


def _run_time_tensor(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    offset, shape, dtype = args[1], args[2], args[3]
    if args[0].value not in ctx.memo_storages and args[0].value not in ctx.storage_of:
        return None
    if not (_imm(offset) and type(offset.value) is int and _imm(dtype) and isinstance(dtype.value, str)):
        return None
    if shape.kind != "reg" and not (_imm(shape) and _int_tuple(shape.value)):
        return None
    slot = ctx.slot(("memo",))
    ctx.tensors.add(instr.dst)
    memo = ctx.bind("MT", "memo_tensor", _memo_tensor)
    shape_text = f"r{shape.value}" if shape.kind == "reg" else repr(shape.value)
    return f"r{instr.dst} = {memo}(FR[{slot}], r{args[0].value}, {offset.value}, {shape_text}, {dtype.value!r})"


def _storage(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or len(args) < 2:
        return None
    if not all(_imm(a) for a in args[1:]):
        return _run_time_storage(ctx, instr)
    nbytes = args[1].value
    if isinstance(nbytes, tuple):
        if len(nbytes) != 1:
            return None
        (nbytes,) = nbytes
    device = args[2].value if len(args) > 2 else 0
    if not isinstance(nbytes, int) or not isinstance(device, int) or device >= len(ctx.vm.devices):
        return None
    slot = ctx.slot(("storage", nbytes, device))
    ctx.storage_of[instr.dst] = slot
    return f"r{instr.dst} = FR[{slot}]"


def _tensor(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or len(args) != 4 or args[0].kind != "reg":
        return None
    if not all(_imm(a) for a in args[1:]) or args[0].value in ctx.memo_storages:
        return _run_time_tensor(ctx, instr)
    storage = ctx.storage_of.get(args[0].value)
    offset, shape, dtype = args[1].value, args[2].value, args[3].value
    if storage is None or not isinstance(offset, int) or not _int_tuple(shape) or not isinstance(dtype, str):
        return None
    slot = ctx.slot(("tensor", storage, offset, shape, dtype))
    ctx.tensors.add(instr.dst)
    ctx.frame_tensors[instr.dst] = slot
    return f"r{instr.dst} = FR[{slot}]"


def _output(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or len(args) < 3 or not all(_imm(a) for a in args[1:]):
        return None
    shape, dtype = args[1].value, args[2].value
    device = args[3].value if len(args) > 3 else 0
    if not _int_tuple(shape) or not isinstance(dtype, str) or not isinstance(device, int):
        return None
    if device >= len(ctx.vm.devices) or ctx.vm.devices[device].device_type != DeviceType.CPU:
        return None
    try:
        layout = _layout(_check_shape(shape), DataType(dtype))
    except (TypeError, ValueError):
        return None  # the builtin reports it when the instruction runs
    new = functools.partial(_empty_cpu, layout, ctx.vm.devices[device])
    ctx.tensors.add(instr.dst)
    return f"r{instr.dst} = {ctx.bind('O', (shape, dtype, device), new)}()"


def _tensor_info(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if len(args) != 4 or args[0].kind != "reg" or not all(_imm(a) for a in args[1:]):
        return None
    reg, ndim, dtype, what = f"r{args[0].value}", args[1].value, args[2].value, args[3].value
    if not isinstance(ndim, int) or not isinstance(dtype, str) or not isinstance(what, str):
        return None
    failed = [f"type({reg}) is not NDARRAY"]
    if dtype:
        failed.append(f"{reg}.dtype != {dtype!r}")
    if ndim >= 0:
        failed.append(f"len({reg}.shape) != {ndim}")
    check = ctx.bind("F", instr.func, _builtins.check_tensor_info)
    ctx.tensors.add(args[0].value)  # the check raises unless it is an NDArray
    return f"if {' or '.join(failed)}: {check}({reg}, {ndim!r}, {dtype!r}, {ctx.bind('S', what, what)})"


def _match_shape(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if len(args) < 3 or args[0].kind != "reg" or not all(_imm(a) for a in args[2:]):
        return None
    spec = [a.value for a in args[3:]]
    if len(spec) % 3 or not all(type(spec[i]) is int and type(spec[i + 1]) is int for i in range(0, len(spec), 3)):
        return None
    reg = f"r{args[0].value}"
    kinds = [spec[i] for i in range(0, len(spec), 3)]
    if any(k not in (_builtins.IMM, _builtins.ANY) for k in kinds) and args[1].kind != "reg":
        return None
    heap = f"r{args[1].value}" if args[1].kind == "reg" else None
    ok = [f"type({reg}) is NDARRAY", f"len({reg}.shape) == {len(kinds)}"]
    stores, stored_by = [], {}
    for axis, kind in enumerate(kinds):
        operand = spec[3 * axis + 1]
        dim = f"{reg}.shape[{axis}]"
        if kind == _builtins.IMM:
            ok.append(f"{dim} == {operand}")
        elif kind == _builtins.STORE:
            stores.append(f"{heap}[{operand}] = {dim}")
            stored_by[operand] = dim
        elif kind == _builtins.LOAD:
            ok.append(f"{dim} == {stored_by.get(operand, f'{heap}[{operand}]')}")
        elif kind != _builtins.ANY:
            return None
    match = ctx.bind("F", instr.func, _builtins.match_shape)
    call_args = ", ".join([reg] + [_operand(ctx, a) for a in args[1:]])
    if all(k == _builtins.IMM for k in kinds):  # a constant shape: one tuple comparison
        dims = tuple(spec[1::3])
        return f"if type({reg}) is not NDARRAY or {reg}.shape != {dims!r}: {match}({call_args})"
    if not stores:
        return f"if not ({' and '.join(ok)}): {match}({call_args})"
    return f"if {' and '.join(ok)}: {'; '.join(stores)}\nelse: {match}({call_args})"


def _make_shape(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or not args or args[0].kind != "reg" or not all(_imm(a) for a in args[1:]):
        return None
    spec = [a.value for a in args[1:]]
    if len(spec) % 2 or not all(type(v) is int for v in spec):
        return None
    heap, dims = f"r{args[0].value}", []
    for kind, operand in zip(spec[::2], spec[1::2]):
        dims.append(str(operand) if kind == _builtins.IMM else f"{heap}[{operand}]")
    shape = ctx.bind("F", "make_shape_tuple", make_shape_tuple)  # a ShapeTuple, as the builtin's
    return f"r{instr.dst} = {shape}(({', '.join(dims)}{',' if len(dims) == 1 else ''}))"


def _load_shape_value(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or len(args) != 2 or args[0].kind != "reg" or type(args[1].value) is not int:
        return None
    ctx.ints.add(instr.dst)
    return f"r{instr.dst} = r{args[0].value}[{args[1].value}]"


def _eval_shape(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if len(args) != 3 or args[0].kind != "reg" or not _imm(args[1]) or not _imm(args[2]):
        return None
    dst, code = args[1].value, args[2].value
    if type(dst) is not int or not isinstance(code, str):
        return None
    try:
        fn = eval(compile(f"lambda h: {code}", "<shape>", "eval"), {"__builtins__": {}})  # noqa: S307 - ours
    except SyntaxError:
        return None
    heap = f"r{args[0].value}"
    return f"{heap}[{dst}] = int({ctx.bind('E', code, fn)}({heap}))"


def _shape_heap(ctx: StraightLineContext, instr: Call) -> str | None:
    args = instr.args
    if instr.dst is None or len(args) != 1 or type(args[0].value) is not int or args[0].kind != "imm":
        return None
    return f"r{instr.dst} = [0] * {args[0].value}"


def _operand(ctx: StraightLineContext, arg: Arg) -> str:
    if arg.kind == "reg":
        return f"r{arg.value}"
    return ctx.bind("I", (type(arg.value), repr(arg.value)), arg.value)


@dataclasses.dataclass(frozen=True)
class KernelCall:
    """One native kernel call as written out: its args array (frame slot ``slot``, ``n``
    words) filled per invocation by ``pack`` (None: packed when the frame is built), the
    native entry point ``raw`` (its address when ``run_calls`` may call it), and the checked
    call ``callee(args)`` that explains a failure."""

    slot: int
    n: int
    pack: str | None
    raw: str
    address: int | None
    callee: str
    args: tuple[str, ...]
    regs: frozenset

    def lines(self) -> list[str]:
        return [self.pack] * (self.pack is not None) + [
            f"if {self.raw}(FR[{self.slot}], {self.n}): {self.callee}({', '.join(self.args)})"]


def kernel_call(ctx: StraightLineContext, instr: Call, kernel: CompiledFunction, callee: str) -> KernelCall | None:
    """A native call of ``kernel`` with a frame args array, when every argument is a known
    NDArray (buffer parameters) or a heap value (int parameters)."""
    params = kernel.info.params
    if instr.dst is not None or len(instr.args) != len(params) or not params:
        return None
    values, sources, names = [], [], []
    for param, arg in zip(params, instr.args):
        if param.kind == "buffer" and arg.kind == "reg" and arg.value in ctx.tensors:
            values.append(f"r{arg.value}._dltensor_addr")
            slot = ctx.frame_tensors.get(arg.value)
            sources.append(("frame", slot) if slot is not None else None)
        elif param.kind == "buffer" and arg.kind == "const" and type(ctx.vm.constants[arg.value]) is NDArray:
            values.append(str(ctx.vm.constants[arg.value]._dltensor_addr))
            sources.append(("int", ctx.vm.constants[arg.value]._dltensor_addr))
        elif param.kind == "int" and arg.kind == "reg" and arg.value in ctx.ints:
            values.append(f"r{arg.value}")
            sources.append(None)
        elif param.kind == "int" and arg.kind == "imm" and type(arg.value) is int and -(1 << 63) <= arg.value < 1 << 63:
            values.append(str(arg.value))
            sources.append(("int", arg.value))
        else:
            return None
        names.append(_operand(ctx, arg) if arg.kind != "const" else ctx.bind("C", arg.value, ctx.vm.constants[arg.value]))
    n = len(params)
    codes = "".join("Q" if p.kind == "buffer" else "q" for p in params)
    pack_into = struct.Struct(f"<{codes}").pack_into
    if all(sources):  # nothing that changes between invocations
        slot, pack = ctx.slot(("args", n, pack_into, tuple(sources))), None
    else:
        slot = ctx.slot(("args", n, None, ()))
        pack = f"{ctx.bind('P', codes, pack_into)}(FR[{slot}], 0, {', '.join(values)})"
    # a timer or other wrapper put in place of the native entry is called as it is, one by one
    address = kernel.address if isinstance(kernel._fn, NATIVE_SIGNATURE) else None
    regs = frozenset(a.value for a in instr.args if a.kind == "reg")
    return KernelCall(slot, n, pack, ctx.bind("N", instr.func, kernel._fn), address, callee, tuple(names), regs)


class KernelRun:
    """Consecutive native kernel calls collected while a function is written out, emitted as
    one ``run_calls`` (see ``native_runs.py``).  The lines between them that the VM writes
    (``RULES``: allocations from the frame, shape checks, shape heap) never read tensor data,
    so they may run before the kernels of the run; any other line ends the run
    (``flush``), as does writing a register a pending call reads."""

    def __init__(self, ctx: StraightLineContext):
        self.ctx = ctx
        self.calls: list[KernelCall] = []
        self.regs: set[int] = set()

    def add(self, call: KernelCall) -> list[str]:
        """Lines to emit now for ``call`` (its per-invocation pack; the call itself waits)."""
        if call.address is None:
            return self.flush() + call.lines()
        self.calls.append(call)
        self.regs |= call.regs
        return [call.pack] if call.pack is not None else []

    def flush(self) -> list[str]:
        """The lines that run the pending calls (none pending: none)."""
        calls, self.calls, self.regs = self.calls, [], set()
        run = native_runs.runner() if len(calls) > 1 else None
        if run is None:
            return [c.lines()[-1] for c in calls]
        ctx = self.ctx
        slot = ctx.slot(("calls", tuple((c.address, c.slot, c.n) for c in calls)))
        checked = ", ".join(f"({c.callee}, ({', '.join(c.args)}{',' * (len(c.args) == 1)}))" for c in calls)
        return [f"st = {ctx.bind('RUN', 'run_calls', run)}(FR[{slot}], {len(calls)})",
                f"if st: {ctx.bind('FINISH', 'finish', native_runs.finish)}(FR[{slot}], st, ({checked},))"]


def _int_tuple(value) -> bool:
    return isinstance(value, tuple) and all(type(v) is int and v >= 0 for v in value)


# builtin name → (the registered function the rule stands for, rule)
RULES: dict[str, tuple[Callable, Callable[[StraightLineContext, Call], str | None]]] = {
    "vm.builtin.alloc_storage": (_builtins.alloc_storage, _storage),
    "vm.builtin.alloc_tensor": (_builtins.alloc_tensor, _tensor),
    "vm.builtin.alloc_output": (_builtins.alloc_output, _output),
    "vm.builtin.check_tensor_info": (_builtins.check_tensor_info, _tensor_info),
    "vm.builtin.match_shape": (_builtins.match_shape, _match_shape),
    "vm.builtin.alloc_shape_heap": (_builtins.alloc_shape_heap, _shape_heap),
    "vm.builtin.make_shape": (_builtins.make_shape, _make_shape),
    "vm.builtin.load_shape_value": (_builtins.load_shape_value, _load_shape_value),
    "vm.builtin.eval_shape": (_builtins.eval_shape, _eval_shape),
}

# builtins that always return a fresh or planned NDArray: their results are known tensors
TENSOR_RESULTS = (_builtins.alloc_tensor, _builtins.alloc_output)
