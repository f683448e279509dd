"""``ember.relay``: TVM's classic deployment API as a thin face over Relax.

Relay itself is not rebuilt.  ``relay.frontend.from_onnx`` imports through the Relax
ONNX importer and returns ``(mod, params)``; ``relay.build`` binds the parameters and
compiles with ``relax.build``; its result unpacks as ``graph, lib, params`` and runs on
``ember.contrib.graph_executor`` (a face over the Relax VM).  ``relay.testing`` builds the
classic workloads (ResNet, MobileNet, MLP) in code.  What you get back is Relax IR: print
it with ``mod.show()``.
"""

from __future__ import annotations

import importlib

from ember.runtime.param_dict import load_param_dict, save_param_dict
from ember.transform import PassContext

from .build_module import ExecutorFactory, build, build_config

_SUBMODULES = ("frontend", "testing", "transform")


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f"ember.relay.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.relay' has no attribute {name!r} (ember.relay is a thin classic API "
                         "over Relax: build, build_config, frontend, testing, transform, save_param_dict, "
                         "load_param_dict)")


__all__ = ["ExecutorFactory", "PassContext", "build", "build_config", "load_param_dict", "save_param_dict",
           *_SUBMODULES]
