"""ember: an end-to-end deep learning compiler in Python, with Apache TVM's architecture.

``import ember as tvm`` gives the familiar entry points: ``te``, ``tir``, ``relax``,
``build``, ``nd``, ``cpu()`` …  Subpackages load on first use, so ``import ember``
stays fast.
"""

from __future__ import annotations

import importlib

from .support.openmp_env import bound_openmp_spinning

bound_openmp_spinning()  # before any OpenMP runtime in the process starts

__version__ = "0.1.0"

_SUBPACKAGES = {
    "ir", "arith", "tir", "te", "topi", "script", "relax", "target", "codegen", "runtime",
    "nd", "testing", "support", "transform", "driver", "dlight", "meta_schedule", "contrib",
    "cli", "error", "relay", "_ffi",
}

# public name → (module, attribute)
_LAZY = {
    "DataType": ("ember.runtime.dtype", "DataType"),
    "IRModule": ("ember.ir", "IRModule"),
    "GlobalVar": ("ember.ir", "GlobalVar"),
    "Range": ("ember.ir", "Range"),
    "structural_equal": ("ember.ir", "structural_equal"),
    "structural_hash": ("ember.ir", "structural_hash"),
    "assert_structural_equal": ("ember.ir", "assert_structural_equal"),
    "cpu": ("ember.runtime", "cpu"),
    "cuda": ("ember.runtime", "cuda"),
    "gpu": ("ember.runtime", "gpu"),
    "metal": ("ember.runtime", "metal"),
    "vulkan": ("ember.runtime", "vulkan"),
    "opencl": ("ember.runtime", "opencl"),
    "rocm": ("ember.runtime", "rocm"),
    "device": ("ember.runtime", "device"),
    "context": ("ember.runtime", "device"),  # TVM < 0.8: tvm.context("cpu", 0)
    "Device": ("ember.runtime", "Device"),
    "register_func": ("ember.runtime", "register_func"),
    "get_global_func": ("ember.runtime", "get_global_func"),
    "build": ("ember.driver", "build"),
    "compile": ("ember.relax.vm_build", "compile"),
    "lower": ("ember.driver", "lower"),
    "Target": ("ember.target", "Target"),
    "instrument": ("ember.ir", "instrument"),  # tvm.instrument is tvm.ir.instrument
    "TVMError": ("ember.error", "TVMError"),
}


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        try:
            module = importlib.import_module(f"ember.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"ember.{name}":
                raise
            raise AttributeError(f"ember.{name} is not part of this version of ember yet") from None
        globals()[name] = module
        return module
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        value = getattr(importlib.import_module(module_name), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBPACKAGES | set(_LAZY))
