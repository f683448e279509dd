"""ember's runtime: devices, NDArray (DLPack in and out), compiled functions and modules,
and the global function registry.  Imports nothing from ember's compiler packages."""

from . import dlpack
from .compiled_function import CompiledFunction
from .container import ShapeTuple
from .device import (
    Device,
    DeviceType,
    cl,
    cpu,
    cuda,
    cuda_host,
    device,
    ext_dev,
    gpu,
    metal,
    opencl,
    rocm,
    vulkan,
    webgpu,
)
from .device_api import DeviceAPI, get_device_api, register_device_api, remove_device_api
from .dtype import DataType
from .errors import ArgumentError, ArgumentTypeError
from .function_info import FunctionInfo, ParamInfo
from .library import load_module
from .module import Module
from .ndarray import NDArray, array, empty, from_dlpack, tensor
from .param_dict import load_param_dict, save_param_dict
from .profiling import ProfileResult, time_evaluator
from .registry import get_global_func, list_global_func_names, register_func, remove_global_func
from .threading import get_num_threads, set_num_threads
from .convert import const, convert
from . import object_path
from .object_path import ObjectPath, ObjectPathPair

__all__ = [
    "ArgumentError", "ArgumentTypeError", "CompiledFunction", "DataType", "Device", "DeviceAPI",
    "DeviceType", "FunctionInfo", "Module", "NDArray", "ParamInfo", "ProfileResult", "array", "cl",
    "cpu", "cuda", "cuda_host", "device", "dlpack", "empty", "ext_dev", "from_dlpack",
    "get_device_api", "get_global_func", "get_num_threads", "set_num_threads", "gpu", "list_global_func_names", "load_module", "load_param_dict", "save_param_dict", "metal", "opencl",
    "register_device_api", "register_func", "remove_device_api", "remove_global_func", "rocm", "ShapeTuple",
    "tensor", "const", "convert", "ObjectPath", "ObjectPathPair", "object_path",
    "time_evaluator", "vulkan", "webgpu",
]  # fmt: skip
