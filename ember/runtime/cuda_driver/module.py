"""Runtime modules for CUDA: ``CUDAModule`` (device kernels) and ``CUDAHostModule`` (launchers).

``CUDAModule`` holds the CUDA C source of a set of ``__global__`` kernels and their
signatures; it compiles them with NVRTC (PTX on request, a CUBIN for the GPU at the
first launch) and launches them through the driver API.  ``CUDAHostModule`` holds
the host side: one Python launcher per PrimFunc (generated source, executed here),
which checks the arguments, binds symbolic shapes, and launches kernels in order.
It imports ``CUDAModule`` as ``imported_modules[0]``.  Nothing here imports the compiler.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from ..arg_explain import TensorView, explain_failure
from ..device import Device, DeviceType
from ..errors import ArgumentError, ArgumentTypeError
from ..function_info import FunctionInfo
from ..module import Module
from ..ndarray import NDArray, from_dlpack
from ..profiling import ProfileResult
from . import driver as _driver
from .bindings import check, driver
from .nvrtc import compile_to_cubin, compile_to_ptx, nvrtc_available, supported_archs

__all__ = ["KernelSpec", "CUDAModule", "CUDAHostModule", "HostFunction"]

_CTYPES = {
    "handle": ctypes.c_void_p, "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
    "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64, "bool": ctypes.c_bool, "float32": ctypes.c_float, "float64": ctypes.c_double,
}
_DEFAULT_DYN_SMEM_LIMIT = 48 * 1024


@dataclass(frozen=True, slots=True)
class KernelSpec:
    """A ``__global__`` kernel: its name and parameter types ("handle", "int32", "float32" ...)."""

    name: str
    param_types: tuple[str, ...]

    def __post_init__(self):
        for t in self.param_types:
            if t not in _CTYPES:
                raise ValueError(f"KernelSpec {self.name!r}: unsupported parameter type {t!r}")


class CUDAModule(Module):
    """CUDA C kernels; ``get_source()`` / ``get_source("ptx")``; ``launch(...)`` runs one."""

    def __init__(self, source: str, kernels: dict[str, KernelSpec], arch: str = "sm_80",
                 options: tuple[str, ...] = (), ptx: str | None = None):
        super().__init__({}, type_key="cuda")
        self.source = source
        self.ptx = ptx  # PTX for ``arch`` when known (a loaded library): used without NVRTC
        self.kernels = dict(kernels)
        self.arch = arch
        self.options = tuple(options)
        self._loaded: dict[int, tuple[Any, dict]] = {}  # device id -> (CUmodule, name -> CUfunction)

    def get_source(self, fmt: str = "cuda") -> str:
        """``"cuda"`` / ``"cu"`` (the default): CUDA C; ``"ptx"``: PTX from NVRTC for ``self.arch``."""
        if fmt in ("", "cuda", "cu"):
            return self.source
        if fmt == "ptx":
            return self.ptx if self.ptx is not None else compile_to_ptx(self.source, self.arch, self.options)
        raise ValueError(f"get_source(fmt={fmt!r}): a CUDA module has 'cuda' and 'ptx'")

    @property
    def source_formats(self) -> list[str]:
        return ["cuda", "ptx"]

    def save(self, file_name: str, fmt: str = "") -> None:
        fmt = fmt or file_name.rsplit(".", 1)[-1]
        with open(file_name, "w") as f:
            f.write(self.get_source("ptx" if fmt == "ptx" else "cuda"))

    # -- loading and launching ---------------------------------------------------------------
    def _function(self, name: str, device_id: int):
        loaded = self._loaded.get(device_id)
        if loaded is None:
            _driver.context(device_id)
            major, minor = _driver.compute_capability(device_id)
            real = major * 10 + minor
            drv = driver()
            if self.ptx is not None and not nvrtc_available():  # a loaded library, no NVRTC: JIT its PTX
                image = self.ptx.encode() + b"\0"
            elif real in supported_archs():
                image = compile_to_cubin(self.source, f"sm_{real}", self.options)
            else:  # a GPU newer than this NVRTC: PTX for the newest arch it knows, JIT-compiled by the driver
                best = max(a for a in supported_archs() if a <= real)
                image = compile_to_ptx(self.source, f"sm_{best}", self.options).encode() + b"\0"
            module = check(drv.cuModuleLoadData(image), "cuModuleLoadData")
            loaded = self._loaded[device_id] = (module, {})
        functions = loaded[1]
        func = functions.get(name)
        if func is None:
            if name not in self.kernels:
                raise AttributeError(f"CUDAModule has no kernel {name!r} (kernels: {', '.join(self.kernels)})")
            func = functions[name] = check(driver().cuModuleGetFunction(loaded[0], name.encode()),
                                           f"cuModuleGetFunction({name!r})")
        return func

    def launch(self, name: str, device_id: int, grid: tuple, block: tuple, shared_bytes: int, args: tuple) -> None:
        """Launch kernel ``name`` on ``cuda(device_id)`` with ``grid`` x ``block`` threads."""
        spec = self.kernels[name]
        if len(args) != len(spec.param_types):
            raise ValueError(f"launch {name!r}: expected {len(spec.param_types)} arguments, got {len(args)}")
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        block = tuple(int(b) for b in block) + (1,) * (3 - len(block))
        if min(grid) <= 0 or min(block) <= 0:
            return  # an empty launch (a zero-sized dimension) does nothing
        func = self._function(name, device_id)
        drv = driver()
        if shared_bytes > _DEFAULT_DYN_SMEM_LIMIT:
            attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            check(drv.cuFuncSetAttribute(func, attr, int(shared_bytes)), "cuFuncSetAttribute")
        types = tuple(_CTYPES[t] for t in spec.param_types)
        check(drv.cuLaunchKernel(func, *grid, *block, int(shared_bytes), 0, (tuple(args), types), 0),
              f"cuLaunchKernel({name!r}, grid={grid}, block={block}, shared={shared_bytes} bytes)")

    def __repr__(self) -> str:
        return f"CUDAModule(arch={self.arch!r}, kernels=[{', '.join(self.kernels)}])"


class HostFunction:
    """A PrimFunc on the GPU: checks its arguments (as native functions do), then launches."""

    def __init__(self, info: FunctionInfo, launcher):
        self.info = info
        self._launcher = launcher

    def __call__(self, *args: Any) -> None:
        info = self.info
        if len(args) != len(info.params):
            raise ArgumentError(f"{info.signature()}: expected {len(info.params)} arguments, got {len(args)}")
        values, views = [], []
        for index, (param, arg) in enumerate(zip(info.params, args)):
            if param.kind == "buffer":
                arr = _as_device_array(arg, f"{info.name}: argument '{param.name}' (#{index + 1})")
                values.append(arr)
                views.append(TensorView.read(arr._dltensor_addr))
            else:
                if isinstance(arg, NDArray) or hasattr(arg, "__dlpack__"):
                    raise ArgumentTypeError(f"{info.name}: argument '{param.name}' (#{index + 1}): expected a "
                                            f"{param.dtype} scalar, got an array")
                values.append(arg)
                views.append(arg)
        problem = explain_failure(info, views)
        if problem:
            raise ArgumentError(f"{info.name}: {problem}")
        device_ids = {v.device.device_id for v in views if isinstance(v, TensorView)}
        if len(device_ids) > 1:
            raise ArgumentError(f"{info.name}: all arrays must be on the same GPU, got cuda devices "
                                f"{sorted(device_ids)}")
        self._launcher(device_ids.pop() if device_ids else 0, *values)

    def __repr__(self) -> str:
        return f"<cuda function {self.info.signature()}>"


def _as_device_array(arg: Any, where: str) -> NDArray:
    if isinstance(arg, NDArray):
        arr = arg
    elif hasattr(arg, "__dlpack__"):
        arr = from_dlpack(arg)
    else:
        raise ArgumentTypeError(f"{where}: expected a cuda array (ember.nd.array(x, "
                                f"device=ember.cuda()) or a CUDA torch tensor), got {type(arg).__name__}")
    if arr.device.device_type != DeviceType.CUDA:
        raise ArgumentError(f"{where}: expected an array on a cuda device, got one on "
                            f"{arr.device}; copy it there first: ember.nd.array(x, device=ember.cuda())")
    return arr


class CUDAHostModule(Module):
    """The functions of a CUDA build: Python launchers over an imported ``CUDAModule``."""

    def __init__(self, host_source: str, infos: dict[str, FunctionInfo], device_module: CUDAModule,
                 entry_points: dict[str, str] | None = None):
        namespace: dict[str, Any] = {"_launch": device_module.launch, "_alloc": _driver.DeviceMemory,
                                     "__builtins__": __builtins__}
        exec(compile(host_source, "<ember cuda host>", "exec"), namespace)  # generated by ember.codegen.cuda
        entry_points = entry_points or {name: name for name in infos}
        functions = {name: HostFunction(info, namespace[entry_points[name]]) for name, info in infos.items()}
        super().__init__(functions, type_key="cuda_host", imports=[device_module])
        self.host_source = host_source
        self.entry_points = dict(entry_points)
        self.infos = infos
        self.device_module = device_module

    def get_source(self, fmt: str = "") -> str:
        """``""`` / ``"host"``: the Python launchers; ``"cuda"``, ``"cu"``, ``"ptx"``: the kernels."""
        if fmt in ("", "host", "py", "python"):
            return self.host_source
        return self.device_module.get_source(fmt)

    @property
    def source_formats(self) -> list[str]:
        return ["host", "cuda", "ptx"]

    def export_library(self, file_name: str, fcompile=None, cc: str | None = None, options=(), **kwargs) -> None:
        """Write a shared library (``.so``; ``.o`` / ``.tar`` too) holding the launchers, the
        CUDA C and its PTX; ``ember.runtime.load_module(path)`` loads it back."""
        from .export import export_cuda_library

        export_cuda_library(self, file_name, cc=cc, options=tuple(options))

    def time_evaluator(self, func_name: str, dev: Device, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, f_preproc: str = "", cooldown_interval_ms: float = 0,
                       repeats_to_cooldown: int = 1):
        """Time ``func_name`` with CUDA events on a cuda device (wall clock elsewhere)."""
        if dev.device_type != DeviceType.CUDA:
            return super().time_evaluator(func_name, dev, number, repeat, min_repeat_ms, f_preproc,
                                          cooldown_interval_ms, repeats_to_cooldown)
        if number < 1 or repeat < 1:
            raise ValueError(f"time_evaluator: number and repeat must be >= 1, got number={number}, repeat={repeat}")
        func = self.get_function(func_name)

        def evaluate(*args: Any) -> ProfileResult:
            func(*args)  # warm-up: loads the module
            timer = _driver.EventTimer(dev.device_id)
            results, count = [], number
            for _ in range(repeat):
                while True:
                    timer.start()
                    for _ in range(count):
                        func(*args)
                    elapsed_ms = timer.stop()
                    if elapsed_ms >= min_repeat_ms:
                        break
                    count = max(int(min_repeat_ms / max(elapsed_ms / count, 1e-6) * 1.1) + 1, count * 2)
                results.append(elapsed_ms / 1e3 / count)
            return ProfileResult(tuple(results), count)

        return evaluate

    def __repr__(self) -> str:
        kernels = ", ".join(self.device_module.kernels)
        return f"CUDAHostModule(functions=[{', '.join(self.function_names)}], kernels=[{kernels}])"
