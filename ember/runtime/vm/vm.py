"""The Relax virtual machine: runs an ``Executable`` on a device.

Each VM function is turned, once, into a Python function whose body is its
instruction list written out as straight-line code (``r3 = F1(r0, C0)`` …), with
callees resolved ahead of time: a call costs one Python call, no dispatch.  Functions
with jumps (``If``/``Goto``) run on a small interpreter loop instead.
``VirtualMachine.source(name)`` shows the generated Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiled_function import CompiledFunction
from ..device import Device, DeviceType, cpu, device as as_device
from ..errors import ArgumentTypeError
from ..ndarray import NDArray, _wrap_numpy, array, from_dlpack
from ..profiling import time_evaluator as _time_evaluator
from ..registry import get_global_func
from . import builtins as _builtins  # noqa: F401 - registers vm.builtin.*
from .allocator import PooledAllocator, default_allocator
from .devices import check_devices, device_constants, moving_inputs, to_device
from .executable import Call, Executable, Goto, If, Ret, VMFunction
from .constant_arena import pack_constants
from .fastpath import RULES, TENSOR_RESULTS, KernelRun, StraightLineContext, kernel_call

__all__ = ["VirtualMachine"]

_CPU = cpu(0)


class VirtualMachine:
    """``vm = VirtualMachine(exe, ember.cpu())``; ``vm["main"](x, w)``."""

    def __init__(self, exe: Executable, device: Device | list | None = None, memory_cfg=None,
                 profile: bool = False, allocator: PooledAllocator | None = None):
        remote_guard = getattr(exe, "remote_call_guard", None)  # ember.rpc's RPCModule
        if not isinstance(exe, Executable):
            exe = getattr(exe, "executable", exe)
            if not isinstance(exe, Executable):
                raise TypeError(f"VirtualMachine expects a relax Executable, got {type(exe).__name__}")
        devices = device if isinstance(device, list | tuple) else [device or cpu(0)]
        devices = [as_device(d) if isinstance(d, str) else d for d in devices]  # "cuda", "cpu"
        check_devices(exe, list(devices))
        self.exe = exe
        self.devices = list(devices)
        if self.devices[0].device_type == DeviceType.CPU:
            pack_constants(exe)  # the weights on huge pages, in program order (once per executable)
        self.constants = device_constants(exe.constants, self.devices[0])  # on the VM's device
        self.allocator = allocator or default_allocator
        self._compiled: dict[str, Callable] = {}
        self._sources: dict[str, str] = {}
        self._inputs: dict[str, tuple] = {}
        self._outputs: dict[str, Any] = {}
        self._saved: dict[str, Callable] = {}  # save_function's closures, by name
        # a module loaded through an ember.rpc session: errors reach the caller as RPCError
        self._remote_guard = remote_guard
        if remote_guard is not None:
            for method in ("set_input", "invoke_stateful", "get_outputs", "save_function", "invoke"):
                setattr(self, method, remote_guard(getattr(self, method)))

    # -- calling -----------------------------------------------------------------------
    def __getitem__(self, name: str) -> Callable:
        return self.get_function(name)

    def get_function(self, name: str) -> Callable:
        if name in self._inputs:
            raise RuntimeError(f"{name}: its inputs were set with set_input; run it with "
                               f"invoke_stateful({name!r}) and read get_outputs({name!r})")
        fn = self._function(name)
        return fn if self._remote_guard is None else self._remote_guard(fn)

    def _function(self, name: str) -> Callable:
        fn = self._compiled.get(name) or self._saved.get(name)
        if fn is None:
            if name not in self.exe.functions:
                names = ", ".join([*self.exe.functions, *self._saved]) or "none"
                raise KeyError(f"the executable has no function {name!r} (functions: {names})")
            vm_func = self.exe.functions[name]
            inner = self._compile(vm_func)
            if self.devices[0].device_type != DeviceType.CPU:  # cpu inputs are copied to the device
                inner = moving_inputs(name, vm_func.params, inner, self.devices[0])
            fn = self._compiled[name] = _entry_point(name, vm_func.params, inner)
        return fn

    def invoke(self, name: str, *args):
        return self.get_function(name)(*args)

    def _bind_arguments(self, func_name: str, args: tuple, kwargs: dict, what: str) -> tuple:
        """``args`` followed by ``kwargs`` in parameter order; every parameter must be given."""
        if func_name not in self.exe.functions:
            self._function(func_name)  # raises KeyError naming the functions
        params = self.exe.functions[func_name].params
        if not kwargs:
            return tuple(args)
        unknown = [k for k in kwargs if k not in params[len(args):]]
        missing = [p for p in params[len(args):] if p not in kwargs]
        if unknown or missing:
            raise TypeError(f"{what}({func_name!r}): parameters are ({', '.join(params)}); "
                            f"unknown or repeated keywords {unknown}, missing {missing}")
        return tuple(args) + tuple(kwargs[p] for p in params[len(args):])

    def set_input(self, func_name: str, *args, **kwargs) -> None:
        """Store the inputs of ``func_name`` for ``invoke_stateful`` (by position or parameter
        name); afterwards ``vm[func_name]`` refuses to run it statelessly."""
        self._inputs[func_name] = self._bind_arguments(func_name, args, kwargs, "set_input")
        self._outputs.pop(func_name, None)

    def invoke_stateful(self, func_name: str) -> None:
        """Run ``func_name`` on the inputs given to ``set_input``; read the result with ``get_outputs``."""
        args = self._inputs.get(func_name)
        if args is None:
            params = self.exe.functions[func_name].params if func_name in self.exe.functions else ()
            if params:
                raise ValueError(f"invoke_stateful({func_name!r}): no inputs were set; call "
                                 f"set_input({func_name!r}, ...) first ({func_name} takes {', '.join(params)})")
            args = ()
        self._outputs[func_name] = self._function(func_name)(*args)

    def get_outputs(self, func_name: str):
        """The result of the last ``invoke_stateful(func_name)``."""
        if func_name not in self._outputs:
            raise ValueError(f"get_outputs({func_name!r}): no outputs; call invoke_stateful({func_name!r}) first")
        return self._outputs[func_name]

    def save_function(self, func_name: str, saved_name: str, *args, include_return: bool = True,
                      **kwargs) -> None:
        """Make ``vm[saved_name]()`` run ``func_name`` on these arguments (a closure); with
        ``include_return=False`` it returns None."""
        fn = self._function(func_name)
        bound = self._bind_arguments(func_name, args, kwargs, "save_function")

        def saved():
            result = fn(*bound)
            return result if include_return else None

        saved.__name__ = saved.__qualname__ = saved_name
        self._saved[saved_name] = saved
        self._compiled.pop(saved_name, None)

    def time_evaluator(self, func_name: str, dev: Device | None = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, cooldown_interval_ms: float = 0, repeats_to_cooldown: int = 1,
                       f_preproc: str = "", **kwargs):
        """Time ``vm[func_name](*args)``; ``func_name="invoke_stateful"`` times
        ``invoke_stateful(name)`` (call the result with the function's name)."""
        fn = self.invoke_stateful if func_name == "invoke_stateful" else self.get_function(func_name)
        evaluator = _time_evaluator(fn, dev or self.devices[0], number=number, repeat=repeat,
                                    min_repeat_ms=min_repeat_ms, f_preproc=f_preproc,
                                    cooldown_interval_ms=cooldown_interval_ms,
                                    repeats_to_cooldown=repeats_to_cooldown)
        return evaluator if self._remote_guard is None else self._remote_guard(evaluator)

    def profile(self, func_name: str, *args, clock: Callable[[], float] | None = None):
        """Run ``func_name`` once with every call timed; returns a ``ProfileReport`` (print it).
        ``clock`` (default ``time.perf_counter``): e.g. ``time.thread_time`` for CPU time."""
        from .profiler import profile_function

        self.get_function(func_name)  # checks the name
        func = self.exe.functions[func_name]
        if len(args) != len(func.params):
            raise TypeError(f"{func_name} expects {len(func.params)} arguments ({', '.join(func.params)}), "
                            f"got {len(args)}")
        values = tuple(_as_value(a) for a in args)
        if self.devices[0].device_type != DeviceType.CPU:
            values = tuple(to_device(v, self.devices[0], f"{func_name}: argument #{i + 1}") for i, v in enumerate(values))
        _, report = profile_function(func, values, self._resolve, self._arg,
                                     _builtins.read_if_cond, **({"clock": clock} if clock else {}))
        return report

    def source(self, name: str) -> str:
        """The Python the VM generated for function ``name``."""
        self.get_function(name)
        return self._sources.get(name, "# runs on the interpreter loop (has jumps)")

    # -- compilation of instruction lists --------------------------------------------------
    def _resolve(self, name: str) -> Callable:
        if name in self.exe.functions:
            return _Deferred(self, name)
        kernels = self.exe.kernels
        if kernels is not None and name in kernels:
            return kernels[name]
        return get_global_func(name)

    def _compile(self, func: VMFunction) -> Callable:
        if any(isinstance(i, Goto | If) for i in func.instrs):
            return self._interpreter(func)
        namespace: dict[str, Any] = {"NDARRAY": NDArray}
        names: dict[tuple, str] = {}

        def bind(prefix: str, key, value) -> str:
            label = names.get((prefix, key))
            if label is None:
                label = names[(prefix, key)] = f"{prefix}{len(names)}"
                namespace[label] = value
            return label

        ctx = StraightLineContext(self, bind)
        run = KernelRun(ctx)  # consecutive kernel calls, made in one native call
        body = []
        for instr in func.instrs:
            if isinstance(instr, Call):
                callee_fn = self._resolve(instr.func)
                if instr.dst in run.regs:
                    body += run.flush()
                ctx.written(instr.dst)  # whatever the register held before is gone
                rule = RULES.get(instr.func)
                line = rule[1](ctx, instr) if rule is not None and callee_fn is rule[0] else None
                if line is None and isinstance(callee_fn, CompiledFunction):
                    call = kernel_call(ctx, instr, callee_fn, bind("F", instr.func, callee_fn))
                    if call is not None:
                        body += run.add(call)
                        continue
                if line is None:
                    body += run.flush()  # any other call may read what the pending kernels write
                    line = self._call_line(instr, bind("F", instr.func, callee_fn), bind)
                    if instr.dst is not None and any(callee_fn is f for f in TENSOR_RESULTS):
                        ctx.tensors.add(instr.dst)
                body.extend(line.split("\n"))
            elif isinstance(instr, Ret):
                body += run.flush()
                body.append(f"return r{instr.reg}")
        body += run.flush()
        params = [f"r{i}" for i in range(len(func.params))]
        lines = [f"def {_py_name(func.name)}({', '.join(params)}):"]
        if ctx.specs:  # planned storages: one frame per invocation, see fastpath.py
            take = ctx.frame_source()
            namespace["TAKE"], namespace["GIVE_BACK"] = take, take.give_back
            lines += ["    FR = TAKE()", "    try:"] + [f"        {line}" for line in body]
            lines += ["    finally:", "        GIVE_BACK(FR)"]
        else:
            lines += [f"    {line}" for line in body]
        source = "\n".join(lines) + "\n"
        self._sources[func.name] = source
        exec(compile(source, f"<vm {func.name}>", "exec"), namespace)  # noqa: S102 - generated by us
        return namespace[_py_name(func.name)]

    def _call_line(self, instr: Call, callee: str, bind: Callable) -> str:
        args = []
        for arg in instr.args:
            if arg.kind == "reg":
                args.append(f"r{arg.value}")
            elif arg.kind == "const":
                args.append(bind("C", arg.value, self.constants[arg.value]))
            elif arg.kind == "func":
                args.append(bind("F", arg.value, self._resolve(arg.value)))
            elif arg.kind == "vm":
                args.append(bind("V", "vm", self))
            else:
                args.append(bind("I", (type(arg.value), repr(arg.value)), arg.value))
        target = f"r{instr.dst} = " if instr.dst is not None else ""
        return f"{target}{callee}({', '.join(args)})"

    def _interpreter(self, func: VMFunction) -> Callable:
        instrs = func.instrs
        resolved: list = [None] * len(instrs)  # callees, looked up on first execution

        def run(*args):
            regs: list[Any] = list(args) + [None] * (func.num_regs - len(args))
            pc = 0
            while True:
                instr = instrs[pc]
                if isinstance(instr, Call):
                    fn = resolved[pc]
                    if fn is None:
                        fn = resolved[pc] = self._resolve(instr.func)
                    values = [self._arg(a, regs) for a in instr.args]
                    result = fn(*values)
                    if instr.dst is not None:
                        regs[instr.dst] = result
                    pc += 1
                elif isinstance(instr, Ret):
                    return regs[instr.reg]
                elif isinstance(instr, Goto):
                    pc += instr.offset
                else:  # If
                    pc += 1 if _builtins.read_if_cond(regs[instr.cond]) else instr.false_offset

        return run

    def _arg(self, arg, regs):
        kind = arg.kind
        if kind == "reg":
            return regs[arg.value]
        if kind == "const":
            return self.constants[arg.value]
        if kind == "func":
            return self._resolve(arg.value)
        if kind == "vm":
            return self
        return arg.value


class _Deferred:
    """A VM function called from another: resolved on first call (allows recursion)."""

    def __init__(self, vm: VirtualMachine, name: str):
        self.vm, self.name, self.fn = vm, name, None

    def __call__(self, *args):
        if self.fn is None:
            self.fn = self.vm._compiled.get(self.name) or self.vm._compile(self.vm.exe.functions[self.name])
        return self.fn(*args)


def _py_name(name: str) -> str:
    return "vm_" + "".join(c if c.isalnum() else "_" for c in name)


def _entry_point(name: str, params: tuple, inner: Callable) -> Callable:
    """``vm[name]``: checks the argument count and wraps non-NDArray inputs, then runs ``inner``."""
    n = len(params)
    names = [f"a{i}" for i in range(n)]
    converted = ", ".join(f"{a} if type({a}) is NDARRAY else AS_VALUE({a})" for a in names)
    source = "\n".join([
        "def call(*args):",
        f"    if len(args) != {n}:",
        "        raise COUNT_ERROR(len(args))",
        f"    {', '.join(names)}, = args" if n else "    pass",
        f"    return INNER({converted})",
    ]) + "\n"

    def count_error(got: int) -> ArgumentTypeError:
        return ArgumentTypeError(f"{name} expects {n} arguments ({', '.join(params)}), got {got}")

    namespace = {"NDARRAY": NDArray, "AS_VALUE": _as_value, "INNER": inner, "COUNT_ERROR": count_error}
    exec(compile(source, f"<vm entry {name}>", "exec"), namespace)  # noqa: S102 - generated by us
    call = namespace["call"]
    call.__name__ = call.__qualname__ = name
    return call


_SCALARS = (NDArray, int, float, str, type(None))


def _as_value(value):
    """VM inputs: NDArrays as they are; numpy arrays and DLPack tensors wrapped without copy
    (non-contiguous numpy arrays are copied)."""
    if type(value) is np.ndarray:
        return _wrap_numpy(value, _CPU) if value.flags.c_contiguous else array(value)
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, tuple | list):
        return tuple(_as_value(v) for v in value)
    if hasattr(value, "__array_interface__"):
        return array(value) if not value.flags["C_CONTIGUOUS"] else from_dlpack(value)
    if hasattr(value, "__dlpack__"):
        return from_dlpack(value)
    return value
